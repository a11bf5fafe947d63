//! The runtime's primitive costs on this machine, measured by small benchmarks of the real
//! runtime (ParJava's "tests run on the target machine"), saved and loaded as JSON.

use crate::pool::Pool;
use crate::registry::{Worker, HEARTBEAT};
use serde::{Deserialize, Serialize};
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
}

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
        }
    }

    /// What a steal costs the critical path in the burdened span (Cilkview's burden):
    /// sharing the task and the hand-over to a thief, charged once as the simulation
    /// charges it (`steal_ns` is measured from the push to the thief running the task).
    pub fn burden_ns(&self) -> f64 {
        self.promote_ns + self.steal_ns
    }

    /// Measures every cost on this machine with pools of one and two workers. Takes about
    /// a second; run it on an otherwise idle machine.
    pub fn measure() -> Costs {
        let one = Pool::new(1).expect("a pool of one worker");
        let two = Pool::new(2).expect("a pool of two workers");
        let join_ns = measure_join(&one);
        let promote_ns = measure_promote(&one);
        let steal_ns = (measure_handover(&two, Duration::ZERO) - promote_ns).max(0.0);
        let wake_ns =
            (measure_handover(&two, Duration::from_millis(3)) - promote_ns - steal_ns).max(0.0);
        Costs {
            join_ns,
            promote_ns,
            steal_ns,
            failed_steal_ns: measure_failed_steal(&two),
            wake_ns,
            submit_ns: measure_submit(&two),
            spin_ns: measure_spin(&two),
            heartbeat_ns: HEARTBEAT.as_nanos() as f64,
            timer_ns: one.install(super::calibrate_timer) as f64,
            machine: machine_name(),
        }
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
        let fields = [
            costs.join_ns,
            costs.promote_ns,
            costs.steal_ns,
            costs.failed_steal_ns,
            costs.wake_ns,
            costs.submit_ns,
            costs.spin_ns,
            costs.heartbeat_ns,
            costs.timer_ns,
        ];
        if fields.iter().any(|c| !c.is_finite() || *c < 0.0) {
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

/// The smallest of `runs` measurements of `f`, which returns a time in ns per operation.
fn best_of(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

/// The median of `runs` measurements (for latencies, where the minimum is an outlier).
fn median_of(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    let mut v: Vec<f64> = (0..runs).map(|_| f()).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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

/// The fast path, against the same code with `join` replaced by two plain calls of the same
/// closures (the sequential baseline's definition), in two join trees: one whose leaves
/// store (`black_box`), and Fibonacci forking at every call, whose leaves compute in
/// registers (Cilk-5's measure of its work overhead). What a join costs a program depends
/// on the code around it, which the extra instructions may or may not overlap: the first
/// tree reads -0.2 to -0.1 ns, Fibonacci 0.4 ns (the plain version keeps `n` in registers
/// and turns its second call into a loop), and in the suite fib without threshold pays
/// 0.05-0.3 ns and Lea's Integrate 0.4 ns. The mean of the two trees, 0.12-0.17 ns, is
/// charged (DESIGN.md, section 12). Against a hand-written `tree_seq(d - 1) + tree_seq(d -
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
    // Best of 9 each, taking turns so that all four see the same stretches of the host.
    let mut best = [f64::INFINITY; 4];
    for _ in 0..9 {
        for (&(f, arg, answer, joins), best) in trees.iter().zip(&mut best) {
            let t = Instant::now();
            assert_eq!(one.install(|| f(black_box(arg))), answer);
            *best = best.min(t.elapsed().as_nanos() as f64 / joins);
        }
    }
    let tree = best[0] - best[1];
    let fib = best[2] - best[3];
    ((tree + fib) / 2.0).max(0.0)
}

/// Pushing a task and taking it back, on a pool of one worker.
fn measure_promote(one: &Pool) -> f64 {
    const TASKS: usize = 20_000;
    best_of(7, || {
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
    })
}

/// From pushing a task to another worker running it, with `pause` of idleness before each
/// push (zero: the thief is still spinning; milliseconds: it has parked). A spinning
/// thief: the median of 5 means of 2,000 handovers. A parked one: the median of 75 single
/// handovers, because now and then a wake-up takes milliseconds (a virtual CPU that the
/// host is slow to run), and a mean would let a few of those decide the figure.
fn measure_handover(two: &Pool, pause: Duration) -> f64 {
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
    if pause.is_zero() {
        const ROUNDS: usize = 2_000;
        return median_of(5, || {
            two.install(|| (0..ROUNDS).map(|_| handover()).sum::<f64>() / ROUNDS as f64)
        });
    }
    let mut rounds = two.install(|| {
        (0..75)
            .map(|_| {
                std::thread::sleep(pause);
                handover()
            })
            .collect::<Vec<f64>>()
    });
    rounds.sort_by(f64::total_cmp);
    rounds[rounds.len() / 2]
}

/// A sweep over empty queues, as an idle worker makes it.
fn measure_failed_steal(two: &Pool) -> f64 {
    const SWEEPS: usize = 20_000;
    best_of(5, || {
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
    })
}

/// `submit` from this (outside) thread and `join`, back to back.
fn measure_submit(two: &Pool) -> f64 {
    const TASKS: usize = 2_000;
    median_of(5, || {
        let t = Instant::now();
        for i in 0..TASKS {
            assert_eq!(two.submit(move || i).join().ok(), Some(i));
        }
        t.elapsed().as_nanos() as f64 / TASKS as f64
    })
}

/// How long a worker that ran out of work searches before it parks: the time from the end
/// of a job until the pool's park count grows.
fn measure_spin(two: &Pool) -> f64 {
    median_of(5, || {
        std::thread::sleep(Duration::from_millis(5));
        let parks = two.stats().total.parks;
        let t = Instant::now();
        // Submitted, not installed: `install` from outside would run the job on this
        // thread in a parked worker's slot, and no worker would wake.
        let _ = two.submit(|| ()).join();
        let mut waited = t.elapsed();
        let deadline = Instant::now() + Duration::from_millis(200);
        while two.stats().total.parks == parks && Instant::now() < deadline {
            std::hint::spin_loop();
            waited = t.elapsed();
        }
        waited.as_nanos() as f64
    })
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
