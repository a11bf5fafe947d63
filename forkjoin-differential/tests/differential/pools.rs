//! Pools and their builder options: dropping a pool, thread names, start, exit and panic
//! handlers, stack size, the default size, and what a thread learns about its pool.

use crate::common::{watchdog, PATIENCE, WORKERS};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};

/// Per pool: the indices the start handler saw, and the exit handler's (index, index
/// `current_thread_index` reported there).
type Handlers = (Vec<usize>, Vec<(usize, Option<usize>)>);

same_on_both! {
    /// Dropping a pool returns at once although one of its workers runs a job that waits
    /// for a message sent after the drop; the job still runs, and every worker's exit
    /// handler runs (on a one-worker pool, after the job).
    fn dropping_a_pool_returns_at_once_and_its_queued_job_still_runs()
        -> Vec<(bool, bool, Vec<&'static str>)>
    {
        WORKERS
            .iter()
            .map(|&n| {
                let (events_tx, events) = mpsc::channel::<&'static str>();
                let (go_tx, go) = mpsc::channel::<()>();
                let exit_tx = Mutex::new(events_tx.clone());
                let pool = rt::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .exit_handler(move |_| exit_tx.lock().unwrap().send("exit").unwrap())
                    .build()
                    .unwrap();
                pool.spawn(move || {
                    go.recv().unwrap();
                    events_tx.send("job").unwrap();
                });
                let returned = watchdog(move || drop(pool)).is_some();
                // Idle workers may exit at once; the job waits for `go`.
                let mut all: Vec<_> = events.try_iter().collect();
                let job_before_go = all.contains(&"job");
                go_tx.send(()).unwrap();
                let more = n + 1 - all.len();
                all.extend((0..more).filter_map(|_| events.recv_timeout(PATIENCE).ok()));
                if n > 1 {
                    all.sort_unstable();
                }
                (returned, job_before_go, all)
            })
            .collect()
    }
}

same_on_both! {
    /// `thread_name` names each worker by its index.
    fn thread_names() -> Vec<Vec<String>> {
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("named-{i}"))
                    .build()
                    .unwrap();
                pool.broadcast(|_| std::thread::current().name().unwrap_or("").to_owned())
            })
            .collect()
    }
}

same_on_both! {
    /// The start handler runs once per worker with its index, before it takes work; the
    /// exit handler once per worker after the drop, with its index, on that worker (the
    /// index `current_thread_index` reports there).
    fn start_and_exit_handlers() -> Vec<Handlers> {
        WORKERS
            .iter()
            .map(|&n| {
                let starts = Arc::new(Mutex::new(Vec::new()));
                let (exit_tx, exits) = mpsc::channel();
                let exit_tx = Mutex::new(exit_tx);
                let pool = {
                    let starts = Arc::clone(&starts);
                    rt::ThreadPoolBuilder::new()
                        .num_threads(n)
                        .start_handler(move |i| starts.lock().unwrap().push(i))
                        .exit_handler(move |i| {
                            let here = rt::current_thread_index();
                            exit_tx.lock().unwrap().send((i, here)).unwrap();
                        })
                        .build()
                        .unwrap()
                };
                // Every worker runs a share: all have started.
                pool.broadcast(|_| ());
                let mut started = starts.lock().unwrap().clone();
                started.sort();
                drop(pool);
                let mut exited: Vec<_> =
                    (0..n).filter_map(|_| exits.recv_timeout(PATIENCE).ok()).collect();
                exited.sort();
                (started, exited)
            })
            .collect()
    }
}

same_on_both! {
    /// A spawned job's panic goes to the panic handler, with its payload; the pool goes on.
    fn a_spawned_panic_goes_to_the_panic_handler() -> (Option<String>, u32) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let pool = rt::ThreadPoolBuilder::new()
            .num_threads(2)
            .panic_handler(move |payload| {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                tx.lock().unwrap().send(message).unwrap();
            })
            .build()
            .unwrap();
        pool.spawn(|| panic!("spawned and failed"));
        let reported = rx.recv_timeout(PATIENCE).ok();
        (reported, pool.install(|| 40 + 2))
    }
}

same_on_both! {
    /// A job that needs a deep stack runs on a pool built with `stack_size`.
    fn a_job_that_needs_the_stack_size_runs() -> u64 {
        let pool = rt::ThreadPoolBuilder::new()
            .num_threads(1)
            // Room for the two or three copies of the array an unoptimised build makes.
            .stack_size(256 << 20)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || {
            // 32 MiB on the stack: far beyond a default thread's.
            let big = std::hint::black_box([1u8; 32 << 20]);
            tx.send(big.iter().map(|&b| b as u64).sum::<u64>()).unwrap();
        });
        rx.recv_timeout(PATIENCE).unwrap_or(0)
    }
}

same_on_both! {
    /// `num_threads(0)` means the default (one per core, or the environment's setting);
    /// `current_num_threads` is the pool's size inside it and the global pool's outside;
    /// `ThreadPool::current_thread_index` is `None` on a thread that is not the pool's; the
    /// most threads a pool may have is at least what a machine has.
    fn sizes_and_indices() -> (bool, Vec<usize>, bool, Vec<Option<usize>>, bool) {
        let default = rt::ThreadPoolBuilder::new().build().unwrap().current_num_threads();
        let zero = rt::ThreadPoolBuilder::new()
            .num_threads(0)
            .build()
            .unwrap()
            .current_num_threads();
        let inside = WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                pool.install(rt::current_num_threads)
            })
            .collect();
        let outside = rt::current_num_threads() == rt::ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads();
        let pool = rt::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let from_outside = vec![pool.current_thread_index(), rt::current_thread_index()];
        // rayon: 65535, the cap of `num_threads`.
        let max = rt::max_num_threads() == 65_535;
        (default == zero, inside, outside, from_outside, max)
    }
}

same_on_both! {
    /// Spawned jobs counted from outside: every one runs once.
    fn every_spawned_job_runs_once() -> usize {
        let ran = Arc::new(AtomicUsize::new(0));
        let pool = rt::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (tx, rx) = mpsc::channel();
        for _ in 0..100 {
            let (ran, tx) = (Arc::clone(&ran), tx.clone());
            pool.spawn(move || {
                ran.fetch_add(1, SeqCst);
                tx.send(()).unwrap();
            });
        }
        let _ = (0..100).filter_map(|_| rx.recv_timeout(PATIENCE).ok()).count();
        ran.load(SeqCst)
    }
}
