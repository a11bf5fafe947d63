//! The scalability profiler and predictor (cargo feature `profile`).
//!
//! [`run`] runs a closure on a pool and measures, as OpenCilk's Cilkscale does, its *work*
//! (the time all its strands took, T1), its *span* (the longest chain of strands that must
//! run one after another, T∞) and the *burdened span* (the span with a steal's cost added
//! at every join whose second closure may be stolen). These are counted online: every join
//! combines its two children's totals (work adds, span takes the maximum), so the memory
//! used is one small record per open join, not per task.
//!
//! It also records the task graph (strands with their measured durations, and the joins
//! that connect them), coarsened as it grows so that it stays under a bound: a join whose
//! subtree has less work than a threshold becomes one opaque chunk, and the threshold
//! doubles whenever the graph would outgrow the bound.
//!
//! [`Profile::predict`] replays that graph in a discrete-event simulation of this runtime's
//! scheduler on P workers (the ParJava model: every worker has its own model clock, every
//! action costs what [`Costs::measure`] measured on the machine, a join waits for the later
//! of its children), and gives the predicted time beside the bound of the work and span
//! laws (speedup <= min(P, T1/T∞)) and Cilkview's burdened-dag estimate (a heuristic).
//!
//! How a strand is timed: while a profile runs, every join takes the runtime's slow path
//! (the pool's `profiling` flag keeps the join limit at the heartbeat's `SHARE_REQUEST`). There the join closes the
//! current strand, wraps both closures so that each opens strands of its own wherever it
//! runs, joins them with the ordinary scheduler, and combines their totals. The profiler's
//! own cost per strand is measured at the start of every profile (an empty join tree) and
//! subtracted.
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! let pool = forkjoin::Pool::new(2).unwrap();
//! let (answer, profile) = forkjoin::profile::run(&pool, || fib(20));
//! assert_eq!(answer, 6765);
//! assert_eq!(profile.joins(), 10945); // fib(21) - 1 internal calls
//! assert_eq!(profile.span_joins(), 19);
//! assert!(profile.parallelism() > 1.0);
//! let p = profile.predict(8, &forkjoin::profile::Costs::typical());
//! assert!(p.speedup <= p.speedup_upper * 1.0001);
//! ```

mod costs;
pub mod cpus;
mod graph;
mod sim;

pub use costs::{Costs, CostsError, Spread, MEASURED, ROUNDS, UNSETTLED_FACTOR};
pub use graph::{Step, TaskNode};
pub use sim::Prediction;

use crate::join::join_unprofiled_slow;
use crate::pool::Pool;
use crate::registry::Worker;
use std::cell::Cell;
use std::hint::black_box;
use std::ptr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How a profile is taken.
#[derive(Clone, Debug)]
pub struct Options {
    /// Record the task graph (needed by [`Profile::predict`]'s simulation).
    pub record_graph: bool,
    /// The most steps the recorded graph may hold; it is coarsened to stay below.
    pub max_steps: usize,
    /// The costs whose steal burden enters the burdened span.
    pub costs: Costs,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            record_graph: true,
            max_steps: 1 << 18,
            costs: Costs::typical(),
        }
    }
}

/// Work, span and parallelism of one run, and its task graph.
#[derive(Clone, Debug)]
pub struct Profile {
    work: u64,
    span: u64,
    burdened_span: u64,
    joins: u64,
    span_joins: u64,
    strands: u64,
    burden_ns: u64,
    timer_ns: u64,
    wall: Duration,
    workers: usize,
    graph: Option<TaskNode>,
    chunk_threshold: u64,
    /// Profiles combined into this one ([`Profile::combine`]); 1 for a single run.
    combined: usize,
}

impl Profile {
    /// Total time of all strands (T1), without the runtime's own costs.
    pub fn work(&self) -> Duration {
        Duration::from_nanos(self.work)
    }

    /// The critical path (T∞).
    pub fn span(&self) -> Duration {
        Duration::from_nanos(self.span)
    }

