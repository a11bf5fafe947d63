//! The adaptors against std's: exact answers, in order, inside pools of 1, 2 and 8 workers and
//! on the global pool, with splits forced at every index (`with_max_len(1)`) where a producer
//! or consumer does index arithmetic; `opt_len` known exactly where rayon knows it. Where
//! rayon leaves the answer open (`take_any`, `skip_any_while`, `while_some` after a `None`),
//! the test checks what rayon promises, and the exact answer on one worker, which never
//! splits.

use crate::common::*;
use forkjoin::prelude::*;
use std::num::Wrapping;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

// ---------------------------------------------------------------------------------------
// Adaptors
// ---------------------------------------------------------------------------------------

#[test]
fn map_filter_and_filter_map() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|&x| x.wrapping_mul(31)).collect();
        assert_eq!(
            got,
            v.iter().map(|&x| x.wrapping_mul(31)).collect::<Vec<_>>(),
            "map, {at}"
        );
        let got: Vec<&u64> = v.par_iter().filter(|&&x| x % 3 == 0).collect();
        assert_eq!(
            got,
            v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>(),
            "filter, {at}"
        );
        let f = |&x: &u64| (x % 5 != 0).then_some(x / 5);
        let got: Vec<u64> = v.par_iter().filter_map(f).collect();
        assert_eq!(
            got,
            v.iter().filter_map(f).collect::<Vec<_>>(),
            "filter_map, {at}"
        );
        assert_eq!(
            v.par_iter().filter(|&&x| x & 1 == 1).count(),
            v.iter().filter(|&&x| x & 1 == 1).count(),
            "{at}"
        );
        assert_eq!(v.par_iter().map(|&x| x).len(), n, "{at}");
    });
}

#[test]
fn map_with_and_map_init() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        // The state starts as a clone of `init` in every piece; the closure may change it.
        let got: Vec<u64> = v
            .par_iter()
            .map_with(vec![7u64], |state, &x| {
                assert_eq!(state[0], 7);
                state.push(x);
                x ^ state[0]
            })
            .collect();
        assert_eq!(
            got,
            v.iter().map(|x| x ^ 7).collect::<Vec<_>>(),
            "map_with, {at}"
        );
        let inits = AtomicUsize::new(0);
        let got: Vec<u64> = v
            .par_iter()
            .map_init(
                || {
                    inits.fetch_add(1, Relaxed);
                    String::new()
                },
                |buf, &x| {
                    buf.clear();
                    buf.push_str(&x.to_string());
                    buf.len() as u64 + x
                },
            )
            .collect();
        let expected: Vec<u64> = v.iter().map(|&x| x.to_string().len() as u64 + x).collect();
        assert_eq!(got, expected, "map_init, {at}");
        if n > 0 {
            assert!(
                inits.load(Relaxed) >= 1,
                "map_init never made its state, {at}"
            );
        }
        // On an unindexed iterator too.
        let got: Vec<u64> = v
            .par_iter()
            .filter(|&&x| x % 2 == 0)
            .map_with(3u64, |s, &x| x / *s)
            .collect();
        assert_eq!(
            got,
            v.iter()
                .filter(|&&x| x % 2 == 0)
                .map(|x| x / 3)
                .collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn flat_map_and_flat_map_iter() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v
            .par_iter()
            .flat_map(|&x| (0..x % 4).into_par_iter().map(move |k| x.wrapping_add(k)))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .flat_map(|&x| (0..x % 4).map(move |k| x.wrapping_add(k)))
            .collect();
        assert_eq!(got, expected, "flat_map, {at}");
        let got: Vec<u64> = v
            .par_iter()
            .flat_map_iter(|&x| std::iter::repeat_n(x, (x % 3) as usize))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .flat_map(|&x| std::iter::repeat_n(x, (x % 3) as usize))
            .collect();
        assert_eq!(got, expected, "flat_map_iter, {at}");
        // Into vectors, and through an unindexed inner iterator.
        let got: Vec<u64> = v.par_iter().flat_map(|&x| vec![x, !x]).collect();
        assert_eq!(
            got,
            v.iter().flat_map(|&x| [x, !x]).collect::<Vec<_>>(),
            "{at}"
        );
        let got: usize = v
            .par_iter()
            .flat_map(|&x| (0..x % 5).into_par_iter().filter(|k| k % 2 == 0))
            .count();
        assert_eq!(
            got,
            v.iter()
                .map(|&x| (0..x % 5).filter(|k| k % 2 == 0).count())
                .sum::<usize>(),
            "{at}"
        );
    });
}

