//! `filter` and `filter_map`: consumer-side only, so the result is not indexed (its length
//! is not known in advance), as in rayon.

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::fmt;

/// `filter`: keeps the items a predicate accepts. See [`ParallelIterator::filter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    #[inline]
    pub(crate) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let consumer = ItemWise::new(consumer, FilterOp(KeepIf(&self.filter_op)));
        self.base.drive_unindexed(consumer)
    }
}

/// `filter_map`: maps items to options and keeps the values. See
/// [`ParallelIterator::filter_map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for FilterMap<I, P> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> FilterMap<I, P> {
    #[inline]
    pub(crate) fn new(base: I, filter_op: P) -> Self {
        FilterMap { base, filter_op }
    }
}

impl<I, P, R> ParallelIterator for FilterMap<I, P>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let consumer = ItemWise::new(consumer, FilterOp(MapIf(&self.filter_op)));
        self.base.drive_unindexed(consumer)
    }
}

/// What a filtering consumer does to a run of items: `filter`, `filter_map`, or one of the
/// `*_any` adaptors, whose choices share a state across pieces.
pub(crate) trait Selection<In>: Copy + Send {
    type Out;
    fn select(self, item: In) -> Option<Self::Out>;
    fn select_all<I: Iterator<Item = In>>(self, iter: I) -> impl Iterator<Item = Self::Out>;
    /// Whether no more items will be selected (the consumer is then full).
    #[inline]
    fn done(self) -> bool {
        false
    }
}

struct KeepIf<'p, P>(&'p P);
struct MapIf<'p, P>(&'p P);

/// `Clone` and `Copy` for wrappers of a reference to a closure (`derive` would ask the
/// closure to be `Copy`).
macro_rules! copy_ref_wrapper {
    ($($name:ident),*) => {
        $(
            impl<P> Clone for $name<'_, P> {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
            impl<P> Copy for $name<'_, P> {}
        )*
    };
}
pub(crate) use copy_ref_wrapper;

copy_ref_wrapper!(KeepIf, MapIf);

impl<T, P: Fn(&T) -> bool + Sync> Selection<T> for KeepIf<'_, P> {
    type Out = T;
    #[inline]
    fn select(self, item: T) -> Option<T> {
        (self.0)(&item).then_some(item)
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.filter(move |x| (self.0)(x))
    }
}

impl<T, R, P: Fn(T) -> Option<R> + Sync> Selection<T> for MapIf<'_, P> {
    type Out = R;
    #[inline]
    fn select(self, item: T) -> Option<R> {
        (self.0)(item)
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = R> {
        iter.filter_map(self.0)
    }
}

/// The part of a filtering adaptor's consumer: its selection.
#[derive(Clone, Copy)]
pub(crate) struct FilterOp<S>(pub(crate) S);

impl<T, S: Selection<T>> ItemOp<T> for FilterOp<S> {
    type Out = S::Out;
    type Folder<F: Folder<S::Out>> = Filtering<F, S>;

    #[inline]
    fn split_left(&self) -> Self {
        *self
    }

    #[inline]
    fn into_folder<F: Folder<S::Out>>(self, base: F) -> Self::Folder<F> {
        Filtering { base, op: self.0 }
    }

    #[inline]
    fn base_folder<F: Folder<S::Out>>(folder: &mut Self::Folder<F>) -> &mut F {
        &mut folder.base
    }

    #[inline]
    fn split_folder<F: Folder<S::Out>>(folder: &Self::Folder<F>) -> Self {
        FilterOp(folder.op)
    }

    #[inline]
    fn stopped(&self) -> bool {
        self.0.done()
    }
}

/// The folder of a filtering adaptor.
pub(crate) struct Filtering<F, S> {
    base: F,
    op: S,
}

impl<T, F, S> Folder<T> for Filtering<F, S>
where
    S: Selection<T>,
    F: Folder<S::Out>,
{
    type Result = F::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        match self.op.select(item) {
            Some(out) => Filtering {
                base: self.base.consume(out),
                op: self.op,
            },
            None => self,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        Filtering {
            base: self.base.consume_iter(self.op.select_all(iter.into_iter())),
            op: self.op,
        }
    }

    #[inline]
    fn complete(self) -> F::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.op.done() || self.base.full()
    }
}
