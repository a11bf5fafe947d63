//! The pool services of rayon's `ThreadPool` (issue 21): the global pool and its
//! configuration (`FORKJOIN_NUM_THREADS`, `build_global`), start, exit and panic handlers,
//! `broadcast`, `spawn`, `in_place_scope` and `Pool::scope`.
//!
//! What depends on the process's global pool or environment runs in a child process: the
//! test re-executes this binary with `--exact <child test> --nocapture` and `CHILD` set,
//! and the child test returns at once when `CHILD` is absent.

use forkjoin::{BuildError, Pool};
use std::any::Any;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Output};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// Set in a child process: the child tests run only there.
const CHILD: &str = "FORKJOIN_SERVICES_CHILD";
/// What the child of `child_env_size` expects: a number, or `default`.
const EXPECT: &str = "FORKJOIN_SERVICES_EXPECT";
const THREADS_VAR: &str = "FORKJOIN_NUM_THREADS";

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary in a child process with `env` (`None`: removed),
/// checks that it ran and passed, and returns its output.
fn run_child(name: &str, env: &[(&str, Option<&str>)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove(THREADS_VAR);
    for (key, value) in env {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    out
}

/// The lines of the child's stderr that the runtime printed (not the panic hook's).
fn runtime_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("forkjoin:"))
        .map(str::to_owned)
        .collect()
}

fn cores() -> usize {
    thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// A panic payload's message.
fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(not a string)".into()
    }
}

/// Lets every worker of a pool park (a pool that has done nothing for a while).
fn settle() {
    thread::sleep(Duration::from_millis(50));
}

/// Polls `cond` until it holds, for at most 20 s.
fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        thread::sleep(Duration::from_millis(1));
    }
}

// ---- 2. The global pool and its configuration -------------------------------------------

/// Child: the global pool, a builder without `threads` and `Pool::default` all have the
/// size `EXPECT` says; `threads(n)` still wins.
#[test]
fn child_env_size() {
    if !in_child() {
        return;
    }
    let expected = match std::env::var(EXPECT).unwrap().as_str() {
        "default" => cores(),
        n => n.parse().unwrap(),
    };
    assert_eq!(forkjoin::current_num_threads(), expected);
    assert_eq!(
        forkjoin::broadcast(|ctx| ctx.index()),
        (0..expected).collect::<Vec<_>>()
    );
    assert_eq!(Pool::builder().build().unwrap().num_threads(), expected);
    assert_eq!(Pool::default().num_threads(), expected);
    assert_eq!(Pool::builder().threads(2).build().unwrap().num_threads(), 2);
}

#[test]
fn num_threads_variable_sizes_the_global_pool_and_builders() {
    let out = run_child(
        "child_env_size",
        &[(THREADS_VAR, Some("3")), (EXPECT, Some("3"))],
    );
    assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
}

#[test]
fn an_unparsable_num_threads_is_reported_once_and_ignored() {
    for value in ["abc", "-1", "2.5"] {
        let out = run_child(
            "child_env_size",
            &[(THREADS_VAR, Some(value)), (EXPECT, Some("default"))],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "exactly one line on stderr: {stderr}");
        assert!(
            lines[0].contains(THREADS_VAR) && lines[0].contains(&format!("\"{value}\"")),
            "the line names the variable and the value: {}",
            lines[0]
        );
    }
}

#[test]
fn zero_or_no_num_threads_means_the_default_silently() {
    for value in [Some("0"), None] {
        let out = run_child(
            "child_env_size",
            &[(THREADS_VAR, value), (EXPECT, Some("default"))],
        );
        assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    }
}

/// Child: `build_global` before the first use configures the global pool.
#[test]
fn child_build_global_then_use() {
    if !in_child() {
        return;
    }
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    Pool::builder()
        .threads(3)
        .thread_name(|i| format!("global-{i}"))
        .start_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build_global()
        .unwrap();
    assert_eq!(forkjoin::current_num_threads(), 3);
    let names = forkjoin::broadcast(|_| thread::current().name().unwrap().to_owned());
    assert_eq!(names, ["global-0", "global-1", "global-2"]);
    assert_eq!(started.load(SeqCst), 3);
    let (a, b) = forkjoin::join(|| 1, || 2);
    assert_eq!(a + b, 3);
    let again = Pool::builder().threads(2).build_global();
    assert!(matches!(
        again,
        Err(BuildError::GlobalPoolAlreadyInitialized)
    ));
    assert_eq!(forkjoin::current_num_threads(), 3);
}