/// `flat_map` whose inner iterators are long enough to be split themselves: the order of
/// the whole is kept.
#[test]
fn flat_map_over_long_inner_iterators_keeps_the_order() {
    on_pools(|at| {
        let got: Vec<u64> = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .collect();
        let expected: Vec<u64> = (0..4u64)
            .flat_map(|i| (0..250_000u64).map(move |k| i << 32 | k))
            .collect();
        assert_eq!(got, expected, "{at}");
        let got = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .find_first(|x| x & 0xffff_ffff == 200_000 && x >> 32 >= 1);
        assert_eq!(got, Some(1 << 32 | 200_000), "{at}");
        let got = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .find_last(|x| x & 0xffff_ffff == 3);
        assert_eq!(got, Some(3 << 32 | 3), "{at}");
        let (a, b): (Vec<u64>, Vec<u64>) = (0..3u64)
            .into_par_iter()
            .flat_map(|i| (0..300_000u64).into_par_iter().map(move |k| (i, k)))
            .unzip();
        assert_eq!(
            a,
            (0..3u64)
                .flat_map(|i| std::iter::repeat_n(i, 300_000))
                .collect::<Vec<_>>(),
            "{at}"
        );
        assert_eq!(
            b,
            (0..3u64).flat_map(|_| 0..300_000u64).collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn enumerate_zip_and_chain() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let w: Vec<u64> = v.iter().rev().copied().collect();
        let got: Vec<(usize, &u64)> = v.par_iter().enumerate().collect();
        assert_eq!(
            got,
            v.iter().enumerate().collect::<Vec<_>>(),
            "enumerate, {at}"
        );
        // zip: equal and unequal lengths, either side shorter.
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w).collect();
        assert_eq!(got, v.iter().zip(&w).collect::<Vec<_>>(), "zip, {at}");
        let got: Vec<(&u64, usize)> = v.par_iter().zip(0..n + 5).collect();
        assert_eq!(
            got,
            v.iter().zip(0..n + 5).collect::<Vec<_>>(),
            "zip longer, {at}"
        );
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w[..n / 2]).collect();
        assert_eq!(
            got,
            v.iter().zip(&w[..n / 2]).collect::<Vec<_>>(),
            "zip shorter, {at}"
        );
        assert_eq!(v.par_iter().zip(&w[..n / 3]).len(), n / 3, "{at}");
        let got: Vec<(u64, u64)> = w
            .clone()
            .into_par_iter()
            .zip(v.par_iter().copied())
            .rev()
            .collect();
        assert_eq!(
            got,
            w.iter()
                .copied()
                .zip(v.iter().copied())
                .rev()
                .collect::<Vec<_>>(),
            "zip rev, {at}"
        );
        // chain: indexed (both sides indexed), then unindexed.
        let got: Vec<(usize, &u64)> = v.par_iter().chain(&w[..n / 2]).enumerate().collect();
        assert_eq!(
            got,
            v.iter().chain(&w[..n / 2]).enumerate().collect::<Vec<_>>(),
            "chain indexed, {at}"
        );
        assert_eq!(v.par_iter().chain(&w).len(), 2 * n, "{at}");
        let got: Vec<&u64> = v.par_iter().chain(&w).rev().collect();
        assert_eq!(
            got,
            v.iter().chain(&w).rev().collect::<Vec<_>>(),
            "chain rev, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .filter(|x| x % 2 == 0)
            .chain(w.par_iter().filter_map(|&x| (x % 3 == 0).then_some(x / 3)))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .copied()
            .filter(|x| x % 2 == 0)
            .chain(w.iter().filter_map(|&x| (x % 3 == 0).then_some(x / 3)))
            .collect();
        assert_eq!(got, expected, "chain unindexed, {at}");
        let got: Vec<u64> = (0..n as u64)
            .into_par_iter()
            .chain(v.par_iter().copied())
            .chain(vec![1, 2, 3])
            .collect();
        let expected: Vec<u64> = (0..n as u64)
            .chain(v.iter().copied())
            .chain([1, 2, 3])
            .collect();
        assert_eq!(got, expected, "chain of three, {at}");
    });
}

