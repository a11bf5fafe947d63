//! The runtime's primitive costs on this machine, measured by small benchmarks of the real
//! runtime (ParJava's "tests run on the target machine"), saved and loaded as JSON.

use crate::pool::Pool;
use crate::registry::{Worker, HEARTBEAT};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The costs, in nanoseconds, that the simulator charges for the runtime's actions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    /// A join whose second closure is run inline by its owner (the fast path): the time
    /// above two plain calls.
    pub join_ns: f64,
    /// Sharing a join's second closure and taking it back (push, pop, bookkeeping).
    pub promote_ns: f64,
    /// From a task's push to a spinning idle worker running it.
    pub steal_ns: f64,
    /// One sweep over every queue that finds nothing.
    pub failed_steal_ns: f64,
    /// The extra latency when the idle worker is parked and must be woken.
    pub wake_ns: f64,
    /// An external submission from a thread outside the pool, run and joined.
    pub submit_ns: f64,
    /// How long an idle worker searches before it parks.
    pub spin_ns: f64,
    /// The heartbeat period: a busy worker shares work at most this long after a worker
    /// became idle (the runtime's constant, not measured). Zero models the seed design's
    /// eager sharing: every join's second closure is stealable at once.
    pub heartbeat_ns: f64,
    /// The profiler's own cost per strand, subtracted from every measured strand.
    pub timer_ns: f64,
    /// Where the figures were measured (host name and available cores), for the reader.
    #[serde(default)]
    pub machine: String,
    /// The spread of each measured cost, by field name (`"steal_ns"`): the 25th and 75th
    /// percentiles of its repetitions. Empty for costs not measured, and in files saved
    /// before calibrations kept it.
    #[serde(default)]
    pub spread: BTreeMap<String, Spread>,
    /// The measured costs (field names) whose repetitions spread wider than
    /// [`UNSETTLED_FACTOR`]: their figures are medians of repetitions that disagree.
    #[serde(default)]
    pub unsettled: Vec<String>,
}

/// Where a measured cost's repetitions lay: their 25th and 75th percentiles, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The 25th percentile.
    pub low: f64,
    /// The 75th percentile.
    pub high: f64,
}

/// A cost is unsettled when the 75th percentile of its repetitions exceeds this many times
/// the 25th plus one nanosecond (so that the sub-nanosecond join cost is not flagged for
/// its rounding).
pub const UNSETTLED_FACTOR: f64 = 2.0;

/// Added to the unsettled test's bound, for costs of a nanosecond or less (the join, a
/// difference of two nearly equal times, whose 25th percentile may be below zero).
const SLACK_NS: f64 = 1.0;

/// Rounds of [`Costs::measure`]: each takes one short repetition of every measurement.
pub const ROUNDS: usize = 21;

/// Single hand-overs to a spinning worker per round (after [`WARM_UP`] discarded ones).
const SPINNING_HANDOVERS: usize = 64;

/// Single hand-overs to a parked worker per round (each after 3 ms of idleness).
const PARKED_HANDOVERS: usize = 3;

/// Hand-overs per round that are not kept: the first finds the thief parked by the
/// previous measurement's pause.
const WARM_UP: usize = 4;

/// The field names of the measured costs, in the order of [`Costs::measured`].
pub const MEASURED: [&str; 8] = [
    "join_ns",
    "promote_ns",
    "steal_ns",
    "failed_steal_ns",
    "wake_ns",
    "submit_ns",
    "spin_ns",
    "timer_ns",
];

/// Why a costs file could not be loaded.
#[derive(Debug)]
pub enum CostsError {
    /// The file could not be read or written.
    #[allow(missing_docs)]
    Io { path: String, error: std::io::Error },
    /// The file is not a costs file.
    #[allow(missing_docs)]
    Malformed { path: String, error: String },
}

impl fmt::Display for CostsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostsError::Io { path, error } => write!(f, "cannot access costs file {path}: {error}"),
            CostsError::Malformed { path, error } => {
                write!(
                    f,
                    "{path} is not a forkjoin costs file (write one with `fj calibrate`): {error}"
                )
            }
        }
    }
}

impl std::error::Error for CostsError {}

