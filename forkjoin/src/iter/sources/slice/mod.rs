//! Parallel iterators over slices, `forkjoin::slice`, as rayon's `slice`: `par_iter`,
//! `par_iter_mut`, the chunks (`par_chunks`, `par_chunks_exact`, `par_rchunks`,
//! `par_rchunks_exact`, and their `_mut` forms), `par_windows`, `par_array_windows`, and
//! the parallel sorts.
//!
//! ```
//! use forkjoin::prelude::*;
//! let mut v: Vec<u32> = (0..10).rev().collect();
//! v.par_sort();
//! assert_eq!(v, (0..10).collect::<Vec<_>>());
//! let sums: Vec<u32> = v.par_chunks(4).map(|c| c.iter().sum()).collect();
//! assert_eq!(sums, [6, 22, 17]);
//! ```

mod chunks;
mod split;
mod windows;

pub use chunks::{ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut};
pub use split::{ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use windows::ArrayWindows;

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::sort::{par_merge_sort, par_quick_sort};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::cmp::Ordering;

/// Parallel operations on a shared slice.
///
/// ```
/// use forkjoin::prelude::*;
/// let v = [1, 2, 3, 4, 5];
/// let pairs: Vec<i32> = v.par_windows(2).map(|w| w[0] * w[1]).collect();
/// assert_eq!(pairs, [2, 6, 12, 20]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice itself.
    fn as_parallel_slice(&self) -> &[T];

    /// Non-overlapping pieces of `chunk_size` elements (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Non-overlapping pieces of exactly `chunk_size` elements, from the front; the last
    /// `len % chunk_size` elements are left out (see [`ChunksExact::remainder`]).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let chunks: Vec<_> = [1, 2, 3, 4, 5].par_chunks_exact(2).collect();
    /// assert_eq!(chunks, [&[1, 2], &[3, 4]]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// Non-overlapping pieces of `chunk_size` elements from the back, the last (at the
    /// front) perhaps shorter.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let chunks: Vec<_> = [1, 2, 3, 4, 5].par_rchunks(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Non-overlapping pieces of exactly `chunk_size` elements from the back; the first
    /// `len % chunk_size` elements are left out (see [`RChunksExact::remainder`]).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let chunks: Vec<_> = [1, 2, 3, 4, 5].par_rchunks_exact(2).collect();
    /// assert_eq!(chunks, [&[4, 5], &[2, 3]]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// Sub-slices separated by the elements `separator` accepts, as `slice::split`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let products: Vec<_> = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9]
    ///     .par_split(|i| *i == 0)
    ///     .map(|numbers| numbers.iter().product::<i32>())
    ///     .collect();
    /// assert_eq!(products, [6, 64, 162]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// Sub-slices each ended by an element `separator` accepts (which it keeps), as
    /// `slice::split_inclusive`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lengths: Vec<_> = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9]
    ///     .par_split_inclusive(|i| *i == 0)
    ///     .map(|numbers| numbers.len())
    ///     .collect();
    /// assert_eq!(lengths, [4, 4, 3]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// Runs of neighbours that `pred` calls the same, as `slice::chunk_by`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let chunks: Vec<_> = [1, 2, 2, 3, 3, 3].par_chunk_by(|&x, &y| x == y).collect();
    /// assert_eq!(chunks, [&[1][..], &[2, 2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), pred)
    }

    /// Every overlapping window of `window_size` elements.
    ///
    /// # Panics
    /// If `window_size` is 0.
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        assert!(window_size != 0, "window_size must not be zero");
        Windows::new(window_size, self.as_parallel_slice())
    }

    /// Every overlapping window of `N` elements, as an array.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let windows: Vec<_> = [1, 2, 3].par_array_windows().collect();
    /// assert_eq!(windows, [&[1, 2], &[2, 3]]);
    /// ```
    ///
    /// # Panics
    /// If `N` is 0.
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel operations on a mutable slice, the sorts among them.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![5, 1, 4, 2, 3];
/// v.par_sort_unstable_by(|a, b| b.cmp(a));
/// assert_eq!(v, [5, 4, 3, 2, 1]);
/// v.par_chunks_mut(2).for_each(|c| c.reverse());
/// assert_eq!(v, [4, 5, 2, 3, 1]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Non-overlapping mutable pieces of `chunk_size` elements (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable sub-slices separated by the elements `separator` accepts, as
    /// `slice::split_mut`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9];
    /// array.par_split_mut(|i| *i == 0).for_each(|slice| slice.reverse());
    /// assert_eq!(array, [3, 2, 1, 0, 8, 4, 2, 0, 9, 6, 3]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable sub-slices each ended by an element `separator` accepts (which it keeps),
    /// as `slice::split_inclusive_mut`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9];
    /// array.par_split_inclusive_mut(|i| *i == 0).for_each(|slice| slice.reverse());
    /// assert_eq!(array, [0, 3, 2, 1, 0, 8, 4, 2, 9, 6, 3]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable runs of neighbours that `pred` calls the same, as `slice::chunk_by_mut`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 2, 3, 3, 3];
    /// array.par_chunk_by_mut(|&x, &y| x == y).for_each(|slice| slice[0] = 0);
    /// assert_eq!(array, [0, 0, 2, 0, 3, 3]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), pred)
    }

    /// Non-overlapping mutable pieces of exactly `chunk_size` elements, from the front;
    /// the last `len % chunk_size` elements are left out (see
    /// [`ChunksExactMut::into_remainder`]).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 3, 4, 5];
    /// array.par_chunks_exact_mut(3).for_each(|slice| slice.reverse());
    /// assert_eq!(array, [3, 2, 1, 4, 5]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Non-overlapping mutable pieces of `chunk_size` elements from the back, the last (at
    /// the front) perhaps shorter.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 3, 4, 5];
    /// array.par_rchunks_mut(2).for_each(|slice| slice.reverse());
    /// assert_eq!(array, [1, 3, 2, 5, 4]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Non-overlapping mutable pieces of exactly `chunk_size` elements from the back; the
    /// first `len % chunk_size` elements are left out (see
    /// [`RChunksExactMut::into_remainder`]).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut array = [1, 2, 3, 4, 5];
    /// array.par_rchunks_exact_mut(3).for_each(|slice| slice.reverse());
    /// assert_eq!(array, [1, 2, 5, 4, 3]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Sorts the slice, stably (equal elements keep their order): a parallel merge sort.
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &T::lt);
    }

    /// Sorts the slice stably by `compare`.
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &|a, b| {
            compare(a, b) == Ordering::Less
        });
    }

    /// Sorts the slice stably by the key `f` extracts (called on every comparison).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
    /// v.par_sort_by_key(|p| p.0);
    /// assert_eq!(v, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &|a, b| f(a).lt(&f(b)));
    }

    /// Sorts the slice without keeping the order of equal elements: a parallel
    /// pattern-defeating quicksort, faster than `par_sort` and with no extra memory.
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        par_quick_sort(self.as_parallel_slice_mut(), &T::lt);
    }

    /// Sorts the slice unstably by `compare`.
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        par_quick_sort(self.as_parallel_slice_mut(), &|a, b| {
            compare(a, b) == Ordering::Less
        });
    }

    /// Sorts the slice unstably by the key `f` extracts.
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        par_quick_sort(self.as_parallel_slice_mut(), &|a, b| f(a).lt(&f(b)));
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data [T] {
    type Item = &'data T;
    type Iter = Iter<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut [T] {
    type Item = &'data mut T;
    type Iter = IterMut<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        IterMut { slice: self }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Item = &'data T;
    type Iter = Iter<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Item = &'data mut T;
    type Iter = IterMut<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        IterMut { slice: self }
    }
}

