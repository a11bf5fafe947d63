//! `chunks`: groups of `chunk_size` items, each collected into a `Vec` (producer-side: a
//! piece of `k` chunks covers `k * chunk_size` items of the base).

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
    pub(crate) fn new(base: I, size: usize) -> Self {
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

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

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB> {
            callback: CB,
            size: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(ChunkProducer {
                    base: Some(base),
                    size: self.size,
                    len: self.len,
                })
            }
        }

        let len = self.base.len();
        let size = self.size;
        self.base.with_producer(Callback {
            callback,
            size,
            len,
        })
    }
}

/// `len` items of the base, in chunks of `size`.
struct ChunkProducer<P> {
    base: Option<P>,
    size: usize,
    len: usize,
}

impl<P: Producer> Producer for ChunkProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkSeq<P>;

    fn into_iter(self) -> ChunkSeq<P> {
        ChunkSeq {
            base: self.base,
            size: self.size,
            len: self.len,
        }
    }

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
            },
            ChunkProducer {
                base: right,
                size: self.size,
                len: self.len - elem,
            },
        )
    }

    fn min_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(1, |b| b.min_len().div_ceil(self.size))
    }

    fn max_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(usize::MAX, |b| b.max_len() / self.size)
    }
}

/// Cuts one chunk at a time off the base producer.
struct ChunkSeq<P> {
    base: Option<P>,
    size: usize,
    len: usize,
}

impl<P: Producer> Iterator for ChunkSeq<P> {
    type Item = Vec<P::Item>;

    fn next(&mut self) -> Option<Vec<P::Item>> {
        let base = self.base.take()?;
        if self.len > self.size {
            let (chunk, rest) = base.split_at(self.size);
            self.base = Some(rest);
            self.len -= self.size;
            Some(chunk.into_iter().collect())
        } else {
            self.len = 0;
            let chunk: Vec<_> = base.into_iter().collect();
            (!chunk.is_empty()).then_some(chunk)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = if self.base.is_some() {
            self.len.div_ceil(self.size)
        } else {
            0
        };
        (n, Some(n))
    }
}

impl<P: Producer> DoubleEndedIterator for ChunkSeq<P> {
    fn next_back(&mut self) -> Option<Vec<P::Item>> {
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
            Some(chunk.into_iter().collect())
        } else {
            self.len = 0;
            let chunk: Vec<_> = base.into_iter().collect();
            (!chunk.is_empty()).then_some(chunk)
        }
    }
}

impl<P: Producer> ExactSizeIterator for ChunkSeq<P> {}
