//! `while_some`: the items up to the first `None` (in no particular order: once any piece
//! meets a `None`, every piece stops at its next item).

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// `while_some`. See [`ParallelIterator::while_some`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    #[inline]
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

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        let stopped = AtomicBool::new(false);
        let consumer = ItemWise::new(consumer, WhileSomeOp(&stopped));
        self.base.drive_unindexed(consumer)
    }
}

/// The part of `while_some`'s consumer: the flag set once any piece has met a `None`.
struct WhileSomeOp<'f>(&'f AtomicBool);

impl<'f, T> ItemOp<Option<T>> for WhileSomeOp<'f> {
    type Out = T;
    type Folder<F: Folder<T>> = WhileSomeFolder<'f, F>;

    #[inline]
    fn split_left(&self) -> Self {
        WhileSomeOp(self.0)
    }

    #[inline]
    fn into_folder<F: Folder<T>>(self, base: F) -> Self::Folder<F> {
        WhileSomeFolder {
            base,
            stopped: self.0,
        }
    }

    #[inline]
    fn base_folder<F: Folder<T>>(folder: &mut Self::Folder<F>) -> &mut F {
        &mut folder.base
    }

    #[inline]
    fn split_folder<F: Folder<T>>(folder: &Self::Folder<F>) -> Self {
        WhileSomeOp(folder.stopped)
    }

    #[inline]
    fn stopped(&self) -> bool {
        // Relaxed: a hint to stop; nothing is published through it.
        self.0.load(Relaxed)
    }
}

struct WhileSomeFolder<'f, F> {
    base: F,
    stopped: &'f AtomicBool,
}

impl<'f, T, F> Folder<Option<T>> for WhileSomeFolder<'f, F>
where
    F: Folder<T>,
{
    type Result = F::Result;

    #[inline]
    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(item) => self.base = self.base.consume(item),
            // Relaxed: see `WhileSomeOp::stopped`.
            None => self.stopped.store(true, Relaxed),
        }
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = Option<T>>>(mut self, iter: I) -> Self {
        let stopped = self.stopped;
        let items = iter.into_iter().map_while(|item| {
            // Relaxed: see `WhileSomeOp::stopped`.
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

    #[inline]
    fn complete(self) -> F::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        // Relaxed: see `WhileSomeOp::stopped`.
        self.stopped.load(Relaxed) || self.base.full()
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use std::sync::Mutex;

    /// A search from the right through `while_some` runs right first, as its base does: on
    /// one worker the first item folded is the last, and its match stops everything else.
    #[test]
    fn find_last_searches_from_the_right() {
        let pool = crate::Pool::new(1).unwrap();
        let seen = Mutex::new(Vec::new());
        let last = pool.install(|| {
            (0..1000u32)
                .into_par_iter()
                .map(Some)
                .while_some()
                .find_last(|&x| {
                    seen.lock().unwrap().push(x);
                    true
                })
        });
        assert_eq!(last, Some(999));
        assert_eq!(*seen.lock().unwrap(), [999]);
    }
}