#[test]
fn build_global_then_first_use_gives_the_configured_size() {
    let out = run_child("child_build_global_then_use", &[]);
    assert!(runtime_lines(&out).is_empty());
}

/// In this process: the global pool is in use (or is started here), so `build_global`
/// fails, starts no thread, and changes nothing.
#[test]
fn build_global_after_first_use_is_an_error() {
    let size = forkjoin::current_num_threads();
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    let err = Pool::builder()
        .threads(size + 1)
        .start_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build_global()
        .unwrap_err();
    assert!(matches!(err, BuildError::GlobalPoolAlreadyInitialized));
    // rayon's words, which programs and rayon's own tests compare against.
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
    assert_eq!(forkjoin::current_num_threads(), size);
    thread::sleep(Duration::from_millis(20));
    assert_eq!(started.load(SeqCst), 0);
}

/// The threads of this process whose names start with `prefix` (Linux).
#[cfg(target_os = "linux")]
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

/// Child: two threads call `build_global` at once.
#[test]
fn child_build_global_race() {
    if !in_child() {
        return;
    }
    let barrier = Arc::new(Barrier::new(2));
    let counters = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let sizes = [2, 3];
    let results: Vec<Result<(), BuildError>> = (0..2)
        .map(|k| {
            let barrier = Arc::clone(&barrier);
            let counter = Arc::clone(&counters[k]);
            thread::spawn(move || {
                let builder = Pool::builder()
                    .threads(sizes[k])
                    .thread_name(move |i| format!("race{k}-{i}"))
                    .start_handler(move |_| {
                        counter.fetch_add(1, SeqCst);
                    });
                barrier.wait();
                builder.build_global()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let winners: Vec<usize> = (0..2).filter(|&k| results[k].is_ok()).collect();
    assert_eq!(
        winners.len(),
        1,
        "exactly one build_global wins: {results:?}"
    );
    let (w, l) = (winners[0], 1 - winners[0]);
    assert!(matches!(
        results[l],
        Err(BuildError::GlobalPoolAlreadyInitialized)
    ));
    assert_eq!(forkjoin::current_num_threads(), sizes[w]);
    wait_for("the winner's workers start", || {
        counters[w].load(SeqCst) == sizes[w]
    });
    thread::sleep(Duration::from_millis(30));
    assert_eq!(counters[w].load(SeqCst), sizes[w]);
    assert_eq!(counters[l].load(SeqCst), 0, "the loser started no thread");
    #[cfg(target_os = "linux")]
    {
        assert_eq!(threads_named(&format!("race{w}-")), sizes[w]);
        assert_eq!(threads_named(&format!("race{l}-")), 0);
    }
}

#[test]
fn racing_build_global_calls_build_one_pool() {
    for _ in 0..4 {
        run_child("child_build_global_race", &[]);
    }
}

// ---- 3. Start and exit handlers ----------------------------------------------------------

#[test]
fn start_and_exit_handlers_run_once_per_worker_on_its_thread() {
    for n in [1, 2, 4] {
        // (index, thread name, index seen by `current_thread_index`)
        type Calls = Arc<Mutex<Vec<(usize, String, Option<usize>)>>>;
        let starts: Calls = Arc::default();
        let exits: Calls = Arc::default();
        let started: Arc<Vec<AtomicBool>> =
            Arc::new((0..n).map(|_| AtomicBool::new(false)).collect());
        let record = |calls: &Calls, i: usize| {
            calls.lock().unwrap().push((
                i,
                thread::current().name().unwrap().to_owned(),
                forkjoin::current_thread_index(),
            ));
        };
        let pool = {
            let (starts, exits, started) = (starts.clone(), exits.clone(), started.clone());
            Pool::builder()
                .threads(n)
                .start_handler(move |i| {
                    record(&starts, i);
                    started[i].store(true, SeqCst);
                })
                .exit_handler(move |i| record(&exits, i))
                .build()
                .unwrap()
        };
        // Every worker started before it took any work.
        let before_work = pool.broadcast(|ctx| started[ctx.index()].load(SeqCst));
        assert_eq!(before_work, vec![true; n]);
        let sum: u64 =
            pool.install(|| forkjoin::map_reduce(0..1000, || 0, |i| i as u64, |a, b| a + b));
        assert_eq!(sum, 499_500);
        assert!(exits.lock().unwrap().is_empty(), "no exit before the drop");
        drop(pool);
        for calls in [&starts, &exits] {
            let mut calls = calls.lock().unwrap().clone();
            calls.sort();
            let expected: Vec<_> = (0..n)
                .map(|i| (i, format!("forkjoin-{i}"), Some(i)))
                .collect();
            assert_eq!(calls, expected);
        }
    }
}

#[test]
fn panicking_handlers_reach_the_panic_handler_and_the_pool_works() {
    let n = 3;
    let reports = Arc::new(Mutex::new(Vec::new()));
    let pool = {
        let reports = Arc::clone(&reports);
        Pool::builder()
            .threads(n)
            .start_handler(|i| panic!("start {i}"))
            .exit_handler(|i| panic!("exit {i}"))
            .panic_handler(move |p| reports.lock().unwrap().push(message(&*p)))
            .build()
            .unwrap()
    };
    wait_for("every start handler ran", || {
        reports.lock().unwrap().len() == n
    });
    let (a, b) = pool.join(|| 20, || 22);
    assert_eq!(a + b, 42);
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    drop(pool);
    let mut got = reports.lock().unwrap().clone();
    got.sort();
    let mut expected: Vec<String> = (0..n)
        .flat_map(|i| [format!("start {i}"), format!("exit {i}")])
        .collect();
    expected.sort();
    assert_eq!(got, expected);
}

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
    let start = Instant::now();
    let mut rounds = 0;
    while start.elapsed() < Duration::from_millis(300) {
        let seen = pool.broadcast(|ctx| {
            thread::sleep(Duration::from_micros(ctx.index() as u64));
            ctx.index()
        });
        assert_eq!(seen, (0..7).collect::<Vec<_>>());
        rounds += 1;
    }
    assert!(rounds > 0);
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

// ---- 4. spawn ------------------------------------------------------------------------------

/// Spawns `count` jobs with `spawn`, each reporting on `tx` the pool size it saw.
fn spawn_reporting(
    count: usize,
    tx: &mpsc::Sender<usize>,
    spawn: impl Fn(Box<dyn FnOnce() + Send>),
) {
    for _ in 0..count {
        let tx = tx.clone();
        spawn(Box::new(move || {
            assert!(forkjoin::current_thread_index().is_some(), "on a worker");
            tx.send(forkjoin::current_num_threads()).unwrap();
        }));
    }
}

/// Runs `spawn_all` with a sender, and returns what every job reported, once all have run
/// and dropped their senders. The waiting is done here, outside any pool: a worker that
/// blocked on the channel could keep its own queue from running.
fn spawned_sizes(spawn_all: impl FnOnce(mpsc::Sender<usize>)) -> Vec<usize> {
    let (tx, rx) = mpsc::channel();
    spawn_all(tx);
    rx.iter().collect()
}

#[test]
fn ten_thousand_spawned_jobs_from_outside_all_run() {
    let pool = Pool::new(2).unwrap();
    let sizes = spawned_sizes(|tx| spawn_reporting(10_000, &tx, |f| pool.spawn(f)));
    assert_eq!(sizes, vec![2; 10_000]);
    let global = forkjoin::current_num_threads();
    let sizes = spawned_sizes(|tx| spawn_reporting(10_000, &tx, forkjoin::spawn));
    assert_eq!(sizes, vec![global; 10_000]);
}

#[test]
fn ten_thousand_spawned_jobs_from_inside_workers_all_run() {
    for n in [1, 2, 4] {
        let pool = Pool::new(n).unwrap();
        // From `install` (in a borrowed slot when a worker is parked).
        let sizes =
            spawned_sizes(|tx| pool.install(|| spawn_reporting(10_000, &tx, forkjoin::spawn)));
        assert_eq!(sizes, vec![n; 10_000]);
        // From a job on a worker thread: onto its own deque.
        let sizes =
            spawned_sizes(|tx| pool.spawn(move || spawn_reporting(10_000, &tx, forkjoin::spawn)));
        assert_eq!(sizes, vec![n; 10_000]);
        // Spawned from spawned jobs: 100 jobs spawn 100 each.
        let counter = Arc::new(AtomicUsize::new(0));
        let done = Arc::new((Mutex::new(0usize), Condvar::new()));
        for _ in 0..100 {
            let (counter, done) = (Arc::clone(&counter), Arc::clone(&done));
            pool.spawn(move || {
                for _ in 0..100 {
                    let (counter, done) = (Arc::clone(&counter), Arc::clone(&done));
                    forkjoin::spawn(move || {
                        counter.fetch_add(1, SeqCst);
                        *done.0.lock().unwrap() += 1;
                        done.1.notify_all();
                    });
                }
            });
        }
        let (lock, cv) = &*done;
        let finished = cv
            .wait_timeout_while(lock.lock().unwrap(), Duration::from_secs(60), |d| {
                *d < 10_000
            })
            .unwrap()
            .0;
        assert_eq!(*finished, 10_000);
        drop(finished);
        thread::sleep(Duration::from_millis(10));
        assert_eq!(counter.load(SeqCst), 10_000);
    }
}

#[test]
fn panicking_spawned_jobs_go_to_the_panic_handler() {
    let (tx, rx) = mpsc::channel::<Result<usize, String>>();
    let handler_tx = Mutex::new(tx.clone());
    let pool = Pool::builder()
        .threads(2)
        .panic_handler(move |p| handler_tx.lock().unwrap().send(Err(message(&*p))).unwrap())
        .build()
        .unwrap();
    for i in 0..1000usize {
        let tx = tx.clone();
        pool.spawn(move || {
            if i % 10 == 3 {
                panic!("job {i}");
            }
            tx.send(Ok(i)).unwrap();
        });
    }
    drop(tx);
    // Dropping the pool runs every job, then drops its panic handler and its sender.
    drop(pool);
    let (mut ok, mut panicked) = (Vec::new(), Vec::new());
    for r in rx.iter() {
        match r {
            Ok(i) => ok.push(i),
            Err(m) => panicked.push(m),
        }
    }
    ok.sort();
    panicked.sort();
    assert_eq!(ok, (0..1000).filter(|i| i % 10 != 3).collect::<Vec<_>>());
    let mut expected: Vec<String> = (0..1000)
        .filter(|i| i % 10 == 3)
        .map(|i| format!("job {i}"))
        .collect();
    expected.sort();
    assert_eq!(panicked, expected);
}

/// Child: a spawned job panics in a pool without a panic handler.
#[test]
fn child_default_panic_report() {
    if !in_child() {
        return;
    }
    let pool = Pool::new(2).unwrap();
    pool.spawn(|| panic!("boom"));
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(5).unwrap());
    assert_eq!(rx.recv().unwrap(), 5);
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
    drop(pool);
}

#[test]
fn without_a_panic_handler_a_spawned_panic_is_one_line_and_the_pool_lives_on() {
    let out = run_child("child_default_panic_report", &[]);
    assert_eq!(
        runtime_lines(&out),
        ["forkjoin: a spawned job panicked: boom"]
    );
}

/// Child: the panic handler itself panics.
#[test]
fn child_panicking_panic_handler() {
    if !in_child() {
        return;
    }
    let pool = Pool::builder()
        .threads(2)
        .panic_handler(|_| panic!("handler broke"))
        .build()
        .unwrap();
    pool.spawn(|| panic!("boom"));
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(5).unwrap());
    assert_eq!(rx.recv().unwrap(), 5);
    drop(pool);
    // Every worker is still alive until the drop: all ended normally.
}

#[test]
fn a_panicking_panic_handler_is_reported_and_never_aborts() {
    let out = run_child("child_panicking_panic_handler", &[]);
    assert_eq!(
        runtime_lines(&out),
        ["forkjoin: the panic handler panicked on the panic of a spawned job: handler broke"]
    );
}

#[test]
fn dropping_the_pool_runs_every_spawned_job() {
    for n in [1, 2, 4] {
        let counter = Arc::new(AtomicUsize::new(0));
        let pool = Pool::new(n).unwrap();
        for _ in 0..1000 {
            let counter = Arc::clone(&counter);
            pool.spawn(move || {
                counter.fetch_add(1, SeqCst);
            });
        }
        drop(pool);
        assert_eq!(counter.load(SeqCst), 1000);

        // Jobs spawned by spawned jobs, some of them while the pool drains.
        let counter = Arc::new(AtomicUsize::new(0));
        let pool = Pool::new(n).unwrap();
        for _ in 0..100 {
            let counter = Arc::clone(&counter);
            pool.spawn(move || {
                for _ in 0..9 {
                    let counter = Arc::clone(&counter);
                    forkjoin::spawn(move || {
                        counter.fetch_add(1, SeqCst);
                    });
                }
                counter.fetch_add(1, SeqCst);
            });
        }
        drop(pool);
        assert_eq!(counter.load(SeqCst), 1000);
    }
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
