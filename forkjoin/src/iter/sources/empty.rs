//! `empty()`: a parallel iterator with no items, as rayon's `iter::empty`.

use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback};
use std::fmt;
use std::marker::PhantomData;

/// A parallel iterator that produces nothing: a neutral piece for code generic over
/// parallel iterators.
///
/// ```
/// use forkjoin::iter::empty;
/// use forkjoin::prelude::*;
/// let all = (0..1000).into_par_iter().chain(empty()).chain(1000..2000);
/// assert_eq!(all.count(), 2000);
/// assert!(empty::<u8>().collect::<Vec<u8>>().is_empty());
/// ```
#[inline]
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        _items: PhantomData,
    }
}

/// The iterator [`empty()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct Empty<T> {
    // `fn() -> T`: an `Empty` holds no `T`, so it is `Send`, `Sync` and `Clone` whatever `T`.
    _items: PhantomData<fn() -> T>,
}

impl<T> Clone for Empty<T> {
    #[inline]
    fn clone(&self) -> Self {
        Empty {
            _items: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Empty<T> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Empty")
    }
}

/// The iterator traits of a source of a fixed number of items, `$len`, too few to split:
/// `drive_unindexed` is `drive`, and the source gives `drive` and `with_producer`. (Shared
/// with `once`.)
macro_rules! fixed_len {
    ($name:ident, $len:literal, $($drive_and_with_producer:tt)*) => {
        impl<T: Send> $crate::iter::ParallelIterator for $name<T> {
            type Item = T;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<T>,
            {
                $crate::iter::IndexedParallelIterator::drive(self, consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                Some($len)
            }
        }

        impl<T: Send> $crate::iter::IndexedParallelIterator for $name<T> {
            #[inline]
            fn len(&self) -> usize {
                $len
            }

            $($drive_and_with_producer)*
        }
    };
}
pub(super) use fixed_len;

fixed_len! {
    Empty, 0,
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        // Nothing to split: the consumer's empty result, without entering the pool.
        consumer.into_folder().complete()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(EmptyProducer(PhantomData))
    }
}

/// The producer of [`Empty`].
struct EmptyProducer<T>(PhantomData<fn() -> T>);

impl<T: Send> Producer for EmptyProducer<T> {
    type Item = T;
    type IntoIter = std::iter::Empty<T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        std::iter::empty()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert_eq!(index, 0);
        (self, EmptyProducer(PhantomData))
    }

    #[inline]
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder
    }
}
