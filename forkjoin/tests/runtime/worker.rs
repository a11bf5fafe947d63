//! What code on a worker can ask about and do with its own queue:
//! `current_thread_has_pending_tasks`, `yield_now` and `yield_local` (run one queued job, or
//! report idle), under forkjoin's names and as the pool's rayon methods.

use forkjoin::ThreadPoolBuilder;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread::{self};

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

#[test]
fn pending_tasks_are_the_workers_own_queued_jobs() {
    assert_eq!(forkjoin::current_thread_has_pending_tasks(), None);
    let pool = forkjoin::Pool::new(1).unwrap();
    pool.scope(|s| {
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
        s.spawn(|_| {});
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(true));
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
    });
    pool.install(|| assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false)));
    // A join's second closure is pending while the first runs (the one worker cannot
    // take it), as in rayon, where it sits on the deque; nested joins as well.
    pool.install(|| {
        let ((inner, outer), _) = forkjoin::join(
            || {
                let outer = forkjoin::current_thread_has_pending_tasks();
                let (inner, _) = forkjoin::join(forkjoin::current_thread_has_pending_tasks, || 1);
                (inner, outer)
            },
            || 2,
        );
        assert_eq!((inner, outer), (Some(true), Some(true)));
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
    });
}

#[test]
fn the_pools_rayon_methods() {
    // One worker: with two, the other could take the spawned task before this one looks.
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(pool.current_thread_index(), None);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    assert_eq!(pool.yield_now(), None);
    pool.install(|| {
        assert_eq!(pool.current_thread_index(), Some(0));
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(false));
        forkjoin::scope(|s| {
            s.spawn(|_| {});
            assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
            assert_eq!(pool.yield_local(), Some(forkjoin::Yield::Executed));
        });
    });
    let other = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    other.install(|| assert_eq!(pool.current_thread_index(), None));
}
