//! A whole program's profile by call site (feature `profile`). With `FORKJOIN_PROFILE=FILE`
//! set (or after `record_call_sites`), each entry a program makes from outside a profiled
//! closure (`Pool::install`, a parallel iterator's consumer) runs as a profiled closure of
//! its pool, its totals kept under the caller's source line; an entry inside one is part of
//! it, and kept too, under its own line inside its parent's. At exit the call sites go to
//! FILE as JSON (`fj profile -- COMMAND` reads it). The method is the suite's (DESIGN.md,
//! section 12).

use super::Profiling;
use crate::profile_hooks::{measured_at, measured_part, measured_site, Acc, Session, Site};
use crate::registry::{global_registry, Registry, Worker};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// The environment variable that names the file a program's profile is written to at exit.
///
/// ```
/// assert_eq!(forkjoin::instrument::PROFILE_VAR, "FORKJOIN_PROFILE");
/// ```
pub const PROFILE_VAR: &str = "FORKJOIN_PROFILE";

/// A steal's cost in nanoseconds for the burdened span (`fj profile` passes the calibrated
/// one); 0 when unset.
const BURDEN_VAR: &str = "FORKJOIN_PROFILE_BURDEN_NS";

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
    /// Wall-clock time of the calls (ns), profiled; 0 for a nested site (its parent's covers
    /// it).
    pub wall_ns: u64,
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
    }
}

/// The program being profiled.
struct Program {
    /// Where the profile goes at exit (`None`: only `call_sites` reads it).
    file: Option<PathBuf>,
    start: Instant,
    /// The CPU time of the thread that made the first call site, until then: the program's
    /// sequential start (reading its input, building its data), which no call site times.
    before: Duration,
    /// Made at the first call site, once the profiler's cost per strand is measured.
    session: OnceLock<Session>,
    /// By the addresses of the parent's and the site's `Location`s (cheap to hash; a site
    /// whose `Location` the compiler made twice is merged by `call_sites`).
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
    let file = std::env::var_os(PROFILE_VAR).filter(|f| !f.is_empty());
    let Some(file) = file else {
        // Relaxed: see `program`.
        STATE.store(1, Relaxed);
        return None;
    };
    let (program, made) = start(Some(PathBuf::from(file)));
    extern "C" fn at_exit() {
        write_at_exit();
    }
    // Once, by the thread that made the profile (two threads may read the variable at once).
    // SAFETY: `at_exit` is a plain function that never unwinds out (`write_at_exit` reports
    // errors and catches panics).
    if made && unsafe { libc::atexit(at_exit) } != 0 {
        eprintln!("forkjoin: cannot register the profile's writer; {PROFILE_VAR} is ignored");
    }
    Some(program)
}

/// The program's profile, and whether this call made it.
fn start(file: Option<PathBuf>) -> (&'static Program, bool) {
    let mut made = false;
    let program = PROGRAM.get_or_init(|| {
        made = true;
        Program {
            file,
            start: Instant::now(),
            before: thread_cpu_time(),
            session: OnceLock::new(),
            sites: Mutex::new(HashMap::new()),
        }
    });
    // Relaxed: see `program`.
    STATE.store(2, Relaxed);
    (program, made)
}

/// The CPU time this thread has used (zero where the clock cannot be read).
fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid `timespec` for the call to fill.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
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
    let sites = program.sites.lock().unwrap_or_else(PoisonError::into_inner);
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
        "{{\n  \"wall_ns\": {},\n  \"before_ns\": {},\n  \"timer_ns\": {},\n  \"burden_ns\": {},\n  \"sites\": [",
        program.map_or(0, |p| p.start.elapsed().as_nanos()),
        program.map_or(0, |p| p.before.as_nanos()),
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
            "{}\n    {{\"file\": \"{}\", \"line\": {}, \"column\": {}, \"parent\": {parent}, \"calls\": {}, \"work_ns\": {}, \"span_ns\": {}, \"burdened_span_ns\": {}, \"joins\": {}, \"span_joins\": {}, \"strands\": {}, \"wall_ns\": {}}}",
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

fn write_at_exit() {
    let written = std::panic::catch_unwind(|| {
        let program = PROGRAM.get()?;
        // A program that exits inside a call: the call so far, under its site.
        crate::profile_hooks::unfinished(|site, acc, wall| {
            program.add(None, site, acc, Some(Duration::from_nanos(wall)));
        });
        let file = program.file.as_ref()?;
        Some(write_call_sites(file).map_err(|e| (file.clone(), e)))
    });
    match written {
        Ok(Some(Err((file, e)))) => {
            eprintln!(
                "forkjoin: cannot write the profile to {}: {e}",
                file.display()
            )
        }
        Err(_) => eprintln!("forkjoin: the profile's writer panicked"),
        _ => {}
    }
}

/// Runs `f`, the body of an entry called at `site`: profiled, as a closure of `pool` (by
/// default the pool it runs on: this worker's, else the global pool), if the program is
/// profiled and no profiled closure runs on this thread already (an entry inside one is
/// part of it).
#[inline]
pub(crate) fn call_site<R>(
    site: &'static Location<'static>,
    pool: Option<&Arc<Registry>>,
    f: impl FnOnce() -> R,
) -> R {
    let Some(program) = program() else {
        return f();
    };
    match measured_site() {
        None => program.run(site, pool, f),
        // forkjoin's own entries (`collect` into a `Vec`), and a site's entries at its own
        // line (a consumer built on another), are its caller's.
        Some(outer) if internal(site) || outer == Some(site) => f(),
        Some(outer) => measured_part(site, f, |acc| program.add(outer, site, acc, None)),
    }
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
    #[inline(never)]
    fn run<R>(
        &'static self,
        site: &'static Location<'static>,
        pool: Option<&Arc<Registry>>,
        f: impl FnOnce() -> R,
    ) -> R {
        let current = Worker::current();
        let registry: Arc<Registry> = match pool {
            Some(pool) => Arc::clone(pool),
            None if current.is_null() => Arc::clone(global_registry()),
            // SAFETY: this thread's worker, live while the thread runs it.
            None => unsafe { (*current).registry_arc() },
        };
        let session = self.session(&registry);
        let _on = Profiling::on(registry);
        let t0 = Instant::now();
        let (r, acc) = measured_at(session, site, f);
        self.add(None, site, &acc, Some(t0.elapsed()));
        r
    }

    /// The program's session: made at the first call site, with the profiler's cost per
    /// strand measured on `registry`'s workers first.
    fn session(&self, registry: &Arc<Registry>) -> &Session {
        self.session.get_or_init(|| {
            let burden = std::env::var(BURDEN_VAR)
                .ok()
                .and_then(|b| b.parse().ok())
                .unwrap_or(0);
            let cost = crate::registry::in_worker(registry, |_| super::strand_cost());
            Session::new(cost.unwrap_or(0), burden, false, 0)
        })
    }

    /// Adds a call at `site` inside `parent` (none: from outside every profiled closure),
    /// and its wall-clock time if it is an outer one.
    fn add(
        &self,
        parent: Site,
        site: &'static Location<'static>,
        acc: &Acc,
        wall: Option<Duration>,
    ) {
        let mut sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
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
            ..CallSite::default()
        });
    }
}
