//! What `fj loops` shows of its measurements: a table worst first, the summary against the
//! targets, the worst programs' lines ready for `kept.txt`, and the JSON.
//!
//! The targets: at one worker every program within 1.05x of std's time, or no slower
//! relative to std than rayon is (a program breaks it when fj@1/std > 1.05 *and*
//! fj@1/std > ry@1/std); above one worker, every program within 1.10x of rayon's time and
//! the geometric mean of fj/rayon at most 0.90. Rows are sorted by the larger of
//! fj@1/ry@1 (which is fj@1/std relative to ry@1/std) and fj@P/ry@P.
//!
//! A program that breaks a target may be timed again (`Row::again`, more rounds): its
//! flag then stands only if the second timing breaks the same target. The summary counts
//! both; the geometric means and the order use the first timing of every program alike, so
//! that timing the worst again cannot flatter them.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use super::crate_dir::Measured;

/// The one-worker target: fj@1 within this of std (unless rayon is further).
pub(crate) const LIMIT_STD: f64 = 1.05;
/// The target above one worker: fj@P within this of rayon.
pub(crate) const LIMIT_RAYON: f64 = 1.10;
/// The target of the geometric mean of fj@P/ry@P.
pub(crate) const GEOMEAN_TARGET: f64 = 0.90;
/// How many of the worst programs the summary lists.
pub(crate) const WORST: usize = 20;

/// One program's figures.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Row {
    /// The program's index in the generated crate.
    pub index: usize,
    pub line: String,
    pub n: usize,
    pub reps: usize,
    pub std_seconds: Option<f64>,
    pub std_ns_per_item: Option<f64>,
    pub fj_seconds: BTreeMap<usize, Option<f64>>,
    pub rayon_seconds: BTreeMap<usize, Option<f64>>,
    pub fj1_over_std: Option<f64>,
    pub ry1_over_std: Option<f64>,
    pub fj1_over_ry1: Option<f64>,
    /// fj@P/ry@P for each P above 1.
    pub fj_over_rayon: BTreeMap<usize, f64>,
    /// The sort key: the larger of fj@1/ry@1 and every fj@P/ry@P.
    pub worst_ratio: Option<f64>,
    /// Breaks the one-worker target.
    pub breaks_1: bool,
    /// Breaks the target above one worker (at some P).
    pub breaks_p: bool,
    pub error: Option<String>,
    /// The second timing of a program that broke a target in the first.
    pub again: Option<Box<Row>>,
}

