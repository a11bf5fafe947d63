//! `broadcast` and `spawn_broadcast`: each index once, in order, each on its own worker (the
//! caller's share on the caller when it is a worker), the shares at once, from outside, from
//! inside, from both sides of a join, across two pools, while outside threads borrow slots;
//! a panicking share is re-raised once every share ran.

use crate::common::*;
use forkjoin::{Pool, ThreadPoolBuilder};
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Barrier, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

// ---- 3. broadcast --------------------------------------------------------------------------

/// What a share records: its index, the pool's size, its thread, and the index the thread
/// reports.
type Seen = (usize, usize, ThreadId, Option<usize>);

fn see(ctx: forkjoin::BroadcastContext<'_>) -> Seen {
    (
        ctx.index(),
        ctx.num_threads(),
        thread::current().id(),
        forkjoin::current_thread_index(),
    )
}

/// Each index exactly once, in order, each on its own thread, which knows its index.
fn check_shares(seen: &[Seen], n: usize) {
    let indexes: Vec<usize> = seen.iter().map(|s| s.0).collect();
    assert_eq!(indexes, (0..n).collect::<Vec<_>>());
    assert!(
        seen.iter().all(|s| s.1 == n && s.3 == Some(s.0)),
        "{seen:?}"
    );
    let threads: HashSet<ThreadId> = seen.iter().map(|s| s.2).collect();
    assert_eq!(threads.len(), n, "each share on a distinct thread");
}

#[test]
fn broadcast_from_outside_runs_each_index_once_on_each_worker() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        let me = thread::current().id();
        for round in 0..20 {
            if round % 5 == 0 {
                settle();
            }
            let seen = pool.broadcast(see);
            check_shares(&seen, n);
            assert!(seen.iter().all(|s| s.2 != me), "the caller borrows no slot");
        }
    }
}

#[test]
fn broadcast_to_a_parked_pool_completes() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        settle();
        check_shares(&pool.broadcast(see), n);
        settle();
        let inside = pool.install(|| {
            settle();
            forkjoin::broadcast(see)
        });
        check_shares(&inside, n);
    }
}

#[test]
fn broadcast_from_inside_the_pool_runs_the_callers_share_on_the_caller() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        for round in 0..20 {
            if round % 5 == 0 {
                settle(); // then `install` borrows a parked worker's slot
            }
            let (me, index, seen, seen_pool) = pool.install(|| {
                (
                    thread::current().id(),
                    forkjoin::current_thread_index().unwrap(),
                    forkjoin::broadcast(see),
                    pool.broadcast(see),
                )
            });
            for seen in [seen, seen_pool] {
                check_shares(&seen, n);
                assert_eq!(seen[index].2, me, "the caller ran its own share");
            }
        }
    }
}

#[test]
fn broadcasts_from_both_sides_of_a_join() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        for _ in 0..20 {
            let (a, b) = pool.install(|| {
                forkjoin::join(
                    || forkjoin::broadcast(|ctx| ctx.index() * 10),
                    || forkjoin::join(|| forkjoin::broadcast(see), || 7).0,
                )
            });
            assert_eq!(a, (0..n).map(|i| i * 10).collect::<Vec<_>>());
            check_shares(&b, n);
        }
    }
}

/// Every share waits for all the others: the shares run at once, one per worker.
#[test]
fn broadcast_shares_run_concurrently() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        let barrier = Barrier::new(n);
        let wait = |ctx: forkjoin::BroadcastContext<'_>| {
            barrier.wait();
            ctx.index()
        };
        assert_eq!(pool.broadcast(wait), (0..n).collect::<Vec<_>>());
        settle();
        assert_eq!(
            pool.install(|| forkjoin::broadcast(wait)),
            (0..n).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_panicking_share_is_re_raised_after_every_share_ran() {
    for n in [1, 2, 8] {
        let pool = Pool::new(n).unwrap();
        let panicking = [n / 2, n - 1];
        for inside in [false, true] {
            let ran = AtomicUsize::new(0);
            let op = |ctx: forkjoin::BroadcastContext<'_>| {
                ran.fetch_add(1, SeqCst);
                if panicking.contains(&ctx.index()) {
                    panic!("share {}", ctx.index());
                }
                ctx.index()
            };
            let result = catch_unwind(AssertUnwindSafe(|| {
                if inside {
                    pool.install(|| forkjoin::broadcast(op))
                } else {
                    pool.broadcast(op)
                }
            }));
            let payload = result.expect_err("the panic reaches the caller");
            assert_eq!(
                message(&*payload),
                format!("share {}", n / 2),
                "the lowest index's"
            );
            assert_eq!(ran.load(SeqCst), n);
            // The pool still works.
            assert_eq!(
                pool.broadcast(|ctx| ctx.index()),
                (0..n).collect::<Vec<_>>()
            );
        }
    }
}

