//! The searches: `find_*`, `find_map_*` and `position_*` against std, including rayon's
//! deprecated forms. `find_last` and its relatives search from the right end
//! (`Consumer::RIGHT_FIRST`): on iterators far too long to scan from the left (2^64 to 2^120
//! items, nested `flat_map`s of indexed and unindexed iterators) they return the exact
//! answer at once. A search, and a fallible consumer, stops once its answer is known: over
//! ranges too long to finish, each returns, having visited a small part of the items.

use crate::common::*;
use forkjoin::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

#[test]
fn find_any_first_last_and_find_map() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1u64, 3, 97, 1 << 20, u64::MAX] {
            let p = |x: &&u64| **x % m == 7 % m;
            assert_eq!(
                v.par_iter().find_first(p),
                v.iter().find(p),
                "find_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().find_last(p),
                v.iter().rfind(p),
                "find_last %{m}, {at}"
            );
            match v.par_iter().find_any(p) {
                None => assert_eq!(v.iter().find(p), None, "find_any %{m}, {at}"),
                Some(x) => assert!(p(&x) && v.contains(x), "find_any %{m}, {at}"),
            }
            let f = |x: &u64| (x % m == 7 % m).then(|| x.wrapping_mul(3));
            assert_eq!(
                v.par_iter().find_map_first(f),
                v.iter().find_map(f),
                "find_map_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().find_map_last(f),
                v.iter().rev().find_map(f),
                "find_map_last %{m}, {at}"
            );
            match v.par_iter().find_map_any(f) {
                None => assert_eq!(v.iter().find_map(f), None, "{at}"),
                Some(y) => assert!(v.iter().any(|x| f(x) == Some(y)), "find_map_any %{m}, {at}"),
            }
        }
        // A single match: find_any must return it.
        if n > 0 {
            let target = v[n * 2 / 3];
            assert_eq!(
                v.par_iter().find_any(|&&x| x == target),
                Some(&target),
                "{at}"
            );
        }
        // Unindexed (after a filter) and reversed.
        let even = |x: &&u64| (**x).is_multiple_of(2);
        let p = |x: &&u64| **x % 5 == 1;
        assert_eq!(
            v.par_iter().filter(even).find_first(p),
            v.iter().filter(even).find(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter().filter(even).find_last(p),
            v.iter().filter(even).rfind(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter().rev().find_first(p),
            v.iter().rev().find(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter()
                .flat_map_iter(|&x| [x, x / 2])
                .find_first(|y| y % 11 == 3),
            v.iter().flat_map(|&x| [x, x / 2]).find(|y| y % 11 == 3),
            "{at}"
        );
    });
}

