//! Parallel iterators over strings, `forkjoin::str`, as rayon's `str`: the
//! [`ParallelString`] methods (`par_chars`, `par_split`, `par_lines`, ...), each giving the
//! items its `str` namesake gives, in the same order.
//!
//! ```
//! use forkjoin::prelude::*;
//! let total: i32 = "1, 2, buckle, 3, 4, door"
//!     .par_split(',')
//!     .filter_map(|s| s.trim().parse::<i32>().ok())
//!     .sum();
//! assert_eq!(total, 10);
//! ```
//!
//! A string is split as an unindexed producer (`iter::plumbing::UnindexedProducer`): at a
//! character boundary near its middle, or, for the splits by a pattern, at a match near
//! its middle, which then separates the two halves' pieces as it separates the whole
//! string's. So every piece is folded by `str`'s own sequential method.

// The pattern trait is private, as rayon's, yet bounds the public methods that take one.
#![allow(private_bounds)]

use crate::iter::adaptors::filter::copy_ref_wrapper;
use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;

/// Parallel methods for strings (implemented for `str`, so `String`s have them too).
pub trait ParallelString {
    /// The string the other methods work on.
    fn as_parallel_string(&self) -> &str;

    /// The characters of the string.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let max = "hello".par_chars().max_by_key(|c| *c as i32);
    /// assert_eq!(max, Some('o'));
    /// ```
    #[inline]
    fn par_chars(&self) -> Chars<'_> {
        Chars::new(self.as_parallel_string())
    }

    /// The characters of the string, with their byte positions.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let min = "hello".par_char_indices().min_by_key(|&(_, c)| c as i32);
    /// assert_eq!(min, Some((1, 'e')));
    /// ```
    #[inline]
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices::new(self.as_parallel_string())
    }

    /// The bytes of the string. The bytes of a character beyond `U+007F` are separate
    /// items, but never split between pieces of work; for an indexed iterator without
    /// that, use `s.as_bytes().par_iter().copied()`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!("hello".par_bytes().max(), Some(b'o'));
    /// ```
    #[inline]
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes::new(self.as_parallel_string())
    }

    /// The string encoded as UTF-16. The two halves of a surrogate pair (a character
    /// beyond `U+FFFF`) are separate items, but never split between pieces of work.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!("hello".par_encode_utf16().max(), Some(b'o' as u16));
    /// let text = "Zażółć gęślą jaźń";
    /// assert!(text.par_encode_utf16().count() <= text.len());
    /// ```
    #[inline]
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16::new(self.as_parallel_string())
    }

    /// The substrings separated by `separator`, as `str::split`. The separator is a
    /// `char`, a `&[char]`, a `[char; N]`, a `&[char; N]`, or a function or closure
    /// `Fn(char) -> bool + Sync + Send` (the pattern trait is private, as rayon's).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total: i32 = "1, 2, buckle, 3, 4, door"
    ///     .par_split(',')
    ///     .filter_map(|s| s.trim().parse::<i32>().ok())
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    #[inline]
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split::new(self.as_parallel_string(), separator)
    }

    /// The substrings separated by `separator`, each keeping the separator that ends it,
    /// as `str::split_inclusive`. The separator is a pattern as for `par_split`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lines: Vec<_> = "Mary had a little lamb\nlittle lamb\nlittle lamb."
    ///     .par_split_inclusive('\n')
    ///     .collect();
    /// assert_eq!(lines, ["Mary had a little lamb\n", "little lamb\n", "little lamb."]);
    /// ```
    #[inline]
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive::new(self.as_parallel_string(), separator)
    }

    /// The substrings terminated by `terminator`, as `str::split_terminator`: `par_split`
    /// without the empty substring after a final terminator. The terminator is a pattern
    /// as for `par_split`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let parts: Vec<_> = "((1 + 3) * 2)"
    ///     .par_split_terminator(|c| c == '(' || c == ')')
    ///     .collect();
    /// assert_eq!(parts, ["", "", "1 + 3", " * 2"]);
    /// ```
    #[inline]
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator::new(self.as_parallel_string(), terminator)
    }

    /// The lines of the string: ended by `\n` or `\r\n`, which are not part of the lines;
    /// the last line ending is optional. As in rayon, a last line that ends in a bare `\r`
    /// loses it too (`str::lines` keeps it).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lengths: Vec<_> = "hello world\nfizbuzz".par_lines().map(|l| l.len()).collect();
    /// assert_eq!(lengths, [11, 7]);
    /// let lines: Vec<&str> = "a\r\nb\r".par_lines().collect();
    /// assert_eq!(lines, ["a", "b"]);
    /// ```
    #[inline]
    fn par_lines(&self) -> Lines<'_> {
        Lines(self.as_parallel_string())
    }

    /// The non-empty substrings separated by whitespace (Unicode `White_Space`), as
    /// `str::split_whitespace`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb".par_split_whitespace().collect();
    /// assert_eq!(words, ["Mary", "had", "a", "little", "lamb"]);
    /// assert_eq!("   ".par_split_whitespace().count(), 0);
    /// ```
    #[inline]
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace(self.as_parallel_string())
    }

    /// The non-empty substrings separated by ASCII whitespace, as
    /// `str::split_ascii_whitespace`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb".par_split_ascii_whitespace().collect();
    /// assert_eq!(words, ["Mary", "had", "a\u{2009}little", "lamb"]);
    /// assert_eq!("".par_split_ascii_whitespace().count(), 0);
    /// ```
    #[inline]
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitAsciiWhitespace(self.as_parallel_string())
    }

    /// The matches of `pattern`, as `str::matches`. The pattern is as for `par_split`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total: i32 = "1, 2, buckle, 3, 4, door"
    ///     .par_matches(char::is_numeric)
    ///     .map(|s| s.parse::<i32>().expect("digit"))
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    #[inline]
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches::new(self.as_parallel_string(), pattern)
    }

    /// The matches of `pattern` with their byte positions, as `str::match_indices`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let digits: Vec<_> = "1, 2, buckle, 3, 4, door".par_match_indices(char::is_numeric).collect();
    /// assert_eq!(digits, [(0, "1"), (3, "2"), (14, "3"), (17, "4")]);
    /// ```
    #[inline]
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices::new(self.as_parallel_string(), pattern)
    }
}

