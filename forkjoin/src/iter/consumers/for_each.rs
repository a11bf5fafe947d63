//! `for_each`.

use super::NoopReducer;
use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;

#[inline]
pub(crate) fn for_each<I, F, T>(pi: I, op: &F)
where
    I: ParallelIterator<Item = T>,
    F: Fn(T) + Sync,
    T: Send,
{
    pi.drive_unindexed(ForEachConsumer { op })
}

/// Runs `op` on every item. With `op` = `drop`, it runs a producer only for the side
/// effects of the closures that make its items (`skip`'s skipped items, as rayon runs
/// them); over a producer without side effects (a plain range) that loop compiles to nothing.
pub(crate) struct ForEachConsumer<'f, F> {
    pub(crate) op: &'f F,
}

impl<F> Clone for ForEachConsumer<'_, F> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for ForEachConsumer<'_, F> {}

impl<'f, F, T> Consumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (self, self, NoopReducer)
    }

    #[inline]
    fn into_folder(self) -> Self {
        self
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self, _keep: usize) -> (Self, NoopReducer) {
        (*folder, NoopReducer)
    }
}

impl<'f, F, T> Folder<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Result = ();

    #[inline]
    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(self.op);
        self
    }

    #[inline]
    fn complete(self) {}

    #[inline]
    fn full(&self) -> bool {
        false
    }
}

impl<'f, F, T> UnindexedConsumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        *self
    }

    #[inline]
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
