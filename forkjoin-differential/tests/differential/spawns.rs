//! The ordering guarantees rayon documents for `spawn_fifo`, `scope`, `scope_fifo` and
//! `in_place_scope`, a panic in a scope's spawn, and `yield_now`/`yield_local` outside a pool.

use crate::common::PATIENCE;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Mutex};

same_on_both! {
    /// At one worker a scope runs its spawns newest first (LIFO), a FIFO scope oldest first.
    fn scope_is_lifo_and_scope_fifo_is_fifo_at_one_worker() -> (Vec<usize>, Vec<usize>) {
        let pool = rt::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let lifo = Mutex::new(Vec::new());
        pool.scope(|s| {
            for i in 0..6 {
                let lifo = &lifo;
                s.spawn(move |_| lifo.lock().unwrap().push(i));
            }
        });
        let fifo = Mutex::new(Vec::new());
        pool.scope_fifo(|s| {
            for i in 0..6 {
                let fifo = &fifo;
                s.spawn_fifo(move |_| fifo.lock().unwrap().push(i));
            }
        });
        (lifo.into_inner().unwrap(), fifo.into_inner().unwrap())
    }
}

same_on_both! {
    /// Jobs spawned with `spawn_fifo` from outside while the one worker is busy run in the
    /// order they were spawned.
    fn spawn_fifo_from_outside_runs_in_order_at_one_worker() -> Vec<usize> {
        let pool = rt::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (go_tx, go) = mpsc::channel::<()>();
        let (started_tx, started) = mpsc::channel::<()>();
        // Hold the worker until every job is queued.
        pool.spawn(move || {
            started_tx.send(()).unwrap();
            go.recv().unwrap();
        });
        started.recv_timeout(PATIENCE).unwrap();
        let (tx, rx) = mpsc::channel();
        for i in 0..6 {
            let tx = tx.clone();
            pool.spawn_fifo(move || tx.send(i).unwrap());
        }
        go_tx.send(()).unwrap();
        (0..6).filter_map(|_| rx.recv_timeout(PATIENCE).ok()).collect()
    }
}

same_on_both! {
    /// A panic in a scope's spawn reaches the caller once every spawn has run; the other
    /// spawns are not cancelled.
    fn a_panic_in_a_scope_spawn_reaches_the_caller_after_all_spawns() -> Vec<(usize, String)> {
        crate::common::WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let ran = AtomicUsize::new(0);
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.scope(|s| {
                        s.spawn(|_| panic!("one spawn failed"));
                        for _ in 0..20 {
                            s.spawn(|_| {
                                ran.fetch_add(1, SeqCst);
                            });
                        }
                    })
                }));
                let message = r
                    .err()
                    .and_then(|p| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                (ran.load(SeqCst), message)
            })
            .collect()
    }
}

same_on_both! {
    /// `in_place_scope` runs its closure on the calling thread and its spawns in the pool,
    /// every one of them before it returns.
    fn in_place_scope_runs_its_closure_here_and_its_spawns_in_the_pool() -> Vec<(bool, Vec<bool>)> {
        crate::common::WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let me = std::thread::current().id();
                let seen = Mutex::new(Vec::new());
                let here = pool.in_place_scope(|s| {
                    for _ in 0..8 {
                        let seen = &seen;
                        s.spawn(move |_| {
                            let i = rt::current_thread_index();
                            seen.lock().unwrap().push(i.is_some_and(|i| i < n));
                        });
                    }
                    std::thread::current().id() == me
                });
                (here, seen.into_inner().unwrap())
            })
            .collect()
    }
}

same_on_both! {
    /// Outside any pool there is nothing to yield to: `None`.
    fn yield_outside_a_pool_is_none() -> (bool, bool, bool, bool) {
        let pool = rt::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        (
            rt::yield_now().is_none(),
            rt::yield_local().is_none(),
            pool.yield_now().is_none(),
            pool.yield_local().is_none(),
        )
    }
}