/// `find_last` with two matches, one near the start and one further on: the answer is the
/// later one. With several workers the search is split while it runs, which is what this
/// needs (one worker never splits, so it always passes there). `find_first` with the
/// mirror-image input is the control.
#[test]
fn find_last_with_an_early_and_a_later_match() {
    const N: usize = 1_000_000;
    let mut wrong = Vec::new();
    // One worker never splits (see above): its pool is left out.
    for (w, pool) in pools().iter().filter(|(w, _)| *w > 1) {
        for k in 1..16 {
            let target = N * k / 16 - 1;
            for _ in 0..3 {
                let (last, pos_last, map_last, first) = pool.install(|| {
                    (
                        (0..N).into_par_iter().find_last(|&x| x == 5 || x == target),
                        (0..N)
                            .into_par_iter()
                            .position_last(|x| x == 5 || x == target),
                        (0..N)
                            .into_par_iter()
                            .find_map_last(|x| (x == 5 || x == target).then_some(x)),
                        (0..N)
                            .into_par_iter()
                            .find_first(|&x| x == N - 5 || x == target),
                    )
                });
                for (what, got) in [
                    ("find_last", last),
                    ("position_last", pos_last),
                    ("find_map_last", map_last),
                    ("find_first", first),
                ] {
                    if got != Some(target) {
                        wrong.push(format!(
                            "{what}: {got:?} instead of Some({target}) at {w} workers"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers of {}:\n{}",
        wrong.len(),
        3 * 15 * 3 * 4,
        wrong.join("\n")
    );
}

#[test]
fn position_any_first_and_last() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1u64, 3, 97, 1 << 20, u64::MAX] {
            let p = |x: &u64| x % m == 5 % m;
            assert_eq!(
                v.par_iter().position_first(p),
                v.iter().position(p),
                "position_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().position_last(p),
                v.iter().rposition(p),
                "position_last %{m}, {at}"
            );
            match v.par_iter().position_any(p) {
                None => assert_eq!(v.iter().position(p), None, "{at}"),
                Some(i) => assert!(p(&v[i]), "position_any %{m}: {i}, {at}"),
            }
        }
        assert_eq!(
            v.par_iter().rev().position_first(|&x| x % 3 == 0),
            v.iter().rev().position(|&x| x % 3 == 0),
            "{at}"
        );
        assert_eq!(
            v.par_iter().skip(5).position_last(|&x| x % 3 == 0),
            v.iter().skip(5).rposition(|&x| x % 3 == 0),
            "{at}"
        );
    });
}

#[test]
#[allow(deprecated)]
fn the_deprecated_find_and_position_of_rayon() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v: Vec<usize> = (0..n).collect();
        assert_eq!(v.par_iter().find(|&&x| x == n / 2), v.get(n / 2), "{at}");
        assert_eq!(
            v.par_iter().position(|&x| x == n / 3),
            (n > 0).then_some(n / 3),
            "{at}"
        );
    });
}

const BITS: u32 = 30;

const SIDE: u32 = 1 << BITS;

/// 0..2^90 as three nested `flat_map`s of indexed ranges of 2^30 items.
fn flat_2_90() -> impl ParallelIterator<Item = u128> {
    (0..SIDE)
        .into_par_iter()
        .flat_map(|i| {
            (0..SIDE)
                .into_par_iter()
                .map(move |j| u128::from(i) << BITS | u128::from(j))
        })
        .flat_map(|ij| {
            (0..SIDE)
                .into_par_iter()
                .map(move |k| ij << BITS | u128::from(k))
        })
}

/// The same with `with_max_len`, as rayon's octillion test: every range is split to
/// pieces of 1000 before it runs.
fn flat_2_90_max_len() -> impl ParallelIterator<Item = u128> {
    (0..SIDE)
        .into_par_iter()
        .with_max_len(1000)
        .flat_map(|i| {
            (0..SIDE)
                .into_par_iter()
                .with_max_len(1000)
                .map(move |j| u128::from(i) << BITS | u128::from(j))
        })
        .flat_map(|ij| {
            (0..SIDE)
                .into_par_iter()
                .with_max_len(1000)
                .map(move |k| ij << BITS | u128::from(k))
        })
}

/// 0..2^120: four nested ranges split to pieces of 1000, deeper than 64 halvings of
/// positions reach.
fn flat_2_120() -> impl ParallelIterator<Item = u128> {
    let level = |x: u128| {
        (0..SIDE)
            .into_par_iter()
            .with_max_len(1000)
            .map(move |k| x << BITS | u128::from(k))
    };
    (0..SIDE)
        .into_par_iter()
        .with_max_len(1000)
        .map(u128::from)
        .flat_map(level)
        .flat_map(level)
        .flat_map(level)
}

const END: u128 = 1 << (3 * BITS);

/// The last `x < END` with `x % m == r`.
fn last_below_end(m: u128, r: u128) -> u128 {
    let x = END - 1;
    x - (x % m + m - r) % m
}

