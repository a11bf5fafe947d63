//! Submit: external submission throughput, the benchmark of the RebelLabs article on Java 8's
//! Fork-Join (after its `FJPBenchmark`).
//!
//! `N` groups of three tasks, Sin, Cos and Tan, each on its own argument, are submitted to
//! a pool from a thread outside it; Sin and Cos compute one function, Tan forks a Sin and a
//! Cos with `join` and divides. The submitter then waits for every task and sums the
//! results in reverse submission order, as the article's benchmark joins its reversed task
//! list. The arguments are the article's: `java.util.Random` seeded with 0x32106234567,
//! three `nextDouble()` per group. The sequential version computes the same tasks directly
//! on the calling thread (the article's `computeDirectly`). A run forks `4 N` tasks:
//! `3 N` submissions and `N` joins.
//!
//! External submission needs a pool that the submitting thread is not part of. The
//! harness calls `run` on a worker of its own pool, so the workload keeps a pool of its own
//! per runtime and worker count, with as many threads as the harness's pool (made on the
//! first run at that count, which is a warm-up run, so no timed run starts threads), and submits
//! to it from the calling thread. To the workload's pool that thread is as external as the
//! article's benchmark thread: both runtimes tell pools apart, not just workers from other
//! threads. Forkjoin's `Pool::submit` pushes onto the caller's deque only when the caller is
//! a worker of that very pool, else into a submission queue, and `Task::join` from outside
//! the task's pool blocks without running anything; rayon's `Scope::spawn` from outside the
//! scope's pool goes through the pool's injector queue. The idle harness pool only sleeps
//! meanwhile. (A plain thread started per run would add a thread start and exit, tens to
//! hundreds of microseconds, to runs of a millisecond or less.)
//!
//! Forkjoin submits with `Pool::submit` and joins each `Task` in reverse order. Rayon has
//! no task handles: its idiomatic way to submit from outside and wait is
//! `ThreadPool::in_place_scope` with `Scope::spawn`, which returns once every job is done;
//! each job writes its own result slot, summed afterwards in reverse order. Chili has no
//! external submission, so it is not supported.
//!
//! Programs `submit-200`, `submit-400`, `submit-800` and `submit-1600` cover the article's
//! `N`; their `Test` size is `N = 200`. Every sum is checked against the direct sum.

use super::{Ctx, Program, Size, Workload};
use crate::join::{Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "submit-200",
            about:
                "200 Sin/Cos/Tan task groups submitted from outside the pool (Java 8 FJ article)",
            make: |size| Box::new(Submit::new(200, size)),
        },
        Program {
            name: "submit-400",
            about:
                "400 Sin/Cos/Tan task groups submitted from outside the pool (Java 8 FJ article)",
            make: |size| Box::new(Submit::new(400, size)),
        },
        Program {
            name: "submit-800",
            about:
                "800 Sin/Cos/Tan task groups submitted from outside the pool (Java 8 FJ article)",
            make: |size| Box::new(Submit::new(800, size)),
        },
        Program {
            name: "submit-1600",
            about:
                "1600 Sin/Cos/Tan task groups submitted from outside the pool (Java 8 FJ article)",
            make: |size| Box::new(Submit::new(1600, size)),
        },
    ]
}

/// The seed of the article's `java.util.Random`.
const SEED: u64 = 0x321_0623_4567;

/// The `N` of the `Test` size.
const TEST_GROUPS: usize = 200;

/// Relative difference allowed between a run's sum and the direct sum. Every version
/// computes the same values and adds them in the same order, so they agree exactly unless
/// a runtime loses or repeats a task; the tolerance only spares a future change of
/// summation order.
const TOLERANCE: f64 = 1e-12;

