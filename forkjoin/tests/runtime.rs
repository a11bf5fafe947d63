//! The runtime's behaviour: exact answers under stress, panics, bad input, pools inside
//! pools. Many tests oversubscribe this 2-core machine (8 and 16 workers) on purpose.

use forkjoin::{join, scope, BuildError, Pool};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::time::Duration;

/// Heavier sizes natively; small ones under Miri, which is ~1000x slower.
const fn size(native: u64, miri: u64) -> u64 {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_exact(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Number of joins `fib(n)` makes: one per call with n >= 2.
fn fib_joins(n: u64) -> u64 {
    if n < 2 {
        0
    } else {
        1 + fib_joins(n - 1) + fib_joins(n - 2)
    }
}

#[test]
fn join_outside_any_pool_uses_the_global_pool() {
    assert_eq!(fib(size(20, 8)), fib_exact(size(20, 8)));
    assert_eq!(forkjoin::current_thread_index(), None);
    assert!(forkjoin::current_num_threads() >= 1);
}

#[test]
fn fib_exact_at_many_worker_counts() {
    for threads in [1, 2, 3, 8, 16] {
        let pool = Pool::new(threads).unwrap();
        let n = size(24, 10);
        assert_eq!(pool.install(|| fib(n)), fib_exact(n), "threads = {threads}");
        let idx = pool.install(forkjoin::current_thread_index).unwrap();
        assert!(idx < threads);
        assert_eq!(pool.install(forkjoin::current_num_threads), threads);
    }
}

#[test]
fn one_worker_runs_every_join_inline() {
    let pool = Pool::new(1).unwrap();
    let n = size(20, 8);
    let before = pool.stats();
    assert_eq!(pool.install(|| fib(n)), fib_exact(n));
    let s = pool.stats().since(&before);
    // Nobody is ever idle while the only worker works, so no join is shared.
    assert_eq!(s.total.joins_inline, fib_joins(n));
    assert_eq!(s.total.tasks_shared, 0);
    assert_eq!(
        s.total.tasks_run,
        fib_joins(n) + 1,
        "the joins plus the install job"
    );
    assert_eq!(s.external_submissions, 1);
    let table = s.to_string();
    assert!(
        table.contains("joins inline") && table.contains("total"),
        "{table}"
    );
}

/// A random, unbalanced tree: node `id` has `h(id) % 5` children (0..4), down to a depth.
fn children(id: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 0;
    }
    let mut x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x >> 32) % 5
}

fn count_seq(id: u64, depth: u32) -> u64 {
    1 + (0..children(id, depth))
        .map(|c| count_seq(id.wrapping_mul(5).wrapping_add(c + 1), depth - 1))
        .sum::<u64>()
}

/// Counts the subtree, forking over the children by binary splitting.
fn count_par(id: u64, depth: u32) -> u64 {
    fn range(id: u64, depth: u32, lo: u64, hi: u64) -> u64 {
        match hi - lo {
            0 => 0,
            1 => count_par(id.wrapping_mul(5).wrapping_add(lo + 1), depth - 1),
            _ => {
                let mid = (lo + hi) / 2;
                let (a, b) = join(|| range(id, depth, lo, mid), || range(id, depth, mid, hi));
                a + b
            }
        }
    }
    1 + range(id, depth, 0, children(id, depth))
}

#[test]
fn random_unbalanced_trees_count_exactly() {
    let depth = size(14, 5) as u32;
    for (threads, root) in [(2, 4u64), (8, 10), (16, 33)] {
        let pool = Pool::new(threads).unwrap();
        let expected = count_seq(root, depth);
        assert!(
            expected > size(10_000, 30),
            "tree too small to test anything: {expected}"
        );
        for _ in 0..3 {
            assert_eq!(
                pool.install(|| count_par(root, depth)),
                expected,
                "threads = {threads}"
            );
        }
    }
}

#[test]
fn deep_and_wide_trees() {
    // Deep: a chain of joins deeper than the runtime's frame stack.
    fn chain(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (a, b) = join(|| chain(n - 1), || 1);
        a + b
    }
    let pool = Pool::builder()
        .threads(8)
        .stack_size(256 << 20)
        .build()
        .unwrap();
    let depth = size(10_000, 100);
    assert_eq!(pool.install(|| chain(depth)), depth);
    // Wide: 2^k leaves of a balanced tree.
    fn leaves(k: u32) -> u64 {
        if k == 0 {
            return 1;
        }
        let (a, b) = join(|| leaves(k - 1), || leaves(k - 1));
        a + b
    }
    let k = size(18, 6) as u32;
    assert_eq!(pool.install(|| leaves(k)), 1 << k);
}

