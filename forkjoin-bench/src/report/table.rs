//! The results table: one line per (program, workers), a column per runtime with the time
//! and the speedup, and forkjoin's time over the fastest peer's. Built once as a grid of
//! cells, drawn as text on stdout and as HTML in the report.

use crate::suite::results::{programs_in_order, Row};

/// How a cell is to be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flag {
    Plain,
    /// The K-best measurement did not converge.
    Unconverged,
    /// The answer was wrong or nothing was measured.
    Failed,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cell {
    pub text: String,
    pub flag: Flag,
}

impl Cell {
    fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            flag: Flag::Plain,
        }
    }
}

pub(crate) struct Grid {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// Runtimes in column order.
const RUNTIMES: [&str; 5] = ["sequential", "forkjoin", "rayon", "chili", "java"];
const PEERS: [&str; 3] = ["rayon", "chili", "java"];

/// The grid of `rows`, with a column for each runtime that has a row; `counts` adds
/// forkjoin's tasks, steals and waits slept per run.
pub(crate) fn grid(rows: &[Row], counts: bool) -> Grid {
    let runtimes: Vec<&str> = RUNTIMES
        .into_iter()
        .filter(|rt| rows.iter().any(|r| r.runtime == *rt))
        .collect();
    let has_peer = runtimes.iter().any(|rt| PEERS.contains(rt));
    let mut header = vec!["program".to_string(), "workers".to_string()];
    header.extend(runtimes.iter().map(|rt| rt.to_string()));
    if has_peer {
        header.push("fj/best peer".to_string());
    }
    if counts {
        header.extend([
            "fj tasks/run".to_string(),
            "fj steals/run".to_string(),
            "fj waits slept/run".to_string(),
        ]);
    }

    let programs = programs_in_order(rows);
    let mut out = Vec::new();
    for program in programs {
        let of_program: Vec<&Row> = rows.iter().filter(|r| r.program == program).collect();
        let mut threads: Vec<usize> = of_program
            .iter()
            .filter(|r| r.runtime != "sequential")
            .map(|r| r.threads)
            .collect();
        threads.sort_unstable();
        threads.dedup();
        if threads.is_empty() {
            threads.push(1);
        }
        for (i, &t) in threads.iter().enumerate() {
            let find = |rt: &str| {
                of_program
                    .iter()
                    .copied()
                    .find(|r| r.runtime == rt && (rt == "sequential" || r.threads == t))
            };
            let mut line = vec![
                Cell::plain(if i == 0 { program } else { "" }),
                Cell::plain(t.to_string()),
            ];
            for rt in &runtimes {
                line.push(match find(rt) {
                    // The baseline is one figure per program: shown on its first line only.
                    Some(r) if *rt == "sequential" => {
                        if i == 0 {
                            time_cell(r, false)
                        } else {
                            Cell::plain("")
                        }
                    }
                    Some(r) => time_cell(r, true),
                    None => Cell::plain("-"),
                });
            }
            if has_peer {
                line.push(ratio_cell(
                    find("forkjoin"),
                    PEERS.iter().filter_map(|p| find(p)),
                ));
            }
            if counts {
                let fj = find("forkjoin");
                line.push(Cell::plain(count(fj.and_then(|r| r.tasks))));
                line.push(Cell::plain(count(fj.and_then(|r| r.steals))));
                line.push(Cell::plain(count(fj.and_then(|r| r.waits_slept))));
            }
            out.push(line);
        }
    }
    Grid { header, rows: out }
}

fn time_cell(r: &Row, speedup: bool) -> Cell {
    match r.seconds {
        Some(s) if r.verified => {
            let mut text = seconds(s);
            if speedup {
                if let Some(x) = r.speedup {
                    text += &format!(" {x:.2}x");
                }
            }
            if r.converged {
                Cell::plain(text)
            } else {
                Cell {
                    text: text + "*",
                    flag: Flag::Unconverged,
                }
            }
        }
        Some(s) => Cell {
            text: format!("{} WRONG", seconds(s)),
            flag: Flag::Failed,
        },
        None => Cell {
            text: "FAILED".to_string(),
            flag: Flag::Failed,
        },
    }
}

/// forkjoin's time over the fastest verified peer's: below 1, forkjoin is faster.
fn ratio_cell<'a>(fj: Option<&Row>, peers: impl Iterator<Item = &'a Row>) -> Cell {
    let best = peers
        .filter(|r| r.verified)
        .filter_map(|r| r.seconds)
        .min_by(f64::total_cmp);
    match (fj.filter(|r| r.verified).and_then(|r| r.seconds), best) {
        (Some(fj), Some(best)) if best > 0.0 => Cell::plain(format!("{:.2}", fj / best)),
        _ => Cell::plain("-"),
    }
}

