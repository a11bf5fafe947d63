//! `fold`, `fold_with`, `try_fold` and `try_fold_with`: one accumulator per piece of work,
//! handed on as one item when the piece ends. The splitter keeps one folder per piece a
//! thief takes, so a fold on a pool where nobody steals yields one accumulator per worker
//! run, not one per chunk.

use super::map::{CloneOf, MadeBy, StateSource};
use crate::iter::leaf::fold_moving;
use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::try_trait::Try;
use crate::iter::ParallelIterator;
use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

/// `fold`. See [`ParallelIterator::fold`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    #[inline]
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        let consumer = FoldConsumer {
            base: consumer,
            source: MadeBy(&self.identity),
            step: Plain(&self.fold_op),
        };
        self.base.drive_unindexed(consumer)
    }
}

/// `fold_with`. See [`ParallelIterator::fold_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldWith<I, U, F> {
    base: I,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldWith<I, U, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> FoldWith<I, U, F> {
    #[inline]
    pub(crate) fn new(base: I, item: U, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, U, F> ParallelIterator for FoldWith<I, U, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
{
    type Item = U;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<U>,
    {
        let consumer = FoldConsumer {
            base: consumer,
            source: CloneOf(self.item),
            step: Plain(&self.fold_op),
        };
        self.base.drive_unindexed(consumer)
    }
}

/// `try_fold`. See [`ParallelIterator::try_fold`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    result: PhantomData<fn() -> R>,
}

impl<I: Clone, R, ID: Clone, F: Clone> Clone for TryFold<I, R, ID, F> {
    #[inline]
    fn clone(&self) -> Self {
        TryFold {
            base: self.base.clone(),
            identity: self.identity.clone(),
            fold_op: self.fold_op.clone(),
            result: PhantomData,
        }
    }
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    #[inline]
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            result: PhantomData,
        }
    }
}

impl<I, R, ID, F, T> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> R + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let consumer = FoldConsumer {
            base: consumer,
            source: MadeBy(&self.identity),
            step: Fallible(&self.fold_op, PhantomData),
        };
        self.base.drive_unindexed(consumer)
    }
}

/// `try_fold_with`. See [`ParallelIterator::try_fold_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    item: R::Output,
    fold_op: F,
}

impl<I: Clone, R: Try<Output: Clone>, F: Clone> Clone for TryFoldWith<I, R, F> {
    #[inline]
    fn clone(&self) -> Self {
        TryFoldWith {
            base: self.base.clone(),
            item: self.item.clone(),
            fold_op: self.fold_op.clone(),
        }
    }
}

impl<I: fmt::Debug, R: Try<Output: fmt::Debug>, F> fmt::Debug for TryFoldWith<I, R, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    #[inline]
    pub(crate) fn new(base: I, item: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, R, F> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(R::Output, I::Item) -> R + Sync + Send,
    R: Try + Send,
    R::Output: Clone + Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let consumer = FoldConsumer {
            base: consumer,
            source: CloneOf(self.item),
            step: Fallible(&self.fold_op, PhantomData),
        };
        self.base.drive_unindexed(consumer)
    }
}

/// How a fold takes an item: `fold` always goes on; `try_fold` stops at a failure.
trait FoldStep<Acc, In>: Copy + Send {
    /// The running state of a piece.
    type State;
    /// What the piece hands on.
    type Out: Send;
    fn start(self, acc: Acc) -> Self::State;
    fn step(self, state: Self::State, item: In) -> Self::State;
    fn step_all<I: Iterator<Item = In>>(self, state: Self::State, iter: I) -> Self::State;
    fn stopped(state: &Self::State) -> bool;
    fn finish(state: Self::State) -> Self::Out;
}

struct Plain<'f, F>(&'f F);

impl<F> Clone for Plain<'_, F> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for Plain<'_, F> {}

impl<Acc: Send, In, F: Fn(Acc, In) -> Acc + Sync> FoldStep<Acc, In> for Plain<'_, F> {
    type State = Acc;
    type Out = Acc;
    #[inline]
    fn start(self, acc: Acc) -> Acc {
        acc
    }
    #[inline]
    fn step(self, acc: Acc, item: In) -> Acc {
        (self.0)(acc, item)
    }
    // The user's closure called from one of ours, not handed on as `&F`, which is what
    // clippy would have (DESIGN.md, section 8, "A fold's step").
    #[allow(clippy::redundant_closure)]
    #[inline]
    fn step_all<I: Iterator<Item = In>>(self, acc: Acc, iter: I) -> Acc {
        let f = self.0;
        fold_moving(iter, acc, move |acc, item| f(acc, item))
    }
    #[inline]
    fn stopped(_: &Acc) -> bool {
        false
    }
    #[inline]
    fn finish(acc: Acc) -> Acc {
        acc
    }
}

