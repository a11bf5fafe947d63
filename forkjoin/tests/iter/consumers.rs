//! The consumers that visit every item against std's: `for_each` and its `with`/`init`
//! forms, the fallible `try_` forms, `sum`, `product`, `count`, `min`/`max` and their `by`
//! forms (ties resolved as std resolves them), `reduce` and `fold` (which keep the order),
//! `any`/`all`, and the comparisons (`cmp`, `eq`, `lt`, ...). Where rayon leaves a choice
//! open (which error `try_reduce` returns when several items fail), the test checks that the
//! answer is one of the allowed ones.

use crate::common::*;
use forkjoin::prelude::*;
use std::cmp::Ordering;
use std::num::Wrapping;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;

// ---------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------

#[test]
fn for_each_for_each_with_and_for_each_init() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let hits = Hits::new(n);
        v.par_iter().enumerate().for_each(|(i, _)| hits.hit(i));
        hits.assert_each_once(&format!("for_each, {at}"));
        let sum = AtomicU64::new(0);
        v.par_iter().for_each(|&x| {
            sum.fetch_add(x, Relaxed);
        });
        assert_eq!(sum.load(Relaxed), wsum(v.iter()), "for_each, {at}");

        let (tx, rx) = mpsc::channel();
        (0..n)
            .into_par_iter()
            .for_each_with(tx, |tx, i| tx.send(i).unwrap());
        let mut got: Vec<usize> = rx.into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "for_each_with, {at}");

        let hits = Hits::new(n);
        let inits = AtomicUsize::new(0);
        (0..n).into_par_iter().for_each_init(
            || {
                inits.fetch_add(1, Relaxed);
                Vec::new()
            },
            |seen: &mut Vec<usize>, i| {
                seen.push(i);
                hits.hit(i);
            },
        );
        hits.assert_each_once(&format!("for_each_init, {at}"));
        if n > 0 {
            assert!(inits.load(Relaxed) >= 1, "{at}");
        }
        // On an unindexed iterator.
        let hits = Hits::new(n);
        (0..n)
            .into_par_iter()
            .filter(|i| i % 2 == 1)
            .for_each(|i| hits.hit(i));
        for (i, h) in hits.0.iter().enumerate() {
            assert_eq!(h.load(Relaxed), (i % 2) as u32, "{at}");
        }
    });
}

#[test]
fn try_for_each_and_its_variants() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let hits = Hits::new(n);
        let r: Result<(), u64> = (0..n).into_par_iter().try_for_each(|i| {
            hits.hit(i);
            Ok(())
        });
        assert_eq!(r, Ok(()), "{at}");
        hits.assert_each_once(&format!("try_for_each Ok, {at}"));
        // One failing item: its error, exactly.
        if n > 0 {
            let bad = v[n / 2];
            let r = v
                .par_iter()
                .try_for_each(|&x| if x == bad { Err(x) } else { Ok(()) });
            assert_eq!(r, Err(bad), "{at}");
            let r = v.par_iter().try_for_each(|&x| (x != bad).then_some(()));
            assert_eq!(r, None, "{at}");
        }
        // Several failing items: one of their errors.
        let r = v
            .par_iter()
            .try_for_each(|&x| if x % 4 == 0 { Err(x) } else { Ok(()) });
        match r {
            Ok(()) => assert!(v.iter().all(|x| x % 4 != 0), "{at}"),
            Err(e) => assert!(e % 4 == 0 && v.contains(&e), "{at}"),
        }
        let r = v.par_iter().try_for_each(|&x| (x % 4 != 0).then_some(()));
        assert_eq!(r.is_some(), v.iter().all(|x| x % 4 != 0), "{at}");
        // _with and _init.
        let r: Result<(), String> = v.par_iter().try_for_each_with(5u64, |five, &x| {
            if x % 1009 == *five {
                Err(format!("{x}"))
            } else {
                Ok(())
            }
        });
        match v.iter().find(|&&x| x % 1009 == 5) {
            None => assert_eq!(r, Ok(()), "{at}"),
            Some(_) => {
                let e: u64 = r.unwrap_err().parse().unwrap();
                assert!(e % 1009 == 5 && v.contains(&e), "{at}");
            }
        }
        let r: Option<()> = v
            .par_iter()
            .try_for_each_init(|| 3u64, |three, &x| (x != *three).then_some(()));
        assert_eq!(r, Some(()), "{at}");
    });
}

