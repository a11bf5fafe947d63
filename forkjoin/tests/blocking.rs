//! `forkjoin::blocking`: compensation for blocked workers (spare threads), its limits, and
//! that nothing is left behind.

mod common;

use common::{fib, wait_for, PATIENCE};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// The tests count the process's spare threads: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Threads of this process whose name starts with `forkjoin-spare`.
fn spare_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter(|t| {
            let comm = t.as_ref().unwrap().path().join("comm");
            std::fs::read_to_string(comm).is_ok_and(|n| n.starts_with("forkjoin-spare"))
        })
        .count()
}

/// Waits for the spares to retire and exit (at most `PATIENCE`); returns how many are left.
/// None must be seen for 200 ms: a spare started just before is named by its own thread when
/// it first runs, and until then it carries the name of the worker that started it (a
/// fresh-clone CI run saw 0 spares, then 1).
fn spares_after_retiring() -> usize {
    let start = Instant::now();
    let mut none_since = None;
    while start.elapsed() < PATIENCE {
        match (spare_threads(), none_since) {
            (0, Some(since)) if Instant::now() - since >= Duration::from_millis(200) => return 0,
            (0, None) => none_since = Some(Instant::now()),
            (0, Some(_)) => {}
            _ => none_since = None,
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    spare_threads()
}

/// `n` tasks each enter `blocking` and stay there until `n` have been inside at once (or
/// `PATIENCE` has passed: only a hang gets there); returns the most that were inside at
/// once. A rendezvous, not a time window: nobody leaves before the count has reached `n`,
/// so it reaches `n` exactly when compensation lets all `n` block at once, however slowly
/// the threads come.
fn most_inside_at_once(pool: &forkjoin::Pool, n: usize) -> usize {
    let inside = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    pool.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..n {
                s.spawn(|_| {
                    forkjoin::blocking(|| {
                        most.fetch_max(inside.fetch_add(1, SeqCst) + 1, SeqCst);
                        let start = Instant::now();
                        while most.load(SeqCst) < n && start.elapsed() < PATIENCE {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        inside.fetch_sub(1, SeqCst);
                    })
                });
            }
        })
    });
    most.load(SeqCst)
}

#[test]
fn sixteen_blocked_tasks_on_two_workers_all_wait_at_once() {
    let _serial = serial();
    let pool = forkjoin::Pool::new(2).unwrap();
    assert_eq!(most_inside_at_once(&pool, 16), 16);
    assert_eq!(spares_after_retiring(), 0);
    // And again: retired spare slots are reused.
    assert_eq!(most_inside_at_once(&pool, 16), 16);
    assert_eq!(spares_after_retiring(), 0);
}

#[test]
fn spares_are_bounded_by_max_blocking() {
    let _serial = serial();
    let pool = forkjoin::Pool::builder()
        .threads(2)
        .max_blocking(3)
        .build()
        .unwrap();
    // Two workers and three spares: five blocked at once at most; the other tasks wait
    // for a thread.
    let inside = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    pool.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    forkjoin::blocking(|| {
                        most.fetch_max(inside.fetch_add(1, SeqCst) + 1, SeqCst);
                        // Stay until five have been inside at once (a rendezvous: the five
                        // may come as slowly as the machine lets them), then a little
                        // longer, in which a sixth would enter if the bound let it.
                        wait_for("five tasks blocked at once", || most.load(SeqCst) >= 5);
                        std::thread::sleep(Duration::from_millis(20));
                        inside.fetch_sub(1, SeqCst);
                    })
                });
            }
        })
    });
    assert_eq!(most.load(SeqCst), 5);
    assert_eq!(spares_after_retiring(), 0);
}

#[test]
fn without_compensation_a_blocked_worker_keeps_its_core() {
    let _serial = serial();
    let pool = forkjoin::Pool::builder()
        .threads(2)
        .max_blocking(0)
        .build()
        .unwrap();
    assert_eq!(spare_threads(), 0);
    let inside = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    pool.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..4 {
                s.spawn(|_| {
                    forkjoin::blocking(|| {
                        let now = inside.fetch_add(1, SeqCst) + 1;
                        most.fetch_max(now, SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        inside.fetch_sub(1, SeqCst);
                    })
                });
            }
        })
    });
    assert!(most.load(SeqCst) <= 2);
    assert_eq!(spare_threads(), 0);
}

