//! `cloned`, `copied` and `inspect`: item-by-item adaptors that keep the iterator indexed.
//! One producer, consumer and folder serve all three, parameterised by a `Step`.

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// `cloned`: clones referenced items. See [`ParallelIterator::cloned`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Cloned<I> {
    base: I,
}

impl<I> Cloned<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        Cloned { base }
    }
}

/// `copied`: copies referenced items. See [`ParallelIterator::copied`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Copied<I> {
    base: I,
}

impl<I> Copied<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        Copied { base }
    }
}

/// `inspect`: calls a function on a reference to every item. See
/// [`ParallelIterator::inspect`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Inspect<I, F> {
    base: I,
    inspect_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Inspect<I, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inspect").field("base", &self.base).finish()
    }
}

impl<I, F> Inspect<I, F> {
    #[inline]
    pub(crate) fn new(base: I, inspect_op: F) -> Self {
        Inspect { base, inspect_op }
    }
}

/// One item in, one item out.
pub(crate) trait Step<In>: Copy + Send + Sync {
    type Out: Send;
    /// The sequential iterator of a producer with this step over `I`: std's `Cloned` and
    /// `Copied` for `cloned` and `copied`, as in rayon, else `StepIter`. It matters to a
    /// `zip` of unequal lengths: std's `Zip` takes one item past the shorter side's end
    /// from the longer side (running its closures) unless that side is random-access, as
    /// `Cloned` and `Copied` of a slice iterator are and `StepIter` cannot be.
    type Iter<I: DoubleEndedIterator<Item = In> + ExactSizeIterator>: DoubleEndedIterator<Item = Self::Out>
        + ExactSizeIterator;
    fn apply(self, item: In) -> Self::Out;
    fn iter<I: DoubleEndedIterator<Item = In> + ExactSizeIterator>(self, base: I) -> Self::Iter<I>;
}

/// `Step::Iter` and `Step::iter` of a step whose sequential iterator is a `StepIter`.
macro_rules! step_iter {
    ($in:ty) => {
        type Iter<I: DoubleEndedIterator<Item = $in> + ExactSizeIterator> = StepIter<I, Self>;
        #[inline]
        fn iter<I: DoubleEndedIterator<Item = $in> + ExactSizeIterator>(
            self,
            base: I,
        ) -> StepIter<I, Self> {
            StepIter::new(base, self)
        }
    };
}
pub(crate) use step_iter;

#[derive(Clone, Copy)]
pub(crate) struct CloneStep;
#[derive(Clone, Copy)]
pub(crate) struct CopyStep;
pub(crate) struct InspectStep<'f, F>(&'f F);

impl<F> Clone for InspectStep<'_, F> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for InspectStep<'_, F> {}

impl<'a, T: 'a + Clone + Send> Step<&'a T> for CloneStep {
    type Out = T;
    type Iter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator> = std::iter::Cloned<I>;
    #[inline(always)]
    fn apply(self, item: &'a T) -> T {
        item.clone()
    }
    #[inline]
    fn iter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>(
        self,
        base: I,
    ) -> Self::Iter<I> {
        base.cloned()
    }
}

impl<'a, T: 'a + Copy + Send> Step<&'a T> for CopyStep {
    type Out = T;
    type Iter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator> = std::iter::Copied<I>;
    #[inline(always)]
    fn apply(self, item: &'a T) -> T {
        *item
    }
    #[inline]
    fn iter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>(
        self,
        base: I,
    ) -> Self::Iter<I> {
        base.copied()
    }
}

impl<T: Send, F: Fn(&T) + Sync> Step<T> for InspectStep<'_, F> {
    type Out = T;
    step_iter!(T);
    #[inline(always)]
    fn apply(self, item: T) -> T {
        (self.0)(&item);
        item
    }
}

