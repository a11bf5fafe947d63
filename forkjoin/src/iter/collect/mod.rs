//! Collecting: `collect`, `collect_into_vec`, `par_extend`, `unzip`, `partition`.
//!
//! An indexed iterator is collected straight into place: the vector reserves the length,
//! and every piece writes its items into its own part of the spare capacity (a
//! `CollectConsumer` splits the target slice as the producer splits). The pieces' results
//! are joined only if they are adjacent; the vector's length is set once every item is
//! written. Other iterators collect into a list of vectors, one per piece, concatenated
//! at the end.

pub(crate) mod extend;
pub(crate) mod from_par_iter;
pub(crate) mod unzip;

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::collections::LinkedList;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr;

/// `collect_into_vec`.
#[inline]
pub(crate) fn collect_into_vec<I>(pi: I, v: &mut Vec<I::Item>)
where
    I: IndexedParallelIterator,
{
    v.truncate(0);
    let len = pi.len();
    collect_with_consumer(v, len, |consumer| pi.drive(consumer));
}

/// Appends `len` items to `vec`, written in place by whatever `scope` drives into the
/// consumer it is given.
#[inline]
pub(crate) fn collect_with_consumer<T, F>(vec: &mut Vec<T>, len: usize, scope: F)
where
    T: Send,
    F: FnOnce(CollectConsumer<'_, T>) -> CollectResult<'_, T>,
{
    vec.reserve(len);
    let start = vec.len();
    let target = &mut vec.spare_capacity_mut()[..len];
    let result = scope(CollectConsumer::new(target));
    let written = result.len();
    assert!(
        written == len,
        "expected {len} total writes, but got {written}"
    );
    // The items are now the vector's.
    result.release_ownership();
    // SAFETY: `len` items were written contiguously right after the old length (checked
    // above), and the result gave up dropping them.
    unsafe { vec.set_len(start + len) };
}

/// Writes items into a part of a vector's spare capacity.
///
/// The part is a raw pointer and a length, not a `&mut` slice: every part is carved from
/// one pointer to the whole target, so that two adjacent results, once joined, may drop
/// their items through the left one's pointer (a pointer from `split_at_mut` would only
/// be valid for its own half; Miri reports the drop after a panic otherwise).
pub(crate) struct CollectConsumer<'c, T: Send> {
    start: *mut T,
    len: usize,
    _target: PhantomData<&'c mut [MaybeUninit<T>]>,
}

// SAFETY: the consumer stands for exclusive access to its part of the target, like the
// `&mut [MaybeUninit<T>]` it was carved from, which is `Send` for `T: Send`.
unsafe impl<T: Send> Send for CollectConsumer<'_, T> {}

impl<'c, T: Send> CollectConsumer<'c, T> {
    #[inline]
    pub(crate) fn new(target: &'c mut [MaybeUninit<T>]) -> Self {
        CollectConsumer {
            start: target.as_mut_ptr().cast(),
            len: target.len(),
            _target: PhantomData,
        }
    }

    /// The consumers of `start..start + index` and of the rest.
    #[inline]
    fn split(self, index: usize) -> (Self, Self) {
        assert!(index <= self.len, "collect: split beyond the target");
        let right = CollectConsumer {
            // SAFETY: `index <= len`, so this is inside (or one past) the part.
            start: unsafe { self.start.add(index) },
            len: self.len - index,
            _target: PhantomData,
        };
        let left = CollectConsumer {
            start: self.start,
            len: index,
            _target: PhantomData,
        };
        (left, right)
    }
}

impl<'c, T: Send + 'c> Consumer<T> for CollectConsumer<'c, T> {
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        let (left, right) = self.split(index);
        (left, right, CollectReducer)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        CollectResult {
            start: self.start,
            total: self.len,
            written: 0,
            _marker: PhantomData,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, CollectReducer) {
        let end = folder.written + keep;
        assert!(end <= folder.total, "collect: split beyond the target");
        // The tail `end..total` has not been written: it becomes the new consumer's part,
        // and the folder shrinks to `..end`.
        let unwritten = CollectConsumer {
            start: folder.start,
            len: folder.total,
            _target: PhantomData,
        };
        let (_, rest) = unwritten.split(end);
        folder.total = end;
        (rest, CollectReducer)
    }
}

