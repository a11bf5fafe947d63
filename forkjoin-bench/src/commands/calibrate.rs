//! `fj calibrate`: the runtime's primitive costs measured on this machine and saved as
//! JSON; `fj profile`, `predict`, `validate` and `ft-predict` load them with [`load_costs`]
//! (and `fj ft --model` reads the same file).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use forkjoin::profile::{Costs, MEASURED};

use super::profile::not_modelled;
use super::Failure;
use crate::cli::CalibrateArgs;
use crate::suite::cpus;
use crate::suite::programs::{self, Ctx, Size};

/// Where `fj calibrate` saves the costs and the other commands look for them.
pub const DEFAULT_COSTS: &str = "fj-costs.json";

/// `fj calibrate`: measures the costs and saves them, with their spreads and the names of
/// the costs that could not be pinned down.
pub fn run(args: &CalibrateArgs) -> Result<ExitCode, Failure> {
    let out = &args.out;
    println!(
        "fj calibrate: measuring the runtime's primitive costs on this machine, {} rounds of every measurement in turn, then the joins of the suite's programs (about ten seconds)",
        forkjoin::profile::ROUNDS
    );
    let mut costs = Costs::measure();
    costs.program_join_ns = program_join_costs(&costs)?;
    print_costs(&costs);
    warn_unsettled(&costs);
    costs.save(out).map_err(|e| Failure::Other(e.to_string()))?;
    println!("saved: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn print_costs(c: &Costs) {
    let names = [
        "join, fast path",
        "share and take back",
        "steal by a spinning worker",
        "failed sweep of all queues",
        "wake a parked worker (extra)",
        "external submit and join",
        "search before parking",
        "profiler, per strand",
    ];
    println!(
        "costs on {} (the mean of the fastest fifth of the repetitions for the join, the sharing, the sweep, the search and the profiler, the median for the latencies; and the p25-p75 of the repetitions):",
        c.machine
    );
    for ((name, field), ns) in names.iter().zip(MEASURED).zip(c.measured()) {
        let spread = c.spread.get(field).map_or(String::new(), |s| {
            format!("{:>12.1} - {:<12.1}", s.low, s.high)
        });
        let flag = if c.unsettled.iter().any(|u| u == field) {
            "  unsettled"
        } else {
            ""
        };
        println!("  {name:<30} {ns:>12.1} ns {spread}{flag}");
    }
    println!(
        "  {:<30} {:>12.1} ns (the runtime's constant)",
        "heartbeat period", c.heartbeat_ns
    );
    for (program, ns) in &c.program_join_ns {
        println!("  {:<30} {ns:>12.2} ns", format!("join in {program}"));
    }
}

/// A suite program's own join cost is measured when its joins, at the generic cost, take
/// at least this share of its sequential time: below it, the join cost moves no prediction.
const DENSE_JOINS: f64 = 0.002;

/// The fast-path join cost of every suite program whose joins are dense, measured on its
/// Test input: on one worker, inside one `install` (so that no entry into the pool is in
/// the times), the program forking and its sequential version (two plain calls per join)
/// run in pairs, back to back, in alternating order, in turns that take every program in
/// order several times over the measurement. The median of the pairs' ratios
/// (forking / plain) times the fastest fifth of the plain runs gives the forking run's
/// extra time, and a profile of the same input its join count. Pairing is what makes the
/// figure repeatable: a join costs about a nanosecond, a few percent of these programs'
/// time, and this host's speed drifts by more than that between seconds, which two
/// separate fastest fifths would take for a difference in cost.
///
/// A join's cost depends on the code around it (DESIGN.md, section 12), and `fj validate`
/// predicts the Default input from it, so the one-worker row stays a prediction: measured
/// on another input.
fn program_join_costs(generic: &Costs) -> Result<BTreeMap<String, f64>, Failure> {
    /// Each program takes pairs of runs for `BUDGET_SECONDS` in all, in `ROUNDS` turns
    /// spread over the whole measurement (short programs take many pairs: their ratios
    /// scatter more), at least `MIN_PAIRS` a turn and at most `MAX_PAIRS` in all.
    const BUDGET_SECONDS: f64 = 0.75;
    const ROUNDS: usize = 9;
    const MIN_PAIRS: usize = 3;
    const MAX_PAIRS: usize = 4005;
    struct Measured {
        name: &'static str,
        workload: Box<dyn programs::Workload>,
        joins: u64,
        ratios: Vec<f64>,
        plain: Vec<f64>,
    }
    let _on = cpus::restrict(cpus::for_workers(&cpus::allowed(), 1));
    let pool = forkjoin::Pool::new(1).map_err(|e| Failure::Usage(e.to_string()))?;
    let wrong = |name: &str, e: String| Failure::Other(format!("{name}: wrong answer: {e}"));
    let mut dense = Vec::new();
    for program in programs::all() {
        if not_modelled(program.name).is_some() {
            continue;
        }
        let mut w = (program.make)(Size::Test);
        w.reset();
        let ((), profile) = forkjoin::profile::run(&pool, || w.run(&mut Ctx::Forkjoin));
        w.verify().map_err(|e| wrong(program.name, e))?;
        let joins = profile.joins();
        if joins > 0
            && (joins as f64 * generic.join_ns) >= DENSE_JOINS * profile.work().as_nanos() as f64
        {
            dense.push(Measured {
                name: program.name,
                workload: w,
                joins,
                ratios: Vec::new(),
                plain: Vec::new(),
            });
        }
    }
    // Turns, not one stretch per program: the host has slow stretches of a second or so,
    // in which a forking run slows more than a plain one (one program's ratio rose from
    // 1.09 to 1.4 in one stretch); spread over the measurement, a stretch falls on a few
    // of every program's pairs, and the median leaves them out.
    let turn = BUDGET_SECONDS / ROUNDS as f64;
    for round in 0..ROUNDS {
        for m in &mut dense {
            let Measured {
                workload: w,
                ratios,
                plain,
                ..
            } = m;
            pool.install(|| -> Result<(), String> {
                let mut time = |mut ctx: Ctx| -> Result<f64, String> {
                    w.reset();
                    let t = Instant::now();
                    w.run(&mut ctx);
                    let seconds = t.elapsed().as_secs_f64();
                    w.verify()?;
                    Ok(seconds)
                };
                if round == 0 {
                    // A warm-up pair.
                    time(Ctx::Forkjoin)?;
                    time(Ctx::Sequential)?;
                }
                let started = Instant::now();
                let mut pairs = 0;
                while ratios.len() < MAX_PAIRS * (round + 1) / ROUNDS
                    && (pairs < MIN_PAIRS || started.elapsed().as_secs_f64() < turn)
                {
                    let (f, s) = if ratios.len() % 2 == 0 {
                        let f = time(Ctx::Forkjoin)?;
                        (f, time(Ctx::Sequential)?)
                    } else {
                        let s = time(Ctx::Sequential)?;
                        (time(Ctx::Forkjoin)?, s)
                    };
                    ratios.push(f / s);
                    plain.push(s);
                    pairs += 1;
                }
                Ok(())
            })
            .map_err(|e| wrong(m.name, e))?;
        }
    }
    let mut out = BTreeMap::new();
    for mut m in dense {
        m.ratios.sort_by(f64::total_cmp);
        m.plain.sort_by(f64::total_cmp);
        let ratio = m.ratios[m.ratios.len() / 2];
        let fifth = m.plain.len().div_ceil(FASTEST_FIFTH);
        let plain_seconds = m.plain[..fifth].iter().sum::<f64>() / fifth as f64;
        let per_join = (ratio - 1.0) * plain_seconds * 1e9 / m.joins as f64;
        out.insert(m.name.to_string(), per_join.max(0.0));
    }
    Ok(out)
}

/// The share of the plain runs whose mean is a program's sequential time in
/// [`program_join_costs`]: the fastest fifth, as for the runtime's own CPU-bound costs.
const FASTEST_FIFTH: usize = 5;

/// Names on stderr the costs whose rounds disagreed by more than the stated factor.
fn warn_unsettled(c: &Costs) {
    if !c.unsettled.is_empty() {
        eprintln!(
            "warning: {} could not be pinned down on {} (the rounds' medians spread wider than {}x from p25 to p75): the host is busy, or these costs vary here; the median is saved and the JSON lists them under \"unsettled\"",
            c.unsettled.join(", "),
            c.machine,
            forkjoin::profile::UNSETTLED_FACTOR
        );
    }
}

/// The costs from `--costs FILE`, else `fj-costs.json` if present, else measured now. Costs
/// that were not pinned down are named on stderr.
pub fn load_costs(path: Option<&Path>) -> Result<Costs, Failure> {
    let costs = if let Some(path) = path {
        Costs::load(path).map_err(|e| Failure::Usage(e.to_string()))?
    } else if Path::new(DEFAULT_COSTS).exists() {
        let costs = Costs::load(DEFAULT_COSTS).map_err(|e| Failure::Usage(e.to_string()))?;
        println!("costs: {DEFAULT_COSTS} ({})", costs.machine);
        costs
    } else {
        println!("costs: measuring now (`fj calibrate` saves them to {DEFAULT_COSTS})");
        Costs::measure()
    };
    warn_unsettled(&costs);
    Ok(costs)
}