    /// Work divided by span: the most workers the run could keep busy.
    pub fn parallelism(&self) -> f64 {
        self.work as f64 / self.span.max(1) as f64
    }

    /// The span with the steal burden added at every join on it.
    pub fn burdened_span(&self) -> Duration {
        Duration::from_nanos(self.burdened_span)
    }

    /// Work divided by burdened span.
    pub fn burdened_parallelism(&self) -> f64 {
        self.work as f64 / self.burdened_span.max(1) as f64
    }

    /// The burdened span with `costs`' burden instead of the one the profile was taken
    /// with (the steals on it are the same, each now costing `costs.burden_ns()`).
    pub fn burdened_span_with(&self, costs: &Costs) -> Duration {
        let steals = self.burdened_span.saturating_sub(self.span) as f64;
        let extra = if self.burden_ns == 0 {
            // Taken with no burden: the path is the span, and which joins it would cross is
            // unknown; the graph knows.
            self.graph.as_ref().map_or(0.0, |g| {
                burdened(g, costs.burden_ns() as u64)
                    .0
                    .saturating_sub(g.span) as f64
            })
        } else {
            steals * costs.burden_ns() / self.burden_ns as f64
        };
        Duration::from_nanos(self.span + extra.round() as u64)
    }

    /// Joins the run made.
    pub fn joins(&self) -> u64 {
        self.joins
    }

    /// Joins on the deepest chain of nested joins (the span counted in joins).
    pub fn span_joins(&self) -> u64 {
        self.span_joins
    }

    /// Strands timed.
    pub fn strands(&self) -> u64 {
        self.strands
    }

    /// The profiler's measured cost per strand, subtracted from each.
    pub fn timer_overhead(&self) -> Duration {
        Duration::from_nanos(self.timer_ns)
    }

    /// Wall time of the profiled run (with the profiler's overhead).
    pub fn wall(&self) -> Duration {
        self.wall
    }

    /// Workers of the pool the profile was taken on.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The recorded task graph, if it was recorded.
    pub fn graph(&self) -> Option<&TaskNode> {
        self.graph.as_ref()
    }

    /// Joins with less work than this (ns) below them were coarsened into chunks.
    pub fn chunk_threshold(&self) -> u64 {
        self.chunk_threshold
    }

    /// How many profiles were combined into this one: 1 for a single run (or when
    /// [`Profile::combine`] found that the profiles were not of the same run).
    pub fn combined(&self) -> usize {
        self.combined
    }

    /// Several profiles of one deterministic run (the same closure, the same data) combined
    /// strand by strand, so that a strand the host preempted in one of them does not count:
    /// the graphs have the same shape, and each strand takes its shortest timing (each
    /// chunk its smallest work and span); work, span and burdened span are those of the
    /// combined graph. A preemption lands on one strand of one run, and the chance that
    /// every run loses the processor in the same strand is small, where a single profile
    /// counts the pause as work and, if the strand lies on the span, as span.
    ///
    /// Profiles without a graph, or whose graphs differ (a program whose task graph depends
    /// on timing), cannot be aligned: then the one with the least work is returned as it
    /// is, and [`Profile::combined`] says 1. Panics if `profiles` is empty.
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(1).unwrap();
    /// let leaf = || std::hint::black_box((0..1_000u64).sum::<u64>());
    /// let runs: Vec<_> = (0..3)
    ///     .map(|_| forkjoin::profile::run(&pool, || forkjoin::join(leaf, leaf)).1)
    ///     .collect();
    /// let p = forkjoin::profile::Profile::combine(&runs);
    /// assert_eq!(p.combined(), 3);
    /// assert!(runs.iter().all(|r| p.work() <= r.work() && p.span() <= r.span()));
    /// ```
    pub fn combine(profiles: &[Profile]) -> Profile {
        let least = profiles
            .iter()
            .min_by_key(|p| p.work)
            .expect("at least one profile");
        let graph = profiles.iter().try_fold(None::<TaskNode>, |acc, p| {
            let g = p.graph.as_ref()?;
            Some(Some(match acc {
                None => g.clone(),
                Some(a) => a.shortest(g)?,
            }))
        });
        let Some(Some(graph)) = graph else {
            return least.clone();
        };
        let first = &profiles[0];
        let (bspan, _) = burdened(&graph, first.burden_ns);
        Profile {
            work: graph.work,
            span: graph.span,
            burdened_span: bspan,
            wall: profiles.iter().map(|p| p.wall).min().unwrap_or_default(),
            chunk_threshold: profiles
                .iter()
                .map(|p| p.chunk_threshold)
                .max()
                .unwrap_or(0),
            combined: profiles.len(),
            graph: Some(graph),
            ..first.clone()
        }
    }

