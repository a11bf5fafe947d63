//! Unit tests of `scope`: tasks that borrow the stack, panics, nested scopes, the task count,
//! and the three ways an owner waits (a worker of the pool, a worker of another pool, a
//! thread outside any pool).

use super::*;
use crate::registry::on_worker;
use crate::Pool;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering::SeqCst;
use std::thread;

/// A pool whose calls from outside always run on its own threads (named threads: a caller
/// never borrows a slot, see `PoolBuilder::build`).
fn worker_pool(threads: usize) -> Pool {
    Pool::builder()
        .threads(threads)
        .thread_name(|i| format!("scope-test-{i}"))
        .build()
        .unwrap()
}

/// Pools of one and two workers, plain ones (whose calls from outside may run in a borrowed
/// slot) and ones whose calls always run on their workers.
fn pools() -> [Pool; 4] {
    [
        Pool::new(1).unwrap(),
        Pool::new(2).unwrap(),
        worker_pool(1),
        worker_pool(2),
    ]
}

/// The panic payload's message.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Tasks write through `&mut` borrows of the caller's stack and read shared borrows of it,
/// also from tasks spawned by tasks.
#[test]
fn tasks_borrow_the_stack() {
    for pool in pools() {
        let input: Vec<u64> = (0..64).collect();
        let mut squares = vec![0u64; 64];
        let mut cubes = vec![0u64; 64];
        pool.scope(|s| {
            let input = &input;
            for (i, (sq, cu)) in squares.iter_mut().zip(cubes.iter_mut()).enumerate() {
                s.spawn(move |s| {
                    *sq = input[i] * input[i];
                    s.spawn(move |_| *cu = input[i] * input[i] * input[i]);
                });
            }
        });
        assert_eq!(squares, input.iter().map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(cubes, input.iter().map(|i| i * i * i).collect::<Vec<_>>());
    }
}

/// A task's panic is re-raised by the scope, after every other task ran to its end; so is a
/// panic of the scope's own closure, after the tasks it spawned.
#[test]
fn a_panic_is_raised_after_all_tasks_ran() {
    const N: usize = 50;
    for pool in pools() {
        let done = AtomicUsize::new(0);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..N {
                    let done = &done;
                    s.spawn(move |_| {
                        if i == 17 {
                            panic!("task 17");
                        }
                        done.fetch_add(1, SeqCst);
                    });
                }
            })
        }));
        assert_eq!(message(&*r.unwrap_err()), "task 17");
        assert_eq!(done.load(SeqCst), N - 1);

        let done = AtomicUsize::new(0);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for _ in 0..N {
                    s.spawn(|_| {
                        done.fetch_add(1, SeqCst);
                    });
                }
                panic!("the scope's closure");
            })
        }));
        assert_eq!(message(&*r.unwrap_err()), "the scope's closure");
        assert_eq!(done.load(SeqCst), N);

        // Several panics: one of them is raised, and every task that did not panic ran.
        let done = AtomicUsize::new(0);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..N {
                    let done = &done;
                    s.spawn(move |_| {
                        if i % 10 == 3 {
                            panic!("task {i}");
                        }
                        done.fetch_add(1, SeqCst);
                    });
                }
            })
        }));
        let raised = message(&*r.unwrap_err());
        assert!(
            (0..N).any(|i| i % 10 == 3 && raised == format!("task {i}")),
            "{raised}"
        );
        assert_eq!(done.load(SeqCst), N - 5);
    }
}

/// A scope inside a task of a scope returns only once its own tasks are done (the count it
/// sees is already complete), and its tasks may borrow from both scopes' stacks.
#[test]
fn nested_scopes_wait_for_their_own_tasks() {
    const OUTER: usize = 8;
    const INNER: usize = 16;
    for pool in pools() {
        let total = AtomicUsize::new(0);
        let base = 1000usize;
        pool.scope(|s| {
            for _ in 0..OUTER {
                let (total, base) = (&total, &base);
                s.spawn(move |_| {
                    let mut mine = [0usize; INNER];
                    scope(|inner| {
                        for (j, m) in mine.iter_mut().enumerate() {
                            inner.spawn(move |_| {
                                *m = base + j;
                                total.fetch_add(1, SeqCst);
                            });
                        }
                    });
                    let expected: Vec<usize> = (0..INNER).map(|j| base + j).collect();
                    assert_eq!(mine.to_vec(), expected);
                });
            }
        });
        assert_eq!(total.load(SeqCst), OUTER * INNER);
    }
}

