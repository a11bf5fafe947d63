//! The parallel loops of forkjoin's first API (`forkjoin::for_each`, `map_reduce`, ...),
//! now thin wrappers over the parallel iterators, so that there is one splitter.
//!
//! The `*_deterministic` variants are `deterministic_blocks(DETERMINISTIC_LEAF)`: a
//! floating-point result is the same bit for bit whatever the schedule.

use crate::iter::{IntoParallelIterator, ParallelIterator};
use crate::slice::{ParallelSlice, ParallelSliceMut};
use std::ops::Range;

/// Block length of the `*_deterministic` loops.
pub const DETERMINISTIC_LEAF: usize = 512;

/// Calls `f(i)` for every `i` in `range`, potentially in parallel
/// (`range.into_par_iter().for_each(f)`).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let total = AtomicU64::new(0);
/// forkjoin::for_each(0..1000, |i| { total.fetch_add(i as u64, Ordering::Relaxed); });
/// assert_eq!(total.into_inner(), 499_500);
/// ```
#[inline]
pub fn for_each<F>(range: Range<usize>, f: F)
where
    F: Fn(usize) + Sync + Send,
{
    range.into_par_iter().for_each(f)
}

/// Maps every `i` in `range` and reduces the results, potentially in parallel. `reduce`
/// must be associative and `identity()` its neutral element; the grouping varies between
/// runs (see [`map_reduce_deterministic`] for floating point).
///
/// ```
/// let squares = forkjoin::map_reduce(0..100, || 0u64, |i| (i * i) as u64, |a, b| a + b);
/// assert_eq!(squares, 328_350);
/// ```
#[inline]
pub fn map_reduce<T, ID, M, R>(range: Range<usize>, identity: ID, map: M, reduce: R) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    M: Fn(usize) -> T + Sync + Send,
    R: Fn(T, T) -> T + Sync + Send,
{
    range.into_par_iter().map(map).reduce(identity, reduce)
}

/// Like [`map_reduce`], but folded in blocks of [`DETERMINISTIC_LEAF`] items combined in a
/// fixed tree (`deterministic_blocks`), so the result is bit-identical from run to run,
/// whatever the schedule and the number of workers.
///
/// ```
/// let sum = |n| forkjoin::map_reduce_deterministic(0..n, || 0.0f64, |i| 1.0 / (i as f64 + 1.0), |a, b| a + b);
/// let first = sum(100_000);
/// for _ in 0..5 {
///     assert_eq!(sum(100_000).to_bits(), first.to_bits());
/// }
/// ```
#[inline]
pub fn map_reduce_deterministic<T, ID, M, R>(
    range: Range<usize>,
    identity: ID,
    map: M,
    reduce: R,
) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    M: Fn(usize) -> T + Sync + Send,
    R: Fn(T, T) -> T + Sync + Send,
{
    range
        .into_par_iter()
        .deterministic_blocks(DETERMINISTIC_LEAF)
        .map(map)
        .reduce(identity, reduce)
}

/// Calls `f` on every element of `slice`, potentially in parallel.
#[inline]
pub fn for_each_slice<T, F>(slice: &[T], f: F)
where
    T: Sync,
    F: Fn(&T) + Sync + Send,
{
    slice.as_parallel_slice().into_par_iter().for_each(f)
}

/// Calls `f` on every element of `slice` mutably, potentially in parallel.
///
/// ```
/// let mut v: Vec<u32> = (0..1000).collect();
/// forkjoin::for_each_slice_mut(&mut v, |x| *x *= 2);
/// assert!(v.iter().enumerate().all(|(i, &x)| x == 2 * i as u32));
/// ```
#[inline]
pub fn for_each_slice_mut<T, F>(slice: &mut [T], f: F)
where
    T: Send,
    F: Fn(&mut T) + Sync + Send,
{
    slice.as_parallel_slice_mut().into_par_iter().for_each(f)
}

/// Maps every element of `slice` and reduces the results, potentially in parallel.
#[inline]
pub fn map_reduce_slice<T, U, ID, M, R>(slice: &[T], identity: ID, map: M, reduce: R) -> U
where
    T: Sync,
    U: Send,
    ID: Fn() -> U + Sync + Send,
    M: Fn(&T) -> U + Sync + Send,
    R: Fn(U, U) -> U + Sync + Send,
{
    slice.into_par_iter().map(map).reduce(identity, reduce)
}

/// [`map_reduce_slice`] folded as [`map_reduce_deterministic`] is.
///
/// ```
/// let xs: Vec<f64> = (0..10_000).map(|i| (i as f64).sin()).collect();
/// let a = forkjoin::map_reduce_slice_deterministic(&xs, || 0.0, |x| *x, |a, b| a + b);
/// let b = forkjoin::Pool::new(3).unwrap()
///     .install(|| forkjoin::map_reduce_slice_deterministic(&xs, || 0.0, |x| *x, |a, b| a + b));
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
#[inline]
pub fn map_reduce_slice_deterministic<T, U, ID, M, R>(
    slice: &[T],
    identity: ID,
    map: M,
    reduce: R,
) -> U
where
    T: Sync,
    U: Send,
    ID: Fn() -> U + Sync + Send,
    M: Fn(&T) -> U + Sync + Send,
    R: Fn(U, U) -> U + Sync + Send,
{
    slice
        .into_par_iter()
        .deterministic_blocks(DETERMINISTIC_LEAF)
        .map(map)
        .reduce(identity, reduce)
}