#[test]
fn scopes_spawning_from_spawned_tasks() {
    let pool = Pool::new(8).unwrap();
    let count = AtomicU64::new(0);
    let sum = AtomicU64::new(0);
    fn spawn_tree<'s>(
        s: &forkjoin::Scope<'s>,
        depth: u32,
        id: u64,
        count: &'s AtomicU64,
        sum: &'s AtomicU64,
    ) {
        count.fetch_add(1, Relaxed);
        sum.fetch_add(id, Relaxed);
        if depth > 0 {
            for c in 0..3 {
                s.spawn(move |s| spawn_tree(s, depth - 1, id * 3 + c + 1, count, sum));
            }
        }
    }
    let depth = size(7, 3) as u32;
    pool.install(|| scope(|s| spawn_tree(s, depth, 0, &count, &sum)));
    // A complete ternary tree of depth d has (3^(d+1) - 1) / 2 nodes, numbered 0..n-1.
    let n = (3u64.pow(depth + 1) - 1) / 2;
    assert_eq!(count.load(Relaxed), n);
    assert_eq!(sum.load(Relaxed), n * (n - 1) / 2);
}

#[test]
fn scope_borrows_the_stack_and_returns_a_value() {
    let mut data = vec![0u64; 100];
    let total = scope(|s| {
        for (i, chunk) in data.chunks_mut(10).enumerate() {
            s.spawn(move |_| chunk.iter_mut().for_each(|x| *x = i as u64));
        }
        42
    });
    assert_eq!(total, 42);
    assert_eq!(
        data.iter().sum::<u64>(),
        (0..10).map(|i| 10 * i).sum::<u64>()
    );
}

#[test]
fn eight_threads_submit_while_joins_run() {
    let pool = Arc::new(Pool::new(4).unwrap());
    let per_thread = size(500, 20);
    let barrier = Arc::new(Barrier::new(9));
    let submitters: Vec<_> = (0..8u64)
        .map(|t| {
            let (pool, barrier) = (pool.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let tasks: Vec<_> = (0..per_thread)
                    .map(|i| pool.submit(move || fib(10) + t * 1_000_000 + i))
                    .collect();
                tasks
                    .into_iter()
                    .map(|task| task.join().unwrap())
                    .sum::<u64>()
            })
        })
        .collect();
    barrier.wait();
    let n = size(25, 10);
    assert_eq!(pool.install(|| fib(n)), fib_exact(n));
    let total: u64 = submitters.into_iter().map(|h| h.join().unwrap()).sum();
    let expected: u64 = (0..8u64)
        .map(|t| {
            (0..per_thread)
                .map(|i| fib_exact(10) + t * 1_000_000 + i)
                .sum::<u64>()
        })
        .sum();
    assert_eq!(total, expected);
}

/// A stream of submissions from outside, which workers take from the submission queue in
/// batches: every job runs exactly once, whatever the worker count, and is counted.
#[test]
fn a_stream_of_submissions_runs_each_job_once() {
    let n = size(20_000, 200) as usize;
    for threads in [1, 2, 8] {
        let pool = Pool::new(threads).unwrap();
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let runs = runs.clone();
                pool.submit(move || {
                    runs[i].fetch_add(1, SeqCst);
                    // Every third job forks, as the submit benchmark's Tan does.
                    if i % 3 == 2 {
                        fib(12) + i as u64
                    } else {
                        i as u64
                    }
                })
            })
            .collect();
        let sum: u64 = tasks.into_iter().rev().map(|t| t.join().unwrap()).sum();
        let expected: u64 = (0..n as u64)
            .map(|i| if i % 3 == 2 { fib_exact(12) + i } else { i })
            .sum();
        assert_eq!(sum, expected, "{threads} workers");
        let once = runs.iter().filter(|r| r.load(SeqCst) == 1).count();
        assert_eq!(once, n, "{threads} workers: jobs not run exactly once");
        let stats = pool.stats();
        assert_eq!(stats.external_submissions, n as u64);
        // Each job is taken from a submission queue once (counted as stolen), in a batch
        // or alone, and may be stolen again from the worker that took the batch.
        assert!(stats.total.tasks_stolen >= n as u64, "{stats}");
    }
}

