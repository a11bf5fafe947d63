//! The interface for writing your own parallel iterator, as rayon's `iter::plumbing`: a
//! *producer* hands out the items and can be split in two at an index, a *consumer* takes
//! them and can be split the same way, and a *bridge* drives one against the other.
//!
//! The bridge is where forkjoin differs from rayon. rayon splits the producer up front into
//! about as many pieces as there are threads (more when pieces are stolen) and folds each
//! piece sequentially, so a loop whose items are tiny pays for splits nobody needed, and one
//! whose items are large may get too few pieces unless the user tunes `with_min_len` or
//! `with_max_len`. forkjoin's bridge never splits ahead of need: it folds the producer in
//! chunks on the current worker and splits the *rest* in half only when an idle worker has
//! asked for work (the heartbeat) and the rest is worth sharing (DESIGN.md, section 8). Your
//! producer gets that by implementing [`Producer::split_at`]; it needs no grain size.
//!
//! ```
//! use forkjoin::iter::plumbing::{bridge, Producer, ProducerCallback, Consumer};
//! use forkjoin::prelude::*;
//!
//! /// The even numbers below `2 * n`, as a parallel iterator of our own.
//! struct Evens { n: usize }
//!
//! struct EvensProducer { start: usize, end: usize }
//!
//! impl Producer for EvensProducer {
//!     type Item = usize;
//!     type IntoIter = std::iter::Map<std::ops::Range<usize>, fn(usize) -> usize>;
//!     fn into_iter(self) -> Self::IntoIter {
//!         (self.start..self.end).map(|i| 2 * i)
//!     }
//!     fn split_at(self, index: usize) -> (Self, Self) {
//!         let mid = self.start + index;
//!         (EvensProducer { start: self.start, end: mid }, EvensProducer { start: mid, end: self.end })
//!     }
//! }
//!
//! impl ParallelIterator for Evens {
//!     type Item = usize;
//!     fn drive_unindexed<C>(self, consumer: C) -> C::Result
//!     where
//!         C: forkjoin::iter::plumbing::UnindexedConsumer<usize>,
//!     {
//!         bridge(self, consumer)
//!     }
//!     fn opt_len(&self) -> Option<usize> {
//!         Some(self.n)
//!     }
//! }
//!
//! impl IndexedParallelIterator for Evens {
//!     fn len(&self) -> usize {
//!         self.n
//!     }
//!     fn drive<C: Consumer<usize>>(self, consumer: C) -> C::Result {
//!         bridge(self, consumer)
//!     }
//!     fn with_producer<CB: ProducerCallback<usize>>(self, callback: CB) -> CB::Output {
//!         callback.callback(EvensProducer { start: 0, end: self.n })
//!     }
//! }
//!
//! assert_eq!(Evens { n: 1000 }.sum::<usize>(), 999_000);
//! assert_eq!(Evens { n: 5 }.collect::<Vec<_>>(), [0, 2, 4, 6, 8]);
//! ```

pub(crate) mod traits;

pub use traits::{
    Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer, UnindexedProducer,
};

use super::splitter;
use super::IndexedParallelIterator;

/// Drives an indexed parallel iterator into `consumer`: takes its producer and runs
/// [`bridge_producer_consumer`]. The usual body of `drive` and `drive_unindexed` for an
/// iterator that has a producer.
#[inline]
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    struct Callback<C> {
        len: usize,
        consumer: C,
    }

    impl<C, T> ProducerCallback<T> for Callback<C>
    where
        C: Consumer<T>,
    {
        type Output = C::Result;
        #[inline]
        fn callback<P>(self, producer: P) -> C::Result
        where
            P: Producer<Item = T>,
        {
            bridge_producer_consumer(self.len, producer, self.consumer)
        }
    }

    let len = par_iter.len();
    par_iter.with_producer(Callback { len, consumer })
}

/// Runs `producer`'s `len` items into `consumer`, splitting the work lazily (on the
/// heartbeat, when an idle worker asks and the rest is worth sharing) on the current
/// worker, or on the global pool's outside any pool.
#[inline]
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    splitter::drive_producer(len, producer, consumer)
}

/// Runs an unindexed producer into `consumer`. Such a producer can only be split before it
/// runs, so it is split in up to as many pieces as the pool has workers (again when a piece
/// is taken by another worker), and further whenever an idle worker asks; the join that
/// shares a piece costs almost nothing when nobody takes it.
#[inline]
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    splitter::drive_unindexed(producer, consumer)
}
