//! Blocking inside the pool without losing a core: the JDK pool's `managedBlock` with
//! compensation threads.
//!
//! A worker that blocks (a read, a lock, a channel, a sleep) takes its core out of the pool
//! until it returns. `blocking(f)` tells the pool first, and the pool keeps its configured
//! number of threads running: it wakes a parked worker if there is one, else it starts a
//! *spare* thread, up to `PoolBuilder::max_blocking`. A spare is a worker like the others
//! (a slot of its own after the workers', a deque, the same loop, stealing and parking as
//! they do), except that it retires when the pool has more spares than blocked threads: on
//! its next search that finds nothing, or at once if it is parked then (the worker that
//! leaves `blocking` wakes it). An idle pool so goes back to its own workers, parked, with
//! no thread left behind.
//!

use crate::registry::{Registry, Worker};

/// Runs `f`, which may block (I/O, a lock, a channel, a sleep), without taking a core
/// from the pool: as the JDK's `ForkJoinPool.managedBlock`, the pool first wakes a parked
/// worker or starts a spare thread (at most `PoolBuilder::max_blocking` at once) so that
/// its configured number of threads keep running while this one waits. Spares take work
/// like any worker and retire once the blocked threads are back and they find nothing
/// to do, so an idle pool still uses no CPU.
///
/// Outside any pool it just runs `f`. Inside `f`, `join`, `scope` and nested `blocking`
/// work as anywhere (a nested call starts nothing more). `current_num_threads()` stays
/// the pool's configured size; a spare reports the index of the worker it was started
/// for as its `current_thread_index()`.
///
/// ```
/// use std::sync::mpsc;
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let (tx, rx) = mpsc::channel();
/// let rx = std::sync::Mutex::new(rx);
/// let (received, sent) = pool.install(|| {
///     forkjoin::join(
///         // Waits for a message that the other side sends: without compensation a
///         // one-worker pool could deadlock here, and this one loses a core meanwhile.
///         || forkjoin::blocking(|| rx.lock().unwrap().recv().unwrap()),
///         || {
///             let sum: u64 = (1..=100u64).sum();
///             tx.send(sum).unwrap();
///             sum
///         },
///     )
/// });
/// assert_eq!((received, sent), (5050, 5050));
/// ```
pub fn blocking<R>(f: impl FnOnce() -> R) -> R {
    let current = Worker::current();
    if current.is_null() {
        return f();
    }
    // SAFETY: this thread's worker, live while the thread runs it.
    let worker = unsafe { &*current };
    let st = worker.owner_state();
    // SAFETY: owner-only state, on the owner's thread.
    if unsafe { (*st).blocking } {
        return f();
    }
    // SAFETY: as above.
    unsafe { (*st).blocking = true };
    /// Counts the thread back in on every way out of `f`, unwinding included.
    struct Leave<'a>(&'a Worker);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            // SAFETY: owner-only state, on the owner's thread.
            unsafe { (*self.0.owner_state()).blocking = false };
            self.0.registry().leave_blocking();
        }
    }
    let _leave = Leave(worker);
    worker.registry().enter_blocking(worker);
    f()
}

impl Registry {
    /// A thread of this pool is about to block: wake a parked thread or start a spare
    /// for each one the pool is short of (`Compensation::enter`).
    fn enter_blocking(&self, worker: &Worker) {
        let mut short = self.compensation.enter();
        while short > 0 {
            // A parked worker or spare is a thread ready to run: wake it rather than
            // start another (the JDK pool does the same). `wake_any` needs a fence
            // after what the woken thread should see; here that is nothing but the
            // count, which is a SeqCst read-modify-write.
            if self.sleep.wake_any() {
                short -= 1;
                continue;
            }
            if !self.compensation.reserve_spare() {
                return;
            }
            self.start_spare(worker.shown_index());
            short -= 1;
        }
    }

    /// The blocked thread is back: if spares now outnumber the blocked threads, wake a
    /// parked one so that it retires (busy ones retire when they run out of work).
    fn leave_blocking(&self) {
        if self.compensation.leave() {
            self.sleep.wake_spare();
        }
    }
}
