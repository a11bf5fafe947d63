//! `fj loops --instructions`: the leaf loop checked against std's loop by the instructions
//! it executes, counted by callgrind, so that the check does not depend on the machine's
//! speed or load (DESIGN.md, section 8, "The leaf loop is std's loop").
//!
//! The generated binary runs each program once per entrant inside its
//! `instruction_window` (`template/main.rs`, `--instructions`); callgrind collects only
//! there, on the thread that runs the window, and dumps a count as each window ends. The
//! entrants:
//! - `std`: std's iterators;
//! - `fj1`: forkjoin at 1 worker, whose loops fold alone, in one chunk;
//! - `fj2`: forkjoin at 2 workers while the second is held in a blocked job: its loops
//!   fold chunk by chunk as on a busy pool, where nobody asks for a share. Under callgrind,
//!   about 50 times slower than natively, its timed chunks hold about 50 times fewer
//!   items, so a chunk's fixed cost weighs that much more per item: the chunks are counted
//!   (calls of `Pace::timed`, whose own instructions are not collected) and the cost per
//!   chunk beyond `fj1`'s run is shown apart;
//! - `ry1`: rayon at 1 worker.
//!
//! The rule is the one-worker target of `fj loops` (`report`), on instructions: fj1 within
//! 1.05x of std, or no further from std than rayon at 1 worker. A program far outside it
//! (`GROSS`: fj1 over 1.25x std and 1.05x past rayon's ratio) means the leaf loop is not
//! std's loop, and fails the run.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::crate_dir::Dirs;
use super::report::{geomean, ratio, LIMIT_STD, WORST};

/// fj1/std above this, and above rayon's ratio by `GROSS_PAST_RAYON`, fails the check.
pub(crate) const GROSS: f64 = 1.25;
const GROSS_PAST_RAYON: f64 = 1.05;

/// The function callgrind collects in (the generated crate's `instruction_window`).
const WINDOW: &str = "loops_gen::instruction_window";
/// The splitter's timed boundary, not collected and counted as chunks.
const CHUNK_BOUNDARY: &str = "forkjoin::iter::splitter::Pace::timed";

/// What the binary prints of one program.
#[derive(Deserialize)]
pub(super) struct Printed {
    pub line: String,
    pub n: usize,
    pub windows: Vec<String>,
    pub error: Option<String>,
}

/// One window's dump: instructions, and timed chunk boundaries met.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Dump {
    pub instructions: u64,
    pub boundaries: u64,
}

/// One program's counts.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Counted {
    pub line: String,
    pub n: usize,
    pub std: Option<u64>,
    pub fj1: Option<u64>,
    pub fj2: Option<u64>,
    /// Timed chunk boundaries of the `fj2` run.
    pub fj2_chunks: Option<u64>,
    pub ry1: Option<u64>,
    pub std_per_item: Option<f64>,
    pub fj1_over_std: Option<f64>,
    pub fj2_over_std: Option<f64>,
    pub ry1_over_std: Option<f64>,
    /// (fj2 - fj1) per timed chunk: what a chunk costs beyond the items.
    pub fj2_per_chunk: Option<f64>,
    /// Breaks the rule (fj1 over 1.05x std and over rayon's ratio).
    pub breaks: bool,
    /// Far outside it (`GROSS`).
    pub gross: bool,
    pub error: Option<String>,
}

