//! Scopes: `scope` (tasks spawning tasks, borrowing the stack, returning a value),
//! `in_place_scope` (the closure on the caller, the tasks in the pool), `Pool::scope`, FIFO
//! scopes (tasks started in spawn order), and a scope's `spawn_broadcast`; panics reach the
//! scope's caller once every task has run.

use crate::common::child::{in_child, run_child};
use crate::common::*;
use forkjoin::{scope, Pool, ThreadPoolBuilder};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{mpsc, Mutex};
use std::thread::{self};
use std::time::Duration;

#[test]
fn scopes_spawning_from_spawned_tasks() {
    let pool = Pool::new(8).unwrap();
    let count = AtomicU64::new(0);
    let sum = AtomicU64::new(0);
    fn spawn_tree<'s>(
        s: &forkjoin::Scope<'s>,
        depth: u32,
        id: u64,
        count: &'s AtomicU64,
        sum: &'s AtomicU64,
    ) {
        count.fetch_add(1, Relaxed);
        sum.fetch_add(id, Relaxed);
        if depth > 0 {
            for c in 0..3 {
                s.spawn(move |s| spawn_tree(s, depth - 1, id * 3 + c + 1, count, sum));
            }
        }
    }
    let depth = size(7, 3) as u32;
    pool.install(|| scope(|s| spawn_tree(s, depth, 0, &count, &sum)));
    // A complete ternary tree of depth d has (3^(d+1) - 1) / 2 nodes, numbered 0..n-1.
    let n = (3u64.pow(depth + 1) - 1) / 2;
    assert_eq!(count.load(Relaxed), n);
    assert_eq!(sum.load(Relaxed), n * (n - 1) / 2);
}

#[test]
fn scope_borrows_the_stack_and_returns_a_value() {
    let mut data = vec![0u64; 100];
    let total = scope(|s| {
        for (i, chunk) in data.chunks_mut(10).enumerate() {
            s.spawn(move |_| chunk.iter_mut().for_each(|x| *x = i as u64));
        }
        42
    });
    assert_eq!(total, 42);
    assert_eq!(
        data.iter().sum::<u64>(),
        (0..10).map(|i| 10 * i).sum::<u64>()
    );
}

// ---- 5. in_place_scope and Pool::scope -------------------------------------------------

/// Fills `v` with squares in tasks of the scope `s`, 10 items per task, each task
/// recording whether it ran on a worker and the pool size it saw.
fn fill_squares<'s>(
    s: &forkjoin::Scope<'s>,
    v: &'s mut [u64],
    base: u64,
    seen: &'s Mutex<Vec<(bool, usize)>>,
) {
    for (k, chunk) in v.chunks_mut(10).enumerate() {
        s.spawn(move |s2| {
            // Half the work in a nested task.
            let (a, b) = chunk.split_at_mut(5);
            s2.spawn(move |_| {
                for (j, x) in b.iter_mut().enumerate() {
                    let i = base + (k * 10 + 5 + j) as u64;
                    *x = i * i;
                }
            });
            for (j, x) in a.iter_mut().enumerate() {
                let i = base + (k * 10 + j) as u64;
                *x = i * i;
            }
            seen.lock().unwrap().push((
                forkjoin::current_thread_index().is_some(),
                forkjoin::current_num_threads(),
            ));
        });
    }
}

fn squares(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| i * i).collect()
}

#[test]
fn in_place_scope_from_outside_runs_the_closure_on_the_caller() {
    let me = thread::current().id();
    // Not `Send`: the closure stays on this thread.
    let here = Rc::new(me);
    let mut v = vec![0u64; 1000];
    let seen = Mutex::new(Vec::new());
    let r = forkjoin::in_place_scope(|s| {
        assert_eq!(thread::current().id(), *here);
        assert_eq!(
            forkjoin::current_thread_index(),
            None,
            "the caller is no worker"
        );
        fill_squares(s, &mut v, 0, &seen);
        17
    });
    assert_eq!(r, 17);
    assert_eq!(v, squares(1000));
    let global = forkjoin::current_num_threads();
    assert_eq!(seen.into_inner().unwrap(), vec![(true, global); 100]);

    for n in [1, 3] {
        let pool = Pool::new(n).unwrap();
        let mut v = vec![0u64; 1000];
        let seen = Mutex::new(Vec::new());
        pool.in_place_scope(|s| {
            assert_eq!(thread::current().id(), *here);
            fill_squares(s, &mut v, 0, &seen);
        });
        assert_eq!(v, squares(1000));
        assert_eq!(seen.into_inner().unwrap(), vec![(true, n); 100]);
    }
}