#[test]
fn a_thousand_pools() {
    for i in 0..size(1000, 5) {
        let pool = Pool::new(1 + (i % 3) as usize).unwrap();
        assert_eq!(pool.install(|| fib(8)), 21);
    }
}

#[test]
fn dropping_a_pool_finishes_submitted_tasks() {
    let done = Arc::new(AtomicUsize::new(0));
    let n = size(200, 10) as usize;
    {
        let pool = Pool::new(2).unwrap();
        for _ in 0..n {
            let done = done.clone();
            // Detached: the handle is dropped at once.
            drop(pool.submit(move || {
                std::thread::sleep(Duration::from_micros(100));
                done.fetch_add(1, SeqCst);
            }));
        }
    }
    assert_eq!(done.load(SeqCst), n);
}

#[test]
fn task_is_done_and_join_from_inside_the_pool() {
    let pool = Pool::new(2).unwrap();
    let (tx, rx) = mpsc::channel::<()>();
    let task = pool.submit(move || {
        rx.recv().unwrap();
        7
    });
    assert!(!task.is_done());
    tx.send(()).unwrap();
    while !task.is_done() {
        std::thread::yield_now();
    }
    assert_eq!(task.join().unwrap(), 7);
    // A worker joining a task of its own pool helps instead of blocking, even with one
    // worker: the task is queued behind it.
    let single = Pool::new(1).unwrap();
    let r = single.install(|| {
        let tasks: Vec<_> = (0..10u64).map(|i| single.submit(move || i * 2)).collect();
        tasks.into_iter().map(|t| t.join().unwrap()).sum::<u64>()
    });
    assert_eq!(r, 90);
}

#[test]
fn invoke_all_keeps_order() {
    let pool = Pool::new(3).unwrap();
    let m = size(15, 6);
    let jobs: Vec<_> = (0..100u64).map(|i| move || fib(i % m)).collect();
    let expected: Vec<u64> = (0..100u64).map(|i| fib_exact(i % m)).collect();
    assert_eq!(pool.invoke_all(jobs), expected);
    assert_eq!(pool.invoke_all(Vec::<fn() -> u8>::new()), Vec::<u8>::new());
}

#[test]
fn blocking_closures_run_in_parallel() {
    // `a` waits for a signal that only `b` sends: unless `b` runs while `a` blocks, `a`
    // times out. (chili issue 33: a heartbeat runtime that never shares this join.)
    let pool = Pool::new(2).unwrap();
    for _ in 0..size(5, 1) {
        let (tx, rx) = mpsc::channel::<()>();
        let rx = Mutex::new(rx);
        let (got, ()) = pool.install(|| {
            join(
                || {
                    rx.lock()
                        .unwrap()
                        .recv_timeout(Duration::from_secs(10))
                        .is_ok()
                },
                move || tx.send(()).unwrap(),
            )
        });
        assert!(
            got,
            "the second closure did not run while the first blocked"
        );
    }
}

#[test]
fn nested_pools_do_not_deadlock() {
    let outer = Pool::new(1).unwrap();
    let inner = Pool::new(1).unwrap();
    let r = outer.install(|| {
        let x = inner.install(|| outer.install(|| fib(9)) + inner.install(|| fib(8)));
        let (a, b) = join(|| inner.install(|| fib(7)), || fib(6));
        x + a + b
    });
    assert_eq!(r, fib_exact(9) + fib_exact(8) + fib_exact(7) + fib_exact(6));
}

