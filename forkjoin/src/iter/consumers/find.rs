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
//!
//! `find_last` asks the splitter for the rightmost pieces first (`Consumer::RIGHT_FIRST`):
//! a match found there stops everything to its left, so a search whose answer lies near
//! the end is quick however long the iterator. Such a search reaches pieces deeper than 64
//! halvings (the right end of a `flat_map` of `flat_map`s, of a 128-bit range), where
//! halving would leave parts with the same positions, which cannot stop one another: a
//! `find_last` piece whose range can no longer be halved opens a `Level` instead, a fresh
//! range of positions with a best of its own, inside its own. (`find_first` keeps plain
//! halving, as rayon does: its pieces' search runs from the left, and a level would cost
//! every item of a long `flat_map` a load more.)

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::sized_chunk;
use crate::iter::ParallelIterator;
use std::cell::Cell;
use std::mem;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

#[inline]
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
    #[inline]
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
    #[inline]
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}

impl<T> Reducer<Option<T>> for Rightmost {
    #[inline]
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

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, Leftmost) {
        (self, self, Leftmost)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        FindAnyFolder {
            consumer: self,
            item: None,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        // Relaxed: a hint to stop early; the match itself travels through the results.
        self.found.load(Relaxed)
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, Leftmost) {
        (folder.consumer, Leftmost)
    }
}

impl<'p, P, T> UnindexedConsumer<T> for FindAny<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        *self
    }

    #[inline]
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

    #[inline]
    fn consume(mut self, item: T) -> Self {
        if (self.consumer.predicate)(&item) {
            // Relaxed: see `full`.
            self.consumer.found.store(true, Relaxed);
            self.item = Some(item);
        }
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let predicate = self.consumer.predicate;
        let found = self.consumer.found;
        // Relaxed: see `full`.
        self.item = find_while(iter, || !found.load(Relaxed), predicate);
        if self.item.is_some() {
            found.store(true, Relaxed);
        }
        self
    }

    #[inline]
    fn complete(self) -> Option<T> {
        self.item
    }

    #[inline]
    fn full(&self) -> bool {
        // Relaxed: see `FindAny::full`.
        self.item.is_some() || self.consumer.found.load(Relaxed)
    }
}

/// The first item of `iter` that `predicate` accepts, looking at `go_on` once before a chunk
/// the splitter sized or one of at most `LOOK_EVERY` items (the splitter looks between
/// chunks), before every `LOOK_EVERY` items of another iterator of known length (a plain
/// search between looks: a look per item halved the speed of a scan) and before every item
/// of any other (a chunk may be a whole inner iterator of a `flat_map_iter`, unbounded):
/// `None` once `go_on` fails.
#[inline]
fn find_while<T>(
    iter: impl IntoIterator<Item = T>,
    go_on: impl Fn() -> bool,
    predicate: impl Fn(&T) -> bool,
) -> Option<T> {
    let mut iter = iter.into_iter();
    match iter.size_hint() {
        (len, Some(upper)) if len == upper => {
            if sized_chunk::take(len) || len <= LOOK_EVERY {
                // One plain loop: the blocks' `take` cost a counter an item.
                return go_on().then(|| iter.find(|item| predicate(item))).flatten();
            }
            let mut left = len;
            while left > 0 && go_on() {
                let block = left.min(LOOK_EVERY);
                left -= block;
                if let Some(item) = iter.by_ref().take(block).find(|item| predicate(item)) {
                    return Some(item);
                }
            }
            None
        }
        _ => iter.take_while(|_| go_on()).find(|item| predicate(item)),
    }
}

/// Items searched between looks at whether another piece has made the search useless
/// (`find_while`; docs/measurements.md, section 8, "find_first").
const LOOK_EVERY: usize = 64;

#[inline]
pub(crate) fn find_first<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(usize::MAX);
    pi.drive_unindexed(FindPositioned::<P, FIRST>::new(&predicate, &best))
}

#[inline]
pub(crate) fn find_last<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(0);
    pi.drive_unindexed(FindPositioned::<P, LAST>::new(&predicate, &best))
}

/// The side a `FindPositioned` searches for: `find_first`'s.
const FIRST: bool = false;
/// `find_last`'s.
const LAST: bool = true;

/// A consumer of `find_first` (`LAST` false) or `find_last` over the positions
/// `lower..upper` of its level.
struct FindPositioned<'p, P, const LAST: bool> {
    predicate: &'p P,
    /// The search's best, at the outermost level.
    best: &'p AtomicUsize,
    /// `split_off_left` takes `&self`, so the range and the level move through `Cell`s.
    lower: Cell<usize>,
    upper: Cell<usize>,
    /// `find_last` only: the level `lower..upper` counts in, for a piece that lies more than
    /// 64 halvings deep (`None`: the outermost).
    level: Cell<Option<Arc<Level>>>,
}

