//! `par_array_windows`: `par_windows` with the window length a constant, each window a
//! `&[T; N]`.

use super::Windows;
use crate::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, Map, ParallelIterator};

/// Every overlapping window of `N` elements, as arrays (`par_array_windows`).
#[derive(Debug)]
pub struct ArrayWindows<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    #[inline]
    fn clone(&self) -> Self {
        ArrayWindows { ..*self }
    }
}

impl<'data, T, const N: usize> ArrayWindows<'data, T, N> {
    #[inline]
    pub(super) fn new(slice: &'data [T]) -> Self {
        assert!(N != 0, "window_size must not be zero");
        ArrayWindows { slice }
    }
}

/// A window of `N` elements as an array.
#[inline]
fn to_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window of N elements")
}

type AsArrays<'data, T, const N: usize> = Map<Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>;

impl<'data, T: Sync + 'data, const N: usize> ArrayWindows<'data, T, N> {
    #[inline]
    fn into_arrays(self) -> AsArrays<'data, T, N> {
        Windows::new(N, self.slice).map(to_array::<T, N> as fn(&'data [T]) -> &'data [T; N])
    }
}

impl<'data, T: Sync + 'data, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        self.into_arrays().drive_unindexed(consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync + 'data, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    #[inline]
    fn len(&self) -> usize {
        (self.slice.len() + 1).saturating_sub(N)
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.into_arrays().drive(consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.into_arrays().with_producer(callback)
    }
}
