//! Parallel iterators over arrays, `forkjoin::array`, as rayon's `array`. `[T; N]` by value
//! moves its elements out; `&[T; N]` and `&mut [T; N]` iterate like slices.
//!
//! ```
//! use forkjoin::prelude::*;
//! let a = [1, 2, 3, 4];
//! assert_eq!(a.par_iter().sum::<i32>(), 10);
//! let strings: Vec<String> = [1, 2].into_par_iter().map(|x| x.to_string()).collect();
//! assert_eq!(strings, ["1", "2"]);
//! ```

use super::slice::{Iter, IterMut};
use super::vec::DrainProducer;
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::mem::ManuallyDrop;

impl<'data, T: Sync + 'data, const N: usize> IntoParallelIterator for &'data [T; N] {
    type Item = &'data T;
    type Iter = Iter<'data, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        <&[T]>::into_par_iter(self)
    }
}

impl<'data, T: Send + 'data, const N: usize> IntoParallelIterator for &'data mut [T; N] {
    type Item = &'data mut T;
    type Iter = IterMut<'data, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        <&mut [T]>::into_par_iter(self)
    }
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Item = T;
    type Iter = IntoIter<T, N>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IntoIter { array: self }
    }
}

/// A parallel iterator that moves the elements out of an array.
#[derive(Debug, Clone)]
pub struct IntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> ParallelIterator for IntoIter<T, N> {
    type Item = T;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        bridge(self, consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for IntoIter<T, N> {
    #[inline]
    fn len(&self) -> usize {
        N
    }

    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // The producer takes over the elements; the array itself is never dropped.
        let mut array = ManuallyDrop::new(self.array);
        callback.callback(DrainProducer::new(&mut array[..]))
    }
}
