//! Collecting: into every kind of collection rayon collects into (vectors in place, strings,
//! `Box<str>`, `Rc<[T]>`, `Arc<[T]>`, `OsString`, maps, sets, `Result` and `Option` of
//! collections), `collect_vec_list`, `unzip`, `partition`, `partition_map` and `par_extend`,
//! all keeping the order.

use crate::common::*;
use forkjoin::iter::Either;
use forkjoin::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList};
use std::ffi::{OsStr, OsString};
use std::rc::Rc;
use std::sync::Arc;

#[test]
fn collect_into_every_kind_of_collection() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|x| x / 7).collect();
        assert_eq!(
            got,
            v.iter().map(|x| x / 7).collect::<Vec<_>>(),
            "Vec, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .filter(|&&x| x % 3 != 0)
            .map(|x| x / 7)
            .collect();
        assert_eq!(
            got,
            v.iter()
                .filter(|&&x| x % 3 != 0)
                .map(|x| x / 7)
                .collect::<Vec<_>>(),
            "Vec unindexed, {at}"
        );
        let c = |x: &u64| char::from(b'a' + (x % 26) as u8);
        let got: String = v.par_iter().map(c).collect();
        assert_eq!(
            got,
            v.iter().map(c).collect::<String>(),
            "String from chars, {at}"
        );
        let hm: HashMap<u64, usize> = v
            .par_iter()
            .enumerate()
            .map(|(i, &x)| (x % 1000, i))
            .collect();
        // Several items share a key: the map keeps one of their values.
        let key_set: HashSet<u64> = v.iter().map(|x| x % 1000).collect();
        assert_eq!(
            hm.keys().copied().collect::<HashSet<_>>(),
            key_set,
            "HashMap, {at}"
        );
        assert!(hm.iter().all(|(&k, &i)| v[i] % 1000 == k), "HashMap, {at}");
        let unique: HashMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
        assert_eq!(
            unique,
            v.iter()
                .enumerate()
                .map(|(i, &x)| (x, i))
                .collect::<HashMap<_, _>>(),
            "{at}"
        );
        let hs: HashSet<u64> = v.par_iter().map(|x| x % 1000).collect();
        assert_eq!(hs, key_set, "HashSet, {at}");
        let bm: BTreeMap<u64, u64> = v.par_iter().map(|&x| (x, !x)).collect();
        assert_eq!(
            bm,
            v.iter().map(|&x| (x, !x)).collect::<BTreeMap<_, _>>(),
            "BTreeMap, {at}"
        );
        let bs: BTreeSet<u64> = v.par_iter().map(|x| x % 1000).collect();
        assert_eq!(
            bs,
            v.iter().map(|x| x % 1000).collect::<BTreeSet<_>>(),
            "BTreeSet, {at}"
        );
        // Result and Option of a Vec: all Ok, or one failure.
        let got: Result<Vec<u64>, String> = v.par_iter().map(|&x| Ok(x >> 1)).collect();
        assert_eq!(
            got,
            Ok(v.iter().map(|x| x >> 1).collect::<Vec<_>>()),
            "Result Ok, {at}"
        );
        let got: Option<Vec<u64>> = v.par_iter().map(|&x| Some(x >> 1)).collect();
        assert_eq!(
            got,
            Some(v.iter().map(|x| x >> 1).collect::<Vec<_>>()),
            "Option Some, {at}"
        );
        if n > 0 {
            let bad = n - 1 - n / 3;
            let got: Result<Vec<u64>, String> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| {
                    if i == bad {
                        Err(format!("bad {i}"))
                    } else {
                        Ok(x)
                    }
                })
                .collect();
            assert_eq!(got, Err(format!("bad {bad}")), "Result Err, {at}");
            let got: Option<Vec<u64>> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| (i != bad).then_some(x))
                .collect();
            assert_eq!(got, None, "Option None, {at}");
        }
        let got: Result<Vec<u64>, u64> = v
            .par_iter()
            .map(|&x| if x % 4 == 1 { Err(x) } else { Ok(x) })
            .collect();
        match got {
            Ok(all) => {
                assert!(v.iter().all(|x| x % 4 != 1), "{at}");
                assert_eq!(all, v, "{at}");
            }
            Err(e) => assert!(e % 4 == 1 && v.contains(&e), "Result Err of several, {at}"),
        }
        // collect_into_vec replaces what the vector held.
        let mut target = vec![9u64; 5];
        v.par_iter().map(|x| x ^ 3).collect_into_vec(&mut target);
        assert_eq!(
            target,
            v.iter().map(|x| x ^ 3).collect::<Vec<_>>(),
            "collect_into_vec, {at}"
        );
        let mut target = Vec::with_capacity(2 * n);
        v.par_iter().rev().copied().collect_into_vec(&mut target);
        assert_eq!(target, v.iter().rev().copied().collect::<Vec<_>>(), "{at}");
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let words: Vec<String> = input(n).iter().map(|x| format!("{}-", x % 1000)).collect();
        let got: String = words.par_iter().map(String::as_str).collect();
        assert_eq!(got, words.concat(), "String from &str, {at}");
        let got: String = words.clone().into_par_iter().collect();
        assert_eq!(got, words.concat(), "String from String, {at}");
        let got: String = words
            .par_iter()
            .filter(|w| w.len() > 2)
            .map(String::as_str)
            .collect();
        assert_eq!(
            got,
            words
                .iter()
                .filter(|w| w.len() > 2)
                .map(String::as_str)
                .collect::<String>(),
            "{at}"
        );
    });
}

