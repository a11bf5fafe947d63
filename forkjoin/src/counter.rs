//! One-writer statistics counters: a relaxed load and store, no RMW; readers take snapshots.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// Adds one.
#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64) {
    add(counter, 1);
}

/// Takes one back (a count made before it was known to happen, which then did not).
#[inline(always)]
pub(crate) fn unbump(counter: &AtomicU64) {
    add(counter, 1u64.wrapping_neg());
}

/// Adds `n`.
#[inline(always)]
pub(crate) fn add(counter: &AtomicU64, n: u64) {
    // Relaxed: one writer at a time (the owner, or a queue's lock holder); publishes nothing.
    counter.store(counter.load(Relaxed).wrapping_add(n), Relaxed);
}
