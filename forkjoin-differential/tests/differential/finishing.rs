//! Programs whose waits need work the waiting thread made itself: the second closure of a
//! join whose first closure yields until it has run, or blocks until it has; a job the
//! first closure spawned, which the second waits for. Each finishes on rayon, whose joins
//! put the second closure on the deque at once and whose waits run anything; on forkjoin,
//! whose joins keep it private until someone asks, `yield_now`, `yield_local`, `blocking`
//! and a spawn offer it first (DESIGN.md, section 4), and a worker's FIFO spawns lie on its
//! deque (section 7). Every program runs under a watchdog: a hang is a `None`, not a hung
//! suite.

use crate::common::{watchdog, MayBlock};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The worker counts these programs run at: one, the machine's two, and oversubscribed.
const WORKERS: [usize; 5] = [1, 2, 4, 8, 16];

same_on_both! {
    /// At the bottom of `depth` nested joins, the first closure of a join yields
    /// (`yield_now`, then `yield_local`, which runs only the caller's own jobs) until the
    /// second has set a flag. Observed per yield, depth and worker count: the flag, and how
    /// often the second closure ran.
    fn a_yield_runs_the_pending_second_closure() -> Option<Vec<(bool, usize)>> {
        fn nest(depth: usize, yield_once: fn()) -> (bool, usize) {
            if depth > 0 {
                return rt::join(|| nest(depth - 1, yield_once), || ()).0;
            }
            let (flag, runs) = (AtomicBool::new(false), AtomicUsize::new(0));
            rt::join(
                || {
                    while !flag.load(SeqCst) {
                        yield_once();
                    }
                },
                || {
                    runs.fetch_add(1, SeqCst);
                    flag.store(true, SeqCst);
                },
            );
            (flag.load(SeqCst), runs.load(SeqCst))
        }
        let yields: [fn(); 2] = [
            || {
                let _ = rt::yield_now();
            },
            || {
                let _ = rt::yield_local();
            },
        ];
        watchdog(move || {
            let mut seen = Vec::new();
            for yield_once in yields {
                for depth in [0, 1, 6] {
                    for &n in &WORKERS {
                        let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                        seen.push(pool.install(|| nest(depth, yield_once)));
                    }
                }
            }
            seen
        })
    }
}

same_on_both! {
    /// Below a few nested joins, a join's two closures hand a value back and forth over
    /// rendezvous channels, each blocking (through `forkjoin::blocking` on forkjoin) until
    /// the other has run: the first cannot go on until another thread runs the second, as
    /// with a child's stdout and stderr drained by the two halves. rayon needs two workers.
    /// Observed per worker count: the value that came back.
    fn join_halves_that_block_on_each_other_finish() -> Option<Vec<u64>> {
        fn nest(pool: &rt::ThreadPool, depth: usize) -> u64 {
            if depth > 0 {
                return rt::join(|| nest(pool, depth - 1), || ()).0;
            }
            let (to_b, from_a) = mpsc::sync_channel::<u64>(0);
            let (to_a, from_b) = mpsc::sync_channel::<u64>(0);
            rt::join(
                move || {
                    pool.may_block(|| {
                        to_b.send(20).unwrap();
                        from_b.recv().unwrap()
                    })
                },
                move || pool.may_block(|| to_a.send(from_a.recv().unwrap() * 2 + 2).unwrap()),
            )
            .0
        }
        watchdog(|| {
            WORKERS[1..]
                .iter()
                .flat_map(|&n| {
                    let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                    [1, 4].map(|depth| pool.install(|| nest(&pool, depth)))
                })
                .collect()
        })
    }
}

/// Works `ms` milliseconds of CPU.
fn spin(ms: u64) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(ms) {
        std::hint::spin_loop();
    }
}

same_on_both! {
    /// At the bottom of `depth` nested joins, the first half of a join blocks until the
    /// second has run, with no `blocking` notice: either both halves hand a value back and
    /// forth over rendezvous channels, or the first waits in another pool (`install` of a
    /// `recv` into a one-worker pool) for what the second sends. The join runs as one item
    /// of a loop whose other items keep the other workers busy for 3 ms, so that nobody is
    /// idle when it forks: forkjoin keeps its second half private, and must take it from
    /// the blocked worker once one is idle. Observed per kind, worker count and depth: the
    /// value that came back. (rayon needs two workers for the channels.)
    fn join_halves_blocked_without_notice_finish() -> Option<Vec<u64>> {
        fn nest(depth: usize, handoff: &(dyn Fn(u64) -> u64 + Sync)) -> u64 {
            if depth > 0 {
                return rt::join(|| nest(depth - 1, handoff), || ()).0;
            }
            handoff(20)
        }
        fn beside_busy_workers(depth: usize, handoff: &(dyn Fn(u64) -> u64 + Sync)) -> u64 {
            let items = 2 * rt::current_num_threads();
            (0..items)
                .into_par_iter()
                .map(|i| if i == items / 2 { nest(depth, handoff) } else { spin(3); 0 })
                .sum()
        }
        fn channels(v: u64) -> u64 {
            let (to_b, from_a) = mpsc::sync_channel::<u64>(0);
            let (to_a, from_b) = mpsc::sync_channel::<u64>(0);
            rt::join(
                move || {
                    to_b.send(v).unwrap();
                    from_b.recv().unwrap()
                },
                move || to_a.send(from_a.recv().unwrap() * 2 + 2).unwrap(),
            )
            .0
        }
        watchdog(|| {
            let other = rt::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let other = &other;
            let other_pool = move |v: u64| {
                let (tx, rx) = mpsc::channel::<u64>();
                let recv = move || other.install(move || rx.recv().unwrap());
                rt::join(recv, move || tx.send(v + 1).unwrap()).0
            };
            let mut seen = Vec::new();
            for (handoff, least) in [(&channels as &(dyn Fn(u64) -> u64 + Sync), 2), (&other_pool, 1)] {
                for &n in WORKERS.iter().filter(|&&n| n >= least) {
                    let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                    for depth in [0, 1, 4] {
                        seen.push(pool.install(|| beside_busy_workers(depth, handoff)));
                    }
                }
            }
            seen
        })
    }
}

