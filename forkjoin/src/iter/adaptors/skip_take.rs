//! `skip` and `take`: the producer is split once, at the start. `take` drops the part after
//! its items unrun (an owning producer drops its items then); `skip`, as rayon's, runs the
//! part it skips for the side effects of the closures before it, after the items it keeps.

use crate::iter::consumers::for_each::ForEachConsumer;
use crate::iter::plumbing::{
    bridge, bridge_producer_consumer, Consumer, Producer, ProducerCallback, UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::panic::catch;

/// `skip`. See [`IndexedParallelIterator::skip`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    #[inline]
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

/// `take`. See [`IndexedParallelIterator::take`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    #[inline]
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

/// Splits the base's producer at `n` and hands on the left part (`take`) or the right
/// (`skip`, which then runs the left part into a consumer that drops its items).
struct Callback<CB> {
    callback: CB,
    n: usize,
    keep_left: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
    type Output = CB::Output;
    #[inline]
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (left, right) = base.split_at(self.n);
        if self.keep_left {
            drop(right);
            self.callback.callback(left)
        } else {
            // rayon runs the skipped part in a scope beside the rest: every closure before
            // the `skip` runs on every item, and a panic in the skipped part reaches the
            // caller. Here it runs after the rest (as on rayon's single worker), in
            // parallel itself; a panic in either part waits for the other to finish, and the
            // kept part's is raised first.
            let kept = catch(|| self.callback.callback(right));
            let skipped = catch(|| {
                bridge_producer_consumer(self.n, left, ForEachConsumer { op: &drop::<T> })
            });
            match (kept, skipped) {
                (Ok(out), Ok(())) => out,
                (Err(panic), _) | (Ok(_), Err(panic)) => panic.resume(),
            }
        }
    }
}

macro_rules! split_once {
    ($name:ident, |$this:ident| $len:expr, $keep_left:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

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

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            #[inline]
            fn len(&self) -> usize {
                let $this = self;
                $len
            }

            #[inline]
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            #[inline]
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                self.base.with_producer(Callback {
                    callback,
                    n: self.n,
                    keep_left: $keep_left,
                })
            }
        }
    };
}

split_once!(Skip, |this| this.base.len() - this.n, false);
split_once!(Take, |this| this.n, true);
