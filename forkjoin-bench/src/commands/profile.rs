//! `fj calibrate`, `fj profile`, `fj predict` and `fj validate`: the scalability profiler
//! and predictor (`forkjoin::profile`) applied to the suite's programs.
//!
//! A program is profiled on a pool of one worker (so that its strands are timed without
//! other workers competing for the memory system, as Cilkscale does on a serial run); the
//! profile's task graph is then simulated on P workers with the costs `fj calibrate`
//! measured.

use std::path::{Path, PathBuf};

use forkjoin::profile::{self, Costs, Prediction, Profile};
use serde::Serialize;

use crate::join::SplitRun;
use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::kbest::Method;
use crate::suite::measure;
use crate::suite::programs::{Ctx, Program, Runtime, Size};
use crate::Failure;

/// Where `fj calibrate` saves the costs and the other commands look for them.
pub const DEFAULT_COSTS: &str = "fj-costs.json";

/// Worker counts of `fj profile`'s table and plot.
const PROFILE_WORKERS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Why a program cannot be profiled, or `None` if it can.
pub fn not_modelled(program: &str) -> Option<&'static str> {
    if program.starts_with("submit-") {
        return Some(
            "submits from a thread outside its pool, into a pool of its own: the profiler sees joins on one pool only",
        );
    }
    // See `programs::par_iter`'s module documentation.
    crate::suite::programs::par_iter::is_iterator_program(program).then_some(
        "runs parallel iterators, which fork inside forkjoin's splitter, not through the program's joins: \
         a split run has nothing to split, and a profile forks at every item (up to 10^9 joins)",
    )
}

/// `fj calibrate`: measures the costs and saves them.
pub fn calibrate(out: &Path) -> Result<(), Failure> {
    println!(
        "fj calibrate: measuring the runtime's primitive costs on this machine (a few seconds)"
    );
    let costs = Costs::measure();
    print_costs(&costs);
    costs.save(out).map_err(|e| Failure::Other(e.to_string()))?;
    println!("saved: {}", out.display());
    Ok(())
}

fn print_costs(c: &Costs) {
    let rows = [
        ("join, fast path", c.join_ns),
        ("share and take back", c.promote_ns),
        ("steal by a spinning worker", c.steal_ns),
        ("failed sweep of all queues", c.failed_steal_ns),
        ("wake a parked worker (extra)", c.wake_ns),
        ("external submit and join", c.submit_ns),
        ("search before parking", c.spin_ns),
        ("heartbeat period", c.heartbeat_ns),
        ("profiler, per strand", c.timer_ns),
    ];
    println!("costs on {}:", c.machine);
    for (name, ns) in rows {
        println!("  {name:<30} {:>12.1} ns", ns);
    }
}

/// The costs from `--costs FILE`, else `fj-costs.json` if present, else measured now.
pub fn load_costs(path: Option<&Path>) -> Result<Costs, Failure> {
    if let Some(path) = path {
        return Costs::load(path).map_err(|e| Failure::Usage(e.to_string()));
    }
    if Path::new(DEFAULT_COSTS).exists() {
        let costs = Costs::load(DEFAULT_COSTS).map_err(|e| Failure::Usage(e.to_string()))?;
        println!("costs: {DEFAULT_COSTS} ({})", costs.machine);
        return Ok(costs);
    }
    println!("costs: measuring now (`fj calibrate` saves them to {DEFAULT_COSTS})");
    Ok(Costs::measure())
}

/// A program's profile: as measured, and scaled to an unprofiled run on one worker.
pub struct Profiled {
    pub raw: Profile,
    pub scaled: Profile,
    /// The unprofiled one-worker time the scale comes from (mean of the 3 fastest of up to
    /// ten runs).
    pub one_worker: std::time::Duration,
    /// The profiled runs' wall time, by the same statistic as `one_worker` (the mean of the 3
    /// fastest, or of all when there are fewer): what profiling costs, next to it.
    pub profiled_wall: std::time::Duration,
    /// How many profiled runs `profiled_wall` comes from.
    pub profiled_runs: usize,
}

/// K of the K-best statistic the measured times are (the default K).
const FASTEST: usize = 3;

/// The mean of the `FASTEST` fastest of `times` (of all of them when there are fewer): the
/// K-best statistic of the measured times.
fn mean_of_fastest(mut times: Vec<std::time::Duration>) -> std::time::Duration {
    times.sort();
    let k = times.len().min(FASTEST);
    times[..k].iter().sum::<std::time::Duration>() / k as u32
}

