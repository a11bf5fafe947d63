//! `flatten` and `flatten_iter`: `flat_map` and `flat_map_iter` with the items themselves
//! as the inner iterators.

use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// `flatten`. See [`ParallelIterator::flatten`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator<Item: IntoParallelIterator>,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        self.base
            .flat_map(std::convert::identity)
            .drive_unindexed(consumer)
    }
}

/// `flatten_iter`. See [`ParallelIterator::flatten_iter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator<Item: IntoIterator<Item: Send>>,
{
    type Item = <I::Item as IntoIterator>::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        self.base
            .flat_map_iter(std::convert::identity)
            .drive_unindexed(consumer)
    }
}
