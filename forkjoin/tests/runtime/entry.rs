//! Work started from threads outside the pool (`Pool::install`, `join`, `scope`, the
//! parallel iterators), handed to a pool thread by default and run by the caller itself in a
//! parked worker's slot in a pool built with `caller_runs`: what users rely on stays true
//! either way (indexes, sizes, panics, work left behind, nesting); a default pool never
//! runs a call on the caller, a `caller_runs` pool does once its workers are parked, and a
//! long call brings the workers in.

use crate::common::*;
use forkjoin::prelude::*;
use forkjoin::Pool;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// A default pool and a `caller_runs` one, of `threads` workers.
fn both_kinds(threads: usize) -> [Pool; 2] {
    [
        Pool::new(threads).unwrap(),
        Pool::builder()
            .threads(threads)
            .caller_runs(true)
            .build()
            .unwrap(),
    ]
}

#[test]
fn inside_install_the_index_and_size_are_the_pools() {
    for pool in [1, 2, 8].into_iter().flat_map(both_kinds) {
        let threads = pool.num_threads();
        for round in 0..50 {
            if round % 10 == 0 {
                settle();
            }
            let (n, index) = pool.install(|| {
                (
                    forkjoin::current_num_threads(),
                    forkjoin::current_thread_index(),
                )
            });
            assert_eq!(n, threads);
            let index = index.expect("inside install the thread has an index");
            assert!(index < threads, "index {index} of a {threads}-worker pool");
            // Joins see the same.
            let seen = pool.install(|| {
                let (a, b) = forkjoin::join(forkjoin::current_thread_index, || {
                    forkjoin::current_thread_index()
                });
                [a.unwrap(), b.unwrap()]
            });
            assert!(seen.iter().all(|&i| i < threads));
        }
        // Outside again: no index, and the global pool's size.
        assert_eq!(forkjoin::current_thread_index(), None);
    }
}

/// Code that indexes per-worker buffers with `current_thread_index` never sees two threads
/// on one index at once.
#[test]
fn per_worker_buffers_indexed_by_thread_index_are_never_shared() {
    for pool in both_kinds(2) {
        let busy: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let sums: Vec<Mutex<u64>> = (0..2).map(|_| Mutex::new(0)).collect();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (pool, busy, sums) = (&pool, &busy, &sums);
                s.spawn(move || {
                    for i in 0..200u64 {
                        pool.install(|| {
                            (0..64u64).into_par_iter().for_each(|k| {
                                let me = forkjoin::current_thread_index().unwrap();
                                assert!(!busy[me].swap(true, SeqCst), "two threads on index {me}");
                                *sums[me].try_lock().expect("buffer of this index in use") += k;
                                busy[me].store(false, SeqCst);
                            });
                        });
                        if i % 50 == 0 && t == 0 {
                            settle();
                        }
                    }
                });
            }
        });
        let total: u64 = sums.iter().map(|m| *m.lock().unwrap()).sum();
        assert_eq!(total, 4 * 200 * (0..64u64).sum::<u64>());
    }
}

#[test]
fn panics_reach_the_caller_and_the_slot_is_given_back() {
    for pool in [1, 2].into_iter().flat_map(both_kinds) {
        for round in 0..20 {
            settle();
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    let (a, _) = forkjoin::join(|| fib(10), || panic!("leaf {round}"));
                    a
                })
            }));
            let message = caught.expect_err("the panic reaches the caller");
            assert_eq!(
                message.downcast_ref::<String>().map(String::as_str),
                Some(format!("leaf {round}").as_str())
            );
            assert_eq!(forkjoin::current_thread_index(), None);
            // The pool, and the slot that was borrowed, still work.
            assert_eq!(pool.install(|| fib(20)), 6765);
            let task = pool.submit(|| fib(15));
            assert_eq!(task.join().unwrap(), 610);
        }
    }
}

fn settle_briefly() {
    std::thread::sleep(Duration::from_millis(2));
}

/// Jobs a caller spawns or submits from inside `install` and does not wait for still run
/// after it returns (they leave the borrowed slot's deque for the pool's queues).
#[test]
fn work_left_behind_by_a_caller_still_runs() {
    for pool in both_kinds(2) {
        let done = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..50 {
            settle_briefly();
            let t = pool.install(|| {
                let done = done.clone();
                pool.submit(move || {
                    done.fetch_add(1, SeqCst);
                    fib(12)
                })
            });
            tasks.push(t);
        }
        for t in tasks {
            assert_eq!(t.join().unwrap(), 144);
        }
        assert_eq!(done.load(SeqCst), 50);
    }
}