    /// A profile computed from a hand-made graph, with `costs`' steal burden.
    pub fn from_graph(root: TaskNode, costs: &Costs) -> Profile {
        let burden = costs.burden_ns() as u64;
        let (bspan, depth) = burdened(&root, burden);
        Profile {
            work: root.work,
            span: root.span,
            burdened_span: bspan,
            joins: root.joins,
            span_joins: depth,
            strands: 0,
            burden_ns: burden,
            timer_ns: 0,
            wall: Duration::ZERO,
            workers: 1,
            graph: Some(root),
            chunk_threshold: 0,
            combined: 1,
        }
    }

    /// Predicts the run on `workers` workers with `costs`: a simulation of the scheduler over
    /// the recorded graph, or, without a graph, the work spread evenly plus the burdened
    /// span (and [`Prediction::simulated`] says which).
    pub fn predict(&self, workers: usize, costs: &Costs) -> Prediction {
        sim::predict(self, workers.max(1), costs)
    }

    /// This profile with its strand times rescaled so that the simulation on one worker takes
    /// `one_worker` (an unprofiled run's time on one worker, e.g. the best of a few).
    ///
    /// Timing every strand costs the profiler tens of nanoseconds per strand, which it
    /// subtracts; for programs whose strands are a few nanoseconds long, what is left is
    /// only accurate to a nanosecond or so per strand, and the runtime's own cost per join
    /// varies with the program's closures. One unprofiled run fixes the scale; the profile
    /// still supplies the shape (which strands run in parallel, and their relative lengths).
    pub fn scaled_to(&self, one_worker: Duration, costs: &Costs) -> Profile {
        self.rescaled(self.work_scale(one_worker, costs))
    }

    /// This profile with its strand times rescaled so that they add up to `work`: the time
    /// of the program with two plain calls in place of each join (its sequential version),
    /// measured unprofiled. This is ParJava's way: the sequential segments' times come from
    /// a run on the target, and the simulation adds the runtime's costs (`Costs`) on top,
    /// so even the one-worker prediction is a prediction, not a calibration.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let pool = forkjoin::Pool::new(1).unwrap();
    /// let (_, p) = forkjoin::profile::run(&pool, || forkjoin::join(|| 1, || 2));
    /// let q = p.with_work(Duration::from_millis(3));
    /// assert!(q.work().abs_diff(Duration::from_millis(3)) < Duration::from_micros(1));
    /// ```
    pub fn with_work(&self, work: Duration) -> Profile {
        self.rescaled(self.factor_to(work.as_nanos() as f64))
    }

    /// This profile with every strand time multiplied by `factor`.
    fn rescaled(&self, factor: f64) -> Profile {
        let scale = |ns: u64| (ns as f64 * factor).round() as u64;
        Profile {
            work: scale(self.work),
            span: scale(self.span),
            burdened_span: scale(self.span) + (self.burdened_span - self.span),
            graph: self.graph.as_ref().map(|g| g.scaled(factor)),
            ..self.clone()
        }
    }

    /// The factor by which [`Profile::scaled_to`] multiplies strand times to reach
    /// `one_worker` (at least 0.05).
    pub fn work_scale(&self, one_worker: Duration, costs: &Costs) -> f64 {
        self.factor_to(
            one_worker.as_nanos() as f64 - costs.submit_ns - self.joins as f64 * costs.join_ns,
        )
    }

