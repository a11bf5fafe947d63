//! Measures the cells: for each cell and worker count, the sequential version, forkjoin
//! and rayon take turns run by run (the order rotating from round to round), a fixed
//! number of rounds after a warm-up round (fewer for a version whose runs are very slow,
//! see [`BUDGET_SECONDS`]), and each keeps the mean of its K fastest runs
//! (`suite::measure`, `suite::kbest`: the suite's own method). Every run's answer is
//! checked against the sequential one.
//!
//! The pools (one forkjoin and one rayon pool per worker count) are built once, on the
//! first W CPUs of the process, and a cell of W workers runs there (`suite::cpus`); the
//! sequential version runs on the first CPU, where the one-worker pools are.

use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};

use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};

use super::{CellDef, Prepared, Size};
use crate::suite::cpus;
use crate::suite::engine::Engine;
use crate::suite::kbest::Method;
use crate::suite::measure::{measure_interleaved, Cell, Closing, Order};
use crate::suite::programs::Runtime;
use crate::suite::results::Row;

/// What to measure, and how.
pub(crate) struct Plan {
    pub size: Size,
    /// Worker counts, ascending.
    pub workers: Vec<usize>,
    /// Timed rounds per (cell, worker count).
    pub rounds: usize,
    /// K of K-best.
    pub k: usize,
}

/// The measured seconds after which a version stops taking runs once it has K of them: a
/// version many times slower than the others (a pathological cell) then costs seconds, not
/// minutes, while the others go on to `rounds`.
pub(crate) const BUDGET_SECONDS: f64 = 0.3;

impl Plan {
    /// `rounds` timed runs after one warm-up, never converged early, but a version stops
    /// after K runs once its runs took [`BUDGET_SECONDS`].
    pub(crate) fn method(&self) -> Method {
        Method {
            budget: Some(BUDGET_SECONDS),
            ..Method::fixed_runs(self.k, self.rounds, 1)
        }
    }
}

/// One (cell, worker count) measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MatrixRow {
    pub cell: String,
    pub workers: usize,
    /// Kernel runs per timed sample (the times below are per sample).
    pub reps: usize,
    /// Mean of the K fastest samples, seconds.
    pub seq_seconds: Option<f64>,
    pub fj_seconds: Option<f64>,
    pub rayon_seconds: Option<f64>,
    pub fj_over_seq: Option<f64>,
    pub fj_over_rayon: Option<f64>,
    /// A wrong answer, a panic, a pool that could not be built.
    pub error: Option<String>,
}

impl MatrixRow {
    fn failed(cell: &str, workers: usize, error: String) -> MatrixRow {
        MatrixRow {
            cell: cell.to_string(),
            workers,
            reps: 0,
            seq_seconds: None,
            fj_seconds: None,
            rayon_seconds: None,
            fj_over_seq: None,
            fj_over_rayon: None,
            error: Some(error),
        }
    }
}

/// Measures `cells` by `plan`, one row per (cell, worker count) in that order; `bar`
/// advances by one per row.
pub(crate) fn run(
    cells: &[CellDef],
    plan: &Plan,
    bar: &ProgressBar,
) -> Result<Vec<MatrixRow>, String> {
    let allowed = cpus::allowed();
    let mut pools = Vec::new();
    for &w in &plan.workers {
        let _on = cpus::restrict(cpus::for_workers(&allowed, w));
        pools.push((
            w,
            Engine::new(Runtime::Forkjoin, w)?,
            Engine::new(Runtime::Rayon, w)?,
        ));
    }
    let method = plan.method();
    let mut rows = Vec::new();
    // Without a terminal the bar is not drawn: a line per cell instead.
    let lines = !cfg!(test) && !std::io::stderr().is_terminal();
    for (at, def) in cells.iter().enumerate() {
        bar.set_message(def.name.clone());
        if lines {
            eprintln!("[{}/{}] {}", at + 1, cells.len(), def.name);
        }
        let prepared = {
            let _on = cpus::restrict(cpus::for_workers(&allowed, 1));
            let (_, fj, ry) = &pools[0];
            catch_unwind(AssertUnwindSafe(|| Prepared::new(def, plan.size, fj, ry)))
        };
        let mut prepared = match prepared {
            Ok(p) => p,
            Err(_) => {
                for &w in &plan.workers {
                    rows.push(MatrixRow::failed(
                        &def.name,
                        w,
                        "panicked while making the input".into(),
                    ));
                    bar.inc(1);
                }
                continue;
            }
        };
        for (w, fj, ry) in &pools {
            let entrants = [
                Cell {
                    engine: &Engine::Sequential,
                    runtime: Runtime::Sequential,
                    threads: 1,
                },
                Cell {
                    engine: fj,
                    runtime: Runtime::Forkjoin,
                    threads: *w,
                },
                Cell {
                    engine: ry,
                    runtime: Runtime::Rayon,
                    threads: *w,
                },
            ];
            let measured = measure_interleaved(
                &def.name,
                &entrants,
                &mut prepared,
                &method,
                Order::Rotating,
                Closing::EachOnItsOwn,
                &ProgressBar::hidden(),
            );
            rows.push(row(&def.name, *w, prepared.reps, &measured));
            bar.inc(1);
        }
    }
    Ok(rows)
}

/// The row of a cell's three measurements (sequential, forkjoin, rayon).
fn row(cell: &str, workers: usize, reps: usize, measured: &[Row]) -> MatrixRow {
    let seconds = |r: &Row| r.seconds.filter(|_| r.verified);
    let (seq, fj, ry) = (
        seconds(&measured[0]),
        seconds(&measured[1]),
        seconds(&measured[2]),
    );
    let error = measured
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| format!("{}: {e}", r.runtime)))
        .collect::<Vec<_>>();
    let ratio = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
    MatrixRow {
        cell: cell.to_string(),
        workers,
        reps,
        seq_seconds: seq,
        fj_seconds: fj,
        rayon_seconds: ry,
        fj_over_seq: ratio(fj, seq),
        fj_over_rayon: ratio(fj, ry),
        error: if error.is_empty() {
            None
        } else {
            Some(error.join("; "))
        },
    }
}
