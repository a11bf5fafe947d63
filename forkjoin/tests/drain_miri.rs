//! The drains' code under Miri: `Vec::par_drain`'s unsafe code, and the drains built on it
//! or beside it (`VecDeque::par_drain`, `BinaryHeap`, `HashMap` and `HashSet`'s
//! `par_drain()`, `String::par_drain`). Small collections on a pool of 2 workers, split
//! everywhere (`with_max_len(1)`) where the drain is indexed, each element owning heap
//! memory so that a double drop or a leak is a memory error Miri reports; a full drain, an
//! early stop, a panic, and a drain never driven.
//!
//! ```text
//! MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-ignore-leaks" \
//!     cargo +nightly miri test -p forkjoin --test drain_miri
//! ```
//!
//! They pass natively too, as ordinary tests.

// Every element owns heap memory on purpose (see above).
#![allow(clippy::vec_box)]

use forkjoin::prelude::*;
use forkjoin::Pool;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn boxed(n: usize) -> Vec<Box<usize>> {
    (0..n).map(Box::new).collect()
}

fn values(v: &[Box<usize>]) -> Vec<usize> {
    v.iter().map(|b| **b).collect()
}

#[test]
fn par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let outside: Vec<usize> = (0..2).chain(5..n).collect();
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(2..5).with_max_len(1).collect();
        assert_eq!((values(&got), values(&v)), (vec![2, 3, 4], outside.clone()));
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(2..5).with_max_len(1).take(1).collect();
        assert_eq!((values(&got), values(&v)), (vec![2], outside.clone()));
        let mut v = boxed(n);
        let r = catch_unwind(AssertUnwindSafe(|| {
            v.par_drain(2..5)
                .with_max_len(1)
                .for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert_eq!(values(&v), outside);
        let mut v = boxed(n);
        drop(v.par_drain(2..5));
        assert_eq!(values(&v), outside);
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(..).with_max_len(1).collect();
        assert_eq!((got.len(), v.len()), (n, 0));
    });
}

/// A deque of `n` boxes whose items wrap around the end of its buffer.
fn boxed_deque(n: usize) -> VecDeque<Box<usize>> {
    let mut d = VecDeque::with_capacity(n + 1);
    for i in (0..n / 2).rev() {
        d.push_front(Box::new(i));
    }
    for i in n / 2..n {
        d.push_back(Box::new(i));
    }
    d
}

fn deque_values(d: &VecDeque<Box<usize>>) -> Vec<usize> {
    d.iter().map(|b| **b).collect()
}

#[test]
fn vec_deque_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let outside: Vec<usize> = (0..2).chain(5..n).collect();
        let mut d = boxed_deque(n);
        assert!(!d.as_slices().1.is_empty(), "the deque wraps around");
        let got: Vec<Box<usize>> = d.par_drain(2..5).with_max_len(1).collect();
        assert_eq!(
            (values(&got), deque_values(&d)),
            (vec![2, 3, 4], outside.clone())
        );
        let mut d = boxed_deque(n);
        let got: Vec<Box<usize>> = d.par_drain(2..5).with_max_len(1).take(1).collect();
        assert_eq!((values(&got), deque_values(&d)), (vec![2], outside.clone()));
        let mut d = boxed_deque(n);
        let found = d.par_drain(2..5).with_max_len(1).find_any(|b| **b == 3);
        assert_eq!(
            (found.map(|b| *b), deque_values(&d)),
            (Some(3), outside.clone())
        );
        let mut d = boxed_deque(n);
        let r = catch_unwind(AssertUnwindSafe(|| {
            d.par_drain(2..5)
                .with_max_len(1)
                .for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert_eq!(deque_values(&d), outside);
        let mut d = boxed_deque(n);
        drop(d.par_drain(2..5));
        assert_eq!(deque_values(&d), outside);
        let mut d = boxed_deque(n);
        let got: Vec<Box<usize>> = d.par_drain(..).with_max_len(1).collect();
        assert_eq!((got.len(), d.len()), (n, 0));
    });
}