same_on_both! {
    /// The two items of a loop wait for each other (a barrier of two), and so do the two
    /// halves of a join: each pair must run on two threads at once. rayon needs two
    /// workers. Observed per worker count and round: each pair's leaders (one).
    fn items_that_wait_for_each_other_meet() -> Option<Vec<(usize, usize)>> {
        use std::sync::Barrier;
        watchdog(|| {
            let mut seen = Vec::new();
            for &n in &WORKERS[1..] {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                for _ in 0..5 {
                    // How many of each pair came out of the barrier as its leader: one.
                    let meet = Barrier::new(2);
                    let in_loop = pool.install(|| {
                        (0..2)
                            .into_par_iter()
                            .map(|_| usize::from(meet.wait().is_leader()))
                            .sum()
                    });
                    let pair = Barrier::new(2);
                    let leader = || usize::from(pair.wait().is_leader());
                    let (a, b) = pool.install(|| rt::join(leader, leader));
                    seen.push((in_loop, a + b));
                }
            }
            seen
        })
    }
}

same_on_both! {
    /// Below `depth` nested joins, a join's first half spawns a job (`spawn_fifo`, then
    /// `spawn`) that sends a value, and works 2 ms; the second half receives the value. The
    /// spawned job must run before the second half, which blocks in `recv` (on one worker:
    /// the job lies above the second half on the deque) or while it does (on another).
    /// Observed per kind, depth and worker count: the value.
    fn a_job_spawned_by_the_first_half_reaches_the_second() -> Option<Vec<u64>> {
        fn nest(depth: usize, fifo: bool) -> u64 {
            if depth > 0 {
                return rt::join(|| nest(depth - 1, fifo), || ()).0;
            }
            let (tx, rx) = mpsc::channel();
            rt::join(
                move || {
                    let job = move || tx.send(7u64).unwrap();
                    if fifo {
                        rt::spawn_fifo(job);
                    } else {
                        rt::spawn(job);
                    }
                    spin(2);
                },
                move || rx.recv().unwrap(),
            )
            .1
        }
        watchdog(|| {
            let mut seen = Vec::new();
            for fifo in [true, false] {
                for depth in [0, 3] {
                    for &n in &WORKERS {
                        let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                        seen.push(pool.install(|| nest(depth, fifo)));
                    }
                }
            }
            seen
        })
    }
}

same_on_both! {
    /// The one worker of a pool spawns 20 jobs with `spawn_fifo`: they run in the order
    /// spawned (rayon: FIFO among the FIFO spawns of one thread).
    fn fifo_spawns_of_one_worker_run_in_order() -> Option<Vec<usize>> {
        watchdog(|| {
            let pool = rt::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let (tx, rx) = mpsc::channel();
            pool.install(|| {
                for i in 0..20 {
                    let tx = tx.clone();
                    rt::spawn_fifo(move || tx.send(i).unwrap());
                }
            });
            drop(tx);
            rx.iter().collect()
        })
    }
}

same_on_both! {
    /// Every worker of a pool A is inside a call into a pool B (a broadcast of A's workers
    /// each calling `B.install`); each call there spawns a job into A, then calls back into
    /// A (`A.install`). The callbacks must not wait behind the spawned jobs: every worker of
    /// A waits for its callback, and none is free to run a spawned job first. 20 rounds per
    /// worker count. Observed per worker count: the sum of the callbacks' results, and the
    /// spawned jobs that ran once the pool A was dropped.
    fn callbacks_from_another_pool_are_not_held_behind_spawns() -> Option<Vec<(u64, usize)>> {
        watchdog(|| {
            let mut seen = Vec::new();
            for &n in &WORKERS {
                for _ in 0..20 {
                    let a = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                    let b = rt::ThreadPoolBuilder::new()
                        .num_threads((n / 2).max(1))
                        .build()
                        .unwrap();
                    let (ran, spawned_ran) = mpsc::channel();
                    let sum: u64 = a
                        .broadcast(|ctx| {
                            let i = ctx.index() as u64;
                            let ran = ran.clone();
                            b.install(|| {
                                a.spawn(move || ran.send(()).unwrap());
                                a.install(|| i + 1)
                            })
                        })
                        .iter()
                        .sum();
                    drop(a);
                    drop(ran);
                    seen.push((sum, spawned_ran.iter().count()));
                }
            }
            seen
        })
    }
}