/// Profiles `program` at `size` on one worker: a warm-up run, the best (least work) of
/// `repeats` profiles, and the 3 fastest of up to ten unprofiled runs to fix the time scale (see
/// `Profile::scaled_to`), all on one pool and one workload. Every answer is verified.
pub fn profile_program(
    program: &Program,
    size: Size,
    repeats: usize,
    costs: &Costs,
) -> Result<Profiled, Failure> {
    if let Some(why) = not_modelled(program.name) {
        return Err(Failure::Usage(format!(
            "{} cannot be profiled: it {why}",
            program.name
        )));
    }
    // On the CPU where the measured one-worker runs go (see `cpus`).
    let _on = cpus::restrict(cpus::for_workers(&cpus::allowed(), 1));
    let pool = forkjoin::Pool::new(1).map_err(|e| Failure::Usage(e.to_string()))?;
    let mut w = (program.make)(size);
    let verify = |w: &dyn crate::suite::programs::Workload| {
        w.verify()
            .map_err(|e| Failure::Other(format!("{}: wrong answer: {e}", program.name)))
    };
    // The fastest of up to ten unprofiled runs (at least three, at most about a second):
    // short runs need a few to settle (caches, page faults, clock frequency). The first
    // also warms up for the profiles.
    let mut runs = Vec::new();
    let started = std::time::Instant::now();
    for run in 0..10 {
        if run >= 3 && started.elapsed().as_secs_f64() > 1.0 {
            break;
        }
        w.reset();
        let t = std::time::Instant::now();
        pool.install(|| w.run(&mut Ctx::Forkjoin));
        runs.push(t.elapsed());
    }
    // The statistic the measured times are: the mean of the K fastest (`FASTEST`).
    // The fastest run alone sits below that mean by the machine's noise, and every
    // prediction scaled from it would be too low by as much.
    let one_worker = mean_of_fastest(runs);
    verify(w.as_ref())?;
    let mut raw: Option<Profile> = None;
    let mut walls = Vec::new();
    for _ in 0..repeats.max(1) {
        w.reset();
        let ((), p) = profile::run(&pool, || w.run(&mut Ctx::Forkjoin));
        verify(w.as_ref())?;
        walls.push(p.wall());
        if raw.as_ref().is_none_or(|b| p.work() < b.work()) {
            raw = Some(p);
        }
    }
    let raw = raw.expect("at least one profile");
    let scaled = raw.scaled_to(one_worker, costs);
    Ok(Profiled {
        raw,
        scaled,
        one_worker,
        profiled_runs: walls.len(),
        profiled_wall: mean_of_fastest(walls),
    })
}

/// The header of a table of predictions.
fn print_prediction_header() {
    println!(
        "{:>8} {:>14} {:>10} {:>10} {:>10}",
        "workers", "predicted ms", "speedup", "lower", "upper"
    );
}

fn print_prediction(pr: &Prediction) {
    println!(
        "{:>8} {:>14.3} {:>10.2} {:>10.2} {:>10.2}",
        pr.workers,
        pr.seconds * 1e3,
        pr.speedup,
        pr.speedup_lower,
        pr.speedup_upper
    );
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `fj profile PROGRAM`.
pub fn profile_command(
    program: &Program,
    size: Size,
    costs: &Costs,
    svg: &Path,
) -> Result<(), Failure> {
    // Five profiles: their wall times give what profiling costs by the same statistic as
    // the unprofiled time (a single profiled run read 1.6-2.2 times it on this VM).
    let profiled = profile_program(program, size, 5, costs)?;
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
    println!("  work (T1)              {:>12.3} ms", ms(p.work()));
    println!("  span (T_inf)           {:>12.3} ms", ms(p.span()));
    println!("  parallelism            {:>12.1}", p.parallelism());
    println!(
        "  burdened span          {:>12.3} ms",
        ms(p.burdened_span())
    );
    println!(
        "  burdened parallelism   {:>12.1}",
        p.burdened_parallelism()
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
        points.push((workers, pr.speedup, pr.speedup_lower, pr.speedup_upper));
    }
    let text = crate::plots::prediction(program.name, &points).map_err(Failure::Other)?;
    std::fs::write(svg, text)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", svg.display())))?;
    println!("plot: {}", svg.display());
    Ok(())
}

#[derive(Serialize)]
struct PredictRow<'a> {
    program: &'a str,
    threads: usize,
    predicted_seconds: f64,
    speedup: f64,
    speedup_lower: f64,
    speedup_upper: f64,
    simulated: bool,
}

