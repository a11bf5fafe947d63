//! The adaptors: each wraps the producer and/or the consumer of the iterator it adapts,
//! as rayon's adaptors do, so a chain of them folds as one sequential loop per chunk.

pub(crate) mod blocks;
pub(crate) mod chain;
pub(crate) mod chunks;
pub(crate) mod cloned;
pub(crate) mod deterministic;
pub(crate) mod enumerate;
pub(crate) mod filter;
pub(crate) mod flat_map;
pub(crate) mod flatten;
pub(crate) mod fold;
pub(crate) mod fold_chunks;
pub(crate) mod interleave;
pub(crate) mod intersperse;
pub(crate) mod item_wise;
pub(crate) mod len;
pub(crate) mod map;
pub(crate) mod multizip;
pub(crate) mod panic_fuse;
pub(crate) mod positions;
pub(crate) mod rev;
pub(crate) mod skip_take;
pub(crate) mod skip_take_any;
pub(crate) mod step_by;
pub(crate) mod update;
pub(crate) mod while_some;
pub(crate) mod zip;
pub(crate) mod zip_eq;

pub(crate) mod inspect {
    //! `inspect` lives with `cloned` and `copied`, which share its machinery.
    pub use super::cloned::Inspect;
}

/// Implements the iterator traits of an adaptor that is another adaptor underneath (its
/// field `inner`), as `zip_eq` is `zip`.
macro_rules! delegate_indexed {
    ([$($g:tt)*] $name:ty => $item:ty, [$($w:tt)*]) => {
        impl<$($g)*> $crate::iter::ParallelIterator for $name
        where
            $($w)*
        {
            type Item = $item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<$item>,
            {
                self.inner.drive_unindexed(consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }

        impl<$($g)*> $crate::iter::IndexedParallelIterator for $name
        where
            $($w)*
        {
            #[inline]
            fn len(&self) -> usize {
                self.inner.len()
            }

            #[inline]
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::Consumer<$item>,
            {
                self.inner.drive(consumer)
            }

            #[inline]
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: $crate::iter::plumbing::ProducerCallback<$item>,
            {
                self.inner.with_producer(callback)
            }
        }
    };
}
pub(crate) use delegate_indexed;
