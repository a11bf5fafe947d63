//! `deterministic` and `deterministic_blocks`: the items folded in fixed blocks of
//! consecutive positions, the blocks' results combined in a fixed tree, so that every
//! consumer's answer is a function of the input alone (DESIGN.md, section 8,
//! "Deterministic reductions"). The splitting is `splitter::drive_fixed_blocks`.
//!
//! The adaptor is a `ParallelIterator` but not an indexed one: the adaptors after it wrap
//! the consumer (`map`, `filter`, `fold`, ...), which the fixed tree splits; a producer-side
//! adaptor after it (`zip`, `enumerate`, `rev`, ...) would re-cut the producer, so those go
//! before it.

use crate::iter::plumbing::{Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::splitter::drive_fixed_blocks;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The block length of [`ParallelIterator::deterministic`] for `len` items: a
/// sixty-fourth of them, at least 16 and at most 1,024.
///
/// ```
/// use forkjoin::iter::default_block_len;
/// assert_eq!(default_block_len(10), 16);
/// assert_eq!(default_block_len(6_400), 100);
/// assert_eq!(default_block_len(10_000_000), 1_024);
/// ```
#[inline]
pub fn default_block_len(len: usize) -> usize {
    len.div_ceil(64).clamp(MIN_DEFAULT_BLOCK, MAX_DEFAULT_BLOCK)
}

/// Shorter loops are one block: a loop of sixteen cheap items costs no join.
const MIN_DEFAULT_BLOCK: usize = 16;
/// Longer blocks would add nothing: a join per 1,024 items is already lost in the fold.
const MAX_DEFAULT_BLOCK: usize = 1024;

/// `deterministic` and `deterministic_blocks`. See
/// [`ParallelIterator::deterministic`].
///
/// ```
/// use forkjoin::prelude::*;
/// let it: forkjoin::iter::Deterministic<_> = (0..100).into_par_iter().deterministic_blocks(10);
/// assert_eq!(it.map(|i| i as f64).sum::<f64>(), 4950.0);
/// ```
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Deterministic<I> {
    base: I,
    /// `None`: `default_block_len` of the length.
    block: Option<usize>,
}

impl<I> Deterministic<I> {
    #[inline]
    pub(crate) fn new(base: I, block: Option<usize>) -> Self {
        Deterministic { base, block }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Deterministic<I> {
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        let len = self.base.len();
        let block = self.block.unwrap_or_else(|| default_block_len(len));
        self.base.with_producer(Callback {
            consumer,
            len,
            block,
        })
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

struct Callback<C> {
    consumer: C,
    len: usize,
    block: usize,
}

impl<T, C: UnindexedConsumer<T>> ProducerCallback<T> for Callback<C> {
    type Output = C::Result;

    #[inline]
    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        drive_fixed_blocks(self.len, self.block, producer, self.consumer)
    }
}

/// The iterators `deterministic()` accepts: the indexed ones, whose items have fixed
/// positions for the blocks to be made of. A bound of its own for the compiler's message.
///
/// ```
/// use forkjoin::iter::{default_block_len, FixedPositions};
/// use forkjoin::prelude::*;
/// fn block_of<I: FixedPositions>(it: &I) -> usize {
///     default_block_len(it.len())
/// }
/// assert_eq!(block_of(&(0..6_400).into_par_iter()), 100);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be made deterministic: its items have no fixed positions",
    label = "not an `IndexedParallelIterator`",
    note = "`deterministic()` folds fixed blocks of positions; an unindexed iterator (`par_bridge`, or `filter`, `flat_map`, ... before the call) hands its items out in the order the workers take them",
    note = "call `deterministic()` before the adaptor that loses the positions, or collect the items into a `Vec` first"
)]
pub trait FixedPositions: IndexedParallelIterator {}

impl<I: IndexedParallelIterator> FixedPositions for I {}
