//! Parallel loops over ranges and slices, split adaptively with no grain size from the user.
//!
//! Lazy binary splitting (Tzannes, Caragea, Barua and Vishkin, PPoPP 2010) on top of the
//! heartbeat: a loop runs its range sequentially and, between two iterations, splits the
//! *remaining* range in half (a `join`) only when the worker's heartbeat is pending and some
//! worker is idle. A loop on a busy pool therefore costs one flag test per iteration, and a
//! loop on an idle pool spreads in a logarithmic number of splits.
//!
//! The split points of those loops depend on timing, so a floating-point reduction may
//! round differently from run to run. The `*_deterministic` variants split at fixed points
//! (halving down to `DETERMINISTIC_LEAF` elements), so the reduction tree, and hence the
//! result bit for bit, depends only on the input length.

use crate::join::join;
use crate::registry::{self, Worker};
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

/// Leaf size of the deterministic reductions.
pub const DETERMINISTIC_LEAF: usize = 512;

/// Whether the current worker should split the rest of its loop now.
#[inline(always)]
fn wants_split() -> bool {
    let w = Worker::current();
    // SAFETY: loops run on a worker (see `registry::on_worker`); it lives while its thread runs it.
    // Relaxed: both are hints; see `Worker::on_heartbeat`.
    unsafe {
        let registry = (*w).registry();
        // A profile splits every loop all the way down, so that the task graph shows all the
        // parallelism the loop offers, not what the idle workers of this run happened to take.
        #[cfg(feature = "profile")]
        if registry.profiling() {
            return true;
        }
        (*w).heartbeat_pending() && registry.idle.load(Relaxed) > 0
    }
}

/// Calls `f(i)` for every `i` in `range`, potentially in parallel.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let total = AtomicU64::new(0);
/// forkjoin::for_each(0..1000, |i| { total.fetch_add(i as u64, Ordering::Relaxed); });
/// assert_eq!(total.into_inner(), 499_500);
/// ```
pub fn for_each<F>(range: Range<usize>, f: F)
where
    F: Fn(usize) + Sync + Send,
{
    registry::on_worker(|_| for_each_split(range.start, range.end, &f))
}

fn for_each_split<F: Fn(usize) + Sync>(mut i: usize, end: usize, f: &F) {
    while i < end {
        if end - i > 1 && wants_split() {
            let mid = i + (end - i) / 2;
            join(|| for_each_split(i, mid, f), || for_each_split(mid, end, f));
            return;
        }
        f(i);
        i += 1;
    }
}

/// Maps every `i` in `range` and reduces the results, potentially in parallel. `reduce`
/// must be associative and `identity()` its neutral element; the grouping varies between
/// runs (see [`map_reduce_deterministic`] for floating point).
///
/// ```
/// let squares = forkjoin::map_reduce(0..100, || 0u64, |i| (i * i) as u64, |a, b| a + b);
/// assert_eq!(squares, 328_350);
/// ```
pub fn map_reduce<T, ID, M, R>(range: Range<usize>, identity: ID, map: M, reduce: R) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    M: Fn(usize) -> T + Sync + Send,
    R: Fn(T, T) -> T + Sync + Send,
{
    let ops = (&identity, &map, &reduce);
    registry::on_worker(|_| map_reduce_split(range.start, range.end, ops))
}

fn map_reduce_split<T, ID, M, R>(mut i: usize, end: usize, ops: (&ID, &M, &R)) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    M: Fn(usize) -> T + Sync,
    R: Fn(T, T) -> T + Sync,
{
    let (identity, map, reduce) = ops;
    let mut acc = identity();
    while i < end {
        if end - i > 1 && wants_split() {
            let mid = i + (end - i) / 2;
            let (l, r) = join(
                || map_reduce_split(i, mid, ops),
                || map_reduce_split(mid, end, ops),
            );
            return reduce(reduce(acc, l), r);
        }
        acc = reduce(acc, map(i));
        i += 1;
    }
    acc
}