#[test]
fn copied_cloned_and_inspect() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(
            v.par_iter().copied().collect::<Vec<u64>>(),
            v,
            "copied, {at}"
        );
        assert_eq!(
            v.par_iter().cloned().collect::<Vec<u64>>(),
            v,
            "cloned, {at}"
        );
        let seen = AtomicUsize::new(0);
        let xor = AtomicU64::new(0);
        let got: Vec<u64> = v
            .par_iter()
            .inspect(|&&x| {
                seen.fetch_add(1, Relaxed);
                xor.fetch_xor(x, Relaxed);
            })
            .copied()
            .collect();
        assert_eq!(got, v, "inspect, {at}");
        assert_eq!(seen.load(Relaxed), n, "inspect, {at}");
        assert_eq!(
            xor.load(Relaxed),
            v.iter().fold(0, |a, x| a ^ x),
            "inspect, {at}"
        );
        let seen = AtomicUsize::new(0);
        let evens = v.par_iter().filter(|&&x| x % 2 == 0).inspect(|_| {
            seen.fetch_add(1, Relaxed);
        });
        assert_eq!(
            evens.count(),
            v.iter().filter(|&&x| x % 2 == 0).count(),
            "{at}"
        );
        assert_eq!(
            seen.load(Relaxed),
            v.iter().filter(|&&x| x % 2 == 0).count(),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let strings: Vec<String> = input(n).iter().map(|x| format!("s{x}")).collect();
        assert_eq!(
            strings.par_iter().cloned().collect::<Vec<String>>(),
            strings,
            "cloned strings, {at}"
        );
        assert_eq!(
            strings.par_iter().cloned().rev().collect::<Vec<String>>(),
            strings.iter().rev().cloned().collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn take_skip_rev_and_step_by() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [0, 1, 2, n / 2, n.saturating_sub(1), n, n + 1, usize::MAX] {
            let got: Vec<&u64> = v.par_iter().take(k).collect();
            assert_eq!(got, v.iter().take(k).collect::<Vec<_>>(), "take({k}), {at}");
            assert_eq!(v.par_iter().take(k).len(), n.min(k), "{at}");
            let got: Vec<&u64> = v.par_iter().skip(k).collect();
            assert_eq!(got, v.iter().skip(k).collect::<Vec<_>>(), "skip({k}), {at}");
            assert_eq!(v.par_iter().skip(k).len(), n.saturating_sub(k), "{at}");
        }
        let got: Vec<&u64> = v.par_iter().skip(n / 4).take(n / 2).rev().collect();
        assert_eq!(
            got,
            v.iter().skip(n / 4).take(n / 2).rev().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<&u64> = v.par_iter().rev().collect();
        assert_eq!(got, v.iter().rev().collect::<Vec<_>>(), "rev, {at}");
        let got: Vec<&u64> = v.par_iter().rev().rev().collect();
        assert_eq!(got, v.iter().collect::<Vec<_>>(), "rev rev, {at}");
        let got: Vec<(usize, &u64)> = v.par_iter().rev().enumerate().collect();
        assert_eq!(
            got,
            v.iter().rev().enumerate().collect::<Vec<_>>(),
            "rev enumerate, {at}"
        );
        let got: Vec<(usize, &u64)> = v.par_iter().enumerate().rev().collect();
        assert_eq!(
            got,
            v.iter().enumerate().rev().collect::<Vec<_>>(),
            "enumerate rev, {at}"
        );
        for s in [1, 2, 3, 1000, n.max(1), n + 1] {
            let got: Vec<&u64> = v.par_iter().step_by(s).collect();
            assert_eq!(
                got,
                v.iter().step_by(s).collect::<Vec<_>>(),
                "step_by({s}), {at}"
            );
            assert_eq!(
                v.par_iter().step_by(s).len(),
                v.iter().step_by(s).len(),
                "{at}"
            );
            let got: Vec<&u64> = v.par_iter().step_by(s).rev().collect();
            assert_eq!(
                got,
                v.iter().step_by(s).rev().collect::<Vec<_>>(),
                "step_by({s}).rev(), {at}"
            );
            let got: Vec<(usize, &u64)> = v.par_iter().skip(1).step_by(s).enumerate().collect();
            assert_eq!(
                got,
                v.iter().skip(1).step_by(s).enumerate().collect::<Vec<_>>(),
                "{at}"
            );
        }
    });
    assert_eq!(
        panic_message(|| drop((0..5).into_par_iter().step_by(0))),
        "step_by: the step must not be zero"
    );
}