impl<'c, T: Send + 'c> UnindexedConsumer<T> for CollectConsumer<'c, T> {
    #[inline]
    fn split_off_left(&self) -> Self {
        unreachable!("a CollectConsumer is only driven by iterators of known length")
    }

    #[inline]
    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

/// The items a piece wrote: `written` initialised items from `start`, in a part of
/// `total`. Drops them if dropped itself (a panic, a failed reduction), so that every
/// item written is dropped exactly once.
pub(crate) struct CollectResult<'c, T> {
    start: *mut T,
    total: usize,
    written: usize,
    _marker: PhantomData<&'c mut [MaybeUninit<T>]>,
}

// SAFETY: the result owns its written items and a part of the target nobody else touches;
// it moves between threads like the `&mut [T]` and the `T`s it stands for.
unsafe impl<T: Send> Send for CollectResult<'_, T> {}

impl<T> CollectResult<'_, T> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.written
    }

    /// The items are someone else's now (the vector's): do not drop them.
    #[inline]
    pub(crate) fn release_ownership(mut self) {
        self.written = 0;
    }
}

impl<T> Drop for CollectResult<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the first `written` items from `start` were written by this result
        // (or the ones merged into it) and are owned by it.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.written)) }
    }
}

impl<'c, T: Send + 'c> Folder<T> for CollectResult<'c, T> {
    type Result = Self;

    #[inline]
    fn consume(mut self, item: T) -> Self {
        assert!(
            self.written < self.total,
            "too many values pushed to consumer"
        );
        // SAFETY: `written < total`, so the slot is inside this result's part, and not
        // yet initialised.
        unsafe {
            self.start.add(self.written).write(item);
        }
        self.written += 1;
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // A fold with the count in a local, as std's `Vec::extend` writes a trusted-length
        // iterator: a `for` loop on `next` with the count in `self` laid the loop out with
        // two or three taken branches an item (DESIGN.md, section 8, "The leaf loop is
        // std's loop").
        let (start, total) = (self.start, self.total);
        let mut written = WrittenOnDrop {
            count: self.written,
            result: &mut self.written,
        };
        iter.into_iter().for_each(|item| {
            let at = written.count;
            assert!(at < total, "too many values pushed to consumer");
            // SAFETY: `at < total`, so the slot is inside this result's part, and not yet
            // initialised.
            unsafe { start.add(at).write(item) };
            written.count = at + 1;
        });
        drop(written);
        self
    }

    #[inline]
    fn complete(self) -> Self {
        self
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }
}

/// A result's count of written items, kept by a fold in a local and stored back when the
/// fold ends or unwinds (so that the result drops every item written before a panic).
struct WrittenOnDrop<'a> {
    count: usize,
    result: &'a mut usize,
}

impl Drop for WrittenOnDrop<'_> {
    #[inline]
    fn drop(&mut self) {
        *self.result = self.count;
    }
}

/// Joins two adjacent results; a right result that does not start where the left one ends
/// (a piece stopped early) is dropped with its items, and the count check in
/// `collect_with_consumer` reports the missing writes.
pub(crate) struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    #[inline]
    fn reduce(
        self,
        mut left: CollectResult<'c, T>,
        right: CollectResult<'c, T>,
    ) -> CollectResult<'c, T> {
        // SAFETY: pointer arithmetic within (or one past) the target.
        if unsafe { left.start.add(left.written) } == right.start {
            left.total += right.total;
            left.written += right.release_count();
        }
        left
    }
}

