//! Unit tests of the latches' `set` and wait (the registry's `CrossLatch` has its own,
//! `registry/cross_latch.rs`, which uses the pool and pointer helpers too).

use super::*;
use crate::Pool;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::thread;

/// A pool whose calls from outside always run on its own threads: with named threads a
/// caller never borrows a slot (`PoolBuilder::build`), so nothing runs on the test thread.
pub(crate) fn worker_pool(threads: usize) -> Pool {
    Pool::builder()
        .threads(threads)
        .thread_name(|i| format!("latch-test-{i}"))
        .build()
        .unwrap()
}

/// An inner latch that counts how many times it was set.
struct Counted(AtomicUsize);

impl Latch for Counted {
    unsafe fn set(this: *const Self) {
        // SAFETY: live until the call starts (the contract); the tests keep it live longer.
        unsafe { (*this).0.fetch_add(1, SeqCst) };
    }
}

/// A latch pointer sent to the thread that sets it.
pub(crate) struct SendPtr<T>(pub(crate) *const T);
// SAFETY: the latches are `Sync`; each test keeps the pointee alive until it sees it set.
unsafe impl<T: Sync> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so that a closure captures the whole `Send` wrapper).
    pub(crate) fn get(&self) -> *const T {
        self.0
    }
}

#[test]
fn core_latch_probes_unset_until_set_and_set_after() {
    let latch = CoreLatch::new();
    assert!(!latch.probe());
    assert!(!latch.probe(), "probing does not set it");
    // SAFETY: `latch` lives on this stack for the rest of the test.
    unsafe { CoreLatch::set_raw(&latch) };
    assert!(latch.probe());
    // SAFETY: as above; setting a set latch again leaves it set.
    unsafe { CoreLatch::set_raw(&latch) };
    assert!(latch.probe());
}

/// A set from another thread releases the waiter, which sees the setter's writes, whether it
/// spins (no delay) or parked (a long delay); a set latch stays set for later waits.
#[test]
fn outside_latch_wait_returns_after_a_set_from_another_thread() {
    for delay_us in [0, 0, 1, 200, 2_000] {
        for _ in 0..20 {
            let latch = OutsideLatch::new();
            let written = AtomicUsize::new(0);
            thread::scope(|s| {
                let ptr = SendPtr(&latch as *const OutsideLatch);
                let written = &written;
                s.spawn(move || {
                    thread::sleep(std::time::Duration::from_micros(delay_us));
                    written.store(7, Relaxed);
                    // SAFETY: the latch outlives this scoped thread.
                    unsafe { OutsideLatch::set(ptr.get()) };
                });
                latch.wait();
                // Relaxed: ordered by the latch's release swap and acquire load.
                assert_eq!(written.load(Relaxed), 7);
            });
            latch.wait();
        }
    }
}

/// A latch set before anyone waits: the wait returns at once, also twice.
#[test]
fn outside_latch_set_before_the_wait() {
    let latch = OutsideLatch::new();
    // SAFETY: `latch` lives on this stack for the rest of the test.
    unsafe { OutsideLatch::set(&latch) };
    latch.wait();
    latch.wait();
}

/// The inner latch is set exactly once, by the last of the `n` sets.
#[test]
fn count_latch_fires_only_at_the_last_of_n_sets() {
    for n in 1..=6 {
        let latch = CountLatch::new(n, Counted(AtomicUsize::new(0)));
        for k in 1..=n {
            // SAFETY: `latch` lives on this stack for the whole loop.
            unsafe { Latch::set(&latch as *const CountLatch<Counted>) };
            let fired = latch.inner.0.load(SeqCst);
            assert_eq!(fired, usize::from(k == n), "n = {n}, after set {k}");
        }
    }
}

/// `n` threads set the latch at once: the inner latch fires once, and the waiter sees what
/// every setter wrote before its set (the decrements form one release sequence).
#[test]
fn count_latch_set_concurrently_fires_once_and_publishes_every_write() {
    const N: usize = 8;
    for _ in 0..20 {
        let counted = CountLatch::new(N, Counted(AtomicUsize::new(0)));
        let locked = CountLatch::new(N, OutsideLatch::new());
        let slots: Vec<AtomicUsize> = (0..N).map(|_| AtomicUsize::new(0)).collect();
        thread::scope(|s| {
            for (i, slot) in slots.iter().enumerate() {
                let (counted, locked) = (
                    SendPtr(&counted as *const CountLatch<Counted>),
                    SendPtr(&locked as *const CountLatch<OutsideLatch>),
                );
                s.spawn(move || {
                    slot.store(i + 1, Relaxed);
                    // SAFETY: both latches outlive the scoped threads.
                    unsafe {
                        Latch::set(counted.get());
                        Latch::set(locked.get());
                    }
                });
            }
            locked.inner.wait();
            // Relaxed: ordered by the count's release sequence and the inner latch's release swap.
            let seen: Vec<usize> = slots.iter().map(|s| s.load(Relaxed)).collect();
            assert_eq!(seen, (1..=N).collect::<Vec<_>>());
        });
        assert_eq!(counted.inner.0.load(SeqCst), 1);
    }
}
