//! `flat_map` and `flat_map_iter`.
//!
//! `flat_map` drives every inner parallel iterator with a consumer split off the outer
//! one's left, so an inner iterator is itself split lazily when an idle worker asks (and
//! the outer loop is shared first when its rest is worth more). `flat_map_iter` feeds the
//! inner sequential iterators straight into the folder.

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::{IntoParallelIterator, ParallelIterator};
use std::fmt;
use std::mem;

/// `flat_map`. See [`ParallelIterator::flat_map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMap<I, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMap").field("base", &self.base).finish()
    }
}

impl<I, F> FlatMap<I, F> {
    #[inline]
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let consumer = FlatMapConsumer {
            base: consumer,
            map_op: &self.map_op,
        };
        self.base.drive_unindexed(consumer)
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, PI> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FlatMapConsumer {
                base: left,
                map_op: self.map_op,
            },
            FlatMapConsumer {
                base: right,
                map_op: self.map_op,
            },
            reducer,
        )
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }

    // The outer items run right first too, so that the last inner iterator (driven with a
    // part of `C`, right first as well) is the first searched.
    const RIGHT_FIRST: bool = C::RIGHT_FIRST;

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, C::Reducer) {
        // The folder's consumer stands for everything it has not produced yet: give it a
        // left part to go on with, and hand the rest away.
        let left = folder.base.split_off_left();
        let reducer = folder.base.to_reducer();
        let right = mem::replace(&mut folder.base, left);
        let consumer = FlatMapConsumer {
            base: right,
            map_op: folder.map_op,
        };
        (consumer, reducer)
    }
}

impl<'f, T, C, F, PI> UnindexedConsumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapFolder<'f, C, F, R> {
    base: C,
    map_op: &'f F,
    previous: Option<R>,
}

impl<'f, T, C, F, PI> Folder<T> for FlatMapFolder<'f, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let consumer = self.base.split_off_left();
        let result = inner.drive_unindexed(consumer);
        let previous = match self.previous {
            None => result,
            Some(previous) => self.base.to_reducer().reduce(previous, result),
        };
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: Some(previous),
        }
    }

    #[inline]
    fn complete(self) -> C::Result {
        match self.previous {
            Some(previous) => previous,
            None => self.base.into_folder().complete(),
        }
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// `flat_map_iter`. See [`ParallelIterator::flat_map_iter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMapIter<I, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FlatMapIter<I, F> {
    #[inline]
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator<Item: Send>,
{
    type Item = SI::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let consumer = ItemWise::new(consumer, FlatMapIterOp(&self.map_op));
        self.base.drive_unindexed(consumer)
    }
}

/// The part of `flat_map_iter`'s consumer: the function.
struct FlatMapIterOp<'f, F>(&'f F);

impl<'f, T, F, SI> ItemOp<T> for FlatMapIterOp<'f, F>
where
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Out = SI::Item;
    type Folder<C: Folder<SI::Item>> = FlatMapIterFolder<'f, C, F>;

    #[inline]
    fn split_left(&self) -> Self {
        FlatMapIterOp(self.0)
    }

    #[inline]
    fn into_folder<C: Folder<SI::Item>>(self, base: C) -> Self::Folder<C> {
        FlatMapIterFolder {
            base,
            map_op: self.0,
        }
    }

    #[inline]
    fn base_folder<C: Folder<SI::Item>>(folder: &mut Self::Folder<C>) -> &mut C {
        &mut folder.base
    }

    #[inline]
    fn split_folder<C: Folder<SI::Item>>(folder: &Self::Folder<C>) -> Self {
        FlatMapIterOp(folder.map_op)
    }
}

struct FlatMapIterFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, SI> Folder<T> for FlatMapIterFolder<'f, C, F>
where
    C: Folder<SI::Item>,
    F: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = C::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        FlatMapIterFolder {
            base: self.base.consume_iter((self.map_op)(item)),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        FlatMapIterFolder {
            base: self
                .base
                .consume_iter(iter.into_iter().flat_map(self.map_op)),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn complete(self) -> C::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}
