//! Jobs nobody waits for, `spawn` and `spawn_fifo`; and the split behind `Pool::invoke_all`.

use crate::broadcast::unwaited;
use crate::registry::{self, Registry, Worker};
use std::panic::Location;

/// Starts `f` in the current pool (the global pool outside any pool) and returns at once:
/// [`Pool::spawn`](crate::Pool::spawn) there. On a worker, `f` goes onto the worker's own queue.
///
/// ```
/// use std::sync::mpsc;
/// let (tx, rx) = mpsc::channel();
/// forkjoin::spawn(move || tx.send(forkjoin::current_thread_index().is_some()).unwrap());
/// assert!(rx.recv().unwrap(), "spawned jobs run on a worker");
/// ```
#[track_caller]
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in(Registry::current(), f);
}

/// [`spawn`] in FIFO order (rayon's `spawn_fifo`): into the current pool's submission
/// queues (the global pool's outside any pool), which workers take oldest first.
#[track_caller]
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_fifo_in(Registry::current(), f);
}

/// `spawn` into `registry`'s pool (onto this thread's deque if it is one of its workers).
#[track_caller]
pub(super) fn spawn_in<F: FnOnce() + Send + 'static>(registry: &Registry, f: F) {
    registry::spawn_job(registry, unwaited(Location::caller(), "a spawned job", f));
}

/// `spawn_fifo` into `registry`'s pool.
#[track_caller]
pub(super) fn spawn_fifo_in<F: FnOnce() + Send + 'static>(registry: &Registry, f: F) {
    let job = Worker::heap_job(unwaited(Location::caller(), "a spawned job", f));
    match Worker::current_of(registry) {
        // From a worker of the pool: in its FIFO, behind a marker on its deque (`push_fifo`).
        // SAFETY: this thread's own worker.
        Some(worker) => unsafe { worker.push_fifo(job) },
        None => registry.inject(job),
    }
}

/// The split behind `Pool::invoke_all`: every closure, potentially in parallel, in order.
pub(super) fn invoke_all<T: Send, F: FnOnce() -> T + Send>(mut jobs: Vec<F>) -> Vec<T> {
    match jobs.len() {
        0 => Vec::new(),
        1 => vec![jobs.pop().expect("one job")()],
        n => {
            let right = jobs.split_off(n / 2);
            let (mut left, right) = crate::join(|| invoke_all(jobs), || invoke_all(right));
            left.extend(right);
            left
        }
    }
}
