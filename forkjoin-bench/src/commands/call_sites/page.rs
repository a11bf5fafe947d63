//! `fj profile -- COMMAND`'s page in the report directory: the call sites by work, and for
//! the top ones and the whole program Cilkscale's figure (speedup against workers: the span
//! bound, the burdened bound, what was measured, the perfect line) with what limits each.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{ProgramProfile, Row, WORKERS};
use crate::report::html::{escape, utc_now, STYLE};
use crate::report::plots;

/// How many call sites get a figure (the program's row always does).
pub(crate) const FIGURES: usize = 3;

/// The speedups measured per call site (tag) and for the program: (workers, speedup).
pub(crate) type Measured = BTreeMap<String, Vec<(usize, f64)>>;

/// The call sites with a figure: the `FIGURES` with the most work, then the program.
pub(crate) fn with_figures(rows: &[Row]) -> Vec<&Row> {
    let (program, sites) = rows.split_last().expect("rows end with the program");
    let mut by_work: Vec<&Row> = sites.iter().collect();
    by_work.sort_by_key(|r| std::cmp::Reverse(r.work_ns));
    by_work.truncate(FIGURES);
    by_work.push(program);
    by_work
}

/// The page, self-contained (the figures as inline SVG).
pub(crate) fn page(
    command: &str,
    rows: &[Row],
    profile: &ProgramProfile,
    machine: &str,
    measured: &Measured,
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>forkjoin call-site profile</title><style>{STYLE}</style></head><body>\n\
         <h1>Work, span and parallelism by call site</h1>\n<dl>"
    );
    for (k, v) in [
        ("command", command.to_string()),
        ("date", utc_now()),
        (
            "a steal costs",
            format!("{:.1} us ({machine})", profile.burden_ns as f64 / 1e3),
        ),
        ("the program's threads", super::outside_note(profile)),
    ] {
        let _ = write!(h, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
    }
    h += "</dl>\n<h2>Call sites by work</h2>\n<table>\n<tr><th>call site</th><th>calls</th>\
          <th>work ms</th><th>share</th><th>span ms</th><th>parallelism</th>\
          <th>burdened parallelism</th><th>leaves</th><th>mean leaf us</th>";
    for p in WORKERS {
        let _ = write!(h, "<th>T at {p}, ms</th>");
    }
    h += "</tr>\n";
    let total = rows.last().map_or(1, |r| r.work_ns.max(1)) as f64;
    for r in rows {
        let _ = write!(
            h,
            "<tr><td style=\"padding-left: {}px\">{}</td><td>{}</td><td>{:.3}</td><td>{:.1}%</td>\
             <td>{:.3}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td><td>{:.2}</td>",
            8 + 16 * r.depth,
            escape(&r.tag),
            r.calls,
            r.work_ns as f64 / 1e6,
            100.0 * r.work_ns as f64 / total,
            r.span_ns as f64 / 1e6,
            r.parallelism(),
            r.burdened_parallelism(),
            r.leaves,
            r.mean_leaf_ns() / 1e3,
        );
        for p in WORKERS {
            let (lo, hi) = r.predicted_ns(p);
            let _ = write!(h, "<td>{:.2}-{:.2}</td>", lo / 1e6, hi / 1e6);
        }
        h += "</tr>\n";
    }
    h += "</table>\n<p class=\"note\">T at P: from the work and span laws, max(T1/P, span), \
          to the burdened bound, T1/P + burdened span. A nested call site's work is part of \
          its parent's; the program's row counts the time outside every call site as serial.</p>\n\
          <h2>Speedup against workers (as Cilkscale draws it)</h2>\n<p class=\"note\">The span \
          bound is min(P, parallelism), the burdened bound T1 / (T1/P + burdened span). Measured: \
          the call site's wall time at one worker over its time at P, in profiled runs of the \
          command with FORKJOIN_NUM_THREADS=P (a program that sizes its own pools ignores it).</p>\n\
          <div class=\"figures\">\n";
    for r in with_figures(rows) {
        let svg = plots::cilkscale(
            &r.tag,
            r.work_ns as f64,
            r.span_ns as f64,
            r.burdened_span_ns as f64,
            measured.get(&r.tag).map_or(&[][..], |m| &m[..]),
        );
        let _ = writeln!(
            h,
            "<div>{}<p class=\"note\">{}: limited by {}</p></div>",
            svg.unwrap_or_else(|e| format!("<p class=\"alarm\">no figure: {}</p>", escape(&e))),
            escape(&r.tag),
            escape(&r.limit(profile.burden_ns)),
        );
    }
    h += "</div>\n</body></html>\n";
    h
}
