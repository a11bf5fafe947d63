//! The fixed-size chunk families: `par_chunks`, `par_chunks_exact`, `par_rchunks` and
//! `par_rchunks_exact`, and their `_mut` forms. A piece of `k` chunks covers `k *
//! chunk_size` elements, from the front or (the `r` forms) from the back; an exact form
//! leaves its remainder out before splitting.

use super::indexed_via_producer;
use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// A producer of chunks of a slice, in `std`'s order for `$std`.
macro_rules! chunk_producer {
    ($producer:ident, $slice:ty, $bound:ident, $split:ident, $method:ident -> $std:ident, from_end: $from_end:expr) => {
        struct $producer<'data, T> {
            chunk_size: usize,
            slice: $slice,
        }

        impl<'data, T: $bound + 'data> Producer for $producer<'data, T> {
            type Item = $slice;
            type IntoIter = std::slice::$std<'data, T>;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.slice.$method(self.chunk_size)
            }

            #[inline]
            fn split_at(self, index: usize) -> (Self, Self) {
                let chunk_size = self.chunk_size;
                let covered = (index * chunk_size).min(self.slice.len());
                let (left, right) = if $from_end {
                    // The first chunks are at the back.
                    let (front, back) = self.slice.$split(self.slice.len() - covered);
                    (back, front)
                } else {
                    self.slice.$split(covered)
                };
                (
                    $producer {
                        chunk_size,
                        slice: left,
                    },
                    $producer {
                        chunk_size,
                        slice: right,
                    },
                )
            }
        }
    };
}