impl Costs {
    /// All costs zero: the ideal machine of the work/span model.
    pub fn zero() -> Costs {
        Costs {
            join_ns: 0.0,
            promote_ns: 0.0,
            steal_ns: 0.0,
            failed_steal_ns: 0.0,
            wake_ns: 0.0,
            submit_ns: 0.0,
            spin_ns: 0.0,
            heartbeat_ns: 0.0,
            timer_ns: 0.0,
            machine: "ideal".into(),
            spread: BTreeMap::new(),
            unsettled: Vec::new(),
        }
    }

    /// Figures typical of a current x86-64 machine, for when nothing was measured.
    pub fn typical() -> Costs {
        Costs {
            join_ns: 3.0,
            promote_ns: 60.0,
            steal_ns: 400.0,
            failed_steal_ns: 60.0,
            wake_ns: 20_000.0,
            submit_ns: 3_000.0,
            spin_ns: 50_000.0,
            heartbeat_ns: HEARTBEAT.as_nanos() as f64,
            timer_ns: 25.0,
            machine: "typical (not measured)".into(),
            spread: BTreeMap::new(),
            unsettled: Vec::new(),
        }
    }

    /// What a steal costs the critical path in the burdened span (Cilkview's burden):
    /// sharing the task and the hand-over to a thief, charged once as the simulation
    /// charges it (`steal_ns` is measured from the push to the thief running the task).
    pub fn burden_ns(&self) -> f64 {
        self.promote_ns + self.steal_ns
    }

    /// The measured costs' current values, in the order of [`MEASURED`].
    pub fn measured(&self) -> [f64; 8] {
        [
            self.join_ns,
            self.promote_ns,
            self.steal_ns,
            self.failed_steal_ns,
            self.wake_ns,
            self.submit_ns,
            self.spin_ns,
            self.timer_ns,
        ]
    }

    fn measured_mut(&mut self) -> [&mut f64; 8] {
        [
            &mut self.join_ns,
            &mut self.promote_ns,
            &mut self.steal_ns,
            &mut self.failed_steal_ns,
            &mut self.wake_ns,
            &mut self.submit_ns,
            &mut self.spin_ns,
            &mut self.timer_ns,
        ]
    }

    /// These costs with every cost that has a spread at the low end of it (its 25th
    /// percentile); the others as they are. Without a spread (an old file), a copy.
    pub fn low_end(&self) -> Costs {
        self.at_end(|s| s.low)
    }

    /// These costs with every cost that has a spread at the high end of it (its 75th
    /// percentile).
    pub fn high_end(&self) -> Costs {
        self.at_end(|s| s.high)
    }

    fn at_end(&self, end: impl Fn(&Spread) -> f64) -> Costs {
        let mut out = self.clone();
        for (name, cost) in MEASURED.iter().zip(out.measured_mut()) {
            if let Some(s) = self.spread.get(*name) {
                *cost = end(s);
            }
        }
        out
    }

    /// Measures every cost on this machine with pools of one and two workers, in
    /// [`ROUNDS`] rounds that each take a short repetition of every measurement in turn
    /// (about a second in all), so that a stretch in which the host runs something else
    /// disturbs a few repetitions of every cost rather than every repetition of one.
    ///
    /// Each cost is the **median** of its repetitions, and its spread
    /// ([`Costs::spread`]) their 25th and 75th percentiles. The median, not the mean of the
    /// fastest half: both ignore up to half the repetitions being slowed by the host, but
    /// three of the costs are latencies with a spread of their own (a hand-over, a
    /// wake-up, the search before parking), and the simulator charges a typical one
    /// (jittered by +-25%); the fastest half's mean would charge the lucky ones. One
    /// statistic for every cost keeps their spreads comparable. Costs derived by
    /// subtraction (the steal is a hand-over less the promotion, the wake-up a hand-over
    /// to a parked worker less both) subtract the medians from each end of the spread.
    ///
    /// A cost whose repetitions spread wider than [`UNSETTLED_FACTOR`] (its 75th
    /// percentile above that many times its 25th, plus 1 ns for the sub-nanosecond join)
    /// is named in [`Costs::unsettled`]: its median is saved, but it was not pinned down.
    pub fn measure() -> Costs {
        let one = Pool::new(1).expect("a pool of one worker");
        let two = Pool::new(2).expect("a pool of two workers");
        let mut s = Repetitions::default();
        for _ in 0..ROUNDS {
            s.join.push(measure_join(&one));
            s.promote.push(measure_promote(&one));
            s.spinning
                .extend(measure_handovers(&two, Duration::ZERO, SPINNING_HANDOVERS));
            s.parked.extend(measure_handovers(
                &two,
                Duration::from_millis(3),
                PARKED_HANDOVERS,
            ));
            s.failed.push(measure_failed_steal(&two));
            s.submit.push(measure_submit(&two));
            s.spin.push(measure_spin(&two));
            s.timer.push(one.install(super::calibrate_timer) as f64);
        }
        s.costs()
    }

