//! `once(x)`: a parallel iterator of one item, as rayon's `iter::once`.

use super::empty::fixed_len;
use crate::iter::plumbing::{Consumer, Folder, ProducerCallback};
use crate::iter::IntoParallelIterator;

/// A parallel iterator that produces `item` once: to chain one item to other iterators,
/// or for code generic over parallel iterators.
///
/// ```
/// use forkjoin::iter::once;
/// use forkjoin::prelude::*;
/// let all = (0..1000).into_par_iter().chain(once(-1)).chain(1000..2000);
/// assert_eq!(all.clone().count(), 2001);
/// assert_eq!(all.position_any(|x| x < 0), Some(1000));
/// ```
#[inline]
pub fn once<T: Send>(item: T) -> Once<T> {
    Once { item }
}

/// The iterator [`once()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Once<T> {
    item: T,
}

fixed_len! {
    Once, 1,
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        // One item cannot be shared: fold it here.
        consumer.into_folder().consume(self.item).complete()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // An `Option`'s producer is exactly this: zero or one item.
        Some(self.item).into_par_iter().with_producer(callback)
    }
}
