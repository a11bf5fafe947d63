//! `join` and `join_context`: exact answers at many worker counts (8 and 16 oversubscribe a
//! 2-core machine on purpose), outside any pool, on random unbalanced trees, on chains deeper
//! than the runtime's frame stack; one worker runs every join inline; the second closure runs
//! while the first blocks; `FnContext::migrated` says exactly whether a closure changed
//! threads; panics reach the caller (the leftmost of two) and the pool survives.

use crate::common::*;
use forkjoin::{join, scope, Pool};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Mutex};
use std::thread::{self, ThreadId};

/// Number of joins `fib(n)` makes: one per call with n >= 2.
fn fib_joins(n: u64) -> u64 {
    if n < 2 {
        0
    } else {
        1 + fib_joins(n - 1) + fib_joins(n - 2)
    }
}

#[test]
fn join_outside_any_pool_uses_the_global_pool() {
    assert_eq!(fib(size(20, 8)), fib_exact(size(20, 8)));
    assert_eq!(forkjoin::current_thread_index(), None);
    assert!(forkjoin::current_num_threads() >= 1);
}

#[test]
fn fib_exact_at_many_worker_counts() {
    for &threads in WORKER_COUNTS {
        let pool = Pool::new(threads).unwrap();
        let n = size(24, 10);
        assert_eq!(pool.install(|| fib(n)), fib_exact(n), "threads = {threads}");
        let idx = pool.install(forkjoin::current_thread_index).unwrap();
        assert!(idx < threads);
        assert_eq!(pool.install(forkjoin::current_num_threads), threads);
    }
}

#[test]
fn one_worker_runs_every_join_inline() {
    let pool = Pool::new(1).unwrap();
    let n = size(20, 8);
    let before = pool.stats();
    assert_eq!(pool.install(|| fib(n)), fib_exact(n));
    let s = pool.stats().since(&before);
    // Nobody is ever idle while the only worker works, so no join is shared.
    assert_eq!(s.total.joins_inline, fib_joins(n));
    assert_eq!(s.total.tasks_shared, 0);
    // The install job runs from the submission queue, or on this thread in the slot of a
    // parked worker, whichever the worker's state at the call allows (so
    // `external_submissions` is 1 or 0): a task run either way.
    assert_eq!(
        s.total.tasks_run,
        fib_joins(n) + 1,
        "the joins plus the install job"
    );
    let table = s.to_string();
    assert!(
        table.contains("joins inline") && table.contains("total"),
        "{table}"
    );
}

/// A random, unbalanced tree: node `id` has `h(id) % 5` children (0..4), down to a depth.
fn children(id: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 0;
    }
    let mut x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x >> 32) % 5
}

fn count_seq(id: u64, depth: u32) -> u64 {
    1 + (0..children(id, depth))
        .map(|c| count_seq(id.wrapping_mul(5).wrapping_add(c + 1), depth - 1))
        .sum::<u64>()
}

/// Counts the subtree, forking over the children by binary splitting.
fn count_par(id: u64, depth: u32) -> u64 {
    fn range(id: u64, depth: u32, lo: u64, hi: u64) -> u64 {
        match hi - lo {
            0 => 0,
            1 => count_par(id.wrapping_mul(5).wrapping_add(lo + 1), depth - 1),
            _ => {
                let mid = (lo + hi) / 2;
                let (a, b) = join(|| range(id, depth, lo, mid), || range(id, depth, mid, hi));
                a + b
            }
        }
    }
    1 + range(id, depth, 0, children(id, depth))
}

#[test]
fn random_unbalanced_trees_count_exactly() {
    let depth = size(14, 5) as u32;
    for (threads, root) in [(2, 4u64), (8, 10), (16, 33)] {
        let pool = Pool::new(threads).unwrap();
        let expected = count_seq(root, depth);
        assert!(
            expected > size(10_000, 30),
            "tree too small to test anything: {expected}"
        );
        for _ in 0..3 {
            assert_eq!(
                pool.install(|| count_par(root, depth)),
                expected,
                "threads = {threads}"
            );
        }
    }
}