    /// The costs as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("costs serialise")
    }

    /// Parses costs from JSON; `origin` names the source in the error.
    pub fn from_json(json: &str, origin: &str) -> Result<Costs, CostsError> {
        let costs: Costs = serde_json::from_str(json).map_err(|e| CostsError::Malformed {
            path: origin.into(),
            error: e.to_string(),
        })?;
        let spreads = costs.spread.values().flat_map(|s| [s.low, s.high]);
        let mut fields = costs.measured().into_iter().chain([costs.heartbeat_ns]);
        if fields.any(|c| !c.is_finite() || c < 0.0)
            || spreads.clone().any(|c| !c.is_finite() || c < 0.0)
        {
            return Err(CostsError::Malformed {
                path: origin.into(),
                error: "a cost is negative or not finite".into(),
            });
        }
        Ok(costs)
    }

    /// Writes the costs to `path` as JSON.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), CostsError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_json() + "\n").map_err(|error| CostsError::Io {
            path: path.display().to_string(),
            error,
        })
    }

    /// Reads costs written by [`Costs::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<Costs, CostsError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| CostsError::Io {
            path: path.display().to_string(),
            error,
        })?;
        Costs::from_json(&text, &path.display().to_string())
    }
}

fn machine_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!("{} ({cores} cores)", host.trim())
}

/// The repetitions of every measurement, as [`Costs::measure`] collects them (ns).
#[derive(Default)]
struct Repetitions {
    join: Vec<f64>,
    promote: Vec<f64>,
    /// Hand-overs to a spinning worker, whole.
    spinning: Vec<f64>,
    /// Hand-overs to a parked worker, whole.
    parked: Vec<f64>,
    failed: Vec<f64>,
    submit: Vec<f64>,
    spin: Vec<f64>,
    timer: Vec<f64>,
}

impl Repetitions {
    /// Each cost's median and spread, the unsettled ones named.
    fn costs(self) -> Costs {
        let promote = Quartiles::of(self.promote);
        let handover = Quartiles::of(self.spinning);
        let steal = handover.less(promote.median);
        let parked = Quartiles::of(self.parked);
        let wake = parked.less(promote.median + steal.median);
        // Each cost as saved, and the repetitions it is judged by: a derived cost by the
        // hand-overs it comes from (a small difference of two spreads says little).
        let costs = [
            (Quartiles::of(self.join), None),
            (promote, None),
            (steal, Some(handover)),
            (Quartiles::of(self.failed), None),
            (wake, Some(parked)),
            (Quartiles::of(self.submit), None),
            (Quartiles::of(self.spin), None),
            (Quartiles::of(self.timer), None),
        ];
        let (mut spread, mut unsettled) = (BTreeMap::new(), Vec::new());
        let mut medians = [0.0; 8];
        for ((name, median), (q, judged_by)) in MEASURED.iter().zip(&mut medians).zip(costs) {
            *median = q.median.max(0.0);
            let (low, high) = (q.low.max(0.0), q.high.max(0.0));
            spread.insert(name.to_string(), Spread { low, high });
            if judged_by.unwrap_or(q).unsettled() {
                unsettled.push(name.to_string());
            }
        }
        let mut out = Costs {
            heartbeat_ns: HEARTBEAT.as_nanos() as f64,
            machine: machine_name(),
            spread,
            unsettled,
            ..Costs::zero()
        };
        for (slot, median) in out.measured_mut().into_iter().zip(medians) {
            *slot = median;
        }
        out
    }
}

