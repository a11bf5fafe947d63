//! rayon's `join_context` (with `FnContext::migrated`) and `yield_now`/`yield_local`.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread::{self, ThreadId};

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

#[test]
fn yield_now_runs_one_queued_job_then_reports_idle() {
    assert_eq!(forkjoin::yield_now(), None);
    assert_eq!(forkjoin::yield_local(), None);
    let pool = forkjoin::Pool::new(1).unwrap();
    let ran = AtomicUsize::new(0);
    pool.install(|| {
        forkjoin::scope(|s| {
            s.spawn(|_| {
                ran.fetch_add(1, SeqCst);
            });
            s.spawn(|_| {
                ran.fetch_add(10, SeqCst);
            });
            assert_eq!(forkjoin::yield_local(), Some(forkjoin::Yield::Executed));
            assert_eq!(forkjoin::yield_now(), Some(forkjoin::Yield::Executed));
            assert_eq!(ran.load(SeqCst), 11);
            assert_eq!(forkjoin::yield_now(), Some(forkjoin::Yield::Idle));
            assert_eq!(forkjoin::yield_local(), Some(forkjoin::Yield::Idle));
        })
    });
    assert_eq!(ran.load(SeqCst), 11);
}

#[test]
fn yield_now_takes_work_submitted_from_outside() {
    let pool = forkjoin::Pool::new(1).unwrap();
    pool.install(|| {
        // Submitted from another thread while this job runs in the pool's only slot: only
        // a yield can run it before the job ends.
        let task = thread::scope(|t| t.spawn(|| pool.submit(|| 7 * 6)).join().unwrap());
        let mut idle_rounds = 0;
        while !task.is_done() {
            match forkjoin::yield_now() {
                Some(forkjoin::Yield::Executed) => {}
                Some(forkjoin::Yield::Idle) => idle_rounds += 1,
                None => unreachable!("inside the pool"),
            }
            assert!(idle_rounds < 1_000_000, "the submitted task never ran");
        }
        assert_eq!(task.join().unwrap(), 42);
    });
}