struct Fallible<'f, F, R>(&'f F, PhantomData<fn() -> R>);

impl<F, R> Clone for Fallible<'_, F, R> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<F, R> Copy for Fallible<'_, F, R> {}

impl<In, F, R> FoldStep<R::Output, In> for Fallible<'_, F, R>
where
    R: Try + Send,
    F: Fn(R::Output, In) -> R + Sync,
{
    type State = ControlFlow<R::Residual, R::Output>;
    type Out = R;
    #[inline]
    fn start(self, acc: R::Output) -> Self::State {
        Continue(acc)
    }
    #[inline]
    fn step(self, state: Self::State, item: In) -> Self::State {
        match state {
            Continue(acc) => (self.0)(acc, item).branch(),
            stopped => stopped,
        }
    }
    #[inline]
    fn step_all<I: Iterator<Item = In>>(self, mut state: Self::State, iter: I) -> Self::State {
        for item in iter {
            state = self.step(state, item);
            if state.is_break() {
                break;
            }
        }
        state
    }
    #[inline]
    fn stopped(state: &Self::State) -> bool {
        state.is_break()
    }
    #[inline]
    fn finish(state: Self::State) -> R {
        match state {
            Continue(acc) => R::from_output(acc),
            Break(r) => R::from_residual(r),
        }
    }
}

struct FoldConsumer<C, S, St> {
    base: C,
    source: S,
    step: St,
}

impl<In, C, S, St> Consumer<In> for FoldConsumer<C, S, St>
where
    S: StateSource,
    St: FoldStep<S::State, In>,
    C: Consumer<St::Out>,
{
    type Folder = FoldFolder<C::Folder, S, St, St::State>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FoldConsumer {
                base: left,
                source: self.source.split(),
                step: self.step,
            },
            FoldConsumer {
                base: right,
                source: self.source,
                step: self.step,
            },
            reducer,
        )
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        FoldFolder {
            base: self.base.into_folder(),
            state: self.step.start(self.source.fresh()),
            source: self.source,
            step: self.step,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }

    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, C::Reducer) {
        // The folder hands on one item, its accumulator, when it completes.
        let (base, reducer) = C::split_folder(&mut folder.base, keep.min(1));
        let consumer = FoldConsumer {
            base,
            source: folder.source.split(),
            step: folder.step,
        };
        (consumer, reducer)
    }
}

impl<In, C, S, St> UnindexedConsumer<In> for FoldConsumer<C, S, St>
where
    S: StateSource,
    St: FoldStep<S::State, In>,
    C: UnindexedConsumer<St::Out>,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        FoldConsumer {
            base: self.base.split_off_left(),
            source: self.source.split(),
            step: self.step,
        }
    }

    #[inline]
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<C, S, St, State> {
    base: C,
    state: State,
    source: S,
    step: St,
}

impl<In, C, S, St> Folder<In> for FoldFolder<C, S, St, St::State>
where
    S: StateSource,
    St: FoldStep<S::State, In>,
    C: Folder<St::Out>,
{
    type Result = C::Result;

    #[inline]
    fn consume(self, item: In) -> Self {
        FoldFolder {
            state: self.step.step(self.state, item),
            ..self
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = In>>(self, iter: I) -> Self {
        // No per-item look at `base.full()`: the base only learns of other pieces' results,
        // which every run checks between its chunks. Checked per item it wrapped the fold
        // in `try_fold`, and LLVM then copied a large accumulator through stack slots per
        // item (docs/measurements.md, section 8).
        let state = self.step.step_all(self.state, iter.into_iter());
        FoldFolder { state, ..self }
    }

    #[inline]
    fn complete(self) -> C::Result {
        self.base.consume(St::finish(self.state)).complete()
    }

    #[inline]
    fn full(&self) -> bool {
        St::stopped(&self.state) || self.base.full()
    }
}
