//! `Vec::par_drain`'s unsafe code under Miri: small vectors on a pool of 2 workers, split
//! everywhere (`with_max_len(1)`), each element owning heap memory so that a double drop
//! or a leak is a memory error Miri reports; a full drain, an early stop, a panic, and a
//! drain never driven.
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
