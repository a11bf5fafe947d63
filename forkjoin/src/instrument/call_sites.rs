//! A whole program's profile by call site (feature `profile`, `FORKJOIN_PROFILE=FILE` or
//! `record_call_sites`): each entry's totals under the caller's line, threads outside pools
//! timed by their CPU clock, written as JSON at exit (DESIGN.md, section 12, "Any program").

use super::Profiling;
use crate::profile_hooks::{
    choose_outside_clock, measured_at, measured_part, measured_site, outside_clock, outside_now,
    thread_cpu_ns, Acc, OutsideClock, Session, Site, Stamp,
};
use crate::registry::{global_registry, Registry, Worker};
use crate::sync::lock;
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicU8};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that names the file a program's profile is written to at exit.
///
/// ```
/// assert_eq!(forkjoin::instrument::PROFILE_VAR, "FORKJOIN_PROFILE");
/// ```
pub const PROFILE_VAR: &str = "FORKJOIN_PROFILE";

/// A steal's cost in ns for the burdened span (`fj profile` passes the calibrated one); 0 if unset.
const BURDEN_VAR: &str = "FORKJOIN_PROFILE_BURDEN_NS";

/// Set to `wall`, threads outside the pool are timed by the wall clock (blocked time is work).
const CLOCK_VAR: &str = "FORKJOIN_PROFILE_CLOCK";

/// The totals of one call site over a run.
///
/// ```
/// forkjoin::instrument::record_call_sites();
/// let pool = forkjoin::Pool::new(1).unwrap();
/// assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
/// let site: forkjoin::instrument::CallSite = forkjoin::instrument::call_sites()
///     .into_iter()
///     .find(|c| c.line == line!() - 3)
///     .unwrap();
/// assert_eq!((site.calls, site.joins, site.parent), (1, 1, None));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallSite {
    /// The caller's source file, as the compiler names it.
    pub file: String,
    /// Its line and column.
    pub line: u32,
    #[allow(missing_docs)]
    pub column: u32,
    /// The call site this one was entered inside (`file:line:column`), or `None` for an entry
    /// from outside every profiled closure. Its totals are part of its parent's.
    pub parent: Option<String>,
    /// Entries made from this line (inside its parent, if it has one).
    pub calls: u64,
    /// Work, span and burdened span summed over the calls (ns).
    pub work_ns: u64,
    #[allow(missing_docs)]
    pub span_ns: u64,
    #[allow(missing_docs)]
    pub burdened_span_ns: u64,
    /// Joins made (a parallel loop, profiled, splits wherever its rest is worth sharing: a
    /// join per split), and the most on one chain in a call.
    pub joins: u64,
    #[allow(missing_docs)]
    pub span_joins: u64,
    /// Strands timed: the leaves and the pieces between joins.
    pub strands: u64,
    /// Wall-clock time of the calls (ns), profiled; 0 for a nested site (its parent's covers it).
    pub wall_ns: u64,
    /// Time the calls' strands on threads outside the pool did not run (blocked, asleep or
    /// preempted; wall-clock time less their CPU time), ns: neither work nor span.
    pub blocked_ns: u64,
}

impl CallSite {
    /// Adds `more` calls of the same site: their totals, and the longest chain of any.
    fn absorb(&mut self, more: &CallSite) {
        self.calls += more.calls;
        self.work_ns += more.work_ns;
        self.span_ns += more.span_ns;
        self.burdened_span_ns += more.burdened_span_ns;
        self.joins += more.joins;
        self.span_joins = self.span_joins.max(more.span_joins);
        self.strands += more.strands;
        self.wall_ns += more.wall_ns;
        self.blocked_ns += more.blocked_ns;
    }
}

/// The program being profiled.
struct Program {
    /// Where the profile goes at exit (`None`: only `call_sites` reads it).
    file: Option<PathBuf>,
    start: Instant,
    /// The CPU time of the thread that made the first call site, until then (zero where its
    /// clock cannot be read): the program's sequential start, which no call site times.
    before: Duration,
    /// Their time outside every call site from the first call on, by that clock (ns): serial work.
    outside_ns: AtomicU64,
    /// Their wall-clock time outside every call site less `outside_ns`: blocked (ns).
    outside_blocked_ns: AtomicU64,
    /// Made at the first call site, once the profiler's cost per strand is measured.
    session: OnceLock<Session>,
    /// By the addresses of the parent's and the site's `Location`s (`call_sites` merges twins).
    sites: Mutex<HashMap<(usize, usize), CallSite>>,
}

