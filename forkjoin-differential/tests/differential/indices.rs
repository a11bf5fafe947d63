//! rayon's rule on indices, which programs with per-index storage rely on: a thread's
//! `current_thread_index()` never changes, every index is below `current_num_threads()`,
//! and no two threads run tasks under one index at once; here with tasks that block in
//! between (through `forkjoin::blocking` on forkjoin, whose spare threads stand in for the
//! blocked ones; plainly on rayon).

use crate::common::{watchdog, MayBlock, WORKERS};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::Duration;

same_on_both! {
    /// Each task holds its index's "in use" flag a while, blocks, and holds it again as soon
    /// as the block ends. Observed per worker count: tasks run, flags found taken, threads
    /// whose index changed, indices out of range; or `None` after a minute (a hang).
    fn no_two_threads_run_tasks_under_one_index_at_once() -> Option<Vec<(usize, usize, usize, usize)>> {
        watchdog(|| {
            WORKERS
                .iter()
                .map(|&n| {
                    let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                    let in_use: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                    let (ran, overlaps, changed, out_of_range) = (
                        AtomicUsize::new(0),
                        AtomicUsize::new(0),
                        AtomicUsize::new(0),
                        AtomicUsize::new(0),
                    );
                    let indices = Mutex::new(HashMap::new());
                    let hold = || {
                        let Some(i) = rt::current_thread_index().filter(|&i| i < n) else {
                            out_of_range.fetch_add(1, SeqCst);
                            return;
                        };
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
                    for _ in 0..20 {
                        pool.install(|| {
                            rt::scope(|s| {
                                for k in 0..n * 4 {
                                    let (hold, ran, pool) = (&hold, &ran, &pool);
                                    s.spawn(move |_| {
                                        hold();
                                        pool.may_block(|| {
                                            if k % 2 == 0 {
                                                std::thread::sleep(Duration::from_micros(200));
                                            } else {
                                                std::thread::yield_now();
                                            }
                                        });
                                        hold();
                                        ran.fetch_add(1, SeqCst);
                                    });
                                }
                            })
                        });
                    }
                    (
                        ran.load(SeqCst),
                        overlaps.load(SeqCst),
                        changed.load(SeqCst),
                        out_of_range.load(SeqCst),
                    )
                })
                .collect()
        })
    }
}
