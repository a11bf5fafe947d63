//! The drains (`Vec`, `VecDeque`, `String`, `HashMap`, `HashSet`, `BinaryHeap`): whatever
//! happens to the drain (consumed, consumed in part, stopped early, dropped without being
//! driven, a panic in the consumer), the collection then holds exactly what rayon documents,
//! and every item was dropped exactly once.

use crate::common::*;
use forkjoin::prelude::*;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[test]
fn vec_par_drain_removes_the_range_whatever_happens() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
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

// ---------------------------------------------------------------------------------------
// Drains.

/// The ranges drained from a collection of `n` items.
fn ranges(n: usize) -> [(usize, usize); 5] {
    [
        (0, n),
        (0, n / 2),
        (n / 3, n),
        (n / 3, n / 3 + n / 4),
        (n, n),
    ]
}

#[test]
fn vec_deque_par_drain_removes_the_range_whatever_happens() {
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input31(n);
        for (s, e) in ranges(n) {
            let at = &format!("{s}..{e}, {at}");
            let outside: Vec<u64> = v[..s].iter().chain(&v[e..]).copied().collect();
            // Consumed.
            let mut d = deque_of(&v);
            let cap = d.capacity();
            let got: Vec<u64> = d.par_drain(s..e).with_max_len(3).collect();
            assert_eq!(got, v[s..e], "{at}");
            assert!(d.iter().eq(&outside), "{at}");
            assert_eq!(d.capacity(), cap, "keeps its capacity, {at}");
            let mut d = deque_of(&v);
            assert_eq!(d.par_drain(s..e).len(), e - s, "{at}");
            assert!(d.iter().eq(&outside), "{at}");
            let mut d = deque_of(&v);
            let got: Vec<u64> = d.par_drain(s..).rev().collect();
            assert!(got.iter().eq(v[s..].iter().rev()), "{at}");
            assert!(d.iter().eq(&v[..s]), "{at}");
            let mut d = deque_of(&v);
            let sum: u64 = d.par_drain(..e).with_max_len(1).sum();
            assert_eq!(sum, v[..e].iter().sum::<u64>(), "{at}");
            assert!(d.iter().eq(&v[e..]), "{at}");
            if e > s {
                let mut d = deque_of(&v);
                let got: Vec<u64> = d.par_drain(s..=e - 1).collect();
                assert_eq!(got, v[s..e], "{at}");
                assert!(d.iter().eq(&outside), "{at}");
            }
            // The items of the range are dropped once each, whatever happens.
            let drops = AtomicUsize::new(0);
            let fresh = || deque_of(&v.iter().map(|&x| Counted(x, &drops)).collect::<Vec<_>>());
            let values = |d: &VecDeque<Counted>| d.iter().map(|c| c.0).collect::<Vec<_>>();
            let check = |d: VecDeque<Counted>, what: &str| {
                assert_eq!(drops.load(Relaxed), e - s, "{what}, {at}");
                assert_eq!(values(&d), outside, "{what}, {at}");
                drop(d);
                drops.store(0, Relaxed);
            };
            // Consumed in part.
            let mut d = fresh();
            drops.store(0, Relaxed);
            let taken: Vec<Counted> = d
                .par_drain(s..e)
                .with_max_len(2)
                .take((e - s) / 2)
                .collect();
            assert_eq!(taken.len(), (e - s) / 2, "{at}");
            drop(taken);
            check(d, "take");
            // An early stop.
            let mut d = fresh();
            drops.store(0, Relaxed);
            if e > s {
                let target = v[(s + e) / 2];
                let found = d
                    .par_drain(s..e)
                    .with_max_len(1)
                    .find_any(|c| c.0 == target);
                assert_eq!(found.as_ref().map(|c| c.0), Some(target), "{at}");
            }
            check(d, "find_any");
            // A panic in the consumer.
            let mut d = fresh();
            drops.store(0, Relaxed);
            if e > s {
                let middle = v[(s + e) / 2];
                let msg = panic_message(|| {
                    d.par_drain(s..e).with_max_len(2).for_each(|c| {
                        assert!(c.0 != middle, "found the middle");
                    })
                });
                assert_eq!(msg, "found the middle", "{at}");
            }
            check(d, "panic");
            // Never driven.
            let mut d = fresh();
            drops.store(0, Relaxed);
            drop(d.par_drain(s..e));
            check(d, "never driven");
        }
    });
    let mut d: VecDeque<i32> = [1, 2, 3].into();
    let msg = panic_message(|| drop(d.par_drain(2..5)));
    assert_eq!(msg, "range end index 5 out of range for slice of length 3");
    assert!(d.iter().eq(&[1, 2, 3]));
}