impl ParallelString for str {
    #[inline]
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// Which of `str`'s splits a piece folds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SplitKind {
    Split,
    Inclusive,
    Terminator,
}

/// What `str` methods take as a pattern here: characters and character predicates (a
/// match is one character, so a match never straddles two pieces cut at a character
/// boundary). Private, as rayon's: it names std's unstable `Pattern` only through the
/// calls each implementation makes.
trait Pattern: Sized + Sync + Send {
    fn find_in(&self, s: &str) -> Option<usize>;
    fn rfind_in(&self, s: &str) -> Option<usize>;
    /// Folds `s`'s pieces of `kind`; `last` says whether `s` ends the whole string (only
    /// there does `split_terminator` drop an empty last piece).
    fn fold_split<'ch, F>(&self, s: &'ch str, kind: SplitKind, last: bool, folder: F) -> F
    where
        F: Folder<&'ch str>;
    fn fold_matches<'ch, F>(&self, s: &'ch str, folder: F) -> F
    where
        F: Folder<&'ch str>;
    fn fold_match_indices<'ch, F>(&self, s: &'ch str, offset: usize, folder: F) -> F
    where
        F: Folder<(usize, &'ch str)>;
}

macro_rules! pattern {
    ([$($g:tt)*] $ty:ty, |$this:ident| $pat:expr) => {
        impl<$($g)*> Pattern for $ty {
            #[inline]
            fn find_in(&self, s: &str) -> Option<usize> {
                let $this = self;
                s.find($pat)
            }

            #[inline]
            fn rfind_in(&self, s: &str) -> Option<usize> {
                let $this = self;
                s.rfind($pat)
            }

            #[inline]
            fn fold_split<'ch, F>(&self, s: &'ch str, kind: SplitKind, last: bool, folder: F) -> F
            where
                F: Folder<&'ch str>,
            {
                let $this = self;
                match kind {
                    SplitKind::Inclusive => folder.consume_iter(s.split_inclusive($pat)),
                    SplitKind::Terminator if last => folder.consume_iter(s.split_terminator($pat)),
                    _ => folder.consume_iter(s.split($pat)),
                }
            }

            #[inline]
            fn fold_matches<'ch, F>(&self, s: &'ch str, folder: F) -> F
            where
                F: Folder<&'ch str>,
            {
                let $this = self;
                folder.consume_iter(s.matches($pat))
            }

            #[inline]
            fn fold_match_indices<'ch, F>(&self, s: &'ch str, offset: usize, folder: F) -> F
            where
                F: Folder<(usize, &'ch str)>,
            {
                let $this = self;
                folder.consume_iter(s.match_indices($pat).map(|(i, m)| (offset + i, m)))
            }
        }
    };
}

