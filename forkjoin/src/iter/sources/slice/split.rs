//! The slice iterators whose pieces are found by a predicate: `par_split`,
//! `par_split_inclusive` and `par_chunk_by`, and their `_mut` forms.
//!
//! They are unindexed: a slice splits at a separator (or, for `chunk_by`, a boundary
//! between two runs) near its middle, which ends the left part's last piece as it ends
//! the whole slice's, so each part is folded by the slice method of the same name.

use crate::iter::adaptors::filter::copy_ref_wrapper;
use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::fmt;

/// A shared or a mutable slice, as the pieces of these iterators are.
trait Side: Sized + Send {
    type Elem;
    fn view(&self) -> &[Self::Elem];
    /// The elements before `left_end` and those from `right_start` on.
    fn cut(self, left_end: usize, right_start: usize) -> (Self, Self);
    fn fold_split<P, F>(self, separator: &P, inclusive: bool, folder: F) -> F
    where
        P: Fn(&Self::Elem) -> bool,
        F: Folder<Self>;
    fn fold_chunk_by<P, F>(self, same: &P, folder: F) -> F
    where
        P: Fn(&Self::Elem, &Self::Elem) -> bool,
        F: Folder<Self>;
}

/// `Side` for `&[T]` or `&mut [T]`, with the slice methods of each.
macro_rules! side {
    ($slice:ty, $bound:ident, |$this:ident, $left_end:ident, $right_start:ident| $cut:expr,
     $split:ident, $split_inclusive:ident, $chunk_by:ident) => {
        impl<'data, T: $bound> Side for $slice {
            type Elem = T;

            #[inline]
            fn view(&self) -> &[T] {
                self
            }

            #[inline]
            fn cut(self, $left_end: usize, $right_start: usize) -> (Self, Self) {
                let $this = self;
                $cut
            }

            #[inline]
            fn fold_split<P, F>(self, separator: &P, inclusive: bool, folder: F) -> F
            where
                P: Fn(&T) -> bool,
                F: Folder<Self>,
            {
                if inclusive {
                    folder.consume_iter(self.$split_inclusive(separator))
                } else {
                    folder.consume_iter(self.$split(separator))
                }
            }

            #[inline]
            fn fold_chunk_by<P, F>(self, same: &P, folder: F) -> F
            where
                P: Fn(&T, &T) -> bool,
                F: Folder<Self>,
            {
                folder.consume_iter(self.$chunk_by(same))
            }
        }
    };
}

side!(
    &'data [T],
    Sync,
    |this, left_end, right_start| (&this[..left_end], &this[right_start..]),
    split,
    split_inclusive,
    chunk_by
);
side!(
    &'data mut [T],
    Send,
    |this, left_end, right_start| {
        let (left, right) = this.split_at_mut(right_start);
        (&mut left[..left_end], right)
    },
    split_mut,
    split_inclusive_mut,
    chunk_by_mut
);

/// How the pieces are found: where a part splits, and how it is folded.
trait Rule<T>: Copy + Send {
    fn cut(self, slice: &[T]) -> Option<(usize, usize)>;
    fn fold<S: Side<Elem = T>, F: Folder<S>>(self, slice: S, folder: F) -> F;
}

/// Pieces separated by the elements `separator` accepts, each keeping the separator
/// that ends it if `inclusive`.
struct Separators<'p, P> {
    separator: &'p P,
    inclusive: bool,
}

/// Runs of neighbours that `same` calls the same.
struct Runs<'p, P>(&'p P);

copy_ref_wrapper!(Separators, Runs);

impl<T, P: Fn(&T) -> bool + Sync> Rule<T> for Separators<'_, P> {
    #[inline]
    fn cut(self, slice: &[T]) -> Option<(usize, usize)> {
        let mid = slice.len() / 2;
        let separator = self.separator;
        // A piece of `split_inclusive` ends with its separator, so the cut is after it,
        // and a separator that ends the slice cannot cut it.
        let at = (slice[mid..].iter().position(separator).map(|i| mid + i))
            .filter(|&at| !self.inclusive || at + 1 < slice.len())
            .or_else(|| slice[..mid].iter().rposition(separator))?;
        Some(if self.inclusive {
            (at + 1, at + 1)
        } else {
            (at, at + 1)
        })
    }

    #[inline]
    fn fold<S: Side<Elem = T>, F: Folder<S>>(self, slice: S, folder: F) -> F {
        slice.fold_split(self.separator, self.inclusive, folder)
    }
}

