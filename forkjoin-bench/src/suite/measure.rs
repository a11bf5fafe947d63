//! The one measuring method of `fj bench`, `fj validate` and `fj experiments`: several
//! entrants (a program on each of its (runtime, workers) cells, or an experiment's
//! variants) measured at once, interleaved run by run, each by the K-best method (`kbest`).
//!
//! [`interleave`] is the method, fed by a closure that makes one run; [`measure_interleaved`]
//! applies it to a program's workload on its cells, one row per cell.

use std::panic::{catch_unwind, AssertUnwindSafe};

use indicatif::ProgressBar;

use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::kbest::{KBest, Method, Sample};
use crate::suite::programs::{Runtime, Workload};
use crate::suite::results::Row;

/// The order of the entrants within a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// The entrants' own order in every round (`fj bench`, `fj validate`: the sequential
    /// baseline first).
    Fixed,
    /// Each round starts at the next entrant, so that none always runs first, or always
    /// after the same one (`fj experiments`).
    Rotating,
}

/// When the entrants of one measurement stop taking runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closing {
    /// Each entrant by its own K-best rule.
    EachOnItsOwn,
    /// An entrant that is done goes on taking runs (up to M) until every entrant is done, so
    /// that every entrant picks its K fastest from the same stretches of the machine. A cell
    /// that settled early in a slow stretch would otherwise keep its slow runs while the
    /// cells it is compared with find a quick one later (`fj validate`: a sequential time
    /// 9 % above the one-worker time it is the baseline of).
    Together,
}

/// One run that [`interleave`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Turn {
    /// The entrant to run, by its index.
    pub entrant: usize,
    /// The round, from 0.
    pub round: usize,
    /// A warm-up run (the first `warmup` rounds): its time is not recorded.
    pub warmup: bool,
}

/// An entrant being measured.
struct Entrant<E> {
    kbest: KBest,
    /// The error that ended it.
    error: Option<E>,
    /// Still taking runs: not failed, and not done (or done, but waiting for the others
    /// under [`Closing::Together`]).
    open: bool,
    /// The K-best rule said stop (once; later runs may unsettle it).
    done: bool,
}

/// K-best measurements of `entrants` entrants at once, interleaved.
///
/// The entrants take turns: a round runs each open entrant once, in `order`, so that every
/// entrant sees the same stretches of a noisy machine (another process, a slow core), and
/// the ratios between them, which are what is reported, hold even when the absolute times
/// drift. The warm-up runs are the first rounds. Each entrant keeps its own K-best record
/// and stops by its own rule, or, under [`Closing::Together`], when every entrant's rule
/// has said stop.
///
/// `run` makes the run a turn asks for and returns its sample, or an error, which ends that
/// entrant while the others go on. `settled` is called once per entrant: when its rule first
/// says stop, or when it fails before that. Returns, in the entrants' order, each one's
/// K-best record, or the error that ended it.
pub(crate) fn interleave<E>(
    entrants: usize,
    method: &Method,
    order: Order,
    closing: Closing,
    mut run: impl FnMut(Turn) -> Result<Sample, E>,
    mut settled: impl FnMut(usize),
) -> Vec<Result<KBest, E>> {
    let mut states: Vec<Entrant<E>> = (0..entrants)
        .map(|_| Entrant {
            kbest: KBest::new(*method),
            error: None,
            open: true,
            done: false,
        })
        .collect();
    for round in 0.. {
        if !states.iter().any(|s| s.open && !s.done) {
            break;
        }
        let warmup = round < method.warmup;
        for i in 0..entrants {
            let entrant = match order {
                Order::Fixed => i,
                Order::Rotating => (round + i) % entrants,
            };
            let s = &mut states[entrant];
            if !s.open {
                continue;
            }
            let sample = match run(Turn {
                entrant,
                round,
                warmup,
            }) {
                Ok(sample) => sample,
                Err(e) => {
                    s.error = Some(e);
                    s.open = false;
                    if !s.done {
                        settled(entrant);
                    }
                    continue;
                }
            };
            if warmup {
                continue;
            }
            s.kbest.record_sample(sample);
            if !s.done && s.kbest.done() {
                s.done = true;
                settled(entrant);
            }
            if s.done && (closing == Closing::EachOnItsOwn || s.kbest.runs() >= method.max_runs) {
                s.open = false;
            }
        }
    }
    states
        .into_iter()
        .map(|s| match s.error {
            Some(e) => Err(e),
            None => Ok(s.kbest),
        })
        .collect()
}

/// One (runtime, workers) cell of a program's measurement.
pub(crate) struct Cell<'e> {
    pub engine: &'e Engine,
    pub runtime: Runtime,
    pub threads: usize,
}