#[test]
fn sum_product_and_count() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(
            v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(v.iter()),
            "{at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x as u128).sum::<u128>(),
            v.iter().map(|&x| x as u128).sum::<u128>(),
            "{at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x >> 44).sum::<u64>(),
            v.iter().map(|&x| x >> 44).sum::<u64>(),
            "{at}"
        );
        assert_eq!(
            v.par_iter()
                .map(|&x| Wrapping(x | 1))
                .product::<Wrapping<u64>>(),
            v.iter()
                .map(|&x| Wrapping(x | 1))
                .product::<Wrapping<u64>>(),
            "{at}"
        );
        // An exact product that does not overflow: signs and a few factors of 2 (about 63
        // of them in 1001 items; an i128 holds 2^126).
        let f = |&x: &u64| -> i128 {
            [1, -1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2][(x % 16) as usize]
        };
        let small = &v[..n.min(1001)];
        assert_eq!(
            small.par_iter().map(f).product::<i128>(),
            small.iter().map(f).product::<i128>(),
            "{at}"
        );
        let g = |x: &&u64| !(**x).is_multiple_of(16);
        assert_eq!(
            small.par_iter().filter(g).map(f).product::<i128>(),
            small.iter().filter(g).map(f).product::<i128>(),
            "{at}"
        );
        assert_eq!(v.par_iter().count(), n, "{at}");
        assert_eq!(
            v.par_iter().filter(|&&x| x % 3 == 1).count(),
            v.iter().filter(|&&x| x % 3 == 1).count(),
            "{at}"
        );
        // Empty sums and products are the identities.
        assert_eq!(v[..0].par_iter().sum::<u64>(), 0, "{at}");
        assert_eq!(v[..0].par_iter().product::<u64>(), 1, "{at}");
    });
}

#[test]
fn min_max_and_their_by_and_by_key_variants_with_ties() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(v.par_iter().min(), v.iter().min(), "{at}");
        assert_eq!(v.par_iter().max(), v.iter().max(), "{at}");
        // Many ties: key = x % 10, the position makes tied items distinguishable.
        let pairs: Vec<(u64, usize)> = keys(n).into_iter().zip(0..).collect();
        let by = |a: &&(u64, usize), b: &&(u64, usize)| a.0.cmp(&b.0);
        let key = |p: &&(u64, usize)| p.0;
        let checks = [
            (
                "min_by",
                pairs.par_iter().min_by(by),
                pairs.iter().min_by(by),
            ),
            (
                "max_by",
                pairs.par_iter().max_by(by),
                pairs.iter().max_by(by),
            ),
            (
                "min_by_key",
                pairs.par_iter().min_by_key(key),
                pairs.iter().min_by_key(key),
            ),
            (
                "max_by_key",
                pairs.par_iter().max_by_key(key),
                pairs.iter().max_by_key(key),
            ),
        ];
        for (name, got, expected) in checks {
            // One of the tied items...
            assert_eq!(got.map(|p| p.0), expected.map(|p| p.0), "{name}, {at}");
            // ...and the same one as std (the first least, the last greatest): rayon
            // reduces in order, and its own tests (iter/test.rs, min_max_by and
            // min_max_by_key) check exactly this.
            assert_eq!(
                got, expected,
                "{name} picked another of the tied items, {at}"
            );
        }
        // min and max of items that compare equal but differ.
        #[derive(Debug, Clone, Copy)]
        struct K(u64, usize);
        impl PartialEq for K {
            fn eq(&self, o: &K) -> bool {
                self.0 == o.0
            }
        }
        impl Eq for K {}
        impl PartialOrd for K {
            fn partial_cmp(&self, o: &K) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for K {
            fn cmp(&self, o: &K) -> std::cmp::Ordering {
                self.0.cmp(&o.0)
            }
        }
        let ks: Vec<K> = pairs.iter().map(|&(k, i)| K(k, i)).collect();
        let got = ks.par_iter().copied().min().map(|k| (k.0, k.1));
        let expected = ks.iter().copied().min().map(|k| (k.0, k.1));
        assert_eq!(got.map(|p| p.0), expected.map(|p| p.0), "min, {at}");
        assert_eq!(got, expected, "min picked another of the tied items, {at}");
        let got = ks.par_iter().copied().max().map(|k| (k.0, k.1));
        let expected = ks.iter().copied().max().map(|k| (k.0, k.1));
        assert_eq!(got, expected, "max picked another of the tied items, {at}");
        // Unindexed.
        let odd = |x: &&u64| *x % 2 == 1;
        assert_eq!(
            v.par_iter().filter(odd).min(),
            v.iter().filter(odd).min(),
            "{at}"
        );
        assert_eq!(
            v.par_iter().filter(odd).max_by_key(|x| **x % 1000),
            v.iter().filter(odd).max_by_key(|x| **x % 1000),
            "{at}"
        );
    });
}

