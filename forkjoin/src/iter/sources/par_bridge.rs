//! `par_bridge`: a parallel iterator fed by any sequential iterator (a channel's receiver,
//! lines of a file), as rayon's `ParallelBridge`.
//!
//! Every piece of the work pulls the next item from the shared iterator under a lock and
//! processes it without the lock, so the items are spread over as many workers as there
//! are pieces (up to the pool's size). The order of the items is lost.

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Turns a sequential iterator into a parallel one (`iter.par_bridge()`).
///
/// ```
/// use forkjoin::prelude::*;
/// use std::sync::mpsc::channel;
/// let (tx, rx) = channel();
/// for i in 0..100u32 {
///     tx.send(i).unwrap();
/// }
/// drop(tx);
/// let sum: u32 = rx.into_iter().par_bridge().map(|x| x * 2).sum();
/// assert_eq!(sum, 9900);
/// ```
pub trait ParallelBridge: Sized {
    /// A parallel iterator over this iterator's items.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T> ParallelBridge for T
where
    T: Iterator<Item: Send> + Send,
{
    #[inline]
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The parallel iterator `par_bridge` returns.
#[derive(Debug, Clone)]
pub struct IterBridge<Iter> {
    iter: Iter,
}

impl<Iter> ParallelIterator for IterBridge<Iter>
where
    Iter: Iterator<Item: Send> + Send,
{
    type Item = Iter::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let threads = crate::current_num_threads();
        let shared = Shared {
            iter: Mutex::new(self.iter),
            splits: AtomicUsize::new(threads),
            started: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        };
        bridge_unindexed(&shared, consumer)
    }
}

struct Shared<Iter> {
    iter: Mutex<Iter>,
    /// How many more pieces may be split off.
    splits: AtomicUsize,
    /// Which workers already run a piece of this bridge (see `fold_with`).
    started: Box<[AtomicBool]>,
}

impl<Iter: Iterator<Item: Send> + Send> UnindexedProducer for &Shared<Iter> {
    type Item = Iter::Item;

    #[inline]
    fn split(self) -> (Self, Option<Self>) {
        // Relaxed: a budget; the pieces share everything else through the mutex.
        let more = self
            .splits
            .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1))
            .is_ok();
        (self, more.then_some(self))
    }

    #[inline]
    fn fold_with<F>(self, mut folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        // One piece per worker: a worker that already runs one (further up its stack, for
        // example while the iterator's own `next` joins and this worker took another
        // piece meanwhile) leaves the items to it. Locking again would deadlock.
        if let Some(i) = crate::current_thread_index() {
            // Relaxed: only this worker touches its own flag.
            if self.started[i % self.started.len()].swap(true, Relaxed) {
                return folder;
            }
        }
        loop {
            // A poisoned lock: the iterator panicked in another piece, which carries
            // the panic; this piece just stops.
            let Ok(mut iter) = self.iter.lock() else {
                return folder;
            };
            let Some(item) = iter.next() else {
                return folder;
            };
            drop(iter);
            folder = folder.consume(item);
            if folder.full() {
                return folder;
            }
        }
    }
}
