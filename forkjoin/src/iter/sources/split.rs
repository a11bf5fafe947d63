//! `split(data, splitter)`: a parallel iterator over pieces of data the caller knows how to
//! split, as rayon's `iter::split`.

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::fmt;

/// A parallel iterator over the pieces `splitter` cuts `data` into: `splitter(d)` returns
/// `(d, None)` when `d` cannot (or should not) be split, or `(left, Some(right))`. The
/// pieces are split as the pool needs work (up to one per worker at first, more when idle
/// workers ask), and each piece the splitting leaves is one item.
///
/// ```
/// use forkjoin::iter::split;
/// use forkjoin::prelude::*;
/// use std::ops::Range;
///
/// fn halve(r: Range<usize>) -> (Range<usize>, Option<Range<usize>>) {
///     if r.len() <= 1 {
///         return (r, None);
///     }
///     let mid = r.start + r.len() / 2;
///     (r.start..mid, Some(mid..r.end))
/// }
///
/// // However the range was cut, its pieces cover it exactly once.
/// let pieces: Vec<Range<usize>> = split(0..4096, halve).collect();
/// assert_eq!(pieces.iter().map(|r| r.len()).sum::<usize>(), 4096);
/// assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
/// assert!(pieces.iter().all(|r| r.len().is_power_of_two()));
/// ```
#[inline]
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The iterator [`split()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split")
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<D>,
    {
        let producer = SplitProducer {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// One piece of the data, with the function that splits it.
struct SplitProducer<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for SplitProducer<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    #[inline]
    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        (
            SplitProducer {
                data: left,
                splitter,
            },
            right.map(|data| SplitProducer { data, splitter }),
        )
    }

    #[inline]
    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
