//! The adaptors and consumers of issue 26 against std: exact answers on inputs of 0, 1, 2,
//! 17 and 1001 items, inside pools of 1, 2 and 8 workers and on the global pool. Splits are
//! forced at every index with `with_max_len(1)` where an adaptor's producer or consumer
//! does index arithmetic. Where rayon leaves the answer open (`take_any`, `skip_any_while`,
//! ...), the test checks what rayon promises, and the exact answer on one worker, which
//! never splits.

mod common;

use common::{input, panic_message, pools, Counted, LENS};
use forkjoin::iter::Either;
use forkjoin::prelude::*;
use std::cmp::Ordering;
use std::collections::LinkedList;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// `f(label, workers, n)` for every pool (workers 0: the global pool) and length.
fn each(f: impl Fn(&str, usize, usize) + Sync) {
    let all = |at: &str, w: usize| {
        for n in LENS {
            f(&format!("n = {n}, {at}"), w, n);
        }
    };
    for (w, pool) in pools() {
        pool.install(|| all(&format!("{w} workers"), *w));
    }
    all("the global pool", 0);
}

/// `items` with `sep` between every two.
fn interspersed<T: Clone>(items: &[T], sep: T) -> Vec<T> {
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(sep.clone());
        }
        out.push(x.clone());
    }
    out
}

/// `a` and `b` in turn; once one runs out, the rest of the other (`shortest`: stop then).
fn interleaved<T: Clone>(a: &[T], b: &[T], shortest: bool) -> Vec<T> {
    let mut out = Vec::new();
    // `current`: the one whose turn it is.
    let (mut current, mut other) = (a.iter(), b.iter());
    loop {
        match current.next() {
            Some(x) => out.push(x.clone()),
            None if shortest => return out,
            None => {
                out.extend(other.cloned());
                return out;
            }
        }
        std::mem::swap(&mut current, &mut other);
    }
}

#[test]
fn flatten_and_flatten_iter() {
    each(|at, _, n| {
        let nested: Vec<Vec<u64>> = input(n)
            .chunks(3)
            .map(|c| c[..c.len() % 3].to_vec())
            .collect();
        let expected: Vec<u64> = nested.iter().flatten().copied().collect();
        let got: Vec<u64> = nested.clone().into_par_iter().flatten().collect();
        assert_eq!(got, expected, "flatten, {at}");
        let got: Vec<u64> = nested.par_iter().flatten().copied().collect();
        assert_eq!(got, expected, "flatten by reference, {at}");
        let got: Vec<u64> = nested.clone().into_par_iter().flatten_iter().collect();
        assert_eq!(got, expected, "flatten_iter, {at}");
        let sum: u64 = nested.par_iter().with_max_len(1).flatten_iter().sum();
        assert_eq!(sum, expected.iter().sum::<u64>(), "{at}");
    });
}

#[test]
fn intersperse_indexed_and_not() {
    each(|at, w, n| {
        let v = input(n);
        let expected = interspersed(&v, u64::MAX);
        let indexed = || v.par_iter().copied().intersperse(u64::MAX);
        assert_eq!(indexed().len(), expected.len(), "len, {at}");
        assert_eq!(indexed().opt_len(), Some(expected.len()), "{at}");
        assert_eq!(indexed().collect::<Vec<_>>(), expected, "{at}");
        // A split at every index of the output.
        let got: Vec<u64> = indexed().with_max_len(1).collect();
        assert_eq!(got, expected, "with_max_len(1), {at}");
        let got: Vec<u64> = indexed().rev().with_max_len(3).collect();
        let mut rev = expected.clone();
        rev.reverse();
        assert_eq!(got, rev, "rev, {at}");
        let got: Vec<(usize, u64)> = indexed().enumerate().with_max_len(2).collect();
        assert_eq!(
            got,
            expected.iter().copied().enumerate().collect::<Vec<_>>(),
            "{at}"
        );
        // The consumer side: a filter leaves pieces empty, anywhere.
        for keep in [0, 1, 2, 3] {
            let kept: Vec<u64> = v.iter().copied().filter(|x| x % 4 < keep).collect();
            let expected = interspersed(&kept, u64::MAX);
            let got: Vec<u64> = v
                .par_iter()
                .with_max_len(1)
                .copied()
                .filter(|x| x % 4 < keep)
                .intersperse(u64::MAX)
                .collect();
            assert_eq!(got, expected, "filter(< {keep}), {at}");
            // Only the upper half: every piece on the left is empty.
            let upper: Vec<u64> = v[n / 2..].to_vec();
            let got: Vec<u64> = v
                .par_iter()
                .enumerate()
                .filter(|&(i, _)| i >= n / 2)
                .map(|(_, &x)| x)
                .intersperse(0)
                .collect();
            assert_eq!(got, interspersed(&upper, 0), "upper half, {at}");
        }
        // Unindexed producers: par_bridge and flat_map.
        let got: Vec<u64> = v.clone().into_iter().par_bridge().intersperse(1).collect();
        if w == 1 {
            assert_eq!(got, interspersed(&v, 1), "par_bridge, {at}");
        }
        assert_eq!(got.len(), (2 * n).saturating_sub(1), "par_bridge, {at}");
        let nested: Vec<Vec<u64>> = v.chunks(4).map(|c| c[..c.len() / 2].to_vec()).collect();
        let got: Vec<u64> = nested
            .par_iter()
            .flat_map(|c| c.par_iter().copied())
            .intersperse(9)
            .collect();
        let flat: Vec<u64> = nested.concat();
        assert_eq!(got, interspersed(&flat, 9), "flat_map, {at}");
        let sum: u64 = v
            .par_iter()
            .copied()
            .filter(|x| x % 2 == 0)
            .intersperse(5)
            .sum();
        let evens = v.iter().filter(|&&x| x % 2 == 0).count() as u64;
        let expected = v.iter().filter(|&&x| x % 2 == 0).sum::<u64>() + 5 * evens.saturating_sub(1);
        assert_eq!(sum, expected, "sum, {at}");
        // Interspersing an interspersed iterator.
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .filter(|_| true)
            .intersperse(1)
            .intersperse(2)
            .collect();
        assert_eq!(got, interspersed(&interspersed(&v, 1), 2), "twice, {at}");
    });
}

