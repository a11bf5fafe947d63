//! The parallel sorts against std's: every sort gives std's answer, the stable ones keep
//! equal keys in order, and `par_sort_by_cached_key` calls the key once per element.

use crate::common::*;
use forkjoin::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// ---------------------------------------------------------------------------------------
// Sorts
// ---------------------------------------------------------------------------------------

#[test]
fn sorts_give_std_answers() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let dup = keys(n);
        for data in [v.to_vec(), dup.clone()] {
            let mut expected = data.clone();
            expected.sort();
            let mut w = data.clone();
            w.par_sort();
            assert_eq!(w, expected, "par_sort, {at}");
            let mut w = data.clone();
            w.par_sort_unstable();
            assert_eq!(w, expected, "par_sort_unstable, {at}");
            let mut expected = data.clone();
            expected.sort_by(|a, b| b.cmp(a));
            let mut w = data.clone();
            w.par_sort_by(|a, b| b.cmp(a));
            assert_eq!(w, expected, "par_sort_by, {at}");
            let mut w = data.clone();
            w.par_sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(w, expected, "par_sort_unstable_by, {at}");
            let mut expected = data.clone();
            expected.sort_by_key(|x| (x % 1000, *x));
            let mut w = data.clone();
            w.par_sort_by_key(|x| (x % 1000, *x));
            assert_eq!(w, expected, "par_sort_by_key, {at}");
            let mut w = data.clone();
            w.par_sort_unstable_by_key(|x| (x % 1000, *x));
            assert_eq!(w, expected, "par_sort_unstable_by_key, {at}");
        }
        // Already sorted, reversed, all equal.
        for mut data in [
            (0..n as u64).collect::<Vec<_>>(),
            (0..n as u64).rev().collect(),
            vec![5; n],
        ] {
            let mut expected = data.clone();
            expected.sort_unstable();
            data.par_sort_unstable();
            assert_eq!(data, expected, "{at}");
        }
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let strings: Vec<String> = input(n).iter().map(|x| (x % 5000).to_string()).collect();
        let mut expected = strings.clone();
        expected.sort();
        let mut w = strings.clone();
        w.par_sort();
        assert_eq!(w, expected, "strings, {at}");
        let floats: Vec<f64> = input(n).iter().map(|&x| (x as f64).sin() * 1e3).collect();
        let mut expected = floats.clone();
        expected.sort_by(f64::total_cmp);
        let mut w = floats.clone();
        w.par_sort_unstable_by(f64::total_cmp);
        assert_eq!(
            w.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            expected.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            "floats, {at}"
        );
    });
}

#[test]
fn stable_sorts_keep_equal_keys_in_order() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let pairs: Vec<(u64, usize)> = keys(n).into_iter().zip(0..).collect();
        let check = |w: &[(u64, usize)], what: &str| {
            assert!(
                w.windows(2)
                    .all(|p| p[0].0 < p[1].0 || (p[0].0 == p[1].0 && p[0].1 < p[1].1)),
                "{what} is not stable, {at}"
            );
            let mut expected = pairs.clone();
            expected.sort_by_key(|p| p.0);
            assert_eq!(w, &expected[..], "{what}, {at}");
        };
        let mut w = pairs.clone();
        w.par_sort_by_key(|p| p.0);
        check(&w, "par_sort_by_key");
        let mut w = pairs.clone();
        w.par_sort_by(|a, b| a.0.cmp(&b.0));
        check(&w, "par_sort_by");
        // par_sort on items whose Ord sees only the key.
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
        let mut w: Vec<K> = pairs.iter().map(|&(k, i)| K(k, i)).collect();
        w.par_sort();
        check(
            &w.iter().map(|k| (k.0, k.1)).collect::<Vec<_>>(),
            "par_sort",
        );
        // The unstable ones sort the keys, and keep every item.
        let mut w = pairs.clone();
        w.par_sort_unstable_by_key(|p| p.0);
        assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "{at}");
        w.sort_by_key(|p| p.1);
        assert_eq!(w, pairs, "par_sort_unstable_by_key lost items, {at}");
    });
}

#[test]
fn sort_by_cached_key_is_stable_and_calls_the_key_once_per_element() {
    for (workers, pool) in pools() {
        for n in [0, 1, 2, 17, 1001, 50_000] {
            // Few distinct keys, so stability shows: sort by the key only.
            let mut v: Vec<(u64, usize)> =
                input31(n).into_iter().map(|x| x % 37).zip(0..).collect();
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
