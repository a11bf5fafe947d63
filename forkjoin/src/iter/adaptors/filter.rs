//! `filter` and `filter_map`: consumer-side only, so the result is not indexed (its length
//! is not known in advance), as in rayon.

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
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

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let consumer = Filtering {
            base: consumer,
            op: KeepIf(&self.filter_op),
        };
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> FilterMap<I, P> {
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

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let consumer = Filtering {
            base: consumer,
            op: MapIf(&self.filter_op),
        };
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

pub(crate) struct Filtering<C, S> {
    base: C,
    op: S,
}

impl<C, S> Filtering<C, S> {
    pub(crate) fn new(base: C, op: S) -> Self {
        Filtering { base, op }
    }
}

impl<T, C, S> Consumer<T> for Filtering<C, S>
where
    S: Selection<T>,
    C: Consumer<S::Out>,
{
    type Folder = Filtering<C::Folder, S>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            Filtering {
                base: left,
                op: self.op,
            },
            Filtering {
                base: right,
                op: self.op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        Filtering {
            base: self.base.into_folder(),
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.op.done() || self.base.full()
    }

    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;
    const RIGHT_FIRST: bool = C::RIGHT_FIRST;

    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, C::Reducer) {
        let (base, reducer) = C::split_folder(&mut folder.base, keep);
        (
            Filtering {
                base,
                op: folder.op,
            },
            reducer,
        )
    }
}

impl<T, C, S> UnindexedConsumer<T> for Filtering<C, S>
where
    S: Selection<T>,
    C: UnindexedConsumer<S::Out>,
{
    fn split_off_left(&self) -> Self {
        Filtering {
            base: self.base.split_off_left(),
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
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

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.op.done() || self.base.full()
    }
}