#[test]
fn chunks_adaptor() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 1000, n.max(1), n + 1] {
            if n == BIG && k < 1000 {
                continue; // 10^6 little vectors: slow, and nothing new
            }
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(k).collect();
            let expected: Vec<Vec<u64>> = v.chunks(k).map(|c| c.to_vec()).collect();
            assert_eq!(got, expected, "chunks({k}), {at}");
            assert_eq!(v.par_iter().chunks(k).len(), expected.len(), "{at}");
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(k).rev().collect();
            assert_eq!(
                got,
                expected.iter().rev().cloned().collect::<Vec<_>>(),
                "chunks({k}).rev(), {at}"
            );
        }
    });
    assert_eq!(
        panic_message(|| drop((0..5).into_par_iter().chunks(0))),
        "chunk_size must not be zero"
    );
}

/// A loop that runs long (10,000 items of a few microseconds) is cut into at least the
/// pieces rayon's splitter makes, two per thread, however long the pieces take to run on a
/// busy machine; inside a pool of one it stays one piece.
#[test]
fn a_long_loop_is_cut_into_rayons_pieces() {
    let spin = |x: u64| {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_micros(3) {
            std::hint::spin_loop();
        }
        x
    };
    let n = 10_000u64;
    for workers in [1, 2, 4] {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let pieces: Vec<(u64, u64)> = pool.install(|| {
            (0..n)
                .into_par_iter()
                .fold(|| (0, 0), |(c, s), x| (c + 1, s + spin(x)))
                .collect()
        });
        assert_eq!(
            pieces.iter().map(|p| p.0).sum::<u64>(),
            n,
            "{workers} workers"
        );
        assert_eq!(pieces.iter().map(|p| p.1).sum::<u64>(), n * (n - 1) / 2);
        let cut = pieces.iter().filter(|p| p.0 > 0).count();
        if workers == 1 {
            assert_eq!(cut, 1, "inside a pool of one");
        } else {
            assert!(cut >= 2 * workers, "{workers} workers: {cut} pieces");
        }
    }
}

/// A long loop started beside an idle worker is halved, as rayon's splitter halves it, not
/// split after its first item: a one-item piece is only ever joined to the rest of a run
/// already cut to one of rayon's pieces (at most a quarter of the loop at 2 workers, give or
/// take the alignment of the cut), so a reduction that copies its right side into its left
/// (a `Vec` append) never copies the whole loop into a one-item piece.
#[test]
fn a_one_item_piece_is_never_joined_to_more_than_one_of_rayons_pieces() {
    let n = 1u64 << 18;
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for _ in 0..20 {
        let joined_to_one = std::sync::Mutex::new(Vec::new());
        let (count, sum) = pool.install(|| {
            (0..n)
                .into_par_iter()
                .fold(|| (0u64, 0u64), |(c, s), x| (c + 1, s + x))
                .reduce(
                    || (0, 0),
                    |a, b| {
                        if a.0 == 1 {
                            joined_to_one.lock().unwrap().push(b.0);
                        }
                        (a.0 + b.0, a.1 + b.1)
                    },
                )
        });
        assert_eq!((count, sum), (n, n * (n - 1) / 2));
        for right in joined_to_one.into_inner().unwrap() {
            assert!(
                right <= n / 4 + 64,
                "a one-item piece joined to {right} items"
            );
        }
    }
}

