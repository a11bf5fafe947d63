//! Unit tests of `join`: the frames a worker records and pops, the inline path of a frame
//! never shared, panics, `join_context`'s flags, recursion deeper than the frame array.
//! Every assertion is about what the code decides, not about how a run was scheduled: the
//! exact counts are taken on one-worker pools, where nothing is ever shared.

use super::*;
use crate::registry::{on_worker, Worker};
use crate::Pool;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::thread;

/// A pool whose calls from outside always run on its own threads (named threads: a caller
/// never borrows a slot, see `PoolBuilder::build`), with their 16 MiB stacks.
fn worker_pool(threads: usize) -> Pool {
    Pool::builder()
        .threads(threads)
        .thread_name(|i| format!("join-test-{i}"))
        .build()
        .unwrap()
}

/// `worker_pool(1)` with room for `FRAMES + 100` nested joins of large closures in an
/// unoptimised build, whose frames are several times an optimised build's.
fn deep_worker_pool() -> Pool {
    Pool::builder()
        .threads(1)
        .thread_name(|i| format!("join-test-{i}"))
        .stack_size(256 << 20)
        .build()
        .unwrap()
}

/// One-worker pools of both kinds: a plain one, whose `install` may run on the calling
/// thread in the parked worker's slot, and one whose `install` always runs on the worker
/// (the two entries leave the join limit in different states).
fn one_worker_pools() -> [Pool; 2] {
    [Pool::new(1).unwrap(), worker_pool(1)]
}

/// The worker's recorded frames (`OwnerState::len`).
fn frames(w: &Worker) -> usize {
    w.owner().counts.len()
}

/// The worker's promoted frames (`OwnerState::shared`).
fn shared(w: &Worker) -> usize {
    w.owner().counts.shared()
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// The joins `fib(n)` makes: one per call with `n >= 2`, `F(n+1) - 1`.
fn fib_joins(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..=n {
        (a, b) = (b, a + b);
    }
    a - 1
}

/// `fib` whose closures carry 64 bytes of padding each: `join` takes the large-closure
/// path.
fn fib_large(n: u64, pad: [u64; 8]) -> u64 {
    if n < 2 {
        return n + pad[0] - pad[1];
    }
    let a = move || fib_large(n - 1, std::hint::black_box(pad));
    let b = move || fib_large(n - 2, std::hint::black_box(pad));
    assert!(mem::size_of_val(&a) + mem::size_of_val(&b) > SMALL_CLOSURES);
    let (x, y) = join(a, b);
    x + y
}

/// A chain of nested joins on a worker that shares nothing (join `k` runs join `k + 1` in
/// its first closure, up to `depth`), checking the frames the worker holds: `min(k, bound)`
/// inside the first closure of join `k`, `min(k - 1, bound)` inside its second (its own
/// frame was popped before the closure ran inline), where `bound` is how many frames such
/// joins record.
struct Chain<'a> {
    w: &'a Worker,
    depth: usize,
    bound: usize,
    /// Closures of 48 bytes each (the large-closure path) instead of 16.
    large: bool,
}

impl Chain<'_> {
    /// Runs joins `k..=depth`; returns the sum of `k` over their second closures.
    fn run(&self, k: usize) -> usize {
        if k > self.depth {
            return 0;
        }
        let a = move || {
            assert_eq!(
                frames(self.w),
                k.min(self.bound),
                "first closure of join {k}"
            );
            self.run(k + 1)
        };
        let b = move || {
            assert_eq!(
                frames(self.w),
                (k - 1).min(self.bound),
                "second closure of join {k}"
            );
            k
        };
        let (rest, own) = if self.large {
            let pad = [0u64; 4];
            let a = move || std::hint::black_box(pad)[0] as usize + a();
            let b = move || std::hint::black_box(pad)[1] as usize + b();
            assert!(mem::size_of_val(&a) + mem::size_of_val(&b) > SMALL_CLOSURES);
            join(a, b)
        } else {
            assert!(mem::size_of_val(&a) + mem::size_of_val(&b) <= SMALL_CLOSURES);
            join(a, b)
        };
        rest + own
    }
}

/// The frames joins of small closures record: `PRIVATE_FRAMES`; of large ones, fewer.
const SMALL_BOUND: usize = PRIVATE_FRAMES;
const LARGE_BOUND: usize = PRIVATE_FRAMES - LARGE_FRAMES_FEWER;