/// A count per run: whole above 10, one decimal below (a wait slept once in three runs is
/// 0.3, not 0).
fn count(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if v < 10.0 && v.fract() != 0.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.0}"),
    }
}

/// Seconds with three significant digits in a readable unit: `1.23s`, `45.6ms`, `789µs`.
pub(crate) fn seconds(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$}{unit}")
}

/// The grid as aligned text: the first column left-aligned, the others right-aligned.
pub(crate) fn render_text(g: &Grid) -> String {
    let mut widths: Vec<usize> = g.header.iter().map(|h| h.chars().count()).collect();
    for line in &g.rows {
        for (w, c) in widths.iter_mut().zip(line) {
            *w = (*w).max(c.text.chars().count());
        }
    }
    let format_line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (text, w)) in cells.iter().zip(&widths).enumerate() {
            if i == 0 {
                s += &format!("{text:<w$}");
            } else {
                s += &format!("  {text:>w$}");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = format_line(g.header.iter().map(String::as_str).collect());
    for line in &g.rows {
        out += &format_line(line.iter().map(|c| c.text.as_str()).collect());
    }
    out
}

/// The notes under the table: what the marks mean and, loudly, every failure.
pub(crate) fn footnotes(rows: &[Row]) -> Vec<String> {
    let mut notes = vec![
        "time = mean of the K fastest runs; speedup (x) = sequential time / time; \
         fj/best peer = forkjoin's time / the fastest peer's (below 1: forkjoin is faster)"
            .to_string(),
    ];
    if rows.iter().any(|r| r.verified && !r.converged) {
        notes.push(
            "* not converged: the K-th fastest run was not within (1 + epsilon) of the fastest"
                .to_string(),
        );
    }
    for r in rows.iter().filter(|r| !r.verified) {
        notes.push(format!(
            "!! {} on {} with {} worker(s): {}",
            r.program,
            r.runtime,
            r.threads,
            r.error.as_deref().unwrap_or("not verified")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(program: &str, runtime: &str, threads: usize, seconds: f64) -> Row {
        let mut r = Row::new(program, runtime, threads, 3);
        r.seconds = Some(seconds);
        r.converged = true;
        r.verified = true;
        r
    }

    #[test]
    fn seconds_format() {
        assert_eq!(seconds(1.234), "1.23s");
        assert_eq!(seconds(0.0456), "45.6ms");
        assert_eq!(seconds(0.000789), "789µs");
        assert_eq!(seconds(123.4), "123s");
    }

    #[test]
    fn one_line_per_program_and_workers() {
        let mut rows = vec![
            row("fib", "sequential", 1, 1.0),
            row("fib", "forkjoin", 1, 1.0),
            row("fib", "rayon", 1, 1.0),
            row("fib", "forkjoin", 2, 0.5),
            row("fib", "rayon", 2, 0.4),
        ];
        rows[4].converged = false;
        crate::suite::results::fill_speedups(&mut rows);
        let g = grid(&rows, false);
        assert_eq!(
            g.header,
            [
                "program",
                "workers",
                "sequential",
                "forkjoin",
                "rayon",
                "fj/best peer"
            ]
        );
        let text: Vec<Vec<&str>> = g
            .rows
            .iter()
            .map(|l| l.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(
            text[0],
            ["fib", "1", "1.00s", "1.00s 1.00x", "1.00s 1.00x", "1.00"]
        );
        assert_eq!(
            text[1],
            ["", "2", "", "500ms 2.00x", "400ms 2.50x*", "1.25"]
        );
        assert_eq!(g.rows[1][4].flag, Flag::Unconverged);
    }

    #[test]
    fn forkjoin_counts_per_run_are_shown() {
        let mut fj = row("fib", "forkjoin", 2, 0.5);
        (fj.tasks, fj.steals, fj.waits_slept) = (Some(1234.4), Some(2.0), Some(1.0 / 3.0));
        let rows = vec![row("fib", "sequential", 1, 1.0), fj];
        let g = grid(&rows, true);
        assert_eq!(
            g.header[4..],
            ["fj tasks/run", "fj steals/run", "fj waits slept/run"]
        );
        let text: Vec<&str> = g.rows[0][4..].iter().map(|c| c.text.as_str()).collect();
        assert_eq!(text, ["1234", "2", "0.3"]);
    }

    #[test]
    fn failures_are_marked_and_listed() {
        let mut bad = row("fib", "forkjoin", 2, 0.5);
        bad.verified = false;
        bad.error = Some("expected 1, found 2".into());
        let rows = vec![row("fib", "sequential", 1, 1.0), bad];
        let g = grid(&rows, true);
        assert_eq!(g.rows[0][3].flag, Flag::Failed);
        assert!(g.rows[0][3].text.contains("WRONG"));
        assert!(footnotes(&rows)
            .iter()
            .any(|n| n.starts_with("!! fib on forkjoin") && n.contains("found 2")));
    }
}