/// `fold` yields one accumulator per piece of work, so counting items per accumulator
/// shows how the work was split.
#[test]
fn with_max_len_and_with_min_len_bound_the_pieces() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 100, 4096] {
            if n == BIG && k < 100 {
                continue; // a million one-item pieces: slow, and nothing new
            }
            let pieces: Vec<usize> = v
                .par_iter()
                .with_max_len(k)
                .fold(|| 0usize, |c, _| c + 1)
                .collect();
            assert_eq!(pieces.iter().sum::<usize>(), n, "with_max_len({k}), {at}");
            assert!(
                pieces.iter().all(|&c| c <= k),
                "with_max_len({k}): a piece of {} items, {at}",
                pieces.iter().max().unwrap()
            );
            let nonempty = pieces.iter().filter(|&&c| c > 0).count();
            assert!(
                nonempty >= n.div_ceil(k),
                "with_max_len({k}): {nonempty} pieces, {at}"
            );
            // The values are still right, in order.
            let got: Vec<u64> = v.par_iter().with_max_len(k).map(|x| x >> 1).collect();
            assert_eq!(got, v.iter().map(|x| x >> 1).collect::<Vec<_>>(), "{at}");
        }
        // with_min_len(n) on n items: one piece.
        let pieces: Vec<usize> = v
            .par_iter()
            .with_min_len(n.max(1))
            .fold(|| 0usize, |c, _| c + 1)
            .collect();
        if n == 0 {
            assert_eq!(pieces.iter().sum::<usize>(), 0, "{at}");
            assert!(
                pieces.len() <= 1,
                "with_min_len on nothing: {pieces:?}, {at}"
            );
        } else {
            assert_eq!(pieces, [n], "with_min_len({n}), {at}");
        }
        // The same through map_init: one state for the whole run.
        let inits = AtomicUsize::new(0);
        let s = v
            .par_iter()
            .with_min_len(n.max(1))
            .map_init(|| inits.fetch_add(1, Relaxed), |_, &x| Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(s.0, wsum(v.iter()), "{at}");
        if n > 0 {
            assert_eq!(
                inits.load(Relaxed),
                1,
                "with_min_len({n}) made several states, {at}"
            );
        }
        // Both bounds: every piece between min and max (the last may be shorter only if
        // the whole is shorter than min).
        if n >= 1000 {
            let pieces: Vec<usize> = v
                .par_iter()
                .with_min_len(100)
                .with_max_len(400)
                .fold(|| 0usize, |c, _| c + 1)
                .filter(|&c| c > 0)
                .collect();
            assert_eq!(pieces.iter().sum::<usize>(), n, "{at}");
            assert!(
                pieces.iter().all(|&c| (100..=400).contains(&c)),
                "pieces {:?}.., {at}",
                &pieces[..pieces.len().min(20)]
            );
        }
    });
}

/// `with_min_len` is a floor on every piece (rayon: "will not split any smaller than this
/// length"), wherever a split falls: halving a long run, a split an idle worker asks for,
/// a boundary moved to an aligned item. Lengths and floors are drawn at random. (Where
/// aligning could cut under the floor is checked exactly by the splitter's unit tests.)
#[test]
fn no_piece_is_shorter_than_with_min_len() {
    on_pools(|at| {
        let mut seed = 0x51ED_2701;
        for _ in 0..60 {
            let len = (splitmix64(&mut seed) % 300_000) as usize;
            // Floors of a few thousand items: pieces near them come from halving.
            let min = 1 + (splitmix64(&mut seed) % 4_000) as usize;
            let pieces: Vec<usize> = (0..len)
                .into_par_iter()
                .with_min_len(min)
                .fold(|| 0usize, |c, _| c + 1)
                .filter(|&c| c > 0)
                .collect();
            assert_eq!(pieces.iter().sum::<usize>(), len, "{at}");
            let shortest = pieces.iter().min().copied().unwrap_or(len);
            assert!(
                shortest >= min.min(len),
                "with_min_len({min}) on {len} items: a piece of {shortest}, {at}"
            );
        }
    });
}