/// `fj predict PROGRAM --threads LIST`.
pub fn predict_command(
    program: &Program,
    size: Size,
    threads: &[usize],
    costs: &Costs,
    json: Option<&PathBuf>,
) -> Result<(), Failure> {
    let p = profile_program(program, size, 3, costs)?.scaled;
    println!(
        "{}: work {:.3} ms, span {:.3} ms, parallelism {:.1}",
        program.name,
        ms(p.work()),
        ms(p.span()),
        p.parallelism()
    );
    print_prediction_header();
    let mut rows = Vec::new();
    for &t in threads {
        let pr = p.predict(t, costs);
        print_prediction(&pr);
        rows.push(PredictRow {
            program: program.name,
            threads: t,
            predicted_seconds: pr.seconds,
            speedup: pr.speedup,
            speedup_lower: pr.speedup_lower,
            speedup_upper: pr.speedup_upper,
            simulated: pr.simulated,
        });
    }
    if let Some(path) = json {
        write_json(path, &rows)?;
    }
    Ok(())
}

#[derive(Serialize)]
pub struct ValidateRow {
    pub program: String,
    pub threads: usize,
    pub measured_seconds: f64,
    pub predicted_seconds: f64,
    pub error_percent: f64,
    /// The sequential version's time (measured with the others), to which the profile's
    /// strands are scaled.
    pub sequential_seconds: f64,
    /// How much slower the program's work ran split over `threads` workers than on one
    /// (`join::SplitRun`; 1 at one worker); the strands are slowed by as much.
    pub co_run_slowdown: f64,
    /// The error when the strands are scaled instead to an unprofiled one-worker run made
    /// beside the profile (as `fj profile` and `fj predict` do).
    pub one_run_scaled_error_percent: f64,
    /// The error of the profile as measured, unscaled.
    pub unscaled_error_percent: f64,
    pub work_seconds: f64,
    pub span_seconds: f64,
    pub converged: bool,
}

