//! The suite's programs as experiments' variants: each timed sequentially and with forkjoin
//! on all cores, all interleaved (`sort-width`, `jacobi-barrier`).

use std::time::Instant;

use super::timing::{in_pool, on_cpu};
use super::{cores, interleaved, Best, Plan, Variant};
use crate::suite::kbest::Sample;
use crate::suite::programs::{self, Ctx, Size, Workload};

/// A program of the suite made at `size`.
fn workload(name: &str, size: Size) -> Result<Box<dyn Workload>, String> {
    programs::all()
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| (p.make)(size))
        .ok_or_else(|| format!("the suite has no program '{name}'"))
}

/// Resets `w`, runs it once sequentially (`pool` is `None`) or with forkjoin inside `pool`,
/// and verifies the answer. Times the run including entering the pool, as `fj bench` does.
fn time_workload(
    name: &str,
    w: &mut dyn Workload,
    pool: Option<&forkjoin::Pool>,
) -> Result<Sample, String> {
    w.reset();
    let sample = match pool {
        None => {
            let start = Instant::now();
            w.run(&mut Ctx::Sequential);
            start.elapsed().as_secs_f64().into()
        }
        Some(pool) => in_pool(pool, || pool.install(|| w.run(&mut Ctx::Forkjoin))).0,
    };
    let how = if pool.is_some() {
        "forkjoin"
    } else {
        "sequential"
    };
    w.verify()
        .map_err(|e| format!("{name} ({how}): wrong answer: {e}"))?;
    Ok(sample)
}

/// Times each program sequentially and with forkjoin on all cores, all interleaved. Returns
/// the K-best figures, sequential then forkjoin for each program in turn.
pub(super) fn speedups(plan: &Plan, names: &[&'static str]) -> Result<Vec<Best>, String> {
    let plan = Plan {
        rounds: plan.program_rounds,
        ..*plan
    };
    let threads = cores();
    let pool = forkjoin::Pool::new(threads)
        .map_err(|e| format!("cannot build a pool of {threads}: {e}"))?;
    // Two instances of each program, one per variant, so a variant's reset and verify
    // never touch the other's data (the scratch buffers stay warm for their own runs).
    let mut seq = names
        .iter()
        .map(|n| workload(n, plan.size))
        .collect::<Result<Vec<_>, _>>()?;
    let mut par = names
        .iter()
        .map(|n| workload(n, plan.size))
        .collect::<Result<Vec<_>, _>>()?;
    let mut variants: Vec<Variant<'_>> = Vec::new();
    for ((name, s), p) in names.iter().zip(seq.iter_mut()).zip(par.iter_mut()) {
        variants.push(Box::new(move || time_workload(name, s.as_mut(), None)));
        let pool = &pool;
        variants.push(Box::new(move || {
            time_workload(name, p.as_mut(), Some(pool))
        }));
    }
    interleaved(&plan, &mut variants)
}

/// `on_cpu` for the forkjoin runs in the output of `speedups`.
pub(super) fn pool_note(t: &[Best]) -> String {
    let par: Vec<Best> = t.iter().skip(1).step_by(2).copied().collect();
    on_cpu(
        "cores forkjoin's workers had:",
        &par,
        &vec![true; par.len()],
        cores(),
    )
}
