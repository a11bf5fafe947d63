//! `chunks`: groups of `chunk_size` items, each collected into a `Vec` (producer-side: a
//! piece of `k` chunks covers `k * chunk_size` items of the base). The producer is shared
//! with `fold_chunks`, which folds each group instead ([`ChunkOp`]).

use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `chunks`. See [`IndexedParallelIterator::chunks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    #[inline]
    pub(crate) fn new(base: I, size: usize) -> Self {
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

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

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    #[inline]
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let size = self.size;
        with_chunk_producer(self.base, size, CollectChunk, callback)
    }
}

/// What becomes of a chunk of items: `chunks` collects it, `fold_chunks` folds it.
pub(crate) trait ChunkOp<T>: Clone + Send {
    type Out: Send;
    fn apply<I: Iterator<Item = T>>(&self, chunk: I) -> Self::Out;
}

#[derive(Clone, Copy)]
struct CollectChunk;

impl<T: Send> ChunkOp<T> for CollectChunk {
    type Out = Vec<T>;
    #[inline]
    fn apply<I: Iterator<Item = T>>(&self, chunk: I) -> Vec<T> {
        chunk.collect()
    }
}

/// Calls `callback` with a producer of `base`'s items in chunks of `size`, each turned
/// into one item by `op`.
#[inline]
pub(crate) fn with_chunk_producer<I, Op, CB>(
    base: I,
    size: usize,
    op: Op,
    callback: CB,
) -> CB::Output
where
    I: IndexedParallelIterator,
    Op: ChunkOp<I::Item>,
    CB: ProducerCallback<Op::Out>,
{
    struct Callback<CB, Op> {
        callback: CB,
        size: usize,
        len: usize,
        op: Op,
    }

    impl<T, Op: ChunkOp<T>, CB: ProducerCallback<Op::Out>> ProducerCallback<T> for Callback<CB, Op> {
        type Output = CB::Output;
        #[inline]
        fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
            self.callback.callback(ChunkProducer {
                base: Some(base),
                size: self.size,
                len: self.len,
                op: self.op,
            })
        }
    }

    let len = base.len();
    base.with_producer(Callback {
        callback,
        size,
        len,
        op,
    })
}

/// `len` items of the base, in chunks of `size`.
struct ChunkProducer<P, Op> {
    base: Option<P>,
    size: usize,
    len: usize,
    op: Op,
}

impl<P: Producer, Op: ChunkOp<P::Item>> Producer for ChunkProducer<P, Op> {
    type Item = Op::Out;
    type IntoIter = ChunkSeq<P, Op>;

    #[inline]
    fn into_iter(self) -> ChunkSeq<P, Op> {
        ChunkSeq {
            base: self.base,
            size: self.size,
            len: self.len,
            op: self.op,
        }
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let elem = (index * self.size).min(self.len);
        let (left, right) = match self.base {
            Some(base) => {
                let (l, r) = base.split_at(elem);
                (Some(l), Some(r))
            }
            None => (None, None),
        };
        (
            ChunkProducer {
                base: left,
                size: self.size,
                len: elem,
                op: self.op.clone(),
            },
            ChunkProducer {
                base: right,
                size: self.size,
                len: self.len - elem,
                op: self.op,
            },
        )
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(1, |b| b.min_len().div_ceil(self.size))
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(usize::MAX, |b| b.max_len() / self.size)
    }
}

/// Cuts one chunk at a time off the base producer.
struct ChunkSeq<P, Op> {
    base: Option<P>,
    size: usize,
    len: usize,
    op: Op,
}

impl<P: Producer, Op: ChunkOp<P::Item>> Iterator for ChunkSeq<P, Op> {
    type Item = Op::Out;

    #[inline]
    fn next(&mut self) -> Option<Op::Out> {
        let base = self.base.take()?;
        if self.len > self.size {
            let (chunk, rest) = base.split_at(self.size);
            self.base = Some(rest);
            self.len -= self.size;
            Some(self.op.apply(chunk.into_iter()))
        } else {
            // The last chunk (empty only if the whole producer was).
            let len = std::mem::take(&mut self.len);
            (len > 0).then(|| self.op.apply(base.into_iter()))
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = if self.base.is_some() {
            self.len.div_ceil(self.size)
        } else {
            0
        };
        (n, Some(n))
    }
}

impl<P: Producer, Op: ChunkOp<P::Item>> DoubleEndedIterator for ChunkSeq<P, Op> {
    #[inline]
    fn next_back(&mut self) -> Option<Op::Out> {
        let base = self.base.take()?;
        if self.len > self.size {
            // The last chunk is the remainder, or a whole one.
            let last = match self.len % self.size {
                0 => self.size,
                r => r,
            };
            let (rest, chunk) = base.split_at(self.len - last);
            self.base = Some(rest);
            self.len -= last;
            Some(self.op.apply(chunk.into_iter()))
        } else {
            // The last chunk (empty only if the whole producer was).
            let len = std::mem::take(&mut self.len);
            (len > 0).then(|| self.op.apply(base.into_iter()))
        }
    }
}

impl<P: Producer, Op: ChunkOp<P::Item>> ExactSizeIterator for ChunkSeq<P, Op> {}