/// A string of `n` characters of 1 to 4 bytes.
fn text(n: usize) -> String {
    ['a', 'é', '→', '😀', 'b', 'ü']
        .into_iter()
        .cycle()
        .take(n)
        .collect()
}

#[test]
fn string_par_drain_removes_the_range_whatever_happens() {
    on_pools_and_lens(&SMALL, |at, n| {
        let t = text(n);
        // Byte offsets of the char boundaries, by char index.
        let at_char: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
        for (cs, ce) in ranges(n) {
            let (s, e) = (at_char[cs], at_char[ce]);
            let at = &format!("{s}..{e}, {at}");
            let outside = format!("{}{}", &t[..s], &t[e..]);
            let mut w = t.clone();
            let cap = w.capacity();
            let got: String = w.par_drain(s..e).collect();
            assert_eq!(got, t[s..e], "{at}");
            assert_eq!(w, outside, "{at}");
            assert_eq!(w.capacity(), cap, "keeps its capacity, {at}");
            let mut w = t.clone();
            let got: Vec<char> = w.par_drain(s..).collect();
            assert!(got.into_iter().eq(t[s..].chars()), "{at}");
            assert_eq!(w, t[..s], "{at}");
            let mut w = t.clone();
            assert_eq!(w.par_drain(..e).count(), ce, "{at}");
            assert_eq!(w, t[e..], "{at}");
            // Consumed in part, stopped early, a panic, never driven.
            let mut w = t.clone();
            assert_eq!(
                w.par_drain(s..e).take_any((ce - cs) / 2).count(),
                (ce - cs) / 2,
                "{at}"
            );
            assert_eq!(w, outside, "take_any, {at}");
            let mut w = t.clone();
            if e > s {
                let c = t[s..e].chars().nth((ce - cs) / 2).unwrap();
                assert_eq!(w.par_drain(s..e).find_any(|&x| x == c), Some(c), "{at}");
            }
            assert_eq!(w, outside, "find_any, {at}");
            let mut w = t.clone();
            let r = catch_unwind(AssertUnwindSafe(|| {
                w.par_drain(s..e)
                    .for_each(|c| assert!(c != '→', "an arrow"));
            }));
            assert_eq!(r.is_err(), t[s..e].contains('→'), "{at}");
            assert_eq!(w, outside, "panic, {at}");
            let mut w = t.clone();
            drop(w.par_drain(s..e));
            assert_eq!(w, outside, "never driven, {at}");
        }
    });
    // Not on a char boundary, or out of range: std's panics, and the string is unchanged.
    let mut s = String::from("aé→");
    let ours = panic_message(|| drop(s.par_drain(2..)));
    let std = panic_message(|| drop(s.clone().drain(2..)));
    assert_eq!(ours, std);
    assert_eq!(ours, "assertion failed: self.is_char_boundary(start)");
    let ours = panic_message(|| drop(s.par_drain(..4)));
    assert_eq!(ours, "assertion failed: self.is_char_boundary(end)");
    let ours = panic_message(|| drop(s.par_drain(..10)));
    let std = panic_message(|| drop(s.clone().drain(..10)));
    assert_eq!(ours, std);
    assert_eq!(s, "aé→");
    assert_eq!(s.par_drain(1..3).collect::<String>(), "é");
    assert_eq!(s, "a→");
}