/// Eight threads outside a two-worker pool call into it at once, many times: all make
/// progress and get exact answers (in a `caller_runs` pool at most two run in borrowed
/// slots, the others are served by the workers).
#[test]
fn eight_outside_threads_enter_one_pool_at_once() {
    for pool in [1, 2].into_iter().flat_map(both_kinds) {
        let barrier = Barrier::new(8);
        let calls = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let (pool, barrier, calls) = (&pool, &barrier, &calls);
                s.spawn(move || {
                    barrier.wait();
                    for i in 0..300u64 {
                        let n = 8 + (t + i) % 8;
                        let r = pool.install(|| {
                            let v: u64 = (0..n * 10).into_par_iter().map(|x| x * x).sum();
                            (fib(n), v)
                        });
                        let squares = (0..n * 10).map(|x| x * x).sum::<u64>();
                        assert_eq!(r, (fib_exact(n), squares));
                        calls.fetch_add(1, SeqCst);
                    }
                });
            }
        });
        assert_eq!(calls.load(SeqCst), 8 * 300);
    }
}

/// From inside a call from outside (a borrowed slot in a `caller_runs` pool): `install`
/// into another pool, and into the same pool, never deadlocks; the inner pool's index is
/// the inner pool's.
#[test]
fn nested_pools_from_a_call_from_outside() {
    for (outer, inner) in both_kinds(2).into_iter().zip(both_kinds(3)) {
        for _ in 0..20 {
            settle_briefly();
            let (a, b) = outer.install(|| {
                forkjoin::join(
                    || inner.install(|| (forkjoin::current_num_threads(), fib(18))),
                    || outer.install(|| (forkjoin::current_num_threads(), fib(17))),
                )
            });
            assert_eq!(a, (3, 2584));
            assert_eq!(b, (2, 1597));
        }
    }
}

/// A long job from outside brings the parked workers in: two closures joined at the top
/// run on two threads at once, though one thread started alone. (The first closure waits
/// for the second to start, at most `PATIENCE`: only a runtime that never shares the join
/// runs out of it, and the second then runs on the first's thread.)
#[test]
fn a_long_job_from_outside_is_shared() {
    for pool in both_kinds(2) {
        for _ in 0..5 {
            settle();
            let second_started = AtomicBool::new(false);
            let (ta, tb) = pool.install(|| {
                forkjoin::join(
                    || {
                        // Hold the thread until the other closure has started elsewhere.
                        let deadline = Instant::now() + PATIENCE;
                        while !second_started.load(SeqCst) && Instant::now() < deadline {
                            std::hint::spin_loop();
                        }
                        std::thread::current().id()
                    },
                    || {
                        second_started.store(true, SeqCst);
                        std::thread::current().id()
                    },
                )
            });
            assert_ne!(
                ta, tb,
                "the second closure ran on the first's thread: nobody was brought in"
            );
        }
        // A parallel loop started from outside spreads too: both workers' indexes take items.
        // The loop stops once both have (or after `PATIENCE`), over a range far too long to
        // finish first, so that a slow start of the other worker cannot end it early.
        settle();
        let seen = Mutex::new(HashSet::new());
        let start = Instant::now();
        pool.install(|| {
            (0..u64::MAX).into_par_iter().any(|_| {
                let spin = Instant::now();
                while spin.elapsed() < Duration::from_micros(20) {}
                let mut seen = seen.lock().unwrap();
                seen.insert(forkjoin::current_thread_index().unwrap());
                seen.len() == 2 || start.elapsed() > PATIENCE
            })
        });
        assert_eq!(seen.into_inner().unwrap().len(), 2);
    }
}

/// `join`, `scope` and the iterators called from a plain thread use the global pool; their
/// answers are exact.
#[test]
fn global_entry_points_from_outside() {
    for _ in 0..20 {
        settle_briefly();
        assert_eq!(fib(16), 987);
        let mut v = [0u64; 100];
        forkjoin::scope(|s| {
            for (i, x) in v.iter_mut().enumerate() {
                s.spawn(move |_| *x = fib_exact(i as u64 % 12));
            }
        });
        assert_eq!(
            v.iter().sum::<u64>(),
            (0..100).map(|i| fib_exact(i % 12)).sum::<u64>()
        );
        let total: u64 = (0..10_000u64).into_par_iter().sum();
        assert_eq!(total, 49_995_000);
    }
}