impl Counted {
    pub(super) fn new(p: Printed, dumps: &[(String, Dump)]) -> Counted {
        let get = |name: &str| dumps.iter().find(|(w, _)| w == name).map(|(_, d)| *d);
        let count = |name: &str| get(name).map(|d| d.instructions);
        let over = |a: Option<u64>, b: Option<u64>| ratio(a.map(|a| a as f64), b.map(|b| b as f64));
        let (std, fj1, fj2, ry1) = (count("std"), count("fj1"), count("fj2"), count("ry1"));
        let fj2_chunks = get("fj2").map(|d| d.boundaries);
        let fj1_over_std = over(fj1, std);
        let ry1_over_std = over(ry1, std);
        let (breaks, gross) = match (fj1_over_std, ry1_over_std) {
            (Some(f), Some(r)) => (
                f > LIMIT_STD && f > r,
                f > GROSS && f > r * GROSS_PAST_RAYON,
            ),
            _ => (false, false),
        };
        Counted {
            std_per_item: std.map(|s| s as f64 / p.n.max(1) as f64),
            fj2_over_std: over(fj2, std),
            fj2_per_chunk: match (fj1, fj2, fj2_chunks) {
                (Some(a), Some(b), Some(c)) if c > 0 => Some((b as f64 - a as f64) / c as f64),
                _ => None,
            },
            line: p.line,
            n: p.n,
            std,
            fj1,
            fj2,
            fj2_chunks,
            ry1,
            fj1_over_std,
            ry1_over_std,
            breaks,
            gross,
            error: p.error,
        }
    }
}

/// Whether callgrind can be run, or what to do.
pub(crate) fn check_valgrind() -> Result<(), String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(
            "fj loops --instructions counts with callgrind: install valgrind \
                  (Debian: apt-get install valgrind)"
                .into(),
        ),
    }
}

/// Runs the built binary under callgrind, its dumps in `out_dir`; `each` sees every program
/// as it comes.
pub(crate) fn run(
    dirs: &Dirs,
    out_dir: &Path,
    mut each: impl FnMut(&str),
) -> Result<Vec<Counted>, String> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    for entry in std::fs::read_dir(out_dir)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("callgrind.")
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let base = out_dir.join("callgrind.out");
    let mut child = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--compress-strings=no",
            "--compress-pos=no",
            "--collect-atstart=no",
        ])
        .arg(format!("--toggle-collect={WINDOW}"))
        .arg(format!("--toggle-collect={CHUNK_BOUNDARY}"))
        .arg(format!("--dump-after={WINDOW}"))
        .arg(format!("--callgrind-out-file={}", base.display()))
        .arg(dirs.binary())
        .arg("--instructions")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout from the programs")?;
    let mut printed = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading the programs' output: {e}"))?;
        let p: Printed = serde_json::from_str(&line)
            .map_err(|e| format!("the programs printed '{line}', not a result: {e}"))?;
        each(&p.line);
        printed.push(p);
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for valgrind: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "valgrind failed ({}) after {} program(s): {}",
            out.status,
            printed.len(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // The windows ran one after the other, and callgrind numbered their dumps in that order.
    let mut next = 1;
    let mut rows = Vec::new();
    for p in printed {
        let mut dumps = Vec::new();
        for w in &p.windows {
            let path = PathBuf::from(format!("{}.{next}", base.display()));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            dumps.push((
                w.clone(),
                parse_dump(&text).map_err(|e| format!("{}: {e}", path.display()))?,
            ));
            next += 1;
        }
        rows.push(Counted::new(p, &dumps));
    }
    Ok(rows)
}

/// A dump's instructions (its `summary:` line) and the calls of `CHUNK_BOUNDARY` (each
/// `cfn=` line naming it, then its `calls=` line), with strings uncompressed.
pub(super) fn parse_dump(text: &str) -> Result<Dump, String> {
    let mut dump = Dump::default();
    let mut found = false;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(v) = line.strip_prefix("summary:") {
            dump.instructions = v
                .trim()
                .parse()
                .map_err(|_| format!("a summary that is not a count: '{line}'"))?;
            found = true;
        } else if line.strip_prefix("cfn=") == Some(CHUNK_BOUNDARY) {
            if let Some(calls) = lines.next().and_then(|l| l.strip_prefix("calls=")) {
                dump.boundaries += calls
                    .split_whitespace()
                    .next()
                    .and_then(|c| c.parse::<u64>().ok())
                    .ok_or_else(|| format!("a call count that is not a count: '{calls}'"))?;
            }
        }
    }
    if !found {
        return Err("no summary line".into());
    }
    Ok(dump)
}