/// The 25th, 50th and 75th percentiles of some repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Quartiles {
    low: f64,
    median: f64,
    high: f64,
}

impl Quartiles {
    /// The percentiles of `v` (linear between the nearest ranks); zeros if `v` is empty.
    fn of(mut v: Vec<f64>) -> Quartiles {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            if v.is_empty() {
                return 0.0;
            }
            let x = q * (v.len() - 1) as f64;
            let (i, frac) = (x.floor() as usize, x.fract());
            let next = v[(i + 1).min(v.len() - 1)];
            v[i] + (next - v[i]) * frac
        };
        Quartiles {
            low: at(0.25),
            median: at(0.5),
            high: at(0.75),
        }
    }

    /// Each percentile less `x`.
    fn less(self, x: f64) -> Quartiles {
        Quartiles {
            low: self.low - x,
            median: self.median - x,
            high: self.high - x,
        }
    }

    /// The 75th percentile above [`UNSETTLED_FACTOR`] times the 25th (plus [`SLACK_NS`]).
    fn unsettled(&self) -> bool {
        self.high > UNSETTLED_FACTOR * self.low.max(0.0) + SLACK_NS
    }
}

fn tree_fj(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    let (a, b) = crate::join(|| tree_fj(depth - 1), || tree_fj(depth - 1));
    a + b
}

/// `join` replaced by two plain calls of the same closures, as the benchmark suite's
/// sequential versions are written.
#[inline]
fn plain<RA, RB>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB) -> (RA, RB) {
    (a(), b())
}

fn tree_seq(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    let (a, b) = plain(|| tree_seq(depth - 1), || tree_seq(depth - 1));
    a + b
}

fn fib_fj(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = crate::join(|| fib_fj(n - 1), || fib_fj(n - 2));
    a + b
}

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = plain(|| fib_seq(n - 1), || fib_seq(n - 2));
    a + b
}

/// One repetition of the fast path, against the same code with `join` replaced by two plain calls of the same
/// closures (the sequential baseline's definition), in two join trees: one whose leaves
/// store (`black_box`), and Fibonacci forking at every call, whose leaves compute in
/// registers (Cilk-5's measure of its work overhead). What a join costs a program depends
/// on the code around it, which the extra instructions may or may not overlap: the first
/// tree reads -0.2 to -0.1 ns, Fibonacci 0.4 ns (the plain version keeps `n` in registers
/// and turns its second call into a loop), and in the suite fib without threshold pays
/// 0.05-0.3 ns and Lea's Integrate 0.4 ns. The mean of the two trees, 0.12-0.17 ns, is
/// charged (its median over the rounds) (DESIGN.md, section 12). Against a hand-written `tree_seq(d - 1) + tree_seq(d -
/// 1)`, which LLVM compiles differently, a join had seemed to cost 0.8-1.1 ns.
fn measure_join(one: &Pool) -> f64 {
    const DEPTH: u32 = 18;
    const FIB_N: u32 = 27;
    // Each tree's function, argument, answer and joins (fib: every call with n >= 2, that is
    // fib(N + 1) - 1), the forking version before its plain one.
    let trees = [
        (
            tree_fj as fn(u32) -> u64,
            DEPTH,
            1 << DEPTH,
            ((1u64 << DEPTH) - 1) as f64,
        ),
        (tree_seq, DEPTH, 1 << DEPTH, ((1u64 << DEPTH) - 1) as f64),
        (fib_fj, FIB_N, 196_418, 317_810.0),
        (fib_seq, FIB_N, 196_418, 317_810.0),
    ];
    // One run of each, the forking version beside its plain one, so that both see the
    // same stretch of the host.
    let mut ns = [0.0; 4];
    for (&(f, arg, answer, joins), ns) in trees.iter().zip(&mut ns) {
        let t = Instant::now();
        assert_eq!(one.install(|| f(black_box(arg))), answer);
        *ns = t.elapsed().as_nanos() as f64 / joins;
    }
    let tree = ns[0] - ns[1];
    let fib = ns[2] - ns[3];
    (tree + fib) / 2.0
}

