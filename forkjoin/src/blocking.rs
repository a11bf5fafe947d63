//! `blocking`: the JDK pool's `managedBlock`, with spare threads standing in for the blocked
//! one under its index (DESIGN.md, section 7, "Blocking without losing a core").

use crate::registry::Worker;

/// Runs `f`, which may block (I/O, a lock, a channel, a sleep), without taking a core
/// from the pool: as the JDK's `ForkJoinPool.managedBlock`, the pool first wakes a parked
/// worker or starts a spare thread (at most `PoolBuilder::max_blocking` at once; with
/// nothing queued, when the next job is published) so that its configured number of threads
/// keep running while this one waits. Outside any pool it just runs `f`. Inside `f`, `join`,
/// `scope` and nested `blocking` work as anywhere (a nested call starts nothing more).
///
/// **Indices.** `current_num_threads()` stays the pool's configured size. A spare has no
/// index of its own: it runs tasks under the caller's index, lent to it while `f` runs, so
/// per-index state (a buffer per `current_thread_index()`) still has one thread at a time.
/// When `f` returns (or unwinds), or is about to run pool work itself (a spawn, an untaken
/// task of a `join` or `scope` inside it, a `yield_now`, a wait that helps), the caller takes
/// its index back, waiting until the spare has finished its current task. A spare's task
/// inside `blocking` holds nothing, so it may wait there for what the caller does after
/// `blocking` returns; waiting any other way (spinning on a flag) holds the index the caller
/// needs. Inside `f`, `current_thread_index()` is the lent index: `f` must not use per-index
/// state, nor hold it across the call.
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
    let Some(worker) = Worker::current_ref() else {
        return f();
    };
    if worker.owner().blocking.inside.replace(true) {
        return f();
    }
    /// On every way out of `f`: takes the index back from any stand-in, counts the thread in.
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
