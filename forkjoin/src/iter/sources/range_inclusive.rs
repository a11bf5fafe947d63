//! Parallel iterators over inclusive ranges of integers, `forkjoin::range_inclusive`, as
//! rayon's `range_inclusive`.
//!
//! `a..=b` of `u8`, `u16`, `i8`, `i16` and `char` is indexed; the others are not (their
//! length may not fit a `usize`: `0..=usize::MAX`), but run on the indexed machinery
//! wherever it fits. A range of `char` skips the surrogate code points, as
//! `RangeInclusive<char>` does.
//!
//! ```
//! use forkjoin::prelude::*;
//! assert_eq!((1..=100u32).into_par_iter().sum::<u32>(), 5050);
//! assert_eq!((-3i8..=3).into_par_iter().collect::<Vec<_>>(), [-3, -2, -1, 0, 1, 2, 3]);
//! assert_eq!((0..=u8::MAX).into_par_iter().count(), 256);
//! assert_eq!(('\u{D7FF}'..='\u{E000}').into_par_iter().count(), 2);
//! assert_eq!((0..=u128::MAX).into_par_iter().opt_len(), None);
//! let pairs: Vec<(u8, char)> = (1..=3u8).into_par_iter().zip('a'..='c').collect();
//! assert_eq!(pairs, [(1, 'a'), (2, 'b'), (3, 'c')]);
//! ```
//!
//! An `i32` inclusive range is not indexed, as in rayon (`0..=i32::MAX` has more items than
//! a 32-bit `usize` counts), so it cannot be zipped:
//!
//! ```compile_fail
//! use forkjoin::prelude::*;
//! let pairs: Vec<(i32, i32)> = (1..=3i32).into_par_iter().zip(1..=3i32).collect();
//! ```

use super::range::{char_index, drive_wide, CharProducer, OffsetProducer, RangeProducer};
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, Reducer, UnindexedConsumer};
use crate::iter::splitter::join_in_order;
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

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        Iter { range: self }
    }
}

/// `Some((start, last))` for a range of `last + 1` items from `start`, `None` if it is
/// empty. (The count itself may not fit even a `u128`: `0..=u128::MAX`.)
macro_rules! bounds {
    ($self:ident, $u:ty) => {{
        // An exhausted `RangeInclusive` reports itself empty even if `start <= end`.
        if $self.range.is_empty() {
            None
        } else {
            let (start, end) = ($self.range.start(), $self.range.end());
            Some((*start, end.wrapping_sub(*start) as $u as u128))
        }
    }};
}

/// Runs the `last + 1` items from `start` (`add(start, n)` is the item `n` places on). Only
/// a whole 128-bit range has more items than a `u128` counts: it is run as two halves.
#[inline]
fn drive_inclusive<T, C>(start: T, last: u128, add: fn(T, u128) -> T, consumer: C) -> C::Result
where
    T: Copy + Send,
    OffsetProducer<T>: crate::iter::plumbing::Producer<Item = T>,
    C: UnindexedConsumer<T>,
{
    if let Some(len) = last.checked_add(1) {
        return drive_wide(start, len, add, consumer);
    }
    let half = 1u128 << 127;
    let left = consumer.split_off_left();
    let reducer = consumer.to_reducer();
    let (l, r) = join_in_order(
        C::RIGHT_FIRST,
        move || drive_wide(start, half, add, left),
        move || drive_wide(add(start, half), half, add, consumer),
    );
    reducer.reduce(l, r)
}

// `Integer` and `IndexedInteger`, and the generic impls over them, as in `range`.
super::range::generic_over_integers!();

macro_rules! indexed_inclusive {
    ($($t:ty : $u:ty),*) => {$(
        impl Integer for $t {
            #[inline]
            fn drive_range<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }

            #[inline]
            fn range_len(iter: &Iter<$t>) -> Option<usize> {
                Some(<$t>::indexed_len(iter))
            }
        }

        impl IndexedInteger for $t {
            #[inline]
            fn indexed_len(iter: &Iter<$t>) -> usize {
                bounds!(iter, $u).map_or(0, |(_, last)| last as usize + 1)
            }

            #[inline]
            fn range_producer<CB: ProducerCallback<$t>>(iter: Iter<$t>, callback: CB) -> CB::Output {
                let (start, n) = bounds!(iter, $u).map_or((0, 0), |(s, last)| (s, last as usize + 1));
                // Below the type's maximum, std's exclusive range runs it, as rayon's does:
                // std's `Zip` reads it by position, so zipped with a shorter side it runs
                // none of this side's extra items.
                match (*iter.range.end()).checked_add(1) {
                    Some(end) if n > 0 => callback.callback(RangeProducer { range: start..end }),
                    _ => callback.callback(OffsetProducer { start, offsets: 0..n }),
                }
            }
        }
    )*};
}

indexed_inclusive! { u8: u8, u16: u16, i8: u8, i16: u16 }

macro_rules! wide_inclusive {
    ($($t:ty : $u:ty),*) => {$(
        impl Integer for $t {
            #[inline]
            fn drive_range<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                match bounds!(iter, $u) {
                    Some((start, last)) => {
                        drive_inclusive(start, last, |s, k| s.wrapping_add(k as $t), consumer)
                    }
                    None => drive_wide(0, 0, |s, k| s.wrapping_add(k as $t), consumer),
                }
            }

            #[inline]
            fn range_len(iter: &Iter<$t>) -> Option<usize> {
                match bounds!(iter, $u) {
                    Some((_, last)) => last.checked_add(1).and_then(|n| usize::try_from(n).ok()),
                    None => Some(0),
                }
            }
        }
    )*};
}

wide_inclusive! {
    u32: u32, i32: u32, usize: usize, isize: usize, u64: u64, i64: u64, u128: u128, i128: u128
}

impl Iter<char> {
    /// The indices of the range's chars (see `range::char_index`; empty if the range is).
    #[inline]
    fn indices(&self) -> std::ops::Range<u32> {
        if self.range.is_empty() {
            0..0
        } else {
            // The last char's index is below `u32::MAX`: the `+ 1` cannot overflow.
            char_index(*self.range.start())..char_index(*self.range.end()) + 1
        }
    }
}

impl ParallelIterator for Iter<char> {
    type Item = char;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<char>,
    {
        bridge(self, consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Iter<char> {
    #[inline]
    fn len(&self) -> usize {
        self.indices().len()
    }

    #[inline]
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        callback.callback(CharProducer {
            indices: self.indices(),
        })
    }
}