/// Implements `ParallelIterator` and `IndexedParallelIterator` for an iterator type whose
/// producer is built by `$producer` from `self`.
macro_rules! indexed_via_producer {
    ([$($generics:tt)*] $iter:ty => $item:ty, |$this:ident| len $len:expr, producer $producer:expr) => {
        impl<$($generics)*> ParallelIterator for $iter {
            type Item = $item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($generics)*> IndexedParallelIterator for $iter {
            fn len(&self) -> usize {
                let $this = self;
                $len
            }

            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let $this = self;
                callback.callback($producer)
            }
        }
    };
}

pub(crate) use indexed_via_producer;

/// A parallel iterator over `&T` (`slice.par_iter()`).
#[derive(Debug)]
pub struct Iter<'data, T> {
    slice: &'data [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

indexed_via_producer!(['data, T: Sync + 'data] Iter<'data, T> => &'data T,
    |this| len this.slice.len(), producer IterProducer { slice: this.slice });

struct IterProducer<'data, T> {
    slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for IterProducer<'data, T> {
    type Item = &'data T;
    type IntoIter = std::slice::Iter<'data, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (IterProducer { slice: left }, IterProducer { slice: right })
    }
}

/// A parallel iterator over `&mut T` (`slice.par_iter_mut()`).
#[derive(Debug)]
pub struct IterMut<'data, T> {
    slice: &'data mut [T],
}