impl<T, P: Fn(&T, &T) -> bool + Sync> Rule<T> for Runs<'_, P> {
    #[inline]
    fn cut(self, slice: &[T]) -> Option<(usize, usize)> {
        let mid = slice.len() / 2;
        let boundary = |&i: &usize| !(self.0)(&slice[i - 1], &slice[i]);
        let at = (mid.max(1)..slice.len())
            .find(boundary)
            .or_else(|| (1..mid).rev().find(boundary))?;
        Some((at, at))
    }

    #[inline]
    fn fold<S: Side<Elem = T>, F: Folder<S>>(self, slice: S, folder: F) -> F {
        slice.fold_chunk_by(self.0, folder)
    }
}

/// A part of the slice: the unindexed producer of these iterators.
struct Part<S, R> {
    slice: S,
    rule: R,
}

impl<S: Side, R: Rule<S::Elem>> UnindexedProducer for Part<S, R> {
    type Item = S;

    #[inline]
    fn split(self) -> (Self, Option<Self>) {
        match self.rule.cut(self.slice.view()) {
            Some((left_end, right_start)) => {
                let (left, right) = self.slice.cut(left_end, right_start);
                let rule = self.rule;
                (
                    Part { slice: left, rule },
                    Some(Part { slice: right, rule }),
                )
            }
            None => (self, None),
        }
    }

    #[inline]
    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        self.rule.fold(self.slice, folder)
    }
}

/// Declares one of the iterators: a slice and a predicate, driven under `$rule`.
macro_rules! split_iter {
    ($(#[$doc:meta])* $name:ident, $slice:ty, $bound:ident, $pred:ident: [$($fn:tt)*],
     |$p:ident| $rule:expr) => {
        $(#[$doc])*
        pub struct $name<'data, T, P> {
            slice: $slice,
            $pred: P,
        }

        impl<'data, T, P> $name<'data, T, P> {
            #[inline]
            pub(super) fn new(slice: $slice, $pred: P) -> Self {
                $name { slice, $pred }
            }
        }

        impl<T: fmt::Debug, P> fmt::Debug for $name<'_, T, P> {
            #[inline]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish()
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $bound,
            P: $($fn)* + Sync + Send,
        {
            type Item = $slice;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                let $p = &self.$pred;
                let part = Part {
                    slice: self.slice,
                    rule: $rule,
                };
                bridge_unindexed(part, consumer)
            }
        }
    };
}

split_iter!(
    /// Sub-slices separated by the elements a predicate accepts (`par_split`).
    Split, &'data [T], Sync, separator: [Fn(&T) -> bool],
    |p| Separators { separator: p, inclusive: false }
);
split_iter!(
    /// Sub-slices each ended by an element a predicate accepts (`par_split_inclusive`).
    SplitInclusive, &'data [T], Sync, separator: [Fn(&T) -> bool],
    |p| Separators { separator: p, inclusive: true }
);
split_iter!(
    /// Runs of elements a predicate calls the same, neighbour to neighbour
    /// (`par_chunk_by`).
    ChunkBy, &'data [T], Sync, same: [Fn(&T, &T) -> bool], |p| Runs(p)
);
split_iter!(
    /// Mutable sub-slices separated by the elements a predicate accepts
    /// (`par_split_mut`).
    SplitMut, &'data mut [T], Send, separator: [Fn(&T) -> bool],
    |p| Separators { separator: p, inclusive: false }
);
split_iter!(
    /// Mutable sub-slices each ended by an element a predicate accepts
    /// (`par_split_inclusive_mut`).
    SplitInclusiveMut, &'data mut [T], Send, separator: [Fn(&T) -> bool],
    |p| Separators { separator: p, inclusive: true }
);
split_iter!(
    /// Mutable runs of elements a predicate calls the same, neighbour to neighbour
    /// (`par_chunk_by_mut`).
    ChunkByMut, &'data mut [T], Send, same: [Fn(&T, &T) -> bool], |p| Runs(p)
);

impl<T, P: Clone> Clone for Split<'_, T, P> {
    #[inline]
    fn clone(&self) -> Self {
        Split::new(self.slice, self.separator.clone())
    }
}

impl<T, P: Clone> Clone for SplitInclusive<'_, T, P> {
    #[inline]
    fn clone(&self) -> Self {
        SplitInclusive::new(self.slice, self.separator.clone())
    }
}

impl<T, P: Clone> Clone for ChunkBy<'_, T, P> {
    #[inline]
    fn clone(&self) -> Self {
        ChunkBy::new(self.slice, self.same.clone())
    }
}
