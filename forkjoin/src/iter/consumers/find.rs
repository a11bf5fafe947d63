//! `find_any`, `find_first` and `find_last` (and through them `any`, `all` and the
//! `position_*` methods).
//!
//! `find_any` shares one flag: the first piece to find a match sets it, and every piece
//! stops at its next item. `find_first` and `find_last` must not stop a piece that could
//! still hold a better match, so every piece carries a range of *positions*: the
//! consumer starts with all of `0..usize::MAX` and every split gives the left part the
//! lower half. A piece that finds a match records a position in a shared best (the least
//! for `find_first`, the greatest for `find_last`); a piece stops once the best lies
//! strictly on the side it can no longer improve. The answer itself is chosen by the order
//! of the reduction (left before right), so positions only decide who may stop early.
//!
//! `find_first` records its piece's lower bound and stops. `find_last` goes on after a
//! match (a later item may match too), and a running piece can still hand the upper part
//! of its range to a thief (`split_folder`), so it records `lower + 1`: above every piece
//! wholly to its left (whose upper bound is at most `lower`), and at or below the upper
//! bound of any piece later carved out of its own range to the right.

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

pub(crate) fn find_any<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let found = AtomicBool::new(false);
    pi.drive_unindexed(FindAny {
        predicate: &predicate,
        found: &found,
    })
}

struct FindAny<'p, P> {
    predicate: &'p P,
    found: &'p AtomicBool,
}

impl<P> Clone for FindAny<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for FindAny<'_, P> {}

/// Keeps the left result if there is one.
struct Leftmost;
/// Keeps the right result if there is one.
struct Rightmost;

impl<T> Reducer<Option<T>> for Leftmost {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}

impl<T> Reducer<Option<T>> for Rightmost {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        right.or(left)
    }
}

impl<'p, P, T> Consumer<T> for FindAny<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = FindAnyFolder<'p, P, T>;
    type Reducer = Leftmost;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Leftmost) {
        (self, self, Leftmost)
    }

    fn into_folder(self) -> Self::Folder {
        FindAnyFolder {
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        // Relaxed: a hint to stop early; the match itself travels through the results.
        self.found.load(Relaxed)
    }

    const SPLITS_FOLDER: bool = true;

    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, Leftmost) {
        (folder.consumer, Leftmost)
    }
}

impl<'p, P, T> UnindexedConsumer<T> for FindAny<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }

    fn to_reducer(&self) -> Leftmost {
        Leftmost
    }
}

struct FindAnyFolder<'p, P, T> {
    consumer: FindAny<'p, P>,
    item: Option<T>,
}

impl<'p, P, T> Folder<T> for FindAnyFolder<'p, P, T>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.consumer.predicate)(&item) {
            // Relaxed: see `full`.
            self.consumer.found.store(true, Relaxed);
            self.item = Some(item);
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let predicate = self.consumer.predicate;
        let found = self.consumer.found;
        // Relaxed: see `full`. Checked per item so that the rest of a chunk is skipped.
        self.item = iter
            .into_iter()
            .take_while(|_| !found.load(Relaxed))
            .find(|x| predicate(x));
        if self.item.is_some() {
            found.store(true, Relaxed);
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        // Relaxed: see `FindAny::full`.
        self.item.is_some() || self.consumer.found.load(Relaxed)
    }
}

pub(crate) fn find_first<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(usize::MAX);
    pi.drive_unindexed(FindPositioned::new(&predicate, &best, Side::First))
}

pub(crate) fn find_last<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(0);
    pi.drive_unindexed(FindPositioned::new(&predicate, &best, Side::Last))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    First,
    Last,
}

/// A consumer of `find_first`/`find_last` over the positions `lower..upper`.
struct FindPositioned<'p, P> {
    predicate: &'p P,
    best: &'p AtomicUsize,
    side: Side,
    /// `split_off_left` takes `&self`, so the lower bound moves through a `Cell`.
    lower: Cell<usize>,
    upper: usize,
}

