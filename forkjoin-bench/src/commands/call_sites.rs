//! `fj profile -- COMMAND ARGS...`: any program built with forkjoin's `profile` feature,
//! profiled by call site (DESIGN.md, section 12, "Any program"). The command runs once with
//! `FORKJOIN_PROFILE` set; the runtime writes each call site's work, span and burdened span
//! at exit; this shows them, with the whole program's row and the time each would take at
//! 1 to 64 workers, and writes them in Cilkscale's CSV columns.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode, ExitStatus, Stdio};

use forkjoin_profile::Costs;
use serde::Deserialize;

use super::calibrate::load_costs;
use super::{check_output_file, Failure};
use crate::cli::ProfileArgs;

/// Worker counts of the predicted times.
const WORKERS: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];

/// What the runtime writes (`forkjoin::instrument::write_call_sites`).
#[derive(Deserialize, Debug)]
pub(crate) struct ProgramProfile {
    /// The program's wall-clock time from its first call site to its exit (ns).
    pub wall_ns: u64,
    /// The CPU time of the first call site's thread before that call: the program's
    /// sequential start (ns; absent from older profiles).
    #[serde(default)]
    pub before_ns: u64,
    /// The clock the threads outside the pool were timed by: `thread_cpu`, or the wall
    /// clock (`wall: ...`, saying why), their blocked time then counted as work (absent from
    /// older profiles, which timed them by the wall clock).
    #[serde(default)]
    pub outside_clock: Option<String>,
    /// Those threads' time outside every call site from the first call on, by that clock
    /// (ns; absent from older profiles: then the wall time outside the call sites).
    #[serde(default)]
    pub outside_ns: Option<u64>,
    /// Their wall-clock time outside every call site less `outside_ns`: blocked (ns).
    #[serde(default)]
    pub outside_blocked_ns: u64,
    pub burden_ns: u64,
    pub sites: Vec<Site>,
}

#[derive(Deserialize, Debug, Clone)]
pub(crate) struct Site {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The call site it was entered inside, `file:line:column`; its totals are part of it.
    pub parent: Option<String>,
    pub calls: u64,
    pub work_ns: u64,
    pub span_ns: u64,
    pub burdened_span_ns: u64,
    pub joins: u64,
    pub wall_ns: u64,
    /// Time its strands on threads outside the pool were blocked (not work, ns).
    #[serde(default)]
    pub blocked_ns: u64,
}

impl ProgramProfile {
    /// The places of its sites (`Site::place`), which nested sites name as parents.
    fn places(&self) -> Vec<String> {
        self.sites.iter().map(Site::place).collect()
    }

    /// The total of `field` over the outer sites (a nested site's is its parent's too).
    fn outer_total(&self, places: &[String], field: fn(&Site) -> u64) -> u64 {
        self.sites
            .iter()
            .filter(|s| s.parent_in(places).is_none())
            .map(field)
            .sum()
    }
}

impl Site {
    /// `file:line:column`, as a nested site names its parent.
    fn place(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }

    /// Its parent among `places`; none for an outer site, or if the parent is not in the
    /// profile (its call panicked), which leaves the site outer.
    fn parent_in<'a>(&'a self, places: &[String]) -> Option<&'a String> {
        self.parent.as_ref().filter(|p| places.contains(p))
    }
}

/// Appends the sites inside `parent` (none: the outer ones) by work, most first, each
/// followed by those inside it, one level deeper.
fn below(
    sites: &[Site],
    places: &[String],
    parent: Option<&String>,
    depth: usize,
    rows: &mut Vec<Row>,
) {
    let mut inside: Vec<&Site> = sites
        .iter()
        .filter(|s| s.parent_in(places) == parent)
        .collect();
    inside.sort_by(|a, b| {
        b.work_ns
            .cmp(&a.work_ns)
            .then_with(|| a.place().cmp(&b.place()))
    });
    for s in inside {
        rows.push(Row {
            tag: format!("{}:{}", s.file, s.line),
            depth,
            parent: parent.map(|p| p.rsplit_once(':').map_or(p.clone(), |(t, _)| t.into())),
            calls: s.calls,
            work_ns: s.work_ns,
            span_ns: s.span_ns,
            burdened_span_ns: s.burdened_span_ns,
            leaves: s.joins + s.calls,
        });
        below(sites, places, Some(&s.place()), depth + 1, rows);
    }
}

