//! `while_some`: the items up to the first `None` (in no particular order: once any piece
//! meets a `None`, every piece stops at its next item).

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// `while_some`. See [`ParallelIterator::while_some`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(crate) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        let stopped = AtomicBool::new(false);
        let consumer = WhileSomeConsumer {
            base: consumer,
            stopped: &stopped,
        };
        self.base.drive_unindexed(consumer)
    }
}

struct WhileSomeConsumer<'f, C> {
    base: C,
    stopped: &'f AtomicBool,
}

impl<'f, T, C> Consumer<Option<T>> for WhileSomeConsumer<'f, C>
where
    C: Consumer<T>,
    T: Send,
{
    type Folder = WhileSomeConsumer<'f, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            WhileSomeConsumer { base: left, ..self },
            WhileSomeConsumer {
                base: right,
                ..self
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        WhileSomeConsumer {
            base: self.base.into_folder(),
            stopped: self.stopped,
        }
    }

    fn full(&self) -> bool {
        // Relaxed: a hint to stop; nothing is published through it.
        self.stopped.load(Relaxed) || self.base.full()
    }

    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;

    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, C::Reducer) {
        let (base, reducer) = C::split_folder(&mut folder.base, keep);
        let consumer = WhileSomeConsumer {
            base,
            stopped: folder.stopped,
        };
        (consumer, reducer)
    }
}

impl<'f, T, C> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'f, C>
where
    C: UnindexedConsumer<T>,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            ..*self
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<'f, T, C> Folder<Option<T>> for WhileSomeConsumer<'f, C>
where
    C: Folder<T>,
{
    type Result = C::Result;

    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(item) => self.base = self.base.consume(item),
            // Relaxed: see `full`.
            None => self.stopped.store(true, Relaxed),
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = Option<T>>>(mut self, iter: I) -> Self {
        let stopped = self.stopped;
        let items = iter.into_iter().map_while(|item| {
            // Relaxed: see `full`.
            if item.is_none() {
                stopped.store(true, Relaxed);
            }
            if stopped.load(Relaxed) {
                None
            } else {
                item
            }
        });
        self.base = self.base.consume_iter(items);
        self
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        // Relaxed: see `full` above.
        self.stopped.load(Relaxed) || self.base.full()
    }
}
