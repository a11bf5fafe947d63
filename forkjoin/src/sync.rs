//! The synchronisation primitives the lock-free parts use: `std`'s, or `loom`'s when the
//! crate is built with `--cfg loom` for model checking (only the deque, the sleep protocol,
//! the idle policy, the compensation counts and the outside waiter's latch are built then;
//! the rest of the runtime needs real threads).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};
#[cfg(loom)]
pub(crate) use loom::thread::{current as current_thread, park, yield_now, Thread};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};
#[cfg(not(loom))]
pub(crate) use std::thread::{current as current_thread, park, yield_now, Thread};

/// Runs a loom model check exploring every interleaving with at most three preemptions
/// (bounded as tokio does; the races checked here need at most two), unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
#[cfg(all(test, loom))]
pub(crate) fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}