indexed_via_producer!(['data, T: Send + 'data] IterMut<'data, T> => &'data mut T,
    |this| len this.slice.len(), producer IterMutProducer { slice: this.slice });

struct IterMutProducer<'data, T> {
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> Producer for IterMutProducer<'data, T> {
    type Item = &'data mut T;
    type IntoIter = std::slice::IterMut<'data, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter_mut()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (
            IterMutProducer { slice: left },
            IterMutProducer { slice: right },
        )
    }
}

/// A parallel iterator over non-overlapping pieces of a slice (`par_chunks`).
#[derive(Debug)]
pub struct Chunks<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
}

impl<'data, T> Chunks<'data, T> {
    fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        Chunks { chunk_size, slice }
    }
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

indexed_via_producer!(['data, T: Sync + 'data] Chunks<'data, T> => &'data [T],
    |this| len this.slice.len().div_ceil(this.chunk_size),
    producer ChunksProducer { chunk_size: this.chunk_size, slice: this.slice });

struct ChunksProducer<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for ChunksProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Chunks<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.chunk_size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let elem = (index * self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at(elem);
        (
            ChunksProducer {
                chunk_size: self.chunk_size,
                slice: left,
            },
            ChunksProducer {
                chunk_size: self.chunk_size,
                slice: right,
            },
        )
    }
}

/// A parallel iterator over non-overlapping mutable pieces of a slice (`par_chunks_mut`).
#[derive(Debug)]
pub struct ChunksMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
}

impl<'data, T> ChunksMut<'data, T> {
    fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        ChunksMut { chunk_size, slice }
    }
}

indexed_via_producer!(['data, T: Send + 'data] ChunksMut<'data, T> => &'data mut [T],
    |this| len this.slice.len().div_ceil(this.chunk_size),
    producer ChunksMutProducer { chunk_size: this.chunk_size, slice: this.slice });

struct ChunksMutProducer<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> Producer for ChunksMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::ChunksMut<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.chunk_size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let elem = (index * self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at_mut(elem);
        (
            ChunksMutProducer {
                chunk_size: self.chunk_size,
                slice: left,
            },
            ChunksMutProducer {
                chunk_size: self.chunk_size,
                slice: right,
            },
        )
    }
}

/// A parallel iterator over the overlapping windows of a slice (`par_windows`).
#[derive(Debug)]
pub struct Windows<'data, T> {
    window_size: usize,
    slice: &'data [T],
}

impl<'data, T> Windows<'data, T> {
    fn new(window_size: usize, slice: &'data [T]) -> Self {
        Windows { window_size, slice }
    }
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

indexed_via_producer!(['data, T: Sync + 'data] Windows<'data, T> => &'data [T],
    |this| len (this.slice.len() + 1).saturating_sub(this.window_size),
    producer WindowsProducer { window_size: this.window_size, slice: this.slice });

struct WindowsProducer<'data, T> {
    window_size: usize,
    slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for WindowsProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Windows<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.window_size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The left part keeps the `window_size - 1` elements its last window shares with
        // the right part's first.
        let left_end = (index + self.window_size - 1).min(self.slice.len());
        let left = &self.slice[..left_end];
        let right = &self.slice[index.min(self.slice.len())..];
        (
            WindowsProducer {
                window_size: self.window_size,
                slice: left,
            },
            WindowsProducer {
                window_size: self.window_size,
                slice: right,
            },
        )
    }
}