#[test]
fn unzip_partition_and_par_extend_keep_the_order() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let (a, b): (Vec<usize>, Vec<u64>) = v.par_iter().enumerate().map(|(i, &x)| (i, x)).unzip();
        assert_eq!(a, (0..n).collect::<Vec<_>>(), "unzip left, {at}");
        assert_eq!(b, v, "unzip right, {at}");
        let odd = |x: &u64| x % 2 == 1;
        let (a, b): (Vec<u64>, Vec<u64>) =
            v.par_iter().filter(|x| odd(x)).map(|&x| (x, x / 3)).unzip();
        let (ea, eb): (Vec<u64>, Vec<u64>) =
            v.iter().filter(|x| odd(x)).map(|&x| (x, x / 3)).unzip();
        assert_eq!((a, b), (ea, eb), "unzip unindexed, {at}");
        let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().copied().partition(|x| odd(x));
        let (ea, eb): (Vec<u64>, Vec<u64>) = v.iter().copied().partition(|x| odd(x));
        assert_eq!((a, b), (ea, eb), "partition, {at}");
        let (a, b): (Vec<u64>, Vec<u64>) = v
            .par_iter()
            .copied()
            .filter(|x| x % 3 != 0)
            .partition(|x| x % 5 < 2);
        let (ea, eb): (Vec<u64>, Vec<u64>) = v
            .iter()
            .copied()
            .filter(|x| x % 3 != 0)
            .partition(|x| x % 5 < 2);
        assert_eq!((a, b), (ea, eb), "partition unindexed, {at}");
        let (a, b): (HashSet<u64>, Vec<u64>) = v.par_iter().copied().partition(|x| odd(x));
        assert_eq!(
            a,
            v.iter().copied().filter(odd).collect::<HashSet<_>>(),
            "{at}"
        );
        assert_eq!(
            b,
            v.iter().copied().filter(|x| !odd(x)).collect::<Vec<_>>(),
            "{at}"
        );
        // par_extend: onto what is there, in order.
        let mut w = vec![1u64, 2, 3];
        w.par_extend(v.par_iter().copied());
        w.par_extend(v.par_iter().copied().filter(|x| odd(x)));
        w.par_extend(vec![7u64, 8]);
        let mut expected = vec![1u64, 2, 3];
        expected.extend(v.iter().copied());
        expected.extend(v.iter().copied().filter(odd));
        expected.extend([7, 8]);
        assert_eq!(w, expected, "par_extend Vec, {at}");
        let mut s = String::from(">");
        s.par_extend(v.par_iter().map(|x| char::from(b'A' + (x % 26) as u8)));
        assert_eq!(
            s,
            format!(
                ">{}",
                v.iter()
                    .map(|x| char::from(b'A' + (x % 26) as u8))
                    .collect::<String>()
            ),
            "{at}"
        );
        let mut hs: HashSet<u64> = HashSet::from([u64::MAX]);
        hs.par_extend(v.par_iter().map(|x| x % 100));
        let mut expected: HashSet<u64> = v.iter().map(|x| x % 100).collect();
        expected.insert(u64::MAX);
        assert_eq!(hs, expected, "par_extend HashSet, {at}");
    });
}

#[test]
fn collect_vec_list_keeps_the_order() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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