    /// The factor that makes the work `target_ns`; at least 0.05, so that costs larger
    /// than the run they are taken from cannot make strands vanish or go negative.
    fn factor_to(&self, target_ns: f64) -> f64 {
        if self.work == 0 {
            1.0
        } else {
            (target_ns / self.work as f64).max(0.05)
        }
    }
}

/// The burdened span of a join of children with burdened spans `a` and `b`: the second
/// child is the one a thief takes, so its path pays the burden.
fn burdened_join(a: u64, b: u64, burden: u64) -> u64 {
    a.max(b + burden)
}

/// Burdened span and depth in joins of a hand-made graph.
fn burdened(node: &TaskNode, burden: u64) -> (u64, u64) {
    let (mut bspan, mut depth) = (0, 0);
    for step in &node.steps {
        match step {
            Step::Work(ns) => bspan += ns,
            Step::Chunk { span, joins, .. } => {
                bspan += span;
                depth += (*joins > 0) as u64;
            }
            Step::Join(a, b) => {
                let (ba, da) = burdened(a, burden);
                let (bb, db) = burdened(b, burden);
                bspan += burdened_join(ba, bb, burden);
                depth += 1 + da.max(db);
            }
        }
    }
    (bspan, depth)
}

/// One profile at a time per process: the flag and the timer calibration are per pool, but
/// two profiles timing strands on the same cores would distort each other anyway.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `f` on `pool`, measuring it; returns its result and its profile. See the module
/// documentation.
pub fn run<R: Send>(pool: &Pool, f: impl FnOnce() -> R + Send) -> (R, Profile) {
    run_with(pool, &Options::default(), f)
}

/// [`run`] with explicit options.
pub fn run_with<R: Send>(
    pool: &Pool,
    options: &Options,
    f: impl FnOnce() -> R + Send,
) -> (R, Profile) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let registry = pool.registry();
    let _flag = ProfilingFlag::set(registry);
    let workers = registry.num_threads();
    pool.install(move || {
        let timer_ns = calibrate_timer();
        let session = Session {
            timer_ns,
            burden_ns: options.costs.burden_ns() as u64,
            record: options.record_graph,
            threshold: AtomicU64::new(0),
            live: AtomicUsize::new(0),
            trigger: AtomicUsize::new(options.max_steps.max(16)),
            max_steps: options.max_steps.max(16),
        };
        let t0 = Instant::now();
        let (r, acc) = measured(SessionRef(&session), f);
        let wall = t0.elapsed();
        let threshold = session.threshold.load(Relaxed);
        let graph = session.record.then(|| {
            let mut g = acc.graph;
            g.coarsen(threshold);
            g
        });
        let profile = Profile {
            work: acc.work,
            span: acc.span,
            burdened_span: acc.bspan,
            joins: acc.joins,
            span_joins: acc.depth,
            strands: acc.strands,
            burden_ns: session.burden_ns,
            timer_ns,
            wall,
            workers,
            graph,
            chunk_threshold: threshold,
            combined: 1,
        };
        (r, profile)
    })
}

/// Sets the pool's profiling flag (and sends every worker to the slow path at its next
/// join); clears it on drop, also when the profiled closure panics.
struct ProfilingFlag<'a>(&'a crate::registry::Registry, bool);

impl<'a> ProfilingFlag<'a> {
    fn set(registry: &'a crate::registry::Registry) -> ProfilingFlag<'a> {
        let was = registry.profiling.swap(true, Relaxed);
        for w in registry.workers.iter() {
            // Relaxed: as the heartbeat's request; the workers that run the profiled closure
            // get their part through a queue after this store.
            w.join.limit.store(crate::registry::SHARE_REQUEST, Relaxed);
        }
        ProfilingFlag(registry, was)
    }
}

impl Drop for ProfilingFlag<'_> {
    fn drop(&mut self) {
        // Relaxed: workers re-read it at their next join; a stale `true` only sends one more
        // join to the slow path, where no strand context is open and nothing is timed.
        self.0.profiling.store(self.1, Relaxed);
    }
}

