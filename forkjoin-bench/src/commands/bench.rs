//! `fj bench`: every chosen program on the sequential baseline, forkjoin and the chosen
//! peers, at every worker count, with a progress bar; then the table on stdout, the JSON
//! and the report.
//!
//! Each program's input is made once and reused by every runtime (`reset` restores it);
//! each (runtime, workers) pool is built once and reused by every program.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{check_output_file, choose_programs, method, Failure};
use crate::cli::{self, BenchArgs};
use crate::report::{html, table};
use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::java::{self, Jdk};
use crate::suite::kbest::Method;
use crate::suite::measure::{measure_interleaved, Cell, Closing, Order};
use crate::suite::programs::{self, Program, Runtime, Size};
use crate::suite::results::{self, fill_speedups, Row};

/// `fj bench`: exit status 0 when every answer was verified, 1 otherwise.
pub(crate) fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    if args.list {
        for p in programs::all() {
            println!("{:<20} {}", p.name, p.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let plan = Plan {
        programs: choose_programs(&args.programs)?,
        size: args.size,
        threads: args.threads.clone().unwrap_or_else(cli::default_threads).0,
        peers: args.peers.clone().unwrap_or_else(cli::all_peers).0,
        method: method(&args.method, Method::QUICK)?,
    };
    check_outputs(args)?;
    let peers: Vec<&str> = plan.peers.iter().map(|p| p.name()).collect();
    let threads: Vec<String> = plan.threads.iter().map(|t| t.to_string()).collect();
    println!(
        "fj bench: {} program(s), size {}, workers {}, peers {}",
        plan.programs.len(),
        cli::size_name(plan.size),
        threads.join(","),
        if peers.is_empty() {
            "none".to_string()
        } else {
            peers.join(",")
        }
    );
    let mut method_text = plan.method.to_string();
    if plan.method.budget.is_some() && plan.peers.contains(&Runtime::Java) {
        method_text += "; java (no budget of its own): M lowered to the runs that fit in the budget at the program's sequential time";
    }
    println!("{method_text}");
    println!(
        "The Rust runtimes and the sequential baseline take turns run by run, program by \
         program; a run with T workers is restricted to the first T CPUs of this process."
    );

    let mut notes = Vec::new();
    let rows = run_plan(&plan, &mut notes);

    println!();
    print!("{}", table::render_text(&table::grid(&rows, args.counts)));
    for note in table::footnotes(&rows) {
        println!("{note}");
    }
    for note in &notes {
        println!("note: {note}");
    }
    if let Some(path) = &args.json {
        results::write_json(path, &rows).map_err(Failure::Other)?;
    }
    if !args.no_report {
        let info = html::RunInfo {
            command: std::env::args().collect::<Vec<_>>().join(" "),
            size: cli::size_name(plan.size).to_string(),
            threads: plan.threads.clone(),
            method: method_text,
            notes,
        };
        html::write(&args.report, &rows, &info).map_err(Failure::Other)?;
        println!("report: {}", args.report.join("index.html").display());
    }
    let all_verified = rows.iter().all(|r| r.verified);
    Ok(if all_verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Fails now, not after a long run, if the results could not be written.
fn check_outputs(args: &BenchArgs) -> Result<(), Failure> {
    check_output_file("--json", args.json.as_deref())?;
    if !args.no_report {
        std::fs::create_dir_all(&args.report)
            .map_err(|e| Failure::Other(format!("cannot create {}: {e}", args.report.display())))?;
    }
    Ok(())
}

/// What to measure.
pub(crate) struct Plan {
    pub programs: Vec<Program>,
    pub size: Size,
    /// Worker counts, ascending.
    pub threads: Vec<usize>,
    /// The peers chosen (rayon, chili, java), in `Runtime` order.
    pub peers: Vec<Runtime>,
    pub method: Method,
}

/// Runs the plan; `notes` gets one line per thing skipped (e.g. no JDK).
fn run_plan(plan: &Plan, notes: &mut Vec<String>) -> Vec<Row> {
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

    let allowed = cpus::allowed();
    let mut engines: HashMap<(Runtime, usize), Engine> = HashMap::new();
    let mut rows = Vec::new();
    for program in &plan.programs {
        bar.set_message(format!("{}: making the input", program.name));
        let mut workload = (program.make)(plan.size);

        // The cells of this program: the sequential baseline, then every runtime at every
        // worker count, measured together (see `measure_interleaved`).
        let mut cells = vec![(Runtime::Sequential, 1)];
        for &threads in &plan.threads {
            for &rt in &parallel {
                if workload.supports(rt) {
                    cells.push((rt, threads));
                } else {
                    bar.inc(1);
                }
            }
        }
        let mut failures = Vec::new();
        cells.retain(|&(rt, threads)| {
            if rt == Runtime::Sequential || engines.contains_key(&(rt, threads)) {
                return true;
            }
            // The pool's threads inherit the cell's CPUs (see `cpus`); chili's are left
            // free, as its pool also starts a heartbeat thread.
            let on = match rt {
                Runtime::Chili => &allowed[..],
                _ => cpus::for_workers(&allowed, threads),
            };
            let _on = cpus::restrict(on);
            match Engine::new(rt, threads) {
                Ok(engine) => {
                    engines.insert((rt, threads), engine);
                    true
                }
                Err(e) => {
                    failures.push(failed(program.name, rt, threads, &plan.method, e));
                    false
                }
            }
        });
        bar.inc(failures.len() as u64);
        let measured: Vec<Cell<'_>> = cells
            .iter()
            .map(|&(rt, threads)| Cell {
                engine: engines.get(&(rt, threads)).unwrap_or(&Engine::Sequential),
                runtime: rt,
                threads,
            })
            .collect();
        let program_rows = measure_interleaved(
            program.name,
            &measured,
            &mut *workload,
            &plan.method,
            Order::Fixed,
            Closing::EachOnItsOwn,
            &bar,
        );
        // The Java harness has no time budget: the sequential time tells how many of its
        // runs fit in ours.
        let sequential_seconds = program_rows
            .first()
            .and_then(|r| r.best_seconds)
            .unwrap_or(0.0);
        let java_method = plan.method.budget_as_max_runs(sequential_seconds);
        rows.extend(program_rows);
        rows.extend(failures);

        let java_args = workload
            .java_args()
            .or_else(|| java::java_args(program.name, plan.size));
        // Free the input before the JVM allocates its own (100M keys at the paper size).
        drop(workload);
        if let Some(jdk) = &jdk {
            for &threads in &plan.threads {
                if let Some(args) = &java_args {
                    bar.set_message(format!("{}: java x{threads}", program.name));
                    let _on = cpus::restrict(cpus::for_workers(&allowed, threads));
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

pub(crate) fn progress_bar(len: u64) -> ProgressBar {
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
