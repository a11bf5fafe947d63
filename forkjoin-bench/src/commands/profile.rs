//! `fj profile`: the scalability profiler and predictor (`forkjoin_profile`) applied to
//! one of the suite's programs; `fj predict` and `fj validate` profile through it too.
//!
//! A program is profiled on a pool of one worker (so that its strands are timed without
//! other workers competing for the memory system, as Cilkscale does on a serial run); the
//! profile's task graph is then simulated on P workers with the costs `fj calibrate`
//! measured.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use forkjoin_profile::{self as profile, Costs, Prediction, Profile};

use super::calibrate::{join_fallback_note, load_costs};
use super::{check_output_file, one_program, Failure};
use crate::cli::ProfileArgs;
use crate::suite::cpus;
use crate::suite::kbest::{KBest, Method};
use crate::suite::programs::{not_modelled, Ctx, Program, Size};

/// Worker counts of `fj profile`'s table and plot.
const PROFILE_WORKERS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// `fj profile PROGRAM`.
pub(crate) fn run(args: &ProfileArgs) -> Result<ExitCode, Failure> {
    let Some(name) = &args.program else {
        return super::call_sites::run(args);
    };
    let program = one_program(name)?;
    let svg = args
        .svg
        .clone()
        .unwrap_or_else(|| format!("fj-profile-{}.svg", program.name).into());
    check_output_file("--svg", Some(&svg))?;
    let costs = load_costs(args.model.costs.as_deref())?;
    profile_command(&program, args.model.size, &costs, &svg)?;
    Ok(ExitCode::SUCCESS)
}

/// A program's profile: as measured, and scaled to an unprofiled run on one worker.
pub(crate) struct Profiled {
    /// The profiles combined strand by strand (`Profile::combine`), unscaled.
    pub raw: Profile,
    pub scaled: Profile,
    /// The unprofiled one-worker time the scale comes from (mean of the 3 fastest of up to
    /// ten runs).
    pub one_worker: Duration,
    /// The profiled runs' wall time, by the same statistic as `one_worker` (the mean of the 3
    /// fastest, or of all when there are fewer): what profiling costs, next to it.
    pub profiled_wall: Duration,
    /// How many profiled runs `profiled_wall` comes from.
    pub profiled_runs: usize,
}

/// K of the K-best statistic the measured times are (the default K).
const FASTEST: usize = 3;

/// The unprofiled runs that fix the time scale: the mean of the 3 fastest of up to ten, at
/// least three and at most about a second of them (short runs need a few to settle:
/// caches, page faults, clock frequency).
const UNPROFILED: Method = Method {
    k: FASTEST,
    epsilon: f64::NEG_INFINITY,
    max_runs: 10,
    warmup: 0,
    budget: Some(1.0),
};

/// Profiles `program` at `size` on one worker: a warm-up run, `repeats` profiles combined
/// strand by strand (`Profile::combine`), and the 3 fastest of up to ten unprofiled runs to fix the time scale (see
/// `Profile::scaled_to`), all on one pool and one workload, on `cpu`. Every answer is verified.
pub(crate) fn profile_program(
    program: &Program,
    size: Size,
    repeats: usize,
    costs: &Costs,
    cpu: &[usize],
) -> Result<Profiled, Failure> {
    if let Some(why) = not_modelled(program.name) {
        return Err(Failure::Usage(format!(
            "{} cannot be profiled: it {why}",
            program.name
        )));
    }
    let _on = cpus::restrict(cpu);
    let pool = forkjoin::Pool::new(1).map_err(|e| Failure::Usage(e.to_string()))?;
    let mut w = (program.make)(size);
    let verify = |w: &dyn crate::suite::programs::Workload| {
        w.verify()
            .map_err(|e| Failure::Other(format!("{}: wrong answer: {e}", program.name)))
    };
    // The unprofiled runs (`UNPROFILED`); the first also warms up for the profiles.
    let mut runs = KBest::new(UNPROFILED);
    while !runs.done() {
        w.reset();
        let t = Instant::now();
        pool.install(|| w.run(&mut Ctx::Forkjoin));
        runs.record(t.elapsed().as_secs_f64());
    }
    // The statistic the measured times are: the mean of the K fastest (`FASTEST`).
    // The fastest run alone sits below that mean by the machine's noise, and every
    // prediction scaled from it would be too low by as much.
    let one_worker = mean_of(&runs);
    verify(w.as_ref())?;
    let mut profiles = Vec::new();
    let repeats = repeats.max(1);
    let mut walls = KBest::new(Method::fixed_runs(FASTEST.min(repeats), repeats, 0));
    for _ in 0..repeats {
        w.reset();
        let ((), p) = profile::run(&pool, || w.run(&mut Ctx::Forkjoin));
        verify(w.as_ref())?;
        walls.record(p.wall().as_secs_f64());
        profiles.push(p);
    }
    // Strand by strand, the shortest timing: a strand the host preempted in one profile
    // does not count (DESIGN.md, section 12).
    let raw = Profile::combine(&profiles);
    let scaled = raw.scaled_to(one_worker, costs);
    Ok(Profiled {
        raw,
        scaled,
        one_worker,
        profiled_runs: walls.runs(),
        profiled_wall: mean_of(&walls),
    })
}