/// The state of one profile, shared by all strands of the run.
struct Session {
    timer_ns: u64,
    burden_ns: u64,
    record: bool,
    /// Joins with less work below them than this become chunks (doubles as the graph grows).
    threshold: AtomicU64,
    /// Steps currently held by the graph under construction.
    live: AtomicUsize,
    /// `live` above this raises `threshold`.
    trigger: AtomicUsize,
    max_steps: usize,
}

/// A pointer to the session that timed closures carry to whichever worker runs them.
#[derive(Clone, Copy)]
struct SessionRef(*const Session);
// SAFETY: the session lives on the stack of `run_with` until the profiled closure and every
// join inside it have finished; it is only read, or updated through atomics.
unsafe impl Send for SessionRef {}

/// The totals of one closure's execution so far, and its open strand.
struct Acc {
    session: SessionRef,
    /// When the open strand started (ns since `EPOCH`).
    start: u64,
    work: u64,
    span: u64,
    bspan: u64,
    joins: u64,
    depth: u64,
    strands: u64,
    graph: TaskNode,
}

impl Acc {
    fn new(session: SessionRef) -> Acc {
        Acc {
            session,
            start: 0,
            work: 0,
            span: 0,
            bspan: 0,
            joins: 0,
            depth: 0,
            strands: 0,
            graph: TaskNode::new(),
        }
    }

    /// Not tied to the borrow of `self`: the session outlives every accumulator.
    fn session<'s>(&self) -> &'s Session {
        // SAFETY: see `SessionRef`.
        unsafe { &*self.session.0 }
    }

    /// Ends the open strand at `now`.
    fn close_strand(&mut self, now: u64) {
        let s = self.session();
        let d = now.saturating_sub(self.start).saturating_sub(s.timer_ns);
        let record = s.record;
        self.work += d;
        self.span += d;
        self.bspan += d;
        self.strands += 1;
        if record {
            let before = self.graph.size;
            self.graph.push_work(d);
            self.session()
                .live
                .fetch_add(self.graph.size - before, Relaxed);
        }
    }

    /// Adds a finished join of `a` and `b`.
    fn combine(&mut self, a: Acc, b: Acc) {
        let s = self.session();
        let burden = s.burden_ns;
        let record = s.record;
        self.work += a.work + b.work;
        self.span += a.span.max(b.span);
        self.bspan += burdened_join(a.bspan, b.bspan, burden);
        self.joins += 1 + a.joins + b.joins;
        self.depth += 1 + a.depth.max(b.depth);
        self.strands += a.strands + b.strands;
        if record {
            self.record_join(a.graph, b.graph);
        }
    }

    fn record_join(&mut self, a: TaskNode, b: TaskNode) {
        let s = self.session();
        // Relaxed (all three): counters and a threshold that only steer coarsening; any
        // value read gives a correct graph, only its size varies.
        let threshold = s.threshold.load(Relaxed);
        if a.work + b.work < threshold {
            s.live.fetch_sub(a.size + b.size, Relaxed);
            s.live.fetch_add(1, Relaxed);
            self.graph
                .push_chunk(a.work + b.work, a.span.max(b.span), 1 + a.joins + b.joins);
        } else {
            let live = s.live.fetch_add(1, Relaxed) + 1;
            self.graph.push_join(a, b);
            let trigger = s.trigger.load(Relaxed);
            if live > trigger
                && s.trigger
                    .compare_exchange(trigger, live + s.max_steps / 4, Relaxed, Relaxed)
                    .is_ok()
            {
                // Raise the threshold: from now on smaller subtrees are chunks. Subtrees
                // finished earlier stay until the end, when the whole graph is coarsened
                // with the final threshold; the next raise waits until the graph has grown
                // by another quarter of the bound, so one growth spurt raises it once.
                s.threshold.store((threshold * 2).max(1_000), Relaxed);
            }
        }
    }
}