/// `a / b`, where both are known and `b` is positive.
pub(crate) fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a?, b?) {
        (a, b) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

impl Row {
    pub(crate) fn new(m: &Measured) -> Row {
        let fj = |p: usize| m.fj.get(&p).copied().flatten();
        let ry = |p: usize| m.ry.get(&p).copied().flatten();
        let fj1_over_std = ratio(fj(1), m.std);
        let ry1_over_std = ratio(ry(1), m.std);
        let fj1_over_ry1 = ratio(fj(1), ry(1));
        let fj_over_rayon: BTreeMap<usize, f64> =
            m.fj.keys()
                .filter(|&&p| p > 1)
                .filter_map(|&p| Some((p, ratio(fj(p), ry(p))?)))
                .collect();
        let worst_ratio = fj1_over_ry1
            .into_iter()
            .chain(fj_over_rayon.values().copied())
            .reduce(f64::max);
        let breaks_1 = match (fj1_over_std, ry1_over_std) {
            (Some(f), Some(r)) => f > LIMIT_STD && f > r,
            (Some(f), None) => f > LIMIT_STD,
            _ => false,
        };
        Row {
            index: m.index,
            line: m.line.clone(),
            n: m.n,
            reps: m.reps,
            std_seconds: m.std,
            std_ns_per_item: m
                .std
                .filter(|_| m.reps > 0 && m.n > 0)
                .map(|s| s * 1e9 / m.reps as f64 / m.n as f64),
            fj_seconds: m.fj.clone(),
            rayon_seconds: m.ry.clone(),
            fj1_over_std,
            ry1_over_std,
            fj1_over_ry1,
            breaks_p: fj_over_rayon.values().any(|&r| r > LIMIT_RAYON),
            fj_over_rayon,
            worst_ratio,
            breaks_1,
            error: m.error.clone(),
            again: None,
        }
    }

    /// Breaks the one-worker target, in the second timing too if there was one.
    pub(crate) fn confirmed_1(&self) -> bool {
        self.breaks_1 && self.again.as_ref().is_none_or(|a| a.breaks_1)
    }

    /// Breaks the target at `p` workers (in this timing).
    fn breaks_at(&self, p: usize) -> bool {
        self.fj_over_rayon.get(&p).is_some_and(|&x| x > LIMIT_RAYON)
    }

    /// Breaks the target at `p` workers, in the second timing too if there was one.
    pub(crate) fn confirmed_p(&self, p: usize) -> bool {
        self.breaks_at(p) && self.again.as_deref().is_none_or(|a| a.breaks_at(p))
    }

    /// The flag column: which targets the program breaks, or ERROR.
    pub(crate) fn flag(&self) -> String {
        if let Some(e) = &self.error {
            return format!("ERROR {e}");
        }
        // A flag the second timing did not repeat is shown in brackets, with that timing.
        let mark = |flag: String, stands: bool, again: Option<String>| match again {
            Some(a) if !stands => format!("({flag}: again {a})"),
            Some(a) => format!("{flag} (again {a})"),
            None => flag,
        };
        let again = self.again.as_deref();
        let mut f = Vec::new();
        if self.breaks_1 {
            // fj@1/std, and rayon's ratio beside it: the target is relative to both.
            let a = again.and_then(|a| {
                let fj = a.fj1_over_std?;
                Some(match a.ry1_over_std {
                    Some(ry) => format!("{fj:.3}, rayon {ry:.3}"),
                    None => format!("{fj:.3}"),
                })
            });
            f.push(mark("1w".to_string(), self.confirmed_1(), a));
        }
        for &p in self.fj_over_rayon.keys() {
            if self.breaks_at(p) {
                let a = again.and_then(|a| a.fj_over_rayon.get(&p).map(|x| format!("{x:.3}")));
                f.push(mark(format!("{p}w"), self.confirmed_p(p), a));
            }
        }
        f.join(" ")
    }
}

/// The rows worst first: failed ones, then by [`Row::worst_ratio`] descending.
pub(crate) fn worst_first(rows: &mut [Row]) {
    rows.sort_by(|a, b| match (&a.error, &b.error) {
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        _ => match (a.worst_ratio, b.worst_ratio) {
            (Some(x), Some(y)) => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
    });
}

/// The summary.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Summary {
    pub programs: usize,
    pub errors: usize,
    /// Programs breaking the one-worker target.
    pub breaking_1: usize,
    /// Programs breaking the target above one worker, by P.
    pub breaking_p: BTreeMap<usize, usize>,
    /// Whether the programs breaking a target were timed again, and with how many rounds.
    pub recheck_rounds: Option<usize>,
    /// Of `breaking_1`, those the second timing broke too.
    pub confirmed_1: usize,
    /// Of `breaking_p`, those the second timing broke too, by P.
    pub confirmed_p: BTreeMap<usize, usize>,
    pub geomean_fj1_over_ry1: Option<f64>,
    pub geomean_fj1_over_std: Option<f64>,
    /// The geometric mean of fj@P/ry@P, by P.
    pub geomean_fj_over_rayon: BTreeMap<usize, f64>,
    /// The worst programs' lines.
    pub worst: Vec<String>,
}

pub(crate) fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// The summary of `rows` (sorted worst first); `recheck_rounds`: the rounds of the second
/// timing, if the programs breaking a target had one.
pub(crate) fn summarise(rows: &[Row], recheck_rounds: Option<usize>) -> Summary {
    let ps: Vec<usize> = rows
        .iter()
        .flat_map(|r| r.fj_over_rayon.keys().copied())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let of = |f: &dyn Fn(&Row) -> Option<f64>| rows.iter().filter_map(f).collect::<Vec<_>>();
    Summary {
        programs: rows.len(),
        errors: rows.iter().filter(|r| r.error.is_some()).count(),
        breaking_1: rows.iter().filter(|r| r.breaks_1).count(),
        breaking_p: ps
            .iter()
            .map(|&p| (p, rows.iter().filter(|r| r.breaks_at(p)).count()))
            .collect(),
        recheck_rounds,
        confirmed_1: rows.iter().filter(|r| r.confirmed_1()).count(),
        confirmed_p: ps
            .iter()
            .map(|&p| (p, rows.iter().filter(|r| r.confirmed_p(p)).count()))
            .collect(),
        geomean_fj1_over_ry1: geomean(&of(&|r| r.fj1_over_ry1)),
        geomean_fj1_over_std: geomean(&of(&|r| r.fj1_over_std)),
        geomean_fj_over_rayon: ps
            .iter()
            .filter_map(|&p| Some((p, geomean(&of(&|r| r.fj_over_rayon.get(&p).copied()))?)))
            .collect(),
        worst: rows.iter().take(WORST).map(|r| r.line.clone()).collect(),
    }
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".to_string(), |x| format!("{x:.digits$}"))
}

/// The table and the summary, as printed.
pub(crate) fn render(rows: &[Row], summary: &Summary) -> String {
    let mut out = String::new();
    let ps: Vec<usize> = summary.geomean_fj_over_rayon.keys().copied().collect();
    let has_1 = rows.iter().any(|r| r.fj1_over_std.is_some());
    let width = rows
        .iter()
        .map(|r| r.line.len())
        .max()
        .unwrap_or(10)
        .max(10);
    let _ = write!(out, "{:<width$}  {:>8}", "program", "std ns/it");
    if has_1 {
        let _ = write!(out, "  {:>8}  {:>8}", "fj@1/std", "ry@1/std");
    }
    for p in &ps {
        let _ = write!(out, "  {:>9}", format!("fj@{p}/ry@{p}"));
    }
    let _ = writeln!(out, "  flag");
    for r in rows {
        let _ = write!(out, "{:<width$}  {:>8}", r.line, num(r.std_ns_per_item, 2));
        if has_1 {
            let _ = write!(
                out,
                "  {:>8}  {:>8}",
                num(r.fj1_over_std, 3),
                num(r.ry1_over_std, 3)
            );
        }
        for p in &ps {
            let _ = write!(out, "  {:>9}", num(r.fj_over_rayon.get(p).copied(), 3));
        }
        let _ = writeln!(out, "  {}", r.flag());
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Summary: {} programs", summary.programs);
    let again = |confirmed: usize| match summary.recheck_rounds {
        Some(r) => format!(", {confirmed} again when timed again ({r} rounds)"),
        None => String::new(),
    };
    if has_1 {
        let _ = writeln!(
            out,
            "  1 worker:  {} break the target (fj@1 > {LIMIT_STD:.2}x std and above rayon's \
             ratio){}; geomean fj@1/ry@1 {}, fj@1/std {}",
            summary.breaking_1,
            again(summary.confirmed_1),
            num(summary.geomean_fj1_over_ry1, 3),
            num(summary.geomean_fj1_over_std, 3)
        );
    }
    for p in &ps {
        let _ = writeln!(
            out,
            "  {p} workers: {} break the target (fj@{p} > {LIMIT_RAYON:.2}x rayon){}; geomean \
             fj@{p}/ry@{p} {} (target <= {GEOMEAN_TARGET:.2})",
            summary.breaking_p.get(p).copied().unwrap_or(0),
            again(summary.confirmed_p.get(p).copied().unwrap_or(0)),
            num(summary.geomean_fj_over_rayon.get(p).copied(), 3)
        );
    }
    if summary.errors > 0 {
        let _ = writeln!(
            out,
            "  {} FAILED (versions disagree or panicked)",
            summary.errors
        );
    }
    let _ = writeln!(
        out,
        "The {} worst (lines for forkjoin-bench/src/loops/kept.txt):",
        summary.worst.len()
    );
    for line in &summary.worst {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// What the JSON file holds.
#[derive(Serialize)]
struct Report<'a> {
    command: String,
    seed: Option<u64>,
    threads: &'a [usize],
    rounds: usize,
    k: usize,
    build_seconds: f64,
    run_seconds: f64,
    others_cpu_share: Option<f64>,
    forkjoin: Option<&'a str>,
    summary: &'a Summary,
    programs: &'a [Row],
}

/// What the JSON says about the run besides the rows.
pub(crate) struct RunInfo<'a> {
    pub seed: Option<u64>,
    pub threads: &'a [usize],
    pub rounds: usize,
    pub k: usize,
    pub build_seconds: f64,
    pub run_seconds: f64,
    /// The share of the CPUs other processes used during the run.
    pub others_cpu_share: Option<f64>,
    /// The forkjoin built against (commit, and whether changed since).
    pub forkjoin: Option<String>,
}

/// Writes the rows and the summary as JSON to `path`.
pub(crate) fn write_json(
    path: &Path,
    info: &RunInfo<'_>,
    rows: &[Row],
    summary: &Summary,
) -> Result<(), String> {
    let report = Report {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        seed: info.seed,
        threads: info.threads,
        rounds: info.rounds,
        k: info.k,
        build_seconds: info.build_seconds,
        run_seconds: info.run_seconds,
        others_cpu_share: info.others_cpu_share,
        forkjoin: info.forkjoin.as_deref(),
        summary,
        programs: rows,
    };
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}