#[test]
fn update_and_positions() {
    each(|at, _, n| {
        let v = input(n);
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .update(|x| *x = *x * 3 + 1)
            .with_max_len(2)
            .collect();
        assert_eq!(
            got,
            v.iter().map(|x| x * 3 + 1).collect::<Vec<_>>(),
            "update, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .filter(|x| x % 3 == 0)
            .update(|x| *x += 1)
            .collect();
        let expected: Vec<u64> = v.iter().filter(|&&x| x % 3 == 0).map(|x| x + 1).collect();
        assert_eq!(got, expected, "update unindexed, {at}");
        assert_eq!(v.par_iter().update(|_| ()).len(), n, "{at}");
        let got: Vec<usize> = v
            .par_iter()
            .with_max_len(1)
            .positions(|&x| x % 5 == 1)
            .collect();
        let expected: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, &x)| x % 5 == 1)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(got, expected, "positions, {at}");
    });
}

#[test]
fn panic_fuse_passes_everything_and_stops_on_a_panic() {
    each(|at, _, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().copied().panic_fuse().with_max_len(3).collect();
        assert_eq!(got, v, "{at}");
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .filter(|x| x % 2 == 1)
            .panic_fuse()
            .collect();
        assert_eq!(
            got,
            v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>(),
            "{at}"
        );
        assert_eq!(v.par_iter().panic_fuse().len(), n);
        let zipped: Vec<(u64, u64)> = v
            .par_iter()
            .copied()
            .panic_fuse()
            .zip(v.par_iter().copied())
            .collect();
        assert_eq!(
            zipped,
            v.iter().map(|&x| (x, x)).collect::<Vec<_>>(),
            "{at}"
        );
        if n > 0 {
            let msg = panic_message(|| {
                v.par_iter().panic_fuse().for_each(|&x| {
                    if x == v[n / 2] {
                        panic!("boom {x}");
                    }
                })
            });
            assert_eq!(msg, format!("boom {}", v[n / 2]), "{at}");
        }
    });
    // Once the fuse blows, the other pieces stop: far fewer than all items are visited.
    let seen = AtomicUsize::new(0);
    let n = 200_000;
    let msg = panic_message(|| {
        (0..n).into_par_iter().panic_fuse().for_each(|i| {
            seen.fetch_add(1, Relaxed);
            assert!(i != 10, "item 10");
        })
    });
    assert_eq!(msg, "item 10");
    assert!(seen.load(Relaxed) < n, "all {n} items visited");
}

