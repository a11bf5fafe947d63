//! Collections as sources, by value and by reference: `Vec`, arrays, `Box<[T]>`, `Option`,
//! `Result`, the hash and B-tree maps and sets, `BinaryHeap`, `LinkedList`, `VecDeque`; their
//! iterators are `Clone` and `Debug` where rayon's are; an owning source drops, exactly once,
//! every item it does not pass on.

use crate::common::*;
use forkjoin::prelude::*;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::num::Wrapping;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[test]
fn vectors_owned_and_by_reference() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n).to_vec();
        assert_eq!((&v).into_par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(
            v.par_iter().rev().copied().collect::<Vec<_>>(),
            v.iter().rev().copied().collect::<Vec<_>>(),
            "{at}"
        );
        let mut w = v.clone();
        (&mut w).into_par_iter().for_each(|x| *x >>= 1);
        assert_eq!(w, v.iter().map(|x| x >> 1).collect::<Vec<_>>(), "{at}");
        assert_eq!(v.clone().into_par_iter().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(v.clone().into_par_iter().len(), n, "{at}");
        assert_eq!(
            v.clone().into_par_iter().rev().skip(1).collect::<Vec<_>>(),
            v.iter().rev().skip(1).copied().collect::<Vec<_>>(),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        // Owned items with heap memory: moved out once each, in order.
        let strings: Vec<String> = input(n).iter().map(|x| x.to_string()).collect();
        let moved: Vec<String> = strings.clone().into_par_iter().collect();
        assert_eq!(moved, strings, "{at}");
        let lens: usize = strings.clone().into_par_iter().map(|s| s.len()).sum();
        assert_eq!(lens, strings.iter().map(String::len).sum::<usize>(), "{at}");
        // Items never reached (take, skip, an early stop) are dropped, exactly once.
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let firsts: Vec<usize> = items.into_par_iter().take(3).map(|t| t.id).collect();
        assert_eq!(firsts, (0..n.min(3)).collect::<Vec<_>>(), "{at}");
        ledger.assert_all_dropped_once(&format!("take, {at}"));
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let lasts: Vec<Tracked> = items.into_par_iter().skip(n / 2).collect();
        assert_eq!(
            lasts.iter().map(|t| t.id).collect::<Vec<_>>(),
            (n / 2..n).collect::<Vec<_>>(),
            "{at}"
        );
        drop(lasts);
        ledger.assert_all_dropped_once(&format!("skip, {at}"));
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let found = items.into_par_iter().find_first(|t| t.id == n / 2);
        assert_eq!(
            found.as_ref().map(|t| t.id),
            (n > 0).then_some(n / 2),
            "{at}"
        );
        drop(found);
        ledger.assert_all_dropped_once(&format!("find_first, {at}"));
    });
}

#[test]
fn arrays_by_value_and_by_reference() {
    on_pools(|at| {
        let a: [u64; 17] = std::array::from_fn(|i| input(17)[i]);
        assert_eq!(a.into_par_iter().collect::<Vec<_>>(), a, "{at}");
        assert_eq!(a.into_par_iter().len(), 17, "{at}");
        assert_eq!((&a).into_par_iter().copied().collect::<Vec<_>>(), a, "{at}");
        assert_eq!(a.par_iter().max(), a.iter().max(), "{at}");
        let mut b = a;
        b.par_iter_mut().for_each(|x| *x /= 3);
        assert_eq!(b, a.map(|x| x / 3), "{at}");
        (&mut b)
            .into_par_iter()
            .enumerate()
            .for_each(|(i, x)| *x = i as u64);
        assert_eq!(b, std::array::from_fn(|i| i as u64), "{at}");
        let empty: [u8; 0] = [];
        assert_eq!(empty.into_par_iter().count(), 0, "{at}");
        assert_eq!(empty.par_iter().min(), None, "{at}");
        let one = [String::from("one")];
        assert_eq!(
            one.clone().into_par_iter().collect::<Vec<_>>(),
            ["one"],
            "{at}"
        );
        let words = [
            String::from("fork"),
            String::from("join"),
            String::from("pool"),
        ];
        assert_eq!(
            words.clone().into_par_iter().rev().collect::<Vec<_>>(),
            ["pool", "join", "fork"],
            "{at}"
        );
        assert_eq!(words.par_iter().map(|w| w.len()).sum::<usize>(), 12, "{at}");
        let big: [u32; 1001] = std::array::from_fn(|i| i as u32 * 7);
        assert_eq!(big.into_par_iter().collect::<Vec<_>>(), big, "{at}");
        assert_eq!(
            big.into_par_iter().map(u64::from).sum::<u64>(),
            7 * 1000 * 1001 / 2,
            "{at}"
        );
    });
}

