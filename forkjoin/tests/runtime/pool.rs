//! Building pools: the builder's options under forkjoin's and rayon's names (`threads`,
//! `num_threads(0)`, thread names, stack sizes, `spawn_handler`, `build_scoped`,
//! `use_current_thread`, the deprecated `breadth_first` and `Configuration`), bad input as an
//! error, start and exit handlers (once per worker, on its thread; a panicking one goes to
//! the panic handler), `Debug`, a thousand pools in a row, and an idle pool that sleeps.
#![allow(deprecated)]

use crate::common::*;
use forkjoin::{BuildError, Pool, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self};
use std::time::{Duration, Instant};

#[test]
fn a_thousand_pools() {
    for i in 0..size(1000, 5) {
        let pool = Pool::new(1 + (i % 3) as usize).unwrap();
        assert_eq!(pool.install(|| fib(8)), 21);
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

/// As in rayon, a `ThreadBuilder` reports only what the program chose: no name and no stack
/// size unless given; the pool's own threads are then named `forkjoin-<index>`.
#[test]
fn a_thread_builder_reports_only_what_the_program_chose() {
    let seen = |builder: ThreadPoolBuilder| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let pool = builder
            .num_threads(2)
            .spawn_handler(move |thread| {
                record
                    .lock()
                    .unwrap()
                    .push((thread.name().map(str::to_owned), thread.stack_size()));
                std::thread::spawn(|| thread.run());
                Ok(())
            })
            .build()
            .unwrap();
        drop(pool);
        let seen = seen.lock().unwrap().clone();
        seen
    };
    assert_eq!(seen(ThreadPoolBuilder::new()), [(None, None), (None, None)]);
    let chosen = seen(
        ThreadPoolBuilder::new()
            .thread_name(|i| format!("t{i}"))
            .stack_size(3 << 20),
    );
    assert_eq!(
        chosen,
        [
            (Some("t0".to_owned()), Some(3 << 20)),
            (Some("t1".to_owned()), Some(3 << 20))
        ]
    );
    let names = ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .broadcast(|_| std::thread::current().name().map(str::to_owned));
    assert_eq!(
        names,
        [Some("forkjoin-0".to_owned()), Some("forkjoin-1".to_owned())]
    );
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

/// The order in which one worker runs the tasks it spawned into a scope.
fn spawn_order(builder: forkjoin::ThreadPoolBuilder) -> Vec<usize> {
    let pool = builder.num_threads(1).build().unwrap();
    let order = Mutex::new(Vec::new());
    pool.scope(|s| {
        for i in 0..6 {
            let order = &order;
            s.spawn(move |_| order.lock().unwrap().push(i));
        }
    });
    order.into_inner().unwrap()
}

#[test]
fn breadth_first_takes_the_oldest_own_task() {
    assert_eq!(
        spawn_order(forkjoin::ThreadPoolBuilder::new()),
        [5, 4, 3, 2, 1, 0]
    );
    assert_eq!(
        spawn_order(forkjoin::ThreadPoolBuilder::new().breadth_first()),
        [0, 1, 2, 3, 4, 5]
    );
    // Joins and stealing are the same in it: a recursive sum at 8 workers.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(8)
        .breadth_first()
        .build()
        .unwrap();
    fn sum(v: &[u64]) -> u64 {
        if v.len() < 64 {
            return v.iter().sum();
        }
        let (a, b) = v.split_at(v.len() / 2);
        let (x, y) = forkjoin::join(|| sum(a), || sum(b));
        x + y
    }
    let v = input31(100_000);
    assert_eq!(pool.install(|| sum(&v)), v.iter().sum::<u64>());
}

#[test]
fn the_deprecated_configuration_builds_pools_and_the_global_pool() {
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    let pool = forkjoin::Configuration::new()
        .num_threads(3)
        .thread_name(|i| format!("configured-{i}"))
        .stack_size(4 << 20)
        .start_handler(move |_| {
            counter.fetch_add(1, Relaxed);
        })
        .exit_handler(|_| {})
        .panic_handler(|_| {})
        .breadth_first()
        .build()
        .unwrap();
    let names = pool.broadcast(|_| std::thread::current().name().unwrap().to_string());
    assert_eq!(names, ["configured-0", "configured-1", "configured-2"]);
    drop(pool);
    assert_eq!(started.load(Relaxed), 3);
    assert!(
        format!("{:?}", forkjoin::Configuration::new().num_threads(5)).contains("threads: Some(5)")
    );
    // The global pool is running once `join` has used it: `initialize` is then an error,
    // in rayon's words.
    forkjoin::join(|| {}, || {});
    let err = forkjoin::initialize(forkjoin::Configuration::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
}

#[test]
fn debug_of_the_pool_its_builder_and_a_scope() {
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let text = format!("{pool:?}");
    assert!(text.starts_with("Pool { num_threads: 2, id: 0x"), "{text}");
    let other = forkjoin::Pool::new(2).unwrap();
    assert_ne!(text, format!("{other:?}"), "pools are told apart");
    let text = format!(
        "{:?}",
        forkjoin::ThreadPoolBuilder::new()
            .num_threads(4)
            .panic_handler(|_| {})
    );
    assert!(
        text.starts_with("PoolBuilder { threads: Some(4),")
            && text.contains("panic_handler: true")
            && text.contains("start_handler: false"),
        "{text}"
    );
    pool.scope(|s| {
        assert_eq!(
            format!("{s:?}"),
            "Scope { pending: 1, panicked: false, .. }"
        );
    });
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
        // The drop returns at once; each worker then runs its exit handler and ends.
        drop(pool);
        wait_for("every exit handler ran", || {
            exits.lock().unwrap().len() >= n
        });
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
    wait_for("every exit handler ran", || {
        reports.lock().unwrap().len() >= 2 * n
    });
    let mut got = reports.lock().unwrap().clone();
    got.sort();
    let mut expected: Vec<String> = (0..n)
        .flat_map(|i| [format!("start {i}"), format!("exit {i}")])
        .collect();
    expected.sort();
    assert_eq!(got, expected);
}

#[test]
#[cfg_attr(miri, ignore = "Miri has no per-thread CPU clocks")]
fn an_idle_pool_sleeps() {
    let pool = Pool::new(4).unwrap();
    pool.install(|| fib(22));
    // Once its workers have spun down and parked, an idle pool uses next to no CPU. How soon
    // they park depends on how much CPU they get meanwhile (little, on a loaded machine), so
    // the test looks at successive 300 ms windows until one is quiet: a pool whose workers
    // never parked would use hundreds of ms of CPU in every window, loaded or not.
    let start = Instant::now();
    let mut windows = Vec::new();
    loop {
        let before = pool.cpu_time().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let used = pool.cpu_time().unwrap() - before;
        windows.push(used);
        if used < Duration::from_millis(30) {
            break;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "an idle pool never went 300 ms on less than 30 ms of CPU: {windows:?}"
        );
    }
    assert!(pool.stats().total.parks > 0);
}