#[test]
fn take_any_skip_any_and_their_while_forms() {
    each(|at, w, n| {
        let v: Vec<usize> = (0..n).collect();
        for k in [0, 1, 5, n / 2, n, n + 3] {
            let got: Vec<usize> = v.par_iter().copied().take_any(k).collect();
            assert_eq!(got.len(), k.min(n), "take_any({k}), {at}");
            assert!(got.is_sorted(), "take_any({k}), {at}");
            if w == 1 {
                assert_eq!(got, v[..k.min(n)], "take_any({k}), {at}");
            }
            let got: Vec<usize> = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .skip_any(k)
                .collect();
            assert_eq!(
                got.len(),
                n.div_ceil(2).saturating_sub(k),
                "skip_any({k}), {at}"
            );
            assert!(
                got.is_sorted() && got.iter().all(|x| x % 2 == 0),
                "skip_any({k}), {at}"
            );
            if w == 1 {
                let expected: Vec<usize> =
                    v.iter().copied().filter(|x| x % 2 == 0).skip(k).collect();
                assert_eq!(got, expected, "skip_any({k}), {at}");
            }
        }
        let half = n / 2;
        let got: Vec<usize> = v
            .par_iter()
            .copied()
            .take_any_while(|&x| x < half)
            .collect();
        assert!(
            got.len() <= half && got.is_sorted() && got.iter().all(|&x| x < half),
            "{at}"
        );
        let got: Vec<usize> = v
            .par_iter()
            .copied()
            .skip_any_while(|&x| x < half)
            .collect();
        assert!(
            got.is_sorted() && got.ends_with(&v[half..]),
            "skip_any_while, {at}"
        );
        if w == 1 {
            let got: Vec<usize> = v
                .par_iter()
                .copied()
                .take_any_while(|&x| x < half)
                .collect();
            assert_eq!(got, v[..half], "{at}");
            let got: Vec<usize> = v
                .par_iter()
                .copied()
                .skip_any_while(|&x| x < half)
                .collect();
            assert_eq!(got, v[half..], "{at}");
        }
        // A predicate that holds everywhere takes (or skips) everything.
        assert_eq!(v.par_iter().take_any_while(|_| true).count(), n, "{at}");
        assert_eq!(v.par_iter().skip_any_while(|_| true).count(), 0, "{at}");
    });
}

#[test]
fn collect_vec_list_keeps_the_order() {
    each(|at, _, n| {
        let v = input(n);
        let list: LinkedList<Vec<u64>> = v.par_iter().copied().collect_vec_list();
        assert!(list.len() <= 1, "indexed: one vector, {at}");
        assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), v, "{at}");
        let list = v
            .par_iter()
            .with_max_len(1)
            .copied()
            .filter(|x| x % 3 != 0)
            .collect_vec_list();
        assert!(list.iter().all(|part| !part.is_empty()), "{at}");
        let expected: Vec<u64> = v.iter().copied().filter(|x| x % 3 != 0).collect();
        assert_eq!(
            list.into_iter().flatten().collect::<Vec<_>>(),
            expected,
            "{at}"
        );
    });
}

