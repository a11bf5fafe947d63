//! The latch a thread outside any pool waits on for a job it handed over: spin, then park
//! (DESIGN.md, section 7, "Entry from outside the pool").

use super::Latch;
use crate::sync::{current_thread, park, yield_now, AtomicUsize, Thread};
use std::cell::Cell;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::time::{Duration, Instant};

const EMPTY: usize = 0;
const PARKED: usize = 1;
const SET: usize = 2;
const WOKEN: usize = 3;

/// How long the waiter spins before it parks: a call up to about this long comes back
/// without a wake-up (docs/measurements.md, section 7).
const SPIN: Duration = Duration::from_micros(20);
/// A yield that gave the CPU away this long means the CPUs are taken (the machine is busy, or
/// the workers run a long call): the waiter parks instead of spinning on.
#[cfg(not(loom))]
const CPUS_TAKEN: Duration = Duration::from_micros(100);
/// For this long after a yield that took `CPUS_TAKEN`, a thread's waits park at once.
#[cfg(not(loom))]
const PARK_AT_ONCE: Duration = Duration::from_millis(1);
/// A call that came back within this long was short: the caller's next wait spins
/// `PURE_SPIN_ROUNDS` before it yields; after a longer one it yields from its first look.
const SHORT_CALL: Duration = Duration::from_micros(8);
/// Rounds of 64 `spin_loop`s before a waiter that expects a short wait yields.
pub(crate) const PURE_SPIN_ROUNDS: u32 = 4;

std::thread_local! {
    /// Whether this thread's last call from outside was short (`SHORT_CALL`); a hint only.
    static LAST_CALL_SHORT: Cell<bool> = const { Cell::new(true) };
}
#[cfg(not(loom))]
std::thread_local! {
    /// Until when this thread's waits park at once (`PARK_AT_ONCE`).
    static PARK_UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Looks at `done` until it holds or `wait` has passed; whether it held. The waiter is a
/// thread more than the pool's, so after `pure_rounds` rounds of 64 `spin_loop`s it yields
/// between its looks (the workers that will make `done` hold may need its CPU); it stops at
/// once when a yield shows the CPUs are taken, and for `PARK_AT_ONCE` after one did: asleep,
/// it no longer competes with the workers (DESIGN.md, section 7, "Entry from outside the pool").
#[cfg(not(loom))]
pub(crate) fn spin_until(wait: Duration, pure_rounds: u32, done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    if PARK_UNTIL.get().is_some_and(|until| start < until) {
        return done();
    }
    for round in 0u32.. {
        for _ in 0..64 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if round < pure_rounds {
            continue;
        }
        let before = Instant::now();
        std::thread::yield_now();
        let now = Instant::now();
        if now - before >= CPUS_TAKEN {
            PARK_UNTIL.set(Some(now + PARK_AT_ONCE));
            break;
        }
        if now - start >= wait {
            break;
        }
    }
    done()
}

/// Under loom one look: the model explores both outcomes of the race with the setter.
#[cfg(loom)]
pub(crate) fn spin_until(_wait: Duration, _pure_rounds: u32, done: impl Fn() -> bool) -> bool {
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

    /// Waits until the latch is set: spins up to `SPIN` (see `spin_until`), then parks.
    pub(crate) fn wait(&self) {
        let start = Instant::now();
        let pure_rounds = if LAST_CALL_SHORT.get() {
            PURE_SPIN_ROUNDS
        } else {
            0
        };
        if !spin_until(SPIN, pure_rounds, || self.is_set()) {
            self.park();
        }
        LAST_CALL_SHORT.set(start.elapsed() < SHORT_CALL);
    }

    /// Parks until the setter has woken this waiter (or set the latch before the park).
    fn park(&self) {
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