/// Runs a chain of `depth` joins on `w` with the given closures and bound.
fn chain(w: &Worker, depth: usize, large: bool, bound: usize) -> usize {
    Chain {
        w,
        depth,
        bound,
        large,
    }
    .run(1)
}

/// Frames are recorded up to `PRIVATE_FRAMES` deep (fewer for large closures) and popped
/// as each join completes; the worker holds none once the outermost join returns.
#[test]
fn nested_joins_record_and_pop_their_frames() {
    for pool in one_worker_pools() {
        pool.install(|| {
            on_worker(|w| {
                assert_eq!((frames(w), shared(w)), (0, 0));
                assert_eq!(chain(w, 40, false, SMALL_BOUND), 40 * 41 / 2);
                assert_eq!((frames(w), shared(w)), (0, 0));
                assert_eq!(chain(w, 40, true, LARGE_BOUND), 40 * 41 / 2);
                assert_eq!((frames(w), shared(w)), (0, 0));
                assert_eq!(fib(20), 6765);
                assert_eq!((frames(w), shared(w)), (0, 0));
            })
        });
    }
}

/// On two workers frames may be promoted and stolen; every join still pops what it pushed,
/// on the joining worker and on the thieves, and nothing stays shared.
#[test]
fn joins_leave_no_frame_behind_on_any_worker() {
    let pool = worker_pool(2);
    for _ in 0..20 {
        let r = pool.install(|| {
            on_worker(|w| {
                let r = fib(22);
                assert_eq!((frames(w), shared(w)), (0, 0));
                r
            })
        });
        assert_eq!(r, 17711);
        let left = pool.broadcast(|_| on_worker(|w| (frames(w), shared(w))));
        assert_eq!(left, [(0, 0), (0, 0)]);
    }
}

/// On one worker nothing is ever shared (a heartbeat finds nobody to share with), so every
/// join's second closure runs inline and is counted once: `inline_joins` grows by exactly
/// the number of joins, for small and large closures, and no frame is promoted and no job
/// executed meanwhile.
#[test]
fn an_unshared_join_runs_its_second_closure_inline() {
    for pool in one_worker_pools() {
        pool.install(|| {
            on_worker(|w| {
                let counts = || {
                    (
                        w.inline_joins(),
                        w.counters.promoted.load(Relaxed),
                        w.counters.executed.load(Relaxed),
                    )
                };
                let (inline, promoted, executed) = counts();
                assert_eq!(fib(18), 2584);
                let after_small = counts();
                assert_eq!(after_small, (inline + fib_joins(18), promoted, executed));
                assert_eq!(fib_large(14, [7, 7, 0, 0, 0, 0, 0, 0]), 377);
                assert_eq!(
                    counts(),
                    (after_small.0 + fib_joins(14), promoted, executed)
                );
                // The second closure ran on this thread, after the first.
                let caller = thread::current().id();
                let order = std::sync::Mutex::new(Vec::new());
                join(
                    || order.lock().unwrap().push(("a", thread::current().id())),
                    || order.lock().unwrap().push(("b", thread::current().id())),
                );
                assert_eq!(order.into_inner().unwrap(), [("a", caller), ("b", caller)]);
            })
        });
    }
}

/// The payload's message.
fn message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}

/// A join at nesting `depth` whose closures panic as told, caught around that join: the
/// panic's message (if any) and whether each closure ran to its panic or its end.
fn panicking_join(depth: usize, a_panics: bool, b_panics: bool) -> (Option<String>, bool, bool) {
    if depth > 0 {
        return join(|| panicking_join(depth - 1, a_panics, b_panics), || ()).0;
    }
    let (ran_a, ran_b) = (AtomicBool::new(false), AtomicBool::new(false));
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        join(
            || {
                ran_a.store(true, Relaxed);
                if a_panics {
                    panic!("a panicked");
                }
            },
            || {
                ran_b.store(true, Relaxed);
                if b_panics {
                    panic!("b panicked");
                }
            },
        )
    }));
    let message = result.err().map(|p| message(&*p).to_owned());
    (message, ran_a.load(Relaxed), ran_b.load(Relaxed))
}

