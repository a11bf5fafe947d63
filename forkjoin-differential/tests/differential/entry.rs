//! Where a call from outside the pool runs: `install`'s closure, loop bodies, joins, scopes
//! and broadcast shares run on pool threads (never on the caller), a thread's index never
//! changes and is `None` outside the pool, thread-locals the caller holds are not
//! re-entered, and a job's stack is a pool thread's, however little the caller has left.

use crate::common::WORKERS;

/// Long enough for every worker of a fresh or just-used pool to have parked (its idle
/// rounds last well under a millisecond).
const SETTLE: std::time::Duration = std::time::Duration::from_millis(20);

same_on_both! {
    /// `install`, `join`, `scope` (its body and its tasks) and a loop's bodies from `main`
    /// into a pool whose workers have parked: how many of them ran on the calling thread.
    fn calls_from_outside_run_on_pool_threads() -> Vec<[usize; 5]> {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        let me = std::thread::current().id();
        let mut seen = Vec::new();
        for n in WORKERS {
            let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            for _ in 0..3 {
                std::thread::sleep(SETTLE);
                let here = || usize::from(std::thread::current().id() == me);
                let on_caller = AtomicUsize::new(0);
                let install = pool.install(here);
                let (a, b) = pool.join(here, here);
                let scope = pool.scope(|s| {
                    s.spawn(|_| {
                        on_caller.fetch_add(here(), SeqCst);
                    });
                    here()
                });
                pool.install(|| {
                    (0..100_000).into_par_iter().for_each(|_| {
                        on_caller.fetch_add(here(), SeqCst);
                    })
                });
                seen.push([install, a, b, scope, on_caller.load(SeqCst)]);
            }
        }
        seen
    }
}

same_on_both! {
    /// The global pool from `main`: a loop's bodies, `join`'s closures and `scope`'s tasks
    /// never run on the calling thread (rayon: "Executes `op` within the thread pool").
    fn the_global_pool_runs_calls_from_main_on_its_threads() -> (usize, usize, usize) {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        let me = std::thread::current().id();
        std::thread::sleep(SETTLE);
        let on_caller = AtomicUsize::new(0);
        let here = || usize::from(std::thread::current().id() == me);
        (0..100_000).into_par_iter().for_each(|_| {
            on_caller.fetch_add(here(), SeqCst);
        });
        let (a, b) = rt::join(here, here);
        let mut tasks = 0;
        rt::scope(|s| {
            s.spawn(|_| tasks = here());
        });
        (on_caller.load(SeqCst), a + b, tasks)
    }
}

same_on_both! {
    /// The caller holds a thread-local `RefCell` borrowed across `install`; loop bodies that
    /// borrow the same thread-local never run on the caller, so nothing panics "already
    /// borrowed", and each worker's own buffer gets its share.
    fn a_thread_local_the_caller_holds_is_not_reentered() -> Vec<Result<usize, String>> {
        use std::cell::RefCell;
        thread_local! {
            static BUF: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
        }
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                std::thread::sleep(SETTLE);
                BUF.with(|b| {
                    let _held = b.borrow_mut();
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        pool.install(|| {
                            (0..1000u32)
                                .into_par_iter()
                                .for_each(|i| BUF.with(|b| b.borrow_mut().push(i)))
                        });
                        // Every item went to some worker's buffer.
                        pool.broadcast(|_| BUF.with(|b| std::mem::take(&mut *b.borrow_mut()).len()))
                            .into_iter()
                            .sum()
                    }))
                    .map_err(|p| {
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default()
                    })
                })
            })
            .collect()
    }
}

same_on_both! {
    /// "Set up each worker's thread-local state with a broadcast": made from inside
    /// `install`, every worker runs its share, so every later job sees the state.
    fn a_broadcast_from_install_reaches_every_worker() -> Vec<(Vec<usize>, bool)> {
        use std::cell::Cell;
        thread_local! {
            static INIT: Cell<bool> = const { Cell::new(false) };
        }
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                std::thread::sleep(SETTLE);
                let mut indices = pool.install(|| {
                    rt::broadcast(|ctx| {
                        INIT.with(|c| c.set(true));
                        ctx.index()
                    })
                });
                indices.sort_unstable();
                let all_set = pool.install(|| {
                    (0..10_000).into_par_iter().all(|_| INIT.with(Cell::get))
                }) && pool.broadcast(|_| INIT.with(Cell::get)).into_iter().all(|x| x);
                (indices, all_set && !INIT.with(Cell::get))
            })
            .collect()
    }
}