/// rayon's `in_place_scope_no_deadlock`: the closure waits for its own task while the
/// pool's only worker is free to run it.
#[test]
fn in_place_scope_closure_may_wait_for_its_tasks() {
    let pool = Pool::new(1).unwrap();
    let (tx, rx) = mpsc::channel();
    let rx_ref = &rx;
    pool.in_place_scope(move |s| {
        s.spawn(move |_| tx.send(()).unwrap());
        rx_ref.recv().unwrap();
    });
}

#[test]
fn in_place_scope_inside_a_pool_is_a_scope_on_the_caller() {
    for n in [1, 2, 4] {
        let pool = Pool::new(n).unwrap();
        let other = Pool::new(3).unwrap();
        let (v, same_thread, index, seen) = pool.install(|| {
            let me = thread::current().id();
            let mut v = vec![0u64; 500];
            let seen = Mutex::new(Vec::new());
            let (same, index) = forkjoin::in_place_scope(|s| {
                fill_squares(s, &mut v, 0, &seen);
                (
                    thread::current().id() == me,
                    forkjoin::current_thread_index(),
                )
            });
            (v, same, index, seen.into_inner().unwrap())
        });
        assert_eq!(v, squares(500));
        assert!(same_thread);
        assert!(index.unwrap() < n);
        assert_eq!(seen, vec![(true, n); 50]);

        // From a worker of this pool into another pool: the tasks run there.
        let (v, seen) = pool.install(|| {
            let mut v = vec![0u64; 500];
            let seen = Mutex::new(Vec::new());
            other.in_place_scope(|s| {
                assert!(forkjoin::current_thread_index().unwrap() < n);
                fill_squares(s, &mut v, 0, &seen)
            });
            (v, seen.into_inner().unwrap())
        });
        assert_eq!(v, squares(500));
        assert_eq!(seen, vec![(true, 3); 50]);
    }
}

/// Spawns 20 tasks, of which task 3 panics, unless the closure itself panics after
/// spawning them.
fn panicking_body<'s>(s: &forkjoin::Scope<'s>, ran: &'s AtomicUsize, closure_panics: bool) {
    for i in 0..20 {
        s.spawn(move |_| {
            thread::sleep(Duration::from_micros(100));
            ran.fetch_add(1, SeqCst);
            if i == 3 && !closure_panics {
                panic!("task {i}");
            }
        });
    }
    if closure_panics {
        panic!("closure");
    }
}

#[test]
fn in_place_scope_panics_propagate_after_every_task_ran() {
    let pool = Pool::new(2).unwrap();
    // 0: global, from outside; 1: a pool, from outside; 2: inside a worker.
    for place in 0..3 {
        for closure_panics in [false, true] {
            let ran = AtomicUsize::new(0);
            let ran = &ran;
            let result = catch_unwind(AssertUnwindSafe(|| match place {
                0 => forkjoin::in_place_scope(|s| panicking_body(s, ran, closure_panics)),
                1 => pool.in_place_scope(|s| panicking_body(s, ran, closure_panics)),
                _ => pool.install(|| {
                    forkjoin::in_place_scope(|s| panicking_body(s, ran, closure_panics))
                }),
            }));
            let payload = result.expect_err("the panic reaches the caller");
            let expected = if closure_panics { "closure" } else { "task 3" };
            assert_eq!(message(&*payload), expected);
            assert_eq!(ran.load(SeqCst), 20, "every task ran first");
        }
    }
}

#[test]
fn pool_scope_runs_in_the_pool() {
    let pool = Pool::new(3).unwrap();
    let mut v = vec![0u64; 300];
    let seen = Mutex::new(Vec::new());
    let inside = pool.scope(|s| {
        fill_squares(s, &mut v, 0, &seen);
        forkjoin::current_num_threads()
    });
    assert_eq!(inside, 3);
    assert_eq!(v, squares(300));
    assert_eq!(seen.into_inner().unwrap(), vec![(true, 3); 30]);
}

#[test]
fn scope_fifo_starts_tasks_in_spawn_order() {
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let order = Mutex::new(Vec::new());
    pool.scope_fifo(|s| {
        for i in 0..10 {
            let order = &order;
            s.spawn_fifo(move |s| {
                order.lock().unwrap().push(i);
                if i == 0 {
                    // Spawned after 1..10: runs after them.
                    s.spawn_fifo(move |_| order.lock().unwrap().push(100));
                }
            });
        }
    });
    let mut want: Vec<i32> = (0..10).collect();
    want.push(100);
    assert_eq!(order.into_inner().unwrap(), want);
    // In place, from outside: the closure on this thread, the tasks in order.
    let order = Mutex::new(Vec::new());
    let here = std::thread::current().id();
    pool.in_place_scope_fifo(|s| {
        assert_eq!(std::thread::current().id(), here);
        for i in 0..5 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i));
        }
    });
    assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
}

