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

use super::splitter;
use super::IndexedParallelIterator;

/// Receives the producer of an indexed parallel iterator
/// ([`IndexedParallelIterator::with_producer`]). The callback is generic over the producer's
/// type, which the iterator does not name.
pub trait ProducerCallback<T> {
    /// What `callback` returns.
    type Output;

    /// Called with the iterator's producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// The source of an indexed parallel iterator's items: it knows how many it holds, can split
/// in two at any index, and turns into a sequential iterator over its part.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;

    /// The sequential iterator this producer becomes.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// Turns the producer into a sequential iterator over its items.
    fn into_iter(self) -> Self::IntoIter;

    /// The fewest items a piece split from this producer may hold (`with_min_len`). A bound
    /// the splitter honours; it never needs one for speed.
    fn min_len(&self) -> usize {
        1
    }

    /// The most items a piece folded sequentially may hold (`with_max_len`): longer pieces
    /// are split before they run.
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and those from `index` on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds every item to `folder`, stopping early once it is full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// Where the items of a parallel iterator go: a consumer can be split like its producer, and
/// becomes a [`Folder`] that takes a run of items sequentially; the results of the pieces
/// are combined by its [`Reducer`].
pub trait Consumer<Item>: Send + Sized {
    /// The sequential part.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Combines the results of two adjacent pieces.
    type Reducer: Reducer<Self::Result>;
    /// What the consumer produces.
    type Result: Send;

    /// Splits into a consumer for the items before `index`, one for the rest, and the reducer
    /// that combines their results (left first).
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// Turns the consumer into its sequential folder.
    fn into_folder(self) -> Self::Folder;

    /// Whether no more items are wanted (an answer is known): the splitter stops feeding.
    fn full(&self) -> bool;

    // The crate's item-by-item adaptors pass `SPLITS_FOLDER`, `split_folder` and
    // `RIGHT_FIRST` on through one consumer type (`adaptors::item_wise::ItemWise`): the
    // defaults below would compile in an adaptor that forgot them.

    /// Whether [`split_folder`](Consumer::split_folder) is implemented. *forkjoin's addition
    /// to rayon's interface*, which consumers written for rayon need not know: they keep the
    /// default, and the splitter then gives every chunk a folder of its own.
    const SPLITS_FOLDER: bool = false;

    /// *forkjoin's addition to rayon's interface.* Splits a folder that is already running:
    /// `folder` will take at most `keep` more items (an indexed consumer counts them; others
    /// may ignore the number), and the returned consumer takes everything after those,
    /// its result joined to the folder's by the returned reducer (folder's result left).
    ///
    /// The splitter folds a run of items in chunks into one folder and decides to share the
    /// rest only between two chunks, so the folder must be able to hand off its future. With
    /// it, a `fold` or `map_init` gets one accumulator per piece a thief actually took, not
    /// one per chunk. Called only if [`SPLITS_FOLDER`](Consumer::SPLITS_FOLDER) is true.
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, Self::Reducer) {
        let _ = (folder, keep);
        panic!("Consumer::split_folder called on a consumer whose SPLITS_FOLDER is false")
    }

    /// *forkjoin's addition to rayon's interface.* Whether the consumer wants the last items
    /// first: once it has a result from the right end, everything to its left is useless
    /// (`find_last`, `position_last`). The splitter then runs the rightmost pieces first,
    /// and a running piece halves its rest and goes on with the right half, down to its
    /// chunk length, instead of folding from the left; so the right end of a huge (or
    /// endless-looking) iterator is reached at once and `full` stops the rest.
    ///
    /// Only the order in which pieces run changes: each piece is still folded front to
    /// back by a folder of its own and the results are reduced left before right, so any
    /// consumer stays correct with either value. Adaptors that wrap a consumer item by item
    /// (`map`, `filter`, `flat_map`, ...) pass their base's value on.
    const RIGHT_FIRST: bool = false;
}

/// The sequential part of a consumer: takes items one at a time (or an iterator of them)
/// and gives a result when done.
pub trait Folder<Item>: Sized {
    /// What the folder produces.
    type Result;

    /// Takes one item.
    fn consume(self, item: Item) -> Self;

    /// Takes items from `iter` until it ends or the folder is full.
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// The result of everything taken.
    fn complete(self) -> Self::Result;

    /// Whether no more items are wanted.
    fn full(&self) -> bool;
}

/// Combines the results of two adjacent pieces (left, then right).
pub trait Reducer<Result> {
    /// The combined result.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A consumer that can also be split without an index, for items whose count is not known
/// in advance (after `filter`, `flat_map`, or from an [`UnindexedProducer`]).
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// Returns a consumer for a left part of the items; `self` then takes the part to its
    /// right. (The consumer as it was before this call takes all of them.)
    fn split_off_left(&self) -> Self;

    /// The reducer combining the left part's result with the right's.
    fn to_reducer(&self) -> Self::Reducer;
}

/// The source of a parallel iterator that cannot split at an index, only in two parts of
/// whatever sizes it can manage (a tree walk, a shared sequential iterator).
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;

    /// Splits in two if it can; `None` for the second part if not.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item to `folder`.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}

/// Drives an indexed parallel iterator into `consumer`: takes its producer and runs
/// [`bridge_producer_consumer`]. The usual body of `drive` and `drive_unindexed` for an
/// iterator that has a producer.
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
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    splitter::drive_unindexed(producer, consumer)
}
