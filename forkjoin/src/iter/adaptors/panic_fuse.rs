//! `panic_fuse`: once any piece of work panics, every other piece stops at its next item.
//!
//! Every consumer, folder and producer piece carries a [`Fuse`]: dropped while its thread
//! unwinds, it blows, and a blown fuse makes every consumer and folder of the iterator
//! report itself full, so the splitter feeds them nothing more.

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread;

/// `panic_fuse`. See [`ParallelIterator::panic_fuse`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// A shared flag that a panicking thread sets when it drops its copy.
#[derive(Clone)]
struct Fuse<'a>(&'a AtomicBool);

impl Fuse<'_> {
    #[inline]
    fn blown(&self) -> bool {
        // Relaxed: a hint to stop; the panic itself reaches the caller through the join.
        self.0.load(Relaxed)
    }
}

impl Drop for Fuse<'_> {
    #[inline]
    fn drop(&mut self) {
        if thread::panicking() {
            // Relaxed: see `blown`.
            self.0.store(true, Relaxed);
        }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let panicked = AtomicBool::new(false);
        let consumer = ItemWise::new(consumer, Fuse(&panicked));
        self.base.drive_unindexed(consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    #[inline]
    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        let consumer = ItemWise::new(consumer, Fuse(&panicked));
        self.base.drive(consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB>(CB);

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            #[inline]
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let panicked = AtomicBool::new(false);
                self.0.callback(FuseProducer {
                    base,
                    fuse: Fuse(&panicked),
                })
            }
        }

        self.base.with_producer(Callback(callback))
    }
}

struct FuseProducer<'a, P> {
    base: P,
    fuse: Fuse<'a>,
}

impl<'a, P: Producer> Producer for FuseProducer<'a, P> {
    type Item = P::Item;
    type IntoIter = FuseIter<'a, P::IntoIter>;

    // An adaptor above this one (`rev`, say) may drain the iterator itself rather than
    // call `fold_with`: the iterator checks the fuse too.
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        FuseIter {
            base: self.base.into_iter(),
            fuse: self.fuse,
        }
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let fuse = self.fuse.clone();
        (
            FuseProducer { base: left, fuse },
            FuseProducer {
                base: right,
                fuse: self.fuse,
            },
        )
    }

    #[inline]
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        let folder = FuseFolder {
            base: folder,
            fuse: self.fuse,
        };
        self.base.fold_with(folder).base
    }
}

/// A producer piece's items, ending early once the fuse is blown.
struct FuseIter<'a, I> {
    base: I,
    fuse: Fuse<'a>,
}

impl<I: Iterator> Iterator for FuseIter<'_, I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.fuse.blown() {
            return None;
        }
        self.base.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for FuseIter<'_, I> {
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        if self.fuse.blown() {
            return None;
        }
        self.base.next_back()
    }
}

// The length is the base's: a blown fuse ends the iteration early only while the iterator's
// thread or another one is panicking, and the panic reaches the caller (as rayon's).
impl<I: ExactSizeIterator> ExactSizeIterator for FuseIter<'_, I> {}

/// The part of a fused iterator's consumer is its fuse.
impl<'a, T> ItemOp<T> for Fuse<'a> {
    type Out = T;
    type Folder<F: Folder<T>> = FuseFolder<'a, F>;

    #[inline]
    fn split_left(&self) -> Self {
        self.clone()
    }

    #[inline]
    fn into_folder<F: Folder<T>>(self, base: F) -> Self::Folder<F> {
        FuseFolder { base, fuse: self }
    }

    #[inline]
    fn base_folder<F: Folder<T>>(folder: &mut Self::Folder<F>) -> &mut F {
        &mut folder.base
    }

    #[inline]
    fn split_folder<F: Folder<T>>(folder: &Self::Folder<F>) -> Self {
        folder.fuse.clone()
    }

    #[inline]
    fn stopped(&self) -> bool {
        self.blown()
    }
}

/// The folder of a fused iterator.
struct FuseFolder<'a, F> {
    base: F,
    fuse: Fuse<'a>,
}

impl<T, F: Folder<T>> Folder<T> for FuseFolder<'_, F> {
    type Result = F::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        FuseFolder {
            base: self.base.consume(item),
            fuse: self.fuse,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let fuse = self.fuse;
        let items = iter.into_iter().take_while(|_| !fuse.blown());
        FuseFolder {
            base: self.base.consume_iter(items),
            fuse,
        }
    }

    #[inline]
    fn complete(self) -> F::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.fuse.blown() || self.base.full()
    }
}
