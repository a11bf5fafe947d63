//! `fj bench`'s measuring loop: every chosen program on the sequential baseline, forkjoin
//! and the chosen peers, at every worker count, with a progress bar.
//!
//! Each program's input is made once and reused by every runtime (`reset` restores it);
//! each (runtime, workers) pool is built once and reused by every program.

use std::collections::hash_map::{Entry, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::Engine;
use crate::java::{self, Jdk};
use crate::kbest::{KBest, Method};
use crate::programs::{Program, Runtime, Size, Workload};
use crate::results::{fill_speedups, Row};

/// What to measure.
pub struct Plan {
    pub programs: Vec<Program>,
    pub size: Size,
    /// Worker counts, ascending.
    pub threads: Vec<usize>,
    /// The peers chosen (rayon, chili, java), in `Runtime` order.
    pub peers: Vec<Runtime>,
    pub method: Method,
}

/// Runs the plan; `notes` gets one line per thing skipped (e.g. no JDK).
pub fn run(plan: &Plan, notes: &mut Vec<String>) -> Vec<Row> {
    let jdk = if plan.peers.contains(&Runtime::Java) {
        match Jdk::prepare() {
            Ok(jdk) => Some(jdk),
            Err(note) => {
                eprintln!("fj: note: {note}");
                notes.push(note);
                None
            }
        }
    } else {
        None
    };
    let parallel: Vec<Runtime> = std::iter::once(Runtime::Forkjoin)
        .chain(plan.peers.iter().copied().filter(|&rt| rt != Runtime::Java))
        .collect();

    // One step per (program, runtime, workers) cell, measured or skipped.
    let java_cells = if jdk.is_some() { plan.threads.len() } else { 0 };
    let per_program = 1 + parallel.len() * plan.threads.len() + java_cells;
    let bar = progress_bar((plan.programs.len() * per_program) as u64);

    let mut engines: HashMap<(Runtime, usize), Engine> = HashMap::new();
    let mut rows = Vec::new();
    for program in &plan.programs {
        bar.set_message(format!("{}: making the input", program.name));
        let mut workload = (program.make)(plan.size);

        bar.set_message(format!("{}: sequential", program.name));
        let sequential = measure(
            program.name,
            &Engine::Sequential,
            Runtime::Sequential,
            1,
            &mut *workload,
            &plan.method,
        );
        // The Java harness has no time budget: the sequential time tells how many of its
        // runs fit in ours.
        let java_method = plan
            .method
            .budget_as_max_runs(sequential.best_seconds.unwrap_or(0.0));
        rows.push(sequential);
        bar.inc(1);

        for &threads in &plan.threads {
            for &rt in &parallel {
                if workload.supports(rt) {
                    bar.set_message(format!("{}: {} x{threads}", program.name, rt.name()));
                    let engine = match engines.entry((rt, threads)) {
                        Entry::Occupied(e) => Ok(e.into_mut()),
                        Entry::Vacant(v) => Engine::new(rt, threads).map(|e| v.insert(e)),
                    };
                    let row = match engine {
                        Ok(engine) => measure(
                            program.name,
                            engine,
                            rt,
                            threads,
                            &mut *workload,
                            &plan.method,
                        ),
                        Err(e) => failed(program.name, rt, threads, &plan.method, e),
                    };
                    rows.push(row);
                }
                bar.inc(1);
            }
        }

        let java_args = workload
            .java_args()
            .or_else(|| java::java_args(program.name, plan.size));
        // Free the input before the JVM allocates its own (100M keys at the paper size).
        drop(workload);
        if let Some(jdk) = &jdk {
            for &threads in &plan.threads {
                if let Some(args) = &java_args {
                    bar.set_message(format!("{}: java x{threads}", program.name));
                    rows.push(jdk.measure(program.name, args, threads, &java_method));
                }
                bar.inc(1);
            }
        }
        for row in rows
            .iter()
            .filter(|r| r.program == program.name && !r.verified)
        {
            let why = row.error.as_deref().unwrap_or("not verified");
            bar.suspend(|| {
                eprintln!(
                    "fj: {} on {} x{}: {why}",
                    row.program, row.runtime, row.threads
                )
            });
        }
    }
    bar.finish_and_clear();
    fill_speedups(&mut rows);
    rows
}

fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} eta {eta} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    // Keeps the clock moving through long single runs.
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

fn failed(program: &str, rt: Runtime, threads: usize, method: &Method, error: String) -> Row {
    let mut row = Row::new(program, rt.name(), threads, method.k);
    row.error = Some(error);
    row
}

/// Warm-up runs, then K-best timed runs of `w` on `engine`, then `verify`. A panic in the
/// program becomes the row's error rather than the end of the whole suite.
pub fn measure(
    program: &str,
    engine: &Engine,
    rt: Runtime,
    threads: usize,
    w: &mut dyn Workload,
    method: &Method,
) -> Row {
    let mut row = Row::new(program, rt.name(), threads, method.k);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for _ in 0..method.warmup {
            w.reset();
            engine.time_run(w);
        }
        // The pool is idle between runs, so the counters' difference over the timed runs
        // is exactly theirs.
        let before = engine.stats();
        let mut kbest = KBest::new(*method);
        while !kbest.done() {
            w.reset();
            kbest.record(engine.time_run(w));
        }
        let summary = kbest.summary().expect("K >= 1 runs were made");
        match (before, engine.stats()) {
            (Some(before), Some(after)) => {
                let diff = after.since(&before).total;
                let tasks = diff.tasks_run as f64 / summary.runs as f64;
                match w.tasks_per_run() {
                    // Only the root job ran in the pool, yet the program forks: it forks in a
                    // pool of its own (submit), whose counters the harness cannot see.
                    Some(forked) if tasks <= 1.0 && forked > 1 => row.tasks = Some(forked as f64),
                    _ => {
                        row.tasks = Some(tasks);
                        row.steals = Some(diff.tasks_stolen as f64 / summary.runs as f64);
                    }
                }
            }
            // Runtimes without counters fork the program's task tree, which it may count.
            _ if rt != Runtime::Sequential => row.tasks = w.tasks_per_run().map(|t| t as f64),
            _ => {}
        }
        row.set_summary(summary);
        w.verify()
    }));
    match outcome {
        Ok(Ok(())) => row.verified = true,
        Ok(Err(e)) => row.error = Some(e),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            row.error = Some(format!("panicked: {msg}"));
        }
    }
    row
}