#[test]
fn partition_map_unzip_into_vecs_and_pairs_of_collections() {
    each(|at, _, n| {
        let v = input(n);
        let (evens, odds): (Vec<u64>, Vec<String>) = v.par_iter().partition_map(|&x| {
            if x % 2 == 0 {
                Either::Left(x / 2)
            } else {
                Either::Right(x.to_string())
            }
        });
        let expected_evens: Vec<u64> = v.iter().filter(|&&x| x % 2 == 0).map(|x| x / 2).collect();
        let expected_odds: Vec<String> = v
            .iter()
            .filter(|&&x| x % 2 == 1)
            .map(|x| x.to_string())
            .collect();
        assert_eq!((&evens, &odds), (&expected_evens, &expected_odds), "{at}");
        // Nested, and collected straight from `Either`s.
        let ((a, b), c): ((Vec<u64>, Vec<u64>), Vec<u64>) =
            v.par_iter().partition_map(|&x| match x % 3 {
                0 => Either::Left(Either::Left(x)),
                1 => Either::Left(Either::Right(x)),
                _ => Either::Right(x),
            });
        for (r, got) in [(0, a), (1, b), (2, c)] {
            assert_eq!(
                got,
                v.iter().copied().filter(|x| x % 3 == r).collect::<Vec<_>>(),
                "{at}"
            );
        }
        let (l, r): (Vec<u64>, Vec<u64>) = v
            .par_iter()
            .map(|&x| {
                if x % 2 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x)
                }
            })
            .collect();
        assert_eq!(
            (l.len(), r.len()),
            (expected_evens.len(), expected_odds.len()),
            "{at}"
        );
        // Pairs collect and extend pairs of collections.
        let (xs, ys): (Vec<u64>, Vec<usize>) =
            v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
        assert_eq!((xs, ys), (v.clone(), (0..n).collect::<Vec<_>>()), "{at}");
        let mut pair = (vec![7u64], Vec::<usize>::new());
        pair.par_extend(
            v.par_iter()
                .enumerate()
                .map(|(i, &x)| (x, i))
                .filter(|(x, _)| x % 2 == 0),
        );
        let mut expected = vec![7];
        expected.extend(v.iter().filter(|&&x| x % 2 == 0));
        assert_eq!(pair.0, expected, "{at}");
        // unzip_into_vecs clears what the vectors held.
        let (mut left, mut right) = (vec![1u64; 5], vec![String::from("old")]);
        v.par_iter()
            .with_max_len(2)
            .map(|&x| (x, x.to_string()))
            .unzip_into_vecs(&mut left, &mut right);
        assert_eq!(left, v, "{at}");
        assert_eq!(
            right,
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn interleave_interleave_shortest_and_zip_eq() {
    each(|at, _, n| {
        let a = input(n);
        for m in LENS {
            let b: Vec<u64> = input(m).iter().map(|x| x + 1).collect();
            for shortest in [false, true] {
                let expected = interleaved(&a, &b, shortest);
                let run = |max: usize| -> Vec<u64> {
                    if shortest {
                        a.par_iter()
                            .copied()
                            .interleave_shortest(b.par_iter().copied())
                            .with_max_len(max)
                            .collect()
                    } else {
                        a.par_iter()
                            .copied()
                            .interleave(b.par_iter().copied())
                            .with_max_len(max)
                            .collect()
                    }
                };
                assert_eq!(
                    run(usize::MAX),
                    expected,
                    "m = {m}, shortest {shortest}, {at}"
                );
                if n + m < 100 {
                    assert_eq!(
                        run(1),
                        expected,
                        "split everywhere, m = {m}, shortest {shortest}, {at}"
                    );
                }
                assert_eq!(run(7), expected, "m = {m}, shortest {shortest}, {at}");
            }
            let got: Vec<u64> = a
                .par_iter()
                .copied()
                .interleave(b.clone())
                .rev()
                .with_max_len(5)
                .collect();
            let mut expected = interleaved(&a, &b, false);
            expected.reverse();
            assert_eq!(got, expected, "rev, m = {m}, {at}");
            let len = a.par_iter().interleave_shortest(&b).len();
            assert_eq!(len, interleaved(&a, &b, true).len(), "{at}");
        }
        let b: Vec<u64> = a.iter().map(|x| x ^ 1).collect();
        let got: Vec<(u64, u64)> = a
            .par_iter()
            .copied()
            .zip_eq(b.par_iter().copied())
            .with_max_len(4)
            .collect();
        assert_eq!(
            got,
            a.iter().copied().zip(b.iter().copied()).collect::<Vec<_>>(),
            "{at}"
        );
        let msg = panic_message(|| drop(a.par_iter().zip_eq(vec![0; n + 1])));
        assert!(msg.contains("iterators must have the same length"), "{msg}");
    });
}

#[test]
fn fold_chunks_and_fold_chunks_with() {
    each(|at, _, n| {
        let v = input(n);
        for k in [1, 2, 3, 16, n.max(1), n + 1] {
            let expected: Vec<u64> = v
                .chunks(k)
                .map(|c| {
                    c.iter()
                        .fold(1u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
                })
                .collect();
            let got: Vec<u64> = v
                .par_iter()
                .fold_chunks(k, || 1u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
                .with_max_len(2)
                .collect();
            assert_eq!(got, expected, "fold_chunks({k}), {at}");
            let got: Vec<u64> = v
                .par_iter()
                .fold_chunks_with(k, 1u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
                .rev()
                .collect();
            assert_eq!(
                got,
                expected.iter().rev().copied().collect::<Vec<_>>(),
                "fold_chunks_with({k}).rev(), {at}"
            );
            assert_eq!(
                v.par_iter().fold_chunks(k, || 0, |a, _| a + 1).len(),
                expected.len(),
                "{at}"
            );
        }
    });
    let msg = panic_message(|| drop((0..3).into_par_iter().fold_chunks(0, || 0, |a, _| a)));
    assert_eq!(msg, "chunk_size must not be zero");
    let msg = panic_message(|| drop((0..3).into_par_iter().fold_chunks_with(0, 0, |a, _| a)));
    assert_eq!(msg, "chunk_size must not be zero");
}

#[test]
fn blocks_exponential_and_uniform() {
    each(|at, _, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().copied().by_exponential_blocks().collect();
        assert_eq!(got, v, "{at}");
        for k in [1, 2, 5, 1000] {
            let got: Vec<u64> = v.par_iter().copied().by_uniform_blocks(k).collect();
            assert_eq!(got, v, "by_uniform_blocks({k}), {at}");
        }
        let target = n * 2 / 3;
        let none = v.par_iter().by_exponential_blocks().find_any(|_| false);
        assert_eq!(none, None);
        let got = (0..n)
            .into_par_iter()
            .by_exponential_blocks()
            .find_first(|&x| x >= target);
        assert_eq!(got, (target < n).then_some(target), "{at}");
        let got = (0..n)
            .into_par_iter()
            .by_uniform_blocks(3)
            .find_last(|&x| x <= target);
        assert_eq!(
            got,
            (n > 0).then_some(target.min(n.saturating_sub(1))),
            "{at}"
        );
        let sum: u64 = v.par_iter().by_uniform_blocks(4).sum();
        assert_eq!(sum, v.iter().sum::<u64>(), "{at}");
    });
    let msg = panic_message(|| drop((0..3).into_par_iter().by_uniform_blocks(0)));
    assert_eq!(msg, "block_size must not be zero");
}

#[test]
fn comparisons_agree_with_std() {
    each(|at, _, n| {
        let a: Vec<u64> = input(n).iter().map(|x| x % 4).collect();
        let mut others = vec![a.clone(), a[..n.saturating_sub(1)].to_vec()];
        let mut longer = a.clone();
        longer.push(0);
        others.push(longer);
        for i in [0, n / 2, n.saturating_sub(1)] {
            if i < n {
                for d in [1, 3] {
                    let mut b = a.clone();
                    b[i] = (b[i] + d) % 4;
                    others.push(b);
                }
            }
        }
        for b in &others {
            let (pa, pb) = (|| a.par_iter(), || b.par_iter());
            assert_eq!(pa().cmp(pb()), a.iter().cmp(b.iter()), "cmp, {at}");
            assert_eq!(
                pa().partial_cmp(pb()),
                a.iter().partial_cmp(b.iter()),
                "{at}"
            );
            assert_eq!(pa().eq(pb()), a.iter().eq(b.iter()), "eq, {at}");
            assert_eq!(pa().ne(pb()), a.iter().ne(b.iter()), "ne, {at}");
            assert_eq!(pa().lt(pb()), a.iter().lt(b.iter()), "lt, {at}");
            assert_eq!(pa().le(pb()), a.iter().le(b.iter()), "le, {at}");
            assert_eq!(pa().gt(pb()), a.iter().gt(b.iter()), "gt, {at}");
            assert_eq!(pa().ge(pb()), a.iter().ge(b.iter()), "ge, {at}");
            assert_eq!(
                pa().with_max_len(1).cmp(pb()),
                a.iter().cmp(b.iter()),
                "{at}"
            );
        }
        // Floats: a NaN compares as None, unless an earlier pair already differs.
        let f: Vec<f64> = a.iter().map(|&x| x as f64).collect();
        if n > 0 {
            let mut g = f.clone();
            g[n / 2] = f64::NAN;
            assert_eq!(
                f.par_iter().partial_cmp(&g),
                f.iter().partial_cmp(g.iter()),
                "NaN, {at}"
            );
            assert_eq!(f.par_iter().partial_cmp(&g), None, "{at}");
            g[0] = -1.0;
            assert_eq!(
                f.par_iter().partial_cmp(&g),
                Some(Ordering::Greater),
                "{at}"
            );
            assert!(!f.par_iter().eq(&g), "{at}");
        }
    });
}

#[test]
fn either_of_two_iterators_and_of_two_collections() {
    each(|at, _, n| {
        let v = input(n);
        for left in [true, false] {
            let it = if left {
                Either::Left(v.par_iter().copied())
            } else {
                Either::Right(v.par_iter().rev().copied())
            };
            assert_eq!(it.len(), n, "{at}");
            let got: Vec<(usize, u64)> = it.enumerate().with_max_len(3).collect();
            let mut expected = v.clone();
            if !left {
                expected.reverse();
            }
            assert_eq!(
                got,
                expected.into_iter().enumerate().collect::<Vec<_>>(),
                "{at}"
            );
            let mut target: Either<Vec<u64>, Vec<u64>> = if left {
                Either::Left(vec![1])
            } else {
                Either::Right(vec![2])
            };
            target.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
            let mut expected = vec![if left { 1 } else { 2 }];
            expected.extend(v.iter().filter(|&&x| x % 2 == 0));
            assert_eq!(target.either(|l| l, |r| r), expected, "{at}");
        }
    });
}

#[test]
#[allow(deprecated)]
fn the_deprecated_find_and_position_of_rayon() {
    each(|at, _, n| {
        let v: Vec<usize> = (0..n).collect();
        assert_eq!(v.par_iter().find(|&&x| x == n / 2), v.get(n / 2), "{at}");
        assert_eq!(
            v.par_iter().position(|&x| x == n / 3),
            (n > 0).then_some(n / 3),
            "{at}"
        );
    });
}

/// A string of `n` characters drawn from letters, separators, whitespace, `\r`, `\n` and
/// characters of 2, 3 and 4 bytes.
fn text(n: usize) -> String {
    const ALPHABET: [char; 16] = [
        'a', 'b', ',', ' ', '\t', '\n', '\r', 'é', '€', '𝄞', 'x', ';', '\u{2009}', 'z', '\n', ',',
    ];
    input(n)
        .iter()
        .map(|&x| ALPHABET[(x % 16) as usize])
        .collect()
}

#[test]
fn string_iterators_give_what_str_gives() {
    each(|at, _, n| {
        let s = text(n);
        let s = s.as_str();
        assert_eq!(
            s.par_chars().collect::<Vec<_>>(),
            s.chars().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<(usize, char)> = s.par_char_indices().collect();
        assert_eq!(got, s.char_indices().collect::<Vec<_>>(), "{at}");
        assert_eq!(
            s.par_bytes().collect::<Vec<_>>(),
            s.bytes().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<u16> = s.par_encode_utf16().collect();
        assert_eq!(got, s.encode_utf16().collect::<Vec<_>>(), "{at}");
        // rayon's lines (`str::lines` keeps a bare `\r` at the very end).
        let got: Vec<&str> = s.par_lines().collect();
        let want: Vec<&str> = s
            .split_terminator('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        assert_eq!(got, want, "lines, {at}");
        let got: Vec<&str> = s.par_split_whitespace().collect();
        assert_eq!(got, s.split_whitespace().collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = s.par_split_ascii_whitespace().collect();
        assert_eq!(got, s.split_ascii_whitespace().collect::<Vec<_>>(), "{at}");
        // Every kind of pattern.
        macro_rules! by_pattern {
            ($pat:expr) => {{
                let what = format!("{}, {at}", stringify!($pat));
                let got: Vec<&str> = s.par_split($pat).collect();
                assert_eq!(got, s.split($pat).collect::<Vec<_>>(), "split {what}");
                let got: Vec<&str> = s.par_split_inclusive($pat).collect();
                assert_eq!(
                    got,
                    s.split_inclusive($pat).collect::<Vec<_>>(),
                    "inclusive {what}"
                );
                let got: Vec<&str> = s.par_split_terminator($pat).collect();
                assert_eq!(
                    got,
                    s.split_terminator($pat).collect::<Vec<_>>(),
                    "terminator {what}"
                );
                let got: Vec<&str> = s.par_matches($pat).collect();
                assert_eq!(got, s.matches($pat).collect::<Vec<_>>(), "matches {what}");
                let got: Vec<(usize, &str)> = s.par_match_indices($pat).collect();
                assert_eq!(
                    got,
                    s.match_indices($pat).collect::<Vec<_>>(),
                    "match_indices {what}"
                );
            }};
        }
        by_pattern!(',');
        by_pattern!('€');
        by_pattern!('q');
        by_pattern!(&[',', '𝄞'][..]);
        by_pattern!([';', 'é', '\n']);
        by_pattern!(&['a', 'z']);
        by_pattern!(char::is_whitespace);
        by_pattern!(|c: char| c.len_utf8() > 1);
        // A string that ends with a separator, and one that is only separators.
        let ends = format!("{s},");
        let got: Vec<&str> = ends.par_split_terminator(',').collect();
        assert_eq!(got, ends.split_terminator(',').collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = ends.par_split_inclusive(',').collect();
        assert_eq!(got, ends.split_inclusive(',').collect::<Vec<_>>(), "{at}");
        let commas = ",".repeat(n);
        let got: Vec<&str> = commas.par_split(',').collect();
        assert_eq!(got, commas.split(',').collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = commas.par_split_terminator(',').collect();
        assert_eq!(
            got,
            commas.split_terminator(',').collect::<Vec<_>>(),
            "{at}"
        );
        // rayon's lines: `str::lines`, but a last line's bare `\r` is dropped too.
        let crlf = "ab\r\n".repeat(n) + "\r";
        let got: Vec<&str> = crlf.par_lines().collect();
        let mut want = vec!["ab"; n];
        want.push("");
        assert_eq!(got, want, "{at}");
        let bare = "a\rb\n".repeat(n) + "c\r";
        let got: Vec<&str> = bare.par_lines().collect();
        let mut want = vec!["a\rb"; n];
        want.push("c");
        assert_eq!(got, want, "{at}");
        // A `String` has the methods too.
        let owned: String = s.to_string();
        assert_eq!(owned.par_chars().count(), s.chars().count(), "{at}");
    });
}

#[test]
fn slice_chunk_families_and_array_windows() {
    each(|at, _, n| {
        let v = input(n);
        for k in [1, 2, 3, 16, n.max(1), n + 1] {
            macro_rules! same {
                ($par:ident, $std:ident) => {{
                    let expected: Vec<&[u64]> = v.$std(k).collect();
                    let got: Vec<&[u64]> = v.$par(k).collect();
                    assert_eq!(got, expected, "{}({k}), {at}", stringify!($par));
                    let got: Vec<&[u64]> = v.$par(k).with_max_len(1).rev().collect();
                    let rev: Vec<&[u64]> = expected.iter().rev().copied().collect();
                    assert_eq!(got, rev, "{}({k}).rev(), {at}", stringify!($par));
                    assert_eq!(v.$par(k).len(), expected.len(), "{at}");
                }};
            }
            same!(par_chunks_exact, chunks_exact);
            same!(par_rchunks, rchunks);
            same!(par_rchunks_exact, rchunks_exact);
            assert_eq!(
                v.par_chunks_exact(k).remainder(),
                v.chunks_exact(k).remainder()
            );
            assert_eq!(
                v.par_rchunks_exact(k).remainder(),
                v.rchunks_exact(k).remainder()
            );
            macro_rules! same_mut {
                ($par:ident, $std:ident) => {{
                    let (mut got, mut expected) = (v.clone(), v.clone());
                    for (i, c) in expected.$std(k).enumerate() {
                        c.reverse();
                        c[0] ^= i as u64;
                    }
                    got.$par(k).with_max_len(2).enumerate().for_each(|(i, c)| {
                        c.reverse();
                        c[0] ^= i as u64;
                    });
                    assert_eq!(got, expected, "{}({k}), {at}", stringify!($par));
                }};
            }
            same_mut!(par_chunks_exact_mut, chunks_exact_mut);
            same_mut!(par_rchunks_mut, rchunks_mut);
            same_mut!(par_rchunks_exact_mut, rchunks_exact_mut);
            let mut w = v.clone();
            let mut chunks = w.par_chunks_exact_mut(k);
            let rem = n % k;
            assert_eq!(chunks.remainder().len(), rem, "{at}");
            assert_eq!(chunks.take_remainder(), &v[n - rem..], "{at}");
            assert!(chunks.into_remainder().is_empty(), "{at}");
            let mut w = v.clone();
            assert_eq!(
                w.par_rchunks_exact_mut(k).into_remainder(),
                &v[..rem],
                "{at}"
            );
        }
        let got: Vec<&[u64; 1]> = v.par_array_windows().collect();
        assert_eq!(got.len(), n, "{at}");
        let got: Vec<[u64; 3]> = v
            .par_array_windows::<3>()
            .with_max_len(1)
            .map(|w| *w)
            .collect();
        let expected: Vec<[u64; 3]> = v.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
        assert_eq!(got, expected, "{at}");
        assert_eq!(
            v.par_array_windows::<2>().len(),
            n.saturating_sub(1),
            "{at}"
        );
    });
    for msg in [
        panic_message(|| {
            let _ = [1].par_chunks_exact(0);
        }),
        panic_message(|| {
            let _ = [1].par_rchunks(0);
        }),
        panic_message(|| {
            let _ = [1].par_rchunks_exact_mut(0);
        }),
    ] {
        assert_eq!(msg, "chunk_size must not be zero");
    }
    assert_eq!(
        panic_message(|| {
            let _ = [1].par_array_windows::<0>();
        }),
        "window_size must not be zero"
    );
}

#[test]
fn slice_split_split_inclusive_and_chunk_by() {
    each(|at, _, n| {
        let v: Vec<u64> = input(n).iter().map(|x| x % 5).collect();
        for sep in [0, 1, 7] {
            let is_sep = |x: &u64| *x == sep;
            let got: Vec<&[u64]> = v.par_split(is_sep).collect();
            assert_eq!(
                got,
                v.split(is_sep).collect::<Vec<_>>(),
                "split({sep}), {at}"
            );
            let got: Vec<&[u64]> = v.par_split_inclusive(is_sep).collect();
            let expected: Vec<&[u64]> = v.split_inclusive(is_sep).collect();
            assert_eq!(got, expected, "split_inclusive({sep}), {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_split_mut(is_sep).for_each(|s| s.reverse());
            expected.split_mut(is_sep).for_each(|s| s.reverse());
            assert_eq!(got, expected, "split_mut({sep}), {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_split_inclusive_mut(is_sep)
                .for_each(|s| s.rotate_left(1));
            expected
                .split_inclusive_mut(is_sep)
                .for_each(|s| s.rotate_left(1));
            assert_eq!(got, expected, "split_inclusive_mut({sep}), {at}");
        }
        // Separators everywhere, and at the ends.
        let zeros = vec![0u64; n];
        let got: Vec<&[u64]> = zeros.par_split(|&x| x == 0).collect();
        assert_eq!(got, zeros.split(|&x| x == 0).collect::<Vec<_>>(), "{at}");
        let got: Vec<&[u64]> = zeros.par_split_inclusive(|&x| x == 0).collect();
        assert_eq!(
            got,
            zeros.split_inclusive(|&x| x == 0).collect::<Vec<_>>(),
            "{at}"
        );
        for same in [
            |a: &u64, b: &u64| a == b,
            |a: &u64, b: &u64| a <= b,
            |_: &u64, _: &u64| true,
        ] {
            let got: Vec<&[u64]> = v.par_chunk_by(same).collect();
            assert_eq!(got, v.chunk_by(same).collect::<Vec<_>>(), "chunk_by, {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_chunk_by_mut(same).for_each(|s| s[0] += 10);
            expected.chunk_by_mut(same).for_each(|s| s[0] += 10);
            assert_eq!(got, expected, "chunk_by_mut, {at}");
        }
    });
}

#[test]
fn vec_par_drain_removes_the_range_whatever_happens() {
    each(|at, _, n| {
        let v = input(n);
        let ranges = [
            (0, n),
            (0, n / 2),
            (n / 3, n),
            (n / 3, n / 3 + n / 4),
            (n, n),
        ];
        for (s, e) in ranges {
            let mut w = v.clone();
            let cap = w.capacity();
            let got: Vec<u64> = w.par_drain(s..e).with_max_len(3).collect();
            let mut expected = v.clone();
            let drained: Vec<u64> = expected.drain(s..e).collect();
            assert_eq!((got, &w), (drained, &expected), "{s}..{e}, {at}");
            assert_eq!(w.capacity(), cap, "{at}");
            // Other forms of range.
            let mut w = v.clone();
            let got: Vec<u64> = w.par_drain(s..).rev().collect();
            assert_eq!(
                got,
                v[s..].iter().rev().copied().collect::<Vec<_>>(),
                "{at}"
            );
            assert_eq!(w, v[..s], "{at}");
            let mut w = v.clone();
            assert_eq!(w.par_drain(..e).len(), e, "{at}");
            assert_eq!(w, v[e..], "{at}");
            if e > s {
                let mut w = v.clone();
                let sum: u64 = w.par_drain(s..=e - 1).map(|x| x % 7).sum();
                assert_eq!(sum, v[s..e].iter().map(|x| x % 7).sum::<u64>(), "{at}");
                assert_eq!(w.len(), n - (e - s), "{at}");
            }
            // Drops: an early stop, a panic, and never driving: every element is dropped
            // once, and the vector holds exactly what is outside the range.
            let drops = AtomicUsize::new(0);
            let fresh = || -> Vec<Counted<'_>> { v.iter().map(|&x| Counted(x, &drops)).collect() };
            let outside: Vec<u64> = v[..s].iter().chain(&v[e..]).copied().collect();
            let values = |w: &[Counted]| w.iter().map(|c| c.0).collect::<Vec<_>>();
            let mut w = fresh();
            let taken: Vec<Counted> = w.par_drain(s..e).take((e - s) / 2).collect();
            assert_eq!(taken.len(), (e - s) / 2, "{at}");
            drop(taken);
            assert_eq!(drops.load(Relaxed), e - s, "take, {at}");
            assert_eq!(values(&w), outside, "take, {at}");
            drop(w);
            drops.store(0, Relaxed);
            let mut w = fresh();
            if e > s {
                let middle = v[(s + e) / 2];
                let msg = panic_message(|| {
                    w.par_drain(s..e).with_max_len(2).for_each(|c| {
                        assert!(c.0 != middle, "found the middle");
                    })
                });
                assert_eq!(msg, "found the middle");
            }
            assert_eq!(drops.load(Relaxed), e - s, "panic, {at}");
            assert_eq!(values(&w), outside, "panic, {at}");
            drop(w);
            drops.store(0, Relaxed);
            let mut w = fresh();
            drop(w.par_drain(s..e));
            assert_eq!(drops.load(Relaxed), e - s, "never driven, {at}");
            assert_eq!(values(&w), outside, "never driven, {at}");
        }
    });
    let mut v = vec![1, 2, 3];
    let msg = panic_message(|| drop(v.par_drain(2..5)));
    assert_eq!(msg, "range end index 5 out of range for slice of length 3");
    #[allow(clippy::reversed_empty_ranges)]
    let msg = panic_message(|| drop(v.par_drain(2..1)));
    assert_eq!(msg, "slice index starts at 2 but ends at 1");
    assert_eq!(v, [1, 2, 3]);
}
