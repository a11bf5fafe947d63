//! `with_min_len` and `with_max_len`: bounds on the pieces the splitter makes (producer
//! side: they only change what `Producer::min_len`/`max_len` report).

use crate::iter::plumbing::{
    bridge, Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `with_min_len`. See [`IndexedParallelIterator::with_min_len`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

impl<I> MinLen<I> {
    #[inline]
    pub(crate) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

/// `with_max_len`. See [`IndexedParallelIterator::with_max_len`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MaxLen<I> {
    #[inline]
    pub(crate) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

/// Which bound.
#[derive(Clone, Copy)]
enum Bound {
    Min(usize),
    Max(usize),
}

macro_rules! bound_adaptor {
    ($name:ident, |$this:ident| $bound:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            #[inline]
            fn len(&self) -> usize {
                self.base.len()
            }

            #[inline]
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            #[inline]
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let $this = &self;
                let bound = $bound;
                self.base.with_producer(Callback { callback, bound })
            }
        }
    };
}

bound_adaptor!(MinLen, |this| Bound::Min(this.min));
bound_adaptor!(MaxLen, |this| Bound::Max(this.max));

struct Callback<CB> {
    callback: CB,
    bound: Bound,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
    type Output = CB::Output;
    #[inline]
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(BoundProducer {
            base,
            bound: self.bound,
        })
    }
}

struct BoundProducer<P> {
    base: P,
    bound: Bound,
}

impl<P: Producer> Producer for BoundProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    #[inline]
    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    #[inline]
    fn min_len(&self) -> usize {
        match self.bound {
            Bound::Min(min) => self.base.min_len().max(min),
            Bound::Max(_) => self.base.min_len(),
        }
    }

    #[inline]
    fn max_len(&self) -> usize {
        match self.bound {
            Bound::Min(_) => self.base.max_len(),
            Bound::Max(max) => self.base.max_len().min(max),
        }
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            BoundProducer {
                base: left,
                bound: self.bound,
            },
            BoundProducer {
                base: right,
                bound: self.bound,
            },
        )
    }

    #[inline]
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
