//! `jacobi-barrier` (the FJTask paper): jacobi with a barrier per step against one per 10
//! steps.

use super::speedups::{pool_note, speedups};
use super::{cores, ms, Outcome, Plan};

const JACOBI_CLAIM: &str =
    "Jacobi relaxation with a global barrier every 10 steps is faster than with one \
     every step (held if per-10-steps is at least 1.1x faster on all cores)";

pub(super) fn run(plan: &Plan) -> Result<Outcome, String> {
    let t = speedups(plan, &["jacobi", "jacobi-10"])?;
    let [seq1, par1, seq10, par10] = [t[0].secs, t[1].secs, t[2].secs, t[3].secs];
    let ratio = par1 / par10;
    Ok(Outcome {
        name: "jacobi-barrier",
        claim: JACOBI_CLAIM,
        source: "FJTask",
        measured: format!(
            "{:?} size, forkjoin on {} cores: barrier per step {}, per 10 steps {}: per 10 \
             steps {ratio:.2}x faster. Sequentially (no barriers at all) per 10 steps is {:.2}x \
             as fast ({} vs {}): its blocks stay in cache for 10 steps, so not all of the gain \
             need be the barriers. Speedups over their own sequential versions: per step {:.2}, \
             per 10 steps {:.2}; their ratio, {:.2}, is the gain from the barriers alone{}",
            plan.size,
            cores(),
            ms(par1),
            ms(par10),
            seq1 / seq10,
            ms(seq1),
            ms(seq10),
            seq1 / par1,
            seq10 / par10,
            (seq10 / par10) / (seq1 / par1),
            pool_note(&t)
        ),
        ratio,
        held: ratio >= 1.1,
    })
}