/// Like [`map_reduce`], but the reduction tree depends only on `range.len()`, so the result
/// is bit-identical from run to run, whatever the schedule and the number of workers.
///
/// ```
/// let sum = |n| forkjoin::map_reduce_deterministic(0..n, || 0.0f64, |i| 1.0 / (i as f64 + 1.0), |a, b| a + b);
/// let first = sum(100_000);
/// for _ in 0..5 {
///     assert_eq!(sum(100_000).to_bits(), first.to_bits());
/// }
/// ```
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
    let ops = (&identity, &map, &reduce);
    registry::on_worker(|_| map_reduce_fixed(range.start, range.end, ops))
}

fn map_reduce_fixed<T, ID, M, R>(lo: usize, hi: usize, ops: (&ID, &M, &R)) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    M: Fn(usize) -> T + Sync,
    R: Fn(T, T) -> T + Sync,
{
    let (identity, map, reduce) = ops;
    if hi - lo <= DETERMINISTIC_LEAF {
        return (lo..hi).fold(identity(), |acc, i| reduce(acc, map(i)));
    }
    let mid = lo + (hi - lo) / 2;
    let (l, r) = join(
        || map_reduce_fixed(lo, mid, ops),
        || map_reduce_fixed(mid, hi, ops),
    );
    reduce(l, r)
}

/// Calls `f` on every element of `slice`, potentially in parallel.
pub fn for_each_slice<T, F>(slice: &[T], f: F)
where
    T: Sync,
    F: Fn(&T) + Sync + Send,
{
    for_each(0..slice.len(), |i| f(&slice[i]))
}

/// Calls `f` on every element of `slice` mutably, potentially in parallel.
///
/// ```
/// let mut v: Vec<u32> = (0..1000).collect();
/// forkjoin::for_each_slice_mut(&mut v, |x| *x *= 2);
/// assert!(v.iter().enumerate().all(|(i, &x)| x == 2 * i as u32));
/// ```
pub fn for_each_slice_mut<T, F>(slice: &mut [T], f: F)
where
    T: Send,
    F: Fn(&mut T) + Sync + Send,
{
    registry::on_worker(|_| for_each_mut_split(slice, &f))
}

fn for_each_mut_split<T: Send, F: Fn(&mut T) + Sync>(mut rest: &mut [T], f: &F) {
    while !rest.is_empty() {
        if rest.len() > 1 && wants_split() {
            let (l, r) = rest.split_at_mut(rest.len() / 2);
            join(|| for_each_mut_split(l, f), || for_each_mut_split(r, f));
            return;
        }
        let (first, tail) = std::mem::take(&mut rest)
            .split_first_mut()
            .expect("not empty");
        f(first);
        rest = tail;
    }
}

/// Maps every element of `slice` and reduces the results, potentially in parallel.
pub fn map_reduce_slice<T, U, ID, M, R>(slice: &[T], identity: ID, map: M, reduce: R) -> U
where
    T: Sync,
    U: Send,
    ID: Fn() -> U + Sync + Send,
    M: Fn(&T) -> U + Sync + Send,
    R: Fn(U, U) -> U + Sync + Send,
{
    map_reduce(0..slice.len(), identity, |i| map(&slice[i]), reduce)
}

/// [`map_reduce_slice`] with a reduction tree that depends only on `slice.len()`.
///
/// ```
/// let xs: Vec<f64> = (0..10_000).map(|i| (i as f64).sin()).collect();
/// let a = forkjoin::map_reduce_slice_deterministic(&xs, || 0.0, |x| *x, |a, b| a + b);
/// let b = forkjoin::Pool::new(3).unwrap()
///     .install(|| forkjoin::map_reduce_slice_deterministic(&xs, || 0.0, |x| *x, |a, b| a + b));
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
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
    map_reduce_deterministic(0..slice.len(), identity, |i| map(&slice[i]), reduce)
}