/// A panic in either closure reaches the caller after both closures ran; when both panic,
/// the first closure's panic is the one raised. At nesting 0 the join records a frame (the
/// unwinding guard completes it); at `PRIVATE_FRAMES` it is a plain call on one worker.
/// After the panic the worker holds exactly the frames of the joins around it.
#[test]
fn a_panic_in_either_closure_propagates_after_both_ran() {
    let cases = [
        (true, false, "a panicked"),
        (false, true, "b panicked"),
        (true, true, "a panicked"),
    ];
    let check = |depth: usize| {
        for (a_panics, b_panics, expected) in cases {
            let (message, ran_a, ran_b) = panicking_join(depth, a_panics, b_panics);
            assert_eq!(message.as_deref(), Some(expected), "depth {depth}");
            assert!(ran_a && ran_b, "depth {depth}: both closures ran");
        }
    };
    for pool in one_worker_pools() {
        pool.install(|| {
            on_worker(|w| {
                for depth in [0, 1, PRIVATE_FRAMES, PRIVATE_FRAMES + 3] {
                    check(depth);
                    assert_eq!(frames(w), 0);
                }
                // Inside joins: the frames of the enclosing joins are still there.
                join(
                    || {
                        check(0);
                        check(PRIVATE_FRAMES);
                        assert_eq!(frames(w), 1);
                    },
                    || (),
                );
            })
        });
    }
    // Where the second closure may be stolen.
    let pool = worker_pool(2);
    pool.install(|| {
        for _ in 0..20 {
            check(0);
            check(2);
        }
    });
    // From outside any pool (through the global pool).
    check(0);
}

/// On one worker nothing migrates: both closures are told so, at any depth.
#[test]
fn join_context_on_one_worker_migrates_nothing() {
    fn tree(depth: u32) -> (u32, u32) {
        if depth == 0 {
            return (0, 0);
        }
        let ((ma, ta), (mb, tb)) = join_context(
            |ctx| (u32::from(ctx.migrated()), tree(depth - 1)),
            |ctx| (u32::from(ctx.migrated()), tree(depth - 1)),
        );
        (ma + mb + ta.0 + tb.0, 2 + ta.1 + tb.1)
    }
    for pool in one_worker_pools() {
        let (migrated, closures) = pool.install(|| tree(10));
        assert_eq!((migrated, closures), (0, 2 * 1023));
    }
}

/// On two workers a closure may or may not be stolen, but its flag always tells the truth:
/// `migrated()` holds exactly when it runs on another thread than the caller's.
#[test]
fn join_context_flags_say_whether_the_closure_changed_threads() {
    fn tree(depth: u32) -> u32 {
        if depth == 0 {
            return 0;
        }
        let caller = thread::current().id();
        let check = |ctx: FnContext| {
            assert_eq!(ctx.migrated(), thread::current().id() != caller);
            tree(depth - 1) + 1
        };
        let (a, b) = join_context(check, check);
        a + b
    }
    let pool = worker_pool(2);
    for _ in 0..10 {
        assert_eq!(pool.install(|| tree(12)), (1 << 13) - 2);
    }
}

/// A chain of joins deeper than the frame array: without a profile the worker records
/// `PRIVATE_FRAMES` (fewer for large closures) and runs the rest as plain calls, each
/// join counted inline once.
#[test]
fn recursion_deeper_than_the_frame_array_stays_correct() {
    let depth = FRAMES + 100;
    let pool = deep_worker_pool();
    pool.install(|| {
        on_worker(|w| {
            for (large, bound) in [(false, SMALL_BOUND), (true, LARGE_BOUND)] {
                let inline = w.inline_joins();
                assert_eq!(chain(w, depth, large, bound), depth * (depth + 1) / 2);
                assert_eq!(w.inline_joins(), inline + depth as u64);
                assert_eq!((frames(w), shared(w)), (0, 0));
            }
        })
    });
}

/// While a profile is taken every join takes the slow path, which records frames all the
/// way to `FRAMES` and runs deeper joins as plain calls; all are popped again.
#[cfg(feature = "profile")]
#[test]
fn recursion_deeper_than_the_frame_array_while_profiling() {
    /// Clears the profiling flag again, also if an assertion fails.
    struct Profiling<'a>(&'a Worker);
    impl Drop for Profiling<'_> {
        fn drop(&mut self) {
            self.0.registry().profiling.replace(false);
        }
    }
    let depth = FRAMES + 100;
    let pool = deep_worker_pool();
    pool.install(|| {
        on_worker(|w| {
            w.registry().profiling.replace(true);
            let _profiling = Profiling(w);
            for large in [false, true] {
                // A pending request, as `profile::run` sends the workers to the slow path.
                w.join.limit.store(SHARE_REQUEST, Relaxed);
                assert_eq!(chain(w, depth, large, FRAMES), depth * (depth + 1) / 2);
                assert_eq!((frames(w), shared(w)), (0, 0));
            }
        })
    });
}
