//! `skip` and `take`: the producer is split once, at the start, and the unwanted part
//! dropped (an owning producer drops its items then).

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `skip`. See [`IndexedParallelIterator::skip`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

/// `take`. See [`IndexedParallelIterator::take`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

/// Splits the base's producer at `n` and hands on the left part (`take`) or the right
/// (`skip`).
struct Callback<CB> {
    callback: CB,
    n: usize,
    keep_left: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (left, right) = base.split_at(self.n);
        if self.keep_left {
            drop(right);
            self.callback.callback(left)
        } else {
            drop(left);
            self.callback.callback(right)
        }
    }
}

macro_rules! split_once {
    ($name:ident, |$this:ident| $len:expr, $keep_left:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn len(&self) -> usize {
                let $this = self;
                $len
            }

            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                self.base.with_producer(Callback {
                    callback,
                    n: self.n,
                    keep_left: $keep_left,
                })
            }
        }
    };
}

split_once!(Skip, |this| this.base.len() - this.n, false);
split_once!(Take, |this| this.n, true);