#[test]
fn reduce_and_reduce_with_keep_the_order() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let seq = v.iter().fold(ID, |a, &x| mul(a, mat(x)));
        assert_eq!(
            v.par_iter().map(|&x| mat(x)).reduce(|| ID, mul),
            seq,
            "reduce, {at}"
        );
        let seq_with = v.iter().map(|&x| mat(x)).reduce(mul);
        assert_eq!(
            v.par_iter().map(|&x| mat(x)).reduce_with(mul),
            seq_with,
            "reduce_with, {at}"
        );
        // Unindexed.
        let f = |x: &&u64| !(*x).is_multiple_of(3);
        let seq = v.iter().filter(f).fold(ID, |a, &x| mul(a, mat(x)));
        assert_eq!(
            v.par_iter().filter(f).map(|&x| mat(x)).reduce(|| ID, mul),
            seq,
            "reduce unindexed, {at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x ^ 1).reduce(|| 0, |a, b| a ^ b),
            v.iter().fold(0, |a, x| a ^ x ^ 1),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input(n);
        let s = v
            .par_iter()
            .map(|x| (x % 100).to_string())
            .reduce(String::new, |a, b| a + &b);
        assert_eq!(
            s,
            v.iter().map(|x| (x % 100).to_string()).collect::<String>(),
            "{at}"
        );
        let s = v
            .par_iter()
            .map(|x| (x % 100).to_string())
            .reduce_with(|a, b| a + "," + &b);
        let expected = (n > 0).then(|| {
            v.iter()
                .map(|x| (x % 100).to_string())
                .collect::<Vec<_>>()
                .join(",")
        });
        assert_eq!(s, expected, "{at}");
    });
}

