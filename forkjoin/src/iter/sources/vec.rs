//! Parallel iterators that own the elements of a `Vec`, `forkjoin::vec`, as rayon's `vec`.
//!
//! `vec.into_par_iter()` moves every element out exactly once: to the consumer, or, for
//! elements never reached (an early stop, a panic), into a drop. The vector's buffer is
//! freed when the iterator is done.
//!
//! ```
//! use forkjoin::prelude::*;
//! let names = vec![String::from("fork"), String::from("join")];
//! let lens: Vec<usize> = names.into_par_iter().map(|s| s.len()).collect();
//! assert_eq!(lens, [4, 4]);
//! ```

use super::slice::indexed_via_producer;
use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelDrainRange, ParallelIterator,
};
use std::iter::FusedIterator;
use std::marker::PhantomData;
use std::mem;
use std::ops::{Bound, Range, RangeBounds};
use std::ptr;

/// A parallel iterator that moves the elements out of a `Vec` (`vec.into_par_iter()`).
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IntoIter { vec: self }
    }
}

/// A boxed slice is consumed as the vector it becomes without copying (as rayon's).
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Item = T;
    type Iter = IntoIter<T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IntoIter { vec: self.into() }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
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
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    #[inline]
    fn len(&self) -> usize {
        self.vec.len()
    }

    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let len = self.vec.len();
        // The elements now belong to the producer: if anything below unwinds, the vector
        // frees only its buffer, and the producer drops what it still holds.
        // SAFETY: 0 <= capacity; the elements stay initialised and are owned by the producer.
        unsafe { self.vec.set_len(0) };
        // SAFETY: the first `len` elements are initialised, and the vector no longer owns
        // them; the slice does not outlive `self.vec`, dropped after the callback.
        let slice = unsafe { std::slice::from_raw_parts_mut(self.vec.as_mut_ptr(), len) };
        callback.callback(DrainProducer::new(slice))
    }
}

/// A producer that owns the elements of a slice: it moves them out as it yields them and
/// drops those it never yields. The memory is someone else's (a `Vec` emptied by
/// `set_len(0)`, an array in `ManuallyDrop`).
pub(crate) struct DrainProducer<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send> DrainProducer<'data, T> {
    /// Takes ownership of the elements of `slice`.
    ///
    /// The caller must make sure nobody else drops or reads the elements afterwards (the
    /// producer moves them out or drops them); the memory itself stays the caller's.
    #[inline]
    pub(crate) fn new(slice: &'data mut [T]) -> Self {
        DrainProducer { slice }
    }
}

impl<'data, T: 'data + Send> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = SliceDrain<'data, T>;

    #[inline]
    fn into_iter(mut self) -> Self::IntoIter {
        let slice = mem::take(&mut self.slice);
        SliceDrain {
            iter: slice.iter_mut(),
            _owned: PhantomData,
        }
    }

    #[inline]
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let (left, right) = mem::take(&mut self.slice).split_at_mut(index);
        (DrainProducer::new(left), DrainProducer::new(right))
    }
}

impl<T: Send> Drop for DrainProducer<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let slice = mem::take(&mut self.slice);
        // SAFETY: the producer owns these elements (see `new`) and has not moved them out.
        unsafe { ptr::drop_in_place::<[T]>(slice) };
    }
}

/// The sequential iterator of a `DrainProducer`: moves the elements out; drops the rest.
pub(crate) struct SliceDrain<'data, T> {
    iter: std::slice::IterMut<'data, T>,
    _owned: PhantomData<T>,
}

impl<T> Iterator for SliceDrain<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let ptr: *const T = self.iter.next()?;
        // SAFETY: we own the element (see `DrainProducer::new`) and the iterator has moved
        // past it, so it is read exactly once and never dropped in place.
        Some(unsafe { ptr::read(ptr) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for SliceDrain<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        let ptr: *const T = self.iter.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { ptr::read(ptr) })
    }
}

impl<T> ExactSizeIterator for SliceDrain<'_, T> {}

impl<T> FusedIterator for SliceDrain<'_, T> {}

impl<T> Drop for SliceDrain<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let iter = mem::take(&mut self.iter);
        let rest = iter.into_slice();
        // SAFETY: the elements the iterator has not reached are still ours to drop.
        unsafe { ptr::drop_in_place::<[T]>(rest) };
    }
}

/// A parallel iterator that moves a range of elements out of a vector
/// (`vec.par_drain(range)`). Dropped, it closes the gap: the elements after the range move
/// down, and the vector keeps its capacity. Elements never reached (an early stop, a
/// panic) are dropped; if it is leaked without being driven, the vector is unchanged.
#[derive(Debug)]
pub struct Drain<'data, T: Send> {
    vec: &'data mut Vec<T>,
    range: Range<usize>,
    orig_len: usize,
}

impl<'data, T: Send> ParallelDrainRange<usize> for &'data mut Vec<T> {
    type Iter = Drain<'data, T>;
    type Item = T;

    #[inline]
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let orig_len = self.len();
        Drain {
            range: resolve_range(range, orig_len),
            vec: self,
            orig_len,
        }
    }
}

/// `range` as `start..end` within `len`, with the panics of slice indexing.
#[track_caller]
#[inline]
pub(crate) fn resolve_range(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s
            .checked_add(1)
            .expect("attempted to index slice from after maximum usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e
            .checked_add(1)
            .expect("attempted to index slice up to maximum usize"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "slice index starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "range end index {end} out of range for slice of length {len}"
    );
    start..end
}

indexed_via_producer!(['data, T: Send] Drain<'data, T> => T,
|this| len this.range.len(),
producer {
    let Range { start, end } = this.range;
    // The range's elements now belong to the producer, and the tail is the drain's to
    // move when it drops (even if the callback unwinds).
    // SAFETY: `start <= orig_len`, and the elements from `start` on stay initialised.
    unsafe { this.vec.set_len(start) };
    // SAFETY: `start..end` is within the `orig_len` initialised elements (checked by
    // `resolve_range`), which the vector no longer owns; the slice is used only by
    // the callback, before `this` drops.
    let slice =
        unsafe { std::slice::from_raw_parts_mut(this.vec.as_mut_ptr().add(start), end - start) };
    DrainProducer::new(slice)
});

impl<T: Send> Drop for Drain<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let Range { start, end } = self.range;
        if self.vec.len() == self.orig_len {
            // Never driven: std removes (and drops) the range.
            self.vec.drain(start..end);
            return;
        }
        // Driven: the range's elements were moved out or dropped by the producer; move the
        // tail down over them.
        let tail = self.orig_len - end;
        let base = self.vec.as_mut_ptr();
        // SAFETY: `end..orig_len` holds the initialised tail, which the vector does not own
        // (its length is `start`); it moves to `start..start + tail`, inside the buffer
        // (overlapping, hence `copy`), and the vector takes it back.
        unsafe {
            ptr::copy(base.add(end), base.add(start), tail);
            self.vec.set_len(start + tail);
        }
    }
}
