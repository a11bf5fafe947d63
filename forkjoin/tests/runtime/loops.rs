//! The loops of the first API, built on the iterators (`for_each`, `for_each_slice`,
//! `for_each_slice_mut`, `map_reduce`, `map_reduce_slice`, and the deterministic reductions):
//! exact answers in order, and deterministic reductions bit-identical at every worker count.

use crate::common::*;
use forkjoin::Pool;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

#[test]
fn loops_are_exact() {
    let pool = Pool::new(OVERSUBSCRIBED).unwrap();
    let n = size(1_000_000, 300) as usize;
    let sum = pool.install(|| forkjoin::map_reduce(0..n, || 0u64, |i| i as u64, |a, b| a + b));
    assert_eq!(sum, (n as u64) * (n as u64 - 1) / 2);
    let hits: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
    pool.install(|| {
        forkjoin::for_each(0..n, |i| {
            hits[i % 100].fetch_add(1, Relaxed);
        })
    });
    assert!(hits.iter().all(|h| h.load(Relaxed) == n as u64 / 100));
    let mut v: Vec<u64> = (0..n as u64).collect();
    pool.install(|| forkjoin::for_each_slice_mut(&mut v, |x| *x = *x * 3 + 1));
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 3 + 1));
    let s = forkjoin::map_reduce_slice(&v, || 0u64, |&x| x, |a, b| a + b);
    assert_eq!(s, 3 * (n as u64) * (n as u64 - 1) / 2 + n as u64);
    let count = AtomicU64::new(0);
    forkjoin::for_each_slice(&v, |&x| {
        count.fetch_add(x & 1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), v.iter().map(|x| x & 1).sum::<u64>());
    forkjoin::for_each(0..0, |_| unreachable!());
    assert_eq!(forkjoin::map_reduce(5..5, || 9u8, |_| 0, |a, _| a), 9);
}

#[test]
fn deterministic_reduction_is_bit_identical() {
    let xs: Vec<f64> = (0..size(200_000, 3_000))
        .map(|i| ((i as f64) * 0.37).sin() * 1e-3 + 1e3)
        .collect();
    let sum = || forkjoin::map_reduce_slice_deterministic(&xs, || 0.0f64, |x| *x, |a, b| a + b);
    let reference = Pool::new(1).unwrap().install(sum).to_bits();
    for threads in [2, 3, 8, 16] {
        let pool = Pool::new(threads).unwrap();
        for _ in 0..3 {
            assert_eq!(
                pool.install(sum).to_bits(),
                reference,
                "threads = {threads}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// The first API, now built on the iterators
// ---------------------------------------------------------------------------------------

#[test]
fn the_loops_of_the_first_api_are_exact() {
    on_pools_and_lens(&LENS, |at, n| {
        let hits = Hits::new(n);
        forkjoin::for_each(0..n, |i| hits.hit(i));
        hits.assert_each_once(&format!("for_each, {at}"));
        let s = forkjoin::map_reduce(0..n, || 0u64, |i| (i as u64) * 3, |a, b| a + b);
        assert_eq!(
            s,
            3 * (n as u64) * (n as u64).saturating_sub(1) / 2,
            "map_reduce, {at}"
        );
        let m = forkjoin::map_reduce(0..n, || ID, |i| mat(input(n)[i]), mul);
        assert_eq!(
            m,
            input(n).iter().fold(ID, |a, &x| mul(a, mat(x))),
            "map_reduce keeps the order, {at}"
        );
        let mut v = input(n).to_vec();
        forkjoin::for_each_slice_mut(&mut v, |x| *x = x.rotate_left(7));
        assert_eq!(
            v,
            input(n)
                .iter()
                .map(|x| x.rotate_left(7))
                .collect::<Vec<_>>(),
            "for_each_slice_mut, {at}"
        );
        let hits = Hits::new(n);
        let idx: Vec<usize> = (0..n).collect();
        forkjoin::for_each_slice(&idx, |&i| hits.hit(i));
        hits.assert_each_once(&format!("for_each_slice, {at}"));
        let s = forkjoin::map_reduce_slice(&v, || 0u64, |&x| x >> 40, |a, b| a + b);
        assert_eq!(
            s,
            v.iter().map(|x| x >> 40).sum::<u64>(),
            "map_reduce_slice, {at}"
        );
        let m = forkjoin::map_reduce_slice_deterministic(&v, || ID, |&x| mat(x), mul);
        assert_eq!(
            m,
            v.iter().fold(ID, |a, &x| mul(a, mat(x))),
            "map_reduce_slice_deterministic, {at}"
        );
    });
}

/// The reduction tree `map_reduce_deterministic` documents: blocks of `DETERMINISTIC_LEAF`
/// items, the left child of a node holding the first half of its blocks (rounded down),
/// each block folded from the identity, left to right.
fn documented_tree(xs: &[f64]) -> f64 {
    let leaf = forkjoin::DETERMINISTIC_LEAF;
    let n = xs.len();
    if n > leaf {
        let (l, r) = xs.split_at(n.div_ceil(leaf) / 2 * leaf);
        documented_tree(l) + documented_tree(r)
    } else {
        xs.iter().fold(0.0, |a, x| a + x)
    }
}

#[test]
fn deterministic_reductions_are_bit_identical_everywhere() {
    for n in [0, 1, 2, 3, 17, 511, 512, 513, 1001, 100_003, BIG] {
        let xs: Vec<f64> = random(n, 99)
            .iter()
            .map(|&x| (x as f64 / u64::MAX as f64 - 0.5) * 10f64.powi((x % 17) as i32 - 8))
            .collect();
        let expected = documented_tree(&xs).to_bits();
        let results = Mutex::new(Vec::new());
        on_pools(|at| {
            for _ in 0..3 {
                let a =
                    forkjoin::map_reduce_deterministic(0..n, || 0.0f64, |i| xs[i], |a, b| a + b);
                let b =
                    forkjoin::map_reduce_slice_deterministic(&xs, || 0.0f64, |&x| x, |a, b| a + b);
                results
                    .lock()
                    .unwrap()
                    .push((at.to_string(), a.to_bits(), b.to_bits()));
            }
        });
        let results = results.into_inner().unwrap();
        let first = results[0].1;
        for (at, a, b) in &results {
            assert_eq!(*a, first, "map_reduce_deterministic differs, n = {n}, {at}");
            assert_eq!(
                *b, first,
                "map_reduce_slice_deterministic differs, n = {n}, {at}"
            );
        }
        assert_eq!(first, expected, "not the documented tree, n = {n}");
    }
}