macro_rules! step_adaptor {
    ([$($g:tt)*] $name:ty => $out:ty, [$($w:tt)*], |$b:ident| $parts:pat => $step:expr) => {
        impl<$($g)*> ParallelIterator for $name
        where
            $($w)*
        {
            type Item = $out;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<$out>,
            {
                let $parts = self;
                let step = $step;
                $b.drive_unindexed(ItemWise::new(consumer, StepOp(step)))
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<$($g)*> IndexedParallelIterator for $name
        where
            I: IndexedParallelIterator,
            $($w)*
        {
            #[inline]
            fn len(&self) -> usize {
                self.base.len()
            }

            #[inline]
            fn drive<C: Consumer<$out>>(self, consumer: C) -> C::Result {
                let $parts = self;
                let step = $step;
                $b.drive(ItemWise::new(consumer, StepOp(step)))
            }

            #[inline]
            fn with_producer<CB: ProducerCallback<$out>>(self, callback: CB) -> CB::Output {
                let $parts = self;
                let step = $step;
                $b.with_producer(StepCallback { callback, step })
            }
        }
    };
}

step_adaptor!(['a, I, T] Cloned<I> => T,
    [I: ParallelIterator<Item = &'a T>, T: 'a + Clone + Send + Sync], |base| Cloned { base } => CloneStep);
step_adaptor!(['a, I, T] Copied<I> => T,
    [I: ParallelIterator<Item = &'a T>, T: 'a + Copy + Send + Sync], |base| Copied { base } => CopyStep);
step_adaptor!([I, F] Inspect<I, F> => I::Item,
    [I: ParallelIterator, F: Fn(&I::Item) + Sync + Send],
    |base| Inspect { base, inspect_op } => InspectStep(&inspect_op));

pub(crate) use step_adaptor;

pub(crate) struct StepCallback<CB, S> {
    pub(crate) callback: CB,
    pub(crate) step: S,
}

impl<In, CB, S> ProducerCallback<In> for StepCallback<CB, S>
where
    S: Step<In>,
    CB: ProducerCallback<S::Out>,
{
    type Output = CB::Output;

    #[inline]
    fn callback<P: Producer<Item = In>>(self, base: P) -> CB::Output {
        self.callback.callback(StepProducer {
            base,
            step: self.step,
        })
    }
}

struct StepProducer<P, S> {
    base: P,
    step: S,
}

impl<P, S> Producer for StepProducer<P, S>
where
    P: Producer,
    S: Step<P::Item>,
{
    type Item = S::Out;
    type IntoIter = S::Iter<P::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.step.iter(self.base.into_iter())
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
            StepProducer {
                base: left,
                step: self.step,
            },
            StepProducer {
                base: right,
                step: self.step,
            },
        )
    }

    #[inline]
    fn fold_with<G: Folder<S::Out>>(self, folder: G) -> G {
        let folder = Stepping {
            base: folder,
            step: self.step,
        };
        self.base.fold_with(folder).base
    }
}

/// The sequential iterator of a `StepProducer` whose step has no std iterator.
pub(crate) struct StepIter<I, S> {
    base: I,
    step: S,
}

impl<I, S> StepIter<I, S> {
    #[inline]
    pub(crate) fn new(base: I, step: S) -> Self {
        StepIter { base, step }
    }
}

impl<I: Iterator, S: Step<I::Item>> Iterator for StepIter<I, S> {
    type Item = S::Out;

    #[inline]
    fn next(&mut self) -> Option<S::Out> {
        self.base.next().map(|x| self.step.apply(x))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }

    #[inline]
    fn fold<B, G: FnMut(B, S::Out) -> B>(self, init: B, mut g: G) -> B {
        let step = self.step;
        self.base.fold(init, move |acc, x| g(acc, step.apply(x)))
    }
}

impl<I: DoubleEndedIterator, S: Step<I::Item>> DoubleEndedIterator for StepIter<I, S> {
    #[inline]
    fn next_back(&mut self) -> Option<S::Out> {
        self.base.next_back().map(|x| self.step.apply(x))
    }
}

impl<I: ExactSizeIterator, S: Step<I::Item>> ExactSizeIterator for StepIter<I, S> {}

/// The part of a step adaptor's consumer: its step.
#[derive(Clone, Copy)]
pub(crate) struct StepOp<S>(pub(crate) S);

impl<In, S: Step<In>> ItemOp<In> for StepOp<S> {
    type Out = S::Out;
    type Folder<F: Folder<S::Out>> = Stepping<F, S>;

    #[inline]
    fn split_left(&self) -> Self {
        *self
    }

    #[inline]
    fn into_folder<F: Folder<S::Out>>(self, base: F) -> Self::Folder<F> {
        Stepping { base, step: self.0 }
    }

    #[inline]
    fn base_folder<F: Folder<S::Out>>(folder: &mut Self::Folder<F>) -> &mut F {
        &mut folder.base
    }

    #[inline]
    fn split_folder<F: Folder<S::Out>>(folder: &Self::Folder<F>) -> Self {
        StepOp(folder.step)
    }
}

/// The folder of a step adaptor.
pub(crate) struct Stepping<F, S> {
    base: F,
    step: S,
}

impl<In, F, S> Folder<In> for Stepping<F, S>
where
    S: Step<In>,
    F: Folder<S::Out>,
{
    type Result = F::Result;

    #[inline]
    fn consume(self, item: In) -> Self {
        Stepping {
            base: self.base.consume(self.step.apply(item)),
            step: self.step,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = In>>(self, iter: I) -> Self {
        let step = self.step;
        Stepping {
            base: self
                .base
                .consume_iter(iter.into_iter().map(move |x| step.apply(x))),
            step,
        }
    }

    #[inline]
    fn complete(self) -> F::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}
