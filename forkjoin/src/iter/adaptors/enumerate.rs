//! `enumerate`: pairs every item with its position (producer-side: each piece knows the
//! position of its first item).

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::iter::Zip;
use std::ops::Range;

/// `enumerate`. See [`IndexedParallelIterator::enumerate`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);

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

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
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
        struct Callback<CB>(CB);

        impl<T, CB: ProducerCallback<(usize, T)>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            #[inline]
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.0.callback(EnumerateProducer { base, offset: 0 })
            }
        }

        self.base.with_producer(Callback(callback))
    }
}

struct EnumerateProducer<P> {
    base: P,
    offset: usize,
}

impl<P: Producer> Producer for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = Zip<Range<usize>, P::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        let base = self.base.into_iter();
        // The length is exact, so the positions end where the items do (and `next_back`
        // pairs the last item with the last position).
        let end = self.offset + base.len();
        (self.offset..end).zip(base)
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
        (
            EnumerateProducer {
                base: left,
                offset: self.offset,
            },
            EnumerateProducer {
                base: right,
                offset: self.offset + index,
            },
        )
    }
}
