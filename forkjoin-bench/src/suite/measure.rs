//! One program measured on several (runtime, workers) cells at once, interleaved run by
//! run, each cell by the K-best method: what `fj bench` and `fj validate` measure with.

use std::panic::{catch_unwind, AssertUnwindSafe};

use indicatif::ProgressBar;

use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::kbest::{KBest, Method};
use crate::suite::programs::{Runtime, Workload};
use crate::suite::results::Row;

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
/// is where `fj bench` builds its pool. Every timed run's answer is verified (untimed); the first failure
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
    use std::time::Duration;

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