#[test]
fn a_scope_broadcast_runs_once_on_every_worker_before_the_scope_ends() {
    for (workers, pool) in pools() {
        let runs: Vec<AtomicUsize> = (0..*workers).map(|_| AtomicUsize::new(0)).collect();
        let nested = AtomicUsize::new(0);
        pool.scope(|s| {
            s.spawn_broadcast(|s, ctx| {
                assert_eq!(ctx.num_threads(), *workers);
                assert_eq!(forkjoin::current_thread_index(), Some(ctx.index()));
                runs[ctx.index()].fetch_add(1, Relaxed);
                // A share may spawn into the scope, which waits for that too.
                s.spawn(|_| {
                    nested.fetch_add(1, Relaxed);
                });
            });
        });
        let runs: Vec<usize> = runs.into_iter().map(AtomicUsize::into_inner).collect();
        assert_eq!(runs, vec![1; *workers], "{workers} workers");
        assert_eq!(nested.into_inner(), *workers, "{workers} workers");
    }
}

#[test]
fn a_fifo_scope_broadcast_runs_once_on_every_worker() {
    for (workers, pool) in pools() {
        let runs = AtomicUsize::new(0);
        let indices = Mutex::new(Vec::new());
        pool.install(|| {
            forkjoin::scope_fifo(|s| {
                s.spawn_broadcast(|s, ctx| {
                    runs.fetch_add(1, Relaxed);
                    indices.lock().unwrap().push(ctx.index());
                    s.spawn_fifo(|_| {
                        runs.fetch_add(1, Relaxed);
                    });
                });
            })
        });
        let mut indices = indices.into_inner().unwrap();
        indices.sort_unstable();
        assert_eq!(indices, (0..*workers).collect::<Vec<_>>());
        assert_eq!(runs.into_inner(), 2 * workers);
    }
}

#[test]
fn a_panicking_share_reaches_the_scope_after_every_share_ran() {
    for (workers, pool) in pools() {
        let runs = AtomicUsize::new(0);
        let message = panic_message(|| {
            pool.scope(|s| {
                s.spawn_broadcast(|_, ctx| {
                    runs.fetch_add(1, Relaxed);
                    if ctx.index() == 0 {
                        panic!("share 0");
                    }
                });
            })
        });
        assert_eq!(message, "share 0");
        assert_eq!(runs.into_inner(), *workers);
    }
}

/// Scopes nested `depth` deep on one worker with a 2 MiB stack: through their tasks (each
/// level's one task opens the next scope, so every level's owner waits under the next) and
/// in their bodies. Returns the leaves reached (one per nesting).
fn nest_scopes(through_tasks: u32, in_bodies: u32) -> u64 {
    fn tasks(d: u32, leaves: &AtomicU64) {
        if d == 0 {
            leaves.fetch_add(1, SeqCst);
            return;
        }
        scope(|s| s.spawn(move |_| tasks(d - 1, leaves)));
    }
    fn bodies(d: u32, leaves: &AtomicU64) {
        if d == 0 {
            leaves.fetch_add(1, SeqCst);
            return;
        }
        scope(|_| bodies(d - 1, leaves));
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .stack_size(2 << 20)
        .build()
        .unwrap();
    let leaves = AtomicU64::new(0);
    pool.install(|| {
        tasks(through_tasks, &leaves);
        bodies(in_bodies, &leaves);
    });
    leaves.into_inner()
}

/// Child: scopes nested as deep as rayon 1.12 nests them on the same 2 MiB stack, optimised
/// (rayon, as users build: 8,100 levels through tasks, 16,300 in bodies; here 7,000 and
/// 14,000); unoptimised code has frames several times larger, and nests 500 of each.
#[test]
#[ignore = "run in a child process by the test that names it"]
fn child_scopes_nest_as_deep_as_rayons() {
    if !in_child() {
        return;
    }
    let (tasks, bodies) = if cfg!(debug_assertions) {
        (500, 500)
    } else {
        (7_000, 14_000)
    };
    assert_eq!(nest_scopes(tasks, bodies), 2);
}

#[test]
fn scopes_nest_as_deep_as_rayons_on_the_same_stack() {
    // A stack overflow aborts the process: in a child, whose failure this test reports.
    run_child(module_path!(), "child_scopes_nest_as_deep_as_rayons", &[]);
}
