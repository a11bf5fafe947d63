//! The scalability profiler and predictor for forkjoin.
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
//! let (answer, profile) = forkjoin_profile::run(&pool, || fib(20));
//! assert_eq!(answer, 6765);
//! assert_eq!(profile.joins(), 10945); // fib(21) - 1 internal calls
//! assert_eq!(profile.span_joins(), 19);
//! assert!(profile.parallelism() > 1.0);
//! let p = profile.predict(8, &forkjoin_profile::Costs::typical());
//! assert!(p.speedup <= p.speedup_upper * 1.0001);
//! ```

mod costs;
pub mod cpus;
mod sim;

pub use costs::{Costs, CostsError, Spread, MEASURED, MIN_ROUNDS, ROUNDS, UNSETTLED_FACTOR};
pub use forkjoin::instrument::{Step, TaskNode};
pub use sim::{Prediction, Waits};

use forkjoin::instrument::{burdened_join, measured, Profiling, Session};
use forkjoin::Pool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;
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
                    .saturating_sub(g.total_span()) as f64
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
    ///     .map(|_| forkjoin_profile::run(&pool, || forkjoin::join(leaf, leaf)).1)
    ///     .collect();
    /// let p = forkjoin_profile::Profile::combine(&runs);
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
            work: graph.total_work(),
            span: graph.total_span(),
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
            work: root.total_work(),
            span: root.total_span(),
            burdened_span: bspan,
            joins: root.total_joins(),
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
        self.predict_with(workers, costs, Waits::Isolated)
    }

    /// [`Profile::predict`] with the rule a waiting worker follows: [`Waits::Isolated`] is
    /// this runtime's; [`Waits::Anything`] (rayon's) against it shows what isolation costs.
    ///
    /// ```
    /// use forkjoin_profile::{Costs, Profile, TaskNode, Waits};
    /// // Three workers, no costs, every join shared at once. A's owner waits for A's second
    /// // half, taken by another worker, while B's thief shares B's second half: isolated,
    /// // the waiter may not take it, and it waits for A's thief.
    /// let leaf = |ns| TaskNode::new().work(ns);
    /// let a = TaskNode::new().join(leaf(10), leaf(1_000));
    /// let b = TaskNode::new().work(100).join(leaf(2_000), leaf(2_000));
    /// let p = Profile::from_graph(TaskNode::new().join(a, b), &Costs::zero());
    /// let ns = |waits| (p.predict_with(3, &Costs::zero(), waits).seconds * 1e9).round();
    /// assert_eq!(ns(Waits::Isolated), 3_000.0); // B's second half waits for A's thief
    /// assert_eq!(ns(Waits::Anything), 2_100.0);
    /// ```
    pub fn predict_with(&self, workers: usize, costs: &Costs, waits: Waits) -> Prediction {
        sim::predict(self, workers.max(1), costs, waits)
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
    /// let (_, p) = forkjoin_profile::run(&pool, || forkjoin::join(|| 1, || 2));
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

/// Burdened span and depth in joins of a hand-made graph.
fn burdened(node: &TaskNode, burden: u64) -> (u64, u64) {
    let (mut bspan, mut depth) = (0, 0);
    for step in node.steps() {
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
    let _flag = Profiling::start(pool);
    let workers = pool.num_threads();
    pool.install(move || {
        let timer_ns = calibrate_timer();
        let session = Session::new(
            timer_ns,
            options.costs.burden_ns() as u64,
            options.record_graph,
            options.max_steps,
        );
        let t0 = Instant::now();
        let (r, acc) = measured(&session, f);
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

/// The profiler's cost per strand on this worker (`forkjoin::instrument::strand_cost`).
pub(crate) fn calibrate_timer() -> u64 {
    forkjoin::instrument::strand_cost().expect("calibrate_timer runs on a worker")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
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
                assert_eq!(g.total_joins(), p.joins());
                assert_eq!((g.total_work(), g.total_span()), (p.work, p.span));
            }
        }
    }

    #[test]
    fn the_pool_is_unchanged_after_a_profile() {
        let pool = Pool::new(2).unwrap();
        let _ = run(&pool, || fib(12));
        assert!(!forkjoin::instrument::is_profiling(&pool));
        assert_eq!(pool.install(|| fib(20)), 6765);
        // A panic inside the profile clears the flag too.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(&pool, || forkjoin::join(|| fib(5), || panic!("boom")))
        }));
        assert!(r.is_err());
        assert!(!forkjoin::instrument::is_profiling(&pool));
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
        let (a, b) = forkjoin::join(
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
        assert_eq!((g.total_work(), g.total_span()), (c.work, c.span));
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
        assert_eq!(g.total_joins(), p.joins());
        assert_eq!(g.total_work(), p.work);
    }
}
