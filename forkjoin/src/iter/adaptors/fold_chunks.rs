//! `fold_chunks` and `fold_chunks_with`: `chunks` with every chunk folded into one value
//! as it is cut, not collected (the chunk producer is `chunks`'s).

use super::chunks::{with_chunk_producer, ChunkOp};
use crate::iter::leaf::fold_moving;
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// `fold_chunks`. See [`IndexedParallelIterator::fold_chunks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldChunks<I, ID, F> {
    base: I,
    chunk_size: usize,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for FoldChunks<I, ID, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .finish()
    }
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    #[inline]
    pub(crate) fn new(base: I, chunk_size: usize, identity: ID, fold_op: F) -> Self {
        FoldChunks {
            base,
            chunk_size,
            identity,
            fold_op,
        }
    }
}

/// `fold_chunks_with`. See [`IndexedParallelIterator::fold_chunks_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldChunksWith<I, U, F> {
    base: I,
    chunk_size: usize,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldChunksWith<I, U, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksWith")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> FoldChunksWith<I, U, F> {
    #[inline]
    pub(crate) fn new(base: I, chunk_size: usize, item: U, fold_op: F) -> Self {
        FoldChunksWith {
            base,
            chunk_size,
            item,
            fold_op,
        }
    }
}

/// `fold_chunks`'s chunk: folded from `identity()`.
struct FromIdentity<'f, ID, F> {
    identity: &'f ID,
    fold_op: &'f F,
}

impl<ID, F> Clone for FromIdentity<'_, ID, F> {
    #[inline]
    fn clone(&self) -> Self {
        FromIdentity { ..*self }
    }
}

impl<T, U, ID, F> ChunkOp<T> for FromIdentity<'_, ID, F>
where
    ID: Fn() -> U + Sync,
    F: Fn(U, T) -> U + Sync,
    U: Send,
{
    type Out = U;
    #[inline]
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> U {
        fold_moving(chunk, (self.identity)(), self.fold_op)
    }
}

/// `fold_chunks_with`'s chunk: folded from a clone of the value given (each piece of work
/// has a clone of its own, so the value need not be `Sync`).
struct FromClone<'f, U, F> {
    item: U,
    fold_op: &'f F,
}

impl<U: Clone, F> Clone for FromClone<'_, U, F> {
    #[inline]
    fn clone(&self) -> Self {
        FromClone {
            item: self.item.clone(),
            fold_op: self.fold_op,
        }
    }
}

impl<T, U, F> ChunkOp<T> for FromClone<'_, U, F>
where
    F: Fn(U, T) -> U + Sync,
    U: Clone + Send,
{
    type Out = U;
    #[inline]
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> U {
        fold_moving(chunk, self.item.clone(), self.fold_op)
    }
}

macro_rules! fold_chunks_adaptor {
    ([$($g:tt)*] $name:ty => $out:ty, [$($w:tt)*], |$b:ident, $size:ident| $parts:pat => $op:expr) => {
        impl<$($g)*> ParallelIterator for $name
        where
            $($w)*
        {
            type Item = $out;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<$out>,
            {
                bridge(self, consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($g)*> IndexedParallelIterator for $name
        where
            $($w)*
        {
            #[inline]
            fn len(&self) -> usize {
                self.base.len().div_ceil(self.chunk_size)
            }

            #[inline]
            fn drive<C: Consumer<$out>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            #[inline]
            fn with_producer<CB: ProducerCallback<$out>>(self, callback: CB) -> CB::Output {
                let $parts = self;
                with_chunk_producer($b, $size, $op, callback)
            }
        }
    };
}

fold_chunks_adaptor!([I, ID, U, F] FoldChunks<I, ID, F> => U,
    [I: IndexedParallelIterator, ID: Fn() -> U + Send + Sync, F: Fn(U, I::Item) -> U + Send + Sync, U: Send],
    |base, chunk_size| FoldChunks { base, chunk_size, identity, fold_op }
        => FromIdentity { identity: &identity, fold_op: &fold_op });
fold_chunks_adaptor!([I, U, F] FoldChunksWith<I, U, F> => U,
    [I: IndexedParallelIterator, F: Fn(U, I::Item) -> U + Send + Sync, U: Send + Clone],
    |base, chunk_size| FoldChunksWith { base, chunk_size, item, fold_op }
        => FromClone { item, fold_op: &fold_op });