/// One row of the report: a call site, or the whole program.
#[derive(Debug, PartialEq)]
pub(crate) struct Row {
    pub tag: String,
    /// How deep it is nested: 0 for an entry from outside every profiled closure.
    pub depth: usize,
    /// Its parent's tag, if nested.
    pub parent: Option<String>,
    pub calls: u64,
    pub work_ns: u64,
    pub span_ns: u64,
    pub burdened_span_ns: u64,
    /// Leaves of the calls' join trees: a tree of `j` joins has `j + 1`.
    pub leaves: u64,
}

impl Row {
    fn parallelism(&self) -> f64 {
        self.work_ns as f64 / self.span_ns.max(1) as f64
    }

    fn burdened_parallelism(&self) -> f64 {
        self.work_ns as f64 / self.burdened_span_ns.max(1) as f64
    }

    fn mean_leaf_ns(&self) -> f64 {
        self.work_ns as f64 / self.leaves.max(1) as f64
    }

    /// The time at `p` workers by the work and span laws (at least `max(T1/P, T∞)`) and
    /// the burdened bound (at most `T1/P + burdened span`), in ns.
    pub(crate) fn predicted_ns(&self, p: u64) -> (f64, f64) {
        let per_worker = self.work_ns as f64 / p as f64;
        (
            per_worker.max(self.span_ns as f64),
            per_worker + self.burdened_span_ns as f64,
        )
    }

    /// What limits the speedup first: steals that cost as much as the leaves they buy, too
    /// few leaves to spread, or nothing up to 64 workers.
    pub(crate) fn limit(&self, burden_ns: u64) -> String {
        let par = self.parallelism();
        if self.leaves > self.calls && self.burdened_parallelism() < 0.5 * par {
            format!(
                "work per leaf: leaves of {:.1} us against a steal of {:.1} us",
                self.mean_leaf_ns() / 1e3,
                burden_ns as f64 / 1e3
            )
        } else if par < 64.0 {
            format!("parallelism: at most {par:.1}x")
        } else {
            "none up to 64 workers".to_string()
        }
    }
}

/// The outer call sites by work, most first, each followed by those nested inside it (by
/// work, one level deeper), then the whole program: its threads' time outside every outer
/// call site (their CPU time there, and the sequential start before the first; in an older
/// profile, the wall time less the sites') counts as serial, on the span as in the work.
pub(crate) fn rows(profile: &ProgramProfile) -> Vec<Row> {
    let places = profile.places();
    let mut rows = Vec::new();
    below(&profile.sites, &places, None, 0, &mut rows);
    let in_sites = profile.outer_total(&places, |s| s.wall_ns);
    let outside = profile
        .outside_ns
        .unwrap_or_else(|| profile.wall_ns.saturating_sub(in_sites));
    let serial = outside + profile.before_ns;
    let sum = |f: fn(&Row) -> u64| rows.iter().filter(|r| r.depth == 0).map(f).sum::<u64>();
    let program = Row {
        tag: "program".to_string(),
        depth: 0,
        parent: None,
        calls: 1,
        work_ns: serial + sum(|r| r.work_ns),
        span_ns: serial + sum(|r| r.span_ns),
        burdened_span_ns: serial + sum(|r| r.burdened_span_ns),
        leaves: sum(|r| r.leaves) + 1,
    };
    rows.push(program);
    rows
}

/// How the program's own threads (outside the pool) were timed, and how long they were
/// blocked, inside and outside the call sites.
pub(crate) fn outside_note(profile: &ProgramProfile) -> String {
    let inside = profile.outer_total(&profile.places(), |s| s.blocked_ns);
    match profile.outside_clock.as_deref() {
        Some("thread_cpu") => format!(
            "threads outside the pool, timed by their CPU clocks: blocked {:.3} ms inside the \
             call sites and {:.3} ms outside them (not work, not on the span)",
            inside as f64 / 1e6,
            profile.outside_blocked_ns as f64 / 1e6
        ),
        Some(other) => format!(
            "threads outside the pool timed by the wall clock ({other}): their blocked time \
             counts as work"
        ),
        None => "threads outside the pool timed by the wall clock (an older profile): their \
                 blocked time counts as work"
            .to_string(),
    }
}

