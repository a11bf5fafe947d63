//! `fj validate`: for every program that can be profiled, its predicted time against its
//! measured time at each worker count.

use std::path::PathBuf;
use std::process::ExitCode;

use forkjoin_profile::{Costs, Profile};
use serde::Serialize;

use super::calibrate::{join_fallback_note, load_costs};
use super::profile::profile_program;
use super::{check_output_file, choose_programs, method, Failure};
use crate::cli::{self, ValidateArgs};
use crate::join::SplitRun;
use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::kbest::Method;
use crate::suite::measure;
use crate::suite::programs::not_modelled;
use crate::suite::programs::{Program, Runtime, Size};
use crate::suite::results::write_json;

/// `fj validate`: exit status 0 when every prediction is within 10%, 1 otherwise.
pub(crate) fn run(args: &ValidateArgs) -> Result<ExitCode, Failure> {
    let programs = choose_programs(&args.programs)?;
    check_output_file("--json", args.json.as_deref())?;
    // Usage errors before the costs, which may take a moment to measure.
    let method = method(&args.method, Method::VALIDATE)?;
    let costs = load_costs(args.model.costs.as_deref())?;
    let threads = args.threads.clone().unwrap_or_else(cli::default_threads).0;
    let rows = validate_command(
        &programs,
        args.model.size,
        &threads,
        &costs,
        &method,
        args.json.as_ref(),
    )?;
    Ok(if rows.iter().all(|r| r.error_percent.abs() <= 10.0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[derive(Serialize)]
pub(crate) struct ValidateRow {
    pub program: String,
    pub threads: usize,
    pub measured_seconds: f64,
    /// The median over the simulation's seeds, and their fastest and slowest.
    pub predicted_seconds: f64,
    pub predicted_seconds_min: f64,
    pub predicted_seconds_max: f64,
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
fn validate_command(
    programs: &[Program],
    size: Size,
    threads: &[usize],
    costs: &Costs,
    method: &Method,
    json: Option<&PathBuf>,
) -> Result<Vec<ValidateRow>, Failure> {
    println!("{method}");
    println!(
        "{:<16} {:>7} {:>13} {:>32} {:>9} {:>8} {:>9} {:>12} {:>13}",
        "program",
        "workers",
        "measured ms",
        "predicted ms median [min-max]",
        "seq ms",
        "co-run x",
        "error %",
        "1-run err %",
        "unscaled err%"
    );
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut notes = Vec::new();
    for program in programs {
        if let Some(why) = not_modelled(program.name) {
            skipped.push(format!("{}: not modelled; it {why}", program.name));
            continue;
        }
        // The program's own join cost where `fj calibrate` measured one; where it found
        // none to measure, the generic one, noted below the table.
        notes.extend(join_fallback_note(costs, program.name));
        let costs = &costs.for_program(program.name);
        // On the CPU of the one-worker runs it is compared with.
        let profiled = profile_program(
            program,
            size,
            3,
            costs,
            cpus::for_workers(&cpus::allowed(), 1),
        )?;
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
        // This thread runs the sequential version, and a pool's root job in a borrowed
        // slot: on the one-worker pools' CPU, so that the sequential time, the one-worker
        // time and the split run on one worker all see the same CPU. This host's slow
        // states are a CPU's own (DESIGN.md, section 12): unpinned, the sequential runs had
        // found the other CPU, and Integrate's one-worker row read -7.8% in one run of three.
        let _on = cpus::restrict(cpus::for_workers(&allowed, 1));
        let mut measured_rows = measure::measure_interleaved(
            program.name,
            &cells,
            w.as_mut(),
            method,
            measure::Order::Fixed,
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
            let prediction = profile.predict(t, costs);
            let predicted = prediction.seconds;
            let error = error_of(predicted);
            let run_scaled_error = error_of(predict(&profiled.scaled));
            let raw_error = error_of(predict(&profiled.raw));
            println!(
                "{:<16} {:>7} {:>13.3} {:>32} {:>9.3} {:>8.3} {:>+9.1} {:>+12.1} {:>+13.1}",
                program.name,
                t,
                measured * 1e3,
                super::profile::ms_range(&prediction),
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
                predicted_seconds_min: prediction.seconds_min,
                predicted_seconds_max: prediction.seconds_max,
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
    for note in &notes {
        println!("{note}");
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
        write_json(path, &rows).map_err(Failure::Other)?;
    }
    Ok(rows)
}
