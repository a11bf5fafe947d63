//! `fj bench`'s measuring loop: every chosen program on the sequential baseline, forkjoin
//! and the chosen peers, at every worker count, with a progress bar.
//!
//! Each program's input is made once and reused by every runtime (`reset` restores it);
//! each (runtime, workers) pool is built once and reused by every program.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::java::{self, Jdk};
use crate::suite::kbest::{KBest, Method};
use crate::suite::programs::{Program, Runtime, Size, Workload};
use crate::suite::results::{fill_speedups, Row};

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

/// One (runtime, workers) cell of a program's measurement.
pub struct Cell<'e> {
    pub engine: &'e Engine,
    pub runtime: Runtime,
    pub threads: usize,
}

/// A cell being measured.
struct Measuring<'c, 'e> {
    cell: &'c Cell<'e>,
    row: Row,
    kbest: KBest,
    /// forkjoin's counters before the first timed run.
    before: Option<forkjoin::Stats>,
    /// Still taking runs: not failed, and not done (or done, but waiting for the others
    /// under [`Closing::Together`]).
    open: bool,
    /// The K-best rule said stop (once; later runs may unsettle it).
    done: bool,
}

/// When the cells of one measurement stop taking runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    /// Each cell by its own K-best rule.
    EachOnItsOwn,
    /// A cell that is done goes on taking runs (up to M) until every cell is done, so that
    /// every cell picks its K fastest from the same stretches of the machine. A cell that
    /// settled early in a slow stretch would otherwise keep its slow runs while the cells
    /// it is compared with find a quick one later (`fj validate`: a sequential time 9 %
    /// above the one-worker time it is the baseline of).
    Together,
}

/// K-best measurements of `w` on every cell at once, one row per cell in the cells' order.
///
/// The cells take turns: a round runs each unfinished cell once, so every runtime and worker
/// count sees the same stretches of a noisy machine (another process, a slow core), and the
/// ratios between them, which are what the suite reports, hold even when the absolute times
/// drift. Each cell keeps its own K-best record and stops by its own rule, or, under
/// [`Closing::Together`], when every cell's rule has said stop. The warm-up runs
/// are the first rounds. A cell of T workers runs on the first T CPUs (see `cpus`), which
/// is where `bench::run` built its pool. Every timed run's answer is verified (untimed); the first failure
/// or panic ends that cell with the error, and the others go on.
pub fn measure_interleaved(
    program: &str,
    cells: &[Cell<'_>],
    w: &mut dyn Workload,
    method: &Method,
    closing: Closing,
    bar: &ProgressBar,
) -> Vec<Row> {
    let allowed = cpus::allowed();
    let mut states: Vec<Measuring<'_, '_>> = cells
        .iter()
        .map(|cell| Measuring {
            cell,
            row: Row::new(program, cell.runtime.name(), cell.threads, method.k),
            kbest: KBest::new(*method),
            before: None,
            open: true,
            done: false,
        })
        .collect();
    for round in 0.. {
        if !states.iter().any(|s| s.open && !s.done) {
            break;
        }
        bar.set_message(format!("{program}: round {}", round + 1));
        for s in states.iter_mut().filter(|s| s.open) {
            let warmup = round < method.warmup;
            if !warmup && s.before.is_none() {
                // The pool is idle between runs, so the counters' difference over the timed
                // runs is exactly theirs.
                s.before = s.cell.engine.stats();
            }
            let _on = cpus::restrict(cpus::for_workers(&allowed, s.cell.threads));
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                w.reset();
                let seconds = s.cell.engine.time_run(w);
                w.verify().map(|()| seconds)
            }));
            let seconds = match outcome {
                Ok(Ok(seconds)) => seconds,
                Ok(Err(e)) => {
                    s.row.error = Some(e);
                    s.open = false;
                    bar.inc(1);
                    continue;
                }
                Err(panic) => {
                    s.row.error = Some(format!("panicked: {}", panic_message(&*panic)));
                    s.open = false;
                    bar.inc(1);
                    continue;
                }
            };
            if warmup {
                continue;
            }
            s.kbest.record(seconds);
            if !s.done && s.kbest.done() {
                s.done = true;
                bar.inc(1);
            }
            if s.done && (closing == Closing::EachOnItsOwn || s.kbest.runs() >= method.max_runs) {
                s.open = false;
            }
        }
    }
    for s in states.iter_mut().filter(|s| s.done) {
        finish(s, w);
    }
    states.into_iter().map(|s| s.row).collect()
}

