//! `chain`: one iterator's items, then another's. Unindexed, the two halves are driven
//! side by side through a `join` (the second one shared only if a worker asks); indexed,
//! a producer spans both.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use crate::iter::splitter::join_in_order;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `chain`. See [`ParallelIterator::chain`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    #[inline]
    pub(crate) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let Chain { a, b } = self;
        // With a known length on the left, split at it: an indexed consumer (collecting
        // straight into place) cannot split without an index.
        let (left, right, reducer) = match a.opt_len() {
            Some(len) => consumer.split_at(len),
            None => {
                let left = consumer.split_off_left();
                let reducer = consumer.to_reducer();
                (left, consumer, reducer)
            }
        };
        let (l, r) = join_in_order(
            C::RIGHT_FIRST,
            move || a.drive_unindexed(left),
            move || b.drive_unindexed(right),
        );
        reducer.reduce(l, r)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    #[inline]
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: the total length overflows usize")
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        let (left, right, reducer) = consumer.split_at(a.len());
        let (l, r) = join_in_order(
            C::RIGHT_FIRST,
            move || a.drive(left),
            move || b.drive(right),
        );
        reducer.reduce(l, r)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        return self.a.with_producer(CallbackA {
            callback,
            a_len,
            b: self.b,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            a_len: usize,
            b: B,
        }

        impl<CB, B> ProducerCallback<B::Item> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;
            #[inline]
            fn callback<PA: Producer<Item = B::Item>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a_len: self.a_len,
                    a,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a_len: usize,
            a: PA,
        }

        impl<CB, PA> ProducerCallback<PA::Item> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;
            #[inline]
            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                self.callback.callback(ChainProducer {
                    a_len: self.a_len,
                    a: self.a,
                    b,
                })
            }
        }
    }
}

/// A producer over `a`'s items then `b`'s; either may be empty after a split.
struct ChainProducer<A, B> {
    a_len: usize,
    a: A,
    b: B,
}

impl<A, B> Producer for ChainProducer<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = ChainSeq<A::IntoIter, B::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        ChainSeq {
            chain: self.a.into_iter().chain(self.b.into_iter()),
        }
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            (
                ChainProducer {
                    a_len: index,
                    a: a_left,
                    b: b_left,
                },
                ChainProducer {
                    a_len: self.a_len - index,
                    a: a_right,
                    b: b_right,
                },
            )
        } else {
            let (a_left, a_right) = self.a.split_at(self.a_len);
            let (b_left, b_right) = self.b.split_at(index - self.a_len);
            (
                ChainProducer {
                    a_len: self.a_len,
                    a: a_left,
                    b: b_left,
                },
                ChainProducer {
                    a_len: 0,
                    a: a_right,
                    b: b_right,
                },
            )
        }
    }
}

/// `std::iter::Chain`, which is not `ExactSizeIterator`, with the exact length restored.
struct ChainSeq<A, B> {
    chain: std::iter::Chain<A, B>,
}

impl<A, B> Iterator for ChainSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        self.chain.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chain.size_hint()
    }

    #[inline]
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, f: F) -> Acc {
        self.chain.fold(init, f)
    }
}

impl<A, B> DoubleEndedIterator for ChainSeq<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    #[inline]
    fn next_back(&mut self) -> Option<A::Item> {
        self.chain.next_back()
    }
}

impl<A, B> ExactSizeIterator for ChainSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