/// `java.util.Random`: a 48-bit linear congruential generator.
struct JavaRandom(u64);

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> JavaRandom {
        JavaRandom((seed ^ Self::MULTIPLIER) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.0 = (self.0.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        self.0 >> (48 - bits)
    }

    fn next_double(&mut self) -> f64 {
        ((self.next(26) << 27) + self.next(27)) as f64 / (1u64 << 53) as f64
    }
}

/// The three kinds of task; task `i` of the submission order is `KINDS[i % 3]`.
#[derive(Clone, Copy)]
enum Kind {
    Sin,
    Cos,
    Tan,
}

const KINDS: [Kind; 3] = [Kind::Sin, Kind::Cos, Kind::Tan];

/// One task's computation; Tan forks its Sin and Cos.
fn compute<J: Join>(j: &mut J, kind: Kind, x: f64) -> f64 {
    match kind {
        Kind::Sin => x.sin(),
        Kind::Cos => x.cos(),
        Kind::Tan => {
            let (sin, cos) = j.join(move |_| x.sin(), move |_| x.cos());
            sin / cos
        }
    }
}

/// The results' sum in reverse submission order.
fn reverse_sum(results: impl DoubleEndedIterator<Item = f64>) -> f64 {
    results.rev().fold(0.0, |sum, r| sum + r)
}

/// Computes every task directly on this thread.
fn direct(args: &[f64]) -> f64 {
    reverse_sum(
        args.iter()
            .enumerate()
            .map(|(i, &x)| compute(&mut Seq, KINDS[i % 3], x)),
    )
}

/// Submits every task to `pool` from this thread, then joins them in reverse order.
fn submit_forkjoin(pool: &forkjoin::Pool, args: &[f64]) -> Result<f64, String> {
    let tasks: Vec<forkjoin::Task<f64>> = args
        .iter()
        .enumerate()
        .map(|(i, &x)| pool.submit(move || compute(&mut Fj, KINDS[i % 3], x)))
        .collect();
    let mut sum = 0.0;
    for (i, task) in tasks.into_iter().enumerate().rev() {
        sum += task
            .join()
            .map_err(|e| format!("forkjoin task {i} panicked: {e:?}"))?;
    }
    Ok(sum)
}

/// Spawns every task into `pool` from this thread, waits for all of them, and sums their
/// results in reverse order. A panicking task makes this an error.
fn submit_rayon(pool: &rayon::ThreadPool, args: &[f64]) -> Result<f64, String> {
    let mut results = vec![0.0; args.len()];
    // The results are plain numbers: a panic leaves nothing half-updated that is used after.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.in_place_scope(|s| {
            for (i, (slot, &x)) in results.iter_mut().zip(args).enumerate() {
                s.spawn(move |_| *slot = compute(&mut Rayon, KINDS[i % 3], x));
            }
        })
    }))
    .map_err(|_| "a rayon task panicked".to_string())?;
    Ok(reverse_sum(results.into_iter()))
}

struct Submit {
    groups: usize,
    /// The tasks' arguments in submission order: Sin, Cos, Tan of group 0, then group 1...
    args: Vec<f64>,
    /// The direct sum.
    expected: f64,
    found: Option<Result<f64, String>>,
    forkjoin_pools: OwnPools<forkjoin::Pool>,
    rayon_pools: OwnPools<rayon::ThreadPool>,
}

impl Submit {
    fn new(groups: usize, size: Size) -> Submit {
        let groups = if size == Size::Test {
            TEST_GROUPS
        } else {
            groups
        };
        let mut random = JavaRandom::new(SEED);
        let args: Vec<f64> = (0..3 * groups).map(|_| random.next_double()).collect();
        let expected = direct(&args);
        Submit {
            groups,
            args,
            expected,
            found: None,
            forkjoin_pools: OwnPools::new(),
            rayon_pools: OwnPools::new(),
        }
    }
}

/// The workload's own pools of one runtime, one per worker count, each made on the first
/// run at its count and kept: the harness interleaves its worker counts run by run, and a
/// pool remade at every switch would put a pool start into every timed run.
struct OwnPools<P>(Vec<(usize, P)>);

impl<P> OwnPools<P> {
    fn new() -> Self {
        OwnPools(Vec::new())
    }

    /// The pool with `threads` workers, made by `make` if there is none yet.
    fn get(
        &mut self,
        threads: usize,
        make: impl FnOnce() -> Result<P, String>,
    ) -> Result<&P, String> {
        let at = match self.0.iter().position(|(t, _)| *t == threads) {
            Some(at) => at,
            None => {
                self.0.push((threads, make()?));
                self.0.len() - 1
            }
        };
        Ok(&self.0[at].1)
    }
}

/// The workload's own forkjoin pool with as many workers as the pool the harness installed.
fn own_forkjoin_pool(pools: &mut OwnPools<forkjoin::Pool>) -> Result<&forkjoin::Pool, String> {
    let threads = forkjoin::current_num_threads();
    pools.get(threads, || {
        forkjoin::Pool::builder()
            .threads(threads)
            .thread_name(|i| format!("submit-forkjoin-{i}"))
            .build()
            .map_err(|e| format!("forkjoin pool: {e}"))
    })
}

/// The workload's own rayon pool, as `own_forkjoin_pool`.
fn own_rayon_pool(pools: &mut OwnPools<rayon::ThreadPool>) -> Result<&rayon::ThreadPool, String> {
    let threads = rayon::current_num_threads();
    pools.get(threads, || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("submit-rayon-{i}"))
            .build()
            .map_err(|e| format!("rayon pool: {e}"))
    })
}

impl Workload for Submit {
    fn reset(&mut self) {
        self.found = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let args = &self.args;
        self.found = Some(match ctx {
            Ctx::Sequential => Ok(direct(args)),
            Ctx::Forkjoin => {
                own_forkjoin_pool(&mut self.forkjoin_pools).and_then(|p| submit_forkjoin(p, args))
            }
            Ctx::Rayon => own_rayon_pool(&mut self.rayon_pools).and_then(|p| submit_rayon(p, args)),
            Ctx::Chili(_) => {
                Err("submit does not support chili (no external submission)".to_string())
            }
            Ctx::Split(_) => Err(
                "submit has no join tree to split (it submits from outside the pool)".to_string(),
            ),
        });
    }

