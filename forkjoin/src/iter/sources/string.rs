//! `String::par_drain`, `forkjoin::string`, as rayon's `string`.
//!
//! ```
//! use forkjoin::prelude::*;
//! let mut s = String::from("fork→join");
//! let arrow: String = s.par_drain(4..7).collect();
//! assert_eq!((arrow.as_str(), s.as_str()), ("→", "forkjoin"));
//! ```

use super::str::ParallelString;
use super::vec::resolve_range;
use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{ParallelDrainRange, ParallelIterator};
use std::ops::{Range, RangeBounds};

/// A parallel iterator that removes a range of a string's characters
/// (`string.par_drain(range)`). Whatever happens to the iterator (consumed, stopped early,
/// a panic in a consumer, dropped without being driven), the range is gone from the
/// string when it drops, and the string keeps its capacity.
#[derive(Debug)]
pub struct Drain<'a> {
    string: &'a mut String,
    range: Range<usize>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = Drain<'a>;
    type Item = char;

    /// # Panics
    /// If the range is out of bounds or does not start and end on char boundaries, as
    /// `String::drain`.
    #[track_caller]
    #[inline]
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a> {
        let Range { start, end } = resolve_range(range, self.len());
        // Checked now, as std does (with its messages): a drain never splits a character.
        assert!(self.is_char_boundary(start));
        assert!(self.is_char_boundary(end));
        Drain {
            string: self,
            range: start..end,
        }
    }
}

impl ParallelIterator for Drain<'_> {
    type Item = char;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<char>,
    {
        // `char`s are copies: the string is left as it is until `self` drops, at the end
        // of this call or while a panic unwinds through it.
        self.string[self.range.clone()]
            .par_chars()
            .drive_unindexed(consumer)
    }
}

impl Drop for Drain<'_> {
    #[inline]
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}
