//! Parallel iterators over ranges of integers, `forkjoin::range`, as rayon's `range`.
//!
//! `a..b` of `u8`, `u16`, `u32`, `usize`, `i8`, `i16`, `i32`, `isize` and `char` is indexed:
//! it can be zipped, enumerated and collected in place. `u64`, `i64`, `u128` and `i128`
//! ranges are not (as in rayon: their length need not fit a `usize`), but where their length
//! fits they run on the same indexed machinery underneath, so they cost the same. A range
//! of `char` skips the surrogate code points (`U+D800..=U+DFFF`), as `Range<char>` does.
//!
//! ```
//! use forkjoin::prelude::*;
//! let r = forkjoin::range::Iter::from(0..100u32);
//! assert_eq!(r.sum::<u32>(), 4950);
//! assert_eq!((-5i64..5).into_par_iter().sum::<i64>(), -5);
//! let big = u128::from(u64::MAX);
//! assert_eq!((big..big + 4).into_par_iter().max(), Some(big + 3));
//! assert_eq!(('a'..'e').into_par_iter().collect::<String>(), "abcd");
//! ```
//!
//! A 128-bit range is not indexed, as in rayon:
//!
//! ```compile_fail
//! use forkjoin::prelude::*;
//! let n = (0..10u128).into_par_iter().len();
//! ```

use crate::iter::plumbing::{
    bridge, bridge_producer_consumer, Consumer, Folder, Producer, ProducerCallback,
    UnindexedConsumer,
};
use crate::iter::splitter::join_in_order;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::Range;

/// A parallel iterator over a range (`(a..b).into_par_iter()`).
#[derive(Debug, Clone)]
pub struct Iter<T> {
    range: Range<T>,
}

impl<T> From<Range<T>> for Iter<T> {
    #[inline]
    fn from(range: Range<T>) -> Self {
        Iter { range }
    }
}

impl<T> IntoParallelIterator for Range<T>
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

/// The producer of an indexed range.
pub(crate) struct RangeProducer<T> {
    pub(crate) range: Range<T>,
}

/// Declares, in a range module (`range`, `range_inclusive`), the sealed traits `Integer`
/// (how a range of each integer type runs) and `IndexedInteger` (and how it splits), and
/// implements `ParallelIterator` and `IndexedParallelIterator` for the module's `Iter<T>`
/// once over them. One generic impl, rather than one per type, lets the compiler see
/// `Item = T` before it knows `T`, as rayon's does: `(0..8).into_par_iter().map(|x| -x)`
/// compiles, and the literals take the default integer type.
macro_rules! generic_over_integers {
    () => {
        mod integer {
            use super::Iter;
            use crate::iter::plumbing::{ProducerCallback, UnindexedConsumer};

            /// An integer type whose ranges are parallel iterators. Sealed: the module is
            /// private.
            pub trait Integer: Sized + Send {
                fn drive_range<C: UnindexedConsumer<Self>>(
                    iter: Iter<Self>,
                    consumer: C,
                ) -> C::Result;
                fn range_len(iter: &Iter<Self>) -> Option<usize>;
            }

            /// An integer type whose ranges are indexed: their length always fits a `usize`.
            pub trait IndexedInteger: Integer {
                fn indexed_len(iter: &Iter<Self>) -> usize;
                fn range_producer<CB: ProducerCallback<Self>>(
                    iter: Iter<Self>,
                    callback: CB,
                ) -> CB::Output;
            }
        }
        use integer::{IndexedInteger, Integer};

        impl<T: Integer> ParallelIterator for Iter<T> {
            type Item = T;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<T>,
            {
                T::drive_range(self, consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                T::range_len(self)
            }
        }

        impl<T: IndexedInteger> IndexedParallelIterator for Iter<T> {
            #[inline]
            fn len(&self) -> usize {
                T::indexed_len(self)
            }

            #[inline]
            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            #[inline]
            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                T::range_producer(self, callback)
            }
        }
    };
}
pub(crate) use generic_over_integers;

generic_over_integers!();