/// Fills in a finished cell's row: its K-best summary and its task and steal counts.
fn finish(s: &mut Measuring<'_, '_>, w: &dyn Workload) {
    let summary = s.kbest.summary().expect("K >= 1 runs were made");
    match (s.before.take(), s.cell.engine.stats()) {
        (Some(before), Some(after)) => {
            let diff = after.since(&before).total;
            let tasks = diff.tasks_run as f64 / summary.runs as f64;
            match w.tasks_per_run() {
                // Only the root job ran in the pool, yet the program forks: it forks in a
                // pool of its own (submit), whose counters the harness cannot see.
                Some(forked) if tasks <= 1.0 && forked > 1 => s.row.tasks = Some(forked as f64),
                _ => {
                    s.row.tasks = Some(tasks);
                    s.row.steals = Some(diff.tasks_stolen as f64 / summary.runs as f64);
                }
            }
        }
        // Runtimes without counters fork the program's task tree, which it may count.
        _ if s.cell.runtime != Runtime::Sequential => {
            s.row.tasks = w.tasks_per_run().map(|t| t as f64)
        }
        _ => {}
    }
    s.row.set_summary(summary);
    s.row.verified = true;
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::programs::Ctx;

    /// Records which runtime ran each run, in order; fails the `fail_at`-th forkjoin run.
    /// A sequential run sleeps `sequential_sleep`.
    struct Log {
        runs: Vec<&'static str>,
        last: Option<&'static str>,
        fail_at: usize,
        forkjoin_runs: usize,
        sequential_sleep: Duration,
    }

    impl Log {
        fn new(fail_at: usize, sequential_sleep: Duration) -> Log {
            Log {
                runs: vec![],
                last: None,
                fail_at,
                forkjoin_runs: 0,
                sequential_sleep,
            }
        }
    }

    impl Workload for Log {
        fn reset(&mut self) {
            self.last = None;
        }
        fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
            let name = match ctx {
                Ctx::Sequential => {
                    std::thread::sleep(self.sequential_sleep);
                    "sequential"
                }
                Ctx::Forkjoin => {
                    self.forkjoin_runs += 1;
                    "forkjoin"
                }
                Ctx::Rayon => "rayon",
                Ctx::Chili(_) => "chili",
                Ctx::Split(_) => "split",
            };
            self.runs.push(name);
            self.last = Some(name);
        }
        fn verify(&self) -> Result<(), String> {
            match self.last {
                Some("forkjoin") if self.forkjoin_runs == self.fail_at => {
                    Err("wrong answer".into())
                }
                Some(_) => Ok(()),
                None => Err("no run".into()),
            }
        }
    }

    /// The sequential cell, then one of `runtime` on `engine`, both on one worker.
    fn sequential_and(engine: &Engine, runtime: Runtime) -> [Cell<'_>; 2] {
        [
            Cell {
                engine: &Engine::Sequential,
                runtime: Runtime::Sequential,
                threads: 1,
            },
            Cell {
                engine,
                runtime,
                threads: 1,
            },
        ]
    }

    fn method(max_runs: usize) -> Method {
        Method {
            k: 2,
            // Never converged: every cell takes exactly `max_runs` timed runs.
            epsilon: -1.0,
            max_runs,
            warmup: 1,
            budget: None,
        }
    }

    #[test]
    fn cells_take_turns_and_each_keeps_its_own_record() {
        let rayon = Engine::new(Runtime::Rayon, 1).unwrap();
        let cells = sequential_and(&rayon, Runtime::Rayon);
        let mut w = Log::new(0, Duration::ZERO);
        let rows = measure_interleaved(
            "log",
            &cells,
            &mut w,
            &method(3),
            Closing::EachOnItsOwn,
            &ProgressBar::hidden(),
        );
        // One warm-up round and three timed rounds, alternating.
        assert_eq!(w.runs, ["sequential", "rayon"].repeat(4));
        assert_eq!(rows.len(), 2);
        for (row, name) in rows.iter().zip(["sequential", "rayon"]) {
            assert_eq!(row.runtime, name);
            assert_eq!(row.runs, 3);
            assert!(row.verified && row.error.is_none() && !row.converged);
        }
    }

    #[test]
    fn a_failed_answer_ends_only_its_own_cell() {
        let seq = Engine::Sequential;
        let fj = Engine::new(Runtime::Forkjoin, 1).unwrap();
        let cells = [
            Cell {
                engine: &fj,
                runtime: Runtime::Forkjoin,
                threads: 1,
            },
            Cell {
                engine: &seq,
                runtime: Runtime::Sequential,
                threads: 1,
            },
        ];
        // The warm-up and one timed forkjoin run pass; the second timed one fails.
        let mut w = Log::new(3, Duration::ZERO);
        let rows = measure_interleaved(
            "log",
            &cells,
            &mut w,
            &method(4),
            Closing::EachOnItsOwn,
            &ProgressBar::hidden(),
        );
        assert_eq!(w.forkjoin_runs, 3);
        assert_eq!(w.runs.iter().filter(|&&r| r == "sequential").count(), 5);
        assert!(!rows[0].verified);
        assert_eq!(rows[0].error.as_deref(), Some("wrong answer"));
        assert!(rows[1].verified && rows[1].runs == 4);
    }

    #[test]
    fn closing_together_keeps_a_done_cell_running_until_every_cell_is_done() {
        let rayon = Engine::new(Runtime::Rayon, 1).unwrap();
        let cells = sequential_and(&rayon, Runtime::Rayon);
        // Never converged; the sequential cell's two 100 ms runs spend its 0.1 s budget,
        // while rayon's empty runs go on to M = 5.
        let method = Method {
            budget: Some(0.1),
            ..method(5)
        };
        let run = |closing| {
            let mut w = Log::new(0, Duration::from_millis(100));
            let rows = measure_interleaved(
                "log",
                &cells,
                &mut w,
                &method,
                closing,
                &ProgressBar::hidden(),
            );
            let sequential_runs = w.runs.iter().filter(|&&r| r == "sequential").count();
            (rows, sequential_runs)
        };
        let (rows, sequential_runs) = run(Closing::EachOnItsOwn);
        assert_eq!((rows[0].runs, rows[1].runs, sequential_runs), (2, 5, 3));
        let (rows, sequential_runs) = run(Closing::Together);
        assert_eq!((rows[0].runs, rows[1].runs, sequential_runs), (5, 5, 6));
        assert!(rows.iter().all(|r| r.verified && r.error.is_none()));
    }
}
