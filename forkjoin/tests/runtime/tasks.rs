//! Submitted jobs and their `Task`s: a stream of submissions runs each job once, from many
//! threads at once and while joins run; dropping a pool finishes its submitted tasks;
//! `is_done`, `join` from inside the pool, `invoke_all` in order; `Task` as a `Future`,
//! awaited under tokio, polled by hand with counting wakers (only the latest is woken, once),
//! and polled racing the job's completion.

use crate::common::waker::{counter, poll, wakes};
use crate::common::*;
use forkjoin::{Panic, Pool, Task};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Barrier};
use std::task::{Poll, Wake, Waker};
use std::time::Duration;

#[test]
fn eight_threads_submit_while_joins_run() {
    let pool = Arc::new(Pool::new(4).unwrap());
    let per_thread = size(500, 20);
    let barrier = Arc::new(Barrier::new(9));
    let submitters: Vec<_> = (0..8u64)
        .map(|t| {
            let (pool, barrier) = (pool.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let tasks: Vec<_> = (0..per_thread)
                    .map(|i| pool.submit(move || fib(10) + t * 1_000_000 + i))
                    .collect();
                tasks
                    .into_iter()
                    .map(|task| task.join().unwrap())
                    .sum::<u64>()
            })
        })
        .collect();
    barrier.wait();
    let n = size(25, 10);
    assert_eq!(pool.install(|| fib(n)), fib_exact(n));
    let total: u64 = submitters.into_iter().map(|h| h.join().unwrap()).sum();
    let expected: u64 = (0..8u64)
        .map(|t| {
            (0..per_thread)
                .map(|i| fib_exact(10) + t * 1_000_000 + i)
                .sum::<u64>()
        })
        .sum();
    assert_eq!(total, expected);
}

/// A stream of submissions from outside, which workers take from the submission queue in
/// batches: every job runs exactly once, whatever the worker count, and is counted.
#[test]
fn a_stream_of_submissions_runs_each_job_once() {
    let n = size(20_000, 100) as usize;
    let f = size(12, 6);
    for threads in [1, 2, OVERSUBSCRIBED] {
        let pool = Pool::new(threads).unwrap();
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let runs = runs.clone();
                pool.submit(move || {
                    runs[i].fetch_add(1, SeqCst);
                    // Every third job forks, as the submit benchmark's Tan does.
                    if i % 3 == 2 {
                        fib(f) + i as u64
                    } else {
                        i as u64
                    }
                })
            })
            .collect();
        let sum: u64 = tasks.into_iter().rev().map(|t| t.join().unwrap()).sum();
        let expected: u64 = (0..n as u64)
            .map(|i| if i % 3 == 2 { fib_exact(f) + i } else { i })
            .sum();
        assert_eq!(sum, expected, "{threads} workers");
        let once = runs.iter().filter(|r| r.load(SeqCst) == 1).count();
        assert_eq!(once, n, "{threads} workers: jobs not run exactly once");
        let stats = pool.stats();
        assert_eq!(stats.external_submissions, n as u64);
        // Each job is taken from a submission queue once (counted as stolen), in a batch
        // or alone, and may be stolen again from the worker that took the batch.
        assert!(stats.total.tasks_stolen >= n as u64, "{stats}");
    }
}

#[test]
fn dropping_a_pool_finishes_submitted_tasks() {
    let done = Arc::new(AtomicUsize::new(0));
    let n = size(200, 10) as usize;
    let exits = Exits::default();
    {
        let pool = exits.builder(2).build().unwrap();
        for _ in 0..n {
            let done = done.clone();
            // Detached: the handle is dropped at once.
            drop(pool.submit(move || {
                std::thread::sleep(Duration::from_micros(100));
                done.fetch_add(1, SeqCst);
            }));
        }
    }
    // The drop returned at once; the workers finish every task before they exit.
    exits.wait_for(2);
    assert_eq!(done.load(SeqCst), n);
}

#[test]
fn task_is_done_and_join_from_inside_the_pool() {
    let pool = Pool::new(2).unwrap();
    let (tx, rx) = mpsc::channel::<()>();
    let task = pool.submit(move || {
        rx.recv().unwrap();
        7
    });
    assert!(!task.is_done());
    tx.send(()).unwrap();
    while !task.is_done() {
        std::thread::yield_now();
    }
    assert_eq!(task.join().unwrap(), 7);
    // A worker joining a task of its own pool helps instead of blocking, even with one
    // worker: the task is queued behind it.
    let single = Pool::new(1).unwrap();
    let r = single.install(|| {
        let tasks: Vec<_> = (0..10u64).map(|i| single.submit(move || i * 2)).collect();
        tasks.into_iter().map(|t| t.join().unwrap()).sum::<u64>()
    });
    assert_eq!(r, 90);
}

