//! `by_exponential_blocks` and `by_uniform_blocks`: the items in a *sequence* of blocks,
//! each block a parallel loop of its own, the next started only once the previous one is
//! done (and none once the consumer is full: a `find_first` stops at the first block that
//! holds a match).

use crate::iter::plumbing::{
    bridge_producer_consumer, Consumer, Folder, Producer, ProducerCallback, Reducer,
    UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `by_exponential_blocks`. See [`IndexedParallelIterator::by_exponential_blocks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    #[inline]
    pub(crate) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

/// `by_uniform_blocks`. See [`IndexedParallelIterator::by_uniform_blocks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> UniformBlocks<I> {
    #[inline]
    pub(crate) fn new(base: I, block_size: usize) -> Self {
        UniformBlocks { base, block_size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        // As rayon: the first block as long as the pool has workers, then twice as long
        // each time.
        let first = crate::current_num_threads();
        let sizes = std::iter::successors(Some(first), |&n| Some(n.saturating_mul(2)));
        by_blocks(self.base, sizes, consumer)
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        by_blocks(self.base, std::iter::repeat(self.block_size), consumer)
    }
}

/// Runs `base` into `consumer` one block after another, of the `sizes` given.
#[inline]
fn by_blocks<I, S, C>(base: I, sizes: S, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    S: Iterator<Item = usize>,
    C: Consumer<I::Item>,
{
    struct Callback<S, C> {
        sizes: S,
        consumer: C,
        len: usize,
    }

    impl<T, S, C> ProducerCallback<T> for Callback<S, C>
    where
        S: Iterator<Item = usize>,
        C: Consumer<T>,
    {
        type Output = C::Result;

        #[inline]
        fn callback<P: Producer<Item = T>>(self, mut producer: P) -> C::Result {
            let Callback {
                mut sizes,
                mut consumer,
                mut len,
            } = self;
            // The blocks done so far, with the reducer joining them to what follows.
            let mut done: Option<(C::Result, C::Reducer)> = None;
            while len > 0 && !consumer.full() {
                let size = sizes.next().unwrap_or(usize::MAX).clamp(1, len);
                let (block, rest) = producer.split_at(size);
                let (block_c, rest_c, reducer) = consumer.split_at(size);
                let result = bridge_producer_consumer(size, block, block_c);
                let result = match done {
                    Some((left, previous)) => previous.reduce(left, result),
                    None => result,
                };
                done = Some((result, reducer));
                producer = rest;
                consumer = rest_c;
                len -= size;
            }
            let rest = consumer.into_folder().complete();
            match done {
                Some((left, reducer)) => reducer.reduce(left, rest),
                None => rest,
            }
        }
    }

    let len = base.len();
    base.with_producer(Callback {
        sizes,
        consumer,
        len,
    })
}