thread_local! {
    /// The accumulator of the closure this thread is running inside a profile, or null.
    static CURRENT_ACC: Cell<*mut Acc> = const { Cell::new(ptr::null_mut()) };
}

static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Nanoseconds since the profiler's epoch.
#[inline]
fn now() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Restores the thread's previous accumulator, also when the closure unwinds.
struct RestoreAcc(*mut Acc);

impl Drop for RestoreAcc {
    fn drop(&mut self) {
        CURRENT_ACC.with(|c| c.set(self.0));
    }
}

/// Runs `f` as a closure of the profile: its strands are timed into a fresh accumulator,
/// which is returned with the result.
fn measured<R>(session: SessionRef, f: impl FnOnce() -> R) -> (R, Acc) {
    let mut acc = Acc::new(session);
    let p: *mut Acc = &mut acc;
    let restore = RestoreAcc(CURRENT_ACC.with(|c| c.replace(p)));
    // SAFETY (this block and the one below): `p` points to `acc` on this stack; every access
    // until `acc` is moved out goes through `p` (the thread-local copy is used only by joins
    // inside `f`, on this thread, while `f` runs).
    unsafe { (*p).start = now() };
    let r = f();
    let t = now();
    drop(restore);
    unsafe { (*p).close_strand(t) };
    (r, acc)
}

/// Runs a job taken from a queue outside any strand: its own joins open strands only if it
/// is a timed closure (a promoted join's second closure is one).
pub(crate) fn detached<R>(f: impl FnOnce() -> R) -> R {
    let _restore = RestoreAcc(CURRENT_ACC.with(|c| c.replace(ptr::null_mut())));
    f()
}

/// A join while a profile runs (called from `join_slow`).
///
/// # Safety
/// `worker` is the current thread's worker.
pub(crate) unsafe fn join<A, B, RA, RB>(worker: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let parent = CURRENT_ACC.with(Cell::get);
    if parent.is_null() {
        // A job that is not part of the profiled closure (or a scope's task): not timed.
        return join_unprofiled_slow(worker, a, b);
    }
    // SAFETY: a non-null accumulator belongs to the `measured` call that is running on this
    // thread below us; it outlives this join.
    (*parent).close_strand(now());
    let session = (*parent).session;
    let ((ra, acc_a), (rb, acc_b)) = join_unprofiled_slow(
        worker,
        move || measured(session, a),
        move || measured(session, b),
    );
    (*parent).combine(acc_a, acc_b);
    (*parent).start = now();
    (ra, rb)
}

