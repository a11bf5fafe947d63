//! The report directory: `index.html` (self-contained: the table and the figures as inline
//! SVG) and `results.json` (the rows, as `--json` writes them).

use std::fmt::Write as _;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use super::plots;
use super::table::{self, Flag};
use crate::suite::results::{programs_in_order, write_json, Row};

/// What the report says about the run besides the rows.
pub(crate) struct RunInfo {
    pub command: String,
    pub size: String,
    pub threads: Vec<usize>,
    pub method: String,
    pub notes: Vec<String>,
}

pub(crate) fn write(dir: &Path, rows: &[Row], info: &RunInfo) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write_json(&dir.join("results.json"), rows)?;
    let index = dir.join("index.html");
    std::fs::write(&index, html(rows, info))
        .map_err(|e| format!("cannot write {}: {e}", index.display()))
}

pub(crate) const STYLE: &str = "
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1320px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; } td:first-child { text-align: left; font-weight: bold; }
td.unconverged { color: #8a6d00; background: #fff8e0; }
td.failed { color: #fff; background: #c62828; font-weight: bold; }
.figures { display: flex; flex-wrap: wrap; gap: 8px; }
.figures svg { border: 1px solid #ddd; }
.legend span { display: inline-block; margin-right: 16px; }
.legend i { display: inline-block; width: 22px; height: 3px; vertical-align: middle; margin-right: 4px; }
.note { color: #555; font-size: 13px; } .alarm { color: #c62828; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; font-size: 14px; }
dt { font-weight: bold; }
";

fn html(rows: &[Row], info: &RunInfo) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>forkjoin benchmark report</title><style>{STYLE}</style></head><body>\n\
         <h1>forkjoin benchmark report</h1>\n<dl>"
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<String> = info.threads.iter().map(|t| t.to_string()).collect();
    for (k, v) in [
        ("command", info.command.clone()),
        ("date", utc_now()),
        ("cores", cores.to_string()),
        ("size", info.size.clone()),
        ("workers", threads.join(", ")),
        ("method", info.method.clone()),
    ] {
        let _ = write!(h, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
    }
    h += "</dl>\n";
    for note in &info.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(note));
    }

    h += "<h2>Results</h2>\n";
    h += &table_html(&table::grid(rows, true));
    for note in table::footnotes(rows) {
        let class = if note.starts_with("!!") {
            "note alarm"
        } else {
            "note"
        };
        let _ = writeln!(h, "<p class=\"{class}\">{}</p>", escape(&note));
    }

    h += "<h2>Speedup against workers (Lea, figure 4-2)</h2>\n<p class=\"legend\">";
    for (rt, c) in plots::RUNTIME_COLORS {
        if rows.iter().any(|r| r.runtime == rt) {
            let _ = write!(
                h,
                "<span><i style=\"background: rgb({},{},{})\"></i>{rt}</span>",
                c.0, c.1, c.2
            );
        }
    }
    h += "<span><i style=\"background: repeating-linear-gradient(90deg, #969696 0 4px, transparent 4px 8px)\"></i>ideal</span></p>\n\
          <p class=\"note\">speedup = the program's sequential time / its time on the runtime.</p>\n<div class=\"figures\">\n";
    let programs = programs_in_order(rows);
    for program in programs {
        h += &figure(
            plots::speedup(program, rows, &info.threads).map(Some),
            "No rows to plot.",
        );
    }
    h += "</div>\n";

    h += "<h2>Task rate per worker (Lea, figure 4-3)</h2>\n\
          <p class=\"note\">Tasks run per second per worker: flat lines mean the work per task does not grow with the workers.</p>\n";
    h += &figure(
        plots::task_rate(rows, &info.threads),
        "No forkjoin row counted its tasks.",
    );
    h += "<h2>Steal rate (Lea, figure 4-6)</h2>\n\
          <p class=\"note\">Tasks stolen as a percentage of the tasks run. With one worker the only steal is the submitted root task.</p>\n";
    h += &figure(plots::steal_rate(rows, &info.threads), NO_STEALS);
    h += "</body></html>\n";
    h
}

/// What the steal-rate section says instead of a figure when no forkjoin run stole: a
/// short run on few workers may well not (a log scale has no place for 0).
const NO_STEALS: &str = "No figure: no forkjoin run stole a task (every steal rate is 0).";

/// `svg`, or `none` (why there is no figure) when there was nothing to plot.
fn figure(svg: Result<Option<String>, String>, none: &str) -> String {
    match svg {
        Ok(Some(svg)) => svg + "\n",
        Ok(None) => format!("<p class=\"note\">{}</p>\n", escape(none)),
        Err(e) => format!("<p class=\"alarm\">{}</p>\n", escape(&e)),
    }
}

fn table_html(g: &table::Grid) -> String {
    let mut h = String::from("<table>\n<tr>");
    for head in &g.header {
        let _ = write!(h, "<th>{}</th>", escape(head));
    }
    h += "</tr>\n";
    for line in &g.rows {
        h += "<tr>";
        for cell in line {
            let class = match cell.flag {
                Flag::Plain => "",
                Flag::Unconverged => " class=\"unconverged\"",
                Flag::Failed => " class=\"failed\"",
            };
            let _ = write!(h, "<td{class}>{}</td>", escape(&cell.text));
        }
        h += "</tr>\n";
    }
    h + "</table>\n"
}

pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The current time in UTC as `YYYY-MM-DD hh:mm UTC`.
pub(crate) fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn date_format() {
        let d = utc_now();
        assert_eq!(d.len(), "2024-01-01 00:00 UTC".len());
        assert!(d.starts_with("20"));
    }
}