#[test]
fn loops_are_exact() {
    let pool = Pool::new(8).unwrap();
    let n = size(1_000_000, 2_000) as usize;
    let sum = pool.install(|| forkjoin::map_reduce(0..n, || 0u64, |i| i as u64, |a, b| a + b));
    assert_eq!(sum, (n as u64) * (n as u64 - 1) / 2);
    let hits: Vec<AtomicU64> = (0..1000).map(|_| AtomicU64::new(0)).collect();
    pool.install(|| {
        forkjoin::for_each(0..n, |i| {
            hits[i % 1000].fetch_add(1, Relaxed);
        })
    });
    assert!(hits.iter().all(|h| h.load(Relaxed) == n as u64 / 1000));
    let mut v: Vec<u64> = (0..n as u64).collect();
    pool.install(|| forkjoin::for_each_slice_mut(&mut v, |x| *x = *x * 3 + 1));
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 3 + 1));
    let s = forkjoin::map_reduce_slice(&v, || 0u64, |&x| x, |a, b| a + b);
    assert_eq!(s, 3 * (n as u64) * (n as u64 - 1) / 2 + n as u64);
    let count = AtomicU64::new(0);
    forkjoin::for_each_slice(&v, |&x| {
        count.fetch_add(x & 1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), v.iter().map(|x| x & 1).sum::<u64>());
    forkjoin::for_each(0..0, |_| unreachable!());
    assert_eq!(forkjoin::map_reduce(5..5, || 9u8, |_| 0, |a, _| a), 9);
}

#[test]
fn deterministic_reduction_is_bit_identical() {
    let xs: Vec<f64> = (0..size(200_000, 3_000))
        .map(|i| ((i as f64) * 0.37).sin() * 1e-3 + 1e3)
        .collect();
    let sum = || forkjoin::map_reduce_slice_deterministic(&xs, || 0.0f64, |x| *x, |a, b| a + b);
    let reference = Pool::new(1).unwrap().install(sum).to_bits();
    for threads in [2, 3, 8, 16] {
        let pool = Pool::new(threads).unwrap();
        for _ in 0..3 {
            assert_eq!(
                pool.install(sum).to_bits(),
                reference,
                "threads = {threads}"
            );
        }
    }
}

fn message(p: forkjoin::Panic) -> String {
    p.message().unwrap_or("?").to_string()
}

fn panic_of<R>(f: impl FnOnce() -> R) -> String {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(e) => e
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_default(),
    }
}

#[test]
fn panics_propagate_and_the_pool_survives() {
    let pool = Pool::new(2).unwrap();
    let ran_b = AtomicUsize::new(0);
    assert_eq!(
        panic_of(|| pool.install(|| join(|| panic!("left"), || ran_b.fetch_add(1, SeqCst)))),
        "left"
    );
    assert_eq!(ran_b.load(SeqCst), 1, "the right closure still ran, once");
    assert_eq!(
        panic_of(|| pool.install(|| join(|| fib(size(15, 6)), || -> u64 { panic!("right") }))),
        "right"
    );
    assert_eq!(
        panic_of(
            || pool.install(|| join(|| -> u8 { panic!("both-a") }, || -> u8 { panic!("both-b") }))
        ),
        "both-a"
    );
    assert_eq!(
        panic_of(|| pool.install(|| scope(|s| {
            s.spawn(|_| panic!("scope task"));
            s.spawn(|_| {
                fib(size(10, 5));
            });
        }))),
        "scope task"
    );
    assert_eq!(
        message(
            pool.submit(|| -> u8 { panic!("submitted") })
                .join()
                .unwrap_err()
        ),
        "submitted"
    );
    assert_eq!(
        panic_of(|| pool.install(|| -> u8 { panic!("install") })),
        "install"
    );
    // Deep inside a parallel recursion, on some worker.
    fn boom(n: u64) -> u64 {
        if n == 7 {
            panic!("deep");
        }
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| boom(n - 1), || boom(n - 2));
        a + b
    }
    assert_eq!(panic_of(|| pool.install(|| boom(size(20, 9)))), "deep");
    // Still fully usable.
    assert_eq!(pool.install(|| fib(size(20, 8))), fib_exact(size(20, 8)));
    assert_eq!(pool.submit(|| 5).join().unwrap(), 5);
}