/// Whether a call from this thread into `pool` runs on this thread once the pool's workers
/// have parked: calls until one does, for at most `PATIENCE`, each after a pause that
/// doubles from `settle`'s (up to a second), since how soon the workers park depends on
/// how much CPU they get meanwhile: a worker yields a few dozen times before it parks, and
/// on a loaded machine each yield may cost a time slice (a call handed to a worker starts
/// its count again).
fn eventually_on_the_caller(pool: &Pool) -> bool {
    let me = std::thread::current().id();
    let start = Instant::now();
    let mut pause = Duration::ZERO;
    loop {
        settle();
        std::thread::sleep(pause);
        pause = (pause * 2)
            .max(Duration::from_millis(20))
            .min(Duration::from_secs(1));
        if pool.install(|| std::thread::current().id()) == me {
            return true;
        }
        if start.elapsed() > PATIENCE {
            return false;
        }
    }
}

/// The point of `caller_runs`: a call from outside into a pool whose workers are parked
/// runs on the calling thread, with no hand-off.
#[test]
fn a_call_into_a_parked_caller_runs_pool_runs_on_the_caller() {
    for threads in [1, 2, 4] {
        let pool = &both_kinds(threads)[1];
        assert!(
            eventually_on_the_caller(pool),
            "{threads} workers: every call was handed to a worker"
        );
    }
}

/// A default pool runs every call from outside on its own threads, as rayon does, also when
/// its workers are parked: `install`, `join`, `scope`'s body and tasks, a loop's bodies.
#[test]
fn a_default_pool_never_runs_a_call_on_the_caller() {
    let me = std::thread::current().id();
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for round in 0..20 {
            if round % 5 == 0 {
                settle();
            }
            let on_caller = AtomicUsize::new(0);
            let count = |_: u64| {
                if std::thread::current().id() == me {
                    on_caller.fetch_add(1, SeqCst);
                }
            };
            pool.install(|| count(0));
            pool.join(|| count(0), || count(0));
            pool.scope(|s| {
                count(0);
                s.spawn(|_| count(0));
            });
            pool.install(|| (0..1000u64).into_par_iter().for_each(count));
            assert_eq!(
                on_caller.load(SeqCst),
                0,
                "{threads} workers, round {round}"
            );
        }
    }
}

/// A job from outside runs on the caller only if the caller has the stack a worker would
/// give it: what `stack_size` asked for, else 1 MiB.
#[test]
fn a_caller_short_of_stack_hands_the_job_to_a_worker() {
    /// Whether any of ten calls from a thread with `caller_stack` bytes of stack ran on
    /// that thread (for the cases where none may).
    fn on_caller(pool: &Pool, caller_stack: usize) -> bool {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(caller_stack)
                .spawn_scoped(s, || {
                    let me = std::thread::current().id();
                    (0..10).any(|_| {
                        settle();
                        pool.install(|| std::thread::current().id()) == me
                    })
                })
                .unwrap()
                .join()
                .unwrap()
        })
    }
    /// `eventually_on_the_caller` from a thread with `caller_stack` bytes of stack.
    fn eventually_on_caller(pool: &Pool, caller_stack: usize) -> bool {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(caller_stack)
                .spawn_scoped(s, || eventually_on_the_caller(pool))
                .unwrap()
                .join()
                .unwrap()
        })
    }
    // The thread a test asks for may get a bigger stack than it asked for: glibc reuses a
    // cached stack of up to four times the size asked (one of another test's threads, say,
    // of 2 MiB). So the sizes that must not do are a quarter of what is needed, or less.
    let [_, default] = both_kinds(2);
    assert!(
        eventually_on_caller(&default, 4 << 20),
        "4 MiB is enough for a pool without a stack size"
    );
    assert!(!on_caller(&default, 128 << 10), "128 KiB is not");
    let deep = Pool::builder()
        .threads(2)
        .caller_runs(true)
        .stack_size(32 << 20)
        .build()
        .unwrap();
    assert!(
        !on_caller(&deep, 4 << 20),
        "a 32 MiB pool's job needs 32 MiB"
    );
    assert!(
        eventually_on_caller(&deep, 40 << 20),
        "and has it on a 40 MiB thread"
    );
}
