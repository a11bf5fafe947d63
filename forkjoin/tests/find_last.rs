//! `find_last` and its relatives search from the right end (`Consumer::RIGHT_FIRST`): on
//! iterators far too long to scan from the left (2^64 to 2^90 items, nested `flat_map`s of
//! indexed and unindexed iterators), they return the exact answer at once, in pools of 1, 2
//! and 8 workers and on the global pool. `find_first` on the same iterators still searches
//! from the left, and both agree with std on ordinary inputs.

use forkjoin::prelude::*;
use forkjoin::Pool;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

/// Pools of 1, 2 and 8 workers.
fn pools() -> &'static [(usize, Pool)] {
    static POOLS: OnceLock<Vec<(usize, Pool)>> = OnceLock::new();
    POOLS.get_or_init(|| Vec::from([1, 2, 8].map(|w| (w, Pool::new(w).unwrap()))))
}

/// `f(label)` in every pool and on the global pool.
fn on_pools(f: impl Fn(&str) + Sync) {
    for (w, pool) in pools() {
        pool.install(|| f(&format!("{w} workers")));
    }
    f("the global pool");
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

/// From the right, `find_last(|_| true)` looks at a few items only, and `find_first` at the
/// start.
#[test]
fn find_last_looks_at_few_items() {
    on_pools(|at| {
        let n = 10_000_000u64;
        let seen = AtomicUsize::new(0);
        let last = (0..n).into_par_iter().find_last(|_| {
            // Relaxed: a count read after the search has returned.
            seen.fetch_add(1, Relaxed);
            true
        });
        assert_eq!(last, Some(n - 1), "{at}");
        let seen = seen.load(Relaxed);
        assert!(seen < 1_000_000, "find_last looked at {seen} items, {at}");
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