#[test]
fn work_installed_while_every_worker_blocks_runs_at_once() {
    let _serial = serial();
    let pool = forkjoin::Pool::new(2).unwrap();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let blocked = AtomicUsize::new(0);
    std::thread::scope(|t| {
        t.spawn(|| {
            pool.install(|| {
                forkjoin::join(
                    || {
                        forkjoin::blocking(|| {
                            blocked.fetch_add(1, SeqCst);
                            release_rx.lock().unwrap().recv().unwrap();
                        })
                    },
                    || {
                        forkjoin::blocking(|| {
                            blocked.fetch_add(1, SeqCst);
                            // Holds the lock's turn: waits until the first has received.
                            std::thread::sleep(Duration::from_millis(1));
                            release_rx.lock().unwrap().recv().unwrap();
                        })
                    },
                )
            });
        });
        wait_for("both workers blocked", || blocked.load(SeqCst) == 2);
        // Both workers are blocked: a parallel sum installed now must still run.
        let (done_tx, done_rx) = mpsc::channel();
        let pool = &pool;
        t.spawn(move || {
            use forkjoin::prelude::*;
            let sum: u64 = pool.install(|| (1..=100_000u64).into_par_iter().sum());
            done_tx.send(sum).unwrap();
        });
        let sum = done_rx.recv_timeout(PATIENCE);
        release_tx.send(()).unwrap();
        release_tx.send(()).unwrap();
        assert_eq!(sum, Ok(5_000_050_000));
    });
    assert_eq!(spares_after_retiring(), 0);
}

#[test]
fn inside_blocking_the_pool_keeps_its_size_and_indexes() {
    let _serial = serial();
    for threads in [1, 2, 8] {
        let pool = forkjoin::Pool::new(threads).unwrap();
        let seen = Mutex::new(Vec::new());
        pool.install(|| {
            forkjoin::scope(|s| {
                for _ in 0..threads * 3 {
                    s.spawn(|_| {
                        forkjoin::blocking(|| std::thread::sleep(Duration::from_millis(10)));
                        // Possibly on a spare now.
                        let n = forkjoin::current_num_threads();
                        let i = forkjoin::current_thread_index();
                        seen.lock().unwrap().push((n, i));
                    });
                }
            })
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), threads * 3);
        for (n, i) in seen {
            assert_eq!(n, threads);
            assert!(i.unwrap() < threads);
        }
        assert_eq!(spares_after_retiring(), 0);
    }
}

#[test]
fn blocking_outside_any_pool_just_runs() {
    let _serial = serial();
    assert_eq!(forkjoin::blocking(|| 6 * 7), 42);
    assert_eq!(spare_threads(), 0);
}

#[test]
fn joins_scopes_and_nested_blocking_inside_blocking() {
    let _serial = serial();
    let pool = forkjoin::Pool::new(2).unwrap();
    let r = pool.install(|| {
        forkjoin::blocking(|| {
            let (a, b) = forkjoin::join(
                || forkjoin::blocking(|| fib(20)),
                || {
                    let mut parts = [0u64; 4];
                    forkjoin::scope(|s| {
                        for (i, p) in parts.iter_mut().enumerate() {
                            s.spawn(move |_| *p = forkjoin::blocking(|| fib(10 + i as u64)));
                        }
                    });
                    parts.iter().sum::<u64>()
                },
            );
            a + b
        })
    });
    assert_eq!(r, 6765 + 55 + 89 + 144 + 233);
    assert_eq!(spares_after_retiring(), 0);
}