#[test]
fn par_drain_full_of_hash_map_hash_set_and_binary_heap() {
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input31(n);
        let distinct: Vec<u64> = sorted(
            v.iter()
                .copied()
                .collect::<HashSet<_>>()
                .into_iter()
                .collect(),
        );
        // Consumed.
        let mut map: HashMap<u64, usize> = v.iter().map(|&x| (x, x as usize % 7)).collect();
        let cap = map.capacity();
        let got: Vec<(u64, usize)> = map.par_drain().collect();
        assert_eq!(sorted(got.iter().map(|p| p.0).collect()), distinct, "{at}");
        assert!(got.iter().all(|&(k, x)| x == k as usize % 7), "{at}");
        assert!(map.is_empty() && map.capacity() == cap, "{at}");
        let mut set: HashSet<u64> = v.iter().copied().collect();
        let cap = set.capacity();
        assert_eq!(sorted(set.par_drain().collect()), distinct, "{at}");
        assert!(set.is_empty() && set.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        let cap = heap.capacity();
        assert_eq!(heap.par_drain().len(), n, "{at}");
        assert!(heap.is_empty() && heap.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            sorted(heap.par_drain().with_max_len(1).collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert!(heap.is_empty() && heap.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            heap.par_drain().rev().sum::<u64>(),
            v.iter().sum::<u64>(),
            "{at}"
        );
        // Dropped once each, whatever happens; the collection is empty after.
        let drops = AtomicUsize::new(0);
        let k = distinct.len();
        let target = v.get(n / 2).copied();
        macro_rules! whatever_happens {
            ($fresh:expr, $len:expr, $what:literal) => {{
                let check = |what: &str, empty: bool| {
                    assert!(empty, "{} {what}: not empty, {at}", $what);
                    assert_eq!(drops.load(Relaxed), $len, "{} {what}, {at}", $what);
                    drops.store(0, Relaxed);
                };
                let mut c = $fresh;
                let taken = c.par_drain().take_any($len / 2).count();
                assert_eq!(taken, $len / 2, "{at}");
                check("take_any", c.is_empty());
                let mut c = $fresh;
                let found = c.par_drain().find_any(|x| Some(key(x)) == target);
                assert_eq!(found.as_ref().map(key), target, "{at}");
                drop(found);
                check("find_any", c.is_empty());
                let mut c = $fresh;
                if let Some(t) = target {
                    let msg = panic_message(|| {
                        c.par_drain().for_each(|x| {
                            assert!(key(&x) != t, "found it");
                        })
                    });
                    assert_eq!(msg, "found it", "{at}");
                }
                check("panic", c.is_empty());
                let mut c = $fresh;
                drop(c.par_drain());
                check("never driven", c.is_empty());
            }};
        }
        trait Key {
            fn key(&self) -> u64;
        }
        impl Key for Counted<'_> {
            fn key(&self) -> u64 {
                self.0
            }
        }
        impl Key for (Counted<'_>, u8) {
            fn key(&self) -> u64 {
                self.0 .0
            }
        }
        fn key<T: Key>(x: &T) -> u64 {
            x.key()
        }
        let fresh_map = || -> HashMap<Counted, u8> {
            let m = distinct.iter().map(|&x| (Counted(x, &drops), 1)).collect();
            drops.store(0, Relaxed);
            m
        };
        let fresh_set = || -> HashSet<Counted> {
            let s = distinct.iter().map(|&x| Counted(x, &drops)).collect();
            drops.store(0, Relaxed);
            s
        };
        let fresh_heap = || -> BinaryHeap<Counted> {
            let h = v.iter().map(|&x| Counted(x, &drops)).collect();
            drops.store(0, Relaxed);
            h
        };
        whatever_happens!(fresh_map(), k, "HashMap");
        whatever_happens!(fresh_set(), k, "HashSet");
        whatever_happens!(fresh_heap(), n, "BinaryHeap");
    });
    // Debug.
    let mut heap: BinaryHeap<i32> = [1, 2].into();
    let d: forkjoin::collections::binary_heap::Drain<'_, i32> = heap.par_drain();
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut map: HashMap<i32, i32> = [(1, 2)].into();
    let d: forkjoin::collections::hash_map::Drain<'_, i32, i32> = map.par_drain();
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut set: HashSet<i32> = [1].into();
    let d: forkjoin::collections::hash_set::Drain<'_, i32> = set.par_drain();
    assert_eq!(d.count(), 1);
    let mut deque: VecDeque<i32> = [1].into();
    let d: forkjoin::collections::vec_deque::Drain<'_, i32> = deque.par_drain(..);
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut s = String::from("ab");
    let d: forkjoin::string::Drain<'_> = s.par_drain(..1);
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    assert_eq!(s, "b");
}
