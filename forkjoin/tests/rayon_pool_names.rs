//! The pool under rayon's names: `ThreadPool`, `ThreadPoolBuilder` (`num_threads`,
//! `spawn_handler`, `build_scoped`, `use_current_thread`), `ThreadBuilder`, FIFO scopes and
//! spawns, `spawn_broadcast`, and the pool's rayon methods.

use forkjoin::{ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};

#[test]
fn num_threads_zero_means_the_default() {
    let default = ThreadPoolBuilder::new()
        .build()
        .unwrap()
        .current_num_threads();
    let zero: ThreadPool = ThreadPoolBuilder::new().num_threads(0).build().unwrap();
    assert_eq!(zero.current_num_threads(), default);
    let three = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    assert_eq!(three.install(forkjoin::current_num_threads), 3);
    assert!(forkjoin::max_num_threads() >= 3);
}

#[test]
fn a_spawn_handler_starts_every_worker() {
    let started = Arc::new(Mutex::new(Vec::new()));
    let handles = Arc::new(Mutex::new(Vec::new()));
    let pool = {
        let (started, handles) = (started.clone(), handles.clone());
        ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(|i| format!("mine-{i}"))
            .spawn_handler(move |thread| {
                started
                    .lock()
                    .unwrap()
                    .push((thread.index(), thread.name().map(str::to_owned)));
                let h = std::thread::Builder::new()
                    .name(thread.name().unwrap().to_owned())
                    .spawn(|| thread.run())?;
                handles.lock().unwrap().push(h);
                Ok(())
            })
            .build()
            .unwrap()
    };
    let names = pool.broadcast(|_| std::thread::current().name().unwrap().to_owned());
    assert_eq!(names, ["mine-0", "mine-1", "mine-2"]);
    let mut started = started.lock().unwrap().clone();
    started.sort();
    assert_eq!(
        started,
        (0..3)
            .map(|i| (i, Some(format!("mine-{i}"))))
            .collect::<Vec<_>>()
    );
    drop(pool);
    // Custom threads end on their own once the pool is dropped.
    for h in std::mem::take(&mut *handles.lock().unwrap()) {
        h.join().unwrap();
    }
}

#[test]
fn a_failing_spawn_handler_is_an_error_not_a_panic() {
    let r = ThreadPoolBuilder::new()
        .num_threads(2)
        .spawn_handler(|_thread| Err(std::io::Error::other("no threads today")))
        .build();
    match r {
        Err(e @ ThreadPoolBuildError::Spawn { .. }) => {
            assert!(e.to_string().contains("no threads today"))
        }
        other => panic!("expected a spawn error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn build_scoped_threads_borrow_from_the_caller() {
    let ran = AtomicUsize::new(0);
    let answer = ThreadPoolBuilder::new()
        .num_threads(2)
        .build_scoped(
            |thread| {
                ran.fetch_add(1, SeqCst);
                thread.run()
            },
            |pool| pool.install(|| forkjoin::join(|| 20, || 22)),
        )
        .unwrap();
    assert_eq!(answer, (20, 22));
    // Both threads ran the wrapper, and have ended: the scope joined them.
    assert_eq!(ran.load(SeqCst), 2);
}

#[test]
fn use_current_thread_makes_the_builder_worker_zero() {
    std::thread::spawn(|| {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build()
            .unwrap();
        assert_eq!(forkjoin::current_thread_index(), Some(0));
        assert_eq!(pool.current_thread_index(), Some(0));
        // A second pool cannot adopt a thread that is already a worker.
        let again = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build();
        assert!(matches!(
            again,
            Err(ThreadPoolBuildError::CurrentThreadInPool)
        ));
        // The other worker runs what this one spawns while it blocks.
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
        assert_eq!(rx.recv().unwrap(), Some(1));
        // Joins from worker 0 use the pool directly.
        let (a, b) = forkjoin::join(|| 1, || 2);
        assert_eq!((a, b), (1, 2));
        drop(pool);
        assert_eq!(forkjoin::current_thread_index(), None);
    })
    .join()
    .unwrap();
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

#[test]
fn spawn_broadcast_runs_once_per_worker_without_waiting() {
    for n in [1, 2, 8] {
        let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        pool.spawn_broadcast(move |ctx| {
            tx.lock()
                .unwrap()
                .send((ctx.index(), ctx.num_threads()))
                .unwrap()
        });
        let mut got: Vec<_> = (0..n).map(|_| rx.recv().unwrap()).collect();
        got.sort();
        assert_eq!(got, (0..n).map(|i| (i, n)).collect::<Vec<_>>());
    }
}

#[test]
fn the_pools_rayon_methods() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.current_thread_index(), None);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    assert_eq!(pool.yield_now(), None);
    pool.install(|| {
        assert!(pool.current_thread_index().unwrap() < 2);
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

#[test]
fn rayon_words_for_a_second_global_init() {
    // The global pool may already be running (other tests): either way a later call fails
    // with rayon's message.
    let _ = ThreadPoolBuilder::new().build_global();
    let err = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
}
