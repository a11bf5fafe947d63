//! `Task` as a `Future`: awaited under tokio, polled by hand with counting wakers, and
//! polled racing the job's completion. Every answer is checked exactly.

mod common;

use common::waker::{counter, poll, wakes};
use forkjoin::{Panic, Pool, Task};
use std::future::Future;
use std::sync::{mpsc, Arc};
use std::task::{Poll, Wake, Waker};
use std::time::{Duration, Instant};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Waits (yielding) until `cond` holds; fails the test after `secs` seconds instead of
/// hanging it on a lost wake-up.
fn wait_for(what: &str, secs: u64, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

/// 1. A thousand tasks, each forking inside with `forkjoin::join`, awaited from a
///    multi-threaded tokio runtime while the pool is also busy with a long computation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_tasks_awaited_under_tokio() {
    let pool = Arc::new(Pool::new(2).unwrap());
    // Keeps the pool busy meanwhile: a long job, awaited last.
    let busy = pool.submit(|| fib(30));

    // Four tokio tasks each submit and await 250 pool tasks; the pool task for `i` computes
    // fib(10 + i % 10), so each of fib(10..20) comes up 100 times.
    let mut awaiting = Vec::new();
    for part in 0..4u64 {
        let pool = Arc::clone(&pool);
        awaiting.push(tokio::spawn(async move {
            let tasks: Vec<(u64, Task<u64>)> = (part * 250..(part + 1) * 250)
                .map(|i| (i, pool.submit(move || fib(10 + i % 10))))
                .collect();
            let mut sum = 0;
            for (i, task) in tasks {
                let v = task.await.unwrap();
                assert_eq!(v, fib_seq(10 + i % 10), "task {i}");
                sum += v;
            }
            sum
        }));
    }
    let mut total = 0;
    for handle in awaiting {
        total += tokio::time::timeout(Duration::from_secs(120), handle)
            .await
            .expect("the tasks were not all woken")
            .unwrap();
    }
    // 100 * (fib(10) + ... + fib(19)) = 100 * (fib(21) - fib(11)) = 100 * (10946 - 89).
    assert_eq!(total, 1_085_700);
    assert_eq!(total, 100 * (10..20).map(fib_seq).sum::<u64>());

    // Tasks can also be handed to tokio as tasks of their own.
    let spawned: Vec<_> = (0..20u64)
        .map(|i| tokio::spawn(pool.submit(move || fib(i))))
        .collect();
    for (i, handle) in spawned.into_iter().enumerate() {
        assert_eq!(handle.await.unwrap().unwrap(), fib_seq(i as u64));
    }
    assert_eq!(busy.await.unwrap(), 832_040);
}

/// 2. A panicking job comes back as `Err(Panic)` with its message, from a `&str` payload or
///    a formatted one, and the pool goes on working.
#[test]
fn a_panic_comes_back_as_err() {
    let pool = Pool::new(2).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let err = pool
            .submit(|| -> u64 { panic!("no answer") })
            .await
            .unwrap_err();
        assert_eq!(err.message(), Some("no answer"));
        let n = 6;
        let err = pool
            .submit(move || -> u64 {
                let (_, b) = forkjoin::join(|| fib(n), || -> u64 { panic!("fib({n}) refused") });
                b
            })
            .await
            .unwrap_err();
        assert_eq!(err.message(), Some("fib(6) refused"));
        assert_eq!(pool.submit(|| fib(20)).await.unwrap(), 6765);
    });
}

/// 3. Polling with one waker, then another: only the last is woken, once. A task polled
///    only after it is done is `Ready` at once and wakes nothing; polling after `Ready`
///    panics.
#[test]
fn only_the_latest_waker_is_woken() {
    let pool = Pool::new(2).unwrap();
    let (go, wait) = mpsc::channel::<()>();
    let mut task = pool.submit(move || {
        wait.recv().unwrap();
        fib(15)
    });
    let (first, first_waker) = counter();
    let (second, second_waker) = counter();
    assert!(poll(&mut task, &first_waker).is_pending());
    assert!(poll(&mut task, &first_waker).is_pending());
    assert!(poll(&mut task, &second_waker).is_pending());
    assert!(!task.is_done());
    go.send(()).unwrap();
    wait_for("the second waker", 60, || wakes(&second) > 0);
    assert!(task.is_done());
    assert!(matches!(
        poll(&mut task, &second_waker),
        Poll::Ready(Ok(610))
    ));

    // Done before its first poll: Ready without an await, no waker kept or woken.
    let mut done = pool.submit(|| fib(12));
    wait_for("the job", 60, || done.is_done());
    let (third, third_waker) = counter();
    assert!(matches!(
        poll(&mut done, &third_waker),
        Poll::Ready(Ok(144))
    ));

    // Polling after Ready is a bug, reported as std's futures report it.
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = poll(&mut done, &third_waker);
    }))
    .unwrap_err();
    assert_eq!(
        again.downcast_ref::<&str>(),
        Some(&"`Task` polled after completion")
    );

    drop(pool); // every job has finished: no wake-up can still come
    assert_eq!((wakes(&first), wakes(&second), wakes(&third)), (0, 1, 0));
    // The stored wakers were woken by value or dropped: only ours and our waker remain.
    assert_eq!(Arc::strong_count(&first), 2);
    assert_eq!(Arc::strong_count(&second), 2);
    assert_eq!(Arc::strong_count(&third), 2);

    // A task never polled still runs, and `join` still works on one never polled.
    let (ran, ran_in_job) = counter();
    let pool = Pool::new(2).unwrap();
    drop(pool.submit(move || ran_in_job.wake()));
    assert_eq!(pool.submit(|| fib(10)).join().unwrap(), 55);
    drop(pool);
    assert_eq!(wakes(&ran), 1);
}