#[test]
fn binary_heap_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let fresh = || -> BinaryHeap<Box<usize>> { boxed(n).into_iter().collect() };
        let mut h = fresh();
        let mut got: Vec<usize> = h.par_drain().with_max_len(1).map(|b| *b).collect();
        got.sort();
        assert_eq!((got, h.len()), ((0..n).collect(), 0));
        let mut h = fresh();
        assert_eq!(h.par_drain().with_max_len(1).take(2).count(), 2);
        assert!(h.is_empty());
        let mut h = fresh();
        let found = h.par_drain().with_max_len(1).find_any(|b| **b == 3);
        assert_eq!((found.map(|b| *b), h.len()), (Some(3), 0));
        let mut h = fresh();
        let r = catch_unwind(AssertUnwindSafe(|| {
            h.par_drain().with_max_len(1).for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert!(h.is_empty());
        let mut h = fresh();
        drop(h.par_drain());
        assert!(h.is_empty());
        // The heap works on after a drain.
        h.push(Box::new(9));
        h.push(Box::new(11));
        assert_eq!(h.pop().map(|b| *b), Some(11));
    });
}

#[test]
fn hash_map_and_hash_set_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 5;
        let map = || -> HashMap<Box<usize>, Box<usize>> {
            (0..n).map(|i| (Box::new(i), Box::new(i * 10))).collect()
        };
        let set = || -> HashSet<Box<usize>> { boxed(n).into_iter().collect() };
        let mut m = map();
        let mut got: Vec<(usize, usize)> = m.par_drain().map(|(k, v)| (*k, *v)).collect();
        got.sort();
        assert_eq!(got, (0..n).map(|i| (i, i * 10)).collect::<Vec<_>>());
        assert!(m.is_empty());
        let mut m = map();
        let found = m.par_drain().find_any(|(k, _)| **k == 3);
        assert_eq!((found.map(|(k, v)| (*k, *v)), m.len()), (Some((3, 30)), 0));
        let mut m = map();
        let r = catch_unwind(AssertUnwindSafe(|| {
            m.par_drain().for_each(|(k, _)| assert!(*k != 3))
        }));
        assert!(r.is_err() && m.is_empty());
        let mut m = map();
        drop(m.par_drain());
        assert!(m.is_empty());
        let mut s = set();
        assert_eq!(s.par_drain().map(|b| *b).sum::<usize>(), n * (n - 1) / 2);
        assert!(s.is_empty());
        let mut s = set();
        assert_eq!(s.par_drain().take_any(2).count(), 2);
        assert!(s.is_empty());
        let mut s = set();
        let r = catch_unwind(AssertUnwindSafe(|| {
            s.par_drain().for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err() && s.is_empty());
        let mut s = set();
        drop(s.par_drain());
        assert!(s.is_empty());
    });
}

#[test]
fn string_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let text = "aé→😀bü→c";
        // Byte offsets of the characters `→😀b`.
        let (s, e) = (3, 11);
        let outside = "aéü→c";
        let mut w = text.to_string();
        let got: String = w.par_drain(s..e).collect();
        assert_eq!((got.as_str(), w.as_str()), ("→😀b", outside));
        let mut w = text.to_string();
        assert_eq!(w.par_drain(s..e).find_any(|&c| c == '😀'), Some('😀'));
        assert_eq!(w, outside);
        let mut w = text.to_string();
        let r = catch_unwind(AssertUnwindSafe(|| {
            w.par_drain(s..e).for_each(|c| assert!(c != '😀'))
        }));
        assert!(r.is_err());
        assert_eq!(w, outside);
        let mut w = text.to_string();
        drop(w.par_drain(s..e));
        assert_eq!(w, outside);
        let mut w = text.to_string();
        assert_eq!(w.par_drain(..).count(), text.chars().count());
        assert!(w.is_empty());
    });
}