macro_rules! indexed_range {
    ($($t:ty)*) => {$(
        impl Integer for $t {
            #[inline]
            fn drive_range<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }

            #[inline]
            fn range_len(iter: &Iter<$t>) -> Option<usize> {
                Some(iter.range.len())
            }
        }

        impl IndexedInteger for $t {
            #[inline]
            fn indexed_len(iter: &Iter<$t>) -> usize {
                iter.range.len()
            }

            #[inline]
            fn range_producer<CB: ProducerCallback<$t>>(iter: Iter<$t>, callback: CB) -> CB::Output {
                callback.callback(RangeProducer { range: iter.range })
            }
        }

        impl Producer for RangeProducer<$t> {
            type Item = $t;
            type IntoIter = Range<$t>;

            #[inline]
            fn into_iter(self) -> Range<$t> {
                self.range
            }

            #[inline]
            fn split_at(self, index: usize) -> (Self, Self) {
                debug_assert!(index <= self.range.len());
                // Wrapping: `index` is at most the length, so the sum is in range even when
                // the length does not fit the signed type (`-100i8..100`).
                let mid = self.range.start.wrapping_add(index as $t);
                (
                    RangeProducer { range: self.range.start..mid },
                    RangeProducer { range: mid..self.range.end },
                )
            }
        }
    )*};
}

indexed_range! { u8 u16 u32 usize i8 i16 i32 isize }

/// A producer over `start + offset` for `offset` in a `usize` range: the wide and inclusive
/// ranges whose length fits a `usize` run on it.
pub(crate) struct OffsetProducer<T> {
    pub(crate) start: T,
    pub(crate) offsets: Range<usize>,
}

/// The sequential iterator of an `OffsetProducer`.
pub(crate) struct OffsetIter<T> {
    start: T,
    offsets: Range<usize>,
}

macro_rules! offset_int {
    ($($t:ty)*) => {$(
        impl Iterator for OffsetIter<$t> {
            type Item = $t;

            #[inline]
            fn next(&mut self) -> Option<$t> {
                self.offsets.next().map(|i| self.start.wrapping_add(i as $t))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.offsets.size_hint()
            }

            #[inline]
            fn fold<B, F: FnMut(B, $t) -> B>(self, init: B, mut f: F) -> B {
                let first = self.start.wrapping_add(self.offsets.start as $t);
                let n = self.offsets.len();
                // A plain range where its end is representable (all but a last piece of
                // `..=MAX`): the loop the sequential code compiles to, vectorised alike.
                match first.checked_add(n as $t) {
                    Some(end) if n <= <$t>::MAX as usize => (first..end).fold(init, f),
                    _ => {
                        let start = self.start;
                        self.offsets.fold(init, move |acc, i| f(acc, start.wrapping_add(i as $t)))
                    }
                }
            }
        }

        impl DoubleEndedIterator for OffsetIter<$t> {
            #[inline]
            fn next_back(&mut self) -> Option<$t> {
                self.offsets.next_back().map(|i| self.start.wrapping_add(i as $t))
            }
        }

        impl ExactSizeIterator for OffsetIter<$t> {}

        impl Producer for OffsetProducer<$t> {
            type Item = $t;
            type IntoIter = OffsetIter<$t>;

            #[inline]
            fn into_iter(self) -> OffsetIter<$t> {
                OffsetIter { start: self.start, offsets: self.offsets }
            }

            #[inline]
            fn split_at(self, index: usize) -> (Self, Self) {
                let mid = self.offsets.start + index;
                (
                    OffsetProducer { start: self.start, offsets: self.offsets.start..mid },
                    OffsetProducer { start: self.start, offsets: mid..self.offsets.end },
                )
            }
        }
    )*};
}

offset_int! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize }

/// Splits a wide range too long for a `usize` in halves until the pieces fit, then runs
/// each on an `OffsetProducer` (a `u64` range needs one split, a `u128` one up to 65
/// levels). `len` is the number of items, `add(start, n)` the item `n` places after
/// `start`.
#[cold]
pub(crate) fn drive_wide<T, C>(start: T, len: u128, add: fn(T, u128) -> T, consumer: C) -> C::Result
where
    T: Copy + Send,
    OffsetProducer<T>: Producer<Item = T>,
    C: UnindexedConsumer<T>,
{
    if consumer.full() {
        // An answer is known (`find_any`, ...): a 128-bit range may still hold some 2^64
        // halves to go through, so stop splitting as soon as nothing more is wanted.
        return consumer.into_folder().complete();
    }
    if let Ok(n) = usize::try_from(len) {
        return bridge_producer_consumer(
            n,
            OffsetProducer {
                start,
                offsets: 0..n,
            },
            consumer,
        );
    }
    let half = len / 2;
    let left = consumer.split_off_left();
    let reducer = consumer.to_reducer();
    let (l, r) = join_in_order(
        C::RIGHT_FIRST,
        move || drive_wide(start, half, add, left),
        move || drive_wide(add(start, half), len - half, add, consumer),
    );
    crate::iter::plumbing::Reducer::reduce(reducer, l, r)
}