/// K-best measurements of `w` on every cell at once ([`interleave`], the cells taking
/// turns in `order`), one row per cell in the cells' order.
///
/// A cell of T workers runs on the first T CPUs (see `cpus`), which is where `fj bench`
/// builds its pool. Every timed run's answer is verified (untimed); the first failure or
/// panic ends that cell with the error, and the others go on.
pub(crate) fn measure_interleaved(
    program: &str,
    cells: &[Cell<'_>],
    w: &mut dyn Workload,
    method: &Method,
    order: Order,
    closing: Closing,
    bar: &ProgressBar,
) -> Vec<Row> {
    let allowed = cpus::allowed();
    // forkjoin's counters before each cell's first timed run.
    let mut before: Vec<Option<forkjoin::Stats>> = cells.iter().map(|_| None).collect();
    let mut shown_round = None;
    let records = interleave(
        cells.len(),
        method,
        order,
        closing,
        |turn| {
            if shown_round != Some(turn.round) {
                bar.set_message(format!("{program}: round {}", turn.round + 1));
                shown_round = Some(turn.round);
            }
            let cell = &cells[turn.entrant];
            if !turn.warmup && before[turn.entrant].is_none() {
                // The pool is idle between runs, so the counters' difference over the timed
                // runs is exactly theirs.
                before[turn.entrant] = cell.engine.stats();
            }
            let _on = cpus::restrict(cpus::for_workers(&allowed, cell.threads));
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                w.reset();
                let seconds = cell.engine.time_run(w);
                w.verify().map(|()| seconds)
            }));
            match outcome {
                Ok(result) => result.map(Sample::from),
                Err(panic) => Err(format!("panicked: {}", panic_message(&*panic))),
            }
        },
        |_| bar.inc(1),
    );
    cells
        .iter()
        .zip(records)
        .zip(before)
        .map(|((cell, record), before)| {
            let mut row = Row::new(program, cell.runtime.name(), cell.threads, method.k);
            match record {
                Ok(kbest) => finish(&mut row, cell, &kbest, before, w),
                Err(e) => row.error = Some(e),
            }
            row
        })
        .collect()
}

/// Fills in a finished cell's row: its K-best summary and its task and steal counts.
fn finish(
    row: &mut Row,
    cell: &Cell<'_>,
    kbest: &KBest,
    before: Option<forkjoin::Stats>,
    w: &dyn Workload,
) {
    let summary = kbest.summary().expect("K >= 1 runs were made");
    match (before, cell.engine.stats()) {
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
                    row.waits_slept = Some(diff.isolated_sleeps as f64 / summary.runs as f64);
                }
            }
        }
        // Runtimes without counters fork the program's task tree, which it may count.
        _ if cell.runtime != Runtime::Sequential => row.tasks = w.tasks_per_run().map(|t| t as f64),
        _ => {}
    }
    row.set_summary(summary);
    row.verified = true;
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
    struct Log {
        runs: Vec<&'static str>,
        last: Option<&'static str>,
        fail_at: usize,
        forkjoin_runs: usize,
    }

    impl Log {
        fn new(fail_at: usize) -> Log {
            Log {
                runs: vec![],
                last: None,
                fail_at,
                forkjoin_runs: 0,
            }
        }
    }

    impl Workload for Log {
        fn reset(&mut self) {
            self.last = None;
        }
        fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
            let name = match ctx {
                Ctx::Sequential => "sequential",
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
    fn an_entrant_settles_once_and_fails_even_after_its_rule_said_stop() {
        // K = 2, epsilon 0: entrant 0's equal times converge at its second run; entrant 1's
        // never do, so under `Together` entrant 0 goes on, and its third run fails.
        let method = Method {
            k: 2,
            epsilon: 0.0,
            max_runs: 3,
            warmup: 0,
            budget: None,
        };
        let mut runs = [0usize; 2];
        let mut settled = Vec::new();
        let records = interleave(
            2,
            &method,
            Order::Fixed,
            Closing::Together,
            |turn| {
                runs[turn.entrant] += 1;
                match (turn.entrant, runs[turn.entrant]) {
                    (0, 3) => Err("wrong answer"),
                    (0, _) => Ok(Sample::from(1.0)),
                    (_, n) => Ok(Sample::from(n as f64)),
                }
            },
            |i| settled.push(i),
        );
        assert_eq!(settled, [0, 1]);
        assert_eq!(runs, [3, 3]);
        assert_eq!(records[0].as_ref().err(), Some(&"wrong answer"));
        let kb = records[1].as_ref().unwrap();
        assert_eq!((kb.runs(), kb.converged()), (3, false));
    }

    #[test]
    fn cells_take_turns_and_each_keeps_its_own_record() {
        let rayon = Engine::new(Runtime::Rayon, 1).unwrap();
        let cells = sequential_and(&rayon, Runtime::Rayon);
        let mut w = Log::new(0);
        let rows = measure_interleaved(
            "log",
            &cells,
            &mut w,
            &method(3),
            Order::Fixed,
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
        let mut w = Log::new(3);
        let rows = measure_interleaved(
            "log",
            &cells,
            &mut w,
            &method(4),
            Order::Fixed,
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
        // Never converged; entrant 0's runs take 0.1 s each (the times are given, not
        // measured: no assumption about the host's speed), so two spend its 0.1 s budget,
        // while entrant 1's runs of a microsecond go on to M = 5. One warm-up round each.
        let method = Method {
            budget: Some(0.1),
            ..method(5)
        };
        let run = |closing| {
            let mut calls = [0usize; 2];
            let records = interleave(
                2,
                &method,
                Order::Fixed,
                closing,
                |turn| {
                    calls[turn.entrant] += 1;
                    Ok::<_, ()>(Sample::from([0.1, 1e-6][turn.entrant]))
                },
                |_| {},
            );
            let runs: Vec<usize> = records.iter().map(|r| r.as_ref().unwrap().runs()).collect();
            (runs, calls)
        };
        let (runs, calls) = run(Closing::EachOnItsOwn);
        assert_eq!((runs[0], runs[1], calls[0]), (2, 5, 3));
        assert_eq!(calls[1], 6);
        let (runs, calls) = run(Closing::Together);
        assert_eq!((runs[0], runs[1], calls[0]), (5, 5, 6));
        assert_eq!(calls[1], 6);
    }
}