/// A scope inside `blocking` whose first task waits (a plain `recv`, as a rayon program
/// would) for its second: the thread spawning inside `blocking` takes its index back first,
/// so both tasks wait on its own deque and it runs the second before the first, as rayon's
/// worker does. Before, a stand-in could take the first task and block in it, while the
/// spawner waited for the index to run the second: 1 hang in 1,000 to 3,000 runs at one
/// worker. 10,000 runs at one worker, 300 at 2 and 4, each under the watchdog.
#[test]
fn a_scope_inside_blocking_runs_its_tasks_as_rayon_does() {
    let _serial = serial();
    for (threads, runs) in [(1, 10_000u64), (2, 300), (4, 300)] {
        let pool = std::sync::Arc::new(forkjoin::Pool::new(threads).unwrap());
        let got = watchdog(
            &format!("a scope inside blocking at {threads}"),
            move || {
                (0..runs)
                    .map(|run| {
                        pool.install(|| {
                            forkjoin::blocking(|| {
                                let (tx, rx) = mpsc::channel::<u64>();
                                let rx = Mutex::new(rx);
                                let got = AtomicUsize::new(0);
                                forkjoin::scope(|s| {
                                    s.spawn(|_| {
                                        let v = rx.lock().unwrap().recv().unwrap();
                                        got.store(v as usize, SeqCst);
                                    });
                                    s.spawn(move |_| tx.send(run).unwrap());
                                });
                                got.load(SeqCst) as u64
                            })
                        })
                    })
                    .sum::<u64>()
            },
        );
        assert_eq!(got, runs * (runs - 1) / 2, "{threads} workers");
    }
    assert_eq!(spares_after_retiring(), 0);
}

#[test]
fn a_panic_inside_blocking_reaches_the_caller_and_the_counts_recover() {
    let _serial = serial();
    let pool = forkjoin::Pool::new(2).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| forkjoin::blocking(|| panic!("blocked and failed")))
    }));
    let payload = r.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"blocked and failed"));
    assert_eq!(spares_after_retiring(), 0);
    // Compensation still works afterwards.
    assert_eq!(most_inside_at_once(&pool, 6), 6);
    assert_eq!(spares_after_retiring(), 0);
}

/// 10,000 `blocking` calls mixed with joins and scopes, at 1, 2 and 8 workers: exact
/// counts, and the spares gone afterwards.
#[test]
fn stress_ten_thousand_blocking_calls_with_joins_and_scopes() {
    let _serial = serial();
    for threads in [1, 2, 8] {
        let pool = forkjoin::Pool::new(threads).unwrap();
        let calls = AtomicUsize::new(0);
        let sum = AtomicUsize::new(0);
        pool.install(|| {
            forkjoin::scope(|s| {
                for chunk in 0..100usize {
                    let (calls, sum) = (&calls, &sum);
                    s.spawn(move |_| {
                        forkjoin::scope(|s| {
                            for j in 0..100usize {
                                s.spawn(move |_| {
                                    let i = chunk * 100 + j;
                                    let v = forkjoin::blocking(|| {
                                        calls.fetch_add(1, SeqCst);
                                        if i % 97 == 0 {
                                            std::thread::sleep(Duration::from_micros(200));
                                        } else {
                                            std::thread::yield_now();
                                        }
                                        let (a, b) = forkjoin::join(|| i, || fib(5) as usize);
                                        a + b
                                    });
                                    sum.fetch_add(v, SeqCst);
                                });
                            }
                        });
                    });
                }
            })
        });
        assert_eq!(calls.load(SeqCst), 10_000, "{threads} workers");
        // sum of i over 0..10000, plus fib(5) = 5 each
        assert_eq!(
            sum.load(SeqCst),
            49_995_000 + 5 * 10_000,
            "{threads} workers"
        );
        assert_eq!(spares_after_retiring(), 0, "{threads} workers");
        drop(pool);
    }
}

#[test]
fn dropping_a_pool_with_blocked_tasks_still_runs_them() {
    let _serial = serial();
    let pool = forkjoin::Pool::new(1).unwrap();
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    for _ in 0..4 {
        let done = done.clone();
        // The task handle is dropped: the job still runs.
        drop(pool.submit(move || {
            forkjoin::blocking(|| std::thread::sleep(Duration::from_millis(20)));
            done.fetch_add(1, SeqCst);
        }));
    }
    std::thread::sleep(Duration::from_millis(5));
    // Returns at once; the worker and its stand-ins finish the tasks.
    drop(pool);
    wait_for("the four tasks", || done.load(SeqCst) == 4);
    assert_eq!(spares_after_retiring(), 0);
    assert_eq!(done.load(SeqCst), 4);
}