#[test]
fn deep_and_wide_trees() {
    // Deep: a chain of joins deeper than the runtime's frame stack.
    fn chain(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (a, b) = join(|| chain(n - 1), || 1);
        a + b
    }
    let pool = Pool::builder()
        .threads(8)
        .stack_size(256 << 20)
        .build()
        .unwrap();
    let depth = size(10_000, 100);
    assert_eq!(pool.install(|| chain(depth)), depth);
    // Wide: 2^k leaves of a balanced tree.
    fn leaves(k: u32) -> u64 {
        if k == 0 {
            return 1;
        }
        let (a, b) = join(|| leaves(k - 1), || leaves(k - 1));
        a + b
    }
    let k = size(18, 6) as u32;
    assert_eq!(pool.install(|| leaves(k)), 1 << k);
}

#[test]
fn blocking_closures_run_in_parallel() {
    // `a` waits for a signal that only `b` sends: unless `b` runs while `a` blocks, `a`
    // times out. (chili issue 33: a heartbeat runtime that never shares this join.)
    let pool = Pool::new(2).unwrap();
    for _ in 0..size(5, 1) {
        let (tx, rx) = mpsc::channel::<()>();
        let rx = Mutex::new(rx);
        let (got, ()) = pool.install(|| {
            join(
                || rx.lock().unwrap().recv_timeout(PATIENCE).is_ok(),
                move || tx.send(()).unwrap(),
            )
        });
        assert!(
            got,
            "the second closure did not run while the first blocked"
        );
    }
}

#[test]
fn nested_pools_do_not_deadlock() {
    let outer = Pool::new(1).unwrap();
    let inner = Pool::new(1).unwrap();
    let r = outer.install(|| {
        let x = inner.install(|| outer.install(|| fib(9)) + inner.install(|| fib(8)));
        let (a, b) = join(|| inner.install(|| fib(7)), || fib(6));
        x + a + b
    });
    assert_eq!(r, fib_exact(9) + fib_exact(8) + fib_exact(7) + fib_exact(6));
}

/// A tree of `join_context` calls: at every join, each closure's `migrated()` must say
/// exactly whether it runs on another thread than its caller. Returns (closures, migrated).
fn tree(depth: u32, caller: ThreadId, checked: &AtomicUsize, moved: &AtomicUsize) {
    let body = |ctx: forkjoin::FnContext| {
        let here = thread::current().id();
        assert_eq!(ctx.migrated(), here != caller);
        checked.fetch_add(1, SeqCst);
        if ctx.migrated() {
            moved.fetch_add(1, SeqCst);
        }
        if depth > 0 {
            // Some work, so that thieves come.
            let mut x = 0u64;
            for i in 0..2_000u64 {
                x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(i));
            }
            std::hint::black_box(x);
            tree(depth - 1, here, checked, moved);
        }
    };
    forkjoin::join_context(body, body);
}

#[test]
fn migrated_says_exactly_whether_the_closure_changed_threads() {
    for threads in [1, 2, 8] {
        let pool = forkjoin::Pool::new(threads).unwrap();
        let (checked, moved) = (AtomicUsize::new(0), AtomicUsize::new(0));
        pool.install(|| tree(10, thread::current().id(), &checked, &moved));
        // 2 + 4 + ... + 2^11 closures ran, each checked.
        assert_eq!(checked.load(SeqCst), (1 << 12) - 2, "{threads} workers");
        if threads == 1 {
            assert_eq!(moved.load(SeqCst), 0);
        }
    }
}

#[test]
fn called_from_outside_the_first_closure_is_migrated_exactly_when_a_worker_runs_it() {
    // `join_context` from a thread outside any pool: the global pool runs it, on this
    // thread in a borrowed slot or on a worker.
    let caller = thread::current().id();
    for _ in 0..100 {
        let (a, b) = forkjoin::join_context(
            |ctx| (ctx.migrated(), thread::current().id()),
            |ctx| (ctx.migrated(), thread::current().id()),
        );
        assert_eq!(a.0, a.1 != caller);
        assert_eq!(b.0, b.1 != caller);
    }
}

fn message(p: forkjoin::Panic) -> String {
    p.message().unwrap_or("?").to_string()
}

fn panic_of<R>(f: impl FnOnce() -> R) -> String {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(e) => e
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_default(),
    }
}

