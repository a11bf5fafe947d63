//! The fixed-size chunk families beside `par_chunks`: `par_chunks_exact`, `par_rchunks`
//! and `par_rchunks_exact`, and their `_mut` forms. A piece of `k` chunks covers `k *
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

            fn into_iter(self) -> Self::IntoIter {
                self.slice.$method(self.chunk_size)
            }

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

chunk_producer!(ChunksExactProducer, &'data [T], Sync, split_at, chunks_exact -> ChunksExact, from_end: false);
chunk_producer!(ChunksExactMutProducer, &'data mut [T], Send, split_at_mut, chunks_exact_mut -> ChunksExactMut, from_end: false);
chunk_producer!(RChunksProducer, &'data [T], Sync, split_at, rchunks -> RChunks, from_end: true);
chunk_producer!(RChunksMutProducer, &'data mut [T], Send, split_at_mut, rchunks_mut -> RChunksMut, from_end: true);
chunk_producer!(RChunksExactProducer, &'data [T], Sync, split_at, rchunks_exact -> RChunksExact, from_end: true);
chunk_producer!(RChunksExactMutProducer, &'data mut [T], Send, split_at_mut, rchunks_exact_mut -> RChunksExactMut, from_end: true);

/// The iterator traits of a chunk iterator with fields `chunk_size` and `slice`.
macro_rules! chunk_iter {
    ($iter:ident, $slice:ty, $bound:ident, $producer:ident, |$n:ident, $size:ident| $len:expr) => {
        indexed_via_producer!(['data, T: $bound + 'data] $iter<'data, T> => $slice,
            |this| len { let ($n, $size) = (this.slice.len(), this.chunk_size); $len },
            producer $producer { chunk_size: this.chunk_size, slice: this.slice });
    };
}

/// A chunk iterator that leaves out a remainder: `$split` cuts the slice into the chunks'
/// part and the remainder.
macro_rules! exact_chunks {
    ($(#[$doc:meta])* $iter:ident, $producer:ident, $which:literal,
     |$s:ident, $rem:ident| $split:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $iter<'data, T> {
            chunk_size: usize,
            slice: &'data [T],
            rem: &'data [T],
        }

        impl<T> Clone for $iter<'_, T> {
            fn clone(&self) -> Self {
                $iter { ..*self }
            }
        }

        impl<'data, T> $iter<'data, T> {
            pub(super) fn new(chunk_size: usize, $s: &'data [T]) -> Self {
                let $rem = $s.len() % chunk_size;
                let (slice, rem) = $split;
                $iter {
                    chunk_size,
                    slice,
                    rem,
                }
            }

            #[doc = concat!("The ", $which, " elements, fewer than `chunk_size`, that no chunk holds.")]
            pub fn remainder(&self) -> &'data [T] {
                self.rem
            }
        }

        chunk_iter!($iter, &'data [T], Sync, $producer, |n, size| n / size);
    };
}

exact_chunks!(
    /// Chunks of exactly `chunk_size` elements, from the front (`par_chunks_exact`); the
    /// elements left over are the [`remainder`](ChunksExact::remainder).
    ChunksExact, ChunksExactProducer, "last",
    |slice, rem| slice.split_at(slice.len() - rem)
);
exact_chunks!(
    /// Chunks of exactly `chunk_size` elements, from the back (`par_rchunks_exact`); the
    /// elements left over at the front are the [`remainder`](RChunksExact::remainder).
    RChunksExact, RChunksExactProducer, "first",
    |slice, rem| { let (rem, chunks) = slice.split_at(rem); (chunks, rem) }
);

/// Chunks of `chunk_size` elements from the back, the last (at the front) perhaps
/// shorter (`par_rchunks`).
#[derive(Debug)]
pub struct RChunks<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

impl<'data, T> RChunks<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        RChunks { chunk_size, slice }
    }
}

chunk_iter!(RChunks, &'data [T], Sync, RChunksProducer, |n, size| n
    .div_ceil(size));

/// `exact_chunks!` for mutable chunks, whose remainder is given away or borrowed.
macro_rules! exact_chunks_mut {
    ($(#[$doc:meta])* $iter:ident, $producer:ident, $which:literal,
     |$s:ident, $rem:ident| $split:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $iter<'data, T> {
            chunk_size: usize,
            slice: &'data mut [T],
            rem: &'data mut [T],
        }

        impl<'data, T> $iter<'data, T> {
            pub(super) fn new(chunk_size: usize, $s: &'data mut [T]) -> Self {
                let $rem = $s.len() % chunk_size;
                let (slice, rem) = $split;
                $iter {
                    chunk_size,
                    slice,
                    rem,
                }
            }

            #[doc = concat!("The ", $which, " elements, fewer than `chunk_size`, that no chunk holds.")]
            pub fn into_remainder(self) -> &'data mut [T] {
                self.rem
            }

            #[doc = concat!("The ", $which, " elements that no chunk holds, borrowed.")]
            pub fn remainder(&mut self) -> &mut [T] {
                self.rem
            }

            #[doc = concat!("Takes the ", $which, " elements that no chunk holds, leaving none.")]
            pub fn take_remainder(&mut self) -> &'data mut [T] {
                std::mem::take(&mut self.rem)
            }
        }

        chunk_iter!($iter, &'data mut [T], Send, $producer, |n, size| n / size);
    };
}

exact_chunks_mut!(
    /// Mutable chunks of exactly `chunk_size` elements, from the front
    /// (`par_chunks_exact_mut`); the elements left over are the remainder.
    ChunksExactMut, ChunksExactMutProducer, "last",
    |slice, rem| { let end = slice.len() - rem; slice.split_at_mut(end) }
);
exact_chunks_mut!(
    /// Mutable chunks of exactly `chunk_size` elements, from the back
    /// (`par_rchunks_exact_mut`); the elements left over at the front are the remainder.
    RChunksExactMut, RChunksExactMutProducer, "first",
    |slice, rem| { let (rem, chunks) = slice.split_at_mut(rem); (chunks, rem) }
);

/// Mutable chunks of `chunk_size` elements from the back, the last (at the front)
/// perhaps shorter (`par_rchunks_mut`).
#[derive(Debug)]
pub struct RChunksMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
}

impl<'data, T> RChunksMut<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        RChunksMut { chunk_size, slice }
    }
}

chunk_iter!(
    RChunksMut,
    &'data mut [T],
    Send,
    RChunksMutProducer,
    |n, size| n.div_ceil(size)
);
