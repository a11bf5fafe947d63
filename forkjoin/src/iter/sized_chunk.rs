//! Which chunk the splitter is folding: a search inside it need not look at the other
//! pieces between its items (DESIGN.md, section 8, "The leaf loop is std's loop").
//!
//! The splitter sizes a run's chunks by time (a few microseconds; a pool of one folds the
//! loop in one chunk, beside no other piece), and looks at `Folder::full` between them. A
//! search's folder cannot tell such a chunk from any other iterator it is handed (a user's
//! `UnindexedProducer`, a `with_max_len` leaf, an endless inner iterator), so the splitter
//! marks the chunk's length on its thread while it folds it, and the first search to
//! take the mark for an iterator of that exact length folds it in one plain loop.

use crate::iter::plumbing::{Folder, Producer};
use std::cell::Cell;

thread_local! {
    /// The length of the chunk this thread's splitter is folding, until a search takes it;
    /// 0: none.
    static MARK: Cell<usize> = const { Cell::new(0) };
}

/// `chunk.fold_with(folder)`, for a chunk of `len` items the splitter sized (0: marks
/// nothing).
///
/// A panic leaves the mark set; it can then only mislead a search handed an iterator of
/// exactly that length on this thread before the next chunk, which stops at its end
/// instead of at the next look (the answer is the same).
#[inline]
pub(super) fn fold<P, F>(len: usize, chunk: P, folder: F) -> F
where
    P: Producer,
    F: Folder<P::Item>,
{
    MARK.set(len);
    let folder = chunk.fold_with(folder);
    MARK.set(0);
    folder
}

/// Whether an iterator of exactly `len` items is the chunk being folded. Takes the mark,
/// so that a search nested in the chunk's items (whose own chunks mark again) does not.
#[inline]
pub(super) fn take(len: usize) -> bool {
    len != 0 && MARK.replace(0) == len
}

#[cfg(test)]
mod tests {
    use super::{fold, take};
    use crate::iter::plumbing::{Folder, Producer};

    /// Counts the items and records whether it was handed the marked chunk.
    struct Probe(usize, Option<bool>);
    impl Folder<u32> for Probe {
        type Result = (usize, Option<bool>);
        fn consume(self, _: u32) -> Self {
            Probe(self.0 + 1, self.1)
        }
        fn consume_iter<I: IntoIterator<Item = u32>>(self, iter: I) -> Self {
            let iter = iter.into_iter();
            let marked = take(iter.size_hint().0);
            let n = iter.count();
            Probe(self.0 + n, Some(marked))
        }
        fn complete(self) -> Self::Result {
            (self.0, self.1)
        }
        fn full(&self) -> bool {
            false
        }
    }

    struct Range(u32, u32);
    impl Producer for Range {
        type Item = u32;
        type IntoIter = std::ops::Range<u32>;
        fn into_iter(self) -> Self::IntoIter {
            self.0..self.1
        }
        fn split_at(self, index: usize) -> (Self, Self) {
            let mid = self.0 + index as u32;
            (Range(self.0, mid), Range(mid, self.1))
        }
    }

    #[test]
    fn only_the_marked_chunk_is_taken_and_only_once() {
        assert_eq!(
            fold(100, Range(0, 100), Probe(0, None)).complete(),
            (100, Some(true))
        );
        // Cleared after the chunk: the same length outside a chunk is not marked.
        assert!(!take(100));
        // A different length inside a chunk is not the chunk.
        assert_eq!(
            fold(100, Range(0, 99), Probe(0, None)).complete(),
            (99, Some(false))
        );
        assert!(!take(100));
        // An empty iterator is never the chunk.
        assert_eq!(
            fold(0, Range(5, 5), Probe(0, None)).complete(),
            (0, Some(false))
        );
    }
}
