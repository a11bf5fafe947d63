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

pub use chunks::{
    Chunks, ChunksExact, ChunksExactMut, ChunksMut, RChunks, RChunksExact, RChunksExactMut,
    RChunksMut,
};
pub use split::{ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use windows::ArrayWindows;

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::sort::{par_merge_sort, par_quick_sort};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefMutIterator, ParallelIterator,
};
use crate::program_profile::entry;
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
    #[inline]
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
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
    #[inline]
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
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
    #[inline]
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
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
    #[inline]
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
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
    #[inline]
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
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
    #[inline]
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Sorts the slice, stably (equal elements keep their order): a parallel merge sort.
    #[inline]
    #[track_caller]
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_merge_sort(slice, &T::lt);
        });
    }

    /// Sorts the slice stably by `compare`.
    #[inline]
    #[track_caller]
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_merge_sort(slice, &|a, b| compare(a, b) == Ordering::Less);
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
    #[inline]
    #[track_caller]
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_merge_sort(slice, &|a, b| f(a).lt(&f(b)));
        });
    }

    /// Sorts the slice stably by the key `f` extracts, calling `f` once per element (as
    /// `slice::sort_by_cached_key`): the keys are computed in parallel with their
    /// positions, the pairs sorted in parallel (the positions make them distinct, so the
    /// order is stable), and the elements then moved into place along the permutation's
    /// cycles. Worth it when `f` costs more than a comparison; it takes a key and a
    /// position of memory per element.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut words = vec!["delta", "Alpha", "charlie", "Bravo", "alpha"];
    /// words.par_sort_by_cached_key(|w| w.to_lowercase());
    /// assert_eq!(words, ["Alpha", "alpha", "Bravo", "charlie", "delta"]);
    /// ```
    #[inline]
    #[track_caller]
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        F: Fn(&T) -> K + Sync,
        K: Ord + Send,
    {
        entry(|| {
            let slice = self.as_parallel_slice_mut();
            if slice.len() < 2 {
                return;
            }
            let mut keyed: Vec<(K, usize)> = slice
                .par_iter_mut()
                .enumerate()
                .map(|(i, x)| (f(x), i))
                .collect();
            keyed.par_sort_unstable();
            // `from[i]`: where the element that belongs at `i` is now.
            let mut from: Vec<usize> = keyed.into_par_iter().map(|(_, i)| i).collect();
            for start in 0..from.len() {
                // Walk the cycle through `start`, pulling each element into place; positions
                // done are marked by pointing at themselves.
                let mut at = start;
                while from[at] != at {
                    let source = from[at];
                    from[at] = at;
                    if source == start {
                        // The cycle closes: `at` already holds what was at `start`.
                        break;
                    }
                    slice.swap(at, source);
                    at = source;
                }
            }
        })
    }

    /// Sorts the slice without keeping the order of equal elements: a parallel
    /// pattern-defeating quicksort, faster than `par_sort` and with no extra memory.
    #[inline]
    #[track_caller]
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_quick_sort(slice, &T::lt);
        });
    }

    /// Sorts the slice unstably by `compare`.
    #[inline]
    #[track_caller]
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_quick_sort(slice, &|a, b| compare(a, b) == Ordering::Less);
        });
    }

    /// Sorts the slice unstably by the key `f` extracts.
    #[inline]
    #[track_caller]
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        entry(|| {
            par_quick_sort(slice, &|a, b| f(a).lt(&f(b)));
        });
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

/// `par_iter()` and `par_iter_mut()` of a slice, and of a vector or boxed slice as the
/// slice it holds.
macro_rules! slice_into_par_iter {
    ($($slice:ty),*) => {$(
        impl<'data, T: Sync + 'data> IntoParallelIterator for &'data $slice {
            type Item = &'data T;
            type Iter = Iter<'data, T>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                Iter { slice: self }
            }
        }

        impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut $slice {
            type Item = &'data mut T;
            type Iter = IterMut<'data, T>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                IterMut { slice: self }
            }
        }
    )*};
}

slice_into_par_iter!([T], Vec<T>, Box<[T]>);

/// Implements `ParallelIterator` and `IndexedParallelIterator` for an iterator type whose
/// producer is built by `$producer` from `self` (or, in the second form, that has its own
/// `with_producer`).
macro_rules! indexed_via_producer {
    ([$($generics:tt)*] $iter:ty => $item:ty, |$this:ident| len $len:expr, producer $producer:expr) => {
        indexed_via_producer!([$($generics)*] $iter => $item, |$this| len $len,
            #[inline]
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let $this = self;
                callback.callback($producer)
            }
        );
    };
    ([$($generics:tt)*] $iter:ty => $item:ty, |$this:ident| len $len:expr, $($with_producer:tt)*) => {
        impl<$($generics)*> ParallelIterator for $iter {
            type Item = $item;

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

        impl<$($generics)*> IndexedParallelIterator for $iter {
            #[inline]
            fn len(&self) -> usize {
                let $this = self;
                $len
            }

            #[inline]
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            $($with_producer)*
        }
    };
}

pub(crate) use indexed_via_producer;

/// A parallel iterator over the elements of `$slice` (as `$item`s), and its producer: the
/// slice, split at an index, and its `std` iterator.
macro_rules! slice_iter {
    ($(#[$doc:meta])* $iter:ident, $producer:ident, $slice:ty => $item:ty, $bound:ident,
     $split_at:ident, $iter_fn:ident -> $std:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $iter<'data, T> {
            slice: $slice,
        }

        indexed_via_producer!(['data, T: $bound + 'data] $iter<'data, T> => $item,
            |this| len this.slice.len(), producer $producer { slice: this.slice });

        struct $producer<'data, T> {
            slice: $slice,
        }

        impl<'data, T: $bound + 'data> Producer for $producer<'data, T> {
            type Item = $item;
            type IntoIter = std::slice::$std<'data, T>;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.slice.$iter_fn()
            }

            #[inline]
            fn split_at(self, index: usize) -> (Self, Self) {
                let (left, right) = self.slice.$split_at(index);
                ($producer { slice: left }, $producer { slice: right })
            }
        }
    };
}

slice_iter!(
    /// A parallel iterator over `&T` (`slice.par_iter()`).
    Iter, IterProducer, &'data [T] => &'data T, Sync, split_at, iter -> Iter
);
slice_iter!(
    /// A parallel iterator over `&mut T` (`slice.par_iter_mut()`).
    IterMut, IterMutProducer, &'data mut [T] => &'data mut T, Send, split_at_mut, iter_mut -> IterMut
);

impl<T> Clone for Iter<'_, T> {
    #[inline]
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

/// A parallel iterator over the overlapping windows of a slice (`par_windows`).
#[derive(Debug)]
pub struct Windows<'data, T> {
    window_size: usize,
    slice: &'data [T],
}

impl<'data, T> Windows<'data, T> {
    #[inline]
    fn new(window_size: usize, slice: &'data [T]) -> Self {
        Windows { window_size, slice }
    }
}

impl<T> Clone for Windows<'_, T> {
    #[inline]
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

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.window_size)
    }

    #[inline]
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