#[test]
fn options_by_value_and_by_reference() {
    on_pools(|at| {
        assert_eq!(Some(5).into_par_iter().collect::<Vec<_>>(), [5], "{at}");
        assert_eq!(
            None::<i32>.into_par_iter().collect::<Vec<_>>(),
            Vec::<i32>::new(),
            "{at}"
        );
        assert_eq!(Some(5).into_par_iter().len(), 1, "{at}");
        assert_eq!(None::<i32>.into_par_iter().len(), 0, "{at}");
        let some = Some(String::from("x"));
        assert_eq!(
            (&some).into_par_iter().collect::<Vec<_>>(),
            [&String::from("x")],
            "{at}"
        );
        assert_eq!(some.par_iter().map(|s| s.len()).sum::<usize>(), 1, "{at}");
        let mut m = Some(41);
        m.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(m, Some(42), "{at}");
        let mut none: Option<i32> = None;
        none.par_iter_mut().for_each(|_| unreachable!());
        assert_eq!(none, None, "{at}");
        let zipped: Vec<(i32, char)> = Some(1).into_par_iter().zip(Some('a')).collect();
        assert_eq!(zipped, [(1, 'a')], "{at}");
        let chained: Vec<i32> = Some(1).into_par_iter().chain(None).chain(Some(3)).collect();
        assert_eq!(chained, [1, 3], "{at}");
    });
}

#[test]
fn hash_and_btree_collections_by_reference_and_owned() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let hm: HashMap<u64, u64> = v.iter().map(|&x| (x, x >> 3)).collect();
        let hs: HashSet<u64> = v.iter().copied().collect();
        let bm: BTreeMap<u64, u64> = v.iter().map(|&x| (x, x >> 5)).collect();
        let bs: BTreeSet<u64> = v.iter().copied().collect();

        let s = hm
            .par_iter()
            .map(|(&k, &x)| k ^ x)
            .reduce(|| 0, |a, b| a ^ b);
        assert_eq!(s, hm.iter().fold(0, |a, (&k, &x)| a ^ k ^ x), "{at}");
        assert_eq!(hm.par_iter().count(), hm.len(), "{at}");
        let copy: HashMap<u64, u64> = hm.par_iter().map(|(&k, &x)| (k, x)).collect();
        assert_eq!(copy, hm, "{at}");
        assert_eq!(
            hm.clone().into_par_iter().collect::<HashMap<_, _>>(),
            hm,
            "{at}"
        );
        let mut hm2 = hm.clone();
        hm2.par_iter_mut().for_each(|(k, x)| *x = k.wrapping_add(1));
        assert!(
            hm2.iter().all(|(k, x)| *x == k.wrapping_add(1)) && hm2.len() == hm.len(),
            "{at}"
        );

        assert_eq!(hs.par_iter().copied().collect::<HashSet<_>>(), hs, "{at}");
        assert_eq!(
            hs.clone().into_par_iter().collect::<HashSet<_>>(),
            hs,
            "{at}"
        );
        assert_eq!(
            hs.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(hs.iter()),
            "{at}"
        );

        // A BTreeMap's and BTreeSet's items come in key order.
        let got: Vec<(&u64, &u64)> = bm.par_iter().collect();
        assert_eq!(got, bm.iter().collect::<Vec<_>>(), "{at}");
        let got: Vec<(u64, u64)> = bm.clone().into_par_iter().collect();
        assert_eq!(got, bm.clone().into_iter().collect::<Vec<_>>(), "{at}");
        let mut bm2 = bm.clone();
        bm2.par_iter_mut().for_each(|(_, x)| *x += 1);
        assert_eq!(
            bm2.into_iter().collect::<Vec<_>>(),
            bm.iter().map(|(&k, &x)| (k, x + 1)).collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<&u64> = bs.par_iter().collect();
        assert_eq!(got, bs.iter().collect::<Vec<_>>(), "{at}");
        let got: Vec<u64> = bs.clone().into_par_iter().collect();
        assert_eq!(got, bs.iter().copied().collect::<Vec<_>>(), "{at}");
        assert_eq!(bs.par_iter().min(), bs.iter().next(), "{at}");
    });
}