chunk_producer!(ChunksProducer, &'data [T], Sync, split_at, chunks -> Chunks, from_end: false);
chunk_producer!(ChunksMutProducer, &'data mut [T], Send, split_at_mut, chunks_mut -> ChunksMut, from_end: false);
chunk_producer!(ChunksExactProducer, &'data [T], Sync, split_at, chunks_exact -> ChunksExact, from_end: false);
chunk_producer!(ChunksExactMutProducer, &'data mut [T], Send, split_at_mut, chunks_exact_mut -> ChunksExactMut, from_end: false);
chunk_producer!(RChunksProducer, &'data [T], Sync, split_at, rchunks -> RChunks, from_end: true);
chunk_producer!(RChunksMutProducer, &'data mut [T], Send, split_at_mut, rchunks_mut -> RChunksMut, from_end: true);
chunk_producer!(RChunksExactProducer, &'data [T], Sync, split_at, rchunks_exact -> RChunksExact, from_end: true);
chunk_producer!(RChunksExactMutProducer, &'data mut [T], Send, split_at_mut, rchunks_exact_mut -> RChunksExactMut, from_end: true);

/// The panic that every `par_` method making chunks documents, raised by the constructors
/// (so reported where the method was called, if it is `#[track_caller]`).
#[track_caller]
#[inline]
fn assert_chunk_size(chunk_size: usize) {
    assert!(chunk_size != 0, "chunk_size must not be zero");
}

/// Declares a chunk iterator over `$slice`, with fields `chunk_size` and `slice`, and (for an
/// exact form) `rem`, the remainder it leaves out, which `$split` cuts from the slice `$s`
/// (`$rem` long); its constructor and its iterator traits.
macro_rules! chunk_iter {
    ($(#[$doc:meta])* $iter:ident, $slice:ty, $bound:ident, $producer:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $iter<'data, T> {
            chunk_size: usize,
            slice: $slice,
        }

        impl<'data, T> $iter<'data, T> {
            #[track_caller]
            #[inline]
            pub(super) fn new(chunk_size: usize, slice: $slice) -> Self {
                assert_chunk_size(chunk_size);
                $iter { chunk_size, slice }
            }
        }

        chunk_iter!(@traits $iter, $slice, $bound, $producer, |n, size| n.div_ceil(size));
    };
    ($(#[$doc:meta])* $iter:ident, $slice:ty, $bound:ident, $producer:ident,
     exact |$s:ident, $rem:ident| $split:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $iter<'data, T> {
            chunk_size: usize,
            slice: $slice,
            rem: $slice,
        }

        impl<'data, T> $iter<'data, T> {
            #[track_caller]
            #[inline]
            pub(super) fn new(chunk_size: usize, $s: $slice) -> Self {
                assert_chunk_size(chunk_size);
                let $rem = $s.len() % chunk_size;
                let (slice, rem) = $split;
                $iter {
                    chunk_size,
                    slice,
                    rem,
                }
            }
        }

        chunk_iter!(@traits $iter, $slice, $bound, $producer, |n, size| n / size);
    };
    (@traits $iter:ident, $slice:ty, $bound:ident, $producer:ident, |$n:ident, $size:ident| $len:expr) => {
        indexed_via_producer!(['data, T: $bound + 'data] $iter<'data, T> => $slice,
            |this| len { let ($n, $size) = (this.slice.len(), this.chunk_size); $len },
            producer $producer { chunk_size: this.chunk_size, slice: this.slice });
    };
}

/// `Clone` for iterators over shared chunks: a copy of the references.
macro_rules! clone_by_copy {
    ($($iter:ident),*) => {$(
        impl<T> Clone for $iter<'_, T> {
            #[inline]
            fn clone(&self) -> Self {
                $iter { ..*self }
            }
        }
    )*};
}

chunk_iter!(
    /// A parallel iterator over non-overlapping pieces of a slice (`par_chunks`).
    Chunks, &'data [T], Sync, ChunksProducer
);
chunk_iter!(
    /// A parallel iterator over non-overlapping mutable pieces of a slice (`par_chunks_mut`).
    ChunksMut, &'data mut [T], Send, ChunksMutProducer
);
chunk_iter!(
    /// Chunks of `chunk_size` elements from the back, the last (at the front) perhaps
    /// shorter (`par_rchunks`).
    RChunks, &'data [T], Sync, RChunksProducer
);
chunk_iter!(
    /// Mutable chunks of `chunk_size` elements from the back, the last (at the front)
    /// perhaps shorter (`par_rchunks_mut`).
    RChunksMut, &'data mut [T], Send, RChunksMutProducer
);
chunk_iter!(
    /// Chunks of exactly `chunk_size` elements, from the front (`par_chunks_exact`); the
    /// elements left over are the [`remainder`](ChunksExact::remainder).
    ChunksExact, &'data [T], Sync, ChunksExactProducer,
    exact |slice, rem| slice.split_at(slice.len() - rem)
);
chunk_iter!(
    /// Chunks of exactly `chunk_size` elements, from the back (`par_rchunks_exact`); the
    /// elements left over at the front are the [`remainder`](RChunksExact::remainder).
    RChunksExact, &'data [T], Sync, RChunksExactProducer,
    exact |slice, rem| { let (rem, chunks) = slice.split_at(rem); (chunks, rem) }
);
chunk_iter!(
    /// Mutable chunks of exactly `chunk_size` elements, from the front
    /// (`par_chunks_exact_mut`); the elements left over are the remainder.
    ChunksExactMut, &'data mut [T], Send, ChunksExactMutProducer,
    exact |slice, rem| { let end = slice.len() - rem; slice.split_at_mut(end) }
);
chunk_iter!(
    /// Mutable chunks of exactly `chunk_size` elements, from the back
    /// (`par_rchunks_exact_mut`); the elements left over at the front are the remainder.
    RChunksExactMut, &'data mut [T], Send, RChunksExactMutProducer,
    exact |slice, rem| { let (rem, chunks) = slice.split_at_mut(rem); (chunks, rem) }
);

clone_by_copy!(Chunks, RChunks, ChunksExact, RChunksExact);

/// The remainder of an exact form over shared chunks, `$which` elements of the slice.
macro_rules! remainder {
    ($iter:ident, $which:literal) => {
        impl<'data, T> $iter<'data, T> {
            #[doc = concat!("The ", $which, " elements, fewer than `chunk_size`, that no chunk holds.")]
            #[inline]
            pub fn remainder(&self) -> &'data [T] {
                self.rem
            }
        }
    };
}

remainder!(ChunksExact, "last");
remainder!(RChunksExact, "first");

/// The remainder of an exact form over mutable chunks, given away or borrowed.
macro_rules! remainder_mut {
    ($iter:ident, $which:literal) => {
        impl<'data, T> $iter<'data, T> {
            #[doc = concat!("The ", $which, " elements, fewer than `chunk_size`, that no chunk holds.")]
            #[inline]
            pub fn into_remainder(self) -> &'data mut [T] {
                self.rem
            }

            #[doc = concat!("The ", $which, " elements that no chunk holds, borrowed.")]
            #[inline]
            pub fn remainder(&mut self) -> &mut [T] {
                self.rem
            }

            #[doc = concat!("Takes the ", $which, " elements that no chunk holds, leaving none.")]
            #[inline]
            pub fn take_remainder(&mut self) -> &'data mut [T] {
                std::mem::take(&mut self.rem)
            }
        }
    };
}

remainder_mut!(ChunksExactMut, "last");
remainder_mut!(RChunksExactMut, "first");
