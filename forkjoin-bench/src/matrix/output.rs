//! The matrix's output: two tables worst first (by forkjoin/rayon at the most workers, by
//! forkjoin/sequential at the fewest), a summary per worker count against the targets
//! (at 1 worker every cell within 1.05x of sequential std and of rayon; above, the
//! geometric mean of forkjoin/rayon at most 0.95 and no cell above 1.10), and the JSON.

use std::cmp::Ordering;
use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use super::runner::MatrixRow;

/// The most a cell's ratio may be: 1.05 at one worker, 1.10 above.
pub(crate) fn limit(workers: usize) -> f64 {
    if workers == 1 {
        1.05
    } else {
        1.10
    }
}

/// One worker count's summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Summary {
    pub workers: usize,
    pub cells: usize,
    pub geomean_fj_over_rayon: Option<f64>,
    pub geomean_fj_over_seq: Option<f64>,
    /// [`limit`] at this worker count.
    pub limit: f64,
    pub over_limit_vs_rayon: usize,
    pub over_limit_vs_seq: usize,
    pub errors: usize,
}

pub(crate) fn summarise(rows: &[MatrixRow], workers: &[usize]) -> Vec<Summary> {
    workers
        .iter()
        .map(|&w| {
            let at: Vec<&MatrixRow> = rows.iter().filter(|r| r.workers == w).collect();
            let ratios = |f: fn(&MatrixRow) -> Option<f64>| {
                at.iter().filter_map(|r| f(r)).collect::<Vec<f64>>()
            };
            let (vs_ry, vs_seq) = (ratios(|r| r.fj_over_rayon), ratios(|r| r.fj_over_seq));
            Summary {
                workers: w,
                cells: at.len(),
                geomean_fj_over_rayon: geomean(&vs_ry),
                geomean_fj_over_seq: geomean(&vs_seq),
                limit: limit(w),
                over_limit_vs_rayon: vs_ry.iter().filter(|&&x| x > limit(w)).count(),
                over_limit_vs_seq: vs_seq.iter().filter(|&&x| x > limit(w)).count(),
                errors: at.iter().filter(|r| r.error.is_some()).count(),
            }
        })
        .collect()
}

pub(crate) fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// The rows at `workers`, worst first by `key` (rows without the ratio, failed ones,
/// first of all).
fn worst_first(
    rows: &[MatrixRow],
    workers: usize,
    key: fn(&MatrixRow) -> Option<f64>,
) -> Vec<&MatrixRow> {
    let mut at: Vec<&MatrixRow> = rows.iter().filter(|r| r.workers == workers).collect();
    at.sort_by(|a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    at
}

fn time(s: Option<f64>) -> String {
    match s {
        None => "-".to_string(),
        Some(s) if s < 1e-3 => format!("{:.1} us", s * 1e6),
        Some(s) => format!("{:.3} ms", s * 1e3),
    }
}

fn ratio(r: Option<f64>, limit: f64) -> String {
    match r {
        None => "-".to_string(),
        Some(r) if r > limit => format!("{r:.3} !"),
        Some(r) => format!("{r:.3}  "),
    }
}

/// One table: `title`, then a line per row; `top` rows at most (all if `None`).
fn table(out: &mut String, title: &str, rows: &[&MatrixRow], top: Option<usize>) {
    let width = rows.iter().map(|r| r.cell.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "{:<width$}  {:>2}  {:>10}  {:>10}  {:>10}  {:>8}  {:>8}",
        "cell", "w", "seq", "forkjoin", "rayon", "fj/seq", "fj/rayon"
    );
    for r in rows.iter().take(top.unwrap_or(usize::MAX)) {
        let lim = limit(r.workers);
        let _ = writeln!(
            out,
            "{:<width$}  {:>2}  {:>10}  {:>10}  {:>10}  {:>8}  {:>8}{}",
            r.cell,
            r.workers,
            time(r.seq_seconds),
            time(r.fj_seconds),
            time(r.rayon_seconds),
            ratio(r.fj_over_seq, lim),
            ratio(r.fj_over_rayon, lim),
            r.error
                .as_ref()
                .map_or(String::new(), |e| format!("  ERROR {e}"))
        );
    }
    if let Some(top) = top.filter(|&t| t < rows.len()) {
        let _ = writeln!(out, "({} more)", rows.len() - top);
    }
    let _ = writeln!(out);
}

/// The tables and the summary, as printed. `workers` ascending.
pub(crate) fn render(rows: &[MatrixRow], workers: &[usize], top: Option<usize>) -> String {
    let mut out = String::new();
    let (fewest, most) = (workers[0], workers[workers.len() - 1]);
    table(
        &mut out,
        &format!("Worst first by forkjoin/rayon at {most} worker(s) (times per sample; ! marks a ratio above {:.2}):", limit(most)),
        &worst_first(rows, most, |r| r.fj_over_rayon),
        top,
    );
    table(
        &mut out,
        &format!("Worst first by forkjoin/sequential at {fewest} worker(s):"),
        &worst_first(rows, fewest, |r| r.fj_over_seq),
        top,
    );
    let _ = writeln!(out, "Summary:");
    let g = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    for s in summarise(rows, workers) {
        let _ = writeln!(
            out,
            "  {} worker(s), {} cells: geomean fj/rayon {}, fj/seq {}; cells above {:.2}: {} vs rayon, {} vs seq{}",
            s.workers,
            s.cells,
            g(s.geomean_fj_over_rayon),
            g(s.geomean_fj_over_seq),
            s.limit,
            s.over_limit_vs_rayon,
            s.over_limit_vs_seq,
            if s.errors > 0 { format!("; {} FAILED", s.errors) } else { String::new() }
        );
    }
    out
}

/// What the JSON file holds.
#[derive(Serialize)]
struct Report<'a> {
    command: String,
    size: &'a str,
    workers: &'a [usize],
    rounds: usize,
    k: usize,
    summary: Vec<Summary>,
    rows: &'a [MatrixRow],
}

/// Writes the rows and the summary as JSON to `path`.
pub(crate) fn write_json(
    path: &Path,
    rows: &[MatrixRow],
    workers: &[usize],
    size: &str,
    rounds: usize,
    k: usize,
) -> Result<(), String> {
    let report = Report {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        size,
        workers,
        rounds,
        k,
        summary: summarise(rows, workers),
        rows,
    };
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}
