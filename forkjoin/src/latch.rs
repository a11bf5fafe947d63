//! Latches: one-shot "done" signals a waiter checks. A worker never blocks on a latch while
//! there is work: it helps (`Worker::wait_until`) and parks only when it finds none, after
//! announcing itself to the sleep protocol, so the setter wakes it
//! (`registry/idle/sleep.rs`). A thread outside the pool spins briefly, then parks, on an
//! `OutsideLatch`.
//!
//! Setting a latch is the last thing the setter does with the latch's memory: the waiter
//! may return and free it at once. So `set` takes a raw pointer, and copies out whatever it
//! needs afterwards before the store.

use std::ptr;
use std::sync::atomic::{
    AtomicU32, AtomicUsize, Ordering::AcqRel, Ordering::Acquire, Ordering::Release,
};

const UNSET: u32 = 0;
const SET: u32 = 1;

/// Something a job sets when it completes.
pub(crate) trait Latch {
    /// # Safety
    /// `this` is live until the call starts; it may be freed as soon as the latch is set.
    unsafe fn set(this: *const Self);
}

/// The state every worker-waited latch has.
pub(crate) struct CoreLatch {
    state: AtomicU32,
}

impl CoreLatch {
    pub(crate) const fn new() -> Self {
        CoreLatch {
            state: AtomicU32::new(UNSET),
        }
    }

    /// Acquire: pairs with the Release in `set_raw`, so the waiter sees everything the job
    /// wrote (its result) once it sees the latch set.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.state.load(Acquire) == SET
    }

    /// Sets the latch. The caller then wakes the waiter through the sleep protocol (which
    /// begins with the SeqCst fence of the Dekker pattern).
    ///
    /// # Safety
    /// `this` may be freed by the waiter as soon as this store is visible.
    #[inline]
    pub(crate) unsafe fn set_raw(this: *const Self) {
        // SAFETY: `this` is live until this store (our contract); after it the waiter may free it.
        unsafe {
            // Release: publishes the job's result to the waiter's Acquire probe.
            (*this).state.store(SET, Release);
        }
    }
}

mod outside;
pub(crate) use outside::{spin_until, OutsideLatch};

impl Latch for OutsideLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live until the call (our contract), as `set_raw` needs.
        unsafe { OutsideLatch::set_raw(this) }
    }
}

/// Set once `count` jobs have each set it once (the shares of a broadcast): the last of them
/// sets `inner`, which wakes the waiter the way `inner` says (an `OutsideLatch` for a thread
/// outside any pool, the registry's `CrossLatch` for a worker, which helps meanwhile).
pub(crate) struct CountLatch<L> {
    remaining: AtomicUsize,
    pub(crate) inner: L,
}

impl<L> CountLatch<L> {
    /// A latch that `count` (at least one) sets set.
    pub(crate) fn new(count: usize, inner: L) -> Self {
        debug_assert!(count > 0);
        CountLatch {
            remaining: AtomicUsize::new(count),
            inner,
        }
    }
}

impl<L: Latch> Latch for CountLatch<L> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live: the waiter frees it only after the last set, and a setter
        // that is not the last does not touch it after its decrement.
        unsafe {
            // AcqRel: each setter's decrement releases what its job wrote (its result); the last
            // decrement acquires all of them (the decrements form one release sequence), and
            // `inner`'s set releases them on to the waiter. A setter that is not the last must
            // not touch the latch afterwards: the waiter may free it once the last one is done.
            if (*this).remaining.fetch_sub(1, AcqRel) == 1 {
                // The waiter waits for `inner`, so the latch is still alive here.
                L::set(ptr::addr_of!((*this).inner));
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod test;
