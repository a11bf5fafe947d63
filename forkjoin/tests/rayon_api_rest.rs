//! The last of rayon's public items, found by comparing the generated API of rayon 1.12.0
//! and rayon-core 1.13.0 with forkjoin's: `Scope::spawn_broadcast` and
//! `ScopeFifo::spawn_broadcast`, the deprecated `breadth_first`, `Configuration` and
//! `initialize`, `current_thread_has_pending_tasks`, `par_sort_by_cached_key`, `Debug` for
//! the pool, its builder and the scope, and the collections rayon collects into or iterates
//! that forkjoin lacked (`Box<str>`, `Rc<[T]>`, `Arc<[T]>`, `OsString`, `Box<[T]>`).
#![allow(deprecated)]

mod common;

use common::{input, panic_message, pools};
use forkjoin::prelude::*;
use std::ffi::{OsStr, OsString};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

#[test]
fn a_scope_broadcast_runs_once_on_every_worker_before_the_scope_ends() {
    for (workers, pool) in pools() {
        let runs: Vec<AtomicUsize> = (0..*workers).map(|_| AtomicUsize::new(0)).collect();
        let nested = AtomicUsize::new(0);
        pool.scope(|s| {
            s.spawn_broadcast(|s, ctx| {
                assert_eq!(ctx.num_threads(), *workers);
                assert_eq!(forkjoin::current_thread_index(), Some(ctx.index()));
                runs[ctx.index()].fetch_add(1, Relaxed);
                // A share may spawn into the scope, which waits for that too.
                s.spawn(|_| {
                    nested.fetch_add(1, Relaxed);
                });
            });
        });
        let runs: Vec<usize> = runs.into_iter().map(AtomicUsize::into_inner).collect();
        assert_eq!(runs, vec![1; *workers], "{workers} workers");
        assert_eq!(nested.into_inner(), *workers, "{workers} workers");
    }
}

#[test]
fn a_fifo_scope_broadcast_runs_once_on_every_worker() {
    for (workers, pool) in pools() {
        let runs = AtomicUsize::new(0);
        let indices = Mutex::new(Vec::new());
        pool.install(|| {
            forkjoin::scope_fifo(|s| {
                s.spawn_broadcast(|s, ctx| {
                    runs.fetch_add(1, Relaxed);
                    indices.lock().unwrap().push(ctx.index());
                    s.spawn_fifo(|_| {
                        runs.fetch_add(1, Relaxed);
                    });
                });
            })
        });
        let mut indices = indices.into_inner().unwrap();
        indices.sort_unstable();
        assert_eq!(indices, (0..*workers).collect::<Vec<_>>());
        assert_eq!(runs.into_inner(), 2 * workers);
    }
}

#[test]
fn a_panicking_share_reaches_the_scope_after_every_share_ran() {
    for (workers, pool) in pools() {
        let runs = AtomicUsize::new(0);
        let message = panic_message(|| {
            pool.scope(|s| {
                s.spawn_broadcast(|_, ctx| {
                    runs.fetch_add(1, Relaxed);
                    if ctx.index() == 0 {
                        panic!("share 0");
                    }
                });
            })
        });
        assert_eq!(message, "share 0");
        assert_eq!(runs.into_inner(), *workers);
    }
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
    let v = input(100_000);
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
fn pending_tasks_are_the_workers_own_queued_jobs() {
    assert_eq!(forkjoin::current_thread_has_pending_tasks(), None);
    let pool = forkjoin::Pool::new(1).unwrap();
    pool.scope(|s| {
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
        s.spawn(|_| {});
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(true));
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
    });
    pool.install(|| assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false)));
    // A join's second closure is pending while the first runs (the one worker cannot
    // take it), as in rayon, where it sits on the deque; nested joins as well.
    pool.install(|| {
        let ((inner, outer), _) = forkjoin::join(
            || {
                let outer = forkjoin::current_thread_has_pending_tasks();
                let (inner, _) = forkjoin::join(forkjoin::current_thread_has_pending_tasks, || 1);
                (inner, outer)
            },
            || 2,
        );
        assert_eq!((inner, outer), (Some(true), Some(true)));
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
    });
}

