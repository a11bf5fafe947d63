//! Parallel iterators over inclusive ranges of integers, `forkjoin::range_inclusive`, as
//! rayon's `range_inclusive`.
//!
//! `a..=b` of `u8`, `u16`, `i8` and `i16` is indexed; the others are not (their length may
//! not fit a `usize`: `0..=usize::MAX`), but run on the indexed machinery wherever it fits.
//!
//! ```
//! use forkjoin::prelude::*;
//! assert_eq!((1..=100u32).into_par_iter().sum::<u32>(), 5050);
//! assert_eq!((-3i8..=3).into_par_iter().collect::<Vec<_>>(), [-3, -2, -1, 0, 1, 2, 3]);
//! assert_eq!((0..=u8::MAX).into_par_iter().count(), 256);
//! ```

use super::range::{drive_wide, OffsetProducer};
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::RangeInclusive;

/// A parallel iterator over an inclusive range (`(a..=b).into_par_iter()`).
#[derive(Debug, Clone)]
pub struct Iter<T> {
    range: RangeInclusive<T>,
}

impl<T> IntoParallelIterator for RangeInclusive<T>
where
    Iter<T>: ParallelIterator,
{
    type Item = <Iter<T> as ParallelIterator>::Item;
    type Iter = Iter<T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter { range: self }
    }
}

macro_rules! bounds {
    ($self:ident, $u:ty) => {{
        // An exhausted `RangeInclusive` reports itself empty even if `start <= end`.
        if $self.range.is_empty() {
            None
        } else {
            let (start, end) = ($self.range.start(), $self.range.end());
            Some((*start, end.wrapping_sub(*start) as $u as u128 + 1))
        }
    }};
}

macro_rules! indexed_inclusive {
    ($($t:ty : $u:ty),*) => {$(
        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<$t>,
            {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl IndexedParallelIterator for Iter<$t> {
            fn len(&self) -> usize {
                bounds!(self, $u).map_or(0, |(_, n)| n as usize)
            }

            fn drive<C: Consumer<$t>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                let (start, n) = bounds!(self, $u).unwrap_or((0, 0));
                callback.callback(OffsetProducer { start, offsets: 0..n as usize })
            }
        }
    )*};
}

indexed_inclusive! { u8: u8, u16: u16, i8: u8, i16: u16 }

macro_rules! wide_inclusive {
    ($($t:ty : $u:ty),*) => {$(
        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<$t>,
            {
                let (start, n) = bounds!(self, $u).unwrap_or((0, 0));
                drive_wide(start, n, |s, k| s.wrapping_add(k as $t), consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                bounds!(self, $u).map_or(Some(0), |(_, n)| usize::try_from(n).ok())
            }
        }
    )*};
}

wide_inclusive! { u32: u32, i32: u32, usize: usize, isize: usize, u64: u64, i64: u64 }
