//! `Either` of two parallel iterators with the same items is a parallel iterator (indexed
//! if both sides are), and `Either` of two collections extends whichever it holds, as in
//! rayon.
//!
//! ```
//! use forkjoin::iter::Either;
//! use forkjoin::prelude::*;
//! let pick = |evens: bool| if evens {
//!     Either::Left((0..10).into_par_iter().filter(|x| x % 2 == 0))
//! } else {
//!     Either::Right((0..10).into_par_iter().filter(|x| x % 2 == 1))
//! };
//! assert_eq!(pick(true).sum::<i32>(), 20);
//! assert_eq!(pick(false).sum::<i32>(), 25);
//! ```

use crate::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{
    Either, IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};

impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        match self {
            Either::Left(l) => l.drive_unindexed(consumer),
            Either::Right(r) => r.drive_unindexed(consumer),
        }
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(l) => l.opt_len(),
            Either::Right(r) => r.opt_len(),
        }
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    #[inline]
    fn len(&self) -> usize {
        match self {
            Either::Left(l) => l.len(),
            Either::Right(r) => r.len(),
        }
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive(consumer),
            Either::Right(r) => r.drive(consumer),
        }
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(l) => l.with_producer(callback),
            Either::Right(r) => r.with_producer(callback),
        }
    }
}

/// Extends whichever collection the `Either` holds.
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        match self {
            Either::Left(l) => l.par_extend(par_iter),
            Either::Right(r) => r.par_extend(par_iter),
        }
    }
}
