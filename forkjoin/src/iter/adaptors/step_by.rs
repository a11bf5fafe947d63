//! `step_by`: every `step`-th item (producer-side: a piece of `k` items covers `k * step`
//! items of the base).

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `step_by`. See [`IndexedParallelIterator::step_by`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    #[inline]
    pub(crate) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: the step must not be zero");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
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

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    #[inline]
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB> {
            callback: CB,
            step: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            #[inline]
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(StepByProducer {
                    base,
                    step: self.step,
                    len: self.len,
                })
            }
        }

        let len = self.base.len();
        let step = self.step;
        self.base.with_producer(Callback {
            callback,
            step,
            len,
        })
    }
}

struct StepByProducer<P> {
    base: P,
    step: usize,
    /// Items of the base this producer covers.
    len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let elem = (index * self.step).min(self.len);
        let (left, right) = self.base.split_at(elem);
        (
            StepByProducer {
                base: left,
                step: self.step,
                len: elem,
            },
            StepByProducer {
                base: right,
                step: self.step,
                len: self.len - elem,
            },
        )
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.base.max_len() / self.step
    }
}