/// Pushing a task and taking it back, on a pool of one worker: the mean of a scope of
/// tasks.
fn measure_promote(one: &Pool) -> f64 {
    const TASKS: usize = 5_000;
    one.install(|| {
        let t = Instant::now();
        crate::scope(|s| {
            for _ in 0..TASKS {
                s.spawn(|_| {
                    black_box(());
                });
            }
        });
        t.elapsed().as_nanos() as f64 / TASKS as f64
    })
}

/// `count` single hand-overs from pushing a task to another worker running it, with
/// `pause` of idleness before each push (zero: the thief is still spinning; milliseconds:
/// it has parked). Single ones, not a mean: now and then one takes milliseconds (a virtual
/// CPU that the host is slow to run), and the median of the repetitions leaves those out
/// where a mean would let a few of them decide the figure.
fn measure_handovers(two: &Pool, pause: Duration, count: usize) -> Vec<f64> {
    let handover = || {
        let started = AtomicBool::new(false);
        let t = Instant::now();
        crate::scope(|s| {
            s.spawn(|_| started.store(true, Ordering::Release));
            // Wait without taking our own deque: the other worker must steal it. Yield
            // after a while, as a joining worker does (`Worker::idle_until`): Linux may
            // wake the thief on this very CPU, where a spinning waiter would keep it off
            // until the next tick (observed: 1-5 ms instead of 5-20 us).
            let mut spins = 0u32;
            while !started.load(Ordering::Acquire) {
                spins += 1;
                if spins < 4_096 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        });
        t.elapsed().as_nanos() as f64
    };
    two.install(|| {
        if pause.is_zero() {
            (0..count + WARM_UP)
                .map(|_| handover())
                .skip(WARM_UP)
                .collect()
        } else {
            (0..count)
                .map(|_| {
                    std::thread::sleep(pause);
                    handover()
                })
                .collect()
        }
    })
}

/// A sweep over empty queues, as an idle worker makes it: the mean of a few thousand.
fn measure_failed_steal(two: &Pool) -> f64 {
    const SWEEPS: usize = 5_000;
    two.install(|| {
        // SAFETY: inside `install` this thread is a worker of `two`.
        let worker = unsafe { &*Worker::current() };
        let t = Instant::now();
        for _ in 0..SWEEPS {
            if let Some(job) = worker.find_work(None) {
                // SAFETY: on this worker's thread; the job was taken from a queue.
                unsafe { worker.execute(job) };
            }
        }
        t.elapsed().as_nanos() as f64 / SWEEPS as f64
    })
}

/// `submit` from this (outside) thread and `join`, back to back: the mean of a few hundred.
fn measure_submit(two: &Pool) -> f64 {
    const TASKS: usize = 200;
    let t = Instant::now();
    for i in 0..TASKS {
        assert_eq!(two.submit(move || i).join().ok(), Some(i));
    }
    t.elapsed().as_nanos() as f64 / TASKS as f64
}

/// How long a worker that ran out of work searches before it parks: the time from the end
/// of a job until the pool's park count grows (once).
fn measure_spin(two: &Pool) -> f64 {
    std::thread::sleep(Duration::from_millis(5));
    let parks = two.stats().total.parks;
    let t = Instant::now();
    // Submitted, not installed: `install` from outside would run the job on this thread in
    // a parked worker's slot, and no worker would wake.
    let _ = two.submit(|| ()).join();
    let mut waited = t.elapsed();
    let deadline = Instant::now() + Duration::from_millis(200);
    while two.stats().total.parks == parks && Instant::now() < deadline {
        std::hint::spin_loop();
        waited = t.elapsed();
    }
    waited.as_nanos() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let mut c = Costs::typical();
        c.join_ns = 1.25;
        let back = Costs::from_json(&c.to_json(), "test").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn quartiles_interpolate_between_ranks() {
        let q = Quartiles::of(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(
            q,
            Quartiles {
                low: 2.0,
                median: 3.0,
                high: 4.0
            }
        );
        let q = Quartiles::of(vec![4.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            q,
            Quartiles {
                low: 1.75,
                median: 2.5,
                high: 3.25
            }
        );
        let q = Quartiles::of(vec![]);
        assert_eq!(
            q,
            Quartiles {
                low: 0.0,
                median: 0.0,
                high: 0.0
            }
        );
    }

    #[test]
    fn a_cost_is_unsettled_when_its_quartiles_differ_more_than_twice() {
        let q = |low, high| Quartiles {
            low,
            median: low,
            high,
        };
        assert!(!q(10.0, 21.0).unsettled());
        assert!(q(10.0, 21.5).unsettled());
        // The join: around zero, judged against the 1 ns slack.
        assert!(!q(-0.3, 1.0).unsettled());
        assert!(q(-0.3, 1.1).unsettled());
    }

    /// Repetitions whose medians, spreads and verdicts are worked out by hand.
    fn hand_made() -> Repetitions {
        let v = |x: &[f64]| x.to_vec();
        Repetitions {
            join: v(&[0.1, 0.2, 0.3, 0.4, 0.5]),
            promote: v(&[50.0, 60.0, 70.0]),
            // Hand-overs: median 1060, so the steal is 1000 (60 of promotion).
            spinning: v(&[900.0, 1_000.0, 1_060.0, 1_100.0, 1_200.0]),
            // To a parked worker: median 21060, the wake-up 20000; wide, so unsettled.
            parked: v(&[5_000.0, 10_000.0, 21_060.0, 40_000.0, 90_000.0]),
            failed: v(&[40.0, 40.0, 40.0]),
            submit: v(&[3_000.0, 3_100.0, 3_200.0]),
            spin: v(&[1e3, 1e3, 50e3, 4e6, 4e6]),
            timer: v(&[25.0, 26.0, 27.0]),
        }
    }

    #[test]
    fn measured_costs_are_medians_with_their_spread() {
        let c = hand_made().costs();
        assert_eq!(
            c.measured(),
            [0.3, 60.0, 1_000.0, 40.0, 20_000.0, 3_100.0, 50e3, 26.0]
        );
        assert_eq!(
            c.spread["promote_ns"],
            Spread {
                low: 55.0,
                high: 65.0
            }
        );
        // The steal's spread is the hand-overs' less the promotion's median.
        assert_eq!(
            c.spread["steal_ns"],
            Spread {
                low: 940.0,
                high: 1_040.0
            }
        );
        assert_eq!(
            c.spread["wake_ns"],
            Spread {
                low: 8_940.0,
                high: 38_940.0
            }
        );
        assert_eq!(
            c.spread["spin_ns"],
            Spread {
                low: 1e3,
                high: 4e6
            }
        );
        assert_eq!(c.unsettled, ["wake_ns", "spin_ns"]);
        assert_eq!(c.spread.len(), MEASURED.len());
        // The ends of the spread, for predictions over it.
        let (lo, hi) = (c.low_end(), c.high_end());
        assert_eq!((lo.steal_ns, hi.steal_ns), (940.0, 1_040.0));
        assert_eq!((lo.spin_ns, hi.spin_ns), (1e3, 4e6));
        assert_eq!(lo.heartbeat_ns, c.heartbeat_ns);
        // Saved and read back, with the spread and the verdicts.
        assert_eq!(Costs::from_json(&c.to_json(), "t").unwrap(), c);
        let json = c.to_json();
        assert!(
            json.contains("\"unsettled\": [\n    \"wake_ns\",\n    \"spin_ns\"\n  ]"),
            "{json}"
        );
    }

    #[test]
    fn a_file_without_spread_still_loads() {
        let mut json: serde_json::Value =
            serde_json::from_str(&Costs::typical().to_json()).unwrap();
        let map = json.as_object_mut().unwrap();
        map.remove("spread");
        map.remove("unsettled");
        let c = Costs::from_json(&json.to_string(), "old.json").unwrap();
        assert_eq!(c, Costs::typical());
        assert!(c.spread.is_empty() && c.unsettled.is_empty());
        assert_eq!(c.low_end(), c);
        assert_eq!(c.high_end(), c);
    }

    #[test]
    fn malformed_json_is_a_clear_error() {
        let e = Costs::from_json("{\"join_ns\": 1}", "costs.json").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("costs.json is not a forkjoin costs file"),
            "{msg}"
        );
        let e =
            Costs::from_json(&Costs::typical().to_json().replace("3.0", "-3.0"), "x").unwrap_err();
        assert!(e.to_string().contains("negative"), "{e}");
        let e = Costs::load("/nonexistent/costs.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot access costs file /nonexistent/costs.json"),
            "{e}"
        );
    }
}
