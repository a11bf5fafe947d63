//! Latches: one-shot "done" signals; a set is the setter's last touch, so `set` takes a raw
//! pointer (DESIGN.md, section 7).

use crate::sync::{AtomicU32, AtomicUsize};
use std::ptr;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};

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
    crate::sync::const_fn! {
        pub(crate) const fn new() -> Self {
            CoreLatch {
                state: AtomicU32::new(UNSET),
            }
        }
    }

    /// Acquire: pairs with `set_raw`'s Release: the waiter sees the job's result.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.state.load(Acquire) == SET
    }

    /// Sets the latch; the caller then wakes the waiter through the sleep protocol.
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
pub(crate) use outside::{spin_until, OutsideLatch, PURE_SPIN_ROUNDS};

/// Set by the last of `count` sets (a broadcast's shares), which sets `inner`: an
/// `OutsideLatch` for a thread outside any pool, a `CrossLatch` for a worker.
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
        // SAFETY: live until the last set; other setters leave it alone after their decrement.
        unsafe {
            // AcqRel: each decrement releases its job's result; the last acquires them all (one
            // release sequence), and `inner`'s set releases them on to the waiter.
            if (*this).remaining.fetch_sub(1, AcqRel) == 1 {
                // The waiter waits for `inner`, so the latch is still alive here.
                L::set(ptr::addr_of!((*this).inner));
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
pub(crate) mod test;