#[test]
fn a_worker_joining_a_task_of_another_pool_is_compensated() {
    let _serial = serial();
    // The one worker (slot) of `mine` waits for a task of `other`, which waits for a
    // message; meanwhile work installed into `mine` from outside must still run.
    let mine = forkjoin::Pool::new(1).unwrap();
    let other = forkjoin::Pool::new(1).unwrap();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    std::thread::scope(|t| {
        let (mine, other) = (&mine, &other);
        let waiter = t.spawn(move || {
            mine.install(move || {
                let task = other.submit(move || {
                    started_tx.send(()).unwrap();
                    go_rx.recv().map(|()| 5)
                });
                task.join().unwrap().unwrap()
            })
        });
        // The task has started, so `mine`'s worker is joining it or about to (a chance, not
        // a condition: if it has not yet, the install below runs anyway and the answers are
        // the same).
        started_rx.recv().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let (done_tx, done_rx) = mpsc::channel();
        t.spawn(move || done_tx.send(mine.install(|| fib(15))).unwrap());
        let r = done_rx.recv_timeout(PATIENCE);
        go_tx.send(()).unwrap();
        assert_eq!(r, Ok(610));
        assert_eq!(waiter.join().unwrap(), 5);
    });
    assert_eq!(spares_after_retiring(), 0);
}

/// A spare runs its exit handler under the index it stands in for, and only then hands the
/// index back: the blocked thread goes on after it. With `max_blocking(1)` the next block
/// reuses the slot (freed before the hand-back) and its resting thread, which runs its exit
/// handler again at the end of its second stand-in.
#[test]
fn a_spare_exits_before_its_blocked_thread_goes_on() {
    let _serial = serial();
    let exits = std::sync::Arc::new(Mutex::new(Vec::new()));
    let pool = forkjoin::Pool::builder()
        .threads(1)
        .max_blocking(1)
        .exit_handler({
            let exits = exits.clone();
            move |i| {
                let name = std::thread::current().name().unwrap_or("").to_owned();
                // Long enough that the blocked thread would overtake it if it could.
                std::thread::sleep(Duration::from_millis(50));
                exits
                    .lock()
                    .unwrap()
                    .push((i, forkjoin::current_thread_index(), name));
            }
        })
        .build()
        .unwrap();
    let ran = AtomicUsize::new(0);
    let names = |exits: &Mutex<Vec<(usize, Option<usize>, String)>>| {
        exits
            .lock()
            .unwrap()
            .iter()
            .map(|(i, shown, name)| (*i, *shown, name.starts_with("forkjoin-spare")))
            .collect::<Vec<_>>()
    };
    pool.install(|| {
        forkjoin::scope(|s| {
            s.spawn(|_| {
                ran.fetch_add(1, SeqCst);
            });
            // The one worker blocks: a spare starts, stands in under index 0 and runs the
            // task.
            forkjoin::blocking(|| {
                wait_for("the spare ran the task", || ran.load(SeqCst) == 1);
            });
            // Back: the spare has exited.
            assert_eq!(names(&exits), [(0, Some(0), true)]);
        });
        block_beside_queued_work();
        assert_eq!(names(&exits), [(0, Some(0), true); 2]);
        assert_eq!(forkjoin::join(|| fib(10), || fib(11)), (55, 89));
    });
    assert_eq!(ran.load(SeqCst), 1);
    drop(pool);
    wait_for("the worker's exit", || exits.lock().unwrap().len() == 3);
    assert_eq!(names(&exits)[2], (0, Some(0), false));
}

/// Runs `f` on a thread of its own and fails the test if it has not returned within
/// `PATIENCE` (a hang fails, instead of hanging the suite).
fn watchdog<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(Ok(r)) => r,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what}: still running after {PATIENCE:?}"),
    }
}

