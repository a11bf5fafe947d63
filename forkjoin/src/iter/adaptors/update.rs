//! `update`: mutates every item in place before passing it on. An item-by-item step, so it
//! shares `cloned`'s producer, consumer and folder and keeps the iterator indexed.

use super::cloned::{step_adaptor, step_iter, Step, StepCallback, StepIter, StepOp};
use super::filter::copy_ref_wrapper;
use super::item_wise::ItemWise;
use crate::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// `update`: calls a function on a mutable reference to every item. See
/// [`ParallelIterator::update`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Update<I, F> {
    base: I,
    update_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Update<I, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Update").field("base", &self.base).finish()
    }
}

impl<I, F> Update<I, F> {
    #[inline]
    pub(crate) fn new(base: I, update_op: F) -> Self {
        Update { base, update_op }
    }
}

pub(crate) struct UpdateStep<'f, F>(&'f F);

copy_ref_wrapper!(UpdateStep);

impl<T: Send, F: Fn(&mut T) + Sync> Step<T> for UpdateStep<'_, F> {
    type Out = T;
    step_iter!(T);
    #[inline(always)]
    fn apply(self, mut item: T) -> T {
        (self.0)(&mut item);
        item
    }
}

step_adaptor!([I, F] Update<I, F> => I::Item,
    [I: ParallelIterator, F: Fn(&mut I::Item) + Sync + Send],
    |base| Update { base, update_op } => UpdateStep(&update_op));