impl<'p, P> FindPositioned<'p, P> {
    fn new(predicate: &'p P, best: &'p AtomicUsize, side: Side) -> Self {
        FindPositioned {
            predicate,
            best,
            side,
            lower: Cell::new(0),
            upper: usize::MAX,
        }
    }

    /// A consumer for `lower..upper`.
    fn with_range(&self, lower: usize, upper: usize) -> Self {
        FindPositioned {
            predicate: self.predicate,
            best: self.best,
            side: self.side,
            lower: Cell::new(lower),
            upper,
        }
    }

    /// The position this piece compares the best with: its lower bound for `find_first`
    /// (anything found further left beats it), its upper bound for `find_last`.
    fn position(&self) -> usize {
        match self.side {
            Side::First => self.lower.get(),
            Side::Last => self.upper,
        }
    }
}

/// Whether a match recorded at `best` makes a piece at `position` useless.
#[inline]
fn beaten(best: &AtomicUsize, position: usize, side: Side) -> bool {
    // Relaxed: a hint to stop early; matches travel through the results.
    let best = best.load(Relaxed);
    match side {
        Side::First => best < position,
        Side::Last => best > position,
    }
}

impl<'p, P, T> Consumer<T> for FindPositioned<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = FindPositionedFolder<'p, P, T>;
    type Reducer = Reducers;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Reducers) {
        let left = self.split_off_left();
        let reducer = Reducers(self.side);
        (left, self, reducer)
    }

    fn into_folder(self) -> Self::Folder {
        FindPositionedFolder {
            position: self.position(),
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        beaten(self.best, self.position(), self.side)
    }

    const SPLITS_FOLDER: bool = true;

    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, Reducers) {
        let c = &folder.consumer;
        let lower = c.lower.get();
        let mid = lower + (c.upper - lower) / 2;
        let right = c.with_range(mid, c.upper);
        folder.consumer = c.with_range(lower, mid);
        folder.position = folder.consumer.position();
        (right, Reducers(folder.side()))
    }
}

impl<'p, P, T> UnindexedConsumer<T> for FindPositioned<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        let lower = self.lower.get();
        let mid = lower + (self.upper - lower) / 2;
        self.lower.set(mid);
        self.with_range(lower, mid)
    }

    fn to_reducer(&self) -> Reducers {
        Reducers(self.side)
    }
}

/// `Leftmost` for `find_first`, `Rightmost` for `find_last`.
struct Reducers(Side);

impl<T> Reducer<Option<T>> for Reducers {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Side::First => Leftmost.reduce(left, right),
            Side::Last => Rightmost.reduce(left, right),
        }
    }
}

struct FindPositionedFolder<'p, P, T> {
    consumer: FindPositioned<'p, P>,
    /// What `full` compares the best with (`FindPositioned::position`).
    position: usize,
    item: Option<T>,
}

impl<P, T> FindPositionedFolder<'_, P, T> {
    fn side(&self) -> Side {
        self.consumer.side
    }

    /// Records a match found in this piece (see the module's comment for the positions).
    fn record(&self) {
        let best = self.consumer.best;
        let lower = self.consumer.lower.get();
        // Relaxed: see `beaten`.
        match self.side() {
            Side::First => best.fetch_min(lower, Relaxed),
            // At most the upper bound, so that a piece whose range has collapsed after 64
            // halvings does not beat itself.
            Side::Last => best.fetch_max(lower.saturating_add(1).min(self.consumer.upper), Relaxed),
        };
    }
}

impl<'p, P, T> Folder<T> for FindPositionedFolder<'p, P, T>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        let first = self.side() == Side::First;
        if (first && self.item.is_some()) || beaten(self.consumer.best, self.position, self.side())
        {
            return self;
        }
        if (self.consumer.predicate)(&item) {
            self.item = Some(item);
            self.record();
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        // `find_first` stops at its first match; `find_last` goes on (a later item may
        // match too) unless beaten.
        (self.side() == Side::First && self.item.is_some())
            || beaten(self.consumer.best, self.position, self.side())
    }
}