/// rayon's rule, which programs with per-index storage rely on: a thread's index never
/// changes, every index is below the pool's size, and no two threads run tasks under one
/// index at once; with spares standing in for blocked workers. Each task holds its index's
/// "in use" flag a while, blocks (a spare stands in), and holds it again as soon as
/// `blocking` returns, which is when a worker whose stand-in is still running a task would
/// overlap it, or when the blocked thread runs a task itself (`yield_local` inside the
/// closure). Many rounds, at 1, 2 and 8 workers.
#[test]
fn no_two_threads_run_tasks_under_one_index_at_once() {
    let _serial = serial();
    watchdog("the index test", || {
        for threads in [1, 2, 8] {
            let pool = forkjoin::Pool::new(threads).unwrap();
            let in_use: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
            let overlaps = AtomicUsize::new(0);
            let ran = AtomicUsize::new(0);
            let indices = Mutex::new(std::collections::HashMap::new());
            let changed = AtomicUsize::new(0);
            let hold = || {
                let i = forkjoin::current_thread_index().expect("a task runs in the pool");
                assert!(i < threads, "index {i} of a pool of {threads}");
                let me = std::thread::current().id();
                if *indices.lock().unwrap().entry(me).or_insert(i) != i {
                    changed.fetch_add(1, SeqCst);
                }
                if in_use[i].fetch_add(1, SeqCst) != 0 {
                    overlaps.fetch_add(1, SeqCst);
                }
                for _ in 0..20 {
                    std::thread::yield_now();
                }
                in_use[i].fetch_sub(1, SeqCst);
            };
            for _ in 0..30 {
                pool.install(|| {
                    forkjoin::scope(|s| {
                        for k in 0..threads * 4 {
                            let (hold, ran) = (&hold, &ran);
                            s.spawn(move |_| {
                                hold();
                                let inside = forkjoin::blocking(|| {
                                    if k % 2 == 0 {
                                        std::thread::sleep(Duration::from_micros(200));
                                    } else {
                                        // Runs a queued task here, under this thread's
                                        // index, which it must take back first.
                                        forkjoin::yield_local();
                                        std::thread::yield_now();
                                    }
                                    forkjoin::current_thread_index()
                                });
                                // Inside the closure: the caller's own index.
                                assert!(inside.unwrap() < threads);
                                hold();
                                ran.fetch_add(1, SeqCst);
                            });
                        }
                    })
                });
            }
            assert_eq!(ran.load(SeqCst), 30 * threads * 4, "{threads} workers");
            assert_eq!(
                overlaps.load(SeqCst),
                0,
                "{threads} workers: shared an index"
            );
            assert_eq!(
                changed.load(SeqCst),
                0,
                "{threads} workers: an index changed"
            );
            assert_eq!(spares_after_retiring(), 0, "{threads} workers");
        }
    });
}

/// Inside `blocking`'s closure the caller keeps its index (a thread's index never changes),
/// before, inside and after; a join inside the closure takes the index back before it runs
/// a task under it, so the answers and the rule hold there too.
#[test]
fn inside_blocking_the_caller_keeps_its_index() {
    let _serial = serial();
    watchdog("the index inside blocking", || {
        for threads in [1, 2, 8] {
            let pool = forkjoin::Pool::new(threads).unwrap();
            let seen = pool.install(|| {
                let before = forkjoin::current_thread_index();
                let (inside, sums) = forkjoin::blocking(|| {
                    std::thread::sleep(Duration::from_millis(2));
                    let inside = forkjoin::current_thread_index();
                    let sums = forkjoin::join(|| fib(15), || fib(16));
                    (inside, sums)
                });
                (before, inside, forkjoin::current_thread_index(), sums)
            });
            let (before, inside, after, sums) = seen;
            assert!(before.unwrap() < threads);
            assert_eq!((inside, after), (before, before));
            assert_eq!(sums, (610, 987));
            assert_eq!(spares_after_retiring(), 0);
        }
    });
}

/// Thread starts of spare threads, seen through the start handler, which runs at the start
/// of each stand-in on the spare's thread: (the index shown, the thread).
type SpareStarts = std::sync::Arc<Mutex<Vec<(usize, std::thread::ThreadId)>>>;

fn pool_recording_spare_starts(
    threads: usize,
    max_blocking: usize,
) -> (forkjoin::Pool, SpareStarts) {
    let starts: SpareStarts = Default::default();
    let pool = forkjoin::Pool::builder()
        .threads(threads)
        .max_blocking(max_blocking)
        .start_handler({
            let starts = starts.clone();
            move |i| {
                let me = std::thread::current();
                if me.name().is_some_and(|n| n.starts_with("forkjoin-spare")) {
                    starts.lock().unwrap().push((i, me.id()));
                }
            }
        })
        .build()
        .unwrap();
    (pool, starts)
}