impl<T> CollectResult<'_, T> {
    /// Takes the right result's items over: returns how many, and forgets them here.
    #[inline]
    fn release_count(mut self) -> usize {
        std::mem::take(&mut self.written)
    }
}

/// Collects any parallel iterator as a list of vectors, one per piece (in order).
#[inline]
pub(crate) fn collect_list<I>(pi: I) -> LinkedList<Vec<I::Item>>
where
    I: ParallelIterator,
{
    pi.drive_unindexed(ListVecConsumer)
}

/// `collect_vec_list`: one vector if the length is known (collected in place), else one per
/// piece.
#[inline]
pub(crate) fn collect_vec_list<I>(pi: I) -> LinkedList<Vec<I::Item>>
where
    I: ParallelIterator,
{
    if pi.opt_len().is_none() {
        return collect_list(pi);
    }
    let vec = collect_vec(pi);
    let mut list = LinkedList::new();
    if !vec.is_empty() {
        list.push_back(vec);
    }
    list
}

/// A parallel iterator into a `Vec`, in order: in place if its length is known, else
/// through a list of vectors.
#[inline]
pub(crate) fn collect_vec<I>(pi: I) -> Vec<I::Item>
where
    I: ParallelIterator,
{
    let mut v = Vec::new();
    extend_vec(&mut v, pi);
    v
}

/// Appends the items of `pi` to `v`, in order.
#[inline]
pub(crate) fn extend_vec<I>(v: &mut Vec<I::Item>, pi: I)
where
    I: ParallelIterator,
{
    match pi.opt_len() {
        Some(len) => collect_with_consumer(v, len, |consumer| pi.drive_unindexed(consumer)),
        None => {
            let mut list = collect_list(pi);
            // Into an empty vector, the first piece moves in as it is: with one piece (no
            // thief took part of the work), nothing is copied.
            if v.is_empty() {
                if let Some(first) = list.pop_front() {
                    *v = first;
                }
            }
            v.reserve(list.iter().map(Vec::len).sum());
            for mut part in list {
                v.append(&mut part);
            }
        }
    }
}

/// Collects into `LinkedList<Vec<T>>`: each folder pushes into its own vector.
pub(crate) struct ListVecConsumer;

pub(crate) struct ListVecFolder<T> {
    vec: Vec<T>,
}

/// Appends the right list to the left.
pub(crate) struct ListReducer;

impl<T> Reducer<LinkedList<T>> for ListReducer {
    #[inline]
    fn reduce(self, mut left: LinkedList<T>, mut right: LinkedList<T>) -> LinkedList<T> {
        left.append(&mut right);
        left
    }
}

impl<T: Send> Consumer<T> for ListVecConsumer {
    type Folder = ListVecFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<T>>;

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (ListVecConsumer, ListVecConsumer, ListReducer)
    }

    #[inline]
    fn into_folder(self) -> ListVecFolder<T> {
        ListVecFolder { vec: Vec::new() }
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(_folder: &mut ListVecFolder<T>, _keep: usize) -> (Self, ListReducer) {
        (ListVecConsumer, ListReducer)
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVecConsumer {
    #[inline]
    fn split_off_left(&self) -> Self {
        ListVecConsumer
    }

    #[inline]
    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

impl<T> Folder<T> for ListVecFolder<T> {
    type Result = LinkedList<Vec<T>>;

    #[inline]
    fn consume(mut self, item: T) -> Self {
        self.vec.push(item);
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // Pushed in a fold, not by `Vec::extend`, whose loop on `next` makes a filter a
        // search loop that LLVM may vectorize (DESIGN.md, section 8, "The leaf loop is
        // std's loop").
        let iter = iter.into_iter();
        self.vec.reserve(iter.size_hint().0);
        iter.for_each(|item| self.vec.push(item));
        self
    }

    #[inline]
    fn complete(self) -> LinkedList<Vec<T>> {
        let mut list = LinkedList::new();
        if !self.vec.is_empty() {
            list.push_back(self.vec);
        }
        list
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }
}
