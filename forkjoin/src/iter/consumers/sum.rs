//! `sum` and `product`: each piece sums its items with `S::sum`, the pieces' sums are
//! summed again, as rayon does (so the bounds are `Sum<Item> + Sum<S>`).

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::iter::{self, Product, Sum};
use std::marker::PhantomData;

#[inline]
pub(crate) fn sum<PI, S>(pi: PI) -> S
where
    PI: ParallelIterator,
    S: Send + Sum<PI::Item> + Sum,
{
    pi.drive_unindexed(Summing::<S, Add>::new())
}

#[inline]
pub(crate) fn product<PI, P>(pi: PI) -> P
where
    PI: ParallelIterator,
    P: Send + Product<PI::Item> + Product,
{
    pi.drive_unindexed(Summing::<P, Mul>::new())
}

/// Markers: `Sum` or `Product`.
pub(crate) struct Add;
pub(crate) struct Mul;

/// `S: Sum<T>` or `S: Product<T>`, by the marker `O`.
pub(crate) trait Accumulate<T, O> {
    fn accumulate<I: Iterator<Item = T>>(iter: I) -> Self;
}

impl<T, S: Sum<T>> Accumulate<T, Add> for S {
    #[inline]
    fn accumulate<I: Iterator<Item = T>>(iter: I) -> S {
        iter.sum()
    }
}

impl<T, S: Product<T>> Accumulate<T, Mul> for S {
    #[inline]
    fn accumulate<I: Iterator<Item = T>>(iter: I) -> S {
        iter.product()
    }
}

/// The consumer: stateless. `fn() -> (S, O)` keeps it `Send` and `Sync` whatever `S` is.
pub(crate) struct Summing<S, O>(PhantomData<fn() -> (S, O)>);

impl<S, O> Summing<S, O> {
    #[inline]
    fn new() -> Self {
        Summing(PhantomData)
    }
}

impl<S, O> Clone for Summing<S, O> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, O> Copy for Summing<S, O> {}

/// Combines two partial results: `S: Sum<S>` (or `Product<S>`).
#[inline]
fn combine<S: Accumulate<S, O>, O>(a: S, b: S) -> S {
    S::accumulate([a, b].into_iter())
}

impl<T, S, O> Consumer<T> for Summing<S, O>
where
    S: Send + Accumulate<T, O> + Accumulate<S, O>,
{
    type Folder = SumFolder<S, O>;
    type Reducer = Self;
    type Result = S;

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }

    #[inline]
    fn into_folder(self) -> SumFolder<S, O> {
        SumFolder {
            acc: S::accumulate(iter::empty::<T>()),
            op: PhantomData,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(_folder: &mut SumFolder<S, O>, _keep: usize) -> (Self, Self) {
        (Summing::new(), Summing::new())
    }
}

impl<T, S, O> UnindexedConsumer<T> for Summing<S, O>
where
    S: Send + Accumulate<T, O> + Accumulate<S, O>,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        *self
    }

    #[inline]
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<S, O> Reducer<S> for Summing<S, O>
where
    S: Accumulate<S, O>,
{
    #[inline]
    fn reduce(self, left: S, right: S) -> S {
        combine(left, right)
    }
}

pub(crate) struct SumFolder<S, O> {
    acc: S,
    op: PhantomData<fn() -> O>,
}

impl<T, S, O> Folder<T> for SumFolder<S, O>
where
    S: Accumulate<T, O> + Accumulate<S, O>,
{
    type Result = S;

    #[inline]
    fn consume(self, item: T) -> Self {
        let one = S::accumulate(iter::once(item));
        SumFolder {
            acc: combine(self.acc, one),
            op: PhantomData,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // One `sum` over the whole chunk: a vectorised loop for numbers.
        let chunk = S::accumulate(iter.into_iter());
        SumFolder {
            acc: combine(self.acc, chunk),
            op: PhantomData,
        }
    }

    #[inline]
    fn complete(self) -> S {
        self.acc
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }
}