/// A worker that blocks with nothing queued and no worker parked starts nothing: a spare
/// would only look for work, park, and be woken to give the index back. A job published
/// while it blocks (here from outside, the one that ends the block) starts the stand-in,
/// which runs it; without that start the one-worker pool would hang. 20 blocks, one stand-in
/// each, on the one resting spare thread.
#[test]
fn a_block_with_nothing_queued_gets_its_stand_in_when_work_is_published() {
    let _serial = serial();
    let (pool, starts) = pool_recording_spare_starts(1, 4);
    let pool = std::sync::Arc::new(pool);
    for round in 0..20 {
        let (blocked_tx, blocked_rx) = mpsc::channel::<()>();
        let (tx, rx) = mpsc::channel::<u64>();
        let caller = {
            let pool = pool.clone();
            std::thread::spawn(move || {
                pool.install(move || {
                    forkjoin::blocking(move || {
                        blocked_tx.send(()).unwrap();
                        rx.recv().unwrap()
                    })
                })
            })
        };
        blocked_rx
            .recv_timeout(PATIENCE)
            .expect("the worker blocks");
        // Long enough for a spare started at the block to have run its start handler.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            starts.lock().unwrap().len(),
            round,
            "round {round}: a stand-in for nothing"
        );
        // Who ran it, for the message below: a spare's thread, showing index 0.
        let ran_on = std::sync::Arc::new(Mutex::new(None));
        pool.spawn({
            let ran_on = ran_on.clone();
            move || {
                let me = std::thread::current();
                *ran_on.lock().unwrap() = Some((
                    me.name().map(str::to_owned),
                    forkjoin::current_thread_index(),
                ));
                tx.send(40 + round as u64).unwrap()
            }
        });
        let start = Instant::now();
        while !caller.is_finished() {
            assert!(
                start.elapsed() < PATIENCE,
                "round {round}: the published job never ran"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(caller.join().unwrap(), 40 + round as u64);
        let starts = starts.lock().unwrap().clone();
        let ran_on = ran_on.lock().unwrap().clone();
        let (name, index) = ran_on.clone().expect("the job ran");
        assert!(
            name.is_some_and(|n| n.starts_with("forkjoin-spare")) && index == Some(0),
            "round {round}: the job ran on {ran_on:?}, not on a spare showing index 0; starts {starts:?}"
        );
        assert_eq!(
            starts.len(),
            round + 1,
            "round {round}: the job ran on {ran_on:?}, starts {starts:?}"
        );
    }
    drop(pool);
    assert_eq!(spares_after_retiring(), 0);
}

/// A block with work queued, so that a stand-in starts: the join's second half, offered
/// as the thread blocks.
fn block_beside_queued_work() {
    forkjoin::join(|| forkjoin::blocking(|| ()), || ());
}

/// A one-worker pool whose worker blocks 101 times in a row (as a worker joining a task of
/// another pool does), each time with work queued: the first block starts a spare thread,
/// which rests after each stand-in and stands in for the next 100 blocks; one spare thread
/// in all, which exits after its keep-alive.
#[test]
fn blocks_in_a_row_reuse_one_spare_thread() {
    let _serial = serial();
    let (pool, starts) = pool_recording_spare_starts(1, 256);
    pool.install(|| {
        for _ in 0..101 {
            block_beside_queued_work();
        }
    });
    let starts = starts.lock().unwrap().clone();
    assert_eq!(starts.len(), 101);
    assert!(starts.iter().all(|&s| s == starts[0]), "{starts:?}");
    assert_eq!(starts[0].0, 0);
    // It rests (unless a stalled machine let its keep-alive run out).
    assert!(spare_threads() <= 1);
    assert_eq!(spares_after_retiring(), 0);
}

/// A broadcast made while a worker is inside `blocking` runs that worker's share on its
/// stand-in, under the worker's index: every share sees an index below the pool's size,
/// each index once. The broadcaster is the blocked closure's own join partner, offered
/// when its worker blocked.
#[test]
fn a_stand_in_runs_the_broadcast_share_under_the_index_it_stands_in_for() {
    let _serial = serial();
    for threads in [1, 2, 4] {
        let pool = forkjoin::Pool::new(threads).unwrap();
        let (tx, rx) = mpsc::channel::<()>();
        let indexes = watchdog("a broadcast beside a blocked worker", move || {
            pool.install(|| {
                forkjoin::join(
                    move || forkjoin::blocking(|| rx.recv().unwrap()),
                    || {
                        let mut seen = forkjoin::broadcast(|ctx| {
                            (
                                ctx.index(),
                                ctx.num_threads(),
                                forkjoin::current_thread_index(),
                            )
                        });
                        tx.send(()).unwrap();
                        seen.sort_unstable();
                        seen
                    },
                )
                .1
            })
        });
        let expected: Vec<_> = (0..threads).map(|i| (i, threads, Some(i))).collect();
        assert_eq!(indexes, expected, "{threads} workers");
    }
    assert_eq!(spares_after_retiring(), 0);
}

/// A resting spare stands in only for a thread of the index it showed (a thread's index
/// never changes): with one spare slot (`max_blocking(1)`), worker 1 blocking after worker 0
/// dismisses worker 0's resting spare and gets a new thread; each spare thread shows one
/// index all its life.
#[test]
fn a_resting_spare_stands_in_only_for_its_own_index() {
    let _serial = serial();
    let (pool, starts) = pool_recording_spare_starts(2, 1);
    let turn = AtomicUsize::new(0);
    let arrived = AtomicUsize::new(0);
    // Blocks in turns: 0, 1, 0, 1, 0, 0, 1, 1.
    let order = [0, 1, 0, 1, 0, 0, 1, 1];
    pool.broadcast(|ctx| {
        // Both busy first: a block beside a searching worker leaves the work to it.
        arrived.fetch_add(1, SeqCst);
        wait_for("both workers", || arrived.load(SeqCst) == 2);
        for (t, &who) in order.iter().enumerate() {
            if who == ctx.index() {
                wait_for("its turn", || turn.load(SeqCst) == t);
                block_beside_queued_work();
                turn.store(t + 1, SeqCst);
            }
        }
        // Not parked until the end: a block would wake a parked worker instead of starting
        // a spare.
        wait_for("the last turn", || turn.load(SeqCst) == order.len());
    });
    let starts = starts.lock().unwrap().clone();
    assert_eq!(
        starts.iter().map(|&(i, _)| i).collect::<Vec<_>>(),
        order,
        "{starts:?}"
    );
    let mut index_of = std::collections::HashMap::new();
    for &(i, id) in &starts {
        assert_eq!(*index_of.entry(id).or_insert(i), i, "{starts:?}");
    }
    // A new thread at each change of index (6 in the order above); the blocks of one index
    // in a row find the resting one, unless a stalled machine let its keep-alive run out.
    assert!(index_of.len() >= 6, "{starts:?}");
    assert_eq!(spares_after_retiring(), 0);
}

/// A stand-in may run a task that blocks waiting for what its blocked thread does next: a
/// client task that sends requests to the scope's body, a server that receives each inside
/// `blocking` and replies after it returns. When the stand-in runs the client, it blocks in
/// the reply's `blocking` while the server, back from its own, wants its index: it takes it
/// at once (nobody waits for a thread inside `blocking`), and the client, once replied to,
/// gets the index back while the server waits. At 1 worker the stand-in always runs the
/// client (rayon needs two workers here); at 2, 4 and 8 sometimes. Exact sums; every run.
#[test]
fn a_stand_in_blocked_on_its_blocked_thread_holds_nothing_it_needs() {
    let _serial = serial();
    for threads in [1, 2, 4, 8] {
        let pool = std::sync::Arc::new(forkjoin::Pool::new(threads).unwrap());
        for round in 0..20 {
            let pool = std::sync::Arc::clone(&pool);
            let (total, replies) = watchdog(
                &format!("request and reply at {threads} workers, round {round}"),
                move || request_and_reply(&pool, 50),
            );
            assert_eq!(
                (total, replies),
                (1225, 2450),
                "{threads} workers, round {round}"
            );
        }
    }
    assert_eq!(spares_after_retiring(), 0);
}

/// `n` requests 0, 1, ... from a client task to the scope's body, each replied to with
/// twice its number: (sum of the requests, sum of the replies).
fn request_and_reply(pool: &forkjoin::Pool, n: u64) -> (u64, u64) {
    pool.install(|| {
        let (request, requests) = mpsc::channel::<u64>();
        let (reply, replies) = mpsc::channel::<u64>();
        let requests = Mutex::new(requests);
        let (mut total, mut replied) = (0, 0);
        let client_replied = &mut replied;
        forkjoin::scope(|s| {
            s.spawn(move |_| {
                for k in 0..n {
                    request.send(k).unwrap();
                    *client_replied += forkjoin::blocking(|| replies.recv().unwrap());
                }
            });
            for _ in 0..n {
                let k = forkjoin::blocking(|| requests.lock().unwrap().recv().unwrap());
                total += k;
                reply.send(2 * k).unwrap();
            }
        });
        (total, replied)
    })
}
