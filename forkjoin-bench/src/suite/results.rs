//! One measured figure, as the JSON output, the table and the report see it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::suite::kbest::Summary;

/// One (program, runtime, workers) measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Row {
    pub program: String,
    /// `sequential`, `forkjoin`, `rayon`, `chili` or `java`.
    pub runtime: String,
    pub threads: usize,
    /// The mean of the K fastest runs; null when nothing could be measured.
    pub seconds: Option<f64>,
    pub best_seconds: Option<f64>,
    pub converged: bool,
    /// Timed runs made (warm-ups not counted).
    pub runs: usize,
    pub k: usize,
    /// The program's sequential time (the same for every row of the program).
    pub sequential_seconds: Option<f64>,
    /// sequential_seconds / seconds.
    pub speedup: Option<f64>,
    /// Tasks per measured run, where known: forkjoin's `tasks_run` counter; for rayon and
    /// chili the program's own count of the tasks it forks.
    pub tasks: Option<f64>,
    /// Tasks stolen per measured run (forkjoin: `tasks_stolen`; java: `getStealCount`).
    pub steals: Option<f64>,
    /// Times per measured run that a forkjoin worker slept while it waited, in isolation,
    /// for a join, scope or task of its own (`Stats::isolated_sleeps`).
    #[serde(default)]
    pub waits_slept: Option<f64>,
    /// Every run's answer checked.
    pub verified: bool,
    /// Why the figure is missing or unverified.
    pub error: Option<String>,
}

impl Row {
    /// A row for a measurement; `sequential_seconds` and `speedup` are filled in later by
    /// [`fill_speedups`], once the program's sequential time is known.
    pub(crate) fn new(program: &str, runtime: &str, threads: usize, k: usize) -> Row {
        Row {
            program: program.to_string(),
            runtime: runtime.to_string(),
            threads,
            seconds: None,
            best_seconds: None,
            converged: false,
            runs: 0,
            k,
            sequential_seconds: None,
            speedup: None,
            tasks: None,
            steals: None,
            waits_slept: None,
            verified: false,
            error: None,
        }
    }

    pub(crate) fn set_summary(&mut self, s: Summary) {
        self.seconds = Some(s.mean);
        self.best_seconds = Some(s.best);
        self.converged = s.converged;
        self.runs = s.runs;
    }
}

/// Sets every row's `sequential_seconds` to its program's sequential time and derives the
/// speedups.
pub(crate) fn fill_speedups(rows: &mut [Row]) {
    let sequential: Vec<(String, Option<f64>)> = rows
        .iter()
        .filter(|r| r.runtime == "sequential")
        .map(|r| (r.program.clone(), r.seconds))
        .collect();
    for row in rows {
        let seq = sequential
            .iter()
            .find(|(p, _)| *p == row.program)
            .and_then(|(_, s)| *s);
        row.sequential_seconds = seq;
        row.speedup = match (seq, row.seconds) {
            (Some(seq), Some(t)) if t > 0.0 => Some(seq / t),
            _ => None,
        };
    }
}

/// The programs of `rows`, each once, in the order they were measured.
pub(crate) fn programs_in_order(rows: &[Row]) -> Vec<&str> {
    let mut programs: Vec<&str> = Vec::new();
    for r in rows {
        if !programs.contains(&r.program.as_str()) {
            programs.push(&r.program);
        }
    }
    programs
}

/// Writes `rows` (the rows of a run, or any other table) to `path` as pretty JSON.
pub(crate) fn write_json<T: Serialize + ?Sized>(path: &Path, rows: &T) -> Result<(), String> {
    let text = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speedups_use_the_programs_sequential_time() {
        let mut rows = vec![
            Row::new("a", "sequential", 1, 3),
            Row::new("a", "forkjoin", 2, 3),
            Row::new("b", "forkjoin", 2, 3),
        ];
        rows[0].seconds = Some(2.0);
        rows[1].seconds = Some(0.5);
        rows[2].seconds = Some(1.0);
        fill_speedups(&mut rows);
        assert_eq!((rows[0].speedup, rows[1].speedup), (Some(1.0), Some(4.0)));
        assert_eq!(rows[1].sequential_seconds, Some(2.0));
        assert_eq!((rows[2].sequential_seconds, rows[2].speedup), (None, None));
    }
}