macro_rules! wide_range {
    ($($t:ty : $u:ty),*) => {$(
        impl Integer for $t {
            #[inline]
            fn drive_range<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                let len = if iter.range.end > iter.range.start {
                    iter.range.end.wrapping_sub(iter.range.start) as $u
                } else {
                    0
                };
                let start = iter.range.start;
                match usize::try_from(len) {
                    Ok(n) => {
                        let producer = OffsetProducer { start, offsets: 0..n };
                        bridge_producer_consumer(n, producer, consumer)
                    }
                    Err(_) => drive_wide(start, len as u128, |s, n| s.wrapping_add(n as $t), consumer),
                }
            }

            #[inline]
            fn range_len(iter: &Iter<$t>) -> Option<usize> {
                if iter.range.end > iter.range.start {
                    usize::try_from(iter.range.end.wrapping_sub(iter.range.start) as $u).ok()
                } else {
                    Some(0)
                }
            }
        }
    )*};
}

wide_range! { u64: u64, i64: u64, u128: u128, i128: u128 }

/// The first surrogate code point. The surrogates, `U+D800..=U+DFFF`, are not `char`s. A
/// `char`'s *index* is its code point with that gap closed, so that a range of chars is a
/// range of indices that can be split anywhere.
const GAP_START: u32 = 0xD800;
/// How many surrogates there are.
const GAP_LEN: u32 = 0x800;

/// `c`'s index (see [`GAP_START`]).
#[inline]
pub(crate) fn char_index(c: char) -> u32 {
    let u = u32::from(c);
    if u >= GAP_START + GAP_LEN {
        u - GAP_LEN
    } else {
        u
    }
}

/// The producer of a range of chars: a range of their indices (see [`GAP_START`]).
pub(crate) struct CharProducer {
    /// Every index here is `char_index` of some char (or the range is empty): the range is
    /// made from such indices and only ever split between its bounds.
    pub(crate) indices: Range<u32>,
}

/// The sequential iterator of a `CharProducer`: std's `Map` over the index range, which
/// std's `Zip` reads by position (as it does rayon's std char ranges), so that zipped with a
/// shorter side it runs none of this side's extra items.
pub(crate) type CharIter = std::iter::Map<Range<u32>, fn(u32) -> char>;

/// The char of index `i`, one of a `CharProducer`'s `indices`.
#[inline]
fn char_at(i: u32) -> char {
    let u = if i >= GAP_START { i + GAP_LEN } else { i };
    debug_assert!(char::from_u32(u).is_some());
    // SAFETY: `i` is the index of a char (see `CharProducer::indices`, the only range this
    // is mapped over), and this is the inverse of `char_index`: below the gap an index is its
    // code point, from the gap on the code point is past the surrogates. So `u` is that
    // char's code point.
    unsafe { char::from_u32_unchecked(u) }
}

impl Producer for CharProducer {
    type Item = char;
    type IntoIter = CharIter;

    #[inline]
    fn into_iter(self) -> CharIter {
        self.indices.map(char_at as fn(u32) -> char)
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.indices.len());
        // `index` is at most the length, itself below `u32::MAX`.
        let mid = self.indices.start + index as u32;
        (
            CharProducer {
                indices: self.indices.start..mid,
            },
            CharProducer {
                indices: mid..self.indices.end,
            },
        )
    }
}

impl Iter<char> {
    /// The indices of the range's chars (empty if it is).
    #[inline]
    fn indices(&self) -> Range<u32> {
        let (start, end) = (char_index(self.range.start), char_index(self.range.end));
        start..end.max(start)
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