/// The mean of the K fastest runs `kbest` recorded, as a duration.
fn mean_of(kbest: &KBest) -> Duration {
    Duration::from_secs_f64(kbest.summary().expect("at least one run").mean)
}

/// The header of a table of predictions.
pub(super) fn print_prediction_header() {
    println!(
        "{:>8} {:>34} {:>10} {:>10} {:>10}",
        "workers", "predicted ms median [min-max]", "speedup", "Cilkview", "bound"
    );
}

/// A prediction's time as "median [min-max]" in milliseconds.
pub(super) fn ms_range(pr: &Prediction) -> String {
    format!(
        "{:.3} [{:.3}-{:.3}]",
        pr.seconds * 1e3,
        pr.seconds_min * 1e3,
        pr.seconds_max * 1e3
    )
}

pub(super) fn print_prediction(pr: &Prediction) {
    println!(
        "{:>8} {:>34} {:>10.2} {:>10.2} {:>10.2}",
        pr.workers,
        ms_range(pr),
        pr.speedup,
        pr.speedup_cilkview,
        pr.speedup_upper
    );
}

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `fj profile PROGRAM`.
fn profile_command(
    program: &Program,
    size: Size,
    costs: &Costs,
    svg: &Path,
) -> Result<(), Failure> {
    // The program's own join cost where `fj calibrate` measured one; where it found none
    // to measure, the generic one, and this says so.
    if let Some(note) = join_fallback_note(costs, program.name) {
        println!("{note}");
    }
    let costs = &costs.for_program(program.name);
    // Five profiles: their wall times give what profiling costs by the same statistic as
    // the unprofiled time (a single profiled run's varies too much to be that figure).
    let profiled = profile_program(program, size, 5, costs, &cpus::fastest())?;
    let p = &profiled.scaled;
    println!(
        "{} (size {}), profiled on 1 worker:",
        program.name,
        crate::cli::size_name(size)
    );
    println!(
        "  one worker, unprofiled {:>12.3} ms (strand times scaled by {:.3} to match it)",
        ms(profiled.one_worker),
        profiled.raw.work_scale(profiled.one_worker, costs)
    );
    let raw = &profiled.raw;
    let how = match raw.combined() {
        1 => "the profile with the least work: the graphs differ from run to run".to_string(),
        n => format!("each strand's shortest timing in {n} profiles"),
    };
    println!(
        "  timed (unscaled)       {:>12.3} ms work, {:.3} ms span ({how})",
        ms(raw.work()),
        ms(raw.span())
    );
    println!("  work (T1)              {:>12.3} ms", ms(p.work()));
    println!("  span (T_inf)           {:>12.3} ms", ms(p.span()));
    println!("  parallelism            {:>12.1}", p.parallelism());
    println!(
        "  burdened span          {:>12.3} ms",
        ms(p.burdened_span_with(costs))
    );
    println!(
        "  burdened parallelism   {:>12.1}",
        p.work().as_secs_f64() / p.burdened_span_with(costs).as_secs_f64().max(1e-12)
    );
    println!("  joins                  {:>12}", p.joins());
    println!("  joins on the span      {:>12}", p.span_joins());
    println!(
        "  profiled run           {:>12.3} ms (mean of the {} fastest of {} profiles: {:.2}x the unprofiled run; {} strands, {:.1} ns each subtracted for the timer)",
        ms(profiled.profiled_wall),
        profiled.profiled_runs.min(FASTEST),
        profiled.profiled_runs,
        profiled.profiled_wall.as_secs_f64() / profiled.one_worker.as_secs_f64(),
        p.strands(),
        p.timer_overhead().as_nanos()
    );
    if let Some(g) = p.graph() {
        println!(
            "  task graph             {:>12} steps (chunks below {} ns of work)",
            g.size(),
            p.chunk_threshold()
        );
    }
    println!();
    print_prediction_header();
    let mut points = Vec::new();
    for workers in PROFILE_WORKERS {
        let pr = p.predict(workers, costs);
        print_prediction(&pr);
        points.push((workers, pr.speedup, pr.speedup_cilkview, pr.speedup_upper));
    }
    let text = crate::report::plots::prediction(program.name, &points).map_err(Failure::Other)?;
    std::fs::write(svg, text)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", svg.display())))?;
    println!("plot: {}", svg.display());
    Ok(())
}