/// A waker that panics when woken (an executor's bug) does not take the worker down: the
/// panic stays in the worker that woke it, the result was delivered, and the pool goes on.
#[test]
fn a_panicking_waker_does_not_take_down_the_worker() {
    struct Panicky;
    impl Wake for Panicky {
        fn wake(self: Arc<Self>) {
            panic!("a waker that panics");
        }
    }
    let pool = Pool::new(1).unwrap();
    let (go, wait) = mpsc::channel::<()>();
    let mut task = pool.submit(move || {
        wait.recv().unwrap();
        fib(10)
    });
    let waker = Waker::from(Arc::new(Panicky));
    assert!(poll(&mut task, &waker).is_pending());
    go.send(()).unwrap();
    wait_for("the job", 60, || task.is_done());
    assert!(matches!(poll(&mut task, &waker), Poll::Ready(Ok(55))));
    // The only worker is still there.
    let next = pool.submit(|| fib(12));
    wait_for("the next job", 60, || next.is_done());
    assert_eq!(next.join().unwrap(), 144);
}

/// 4. Ten thousand tasks, each polled right after it is submitted, racing its completion
///    (from the submitting thread and from a second polling thread, after a varying delay;
///    a third of them polled again with another waker): a poll that returned `Pending` is
///    woken exactly once, through the latest waker, and then polls `Ready`; every result is
///    exact.
#[test]
fn ten_thousand_polls_racing_completion() {
    const TASKS: u64 = 10_000;
    const BATCH: u64 = 100;
    let pool = Arc::new(Pool::new(2).unwrap());

    /// Submits tasks `range`, polls each at once, then drives every pending one to `Ready`.
    /// Returns the sum of the results and how many first polls were `Pending`.
    fn run(pool: &Pool, range: std::ops::Range<u64>) -> (u64, u64) {
        let (mut sum, mut pending_count) = (0, 0);
        let mut batch = Vec::new();
        for i in range {
            let mut task = pool.submit(move || {
                let (a, b) = forkjoin::join(|| i * i, || i + 1);
                a + b
            });
            for _ in 0..(i % 4) * (i % 4) * 50 {
                std::hint::spin_loop();
            }
            let (first, first_waker) = counter();
            let (second, second_waker) = counter();
            let mut state = poll(&mut task, &first_waker);
            let mut latest = Arc::clone(&first);
            if state.is_pending() && i % 3 == 0 {
                state = poll(&mut task, &second_waker);
                latest = Arc::clone(&second);
            }
            batch.push((i, task, state, latest, first, second));
        }
        for (i, mut task, state, latest, first, second) in batch {
            let result = match state {
                Poll::Ready(result) => result,
                Poll::Pending => {
                    pending_count += 1;
                    wait_for("a wake-up", 60, || wakes(&latest) > 0);
                    // Woken: done, so Ready, whatever waker this poll brings.
                    let (unused, unused_waker) = counter();
                    let result = match poll(&mut task, &unused_waker) {
                        Poll::Ready(result) => result,
                        Poll::Pending => panic!("task {i} woken but not ready"),
                    };
                    assert_eq!(wakes(&unused), 0);
                    assert_eq!(wakes(&latest), 1, "task {i} woken more than once");
                    assert_eq!(
                        wakes(&first) + wakes(&second),
                        1,
                        "task {i}: a stale waker woken"
                    );
                    result
                }
            };
            let v = result.unwrap();
            assert_eq!(v, i * i + i + 1, "task {i}");
            // Found ready or not, at most one wake-up ever: the job wakes at most one waker.
            assert!(wakes(&first) + wakes(&second) <= 1, "task {i}");
            sum += v;
        }
        (sum, pending_count)
    }

    let other = {
        let pool = Arc::clone(&pool);
        std::thread::spawn(move || {
            (0..TASKS / 2)
                .step_by(BATCH as usize)
                .map(|start| run(&pool, start..start + BATCH))
                .fold((0, 0), |(s, p), (a, b)| (s + a, p + b))
        })
    };
    let mine = (TASKS / 2..TASKS)
        .step_by(BATCH as usize)
        .map(|start| run(&pool, start..start + BATCH))
        .fold((0, 0), |(s, p), (a, b)| (s + a, p + b));
    let theirs = other.join().unwrap();
    let sum = mine.0 + theirs.0;
    // Sum of i^2 + i + 1 for i < n: (n-1)n(2n-1)/6 + n(n-1)/2 + n.
    let n = TASKS;
    assert_eq!(sum, (n - 1) * n * (2 * n - 1) / 6 + n * (n - 1) / 2 + n);
    assert_eq!(sum, 333_333_340_000);
    // Both sides of the race were taken (not an exact count: it depends on timing).
    let pending = mine.1 + theirs.1;
    eprintln!("{pending} of {TASKS} first polls were pending");
    assert!(
        pending > 0,
        "no poll was ever pending: the race was not exercised"
    );
}

/// 5. What the types promise.
#[test]
fn task_is_unpin_send_and_a_future() {
    fn assert_unpin<T: Unpin>() {}
    fn assert_send<T: Send>() {}
    fn assert_future<F: Future<Output = Result<u64, Panic>>>() {}
    assert_unpin::<Task<u64>>();
    assert_unpin::<Task<std::marker::PhantomPinned>>();
    assert_send::<Task<u64>>();
    assert_send::<Task<String>>();
    assert_future::<Task<u64>>();
}