/// Tasks joined in any order from a worker of their pool finish, even with one worker: a
/// task not yet started runs on its joiner, wherever its job lies in a deque (here under
/// the older tasks, where a wait that takes only a deque's oldest job cannot reach it).
#[test]
fn tasks_joined_newest_first_finish() {
    for workers in [1, 2, 8] {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let pool = Pool::new(workers).unwrap();
            let sum = pool.install(|| {
                let tasks: Vec<_> = (0..10u64).map(|i| pool.submit(move || i * 3)).collect();
                tasks
                    .into_iter()
                    .rev()
                    .map(|t| t.join().unwrap())
                    .collect::<Vec<_>>()
            });
            let _ = tx.send(sum);
        });
        let got = rx
            .recv_timeout(PATIENCE)
            .expect("joining newest first hung");
        assert_eq!(got, (0..10u64).rev().map(|i| i * 3).collect::<Vec<_>>());
    }
}

#[test]
fn invoke_all_keeps_order() {
    let pool = Pool::new(3).unwrap();
    let m = size(15, 6);
    let jobs: Vec<_> = (0..100u64).map(|i| move || fib(i % m)).collect();
    let expected: Vec<u64> = (0..100u64).map(|i| fib_exact(i % m)).collect();
    assert_eq!(pool.invoke_all(jobs), expected);
    assert_eq!(pool.invoke_all(Vec::<fn() -> u8>::new()), Vec::<u8>::new());
}

/// A thousand tasks, each forking inside with `forkjoin::join`, awaited from a
/// multi-threaded tokio runtime while the pool is also busy with a long computation.
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
                assert_eq!(v, fib_exact(10 + i % 10), "task {i}");
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
    assert_eq!(total, 100 * (10..20).map(fib_exact).sum::<u64>());

    // Tasks can also be handed to tokio as tasks of their own.
    let spawned: Vec<_> = (0..20u64)
        .map(|i| tokio::spawn(pool.submit(move || fib(i))))
        .collect();
    for (i, handle) in spawned.into_iter().enumerate() {
        assert_eq!(handle.await.unwrap().unwrap(), fib_exact(i as u64));
    }
    assert_eq!(busy.await.unwrap(), 832_040);
}

/// A panicking job comes back as `Err(Panic)` with its message, from a `&str` payload or
/// a formatted one, and the pool goes on working.
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

/// Polling with one waker, then another: only the last is woken, once. A task polled
/// only after it is done is `Ready` at once and wakes nothing; polling after `Ready`
/// panics.
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
    wait_for("the second waker", || wakes(&second) > 0);
    assert!(task.is_done());
    assert!(matches!(
        poll(&mut task, &second_waker),
        Poll::Ready(Ok(610))
    ));

    // Done before its first poll: Ready without an await, no waker kept or woken.
    let mut done = pool.submit(|| fib(12));
    wait_for("the job", || done.is_done());
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
    let exits = Exits::default();
    let pool = exits.builder(2).build().unwrap();
    drop(pool.submit(move || ran_in_job.wake()));
    assert_eq!(pool.submit(|| fib(10)).join().unwrap(), 55);
    // The drop returns at once; the workers run the unpolled task before they exit.
    drop(pool);
    exits.wait_for(2);
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
    wait_for("the job", || task.is_done());
    assert!(matches!(poll(&mut task, &waker), Poll::Ready(Ok(55))));
    // The only worker is still there.
    let next = pool.submit(|| fib(12));
    wait_for("the next job", || next.is_done());
    assert_eq!(next.join().unwrap(), 144);
}

/// Ten thousand tasks, each polled right after it is submitted, racing its completion
/// (from the submitting thread and from a second polling thread, after a varying delay;
/// a third of them polled again with another waker): a poll that returned `Pending` is
/// woken exactly once, through the latest waker, and then polls `Ready`; every result is
/// exact.
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
            // Every tenth job waits for its gate, opened only after the polls below: its
            // first poll is `Pending` whatever the timing, so the wake-up path is taken
            // (with a second waker for every thirtieth), however fast the pool is.
            let (gate, gated) = mpsc::channel::<()>();
            let mut task = pool.submit(move || {
                if i % 10 == 0 {
                    gated.recv().unwrap();
                }
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
            if i % 10 == 0 {
                assert!(state.is_pending(), "task {i} ready before its gate opened");
                gate.send(()).unwrap();
            }
            batch.push((i, task, state, latest, first, second));
        }
        for (i, mut task, state, latest, first, second) in batch {
            let result = match state {
                Poll::Ready(result) => result,
                Poll::Pending => {
                    pending_count += 1;
                    wait_for("a wake-up", || wakes(&latest) > 0);
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
    // How many of the others were found ready is up to the timing; the gated tenth were
    // all pending.
    let pending = mine.1 + theirs.1;
    eprintln!("{pending} of {TASKS} first polls were pending");
    assert!(
        pending >= TASKS / 10,
        "{pending} first polls pending, fewer than the gated {}",
        TASKS / 10
    );
}

/// What the types promise.
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