#[test]
fn panics_propagate_and_the_pool_survives() {
    let pool = Pool::new(2).unwrap();
    let ran_b = AtomicUsize::new(0);
    assert_eq!(
        panic_of(|| pool.install(|| join(|| panic!("left"), || ran_b.fetch_add(1, SeqCst)))),
        "left"
    );
    assert_eq!(ran_b.load(SeqCst), 1, "the right closure still ran, once");
    assert_eq!(
        panic_of(|| pool.install(|| join(|| fib(size(15, 6)), || -> u64 { panic!("right") }))),
        "right"
    );
    assert_eq!(
        panic_of(
            || pool.install(|| join(|| -> u8 { panic!("both-a") }, || -> u8 { panic!("both-b") }))
        ),
        "both-a"
    );
    assert_eq!(
        panic_of(|| pool.install(|| scope(|s| {
            s.spawn(|_| panic!("scope task"));
            s.spawn(|_| {
                fib(size(10, 5));
            });
        }))),
        "scope task"
    );
    assert_eq!(
        message(
            pool.submit(|| -> u8 { panic!("submitted") })
                .join()
                .unwrap_err()
        ),
        "submitted"
    );
    assert_eq!(
        panic_of(|| pool.install(|| -> u8 { panic!("install") })),
        "install"
    );
    // Deep inside a parallel recursion, on some worker.
    fn boom(n: u64) -> u64 {
        if n == 7 {
            panic!("deep");
        }
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| boom(n - 1), || boom(n - 2));
        a + b
    }
    assert_eq!(panic_of(|| pool.install(|| boom(size(20, 9)))), "deep");
    // Still fully usable.
    assert_eq!(pool.install(|| fib(size(20, 8))), fib_exact(size(20, 8)));
    assert_eq!(pool.submit(|| 5).join().unwrap(), 5);
}

/// Joins whose closures are large (over 32 bytes together) take a path of their own (fewer
/// frames, plain calls by value): every leaf still runs exactly once, with or without
/// panics, and of two panicking leaves the leftmost one's panic comes out.
#[test]
fn large_closure_joins_run_every_leaf_once_and_propagate_panics() {
    const DEPTH: u32 = 14;
    const LEAVES: u64 = 1 << DEPTH;
    // 40 bytes of payload per closure, plus a reference and a pair.
    fn walk(depth: u32, id: [u64; 5], visits: &AtomicUsize, fail: (u64, u64)) -> u64 {
        if depth == 0 {
            visits.fetch_add(1, SeqCst);
            if id[0] == fail.0 || id[0] == fail.1 {
                panic!("leaf {}", id[0]);
            }
            return id[0];
        }
        let left = [id[0] * 2, id[1] + 1, id[2], id[3], id[4]];
        let right = [id[0] * 2 + 1, id[1] + 1, id[2], id[3], id[4]];
        let (a, b) = join(
            move || walk(depth - 1, left, visits, fail),
            move || walk(depth - 1, right, visits, fail),
        );
        a + b
    }
    let none = (u64::MAX, u64::MAX);
    for threads in [1, 2, 8] {
        let pool = Pool::new(threads).unwrap();
        let visits = AtomicUsize::new(0);
        let sum = pool.install(|| walk(DEPTH, [0; 5], &visits, none));
        assert_eq!(sum, LEAVES * (LEAVES - 1) / 2, "threads = {threads}");
        assert_eq!(visits.load(SeqCst), LEAVES as usize);
        for fail in [(5000, u64::MAX), (12000, 5000), (LEAVES - 1, u64::MAX)] {
            let visits = AtomicUsize::new(0);
            let msg = panic_of(|| pool.install(|| walk(DEPTH, [0; 5], &visits, fail)));
            assert_eq!(
                msg,
                format!("leaf {}", fail.0.min(fail.1)),
                "threads = {threads}"
            );
            assert_eq!(
                visits.load(SeqCst),
                LEAVES as usize,
                "every leaf ran once, threads = {threads}"
            );
        }
        assert_eq!(
            pool.install(|| walk(DEPTH, [0; 5], &visits, none)),
            LEAVES * (LEAVES - 1) / 2
        );
    }
}
