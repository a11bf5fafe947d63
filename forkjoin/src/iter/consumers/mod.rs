//! The consumers at the end of a parallel iterator: `for_each`, `sum` and `product`, the
//! reductions, the searches. (`collect` and friends are in `collect`.) Every one of them can
//! split a running folder (`Consumer::split_folder`), so the splitter keeps one folder per
//! piece a thief takes.

pub(crate) mod find;
pub(crate) mod for_each;
pub(crate) mod reduce;
pub(crate) mod sum;

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// The reducer of consumers whose pieces produce nothing.
pub(crate) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}

/// A consumer that drops its items: runs a producer for the side effects of the closures
/// that make its items (`skip`'s skipped items, as rayon runs them). Over a producer without
/// side effects (a plain range) its loop compiles to nothing.
pub(crate) struct NoopConsumer;

impl<T> Consumer<T> for NoopConsumer {
    type Folder = NoopConsumer;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (NoopConsumer, NoopConsumer, NoopReducer)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    fn split_folder(_folder: &mut Self, _keep: usize) -> (Self, NoopReducer) {
        (NoopConsumer, NoopReducer)
    }
}

impl<T> Folder<T> for NoopConsumer {
    type Result = ();

    #[inline]
    fn consume(self, _item: T) -> Self {
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(drop);
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}

impl<T> UnindexedConsumer<T> for NoopConsumer {
    fn split_off_left(&self) -> Self {
        NoopConsumer
    }

    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