#[test]
fn find_last_on_a_huge_flat_map() {
    on_pools(|at| {
        assert_eq!(flat_2_90().find_last(|_| true), Some(END - 1), "{at}");
        assert_eq!(
            flat_2_90_max_len().find_last(|_| true),
            Some(END - 1),
            "{at}"
        );
        // A match some way from the end: the pieces after it are searched and fail, the
        // ones before it are not searched.
        assert_eq!(
            flat_2_90().find_last(|x| x % 1_000_003 == 17),
            Some(last_below_end(1_000_003, 17)),
            "{at}"
        );
        assert_eq!(
            flat_2_90().filter(|x| x % 2 == 0).find_last(|x| x % 3 == 0),
            Some(last_below_end(6, 0)),
            "{at}"
        );
        assert_eq!(
            flat_2_90().find_map_last(|x| (x % 10 == 3).then_some(x / 10)),
            Some(last_below_end(10, 3) / 10),
            "{at}"
        );
    });
}

#[test]
fn find_last_deeper_than_64_halvings() {
    on_pools(|at| {
        let end = 1u128 << (4 * BITS);
        assert_eq!(flat_2_120().find_last(|_| true), Some(end - 1), "{at}");
        // The pieces right of the match are searched and fail, the ones left of it, as
        // deep as they lie, are stopped.
        let m = 1_000_003;
        let expected = (end - 1) - ((end - 1) % m + m - 17) % m;
        assert_eq!(
            flat_2_120().find_last(|x| x % m == 17),
            Some(expected),
            "{at}"
        );
        let expected = u128::MAX - (u128::MAX % m + m - 1) % m;
        assert_eq!(
            (0..=u128::MAX).into_par_iter().find_last(|x| x % m == 1),
            Some(expected),
            "{at}"
        );
    });
}

#[test]
fn find_first_on_the_same_flat_map_searches_from_the_left() {
    on_pools(|at| {
        assert_eq!(flat_2_90().find_first(|_| true), Some(0), "{at}");
        assert_eq!(flat_2_90_max_len().find_first(|_| true), Some(0), "{at}");
        assert_eq!(
            flat_2_90().find_first(|&x| x >= 1 << 20 && x % 7 == 5),
            Some((1 << 20) + (5 + 7 - (1 << 20) % 7) % 7),
            "{at}"
        );
        assert_eq!(
            flat_2_90().find_map_first(|x| (x % 10 == 3).then_some(x / 10)),
            Some(0),
            "{at}"
        );
    });
}

#[test]
fn position_last_on_a_range_of_2_64_items() {
    on_pools(|at| {
        let n = usize::MAX;
        // Positions of `0..n` are the items themselves.
        // The last `x < n` with `x % m == r`.
        let last = |m: usize, r: usize| (n - 1) - ((n - 1) % m + m - r) % m;
        assert_eq!(
            (0..n).into_par_iter().position_last(|x| x % 3 == 1),
            Some(last(3, 1)),
            "{at}"
        );
        assert_eq!(
            (0..n).into_par_iter().position_last(|x| x % 1_000 == 999),
            Some(last(1_000, 999)),
            "{at}"
        );
        assert_eq!(
            (0..n)
                .into_par_iter()
                .with_max_len(64)
                .position_last(|_| true),
            Some(n - 1),
            "{at}"
        );
        assert_eq!(
            (0..n).into_par_iter().rev().position_last(|x| x % 5 == 0),
            Some(n - 1),
            "{at}"
        );
        assert_eq!(
            (0..n).into_par_iter().position_first(|_| true),
            Some(0),
            "{at}"
        );
        assert_eq!(
            (0..n).into_par_iter().position_first(|x| x % 1_000 == 999),
            Some(999),
            "{at}"
        );
    });
}

