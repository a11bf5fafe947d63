//! The synchronisation primitives the lock-free parts use: `std`'s, or `loom`'s when the
//! crate is built with `--cfg loom` for model checking (only `deque` and `sleep` are built
//! then; the rest of the runtime needs real threads).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};