/// A call site's key in `Program::sites`: its `Location`'s address, 0 for none.
fn key(site: Site) -> usize {
    site.map_or(0, |s| s as *const Location<'static> as usize)
}

/// 0: `FORKJOIN_PROFILE` not read yet; 1: no profile; 2: profiling.
static STATE: AtomicU8 = AtomicU8::new(0);
static PROGRAM: OnceLock<Program> = OnceLock::new();

/// The program's profile, if one is being taken.
#[inline]
fn program() -> Option<&'static Program> {
    // Relaxed: `PROGRAM` is set before the state says 2, and `OnceLock::get` synchronises.
    match STATE.load(Relaxed) {
        1 => None,
        2 => PROGRAM.get(),
        _ => start_from_environment(),
    }
}

#[cold]
fn start_from_environment() -> Option<&'static Program> {
    let Some(file) = std::env::var_os(PROFILE_VAR).filter(|f| !f.is_empty()) else {
        // Relaxed: see `program`.
        STATE.store(1, Relaxed);
        return None;
    };
    let (program, made) = start(Some(PathBuf::from(file)));
    // Once, by the thread that made the profile (two threads may read the variable at once).
    // SAFETY: `write_at_exit` is a plain function that never unwinds (it catches panics).
    if made && unsafe { libc::atexit(write_at_exit) } != 0 {
        eprintln!("forkjoin: cannot register the profile's writer; {PROFILE_VAR} is ignored");
    }
    Some(program)
}

/// The program's profile, and whether this call made it.
fn start(file: Option<PathBuf>) -> (&'static Program, bool) {
    let mut made = false;
    let program = PROGRAM.get_or_init(|| {
        made = true;
        let wall = std::env::var_os(CLOCK_VAR).is_some_and(|v| v == "wall");
        choose_outside_clock(wall);
        if Worker::current_ref().is_none() {
            // Its time from here to its first call is outside every call site.
            LAST_LEFT.with(|l| l.0.set(Some(outside_now())));
        }
        Program {
            file,
            start: Instant::now(),
            before: Duration::from_nanos(thread_cpu_ns().unwrap_or(0)),
            outside_ns: AtomicU64::new(0),
            outside_blocked_ns: AtomicU64::new(0),
            session: OnceLock::new(),
            sites: Mutex::new(HashMap::new()),
        }
    });
    // Relaxed: see `program`.
    STATE.store(2, Relaxed);
    (program, made)
}

/// On a thread outside the pool: both its clocks when it last left a call site, if it did;
/// its time since then is the program's when the thread ends outside a call.
struct LastLeft(Cell<Option<Stamp>>);

impl Drop for LastLeft {
    fn drop(&mut self) {
        if let (Some(last), None, Some(program)) = (self.0.take(), measured_site(), PROGRAM.get()) {
            program.outside(Some(last), outside_now());
        }
    }
}

thread_local! {
    static LAST_LEFT: LastLeft = const { LastLeft(Cell::new(None)) };
}

/// Starts keeping the program's call sites (as `FORKJOIN_PROFILE` does, without the file
/// at exit): every entry from now on is profiled.
///
/// ```
/// use forkjoin::prelude::*;
/// forkjoin::instrument::record_call_sites();
/// let line = line!() + 1;
/// let s: u64 = (0..1000u64).into_par_iter().sum();
/// assert_eq!(s, 499_500);
/// let site = forkjoin::instrument::call_sites()
///     .into_iter()
///     .find(|c| c.line == line)
///     .unwrap();
/// assert_eq!((site.file.as_str(), site.calls), (file!(), 1));
/// assert!(site.span_ns <= site.work_ns);
/// ```
pub fn record_call_sites() {
    start(None);
}

/// The call sites so far: the outer ones in file and line order, each nested one after them
/// in the order of its parent's place and its own.
///
/// ```
/// // Nothing is kept until the program's profile starts.
/// assert!(forkjoin::instrument::call_sites().is_empty());
/// ```
pub fn call_sites() -> Vec<CallSite> {
    let Some(program) = PROGRAM.get() else {
        return Vec::new();
    };
    let sites = lock(&program.sites);
    let mut merged: Vec<CallSite> = Vec::with_capacity(sites.len());
    let mut all: Vec<&CallSite> = sites.values().collect();
    let place = |c: &CallSite| (c.parent.clone(), c.file.clone(), c.line, c.column);
    all.sort_by_key(|c| place(c));
    for c in all {
        match merged.last_mut() {
            Some(last) if place(last) == place(c) => last.absorb(c),
            _ => merged.push(c.clone()),
        }
    }
    merged
}