pattern!([] char, |c| *c);
pattern!(['a] &'a [char], |cs| *cs);
pattern!([const N: usize] [char; N], |cs| *cs);
pattern!(['a, const N: usize] &'a [char; N], |cs| *cs);
pattern!([Pred: Fn(char) -> bool + Sync + Send] Pred, |f| f);

/// The character boundary nearest the middle of `s` (0 or `s.len()` if `s` holds one
/// character or none).
#[inline]
fn char_midpoint(s: &str) -> usize {
    let mid = s.len() / 2;
    // A character is at most 4 bytes long: a boundary is within 3 bytes either way.
    (0..4)
        .flat_map(|d| [mid + d, mid.wrapping_sub(d)])
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// How a piece of a string splits and what it yields.
trait StrOp<'ch>: Copy + Send {
    type Item: Send;
    /// Where the piece splits: the end of the left part and the start of the right one.
    #[inline]
    fn cut(self, s: &str) -> Option<(usize, usize)> {
        let mid = char_midpoint(s);
        (0 < mid && mid < s.len()).then_some((mid, mid))
    }
    /// Folds the items of `s`, at byte `offset` of the whole string, the end of which it
    /// is if `last`.
    fn fold<F: Folder<Self::Item>>(self, s: &'ch str, offset: usize, last: bool, folder: F) -> F;
}

/// A piece of a string: the unindexed producer of every string iterator.
struct Piece<'ch, Op> {
    s: &'ch str,
    offset: usize,
    last: bool,
    op: Op,
}

impl<'ch, Op: StrOp<'ch>> UnindexedProducer for Piece<'ch, Op> {
    type Item = Op::Item;

    #[inline]
    fn split(self) -> (Self, Option<Self>) {
        match self.op.cut(self.s) {
            Some((left_end, right_start)) => {
                let left = Piece {
                    s: &self.s[..left_end],
                    last: false,
                    ..self
                };
                let right = Piece {
                    s: &self.s[right_start..],
                    offset: self.offset + right_start,
                    ..self
                };
                (left, Some(right))
            }
            None => (self, None),
        }
    }

    #[inline]
    fn fold_with<F: Folder<Op::Item>>(self, folder: F) -> F {
        self.op.fold(self.s, self.offset, self.last, folder)
    }
}

#[inline]
fn drive<'ch, Op, C>(s: &'ch str, op: Op, consumer: C) -> C::Result
where
    Op: StrOp<'ch>,
    C: UnindexedConsumer<Op::Item>,
{
    let piece = Piece {
        s,
        offset: 0,
        last: true,
        op,
    };
    bridge_unindexed(piece, consumer)
}

/// A `StrOp` that cuts at the middle character boundary and folds a sequential iterator.
macro_rules! char_op {
    ($op:ident, $item:ty, |$s:ident, $offset:ident| $iter:expr) => {
        #[derive(Clone, Copy)]
        struct $op;

        impl<'ch> StrOp<'ch> for $op {
            type Item = $item;
            #[inline]
            fn fold<F: Folder<$item>>(self, $s: &'ch str, $offset: usize, _: bool, folder: F) -> F {
                folder.consume_iter($iter)
            }
        }
    };
}

char_op!(CharsOp, char, |s, _offset| s.chars());
char_op!(CharIndicesOp, (usize, char), |s, offset| s
    .char_indices()
    .map(move |(i, c)| (offset + i, c)));
char_op!(BytesOp, u8, |s, _offset| s.bytes());
char_op!(EncodeUtf16Op, u16, |s, _offset| s.encode_utf16());

/// Splits by a pattern: a piece is cut at a match near its middle.
struct SplitOp<'p, P> {
    pattern: &'p P,
    kind: SplitKind,
}

impl<'ch, P: Pattern> StrOp<'ch> for SplitOp<'_, P> {
    type Item = &'ch str;

    #[inline]
    fn cut(self, s: &str) -> Option<(usize, usize)> {
        let mid = char_midpoint(s);
        let end = |at: usize| at + s[at..].chars().next().map_or(0, char::len_utf8);
        // A match ends the left part (with it, for `split_inclusive`, which therefore
        // cannot cut at a match that ends the string).
        let inclusive = self.kind == SplitKind::Inclusive;
        let at = (self.pattern.find_in(&s[mid..]).map(|i| mid + i))
            .filter(|&at| !inclusive || end(at) < s.len())
            .or_else(|| self.pattern.rfind_in(&s[..mid]))?;
        if inclusive {
            Some((end(at), end(at)))
        } else {
            Some((at, end(at)))
        }
    }

    #[inline]
    fn fold<F: Folder<&'ch str>>(self, s: &'ch str, _: usize, last: bool, folder: F) -> F {
        self.pattern.fold_split(s, self.kind, last, folder)
    }
}

/// The matches of a pattern: a piece is cut at a character boundary.
struct MatchOp<'p, P>(&'p P);
/// The matches of a pattern with their positions.
struct MatchIndicesOp<'p, P>(&'p P);

copy_ref_wrapper!(SplitOp, MatchOp, MatchIndicesOp);

