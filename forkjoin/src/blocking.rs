//! Blocking inside the pool without losing a core: the JDK pool's `managedBlock` with
//! compensation threads.
//!
//! A worker that blocks (a read, a lock, a channel, a sleep) takes its core out of the pool
//! until it returns. `blocking(f)` tells the pool first, and the pool keeps its configured
//! number of threads running: it wakes a parked worker if there is one, else it starts a
//! *spare* thread, up to `PoolBuilder::max_blocking` (with nothing queued, only when the next
//! job is published: DESIGN.md, section 7, "Blocking without losing a core"). A spare is a
//! worker like the others (a slot of its own after the workers', a deque, the same loop,
//! stealing and parking as they do) that *stands in* for the blocked thread: it runs tasks under that thread's index,
//! which the blocked thread lends it, and ends when the thread takes its index back. Its
//! thread then rests in its slot for a keep-alive (`SPARE_KEEP_ALIVE`, 1 s), as the JDK
//! pool keeps its compensation threads: the next spare started there is that thread, so a
//! program that blocks often pays no thread start per block; after the keep-alive it exits.
//! So an idle pool goes back to its own workers, parked, with no thread left behind, and
//! rayon's rule on indices holds: a thread's index never changes, every index is below the
//! pool's size, and no two threads run tasks under one index at once.

use crate::registry::Worker;

/// Runs `f`, which may block (I/O, a lock, a channel, a sleep), without taking a core
/// from the pool: as the JDK's `ForkJoinPool.managedBlock`, the pool first wakes a parked
/// worker or starts a spare thread (at most `PoolBuilder::max_blocking` at once; with
/// nothing queued, when the next job is published) so that its configured number of threads
/// keep running while this one waits. Outside any pool it just runs `f`. Inside `f`, `join`,
/// `scope` and nested `blocking` work as anywhere (a nested call starts nothing more).
///
/// **Indices.** `current_num_threads()` stays the pool's configured size. A spare has no
/// index of its own: it runs tasks under the caller's index, which the caller lends it while
/// `f` runs, so a program that keeps per-index state (a buffer per
/// `current_thread_index()`) still has one thread at a time on each. When `f` returns (or
/// unwinds), or when `f` itself is about to run pool work (a spawn, a task of a `join` or
/// `scope` inside it that another thread did not take, a `yield_now`, a wait that helps),
/// the caller takes its index back: it waits until the spare has finished the task it is
/// running (the spare takes no new one once asked), then goes on, and the spare ends (its thread rests a
/// while, ready to stand in for the next blocked thread, then exits). A spare's task that is
/// itself inside `blocking` holds nothing: the caller takes the index at once, and the task,
/// when its own `blocking` returns, gets the index back when the caller next waits with
/// nothing to run, blocks, or finishes. So a task that a spare may run may wait, inside
/// `blocking`, for what the caller does after `blocking` returns (a reply to its request);
/// waiting for it any other way (spinning on a flag) holds the index the caller needs (as
/// in any work-stealing pool, a task must not spin on work that only a waiting thread can
/// do). Inside `f`, `current_thread_index()` is the caller's index, which is lent: `f` must
/// not use per-index state, nor hold it across the call.
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
    if worker.owner().blocking.inside.replace(true) {
        return f();
    }
    /// On every way out of `f`, unwinding included: takes the index back from the stand-in
    /// (if any and not yet), then counts the thread back in.
    struct Leave<'a>(&'a Worker);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            let registry = self.0.registry();
            registry.take_index_back(self.0);
            self.0.owner().blocking.inside.set(false);
            registry.compensation.leave();
        }
    }
    let _leave = Leave(worker);
    // The second closures of this thread's pending joins, offered as rayon has them: the
    // stand-in or another worker may run them meanwhile.
    worker.share_private_frames();
    let registry = worker.registry();
    registry.give_up_index(worker, registry.enter_blocking(worker));
    f()
}
