//! `spawn` and `spawn_fifo`: ten thousand jobs from outside and from inside all run, on a
//! worker; FIFO spawns run in submission order; a spawned job's panic goes to the panic
//! handler, or without one is one line on stderr, and a panicking panic handler never
//! aborts; dropping the pool returns at once, and its workers still run every spawned job,
//! including those spawned while it drains, before they exit.

use crate::common::child::{in_child, run_child, runtime_lines};
use crate::common::*;
use forkjoin::{Pool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread::{self};
use std::time::Duration;

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
    // Dropping the pool returns at once; its workers run every job, and the last to exit
    // drops the pool's panic handler and its sender, which ends `rx.iter()`.
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
#[ignore = "run in a child process by the test that names it"]
fn child_default_panic_report() {
    if !in_child() {
        return;
    }
    let exits = Exits::default();
    let pool = exits.builder(2).build().unwrap();
    pool.spawn(|| panic!("boom"));
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(5).unwrap());
    assert_eq!(rx.recv().unwrap(), 5);
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
    // The drop returns at once: wait for the workers, which report the panic before they
    // exit, before the process ends.
    drop(pool);
    exits.wait_for(2);
}

#[test]
fn without_a_panic_handler_a_spawned_panic_is_one_line_and_the_pool_lives_on() {
    let out = run_child(module_path!(), "child_default_panic_report", &[]);
    assert_eq!(
        runtime_lines(&out),
        ["forkjoin: a spawned job panicked: boom"]
    );
}

/// Child: the panic handler itself panics.
#[test]
#[ignore = "run in a child process by the test that names it"]
fn child_panicking_panic_handler() {
    if !in_child() {
        return;
    }
    let exits = Exits::default();
    let pool = exits
        .builder(2)
        .panic_handler(|_| panic!("handler broke"))
        .build()
        .unwrap();
    pool.spawn(|| panic!("boom"));
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(5).unwrap());
    assert_eq!(rx.recv().unwrap(), 5);
    drop(pool);
    // Every worker is still alive until the drop, and all end normally (their exit
    // handlers run), after the panic's report.
    exits.wait_for(2);
}

#[test]
fn a_panicking_panic_handler_is_reported_and_never_aborts() {
    let out = run_child(module_path!(), "child_panicking_panic_handler", &[]);
    assert_eq!(
        runtime_lines(&out),
        ["forkjoin: the panic handler panicked on the panic of a spawned job: handler broke"]
    );
}

#[test]
fn dropping_the_pool_runs_every_spawned_job() {
    for n in [1, 2, 4] {
        let counter = Arc::new(AtomicUsize::new(0));
        let exits = Exits::default();
        let pool = exits.builder(n).build().unwrap();
        for _ in 0..1000 {
            let counter = Arc::clone(&counter);
            pool.spawn(move || {
                counter.fetch_add(1, SeqCst);
            });
        }
        // The drop returns at once; the workers run every job before they exit.
        drop(pool);
        exits.wait_for(n);
        assert_eq!(counter.load(SeqCst), 1000);

        // Jobs spawned by spawned jobs, some of them while the pool drains.
        let counter = Arc::new(AtomicUsize::new(0));
        let exits = Exits::default();
        let pool = exits.builder(n).build().unwrap();
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
        exits.wait_for(n);
        assert_eq!(counter.load(SeqCst), 1000);
    }
}

#[test]
fn spawn_fifo_runs_in_submission_order_on_one_worker() {
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let (tx, rx) = mpsc::channel();
    // Hold the worker so that all are queued before any runs.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    pool.spawn(move || go_rx.recv().unwrap());
    for i in 0..50 {
        let tx = tx.clone();
        pool.spawn_fifo(move || tx.send(i).unwrap());
    }
    go_tx.send(()).unwrap();
    let got: Vec<i32> = (0..50).map(|_| rx.recv().unwrap()).collect();
    assert_eq!(got, (0..50).collect::<Vec<_>>());
}