/// `fj validate`: every program that can be profiled, predicted against measured at each
/// worker count. Returns the rows (for the caller's exit status).
pub fn validate_command(
    programs: &[Program],
    size: Size,
    threads: &[usize],
    costs: &Costs,
    method: &Method,
    json: Option<&PathBuf>,
) -> Result<Vec<ValidateRow>, Failure> {
    println!("{method}");
    println!(
        "{:<16} {:>7} {:>13} {:>13} {:>9} {:>8} {:>9} {:>12} {:>13}",
        "program",
        "workers",
        "measured ms",
        "predicted ms",
        "seq ms",
        "co-run x",
        "error %",
        "1-run err %",
        "unscaled err%"
    );
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for program in programs {
        if let Some(why) = not_modelled(program.name) {
            skipped.push(format!("{}: not modelled; it {why}", program.name));
            continue;
        }
        let profiled = profile_program(program, size, 3, costs)?;
        // The sequential version, every worker count, and the split runs that measure the
        // co-run slowdown (one worker, then each worker count t > 1 on t CPUs), measured
        // together, run by run, so that all of them see the same stretches of a noisy
        // machine (see `measure::measure_interleaved`).
        let allowed = cpus::allowed();
        let engines = threads
            .iter()
            .map(|&t| {
                let _on = cpus::restrict(cpus::for_workers(&allowed, t));
                Engine::new(Runtime::Forkjoin, t).map_err(Failure::Usage)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Enough levels that the largest worker count gets a subtree per worker.
        let levels = threads
            .iter()
            .max()
            .map_or(1, |t| t.next_power_of_two().trailing_zeros().max(1));
        let split_on = |cpus: &[usize]| -> Result<Engine, Failure> {
            let _on = cpus::restrict(cpus);
            let pool = forkjoin::Pool::new(cpus.len().max(1))
                .map_err(|e| Failure::Usage(e.to_string()))?;
            Ok(Engine::Split(pool, SplitRun::new(levels)))
        };
        let split_alone = split_on(cpus::for_workers(&allowed, 1))?;
        let splits: Vec<Option<Engine>> = threads
            .iter()
            .map(|&t| {
                let cpus = cpus::for_workers(&allowed, t);
                (cpus.len() > 1).then(|| split_on(cpus)).transpose()
            })
            .collect::<Result<_, _>>()?;
        let forkjoin_cell = |engine, threads| measure::Cell {
            engine,
            runtime: Runtime::Forkjoin,
            threads,
        };
        let cells: Vec<measure::Cell<'_>> = std::iter::once(measure::Cell {
            engine: &Engine::Sequential,
            runtime: Runtime::Sequential,
            threads: 1,
        })
        .chain(
            engines
                .iter()
                .zip(threads)
                .map(|(e, &t)| forkjoin_cell(e, t)),
        )
        .chain(std::iter::once(forkjoin_cell(&split_alone, 1)))
        .chain(
            splits
                .iter()
                .zip(threads)
                .filter_map(|(e, &t)| e.as_ref().map(|e| forkjoin_cell(e, t))),
        )
        .collect();
        let mut w = (program.make)(size);
        let mut measured_rows = measure::measure_interleaved(
            program.name,
            &cells,
            w.as_mut(),
            method,
            measure::Closing::Together,
            &indicatif::ProgressBar::hidden(),
        )
        .into_iter();
        let seconds = |row: crate::suite::results::Row, what: &str| {
            row.seconds.filter(|_| row.verified).ok_or_else(|| {
                Failure::Other(format!(
                    "{} {what}: {}",
                    program.name,
                    row.error.unwrap_or_else(|| "not measured".into())
                ))
            })
        };
        let sequential = seconds(
            measured_rows.next().expect("one row per cell"),
            "sequentially",
        )?;
        let parallel: Vec<_> = measured_rows.by_ref().take(threads.len()).collect();
        let busy_alone = seconds(
            measured_rows.next().expect("one row per cell"),
            "split on one worker",
        )?;
        for ((row, &t), split) in parallel.into_iter().zip(threads).zip(&splits) {
            let converged = row.converged;
            let measured = seconds(row, &format!("at {t} workers"))?;
            let slowdown = match split {
                Some(_) => {
                    let row = measured_rows.next().expect("one row per cell");
                    let busy = seconds(row, &format!("split over {t} workers"))?;
                    // A join tree shallower than the split depth times nothing (the tiny
                    // test sizes); it also runs on one worker alone, so nothing slows it.
                    if busy_alone > 0.0 {
                        busy / busy_alone
                    } else {
                        1.0
                    }
                }
                None => 1.0,
            };
            // ParJava's prediction: the strands take what the sequential version took, slowed
            // by as much as the program's work slows down when t workers run parts of it at
            // once; the runtime's costs come on top.
            let profile = profiled
                .raw
                .with_work(std::time::Duration::from_secs_f64(sequential * slowdown));
            let predict = |p: &Profile| p.predict(t, costs).seconds;
            let error_of = |predicted: f64| 100.0 * (predicted - measured) / measured;
            let predicted = predict(&profile);
            let error = error_of(predicted);
            let run_scaled_error = error_of(predict(&profiled.scaled));
            let raw_error = error_of(predict(&profiled.raw));
            println!(
                "{:<16} {:>7} {:>13.3} {:>13.3} {:>9.3} {:>8.3} {:>+9.1} {:>+12.1} {:>+13.1}",
                program.name,
                t,
                measured * 1e3,
                predicted * 1e3,
                sequential * 1e3,
                slowdown,
                error,
                run_scaled_error,
                raw_error
            );
            rows.push(ValidateRow {
                program: program.name.to_string(),
                threads: t,
                measured_seconds: measured,
                predicted_seconds: predicted,
                error_percent: error,
                sequential_seconds: sequential,
                co_run_slowdown: slowdown,
                one_run_scaled_error_percent: run_scaled_error,
                unscaled_error_percent: raw_error,
                work_seconds: profile.work().as_secs_f64(),
                span_seconds: profile.span().as_secs_f64(),
                converged,
            });
        }
    }
    for s in &skipped {
        println!("note: {s}");
    }
    if !rows.is_empty() {
        let worst = rows
            .iter()
            .map(|r| r.error_percent.abs())
            .fold(0.0, f64::max);
        let within = rows
            .iter()
            .filter(|r| r.error_percent.abs() <= 10.0)
            .count();
        println!(
            "{within} of {} predictions within 10%; worst error {worst:.1}%",
            rows.len()
        );
    }
    if let Some(path) = json {
        write_json(path, &rows)?;
    }
    Ok(rows)
}

fn write_json<T: Serialize>(path: &Path, rows: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(rows).expect("rows serialise");
    std::fs::write(path, text + "\n")
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))
}