/// Joins whose closures are large (over 32 bytes together) take a path of their own (fewer
/// frames, plain calls by value): every leaf still runs exactly once, with or without
/// panics, and of two panicking leaves the leftmost one's panic comes out.
#[test]
fn large_closure_joins_run_every_leaf_once_and_propagate_panics() {
    const DEPTH: u32 = 14;
    const LEAVES: u64 = 1 << DEPTH;
    // 40 bytes of payload per closure, plus a reference and a pair.
    fn walk(depth: u32, id: [u64; 5], visits: &AtomicUsize, fail: (u64, u64)) -> u64 {
        if depth == 0 {
            visits.fetch_add(1, SeqCst);
            if id[0] == fail.0 || id[0] == fail.1 {
                panic!("leaf {}", id[0]);
            }
            return id[0];
        }
        let left = [id[0] * 2, id[1] + 1, id[2], id[3], id[4]];
        let right = [id[0] * 2 + 1, id[1] + 1, id[2], id[3], id[4]];
        let (a, b) = join(
            move || walk(depth - 1, left, visits, fail),
            move || walk(depth - 1, right, visits, fail),
        );
        a + b
    }
    let none = (u64::MAX, u64::MAX);
    for threads in [1, 2, 8] {
        let pool = Pool::new(threads).unwrap();
        let visits = AtomicUsize::new(0);
        let sum = pool.install(|| walk(DEPTH, [0; 5], &visits, none));
        assert_eq!(sum, LEAVES * (LEAVES - 1) / 2, "threads = {threads}");
        assert_eq!(visits.load(SeqCst), LEAVES as usize);
        for fail in [(5000, u64::MAX), (12000, 5000), (LEAVES - 1, u64::MAX)] {
            let visits = AtomicUsize::new(0);
            let msg = panic_of(|| pool.install(|| walk(DEPTH, [0; 5], &visits, fail)));
            assert_eq!(
                msg,
                format!("leaf {}", fail.0.min(fail.1)),
                "threads = {threads}"
            );
            assert_eq!(
                visits.load(SeqCst),
                LEAVES as usize,
                "every leaf ran once, threads = {threads}"
            );
        }
        assert_eq!(
            pool.install(|| walk(DEPTH, [0; 5], &visits, none)),
            LEAVES * (LEAVES - 1) / 2
        );
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    assert!(matches!(Pool::new(0), Err(BuildError::ZeroThreads)));
    assert!(matches!(
        Pool::builder().threads(0).build(),
        Err(BuildError::ZeroThreads)
    ));
    let e = Pool::builder()
        .threads(1)
        .stack_size(usize::MAX)
        .build()
        .err()
        .unwrap();
    assert!(matches!(e, BuildError::StackTooLarge { .. }), "{e}");
    assert!(e.to_string().contains("stack size"));
    let e = Pool::builder()
        .threads(1)
        .stack_size(16)
        .build()
        .err()
        .unwrap();
    assert!(matches!(e, BuildError::StackTooSmall { .. }), "{e}");
    assert!(Pool::new(0)
        .err()
        .unwrap()
        .to_string()
        .contains("at least one thread"));
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not model the OS refusing a stack")]
fn a_stack_the_os_refuses_is_an_error() {
    // 64 TiB: within the address-space limit we check, beyond what mmap will reserve.
    let e = Pool::builder()
        .threads(2)
        .stack_size(1 << 46)
        .build()
        .expect_err("the OS refused");
    assert!(matches!(e, BuildError::Spawn { worker: 0, .. }), "{e}");
    assert!(e.to_string().contains("refused"), "{e}");
}

#[test]
fn builder_options() {
    let pool = Pool::builder()
        .threads(3)
        .thread_name(|i| format!("custom-{i}"))
        .stack_size(1 << 20)
        .build()
        .unwrap();
    let names = pool.invoke_all(
        (0..30)
            .map(|_| || std::thread::current().name().unwrap().to_string())
            .collect(),
    );
    assert!(names.iter().all(|n| n.starts_with("custom-")), "{names:?}");
    assert_eq!(pool.num_threads(), 3);
    #[cfg(target_os = "linux")]
    {
        let pinned = Pool::builder()
            .threads(2)
            .pin_threads(true)
            .build()
            .unwrap();
        assert_eq!(pinned.install(|| fib(15)), fib_exact(15));
    }
    assert!(Pool::default().num_threads() >= 1);
}

#[test]
#[cfg_attr(miri, ignore = "Miri has no per-thread CPU clocks")]
fn an_idle_pool_sleeps() {
    let pool = Pool::new(4).unwrap();
    pool.install(|| fib(22));
    // Give the workers time to spin down, then measure: idle workers must be parked.
    std::thread::sleep(Duration::from_millis(50));
    let before = pool.cpu_time().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let used = pool.cpu_time().unwrap() - before;
    assert!(
        used < Duration::from_millis(30),
        "an idle pool used {used:?} of CPU in 300 ms"
    );
    assert!(pool.stats().total.parks > 0);
}