/// Items a consumer or adaptor never passes on (skipped, cut off, filtered out, left
/// behind by an early stop) are dropped by the owning source, exactly once each.
#[test]
fn owning_sources_drop_what_is_not_passed_on() {
    on_pools_and_lens(&SMALL, |at, n| {
        macro_rules! case {
            ($what:expr, |$a:ident, $b:ident| $body:expr, $expected:expr) => {{
                let ledger = Ledger::new(n + n / 2);
                let $a: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
                let $b: Vec<Tracked> = (n..n + n / 2).map(|i| ledger.make(i)).collect();
                let kept: Vec<usize> = $body;
                let expected: Vec<usize> = $expected;
                assert_eq!(kept, expected, "{}, {at}", $what);
                ledger.assert_all_dropped_once(&format!("{}, {at}", $what));
            }};
        }
        fn ids(v: Vec<Tracked>) -> Vec<usize> {
            v.iter().map(|t| t.id).collect()
        }
        case!(
            "take",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().take(n / 3).collect())
            },
            (0..n / 3).collect()
        );
        case!(
            "skip",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().skip(n / 3).collect())
            },
            (n / 3..n).collect()
        );
        case!(
            "step_by",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().step_by(3).collect())
            },
            (0..n).step_by(3).collect()
        );
        case!(
            "rev take",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().rev().take(2).collect())
            },
            (0..n).rev().take(2).collect()
        );
        case!(
            "skip step_by rev",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().skip(1).step_by(2).rev().collect())
            },
            (0..n).skip(1).step_by(2).rev().collect()
        );
        case!(
            "zip unequal",
            |a, b| a
                .into_par_iter()
                .zip(b)
                .map(|(x, y)| x.id * 10_000 + y.id)
                .collect(),
            (0..n)
                .zip(n..n + n / 2)
                .map(|(x, y)| x * 10_000 + y)
                .collect()
        );
        case!(
            "chain take",
            |a, b| ids(a.into_par_iter().chain(b).take(n + n / 4).collect()),
            (0..n + n / 4).collect()
        );
        case!(
            "chain skip",
            |a, b| ids(a.into_par_iter().chain(b).skip(n / 2).collect()),
            (n / 2..n + n / 2).collect()
        );
        case!(
            "chunks",
            |a, b| {
                drop(b);
                a.into_par_iter().chunks(4).map(|c| c.len()).collect()
            },
            (0..n)
                .collect::<Vec<_>>()
                .chunks(4)
                .map(|c| c.len())
                .collect()
        );
        case!(
            "filter",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().filter(|t| t.id % 3 == 0).collect())
            },
            (0..n).filter(|i| i % 3 == 0).collect()
        );
        case!(
            "with_max_len skip",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().with_max_len(1).skip(2).collect())
            },
            (2..n).collect()
        );
        case!(
            "find_first",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .find_first(|t| t.id == n / 2)
                    .map(|t| t.id)
                    .into_iter()
                    .collect()
            },
            (0..n).find(|&i| i == n / 2).into_iter().collect()
        );
        case!(
            "find_any",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .find_any(|t| t.id == 1)
                    .map(|t| t.id)
                    .into_iter()
                    .collect()
            },
            (n > 1).then_some(1).into_iter().collect()
        );
        case!(
            "any",
            |a, b| {
                drop(b);
                vec![a.into_par_iter().any(|t| t.id == 0) as usize]
            },
            vec![(n > 0) as usize]
        );
        case!(
            "try_for_each",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .try_for_each(|t| if t.id == 2 { Err(t.id) } else { Ok(()) })
                    .err()
                    .into_iter()
                    .collect()
            },
            (n > 2).then_some(2).into_iter().collect()
        );
        case!(
            "while_some",
            |a, b| {
                drop(b);
                let got = ids(a
                    .into_par_iter()
                    .map(|t| (t.id != n / 2).then_some(t))
                    .while_some()
                    .collect());
                assert!(got.iter().all(|&i| i != n / 2), "{at}");
                vec![]
            },
            vec![]
        );
        case!(
            "Result collect",
            |a, b| {
                drop(b);
                let r: Result<Vec<Tracked>, usize> = a
                    .into_par_iter()
                    .map(|t| if t.id == n / 3 { Err(t.id) } else { Ok(t) })
                    .collect();
                r.err().into_iter().collect()
            },
            (n > 0).then_some(n / 3).into_iter().collect()
        );
        case!(
            "flat_map_iter",
            |a, b| {
                drop(b);
                ids(a
                    .into_par_iter()
                    .flat_map_iter(|t| (t.id % 2 == 0).then_some(t))
                    .collect())
            },
            (0..n).filter(|i| i % 2 == 0).collect()
        );
    });
}