#[test]
fn fold_fold_with_try_fold_and_try_fold_with() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        // fold then reduce: the accumulators come in order, so concatenating them gives the
        // input back.
        let got = v
            .par_iter()
            .fold(Vec::new, |mut acc, &x| {
                acc.push(x);
                acc
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        assert_eq!(got, v, "fold + reduce, {at}");
        let got: u64 = v
            .par_iter()
            .fold(|| 0u64, |a, &x| a.wrapping_add(x))
            .reduce(|| 0, u64::wrapping_add);
        assert_eq!(got, wsum(v.iter()), "{at}");
        let got: Vec<u64> = v
            .par_iter()
            .fold_with(Vec::new(), |mut acc, &x| {
                acc.push(x);
                acc
            })
            .collect::<Vec<Vec<u64>>>()
            .concat();
        assert_eq!(got, v, "fold_with, {at}");
        let got = v
            .par_iter()
            .fold_with(Wrapping(0u64), |a, &x| a + Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(got.0, wsum(v.iter()), "{at}");
        // try_fold: Some all the way, then a failure.
        let small: Vec<u64> = v.iter().map(|x| x >> 44).collect();
        let got = small
            .par_iter()
            .try_fold(|| 0u64, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(got, Some(small.iter().sum()), "try_fold, {at}");
        let mut with_max = small.clone();
        if n > 0 {
            with_max[n / 2] = u64::MAX;
            with_max.push(1);
        }
        let got = with_max
            .par_iter()
            .try_fold(|| 0u64, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(
            got,
            if n > 0 { None } else { Some(0) },
            "try_fold overflow, {at}"
        );
        let got: Result<u64, usize> = small
            .par_iter()
            .enumerate()
            .try_fold_with(
                0u64,
                |a, (i, &x)| if i == n / 2 { Err(i) } else { Ok(a + x) },
            )
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(
            got,
            if n > 0 { Err(n / 2) } else { Ok(0) },
            "try_fold_with, {at}"
        );
        // try_fold alone: every piece's result; their Ok values add up.
        let parts: Vec<Result<u64, ()>> = small
            .par_iter()
            .try_fold(|| 0u64, |a, &x| Ok(a + x))
            .collect();
        assert_eq!(
            parts.iter().map(|r| r.unwrap()).sum::<u64>(),
            small.iter().sum::<u64>(),
            "{at}"
        );
    });
}

#[test]
fn try_reduce_and_try_reduce_with() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let small: Vec<u64> = v.iter().map(|x| x >> 44).collect();
        let total: u64 = small.iter().sum();
        let r = small
            .par_iter()
            .map(|&x| Ok::<u64, u64>(x))
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(r, Ok(total), "{at}");
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce(|| 0, |a, b| Some(a + b));
        assert_eq!(r, Some(total), "{at}");
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce_with(|a, b| Some(a + b));
        assert_eq!(r, (n > 0).then_some(Some(total)), "{at}");
        // Non-commutative op: the order of the items is kept.
        let r = v
            .par_iter()
            .map(|&x| Ok::<Mat, ()>(mat(x)))
            .try_reduce(|| ID, |a, b| Ok(mul(a, b)));
        assert_eq!(r, Ok(v.iter().fold(ID, |a, &x| mul(a, mat(x)))), "{at}");
        // One failing item: exactly its error; several: one of them.
        if n > 0 {
            let r = (0..n)
                .into_par_iter()
                .map(|i| if i == n - 1 { Err(i) } else { Ok(i) })
                .try_reduce(|| 0, |a, b| Ok(a + b));
            assert_eq!(r, Err(n - 1), "{at}");
            let r = (0..n)
                .into_par_iter()
                .map(|i| if i == 0 { Err(i) } else { Ok(i) })
                .try_reduce_with(|a, b| Ok(a + b));
            assert_eq!(r, Some(Err(0)), "{at}");
        }
        let r = (0..n)
            .into_par_iter()
            .map(|i| if i % 5 == 2 { Err(i) } else { Ok(i) })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        match r {
            Ok(s) => assert!(n <= 2 && s == (0..n).sum::<usize>(), "{at}"),
            Err(e) => assert!(e % 5 == 2 && e < n, "{at}"),
        }
        // The op itself may fail.
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b).filter(|&s| s <= total / 2));
        assert_eq!(
            r,
            if total / 2 >= total {
                Some(total)
            } else {
                None
            },
            "{at}"
        );
        assert_eq!(
            v[..0]
                .par_iter()
                .map(|&x| Some(x))
                .try_reduce_with(|a, b| Some(a + b)),
            None,
            "{at}"
        );
    });
}

#[test]
fn any_and_all() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1, 2, 1000, u64::MAX] {
            let p = |&x: &u64| x % m == 0;
            assert_eq!(v.par_iter().any(p), v.iter().any(p), "any %{m}, {at}");
            assert_eq!(
                v.par_iter().all(|x| !p(x)),
                v.iter().all(|x| !p(x)),
                "all %{m}, {at}"
            );
        }
        if n > 0 {
            let last = v[n - 1];
            assert!(v.par_iter().any(|&x| x == last), "{at}");
            assert!(!v.par_iter().all(|&x| x != last), "{at}");
        }
        assert!(
            !v.par_iter().filter(|&&x| x % 2 == 0).any(|&x| x % 2 == 1),
            "{at}"
        );
        assert!(
            v.par_iter().filter(|&&x| x % 2 == 0).all(|&x| x % 2 == 0),
            "{at}"
        );
    });
}

#[test]
fn comparisons_agree_with_std() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let a: Vec<u64> = input31(n).iter().map(|x| x % 4).collect();
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