/// The rows in Cilkscale's CSV columns, then ours.
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),burdened_parallelism,calls,leaves,mean leaf (seconds),inside\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{},{:.9},{:.9},{:.3},{:.9},{:.3},{},{},{:.9},{}\n",
            r.tag,
            r.work_ns as f64 / 1e9,
            r.span_ns as f64 / 1e9,
            r.parallelism(),
            r.burdened_span_ns as f64 / 1e9,
            r.burdened_parallelism(),
            r.calls,
            r.leaves,
            r.mean_leaf_ns() / 1e9,
            r.parent.as_deref().unwrap_or(""),
        ));
    }
    out
}

/// `fj profile -- COMMAND ARGS...`.
pub(crate) fn run(args: &ProfileArgs) -> Result<ExitCode, Failure> {
    let Some((program, program_args)) = args.command.split_first() else {
        return Err(Failure::Usage(
            "fj profile: name a suite program or a command after `--`".into(),
        ));
    };
    check_output_file("--csv", Some(&args.csv))?;
    let costs = load_costs(args.model.costs.as_deref())?;
    let (status, profile) = profiled_run(program, program_args, &costs, None)?;
    if !status.success() {
        eprintln!("fj profile: {program} exited with {status}; its profile up to then:");
    }
    let rows = rows(&profile);
    print_report(&rows, &profile, &costs);
    std::fs::write(&args.csv, csv(&rows))
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", args.csv.display())))?;
    println!("csv: {}", args.csv.display());
    let measured = if args.measure && status.success() {
        measure(program, program_args, &costs, &rows)?
    } else {
        page::Measured::new()
    };
    if !measured.is_empty() {
        println!("\nmeasured speedup in profiled runs at 1, 2, ... workers:");
        for (tag, points) in &measured {
            let shown: Vec<String> = points.iter().map(|(_, s)| format!("{s:.2}")).collect();
            println!("  {tag}: {}", shown.join(" / "));
        }
    }
    let html = page::page(
        &args.command.join(" "),
        &rows,
        &profile,
        &costs.machine,
        &measured,
    );
    if let Some(dir) = args.html.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&args.html, html)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", args.html.display())))?;
    println!("page: {}", args.html.display());
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs the command once more, profiled, at each worker count from 1 to this machine's
/// cores: each figured call site's speedup is its wall time at one worker over its time at
/// P (a tag's calls summed), the program's its whole wall time.
fn measure(
    program: &str,
    program_args: &[String],
    costs: &Costs,
    rows: &[Row],
) -> Result<page::Measured, Failure> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tags: Vec<String> = page::with_figures(rows)
        .iter()
        .map(|r| r.tag.clone())
        .collect();
    let mut walls: Vec<(usize, BTreeMap<String, u64>)> = Vec::new();
    for p in 1..=cores {
        let (status, profile) = profiled_run(program, program_args, costs, Some(p))?;
        if !status.success() {
            return Err(Failure::Other(format!(
                "fj profile: {program} exited with {status} at {p} workers"
            )));
        }
        let mut wall = BTreeMap::new();
        for s in &profile.sites {
            *wall.entry(format!("{}:{}", s.file, s.line)).or_insert(0) += s.wall_ns;
        }
        wall.insert("program".to_string(), profile.wall_ns);
        walls.push((p, wall));
    }
    let mut measured = page::Measured::new();
    for tag in tags {
        let at = |i: usize| walls[i].1.get(&tag).copied().filter(|&w| w > 0);
        if let Some(one) = at(0) {
            let points = (0..walls.len())
                .filter_map(|i| at(i).map(|w| (walls[i].0, one as f64 / w as f64)))
                .collect();
            measured.insert(tag, points);
        }
    }
    Ok(measured)
}

