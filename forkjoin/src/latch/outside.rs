//! The latch a thread outside any pool waits on for a job it handed over: spin, then park
//! (DESIGN.md, section 7, "Entry from outside the pool").

use super::Latch;
use crate::sync::{current_thread, park, yield_now, AtomicUsize, Thread};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};

const EMPTY: usize = 0;
const PARKED: usize = 1;
const SET: usize = 2;
const WOKEN: usize = 3;

/// How long the waiter spins before it parks: a call up to about this long comes back
/// without a wake-up (docs/measurements.md, section 7).
const SPIN: std::time::Duration = std::time::Duration::from_micros(20);
/// Rounds of 64 `spin_loop`s before the waiter starts yielding between looks.
#[cfg(not(loom))]
const PURE_SPIN_ROUNDS: u32 = 4;

/// Looks at `done` until it holds or `wait` has passed; whether it held. Yields after the
/// first few hundred `spin_loop`s: the thread that will make `done` hold may need this CPU.
#[cfg(not(loom))]
pub(crate) fn spin_until(wait: std::time::Duration, done: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    for round in 0u32.. {
        for _ in 0..64 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if round >= PURE_SPIN_ROUNDS {
            std::thread::yield_now();
        }
        if start.elapsed() >= wait {
            break;
        }
    }
    done()
}

/// Under loom one look: the model explores both outcomes of the race with the setter.
#[cfg(loom)]
pub(crate) fn spin_until(_wait: std::time::Duration, done: impl Fn() -> bool) -> bool {
    done()
}

/// A one-shot latch for a thread outside any pool: spin, then park.
pub(crate) struct OutsideLatch {
    state: AtomicUsize,
    /// The waiter, to unpark.
    thread: Thread,
}

impl OutsideLatch {
    /// A latch the calling thread will wait on.
    pub(crate) fn new() -> Self {
        OutsideLatch {
            state: AtomicUsize::new(EMPTY),
            thread: current_thread(),
        }
    }

    /// Whether the latch is set (the job's writes are visible then).
    fn is_set(&self) -> bool {
        // Acquire: pairs with the setter's release swap, so the job's result is visible.
        matches!(self.state.load(Acquire), SET | WOKEN)
    }

    /// Waits until the latch is set: spins up to `SPIN`, then parks.
    pub(crate) fn wait(&self) {
        if spin_until(SPIN, || self.is_set()) {
            return;
        }
        // Acquire on both outcomes: a failed exchange saw `SET` (the job's writes, as in
        // `is_set`); a successful one needs no edge (nothing is read before the park).
        if self
            .state
            .compare_exchange(EMPTY, PARKED, Acquire, Acquire)
            .is_err()
        {
            return;
        }
        loop {
            park();
            // Acquire: as in `is_set`.
            match self.state.load(Acquire) {
                WOKEN => return,
                // Set: the setter's unpark may be spent by the park above; wait for `WOKEN`.
                SET => {
                    while self.state.load(Acquire) != WOKEN {
                        yield_now();
                    }
                    return;
                }
                // A spurious wake-up.
                _ => {}
            }
        }
    }
}

impl Latch for OutsideLatch {
    /// Sets the latch and wakes the waiter if it parked (who then frees it after `WOKEN`).
    unsafe fn set(this: *const Self) {
        // SAFETY: live until the swap sets it; a parked waiter waits for `WOKEN` to free it.
        unsafe {
            // Release: publishes the job's result to the waiter's Acquire loads (Acquire: free).
            if (*this).state.swap(SET, AcqRel) == PARKED {
                (*this).thread.unpark();
                // Release: the last touch of the latch; the waiter may free it after this.
                (*this).state.store(WOKEN, Release);
            }
        }
    }
}

/// Model checks of the spin-then-park hand-off: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`. A lost wake-up is a
/// deadlock to loom, a result read before the setter's write a data race.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::{Latch, OutsideLatch};
    use crate::sync::model;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;

    /// A job's result, written by the setter's thread before the set, read by the waiter.
    struct Job {
        latch: OutsideLatch,
        result: UnsafeCell<u32>,
    }

    #[test]
    fn the_waiter_sees_the_result_and_is_never_left_parked() {
        model(|| {
            let job = Arc::new(Job {
                latch: OutsideLatch::new(),
                result: UnsafeCell::new(0),
            });
            let setter = {
                let job = Arc::clone(&job);
                thread::spawn(move || {
                    // SAFETY: only this thread writes, before the set; the waiter reads after.
                    job.result.with_mut(|r| unsafe { *r = 42 });
                    // SAFETY: `job` is live (this thread holds an Arc).
                    unsafe { OutsideLatch::set(&job.latch) };
                })
            };
            job.latch.wait();
            // SAFETY: the latch is set: the setter's write happened before (loom checks it).
            assert_eq!(job.result.with(|r| unsafe { *r }), 42);
            setter.join().unwrap();
        });
    }
}