    fn verify(&self) -> Result<(), String> {
        match &self.found {
            None => Err("no run to verify".to_string()),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(sum)) if (sum - self.expected).abs() <= TOLERANCE * self.expected.abs() => {
                Ok(())
            }
            Some(Ok(sum)) => Err(format!(
                "{} groups: expected the direct sum {}, found {sum}",
                self.groups, self.expected
            )),
        }
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(4 * self.groups as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::run_on;
    use super::super::Runtime;
    use super::*;

    #[test]
    fn test_size_every_runtime() {
        for program in programs() {
            let mut w = (program.make)(Size::Test);
            assert!(!w.supports(Runtime::Chili));
            for rt in [Runtime::Sequential, Runtime::Forkjoin, Runtime::Rayon] {
                // Twice: the second run reuses the workload's pool.
                for round in 0..2 {
                    run_on(&mut *w, rt).unwrap_or_else(|e| {
                        panic!("{} {} run {round}: {e}", program.name, rt.name())
                    });
                }
            }
            assert_eq!(w.tasks_per_run(), Some(4 * TEST_GROUPS as u64));
        }
    }

    /// Every kept pool has the worker count it is kept under, and the newest has `threads`.
    fn assert_newest_pool<P>(pools: &OwnPools<P>, threads: usize, count: impl Fn(&P) -> usize) {
        for (t, p) in &pools.0 {
            assert_eq!(count(p), *t);
        }
        assert_eq!(pools.0.last().map(|(t, _)| *t), Some(threads));
    }

    #[test]
    fn pools_follow_the_harness_thread_count() {
        let mut w = Submit::new(400, Size::Default);
        for threads in [1, 3, 2] {
            forkjoin::Pool::new(threads)
                .unwrap()
                .install(|| w.run(&mut Ctx::Forkjoin));
            w.verify().unwrap();
            assert_newest_pool(&w.forkjoin_pools, threads, forkjoin::Pool::num_threads);
            let rayon = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            rayon.install(|| w.run(&mut Ctx::Rayon));
            w.verify().unwrap();
            assert_newest_pool(&w.rayon_pools, threads, |p| p.current_num_threads());
        }
        // Back at a count seen before: that pool is reused, none is added.
        forkjoin::Pool::new(1)
            .unwrap()
            .install(|| w.run(&mut Ctx::Forkjoin));
        w.verify().unwrap();
        assert_eq!(w.forkjoin_pools.0.len(), 3);
    }

    /// What the design relies on: submitted from a worker of the harness's pool, the jobs
    /// run on the workload's own pool.
    #[test]
    fn submissions_run_on_the_workload_pool() {
        let name = || std::thread::current().name().unwrap_or("").to_string();
        let harness = forkjoin::Pool::new(2).unwrap();
        let mut slot = OwnPools::new();
        let names: Vec<String> = harness.install(|| {
            let pool = own_forkjoin_pool(&mut slot).unwrap();
            let tasks: Vec<_> = (0..16).map(|_| pool.submit(name)).collect();
            tasks.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(
            names.iter().all(|n| n.starts_with("submit-forkjoin-")),
            "{names:?}"
        );

        let harness = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut slot = OwnPools::new();
        let mut names = vec![String::new(); 16];
        harness.install(|| {
            own_rayon_pool(&mut slot).unwrap().in_place_scope(|s| {
                for n in names.iter_mut() {
                    s.spawn(move |_| *n = name());
                }
            })
        });
        assert!(
            names.iter().all(|n| n.starts_with("submit-rayon-")),
            "{names:?}"
        );
    }

    #[test]
    fn wrong_answer_fails() {
        let mut w = Submit::new(200, Size::Test);
        assert!(w.verify().is_err(), "verify before any run");
        w.found = Some(Ok(w.expected * (1.0 + 1e-9)));
        let err = w.verify().unwrap_err();
        assert!(err.contains("expected the direct sum"), "{err}");
        w.found = Some(Err("task 3 panicked".to_string()));
        assert_eq!(w.verify().unwrap_err(), "task 3 panicked");
        w.run(&mut Ctx::Chili(&mut chili::ThreadPool::new().scope()));
        assert!(w.verify().unwrap_err().contains("chili"));
    }

    #[test]
    fn java_random() {
        // `new java.util.Random(0).nextDouble()` and `new Random(42).nextDouble()`.
        assert_eq!(JavaRandom::new(0).next_double(), 0.730967787376657);
        assert_eq!(JavaRandom::new(42).next_double(), 0.7275636800328681);
        let w = Submit::new(1600, Size::Paper);
        assert_eq!(w.args.len(), 3 * 1600);
        assert!(w.args.iter().all(|x| (0.0..1.0).contains(x)));
    }
}