/// One more range of positions for the parts of a `find_last` piece whose own range could
/// not be halved any more (after some 64 halvings: the right end of a `flat_map` of
/// `flat_map`s, of a 128-bit range), with a best of its own. From outside, the parts are
/// that piece: a match in one records at every level above what the piece would record,
/// and a record above that beats the piece beats every part.
struct Level {
    best: AtomicUsize,
    /// The level of the piece that opened this one (`None`: the outermost).
    outer: Option<Arc<Level>>,
    /// That piece's range in its level.
    lower: usize,
    upper: usize,
    /// How many levels this one lies in, itself included.
    depth: u32,
}

/// The most levels a piece lies in. Every level costs the pieces in it a load per item;
/// two, with the outermost, give 192 bits of positions, more than the right end of a
/// `flat_map` four deep or of `0..=u128::MAX` needs. Deeper, pieces share positions as
/// rayon's do (they cannot stop one another; a match further right still stops them).
const MAX_LEVELS: u32 = 2;

impl<'p, P, const LAST: bool> FindPositioned<'p, P, LAST> {
    #[inline]
    fn new(predicate: &'p P, best: &'p AtomicUsize) -> Self {
        FindPositioned {
            predicate,
            best,
            lower: Cell::new(0),
            upper: Cell::new(usize::MAX),
            level: Cell::new(None),
        }
    }

    /// A consumer for `lower..upper` of `level`.
    #[inline]
    fn part(&self, lower: usize, upper: usize, level: Option<Arc<Level>>) -> Self {
        FindPositioned {
            predicate: self.predicate,
            best: self.best,
            lower: Cell::new(lower),
            upper: Cell::new(upper),
            level: Cell::new(level),
        }
    }

    /// This piece's level (always the outermost for `find_first`).
    #[inline]
    fn level(&self) -> Option<Arc<Level>> {
        if !LAST {
            return None;
        }
        let level = self.level.take();
        self.level.set(level.clone());
        level
    }

    /// The position this piece compares the best with: its lower bound for `find_first`
    /// (anything found further left beats it), its upper bound for `find_last`.
    #[inline]
    fn position(&self) -> usize {
        if LAST {
            self.upper.get()
        } else {
            self.lower.get()
        }
    }

    /// Whether this `find_last` piece's range is too narrow to halve and a level can open.
    #[inline]
    fn opens_level(&self) -> bool {
        LAST && self.upper.get() - self.lower.get() < 2 && {
            let level = self.level.take();
            let depth = level.as_ref().map_or(0, |l| l.depth);
            self.level.set(level);
            depth < MAX_LEVELS
        }
    }
}

/// Whether a match recorded at `best` (and, for `find_last`, at `level` and the levels
/// around it) makes a piece at `position` of `level` useless.
#[inline]
fn beaten<const LAST: bool>(best: &AtomicUsize, level: Option<&Level>, position: usize) -> bool {
    // Relaxed (all loads): a hint to stop early; matches travel through the results.
    if !LAST {
        return best.load(Relaxed) < position;
    }
    let (mut level, mut position) = (level, position);
    loop {
        if level.map_or(best, |l| &l.best).load(Relaxed) > position {
            return true;
        }
        let Some(l) = level else { return false };
        (level, position) = (l.outer.as_deref(), l.upper);
    }
}

impl<'p, P, T, const LAST: bool> Consumer<T> for FindPositioned<'p, P, LAST>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = FindPositionedFolder<'p, P, T, LAST>;
    type Reducer = Reducers<LAST>;
    type Result = Option<T>;

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, Reducers<LAST>) {
        let left = self.split_off_left();
        (left, self, Reducers)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        FindPositionedFolder {
            position: self.position(),
            level: self.level(),
            consumer: self,
            item: None,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        if !LAST {
            return beaten::<LAST>(self.best, None, self.position());
        }
        let level = self.level.take();
        let beaten = beaten::<LAST>(self.best, level.as_deref(), self.position());
        self.level.set(level);
        beaten
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, Reducers<LAST>) {
        let c = &folder.consumer;
        let (lower, upper) = (c.lower.get(), c.upper.get());
        if LAST && upper - lower < 2 && !c.opens_level() {
            // Halved, a `find_last` folder that has recorded `lower + 1` would beat itself:
            // it keeps its range, and the part after it gets the empty range at its end,
            // which neither beats the other.
            return (c.part(upper, upper, c.level()), Reducers);
        }
        // The folder goes on with the left part. A `find_last` folder that has recorded a
        // match stays unbeaten: `lower + 1` is at most the left part's upper bound (or, if
        // a level opens, what the whole piece records in the level around).
        let left = folder.consumer.split_off_left();
        let right = mem::replace(&mut folder.consumer, left);
        folder.position = folder.consumer.position();
        folder.level = folder.consumer.level();
        (right, Reducers)
    }

    // `find_last`: a match at the right end ends the search.
    const RIGHT_FIRST: bool = LAST;
}

