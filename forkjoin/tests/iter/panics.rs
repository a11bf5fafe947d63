//! A panic inside a parallel iterator reaches the caller with its message, and the pool then
//! still computes exact answers; a panic while collecting drops every item exactly once.

use crate::common::*;
use forkjoin::prelude::*;
use std::num::Wrapping;

// ---------------------------------------------------------------------------------------
// Panics
// ---------------------------------------------------------------------------------------

/// A panic at one item among 10^5 reaches the caller with its message; the pool then still
/// computes exact answers.
#[test]
fn panics_reach_the_caller_and_the_pool_survives() {
    const N: u64 = 100_000;
    for bad in [0, 1, N / 2 + 7, N - 1] {
        on_pools(|at| {
            let msg = panic_message(|| {
                let s: u64 = (0..N)
                    .into_par_iter()
                    .map(|x| {
                        if x == bad {
                            panic!("map failed at {x}")
                        } else {
                            x
                        }
                    })
                    .sum();
                unreachable!("sum {s} despite the panic");
            });
            assert_eq!(msg, format!("map failed at {bad}"), "map, {at}");
            let msg = panic_message(|| {
                (0..N).into_par_iter().for_each(|x| {
                    if x == bad {
                        panic!("for_each: a bad item");
                    }
                })
            });
            assert_eq!(msg, "for_each: a bad item", "for_each, {at}");
            let msg = panic_message(|| {
                let c = (0..N)
                    .into_par_iter()
                    .filter(|&x| {
                        if x == bad {
                            panic!("filter: {}", x * 2)
                        } else {
                            x % 2 == 0
                        }
                    })
                    .count();
                unreachable!("count {c} despite the panic");
            });
            assert_eq!(msg, format!("filter: {}", bad * 2), "filter, {at}");
            let msg = panic_message(|| {
                let v: Vec<u64> = (0..N)
                    .into_par_iter()
                    .map(|x| if x == bad { panic!("collect") } else { x })
                    .collect();
                unreachable!("{} items despite the panic", v.len());
            });
            assert_eq!(msg, "collect", "collect, {at}");
            let msg = panic_message(|| {
                let v: Vec<u64> = (0..N)
                    .into_par_iter()
                    .flat_map_iter(|x| {
                        assert_ne!(x, bad, "flat_map_iter");
                        [x]
                    })
                    .collect();
                unreachable!("{} items despite the panic", v.len());
            });
            assert!(
                msg.starts_with("assertion `left != right` failed: flat_map_iter"),
                "flat_map_iter: {msg}, {at}"
            );
            // Still usable, and exact.
            assert_eq!(
                (0..N).into_par_iter().sum::<u64>(),
                N * (N - 1) / 2,
                "after the panics, {at}"
            );
            let v: Vec<u64> = (0..N).into_par_iter().map(|x| x * 3).collect();
            assert!(
                v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64),
                "after the panics, {at}"
            );
        });
    }
    // The pools themselves, as a whole, once more.
    for (w, pool) in pools() {
        let msg = panic_message(|| {
            pool.install(|| {
                (0..1000)
                    .into_par_iter()
                    .for_each(|x| assert!(x != 999, "install {w}"))
            })
        });
        assert_eq!(msg, format!("install {w}"));
        assert_eq!(
            pool.install(|| (1..=1000u64)
                .into_par_iter()
                .map(Wrapping)
                .product::<Wrapping<u64>>()),
            (1..=1000u64).map(Wrapping).product()
        );
    }
}

/// A panic in the middle of a collect: every item made is dropped exactly once (none leaks
/// in the half-written vector, none is dropped twice), also when the items come from an
/// owning source (`Vec::into_par_iter`).
#[test]
fn a_panic_while_collecting_drops_every_item_exactly_once() {
    const N: usize = 100_000;
    for bad in [0, 1, N / 3, N - 1] {
        on_pools(|at| {
            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .map(|i| {
                        if i == bad {
                            panic!("made {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("made {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("indexed collect, {at}"));

            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .filter(|i| i % 3 != 2 || *i == bad)
                    .map(|i| {
                        if i == bad {
                            panic!("made {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("made {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("unindexed collect, {at}"));

            // The item is made, then the next stage panics holding it.
            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .map(|i| ledger.make(i))
                    .map(|t| {
                        if t.id == bad {
                            panic!("held {}", t.id)
                        } else {
                            t
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("held {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("panic holding an item, {at}"));

            // From an owning source: all N items exist before; all are dropped once after.
            let ledger = Ledger::new(N);
            let items: Vec<Tracked> = (0..N).map(|i| ledger.make(i)).collect();
            let msg = panic_message(|| {
                let v: Vec<Tracked> = items
                    .into_par_iter()
                    .map(|t| {
                        if t.id == bad {
                            panic!("owned {}", t.id)
                        } else {
                            t
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("owned {bad}"), "{at}");
            assert_eq!(ledger.created(), N, "{at}");
            ledger.assert_all_dropped_once(&format!("owned source, {at}"));

            // No panic, an error instead: the Ok items made are dropped with the vector.
            let ledger = Ledger::new(N);
            let r: Result<Vec<Tracked>, usize> = (0..N)
                .into_par_iter()
                .map(|i| if i == bad { Err(i) } else { Ok(ledger.make(i)) })
                .collect();
            assert_eq!(r.as_ref().err(), Some(&bad), "{at}");
            drop(r);
            ledger.assert_all_dropped_once(&format!("Result collect, {at}"));
        });
    }
}