impl<'ch, P: Pattern> StrOp<'ch> for MatchOp<'_, P> {
    type Item = &'ch str;
    #[inline]
    fn fold<F: Folder<&'ch str>>(self, s: &'ch str, _: usize, _: bool, folder: F) -> F {
        self.0.fold_matches(s, folder)
    }
}

impl<'ch, P: Pattern> StrOp<'ch> for MatchIndicesOp<'_, P> {
    type Item = (usize, &'ch str);
    #[inline]
    fn fold<F: Folder<(usize, &'ch str)>>(
        self,
        s: &'ch str,
        offset: usize,
        _: bool,
        folder: F,
    ) -> F {
        self.0.fold_match_indices(s, offset, folder)
    }
}

/// Declares a string iterator, over `chars` and, for the pattern ones, the pattern `$field`
/// of type `$p`, with its constructor, and drives it with `$op`.
macro_rules! str_iter {
    ($(#[$doc:meta])* $name:ident $(<$p:ident>, $field:ident)?, $item:ty, |$this:ident| $op:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name<'ch $(, $p)?> {
            chars: &'ch str,
            $($field: $p,)?
        }

        impl<'ch $(, $p)?> $name<'ch $(, $p)?> {
            #[inline]
            fn new(chars: &'ch str $(, $field: $p)?) -> Self {
                $name { chars $(, $field)? }
            }
        }

        impl<'ch $(, $p: Pattern)?> ParallelIterator for $name<'ch $(, $p)?> {
            type Item = $item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<$item>,
            {
                let $this = &self;
                drive(self.chars, $op, consumer)
            }
        }
    };
}

str_iter!(
    /// The characters of a string. See [`ParallelString::par_chars`].
    Chars, char, |_this| CharsOp
);
str_iter!(
    /// The characters of a string with their positions. See
    /// [`ParallelString::par_char_indices`].
    CharIndices, (usize, char), |_this| CharIndicesOp
);
str_iter!(
    /// The bytes of a string. See [`ParallelString::par_bytes`].
    Bytes, u8, |_this| BytesOp
);
str_iter!(
    /// A string in UTF-16. See [`ParallelString::par_encode_utf16`].
    EncodeUtf16, u16, |_this| EncodeUtf16Op
);
str_iter!(
    /// Substrings separated by a pattern. See [`ParallelString::par_split`].
    Split<P>, separator, &'ch str,
    |this| SplitOp { pattern: &this.separator, kind: SplitKind::Split }
);
str_iter!(
    /// Substrings each ended by a pattern's match. See
    /// [`ParallelString::par_split_inclusive`].
    SplitInclusive<P>, separator, &'ch str,
    |this| SplitOp { pattern: &this.separator, kind: SplitKind::Inclusive }
);
str_iter!(
    /// Substrings terminated by a pattern. See [`ParallelString::par_split_terminator`].
    SplitTerminator<P>, terminator, &'ch str,
    |this| SplitOp { pattern: &this.terminator, kind: SplitKind::Terminator }
);
str_iter!(
    /// The matches of a pattern. See [`ParallelString::par_matches`].
    Matches<P>, pattern, &'ch str, |this| MatchOp(&this.pattern)
);
str_iter!(
    /// The matches of a pattern with their positions. See
    /// [`ParallelString::par_match_indices`].
    MatchIndices<P>, pattern, (usize, &'ch str), |this| MatchIndicesOp(&this.pattern)
);

/// Declares a string iterator that is another parallel iterator over the string `$s`:
/// `$iter`, driven as it is.
macro_rules! str_iter_via {
    ($(#[$doc:meta])* $name:ident, |$s:ident| $iter:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name<'ch>(&'ch str);

        impl<'ch> ParallelIterator for $name<'ch> {
            type Item = &'ch str;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<&'ch str>,
            {
                let $s = self.0;
                $iter.drive_unindexed(consumer)
            }
        }
    };
}

str_iter_via!(
    /// The lines of a string. See [`ParallelString::par_lines`].
    Lines,
    // As rayon's: a line's final `\r` is dropped, also in a last line without `\n`.
    |s| s.par_split_terminator('\n').map(|line| line.strip_suffix('\r').unwrap_or(line))
);
str_iter_via!(
    /// Substrings separated by whitespace. See [`ParallelString::par_split_whitespace`].
    SplitWhitespace,
    |s| s.par_split(char::is_whitespace).filter(|s| !s.is_empty())
);
str_iter_via!(
    /// Substrings separated by ASCII whitespace. See
    /// [`ParallelString::par_split_ascii_whitespace`].
    SplitAsciiWhitespace,
    |s| s.par_split(|c: char| c.is_ascii_whitespace()).filter(|s| !s.is_empty())
);