#[test]
fn while_some_adaptor() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|&x| Some(x)).while_some().collect();
        assert_eq!(got, v, "all Some, {at}");
        let bad = n / 3;
        let mapped: Vec<Option<u64>> = v
            .iter()
            .enumerate()
            .map(|(i, &x)| (i != bad).then_some(x))
            .collect();
        let got: Vec<u64> = mapped.par_iter().copied().while_some().collect();
        // Which Some items come through is unspecified once a None is met (rayon's doc),
        // but they are Some items, in order, and never all of them.
        assert!(got.len() < n || n == 0, "{at}");
        let mut rest = mapped.iter().flatten();
        assert!(
            got.iter().all(|g| rest.any(|x| x == g)),
            "not a subsequence of the Some items, {at}"
        );
        if at.ends_with(" 1 workers") {
            // One worker never splits: it stops at the None, having taken exactly the prefix.
            assert_eq!(got, &v[..bad.min(n)], "{at}");
        }
        let none_first: Vec<u64> = std::iter::once(None)
            .chain(v.iter().map(|&x| Some(x)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .while_some()
            .collect();
        if at.ends_with(" 1 workers") {
            assert_eq!(none_first, Vec::<u64>::new(), "{at}");
        }
    });
}

#[test]
fn chains_of_several_adaptors() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let par: Vec<(usize, u64)> = v
            .par_iter()
            .enumerate()
            .skip(1)
            .step_by(2)
            .map(|(i, &x)| (i, x >> 4))
            .rev()
            .zip((0..n).into_par_iter().map(|i| i as u64))
            .map(|((i, x), j)| (i, x ^ j))
            .filter(|&(i, _)| i % 3 != 0)
            .collect();
        let seq: Vec<(usize, u64)> = v
            .iter()
            .enumerate()
            .skip(1)
            .step_by(2)
            .map(|(i, &x)| (i, x >> 4))
            .rev()
            .zip((0..n).map(|i| i as u64))
            .map(|((i, x), j)| (i, x ^ j))
            .filter(|&(i, _)| i % 3 != 0)
            .collect();
        assert_eq!(par, seq, "{at}");
        let par: u64 = v
            .par_iter()
            .copied()
            .filter_map(|x| (x % 7 != 0).then_some(x % 1000))
            .flat_map_iter(|x| [x, x + 1])
            .map(|x| x * 3)
            .inspect(|x| assert!(x % 3 == 0))
            .sum();
        let seq: u64 = v
            .iter()
            .copied()
            .filter_map(|x| (x % 7 != 0).then_some(x % 1000))
            .flat_map(|x| [x, x + 1])
            .map(|x| x * 3)
            .sum();
        assert_eq!(par, seq, "{at}");
        let par: Vec<Vec<u64>> = v
            .par_iter()
            .rev()
            .take(n.saturating_sub(2))
            .with_max_len(7)
            .copied()
            .chunks(5)
            .map(|c| c.into_iter().rev().collect())
            .collect();
        let seq: Vec<Vec<u64>> = v
            .iter()
            .rev()
            .take(n.saturating_sub(2))
            .copied()
            .collect::<Vec<_>>()
            .chunks(5)
            .map(|c| c.iter().rev().copied().collect())
            .collect();
        assert_eq!(par, seq, "{at}");
    });
}