/// The profiler's cost per strand on this thread: the mean measured duration of the empty
/// strands of an empty join tree, timed as a profile times them (best of five). Runs on a
/// worker; sets the pool's profiling flag for the duration if it is not set.
pub(crate) fn calibrate_timer() -> u64 {
    fn tree(depth: u32) {
        if depth > 0 {
            crate::join(|| tree(depth - 1), || tree(depth - 1));
        }
        black_box(());
    }
    let worker = Worker::current();
    assert!(!worker.is_null(), "calibrate_timer runs on a worker");
    // SAFETY: the current thread's worker.
    let registry = unsafe { (*worker).registry() };
    let _flag = ProfilingFlag::set(registry);
    let session = Session {
        timer_ns: 0,
        burden_ns: 0,
        record: false,
        threshold: AtomicU64::new(0),
        live: AtomicUsize::new(0),
        trigger: AtomicUsize::new(usize::MAX),
        max_steps: 0,
    };
    (0..5)
        .map(|_| {
            let ((), acc) = measured(SessionRef(&session), || tree(10));
            acc.work / acc.strands.max(1)
        })
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = crate::join(|| fib(n - 1), || fib(n - 2));
        a + b
    }

    fn fib_numbers() -> Vec<u64> {
        let mut f = vec![0u64, 1];
        for i in 2..40 {
            f.push(f[i - 1] + f[i - 2]);
        }
        f
    }

    #[test]
    fn fib_joins_and_depth_match_the_closed_forms() {
        let f = fib_numbers();
        for workers in [1, 2, 4] {
            let pool = Pool::new(workers).unwrap();
            for n in [2u64, 10, 18] {
                let (r, p) = run(&pool, || fib(n));
                assert_eq!(r, f[n as usize]);
                // Internal calls of fib(n): F(n+1) - 1; the deepest chain: n - 1 joins.
                assert_eq!(p.joins(), f[n as usize + 1] - 1, "n={n} workers={workers}");
                assert_eq!(p.span_joins(), n - 1, "n={n}");
                // Every join adds two strands to its parent's one.
                assert_eq!(p.strands(), 2 * p.joins() + 1 + p.joins(), "n={n}");
                assert!(p.span() <= p.work());
                let g = p.graph().unwrap();
                assert_eq!(g.joins, p.joins());
                assert_eq!((g.work, g.span), (p.work, p.span));
            }
        }
    }

    #[test]
    fn the_pool_is_unchanged_after_a_profile() {
        let pool = Pool::new(2).unwrap();
        let _ = run(&pool, || fib(12));
        assert!(!pool.registry().profiling());
        assert_eq!(pool.install(|| fib(20)), 6765);
        // A panic inside the profile clears the flag too.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(&pool, || crate::join(|| fib(5), || panic!("boom")))
        }));
        assert!(r.is_err());
        assert!(!pool.registry().profiling());
    }

    /// A tree of `leaves` leaves; leaf `slow` sleeps 3 ms (a strand the host preempted).
    fn tree_with_a_pause(leaves: usize, slow: usize) -> usize {
        if leaves == 1 {
            if slow == 0 {
                std::thread::sleep(Duration::from_millis(3));
            }
            return black_box(1);
        }
        let half = leaves / 2;
        let (a, b) = crate::join(
            || tree_with_a_pause(half, slow),
            || tree_with_a_pause(leaves - half, slow.wrapping_sub(half)),
        );
        a + b
    }

    #[test]
    fn combined_profiles_leave_out_a_strand_preempted_in_one() {
        let pool = Pool::new(1).unwrap();
        // Three profiles of the same run, each with a different leaf paused.
        let runs: Vec<Profile> = [3, 8, 13]
            .into_iter()
            .map(|slow| {
                let (r, p) = run(&pool, || tree_with_a_pause(16, slow));
                assert_eq!(r, 16);
                p
            })
            .collect();
        for p in &runs {
            assert!(p.span() >= Duration::from_millis(3), "{:?}", p.span());
        }
        let c = Profile::combine(&runs);
        assert_eq!(c.combined(), 3);
        assert_eq!((c.joins(), c.span_joins()), (15, 4));
        assert!(c.span() < Duration::from_millis(1), "span {:?}", c.span());
        assert!(c.work() < Duration::from_millis(1), "work {:?}", c.work());
        let g = c.graph().unwrap();
        assert_eq!((g.work, g.span), (c.work, c.span));
        assert!(c.burdened_span() >= c.span());
        // Not the same run (another shape): the least work, alone.
        let (_, small) = run(&pool, || fib(6));
        let c = Profile::combine(&[runs[0].clone(), small.clone()]);
        assert_eq!(
            (c.combined(), c.work, c.joins),
            (1, small.work, small.joins)
        );
    }

    #[test]
    fn the_graph_stays_under_its_bound() {
        let pool = Pool::new(2).unwrap();
        let options = Options {
            max_steps: 2_000,
            ..Options::default()
        };
        let (r, p) = run_with(&pool, &options, || fib(22));
        assert_eq!(r, 17711);
        let g = p.graph().unwrap();
        assert!(g.size() < 2_000 * 4, "size {}", g.size());
        assert!(p.chunk_threshold() > 0);
        assert_eq!(g.joins, p.joins());
        assert_eq!(g.work, p.work);
    }
}