#[test]
fn sort_by_cached_key_is_stable_and_calls_the_key_once_per_element() {
    for (workers, pool) in pools() {
        for n in [0, 1, 2, 17, 1001, 50_000] {
            // Few distinct keys, so stability shows: sort by the key only.
            let mut v: Vec<(u64, usize)> = input(n).into_iter().map(|x| x % 37).zip(0..).collect();
            let mut want = v.clone();
            want.sort_by_cached_key(|p| p.0.to_string());
            let calls = AtomicUsize::new(0);
            pool.install(|| {
                v.par_sort_by_cached_key(|p| {
                    calls.fetch_add(1, Relaxed);
                    p.0.to_string()
                })
            });
            assert_eq!(v, want, "{workers} workers, {n} items");
            let expected_calls = if n < 2 { 0 } else { n };
            assert_eq!(calls.into_inner(), expected_calls, "{workers} workers, {n}");
        }
    }
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

#[test]
fn collections_rayon_collects_into() {
    for (workers, pool) in pools() {
        pool.install(|| {
            let words = ["par", "allel", " ", "iter", "ators"];
            let want = words.concat();
            let boxed: Box<str> = words.par_iter().copied().collect();
            assert_eq!(&*boxed, want, "{workers}");
            let boxed: Box<str> = want.par_chars().collect();
            assert_eq!(&*boxed, want, "{workers}");
            let boxed: Box<str> = words.par_iter().map(|w| w.to_string()).collect();
            assert_eq!(&*boxed, want, "{workers}");
            let boxed: Box<str> = words
                .par_iter()
                .map(|w| std::borrow::Cow::Borrowed(*w))
                .collect();
            assert_eq!(&*boxed, want, "{workers}");
            let chars: Vec<char> = want.chars().collect();
            let boxed: Box<str> = chars.par_iter().collect();
            assert_eq!(&*boxed, want, "{workers}");
            let boxed: Box<str> = words.par_iter().map(|w| Box::from(*w)).collect();
            assert_eq!(&*boxed, want, "{workers}");

            let os: OsString = words.par_iter().map(OsStr::new).collect();
            assert_eq!(os, OsString::from(&want), "{workers}");
            let os: OsString = words.par_iter().map(OsString::from).collect();
            assert_eq!(os, OsString::from(&want), "{workers}");
            let mut os = OsString::from(">");
            os.par_extend(
                words
                    .par_iter()
                    .map(|w| std::borrow::Cow::Borrowed(OsStr::new(w))),
            );
            assert_eq!(os, OsString::from(format!(">{want}")), "{workers}");

            let n = 10_000u64;
            let rc: Rc<[u64]> = (0..n).into_par_iter().map(|x| x * x).collect();
            assert_eq!(rc.len(), n as usize);
            assert_eq!(rc.iter().sum::<u64>(), (n - 1) * n * (2 * n - 1) / 6);
            let arc: Arc<[u64]> = (0..n).into_par_iter().collect();
            assert_eq!(&arc[..], (0..n).collect::<Vec<_>>(), "{workers}");
        });
    }
}

#[test]
fn boxed_slices_iterate_like_vectors() {
    for (workers, pool) in pools() {
        pool.install(|| {
            let mut boxed: Box<[u64]> = input(1001).into_boxed_slice();
            let sum: u64 = boxed.iter().sum();
            assert_eq!(boxed.par_iter().sum::<u64>(), sum, "{workers}");
            assert_eq!((&boxed).into_par_iter().count(), 1001);
            boxed.par_iter_mut().for_each(|x| *x += 1);
            (&mut boxed).into_par_iter().for_each(|x| *x += 1);
            let owned: Vec<u64> = boxed.into_par_iter().collect();
            assert_eq!(owned.iter().sum::<u64>(), sum + 2 * 1001, "{workers}");
            // Owned items are moved out once and dropped once.
            let strings: Box<[String]> = (0..100).map(|i| i.to_string()).collect();
            let lens: usize = strings.into_par_iter().map(|s| s.len()).sum();
            assert_eq!(lens, 10 + 2 * 90, "{workers}");
        });
    }
}

#[test]
fn a_ranges_item_type_is_known_before_its_integer_type() {
    // rayon's own example: the closure negates before anything fixes the literals' type
    // (one generic impl over the integer types, as rayon's, makes `Item = T` visible).
    let (first, (left, right)): (Vec<_>, (Vec<_>, Vec<_>)) = (0..8)
        .into_par_iter()
        .map(|x| {
            if x % 2 == 0 {
                (x, forkjoin::iter::Either::Left(x * 4))
            } else {
                (-x, forkjoin::iter::Either::Right(x * 3))
            }
        })
        .collect();
    assert_eq!(first, [0, -1, 2, -3, 4, -5, 6, -7]);
    assert_eq!(left, [0, 8, 16, 24]);
    assert_eq!(right, [3, 9, 15, 21]);
    let doubled: Vec<_> = (0..=3).into_par_iter().map(|x| x * -2).collect();
    assert_eq!(doubled, [0, -2, -4, -6]);
    // The literals took the default type, `i32`, as they do sequentially.
    let _: Vec<i32> = doubled;
}