/// Worst first: by fj1/std relative to rayon's ratio, then fj1/std.
pub(crate) fn worst_first(rows: &mut [Counted]) {
    let key = |r: &Counted| {
        (
            r.error.is_none(),
            -(r.fj1_over_std.unwrap_or(0.0) / r.ry1_over_std.unwrap_or(1.0).max(1.0)),
        )
    };
    rows.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// The summary against the rule.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Summary {
    pub programs: usize,
    pub errors: usize,
    pub breaking: usize,
    pub gross: usize,
    pub geomean_fj1_over_std: Option<f64>,
    pub geomean_ry1_over_std: Option<f64>,
    pub geomean_fj2_over_std: Option<f64>,
}

/// The geometric mean of a ratio over the rows that have it.
fn geomean_of(rows: &[Counted], ratio: impl Fn(&Counted) -> Option<f64>) -> Option<f64> {
    geomean(&rows.iter().filter_map(ratio).collect::<Vec<_>>())
}

pub(crate) fn summarise(rows: &[Counted]) -> Summary {
    Summary {
        programs: rows.len(),
        errors: rows.iter().filter(|r| r.error.is_some()).count(),
        breaking: rows.iter().filter(|r| r.breaks).count(),
        gross: rows.iter().filter(|r| r.gross).count(),
        geomean_fj1_over_std: geomean_of(rows, |r| r.fj1_over_std),
        geomean_ry1_over_std: geomean_of(rows, |r| r.ry1_over_std),
        geomean_fj2_over_std: geomean_of(rows, |r| r.fj2_over_std),
    }
}

/// The table (the `WORST` worst rows, and every row breaking the rule) and the summary.
pub(crate) fn render(rows: &[Counted], summary: &Summary) -> String {
    let f = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>9} {:>8} {:>8} {:>8} {:>8} {:>9}  program",
        "std/item", "fj1/std", "ry1/std", "fj2/std", "chunks", "per chunk"
    );
    for (i, r) in rows.iter().enumerate() {
        if i >= WORST && !r.breaks && r.error.is_none() {
            continue;
        }
        let mark = if r.gross {
            "  << far from std"
        } else if r.breaks {
            "  < over the rule"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "{:>9} {:>8} {:>8} {:>8} {:>8} {:>9}  {}{mark}{}",
            r.std_per_item.map_or("-".into(), |x| format!("{x:.1}")),
            f(r.fj1_over_std),
            f(r.ry1_over_std),
            f(r.fj2_over_std),
            r.fj2_chunks.map_or("-".into(), |c| c.to_string()),
            r.fj2_per_chunk.map_or("-".into(), |x| format!("{x:.0}")),
            r.line,
            r.error
                .as_deref()
                .map_or(String::new(), |e| format!("  ERROR: {e}")),
        );
    }
    let _ = writeln!(
        s,
        "\n{} programs: {} over the rule (fj1 > {LIMIT_STD}x std and further than rayon), {} far \
         from it (fj1 > {GROSS}x std and > {GROSS_PAST_RAYON}x rayon's ratio), {} errors; \
         geometric means fj1/std {}, ry1/std {}, fj2/std {} (fj2: chunks at callgrind's pace)",
        summary.programs,
        summary.breaking,
        summary.gross,
        summary.errors,
        f(summary.geomean_fj1_over_std),
        f(summary.geomean_ry1_over_std),
        f(summary.geomean_fj2_over_std),
    );
    s
}

#[derive(Serialize)]
struct Json<'a> {
    seed: Option<u64>,
    forkjoin: Option<String>,
    summary: &'a Summary,
    programs: &'a [Counted],
}

pub(crate) fn write_json(
    path: &Path,
    seed: Option<u64>,
    forkjoin: Option<String>,
    rows: &[Counted],
    summary: &Summary,
) -> Result<(), String> {
    let json = Json {
        seed,
        forkjoin,
        summary,
        programs: rows,
    };
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