/// Writes the profile so far to `path` as JSON: the program's wall-clock time since its
/// first call site, the CPU time of that call's thread before it, the profiler's cost per
/// strand, the steal burden, and the call sites.
///
/// ```
/// let path = std::env::temp_dir().join(format!("fj-doc-{}.json", std::process::id()));
/// forkjoin::instrument::write_call_sites(&path).unwrap();
/// let json = std::fs::read_to_string(&path).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// assert!(json.contains("\"wall_ns\": 0") && json.contains("\"sites\": ["));
/// ```
pub fn write_call_sites(path: &Path) -> std::io::Result<()> {
    let program = PROGRAM.get();
    let session = program.and_then(|p| p.session.get());
    let mut json = String::new();
    let _ = write!(
        json,
        "{{\n  \"wall_ns\": {},\n  \"before_ns\": {},\n  \"outside_clock\": \"{}\",\n  \"outside_ns\": {},\n  \"outside_blocked_ns\": {},\n  \"timer_ns\": {},\n  \"burden_ns\": {},\n  \"sites\": [",
        program.map_or(0, |p| p.start.elapsed().as_nanos()),
        program.map_or(0, |p| p.before.as_nanos()),
        outside_clock().name(),
        // Relaxed (both): totals; this thread's additions and a joined thread's (by the
        // join's edge, its locals' end included) come before; a running one's may not.
        program.map_or(0, |p| p.outside_ns.load(Relaxed)),
        program.map_or(0, |p| p.outside_blocked_ns.load(Relaxed)),
        session.map_or(0, |s| s.timer_ns),
        session.map_or(0, |s| s.burden_ns),
    );
    for (i, c) in call_sites().iter().enumerate() {
        let parent = c
            .parent
            .as_ref()
            .map_or_else(|| "null".to_string(), |p| format!("\"{}\"", escape(p)));
        let _ = write!(
            json,
            "{}\n    {{\"file\": \"{}\", \"line\": {}, \"column\": {}, \"parent\": {parent}, \"calls\": {}, \"work_ns\": {}, \"span_ns\": {}, \"burdened_span_ns\": {}, \"joins\": {}, \"span_joins\": {}, \"strands\": {}, \"wall_ns\": {}, \"blocked_ns\": {}}}",
            if i == 0 { "" } else { "," },
            escape(&c.file),
            c.line,
            c.column,
            c.calls,
            c.work_ns,
            c.span_ns,
            c.burdened_span_ns,
            c.joins,
            c.span_joins,
            c.strands,
            c.wall_ns,
            c.blocked_ns,
        );
    }
    json.push_str("\n  ]\n}\n");
    std::fs::write(path, json)
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

extern "C" fn write_at_exit() {
    let written = std::panic::catch_unwind(|| {
        let program = PROGRAM.get()?;
        // A program that exits inside a call: the call so far, under its site.
        crate::profile_hooks::unfinished(|site, acc, wall| {
            program.add(None, site, acc, Some(Duration::from_nanos(wall)));
        });
        // Else the exiting thread's time since its last call, unless its locals' end counted it.
        if measured_site().is_none() {
            if let Ok(Some(last)) = LAST_LEFT.try_with(|l| l.0.take()) {
                program.outside(Some(last), outside_now());
            }
        }
        let file = program.file.as_ref()?;
        let e = write_call_sites(file).err()?;
        let file = file.display();
        Some(format!("cannot write the profile to {file}: {e}"))
    });
    match written {
        Ok(Some(error)) => eprintln!("forkjoin: {error}"),
        Err(_) => eprintln!("forkjoin: the profile's writer panicked"),
        Ok(None) => {}
    }
}

/// Runs `f`, the body of an entry called at `site`, profiled as a closure of `pool` (by
/// default the pool it runs on) if the program is, and inside one as part of it.
#[inline]
pub(crate) fn call_site<R>(
    site: &'static Location<'static>,
    pool: Option<&Arc<Registry>>,
    f: impl FnOnce() -> R,
) -> R {
    let Some(program) = program() else {
        return f();
    };
    // Through one closure type for every entry, so that no entry's types instantiate the
    // profiler (DESIGN.md, section 2, "Generic code kept small").
    let mut f = Some(f);
    let mut result = None;
    program.call(site, pool, &mut || result = f.take().map(|f| f()));
    // `None` only if `f` panicked, and then its panic went on from the call.
    result.expect("a profiled entry returned")
}

/// Whether `site` lies in forkjoin's own source.
fn internal(site: &Location<'_>) -> bool {
    const HERE: &str = file!();
    let source = HERE
        .strip_suffix("instrument/call_sites.rs")
        .unwrap_or(HERE);
    site.file().starts_with(source)
}

impl Program {
    /// `call_site` of a profiled program.
    #[inline(never)]
    fn call(
        &'static self,
        site: &'static Location<'static>,
        pool: Option<&Arc<Registry>>,
        f: &mut dyn FnMut(),
    ) {
        match measured_site() {
            None => {}
            // forkjoin's own entries (`collect` into a `Vec`), and a site's entries at its
            // own line (a consumer built on another), are its caller's.
            Some(outer) if internal(site) || outer == Some(site) => return f(),
            Some(outer) => return measured_part(site, f, |acc| self.add(outer, site, acc, None)),
        }
        // A call from outside every profiled closure, its totals kept under `site`.
        let worker = Worker::current_ref();
        let registry: Arc<Registry> = match (pool, worker) {
            (Some(pool), _) => Arc::clone(pool),
            (None, Some(worker)) => worker.registry_arc(),
            (None, None) => Arc::clone(global_registry()),
        };
        let session = self.session(&registry);
        let _on = Profiling::on(registry);
        let t0 = Instant::now();
        let ((), acc) = measured_at(session, Some(site), f);
        self.add(None, site, &acc, Some(t0.elapsed()));
        if worker.is_none() {
            // A thread outside the pool: its time since it last left a call is outside any.
            let last = LAST_LEFT.with(|l| l.0.replace(Some(acc.last)));
            self.outside(last, acc.first);
        }
    }

    /// Adds a thread's time outside every call site, from `from` (`None`: its start) to `to`:
    /// to the program's serial work, and what it did not run to its blocked time.
    fn outside(&self, from: Option<Stamp>, to: Stamp) {
        let (cpu, blocked) = match from {
            Some(from) => {
                let cpu = to.cpu.saturating_sub(from.cpu);
                (cpu, to.wall.saturating_sub(from.wall).saturating_sub(cpu))
            }
            // Its first call: the CPU time of its life so far (the wall clock has no start).
            None if outside_clock() == OutsideClock::ThreadCpu => (to.cpu, 0),
            None => (0, 0),
        };
        // Relaxed (both): totals, read at exit (edges: `write_call_sites`).
        self.outside_ns.fetch_add(cpu, Relaxed);
        self.outside_blocked_ns.fetch_add(blocked, Relaxed);
    }

    /// The program's session, made at the first call site with the cost per strand measured.
    fn session(&self, registry: &Arc<Registry>) -> &Session {
        self.session.get_or_init(|| {
            let burden = std::env::var(BURDEN_VAR).map_or(0, |b| b.parse().unwrap_or(0));
            let cost = crate::registry::in_worker(registry, |_| super::strand_cost());
            Session::new(cost.unwrap_or(0), burden, false, 0)
        })
    }

    /// Adds a call at `site` inside `parent` (if any), with its wall-clock time if outer.
    fn add(
        &self,
        parent: Site,
        site: &'static Location<'static>,
        acc: &Acc,
        wall: Option<Duration>,
    ) {
        let mut sites = lock(&self.sites);
        let c = sites
            .entry((key(parent), key(Some(site))))
            .or_insert_with(|| CallSite {
                file: site.file().to_string(),
                line: site.line(),
                column: site.column(),
                parent: parent.map(|p| format!("{}:{}:{}", p.file(), p.line(), p.column())),
                ..CallSite::default()
            });
        c.absorb(&CallSite {
            calls: 1,
            work_ns: acc.work,
            span_ns: acc.span,
            burdened_span_ns: acc.bspan,
            joins: acc.joins,
            span_joins: acc.depth,
            strands: acc.strands,
            wall_ns: wall.map_or(0, |w| w.as_nanos() as u64),
            blocked_ns: acc.blocked,
            ..CallSite::default()
        });
    }
}