/// rayon's `broadcast_mutual`: broadcasts between two pools, nested.
#[test]
fn broadcasts_nested_across_two_pools() {
    let count = AtomicUsize::new(0);
    let pool1 = Pool::new(3).unwrap();
    let pool2 = Pool::new(7).unwrap();
    let sizes = pool1.install(|| {
        pool2.broadcast(|ctx2| {
            let inner = pool1.broadcast(|ctx1| {
                count.fetch_add(1, SeqCst);
                (ctx1.num_threads(), forkjoin::current_num_threads())
            });
            assert_eq!(inner, vec![(3, 3); 3]);
            (ctx2.num_threads(), forkjoin::current_num_threads())
        })
    });
    assert_eq!(sizes, vec![(7, 7); 7]);
    assert_eq!(count.load(SeqCst), 3 * 7);
}

/// rayon's `broadcast_sleep_race`: shares of different lengths, so that workers race
/// into their idle sleep while the next broadcast arrives.
#[test]
fn broadcasts_racing_workers_into_sleep() {
    let pool = Pool::new(7).unwrap();
    let shares = AtomicUsize::new(0);
    for round in 0..200 {
        let seen = pool.broadcast(|ctx| {
            thread::sleep(Duration::from_micros(ctx.index() as u64));
            shares.fetch_add(1, SeqCst);
            ctx.index()
        });
        assert_eq!(seen, (0..7).collect::<Vec<_>>(), "round {round}");
    }
    assert_eq!(shares.load(SeqCst), 200 * 7);
}

/// Threads outside the pool borrow slots (`install`) while others broadcast: every share
/// runs on the thread that runs its slot, and nothing deadlocks.
#[test]
fn broadcasts_while_outside_threads_borrow_slots() {
    let pool = Pool::new(2).unwrap();
    thread::scope(|s| {
        for t in 0..4 {
            let pool = &pool;
            s.spawn(move || {
                for i in 0..200 {
                    if t % 2 == 0 {
                        let seen = pool.broadcast(|ctx| ctx.index());
                        assert_eq!(seen, [0, 1]);
                    } else {
                        let (a, b) = pool.install(|| {
                            forkjoin::join(
                                || forkjoin::current_thread_index().unwrap(),
                                || forkjoin::broadcast(|ctx| ctx.index()).len(),
                            )
                        });
                        assert!(a < 2);
                        assert_eq!(b, 2);
                    }
                    if i % 50 == 0 {
                        thread::sleep(Duration::from_millis(5));
                    }
                }
            });
        }
    });
}

#[test]
fn broadcast_from_a_worker_of_another_pool_and_on_the_global_pool() {
    let a = Pool::new(2).unwrap();
    let b = Pool::new(3).unwrap();
    let seen = a.install(|| b.broadcast(see));
    check_shares(&seen, 3);
    let global = forkjoin::broadcast(|ctx| ctx.index());
    assert_eq!(
        global,
        (0..forkjoin::current_num_threads()).collect::<Vec<_>>()
    );
    let ctx = b.broadcast(|ctx| format!("{ctx:?}"));
    assert_eq!(ctx[2], "BroadcastContext { index: 2, num_threads: 3 }");
}

#[test]
fn spawn_broadcast_runs_once_per_worker_without_waiting() {
    for n in [1, 2, 8] {
        let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        pool.spawn_broadcast(move |ctx| {
            tx.lock()
                .unwrap()
                .send((ctx.index(), ctx.num_threads()))
                .unwrap()
        });
        let mut got: Vec<_> = (0..n).map(|_| rx.recv().unwrap()).collect();
        got.sort();
        assert_eq!(got, (0..n).map(|i| (i, n)).collect::<Vec<_>>());
    }
}