/// Tasks spawned by tasks, as a tree: the scope runs exactly the tasks spawned, each once.
/// On one worker, the worker executes exactly those tasks as jobs, and while the scope's
/// closure runs on that worker none of them can have started: the scope counts them all
/// pending, plus the closure.
#[test]
fn a_scope_runs_exactly_the_tasks_spawned() {
    fn spawn_tree<'s>(s: &Scope<'s>, depth: u32, ran: &'s AtomicUsize) {
        if depth == 0 {
            return;
        }
        for _ in 0..2 {
            s.spawn(move |s| {
                ran.fetch_add(1, SeqCst);
                spawn_tree(s, depth - 1, ran);
            });
        }
    }
    // 2 + 4 + ... + 2^10 tasks.
    let tasks = (1usize << 11) - 2;
    for pool in pools() {
        let ran = AtomicUsize::new(0);
        pool.scope(|s| spawn_tree(s, 10, &ran));
        assert_eq!(ran.load(SeqCst), tasks);
    }
    let pool = worker_pool(1);
    pool.install(|| {
        on_worker(|w| {
            let executed = w.counters.executed.load(Relaxed);
            let ran = AtomicUsize::new(0);
            scope(|s| {
                assert_eq!(s.pending.load(Relaxed), 1);
                for _ in 0..100 {
                    s.spawn(|_| {
                        ran.fetch_add(1, SeqCst);
                    });
                }
                assert_eq!(s.pending.load(Relaxed), 101);
                assert_eq!(ran.load(SeqCst), 0);
            });
            assert_eq!(ran.load(SeqCst), 100);
            assert_eq!(w.counters.executed.load(Relaxed), executed + 100);
        })
    });
}

/// `in_place_scope` from a thread outside any pool: the closure runs on the calling thread
/// (outside the pool), the tasks on the pool's workers, and the caller blocks until all are
/// done (the `Lock` latch).
#[test]
fn in_place_scope_from_outside_runs_the_tasks_on_workers() {
    let pool = worker_pool(2);
    let caller = thread::current().id();
    let on_workers = AtomicUsize::new(0);
    let ran = AtomicUsize::new(0);
    pool.in_place_scope(|s| {
        assert_eq!(thread::current().id(), caller);
        assert_eq!(crate::current_thread_index(), None);
        for _ in 0..40 {
            s.spawn(|_| {
                if pool.current_thread_index().is_some() {
                    on_workers.fetch_add(1, SeqCst);
                }
                ran.fetch_add(1, SeqCst);
            });
        }
    });
    assert_eq!((ran.load(SeqCst), on_workers.load(SeqCst)), (40, 40));
}

/// `in_place_scope` of pool B from a worker of pool A: the closure runs on A's worker, the
/// tasks on B's workers, and A's worker waits on a cross-pool latch (helping A meanwhile).
#[test]
fn in_place_scope_from_a_worker_of_another_pool() {
    let a = worker_pool(1);
    let b = worker_pool(2);
    for _ in 0..10 {
        let (ran, on_b) = a.install(|| {
            let ran = AtomicUsize::new(0);
            let on_b = AtomicUsize::new(0);
            b.in_place_scope(|s| {
                assert_eq!(a.current_thread_index(), Some(0));
                assert_eq!(b.current_thread_index(), None);
                for _ in 0..20 {
                    s.spawn(|_| {
                        if b.current_thread_index().is_some() {
                            on_b.fetch_add(1, SeqCst);
                        }
                        ran.fetch_add(1, SeqCst);
                    });
                }
            });
            assert_eq!(a.current_thread_index(), Some(0));
            (ran.into_inner(), on_b.into_inner())
        });
        assert_eq!((ran, on_b), (20, 20));
    }
}