#[test]
fn find_last_on_huge_unindexed_iterators() {
    on_pools(|at| {
        // 128-bit ranges are unindexed: halved until the pieces count in a `usize`.
        let r = 0..1u128 << 100;
        assert_eq!(
            r.clone().into_par_iter().find_last(|_| true),
            Some((1 << 100) - 1),
            "{at}"
        );
        assert_eq!(r.into_par_iter().find_first(|_| true), Some(0), "{at}");
        assert_eq!(
            (0..=u128::MAX).into_par_iter().find_last(|x| x % 4 == 1),
            Some(u128::MAX - 2),
            "{at}"
        );
        // An unindexed producer of its own halving.
        let halves = || {
            forkjoin::iter::split(0..1u64 << 62, |r| {
                let mid = r.start + (r.end - r.start) / 2;
                if mid == r.start {
                    (r, None)
                } else {
                    (r.start..mid, Some(mid..r.end))
                }
            })
            .flat_map_iter(|r| r)
        };
        assert_eq!(halves().find_last(|_| true), Some((1 << 62) - 1), "{at}");
        assert_eq!(halves().find_first(|_| true), Some(0), "{at}");
        // A chain: its second part first.
        let chained = || {
            (0..10u128)
                .into_par_iter()
                .chain((0..1u128 << 80).into_par_iter())
        };
        assert_eq!(
            chained().find_last(|x| x % 2 == 0),
            Some((1 << 80) - 2),
            "{at}"
        );
        assert_eq!(chained().find_first(|x| x % 2 == 1), Some(1), "{at}");
    });
}

/// From the right, `find_last(|_| true)` looks at a few items only. (A few thousand on a
/// quiet machine; the bound is a quarter of the items, because the other pieces run on
/// until the answer is published, for as long as the scheduler keeps its thread off the CPU:
/// see `searches_and_failures_stop_early`. A search from the left visits them all.)
#[test]
fn find_last_looks_at_few_items() {
    on_pools(|at| {
        let n = 1_000_000_000u64;
        let seen = AtomicUsize::new(0);
        let last = (0..n).into_par_iter().find_last(|_| {
            // Relaxed: a count read after the search has returned.
            seen.fetch_add(1, Relaxed);
            true
        });
        assert_eq!(last, Some(n - 1), "{at}");
        let seen = seen.load(Relaxed);
        assert!(
            seen < n as usize / 4,
            "find_last looked at {seen} items, {at}"
        );
    });
}