// ---------------------------------------------------------------------------------------
// Collections, results and options.

#[test]
fn collections_by_value_and_by_reference() {
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input31(n);
        // BinaryHeap: indexed, in no particular order.
        let heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            sorted(heap.par_iter().copied().collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert_eq!(heap.par_iter().len(), n, "{at}");
        assert_eq!(
            heap.par_iter().with_max_len(1).max(),
            v.iter().max(),
            "{at}"
        );
        assert_eq!(
            sorted(heap.clone().into_par_iter().collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert_eq!(heap.clone().into_par_iter().len(), n, "{at}");
        // BTreeSet: in order.
        let set: BTreeSet<u64> = v.iter().copied().collect();
        let expected: Vec<u64> = set.iter().copied().collect();
        assert_eq!(
            set.par_iter().copied().collect::<Vec<_>>(),
            expected,
            "{at}"
        );
        assert_eq!(
            set.clone().into_par_iter().collect::<Vec<_>>(),
            expected,
            "{at}"
        );
        // LinkedList: in order, and mutably.
        let mut list: LinkedList<u64> = v.iter().copied().collect();
        assert_eq!(list.par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        list.par_iter_mut().for_each(|x| *x += 1);
        assert!(list.iter().copied().eq(v.iter().map(|x| x + 1)), "{at}");
        assert_eq!(
            list.clone().into_par_iter().collect::<Vec<_>>(),
            v.iter().map(|x| x + 1).collect::<Vec<_>>(),
            "{at}"
        );
        assert_eq!(list.par_iter().opt_len(), Some(n), "{at}");
        // VecDeque: indexed, also when its items wrap around the end of its buffer.
        for mut deque in [deque_of(&v), v.iter().copied().collect()] {
            assert!(deque.iter().eq(&v), "{at}");
            let got: Vec<u64> = deque.par_iter().with_max_len(1).copied().collect();
            assert_eq!(got, v, "{at}");
            assert_eq!(deque.par_iter().len(), n, "{at}");
            let got: Vec<(usize, u64)> = deque.par_iter().copied().enumerate().rev().collect();
            assert!(
                got.into_iter().eq(v.iter().copied().enumerate().rev()),
                "{at}"
            );
            deque.par_iter_mut().with_max_len(1).for_each(|x| *x *= 2);
            assert!(deque.iter().copied().eq(v.iter().map(|x| x * 2)), "{at}");
            let got: Vec<u64> = deque.clone().into_par_iter().with_max_len(1).collect();
            assert!(got.iter().copied().eq(v.iter().map(|x| x * 2)), "{at}");
            assert_eq!(deque.into_par_iter().len(), n, "{at}");
        }
        // Owned items are all dropped, also when a consumer stops early.
        let drops = AtomicUsize::new(0);
        let deque: VecDeque<Counted> = deque_of(&v)
            .into_iter()
            .map(|x| Counted(x, &drops))
            .collect();
        assert_eq!(
            deque.into_par_iter().with_max_len(1).take(n / 2).count(),
            n / 2,
            "{at}"
        );
        assert_eq!(drops.load(Relaxed), n, "{at}");
        drops.store(0, Relaxed);
        let list: LinkedList<Counted> = v.iter().map(|&x| Counted(x, &drops)).collect();
        assert_eq!(list.into_par_iter().take_any(n / 2).count(), n / 2, "{at}");
        assert_eq!(drops.load(Relaxed), n, "{at}");
    });
}

#[test]
fn results_and_options() {
    on_pools(|at| {
        let mut ok: Result<String, i32> = Ok("x".into());
        let mut err: Result<String, i32> = Err(3);
        assert_eq!(ok.par_iter().cloned().collect::<Vec<_>>(), ["x"], "{at}");
        assert_eq!(err.par_iter().count(), 0, "{at}");
        assert_eq!(ok.par_iter().len(), 1, "{at}");
        ok.par_iter_mut().for_each(|s| s.push('y'));
        err.par_iter_mut().for_each(|s| s.push('y'));
        assert_eq!((&ok, &err), (&Ok("xy".into()), &Err(3)), "{at}");
        assert_eq!(
            ok.clone().into_par_iter().collect::<Vec<_>>(),
            ["xy"],
            "{at}"
        );
        assert_eq!(err.clone().into_par_iter().len(), 0, "{at}");
        let z: Vec<(&String, i32)> = ok.par_iter().zip(5..10).collect();
        assert_eq!(z, [(&"xy".to_string(), 5)], "{at}");
        let mut some = Some(4);
        let none: Option<i32> = None;
        assert_eq!(some.par_iter().sum::<i32>(), 4, "{at}");
        assert_eq!(none.par_iter().count(), 0, "{at}");
        some.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(some, Some(5), "{at}");
        // Collecting `Result`s.
        let all: Result<Vec<i32>, String> = (0..100).into_par_iter().map(Ok).collect();
        assert_eq!(all, Ok((0..100).collect()), "{at}");
        let bad: Result<Vec<i32>, i32> = (0..100)
            .into_par_iter()
            .map(|x| if x == 42 { Err(x) } else { Ok(x) })
            .collect();
        assert_eq!(bad, Err(42), "{at}");
    });
    let r: Result<i32, ()> = Ok(1);
    let it: forkjoin::result::Iter<'_, i32> = r.par_iter();
    assert_eq!(it.clone().count(), 1);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::result::IntoIter<i32> = r.into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 1);
}

#[test]
fn collection_iterators_are_clone_and_debug() {
    let heap: BinaryHeap<i32> = [3, 1, 2].into();
    let it: forkjoin::collections::binary_heap::Iter<'_, i32> = heap.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 6);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::collections::binary_heap::IntoIter<i32> = heap.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 6);
    let list: LinkedList<i32> = [1, 2].into();
    let it: forkjoin::collections::linked_list::Iter<'_, i32> = list.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let it: forkjoin::collections::linked_list::IntoIter<i32> = list.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    assert!(format!("{it:?}").starts_with("IntoIter"));
    let deque: VecDeque<i32> = [1, 2].into();
    let it: forkjoin::collections::vec_deque::Iter<'_, i32> = deque.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::collections::vec_deque::IntoIter<i32> = deque.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let set: BTreeSet<i32> = [1, 2].into();
    let it: forkjoin::collections::btree_set::Iter<'_, i32> = set.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let map: HashMap<i32, i32> = [(1, 2)].into();
    let it: forkjoin::collections::hash_map::Iter<'_, i32, i32> = map.par_iter();
    assert_eq!(it.clone().count(), 1);
}

#[test]
fn boxed_slices_iterate_like_vectors() {
    for (workers, pool) in pools() {
        pool.install(|| {
            let mut boxed: Box<[u64]> = input31(1001).into_boxed_slice();
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