same_on_both! {
    /// `current_thread_index` is `None` on `main` before, between and after calls; inside
    /// them every index is below the pool's size; each pool thread keeps one index across
    /// calls, and no two threads share one.
    fn a_threads_index_never_changes() -> Vec<(Option<usize>, bool, bool, Option<usize>)> {
        use std::collections::HashMap;
        use std::sync::Mutex;
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let before = rt::current_thread_index();
                let seen: Mutex<HashMap<std::thread::ThreadId, Vec<usize>>> = Mutex::default();
                let record = || {
                    let index = rt::current_thread_index().unwrap();
                    seen.lock()
                        .unwrap()
                        .entry(std::thread::current().id())
                        .or_default()
                        .push(index);
                    index < rt::current_num_threads()
                };
                let mut below = true;
                for round in 0..20 {
                    if round % 5 == 0 {
                        std::thread::sleep(SETTLE);
                    }
                    below &= pool.install(record);
                    below &= pool.install(|| (0..1000).into_par_iter().all(|_| record()));
                    below &= rt::current_thread_index().is_none();
                }
                let seen = seen.into_inner().unwrap();
                let mut indices: Vec<usize> = Vec::new();
                let mut stable = true;
                for list in seen.values() {
                    stable &= list.iter().all(|&i| i == list[0]);
                    indices.push(list[0]);
                }
                indices.sort_unstable();
                indices.dedup();
                stable &= indices.len() == seen.len();
                (before, below, stable, rt::current_thread_index())
            })
            .collect()
    }
}

/// Stack that `deep` uses: 20 frames of 64 KiB.
const DEEP_FRAMES: u32 = 20;

/// A recursion that needs about 1.3 MiB of stack; returns a checksum of its frames.
#[inline(never)]
fn deep(frames: u32) -> u64 {
    let mut buf = [0u8; 64 << 10];
    buf[frames as usize] = frames as u8;
    let buf = std::hint::black_box(&mut buf);
    let here = buf.iter().map(|&b| u64::from(b)).sum::<u64>();
    if frames == 0 {
        here
    } else {
        here + deep(frames - 1)
    }
}

/// Runs `f` on a thread with a 2 MiB stack, 0.9 MiB of it in use.
fn on_a_thread_with_little_stack_left<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[inline(never)]
    fn use_stack<R>(kib: usize, f: impl FnOnce() -> R) -> R {
        let mut buf = [0u8; 64 << 10];
        let buf = std::hint::black_box(&mut buf);
        buf[0] = 1;
        let r = if kib > 64 {
            use_stack(kib - 64, f)
        } else {
            f()
        };
        std::hint::black_box(buf);
        r
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, || use_stack(900, f))
            .unwrap()
            .join()
            .unwrap()
    })
}

same_on_both! {
    /// A job that needs about 1.3 MiB of stack, started from a thread that has about 1.1 MiB
    /// left: it runs on a pool thread's stack, in a pool of each size and on the global pool.
    fn a_deep_job_from_a_thread_short_of_stack_runs() -> Vec<u64> {
        let mut sums: Vec<u64> = WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                std::thread::sleep(SETTLE);
                on_a_thread_with_little_stack_left(|| pool.install(|| deep(DEEP_FRAMES)))
            })
            .collect();
        std::thread::sleep(SETTLE);
        // The global pool's default stack: rayon's is std's 2 MiB, forkjoin's larger.
        sums.push(on_a_thread_with_little_stack_left(|| {
            (0..2).into_par_iter().map(|_| deep(DEEP_FRAMES)).sum()
        }));
        sums
    }
}

same_on_both! {
    /// The other entry points, from `main`: `spawn_broadcast` on a pool and in a scope reach
    /// every worker once; the global `spawn` and `spawn_fifo` run on pool threads;
    /// `in_place_scope_fifo` runs its tasks; `join_context` returns both results; a pool's
    /// `current_thread_has_pending_tasks` and `current_thread_index` are `None` outside it.
    #[allow(clippy::type_complexity)]
    fn the_other_entry_points() -> Vec<(Vec<usize>, Vec<usize>, [bool; 2], usize, (u8, u8), Option<bool>, Option<usize>)> {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        use std::sync::{mpsc, Mutex};
        let me = std::thread::current().id();
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let (tx, rx) = mpsc::channel();
                let tx = Mutex::new(tx);
                pool.spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
                let mut spawned: Vec<usize> = (0..n).map(|_| rx.recv().unwrap()).collect();
                spawned.sort_unstable();
                let in_scope = Mutex::new(Vec::new());
                pool.scope(|s| s.spawn_broadcast(|_, ctx| in_scope.lock().unwrap().push(ctx.index())));
                let mut in_scope = in_scope.into_inner().unwrap();
                in_scope.sort_unstable();
                let (tx, rx) = mpsc::channel();
                let tx2 = tx.clone();
                rt::spawn(move || tx.send(std::thread::current().id() != me).unwrap());
                rt::spawn_fifo(move || tx2.send(std::thread::current().id() != me).unwrap());
                let off_main = [rx.recv().unwrap(), rx.recv().unwrap()];
                let ran = AtomicUsize::new(0);
                rt::in_place_scope_fifo(|s| {
                    for _ in 0..10 {
                        s.spawn_fifo(|_| {
                            ran.fetch_add(1, SeqCst);
                        });
                    }
                });
                let joined = pool.install(|| rt::join_context(|_| 1u8, |_| 2u8));
                (
                    spawned,
                    in_scope,
                    off_main,
                    ran.load(SeqCst),
                    joined,
                    pool.current_thread_has_pending_tasks(),
                    pool.current_thread_index(),
                )
            })
            .collect()
    }
}
