//! Isolation: a worker waiting for a join, a loop's pieces, a scope or a task runs only work
//! that descends from what it waits for, so a program that is correct when every `join`
//! runs its closures one after the other cannot deadlock, or overflow its stack, because
//! of stealing. The programs are those of the public reports against rayon (a lock held
//! across a nested loop, rayon 592; `OnceLock::get_or_init` with a parallel initialiser,
//! 1251; a per-thread workspace, 1205; `par_bridge` whose `next` runs a loop, 1142; deep
//! recursion, 854), each at 2, 4, 8 and 16 workers, many runs each under a watchdog, with
//! exact answers, and with a detector: an outer body that starts on a thread whose stack
//! already holds another outer body is counted, and must never be. A lock held across a scope
//! or a call into other pools whose work comes back checks waits that are not a join's. A
//! chain of thieves checks that a waiter helps its thieves' thieves, where the only free
//! worker is the waiter.
//!
//! `FJ_ISOLATION_RUNS` sets the runs per program and worker count (100 by default; the
//! figures in docs/measurements.md were taken with 1,000).

use forkjoin::prelude::*;
use forkjoin::{Pool, PoolBuilder};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const WORKERS: [usize; 4] = [2, 4, 8, 16];

fn runs() -> usize {
    std::env::var("FJ_ISOLATION_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

thread_local! {
    /// Outer bodies running on this thread's stack.
    static OUTER_ACTIVE: Cell<u32> = const { Cell::new(0) };
}

/// Outer bodies that started on top of another one on the same thread.
static NESTED_OUTER: AtomicUsize = AtomicUsize::new(0);

/// Marks an outer body for the detector while it runs.
struct Outer;

impl Outer {
    fn enter() -> Outer {
        OUTER_ACTIVE.with(|a| {
            if a.get() > 0 {
                NESTED_OUTER.fetch_add(1, Relaxed);
            }
            a.set(a.get() + 1);
        });
        Outer
    }
}

impl Drop for Outer {
    fn drop(&mut self) {
        OUTER_ACTIVE.with(|a| a.set(a.get() - 1));
    }
}

/// Runs `program` `runs()` times in a pool of each size, each run under a watchdog that
/// aborts the process on a hang (a deadlock cannot be unwound); checks every answer against
/// `expected` and that no outer body ever nested on another.
fn each_pool(
    name: &str,
    build: impl Fn(usize) -> Pool,
    program: fn(usize) -> u64,
    expected: fn(usize) -> u64,
) {
    each_pool_with(name, build, |_, workers| program(workers), expected);
}

/// `each_pool` of a program that is also given its pool.
fn each_pool_with(
    name: &str,
    build: impl Fn(usize) -> Pool,
    program: impl Fn(&Pool, usize) -> u64 + Sync,
    expected: fn(usize) -> u64,
) {
    let nested_before = NESTED_OUTER.load(Relaxed);
    for workers in WORKERS {
        let pool = build(workers);
        for run in 0..runs() {
            let (tx, rx) = mpsc::channel();
            let got = std::thread::scope(|s| {
                let runner = s.spawn(|| {
                    let answer = pool.install(|| program(&pool, workers));
                    let _ = tx.send(());
                    answer
                });
                if rx.recv_timeout(Duration::from_secs(120)).is_err() {
                    eprintln!("{name}: run {run} at {workers} workers hung for 120 s");
                    std::process::abort();
                }
                runner.join().unwrap()
            });
            assert_eq!(
                got,
                expected(workers),
                "{name} at {workers} workers, run {run}"
            );
        }
    }
    assert_eq!(
        NESTED_OUTER.load(Relaxed) - nested_before,
        0,
        "{name}: an outer body ran on top of another on one thread"
    );
}

/// An item's work: about 0.2 us of dependent multiplies, so that inner loops last long
/// enough (tens of us) for their pieces to be stolen and their owners to wait.
fn work(x: u64) -> u64 {
    let mut z = x;
    for _ in 0..64 {
        z = z
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    z >> 44
}

/// The sum of `work` over `0..n`, plus `n * i`: an inner loop's answer.
fn inner_answer(n: u64, i: u64) -> u64 {
    (0..n).map(work).sum::<u64>() + n * i
}

fn pool(workers: usize) -> Pool {
    Pool::new(workers).unwrap()
}

/// Outer items per run: enough that every worker has several to steal.
fn outer(workers: usize) -> u64 {
    4 * workers as u64
}

/// A lock held across a nested parallel loop inside an outer parallel loop (rayon 592).
fn lock_across_nested_loop(workers: usize) -> u64 {
    let total = Mutex::new(0u64);
    (0..outer(workers)).into_par_iter().for_each(|i| {
        let _outer = Outer::enter();
        let mut held = total.lock().unwrap();
        *held += (0..200u64)
            .into_par_iter()
            .map(|x| work(x) + i)
            .sum::<u64>();
    });
    total.into_inner().unwrap()
}

fn lock_across_nested_loop_answer(workers: usize) -> u64 {
    (0..outer(workers)).map(|i| inner_answer(200, i)).sum()
}

#[test]
fn a_lock_held_across_a_nested_loop_never_deadlocks() {
    each_pool(
        "lock",
        pool,
        lock_across_nested_loop,
        lock_across_nested_loop_answer,
    );
}

/// Other pools for `lock_across_scopes_and_pools`, two workers each.
fn other_pools() -> &'static [Pool; 2] {
    static OTHERS: OnceLock<[Pool; 2]> = OnceLock::new();
    OTHERS.get_or_init(|| [pool(2), pool(2)])
}

/// A lock held across a wait that is not a join's: a scope of the same pool, or a call into
/// another pool whose work comes back into this one. An outer iteration of `home` takes
/// the lock, then runs an inner loop of `home` in a scope's tasks, through `install` into
/// another pool (and back), through a chain of two others, through a scope of another pool
/// whose tasks call back, or through a broadcast there. While the holder waits it may run
/// the inner loops' pieces, never another outer iteration (which would take the lock it
/// holds), nor the rest of the outer loop below it on its own stack.
fn lock_across_scopes_and_pools(home: &Pool, workers: usize) -> u64 {
    let [b, c] = other_pools();
    let total = Mutex::new(0u64);
    let inner =
        |i: u64| home.install(|| (0..50u64).into_par_iter().map(|x| work(x) + i).sum::<u64>());
    // Three tasks of a scope of `pool`, each the inner loop: the answer once.
    let in_scope = |pool: &Pool, i: u64| {
        let parts = Mutex::new(0u64);
        pool.in_place_scope(|s| {
            for _ in 0..3 {
                s.spawn(|_| *parts.lock().unwrap() += inner(i));
            }
        });
        parts.into_inner().unwrap() / 3
    };
    (0..outer(workers)).into_par_iter().for_each(|i| {
        let _outer = Outer::enter();
        let mut held = total.lock().unwrap();
        *held += match i % 5 {
            0 => in_scope(home, i),
            1 => b.install(|| inner(i)),
            2 => {
                b.install(|| c.install(|| (0..2u64).into_par_iter().map(|_| inner(i)).sum::<u64>()))
                    / 2
            }
            3 => in_scope(b, i),
            _ => b.broadcast(|_| inner(i)).iter().sum::<u64>() / 2,
        };
    });
    total.into_inner().unwrap()
}

fn lock_across_scopes_and_pools_answer(workers: usize) -> u64 {
    (0..outer(workers)).map(|i| inner_answer(50, i)).sum()
}

#[test]
fn a_lock_held_across_a_scope_or_a_call_into_another_pool_never_deadlocks() {
    each_pool_with(
        "scopes and pools",
        pool,
        lock_across_scopes_and_pools,
        lock_across_scopes_and_pools_answer,
    );
}

/// `OnceLock::get_or_init` whose initialiser is a parallel loop, inside a parallel loop
/// (rayon 1251): re-entering the initialiser on the thread that runs it deadlocks.
fn once_lock_parallel_init(workers: usize) -> u64 {
    let cell = OnceLock::new();
    (0..outer(workers))
        .into_par_iter()
        .map(|i| {
            let _outer = Outer::enter();
            let v = *cell.get_or_init(|| (0..2_000u64).into_par_iter().map(work).sum::<u64>());
            v + (0..100u64)
                .into_par_iter()
                .map(|x| work(x) + i)
                .sum::<u64>()
        })
        .sum()
}

fn once_lock_parallel_init_answer(workers: usize) -> u64 {
    let n = outer(workers);
    n * inner_answer(2_000, 0) + (0..n).map(|i| inner_answer(100, i)).sum::<u64>()
}

#[test]
fn once_lock_with_a_parallel_initialiser_never_deadlocks() {
    each_pool(
        "once-lock",
        pool,
        once_lock_parallel_init,
        once_lock_parallel_init_answer,
    );
}

/// A per-thread workspace found by `current_thread_index()` and locked across a nested
/// loop (rayon 1205, a sparse solver's): a second outer body on the thread would find it
/// locked (`try_lock` fails: counted, where a `lock` would deadlock).
fn per_thread_workspace(workers: usize) -> u64 {
    let spaces: Vec<Mutex<Vec<u64>>> = (0..workers).map(|_| Mutex::new(vec![0; 16])).collect();
    let busy = AtomicUsize::new(0);
    let sum = (0..outer(workers))
        .into_par_iter()
        .map(|i| {
            let _outer = Outer::enter();
            let index = forkjoin::current_thread_index().unwrap();
            let Ok(mut space) = spaces[index].try_lock() else {
                busy.fetch_add(1, Relaxed);
                return 0;
            };
            space[0] = (0..200u64).into_par_iter().map(|x| work(x) + i).sum();
            space[0]
        })
        .sum::<u64>();
    assert_eq!(
        busy.load(Relaxed),
        0,
        "a workspace was in use on its own thread"
    );
    sum
}

fn per_thread_workspace_answer(workers: usize) -> u64 {
    (0..outer(workers)).map(|i| inner_answer(200, i)).sum()
}

#[test]
fn a_per_thread_workspace_is_never_entered_twice() {
    each_pool(
        "workspace",
        pool,
        per_thread_workspace,
        per_thread_workspace_answer,
    );
}

/// `par_bridge` over an iterator whose `next` runs a parallel loop (rayon 1142): the
/// bridge's lock is held while `next` waits for its loop.
fn bridge_whose_next_runs_a_loop(workers: usize) -> u64 {
    (0..outer(workers))
        .map(|i| {
            (0..200u64)
                .into_par_iter()
                .map(|x| work(x) + i)
                .sum::<u64>()
        })
        .par_bridge()
        .map(|s| {
            let _outer = Outer::enter();
            s + (0..100u64).into_par_iter().map(work).sum::<u64>()
        })
        .sum()
}

fn bridge_whose_next_runs_a_loop_answer(workers: usize) -> u64 {
    let n = outer(workers);
    (0..n).map(|i| inner_answer(200, i)).sum::<u64>() + n * inner_answer(100, 0)
}

#[test]
fn par_bridge_whose_next_runs_a_loop_never_deadlocks() {
    each_pool(
        "par-bridge",
        pool,
        bridge_whose_next_runs_a_loop,
        bridge_whose_next_runs_a_loop_answer,
    );
}

thread_local! {
    /// The lowest stack address `deep` reached on this thread (for the calibration).
    static LOWEST: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Recursion with a join every 64 levels and 512 bytes of frame: `levels` deep it fills
/// about 60% of a 2 MiB stack, so that another such recursion stacked on it (a waiting
/// worker running an unrelated outer item) overflows.
fn deep(d: u32) -> u64 {
    let pad = [d as u8; 512];
    std::hint::black_box(&pad);
    if d == 0 {
        LOWEST.with(|l| l.set(l.get().min(&pad as *const u8 as usize)));
        return 1;
    }
    if d.is_multiple_of(64) {
        let (a, b) = forkjoin::join(
            || deep(d - 1),
            || (0..64u64).into_par_iter().map(work).sum::<u64>(),
        );
        return a + b + pad[7] as u64 - pad[9] as u64;
    }
    deep(d - 1) + 1
}

const STACK: usize = 2 << 20;

/// The depth of `deep` that fills 60% of a `STACK`, measured as this build compiles it:
/// 256 levels on a one-worker pool's thread (where every join runs inline).
fn levels() -> u32 {
    static LEVELS: OnceLock<u32> = OnceLock::new();
    *LEVELS.get_or_init(|| {
        let pool = PoolBuilder::new()
            .threads(1)
            .stack_size(STACK)
            .build()
            .unwrap();
        let per_level = pool.install(|| {
            let top = 0u8;
            let top = &top as *const u8 as usize;
            LOWEST.with(|l| l.set(usize::MAX));
            deep(256);
            (top - LOWEST.with(|l| l.get())) / 256
        });
        (STACK * 6 / 10 / per_level) as u32
    })
}

fn deep_recursion(workers: usize) -> u64 {
    let d = levels();
    (0..outer(workers))
        .into_par_iter()
        .map(|_| {
            let _outer = Outer::enter();
            deep(d)
        })
        .sum()
}

fn deep_recursion_answer(workers: usize) -> u64 {
    let d = levels() as u64;
    // 1 at the bottom, 1 a level, and a join level the sum of `work` over 0..64 instead.
    outer(workers) * (1 + d - d / 64 + (d / 64) * inner_answer(64, 0))
}

#[test]
fn recursion_that_fits_sequentially_fits_in_the_pool() {
    let build = |workers| {
        PoolBuilder::new()
            .threads(workers)
            .stack_size(STACK)
            .build()
            .unwrap()
    };
    each_pool("deep", build, deep_recursion, deep_recursion_answer);
}

/// A worker whose join's second closure was stolen, with nothing of its own to run, sleeps
/// until the thief is done, and `Stats::isolated_sleeps` counts it. The thief's closure
/// returns only once it has seen the waiter sleep, so the count is not a matter of timing.
#[test]
fn a_waiter_with_nothing_of_its_own_sleeps_and_is_counted() {
    let pool = pool(2);
    let before = pool.stats();
    pool.install(|| 1);
    assert_eq!(pool.stats().since(&before).total.isolated_sleeps, 0);
    let thief_started = AtomicBool::new(false);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (waiter, thief) = pool.install(|| {
        forkjoin::join(
            || {
                while !thief_started.load(Relaxed) {
                    assert!(Instant::now() < deadline, "never stolen");
                    std::thread::yield_now();
                }
                forkjoin::current_thread_index().unwrap()
            },
            || {
                thief_started.store(true, Relaxed);
                while pool.stats().since(&before).total.isolated_sleeps == 0 {
                    assert!(Instant::now() < deadline, "the waiter never slept");
                    std::thread::sleep(Duration::from_millis(1));
                }
                forkjoin::current_thread_index().unwrap()
            },
        )
    });
    assert_ne!(waiter, thief);
    let slept = pool.stats().since(&before);
    assert!(slept.workers[waiter].isolated_sleeps >= 1, "{slept}");
    assert_eq!(slept.workers[thief].isolated_sleeps, 0, "{slept}");
}

/// What a chain of thieves shares: which second closures have started, and who ran the leaf.
struct Chain {
    levels: usize,
    started: Vec<AtomicBool>,
    leaf_thread: AtomicUsize,
    leaf_done: AtomicBool,
    deadline: Instant,
}

impl Chain {
    fn wait_for(&self, flag: &AtomicBool, what: &str) {
        while !flag.load(Relaxed) {
            assert!(Instant::now() < self.deadline, "{what} never happened");
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    /// Join `k` of the chain: its second closure is join `k + 1`, or the leaf.
    fn level(&self, k: usize) {
        forkjoin::join(
            || {
                if k == 1 {
                    // The outermost waiter stays busy until every other worker has taken
                    // its link of the chain, so that it cannot take one itself.
                    self.wait_for(&self.started[self.levels - 1], "the chain");
                } else {
                    self.wait_for(&self.leaf_done, "the leaf");
                }
            },
            || {
                self.started[k].store(true, Relaxed);
                if k < self.levels {
                    self.level(k + 1);
                } else {
                    let me = forkjoin::current_thread_index().unwrap();
                    self.leaf_thread.store(me, Relaxed);
                    self.leaf_done.store(true, Relaxed);
                }
            },
        );
    }
}

/// `levels` nested joins in a pool of `levels` workers: each second closure is stolen by
/// the next free worker, whose first closure then blocks until the leaf (the last second
/// closure) has run. The only worker left to run the leaf is the one waiting for the
/// outermost join, `levels - 1` thieves away from it. Returns the waiter's index and the
/// leaf's; hangs if the waiter does not help its thieves' thieves.
fn chain_of_thieves(levels: usize) -> (usize, usize) {
    let pool = std::sync::Arc::new(pool(levels));
    let chain = std::sync::Arc::new(Chain {
        levels,
        started: (0..=levels).map(|_| AtomicBool::new(false)).collect(),
        leaf_thread: AtomicUsize::new(usize::MAX),
        leaf_done: AtomicBool::new(false),
        deadline: Instant::now() + Duration::from_secs(60),
    });
    let (tx, rx) = mpsc::channel();
    {
        let (pool, chain) = (pool.clone(), chain.clone());
        // Not joined on a hang: a deadlocked pool cannot be unwound, the test fails instead.
        std::thread::spawn(move || {
            let waiter = pool.install(|| {
                chain.level(1);
                forkjoin::current_thread_index().unwrap()
            });
            let _ = tx.send(waiter);
        });
    }
    let waiter = rx
        .recv_timeout(Duration::from_secs(90))
        .unwrap_or_else(|_| panic!("a chain of {levels} thieves hung"));
    (waiter, chain.leaf_thread.load(Relaxed))
}

#[test]
fn a_waiter_helps_the_thieves_of_its_thieves() {
    for levels in [2, 3, 4, 6] {
        for _ in 0..runs() {
            let (waiter, leaf) = chain_of_thieves(levels);
            assert_eq!(leaf, waiter, "{levels} levels: the leaf ran elsewhere");
        }
    }
}
