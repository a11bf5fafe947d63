//! `zip`: pairs the items of two indexed iterators (producer-side: both producers split
//! at the same index). As long as the shorter one.

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `zip`. See [`IndexedParallelIterator::zip`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    #[inline]
    pub(crate) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

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

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    #[inline]
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB> {
            callback: CB,
        }

        impl<CB, TA, TB> PairCallback<TA, TB> for Callback<CB>
        where
            CB: ProducerCallback<(TA, TB)>,
        {
            type Output = CB::Output;
            #[inline]
            fn callback<PA, PB>(self, a: PA, b: PB) -> CB::Output
            where
                PA: Producer<Item = TA>,
                PB: Producer<Item = TB>,
            {
                // Not cut to the common length, as in rayon: the longer producer's extra
                // items stay in the last piece, where `std::iter::Zip` decides which of
                // them run (a reversed zip runs them all, trimming from the back), and an
                // owning producer drops them with that piece.
                self.callback.callback(ZipProducer { a, b })
            }
        }

        with_producers(self.a, self.b, Callback { callback })
    }
}

/// Receives the producers of two indexed iterators ([`with_producers`]).
pub(crate) trait PairCallback<TA, TB> {
    type Output;
    fn callback<PA, PB>(self, a: PA, b: PB) -> Self::Output
    where
        PA: Producer<Item = TA>,
        PB: Producer<Item = TB>;
}

/// Calls `callback` with the producers of `a` and `b`, for adaptors that combine two
/// indexed iterators (`zip`, `interleave`).
#[inline]
pub(crate) fn with_producers<A, B, CB>(a: A, b: B, callback: CB) -> CB::Output
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
    CB: PairCallback<A::Item, B::Item>,
{
    struct CallbackA<CB, B> {
        callback: CB,
        b: B,
    }

    impl<CB, TA, B> ProducerCallback<TA> for CallbackA<CB, B>
    where
        B: IndexedParallelIterator,
        CB: PairCallback<TA, B::Item>,
    {
        type Output = CB::Output;
        #[inline]
        fn callback<PA: Producer<Item = TA>>(self, a: PA) -> CB::Output {
            self.b.with_producer(CallbackB {
                callback: self.callback,
                a,
            })
        }
    }

    struct CallbackB<CB, PA> {
        callback: CB,
        a: PA,
    }

    impl<CB, PA, TB> ProducerCallback<TB> for CallbackB<CB, PA>
    where
        PA: Producer,
        CB: PairCallback<PA::Item, TB>,
    {
        type Output = CB::Output;
        #[inline]
        fn callback<PB: Producer<Item = TB>>(self, b: PB) -> CB::Output {
            self.callback.callback(self.a, b)
        }
    }

    a.with_producer(CallbackA { callback, b })
}

struct ZipProducer<A, B> {
    a: A,
    b: B,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = std::iter::Zip<A::IntoIter, B::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
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
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
            },
        )
    }
}