/// Runs the command once with `FORKJOIN_PROFILE` set (at `workers`, through
/// `FORKJOIN_NUM_THREADS` and with its output silenced, if given) and reads its profile.
fn profiled_run(
    program: &str,
    program_args: &[String],
    costs: &Costs,
    workers: Option<usize>,
) -> Result<(ExitStatus, ProgramProfile), Failure> {
    let file = std::env::temp_dir().join(format!(
        "fj-profile-{}-{}.json",
        std::process::id(),
        workers.unwrap_or(0)
    ));
    let _ = std::fs::remove_file(&file);
    let mut command = Command::new(program);
    command
        .args(program_args)
        .env(forkjoin::instrument::PROFILE_VAR, &file)
        .env(
            "FORKJOIN_PROFILE_BURDEN_NS",
            format!("{:.0}", costs.burden_ns()),
        );
    if let Some(p) = workers {
        command
            .env("FORKJOIN_NUM_THREADS", p.to_string())
            .stdout(Stdio::null());
    }
    let status = command
        .status()
        .map_err(|e| Failure::Usage(format!("fj profile: cannot run {program}: {e}")))?;
    let profile = read_profile(&file, program);
    let _ = std::fs::remove_file(&file);
    Ok((status, profile?))
}

fn read_profile(file: &Path, program: &str) -> Result<ProgramProfile, Failure> {
    let text = std::fs::read_to_string(file).map_err(|_| {
        Failure::Other(format!(
            "fj profile: {program} wrote no profile: is it built with forkjoin's `profile` \
             feature (`cargo build --release --features forkjoin/profile`)?"
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Failure::Other(format!(
            "fj profile: the profile {program} wrote is not readable: {e}"
        ))
    })
}

fn print_report(rows: &[Row], profile: &ProgramProfile, costs: &Costs) {
    let total = rows.last().map_or(1, |r| r.work_ns.max(1));
    println!(
        "\nwork, span and parallelism by call site ({} call sites; a steal costs {:.1} us: {})",
        rows.len() - 1,
        profile.burden_ns as f64 / 1e3,
        costs.machine
    );
    println!(
        "{:<44} {:>7} {:>10} {:>6} {:>10} {:>8} {:>8} {:>10}  T at 2 / 8 / 64 workers, ms",
        "call site", "calls", "work ms", "share", "span ms", "par", "b. par", "leaf us",
    );
    let shown = |r: &Row| format!("{}{}", "  ".repeat(r.depth), r.tag);
    for r in rows {
        let range = |p| {
            let (lo, hi) = r.predicted_ns(p);
            format!("{:.2}-{:.2}", lo / 1e6, hi / 1e6)
        };
        println!(
            "{:<44} {:>7} {:>10.3} {:>5.1}% {:>10.3} {:>8.1} {:>8.1} {:>10.2}  {} / {} / {}",
            shown(r),
            r.calls,
            r.work_ns as f64 / 1e6,
            100.0 * r.work_ns as f64 / total as f64,
            r.span_ns as f64 / 1e6,
            r.parallelism(),
            r.burdened_parallelism(),
            r.mean_leaf_ns() / 1e3,
            range(2),
            range(8),
            range(64),
        );
    }
    println!("\n{}", outside_note(profile));
    println!("\npredicted time in ms at P workers (work and span laws - burdened bound):");
    print!("{:<44}", "");
    for p in WORKERS {
        print!(" {p:>15}");
    }
    println!();
    let mut by_work: Vec<&Row> = rows[..rows.len() - 1].iter().collect();
    by_work.sort_by_key(|r| std::cmp::Reverse(r.work_ns));
    for r in by_work.iter().take(3).copied().chain(rows.last()) {
        print!("{:<44}", r.tag);
        for p in WORKERS {
            let (lo, hi) = r.predicted_ns(p);
            print!(" {:>15}", format!("{:.2}-{:.2}", lo / 1e6, hi / 1e6));
        }
        println!();
    }
    println!("\nwhat limits each (the top five by work):");
    for r in by_work.iter().take(5) {
        println!("  {}: {}", r.tag, r.limit(profile.burden_ns));
    }
}

mod page;

#[cfg(test)]
mod test;
