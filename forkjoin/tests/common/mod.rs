//! Helpers shared by the integration tests: each test file includes this module (`mod
//! common;`) and uses what it needs of it.

// A test file that leaves a helper unused is not a dead helper.
#![allow(dead_code)]

pub mod waker;

use forkjoin::Pool;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

/// The input lengths of the iterator tests.
pub const LENS: [usize; 5] = [0, 1, 2, 17, 1001];

/// Pools of 1, 2 and 8 workers.
pub fn pools() -> &'static [(usize, Pool)] {
    static POOLS: OnceLock<Vec<(usize, Pool)>> = OnceLock::new();
    POOLS.get_or_init(|| Vec::from([1, 2, 8].map(|w| (w, Pool::new(w).unwrap()))))
}

/// `n` pseudo-random values, the same for the same `n`.
pub fn input(n: usize) -> Vec<u64> {
    let mut s = n as u64 + 7;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 33
        })
        .collect()
}

/// The message of the panic `f` raises (it must raise one).
pub fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload.downcast::<&str>().map(|s| s.to_string()).unwrap(),
    }
}

/// A value that counts its drops, compared by value. (Relaxed counts: they are read after
/// the parallel work has joined, and the join orders every drop before the read.)
#[derive(Debug)]
pub struct Counted<'a>(pub u64, pub &'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Relaxed);
    }
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        Counted(self.0, self.1)
    }
}

impl PartialEq for Counted<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Counted<'_> {}

impl Hash for Counted<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for Counted<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Counted<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}