/// Ordinary inputs against std, with and without bounds on the pieces.
#[test]
fn find_and_position_agree_with_std() {
    on_pools(|at| {
        for n in [0usize, 1, 2, 17, 1001, 100_000] {
            let v: Vec<u32> = (0..n as u32)
                .map(|x| x.wrapping_mul(2_654_435_761) % 1000)
                .collect();
            for m in [1u32, 7, 500, 999, 1001] {
                let p = |x: &&u32| **x % m == m - 1;
                let what = format!("n = {n}, m = {m}, {at}");
                assert_eq!(v.par_iter().find_last(p), v.iter().rev().find(p), "{what}");
                assert_eq!(v.par_iter().find_first(p), v.iter().find(p), "{what}");
                assert_eq!(
                    v.par_iter().with_min_len(100).find_last(p),
                    v.iter().rev().find(p),
                    "min_len, {what}"
                );
                assert_eq!(
                    v.par_iter().with_max_len(3).find_last(p),
                    v.iter().rev().find(p),
                    "max_len, {what}"
                );
                assert_eq!(
                    v.par_iter().position_last(|x| p(&x)),
                    v.iter().rposition(|x| p(&x)),
                    "{what}"
                );
                assert_eq!(
                    v.par_iter().position_first(|x| p(&x)),
                    v.iter().position(|x| p(&x)),
                    "{what}"
                );
                // Duplicates: the last equal one, not any.
                let w: Vec<(u32, usize)> = v.iter().enumerate().map(|(i, &x)| (x % m, i)).collect();
                assert_eq!(
                    w.par_iter().find_last(|(x, _)| *x == 0),
                    w.iter().rev().find(|(x, _)| *x == 0),
                    "{what}"
                );
                // Through flat_map of small inner iterators.
                let flat = || {
                    v.par_iter()
                        .flat_map(|&x| (0..x % 5).into_par_iter().map(move |k| (x, k)))
                };
                let seq: Vec<(u32, u32)> = v
                    .iter()
                    .flat_map(|&x| (0..x % 5).map(move |k| (x, k)))
                    .collect();
                let q = |(x, k): &(u32, u32)| (x + k) % m == 0;
                assert_eq!(
                    flat().find_last(q),
                    seq.iter().rev().copied().find(q),
                    "flat, {what}"
                );
                assert_eq!(
                    flat().find_first(q),
                    seq.iter().copied().find(q),
                    "flat, {what}"
                );
                // `while_some` does not pass `RIGHT_FIRST` on: searched from the left, with
                // the `flat_map` halving the positions once per item.
                let some = || flat().map(Some).while_some();
                assert_eq!(
                    some().find_last(q),
                    seq.iter().rev().copied().find(q),
                    "some, {what}"
                );
                assert_eq!(
                    some().find_first(q),
                    seq.iter().copied().find(q),
                    "some, {what}"
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// Early stops
// ---------------------------------------------------------------------------------------

/// The searches and fallible loops stop soon after their answer is known. Each case runs
/// over 10^8 items whose answer is at position 2, and counts the items visited after the
/// answer's item was seen (0 or 1 on a quiet machine).
///
/// What the runtime controls is that every piece stops at its next item or chunk boundary
/// once the answer is published, so that only a chunk per worker follows. When the answer
/// is *published*, after its item is seen, is up to the scheduler: if the thread holding
/// position 2 loses the CPU between the two (to another worker, or to another process on a
/// loaded machine), the other pieces run on meanwhile, at millions of items per second.
/// (Bounds of 50 thousand visits after the answer, and before that of all visits, each
/// failed that way.) So the bound is a quarter of the items: a stall of a second is still
/// below it, and a search that ignored the stop visits about all of them.
#[test]
fn searches_and_failures_stop_early() {
    const N: usize = 100_000_000;
    const AT: usize = 2;
    const BOUND: usize = N / 4;
    on_pools(|at| {
        // Set when the answer's item is visited; items visited after that are counted.
        let seen = AtomicBool::new(false);
        let visited = AtomicUsize::new(0);
        let count = |i: usize| {
            if seen.load(Relaxed) {
                visited.fetch_add(1, Relaxed);
            }
            if i == AT {
                seen.store(true, Relaxed);
            }
        };
        let check = |what: &str| {
            let n = visited.swap(0, Relaxed);
            assert!(
                seen.swap(false, Relaxed),
                "{what} never visited its answer, {at}"
            );
            assert!(n < BOUND, "{what} visited {n} items after its answer, {at}");
        };

        assert_eq!(
            (0..N)
                .into_par_iter()
                .inspect(|&i| count(i))
                .find_first(|&i| i >= AT),
            Some(AT),
            "{at}"
        );
        check("find_first");
        assert_eq!(
            (0..N)
                .into_par_iter()
                .inspect(|&i| count(i))
                .find_any(|&i| i == AT),
            Some(AT),
            "{at}"
        );
        check("find_any");
        assert!(
            (0..N).into_par_iter().any(|i| {
                count(i);
                i == AT
            }),
            "{at}"
        );
        check("any");
        assert!(
            // Only the answer's item fails (`i < AT` failed on every later item too, and a
            // thief's first item could stop the loop before position 2 was reached).
            !(0..N).into_par_iter().all(|i| {
                count(i);
                i != AT
            }),
            "{at}"
        );
        check("all");
        let r = (0..N).into_par_iter().try_for_each(|i| {
            count(i);
            if i == AT {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(AT), "{at}");
        check("try_for_each");
        let r = (0..N).into_par_iter().try_for_each(|i| {
            count(i);
            (i != AT).then_some(())
        });
        assert_eq!(r, None, "{at}");
        check("try_for_each Option");
        assert_eq!(
            (0..N).into_par_iter().position_first(|i| {
                count(i);
                i == AT
            }),
            Some(AT),
            "{at}"
        );
        check("position_first");
        assert_eq!(
            (0..N).into_par_iter().position_any(|i| {
                count(i);
                i == AT
            }),
            Some(AT),
            "{at}"
        );
        check("position_any");
        assert_eq!(
            (0..N).into_par_iter().find_map_first(|i| {
                count(i);
                (i == AT).then_some(i * 2)
            }),
            Some(2 * AT),
            "{at}"
        );
        check("find_map_first");
        let r: Result<Vec<usize>, usize> = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                if i == AT {
                    Err(i)
                } else {
                    Ok(i)
                }
            })
            .collect();
        assert_eq!(r, Err(AT), "{at}");
        check("collect Result<Vec<_>, _>");
        let r: Option<Vec<usize>> = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                (i != AT).then_some(i)
            })
            .collect();
        assert_eq!(r, None, "{at}");
        check("collect Option<Vec<_>>");
        let r = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                if i == AT {
                    Err(i)
                } else {
                    Ok(i)
                }
            })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(r, Err(AT), "{at}");
        check("try_reduce");
        // Over a slice, through adaptors: a slice of `N` zero-sized items, which takes no
        // memory.
        let data = vec![(); N];
        assert_eq!(
            data.par_iter()
                .enumerate()
                .inspect(|&(i, _)| count(i))
                .map(|(i, _)| (i, i as u64 * 2))
                .find_first(|&(_, x)| x == 2 * AT as u64),
            Some((AT, 2 * AT as u64)),
            "{at}"
        );
        check("find_first on a slice");
    });
}

/// A search whose pieces run an inner iterator without end (`repeat`) or of `usize::MAX`
/// items (of known length, searched in blocks between looks) stops them once another piece
/// has the answer, as rayon's does, on pools of 2 and 4 workers (with one, the endless piece
/// may run first, in rayon too).
#[test]
fn a_search_stops_pieces_in_endless_inner_iterators() {
    type Inner = Box<dyn Iterator<Item = usize> + Send>;
    let endless = |kind: usize| -> Inner {
        if kind == 0 {
            Box::new(std::iter::repeat(1))
        } else {
            Box::new(1..usize::MAX)
        }
    };
    for workers in [2, 4] {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        for kind in 0..2 {
            let at = format!("{workers} workers, inner iterator {kind}");
            pool.install(|| {
                let found = (0..2usize)
                    .into_par_iter()
                    .flat_map_iter(|i| -> Inner {
                        if i == 0 {
                            endless(kind)
                        } else {
                            Box::new(std::iter::once(0))
                        }
                    })
                    .find_any(|&x| x == 0);
                assert_eq!(found, Some(0), "find_any, {at}");
                let first = (0..2usize)
                    .into_par_iter()
                    .flat_map_iter(|i| -> Inner {
                        if i == 0 {
                            Box::new(std::iter::once(0))
                        } else {
                            endless(kind)
                        }
                    })
                    .find_first(|&x| x == 0);
                assert_eq!(first, Some(0), "find_first, {at}");
            });
        }
    }
}

/// A search looks at the other pieces between the items of an iterator of known length that
/// is not a chunk the splitter sized: here a user's producer hands its folder `1..usize::MAX`
/// (with no look it would run for ever), while its other piece holds the match.
#[test]
fn a_search_stops_a_users_piece_of_known_length() {
    use forkjoin::iter::plumbing::{
        bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer,
    };

    /// Piece 0 is `1..usize::MAX`, piece 1 the match alone.
    struct Pieces(Option<usize>);
    impl UnindexedProducer for Pieces {
        type Item = usize;
        fn split(self) -> (Self, Option<Self>) {
            match self.0 {
                None => (Pieces(Some(0)), Some(Pieces(Some(1)))),
                Some(_) => (self, None),
            }
        }
        fn fold_with<F: Folder<usize>>(self, folder: F) -> F {
            match self.0 {
                Some(0) => folder.consume_iter(1..usize::MAX),
                _ => folder.consume_iter(std::iter::once(0)),
            }
        }
    }
    struct Endless;
    impl ParallelIterator for Endless {
        type Item = usize;
        fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
            bridge_unindexed(Pieces(None), consumer)
        }
    }
    for workers in [2, 4] {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        pool.install(|| {
            assert_eq!(Endless.find_any(|&x| x == 0), Some(0), "{workers} workers");
            assert!(Endless.any(|x| x == 0), "{workers} workers");
        });
    }
}