/// `with_max_len(k)` cuts the work into pieces of at most k items, so every composite
/// producer is split at every index (k = 1) or at many (k = 2, 3, 5): the values and their
/// order must not change (rayon's tests/producer_split_at.rs checks the same).
#[test]
fn composite_producers_split_at_any_index() {
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input(n);
        let w: Vec<u64> = v.iter().map(|x| x.rotate_left(9)).collect();
        for max in [1, 2, 3, 5] {
            macro_rules! same {
                ($what:expr, $par:expr, $seq:expr) => {{
                    let got: Vec<_> = $par.with_max_len(max).collect();
                    let expected: Vec<_> = $seq.collect();
                    assert_eq!(got, expected, "{} with_max_len({max}), {at}", $what);
                    let pieces: Vec<usize> = $par
                        .with_max_len(max)
                        .fold(|| 0usize, |c, _| c + 1)
                        .collect();
                    assert_eq!(
                        pieces.iter().sum::<usize>(),
                        expected.len(),
                        "{}, {at}",
                        $what
                    );
                    assert!(
                        pieces.iter().all(|&c| c <= max),
                        "{} with_max_len({max}): {pieces:?}, {at}",
                        $what
                    );
                }};
            }
            same!(
                "chain",
                v.par_iter().chain(&w[..n / 2]),
                v.iter().chain(&w[..n / 2])
            );
            same!(
                "chain rev",
                v.par_iter().chain(&w[n / 3..]).rev(),
                v.iter().chain(&w[n / 3..]).rev()
            );
            same!("step_by", v.par_iter().step_by(3), v.iter().step_by(3));
            same!(
                "skip step_by rev",
                v.par_iter().skip(1).step_by(2).rev(),
                v.iter().skip(1).step_by(2).rev()
            );
            same!(
                "chunks",
                v.par_iter().chunks(4),
                v.chunks(4).map(|c| c.iter().collect::<Vec<_>>())
            );
            same!("par_chunks", v.par_chunks(3), v.chunks(3));
            same!("par_windows", v.par_windows(3), v.windows(3));
            same!("rev", v.par_iter().rev(), v.iter().rev());
            same!(
                "zip",
                v.par_iter().zip(w.par_iter().rev()),
                v.iter().zip(w.iter().rev())
            );
            same!(
                "zip shorter",
                v.par_iter().zip(&w[..n / 2]),
                v.iter().zip(&w[..n / 2])
            );
            same!(
                "enumerate skip take",
                v.par_iter().enumerate().skip(2).take(n / 2),
                v.iter().enumerate().skip(2).take(n / 2)
            );
            same!(
                "map_with",
                v.par_iter().map_with(1u64, |a, &x| x ^ *a),
                v.iter().map(|&x| x ^ 1)
            );
            same!(
                "map_init",
                v.par_iter().map_init(|| 2u64, |a, &x| x ^ *a),
                v.iter().map(|&x| x ^ 2)
            );
            same!(
                "owned rev step_by",
                v.to_vec().into_par_iter().rev().step_by(2),
                v.iter().copied().rev().step_by(2)
            );
            same!(
                "inclusive u8",
                (0u8..=255).into_par_iter().step_by(7),
                (0u8..=255).step_by(7)
            );
            same!(
                "i8 rev",
                (-50i8..50).into_par_iter().rev(),
                (-50i8..50).rev()
            );
            same!(
                "chain zip chunks",
                v.par_iter()
                    .copied()
                    .chain(w.par_iter().copied())
                    .zip(0..2 * n)
                    .chunks(3),
                v.iter()
                    .copied()
                    .chain(w.iter().copied())
                    .zip(0..2 * n)
                    .collect::<Vec<_>>()
                    .chunks(3)
                    .map(|c| c.to_vec())
            );
            same!(
                "cloned inspect",
                v.par_iter().inspect(|_| ()).cloned(),
                v.iter().cloned()
            );
            same!(
                "option",
                Some(n).into_par_iter().chain(None).chain(Some(1)),
                Some(n).into_iter().chain(Some(1))
            );
            same!(
                "array",
                [1, 2, 3, 4, 5, 6, 7].into_par_iter().rev().skip(1),
                [1, 2, 3, 4, 5, 6, 7].into_iter().rev().skip(1)
            );
        }
    });
}