impl<'p, P, T, const LAST: bool> UnindexedConsumer<T> for FindPositioned<'p, P, LAST>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        let (lower, upper) = (self.lower.get(), self.upper.get());
        if self.opens_level() {
            // Both parts get half of a new level inside this range.
            let outer = self.level.take();
            let level = Arc::new(Level {
                best: AtomicUsize::new(0),
                depth: outer.as_ref().map_or(0, |l| l.depth) + 1,
                outer,
                lower,
                upper,
            });
            let mid = usize::MAX / 2;
            self.lower.set(mid);
            self.upper.set(usize::MAX);
            self.level.set(Some(level.clone()));
            return self.part(0, mid, Some(level));
        }
        let mid = lower + (upper - lower) / 2;
        self.lower.set(mid);
        self.part(lower, mid, self.level())
    }

    #[inline]
    fn to_reducer(&self) -> Reducers<LAST> {
        Reducers
    }
}

/// `Leftmost` for `find_first`, `Rightmost` for `find_last`.
struct Reducers<const LAST: bool>;

impl<T, const LAST: bool> Reducer<Option<T>> for Reducers<LAST> {
    #[inline]
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        if LAST {
            Rightmost.reduce(left, right)
        } else {
            Leftmost.reduce(left, right)
        }
    }
}

struct FindPositionedFolder<'p, P, T, const LAST: bool> {
    consumer: FindPositioned<'p, P, LAST>,
    /// What `full` compares the best with (`FindPositioned::position`), and the level it
    /// counts in: the consumer's, kept at hand.
    position: usize,
    level: Option<Arc<Level>>,
    item: Option<T>,
}

impl<P, T, const LAST: bool> FindPositionedFolder<'_, P, T, LAST> {
    #[inline]
    fn beaten(&self) -> bool {
        beaten::<LAST>(self.consumer.best, self.level.as_deref(), self.position)
    }

    /// Records this piece's first match (see the module's comment for the positions; a
    /// later match of the same piece would record the same).
    #[inline]
    fn record(&self) {
        // Relaxed (all updates): see `beaten`.
        if !LAST {
            self.consumer
                .best
                .fetch_min(self.consumer.lower.get(), Relaxed);
            return;
        }
        let mut level = self.level.as_deref();
        let (mut lower, mut upper) = (self.consumer.lower.get(), self.consumer.upper.get());
        loop {
            // At most the upper bound, so that a piece whose range has collapsed (deeper
            // than the levels go) does not beat itself.
            let at = lower.saturating_add(1).min(upper);
            if level
                .map_or(self.consumer.best, |l| &l.best)
                .fetch_max(at, Relaxed)
                >= at
            {
                // A part of this level at least as far right has recorded, and so records
                // what this one would in the levels around.
                return;
            }
            let Some(l) = level else { return };
            (level, lower, upper) = (l.outer.as_deref(), l.lower, l.upper);
        }
    }
}

impl<'p, P, T, const LAST: bool> Folder<T> for FindPositionedFolder<'p, P, T, LAST>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;

    #[inline]
    fn consume(mut self, item: T) -> Self {
        if (!LAST && self.item.is_some()) || self.beaten() {
            return self;
        }
        if (self.consumer.predicate)(&item) {
            if self.item.is_none() {
                self.record();
            }
            self.item = Some(item);
        }
        self
    }

    /// The chunk's loop with the search's state in locals (DESIGN.md, section 8, "The leaf
    /// loop is std's loop"): `consume` per item moves the whole folder through memory.
    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let predicate = self.consumer.predicate;
        if !LAST {
            if self.item.is_some() {
                return self;
            }
            let (best, position) = (self.consumer.best, self.position);
            // Relaxed: see `beaten`.
            self.item = find_while(iter, || best.load(Relaxed) >= position, predicate);
            if self.item.is_some() {
                self.record();
            }
            return self;
        }
        let mut last = self.item.take();
        for item in iter {
            if self.beaten() {
                break;
            }
            if predicate(&item) {
                if last.is_none() {
                    self.record();
                }
                last = Some(item);
            }
        }
        self.item = last;
        self
    }

    #[inline]
    fn complete(self) -> Option<T> {
        self.item
    }

    #[inline]
    fn full(&self) -> bool {
        // `find_first` stops at its first match; `find_last` goes on (a later item may
        // match too) unless beaten.
        (!LAST && self.item.is_some()) || self.beaten()
    }
}
