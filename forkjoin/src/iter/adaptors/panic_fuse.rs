//! `panic_fuse`: once any piece of work panics, every other piece stops at its next item.
//!
//! Every consumer, folder and producer piece carries a [`Fuse`]: dropped while its thread
//! unwinds, it blows, and a blown fuse makes every consumer and folder of the iterator
//! report itself full, so the splitter feeds them nothing more.

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
    pub(crate) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// A shared flag that a panicking thread sets when it drops its copy.
#[derive(Clone)]
struct Fuse<'a>(&'a AtomicBool);

impl Fuse<'_> {
    fn blown(&self) -> bool {
        // Relaxed: a hint to stop; the panic itself reaches the caller through the join.
        self.0.load(Relaxed)
    }
}

impl Drop for Fuse<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            // Relaxed: see `blown`.
            self.0.store(true, Relaxed);
        }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let panicked = AtomicBool::new(false);
        let consumer = FuseConsumer {
            base: consumer,
            fuse: Fuse(&panicked),
        };
        self.base.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        let consumer = FuseConsumer {
            base: consumer,
            fuse: Fuse(&panicked),
        };
        self.base.drive(consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB>(CB);

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
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
    fn into_iter(self) -> Self::IntoIter {
        FuseIter {
            base: self.base.into_iter(),
            fuse: self.fuse,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

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

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        let folder = FuseConsumer {
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

    fn next(&mut self) -> Option<I::Item> {
        if self.fuse.blown() {
            return None;
        }
        self.base.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for FuseIter<'_, I> {
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

/// The consumer, and (with a folder inside) the folder, of a fused iterator.
struct FuseConsumer<'a, C> {
    base: C,
    fuse: Fuse<'a>,
}

impl<'a, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'a, C> {
    type Folder = FuseConsumer<'a, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let fuse = self.fuse.clone();
        (
            FuseConsumer { base: left, fuse },
            FuseConsumer {
                base: right,
                fuse: self.fuse,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FuseConsumer {
            base: self.base.into_folder(),
            fuse: self.fuse,
        }
    }

    fn full(&self) -> bool {
        self.fuse.blown() || self.base.full()
    }

    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;
    const RIGHT_FIRST: bool = C::RIGHT_FIRST;

    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, C::Reducer) {
        let (base, reducer) = C::split_folder(&mut folder.base, keep);
        let consumer = FuseConsumer {
            base,
            fuse: folder.fuse.clone(),
        };
        (consumer, reducer)
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FuseConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        FuseConsumer {
            base: self.base.split_off_left(),
            fuse: self.fuse.clone(),
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>> Folder<T> for FuseConsumer<'_, F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        FuseConsumer {
            base: self.base.consume(item),
            fuse: self.fuse,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let fuse = self.fuse;
        let items = iter.into_iter().take_while(|_| !fuse.blown());
        FuseConsumer {
            base: self.base.consume_iter(items),
            fuse,
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.fuse.blown() || self.base.full()
    }
}