/// Where rayon knows the length in advance, so does forkjoin, and nowhere else: a wrong
/// `Some` would send `collect` down the in-place path with the wrong count.
#[test]
fn opt_len_is_known_exactly_where_rayon_knows_it() {
    let v = input(17);
    assert_eq!(v.par_iter().opt_len(), Some(17));
    assert_eq!(v.par_iter().map(|x| x + 1).opt_len(), Some(17));
    assert_eq!(v.par_iter().enumerate().opt_len(), Some(17));
    assert_eq!(v.par_iter().zip(0..5).opt_len(), Some(5));
    assert_eq!(v.par_iter().chain(&v[..3]).opt_len(), Some(20));
    assert_eq!(v.par_iter().rev().opt_len(), Some(17));
    assert_eq!(v.par_iter().step_by(5).opt_len(), Some(4));
    assert_eq!(v.par_iter().skip(20).opt_len(), Some(0));
    assert_eq!(v.par_iter().take(4).opt_len(), Some(4));
    assert_eq!(v.par_iter().chunks(5).opt_len(), Some(4));
    assert_eq!(v.par_iter().copied().opt_len(), Some(17));
    assert_eq!(v.par_iter().cloned().opt_len(), Some(17));
    assert_eq!(v.par_iter().inspect(|_| ()).opt_len(), Some(17));
    assert_eq!(v.par_iter().map_with(0, |_, x| x).opt_len(), Some(17));
    assert_eq!(v.par_iter().map_init(|| 0, |_, x| x).opt_len(), Some(17));
    assert_eq!(
        v.par_iter().with_min_len(4).with_max_len(8).opt_len(),
        Some(17)
    );
    assert_eq!(v.par_chunks(5).opt_len(), Some(4));
    assert_eq!(v.par_windows(5).opt_len(), Some(13));
    assert_eq!(v.par_iter().filter(|_| true).opt_len(), None);
    assert_eq!(v.par_iter().filter_map(Some).opt_len(), None);
    assert_eq!(v.par_iter().flat_map(|&x| Some(x)).opt_len(), None);
    assert_eq!(v.par_iter().flat_map_iter(|&x| Some(x)).opt_len(), None);
    assert_eq!(v.par_iter().map(Some).while_some().opt_len(), None);
    assert_eq!(v.par_iter().fold(|| 0, |a, _| a).opt_len(), None);
    assert_eq!(
        v.par_iter().filter(|_| true).chain(v.par_iter()).opt_len(),
        None
    );
    assert_eq!(v.iter().par_bridge().opt_len(), None);
}

#[test]
fn flatten_and_flatten_iter() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let nested: Vec<Vec<u64>> = input31(n)
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

#[test]
fn intersperse_indexed_and_not() {
    on_pools_and_lens_with_workers(&SMALL, |at, w, n| {
        let v = input31(n);
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
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
    // Once the fuse blows, the other pieces stop: far fewer than all items are visited. (Not
    // a few: the others run on until the fuse is set, for as long as the scheduler keeps
    // the panicking thread off the CPU; a quarter of 10^8 items outlasts any such stall.)
    let seen = AtomicUsize::new(0);
    let n = 100_000_000;
    let msg = panic_message(|| {
        (0..n).into_par_iter().panic_fuse().for_each(|i| {
            seen.fetch_add(1, Relaxed);
            assert!(i != 10, "item 10");
        })
    });
    assert_eq!(msg, "item 10");
    let seen = seen.load(Relaxed);
    assert!(seen < n as usize / 4, "{seen} of {n} items visited");
}

#[test]
fn take_any_skip_any_and_their_while_forms() {
    on_pools_and_lens_with_workers(&SMALL, |at, w, n| {
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
fn interleave_interleave_shortest_and_zip_eq() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let a = input31(n);
        for m in SMALL {
            let b: Vec<u64> = input31(m).iter().map(|x| x + 1).collect();
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
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
