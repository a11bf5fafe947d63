//! The splitter: how a producer's items are divided among workers. Lazy binary splitting
//! (Tzannes, Caragea, Barua and Vishkin, PPoPP 2010) on the heartbeat (DESIGN.md, section 8).
//!
//! A *run* folds its producer on the current worker in chunks, all into one folder. Between
//! two chunks it looks at its worker's heartbeat: only when an idle worker has asked for work
//! (`limit == SHARE_REQUEST` and someone idle) does it split the rest in half, keep the left
//! half in the same folder and offer the right half through a `join`, whose frame the
//! heartbeat then promotes. Nobody asks on a busy pool, so there a loop costs one load and
//! compare per chunk, with no grain size from the user.
//!
//! Four things keep that cheap and useful:
//!
//! - **Chunks grow.** The first chunk is one item, the next sixteen: a loop of a few
//!   expensive items is ready to split after its first item (timed when a request is
//!   pending as the run starts), and a loop of sixteen cheap ones folds in two chunks. From
//!   then on (`TIMED_FROM`) the run reads the time-stamp counter at each boundary and sizes
//!   its chunks to last about `CHUNK_TIME_NS`, ending on multiples of `ALIGN` items, so that
//!   an idle worker never waits long for an answer and cheap items fold in long vectorised
//!   runs. A loop called inside a pool of one folds in one chunk.
//! - **A long run takes rayon's pieces.** A timed run that has gone on `LONG_RUN_NS` cuts
//!   itself into as many pieces as rayon's splitter cuts every loop into (`Bounds::pieces`),
//!   so that a fold whose steps grow dearer with its accumulator costs what it costs on rayon.
//! - **Only what is worth sharing is shared.** When asked, a run that does not yet know its
//!   items' cost times one item first; then it splits only if the rest would take
//!   `SHARE_WORTH_NS` or more. A loop of sixteen cheap items inside a sequential loop stays
//!   sequential (a steal would cost more than the whole loop).
//! - **The outer loop answers.** A run that declines takes the request away from its
//!   siblings (the next small loops of the same sequential loop need not weigh it again)
//!   but leaves it for the runs it is nested in (`Worker::decline_request`): of two nested
//!   loops, the outer one splits, as the heartbeat promotes the oldest frame of a join
//!   tree. When join frames of this worker could answer instead, the request stays pending
//!   for the next join.
//!
//! A consumer that wants the last items first (`Consumer::RIGHT_FIRST`: `find_last` and
//! the `*_last` methods built on it) runs backward instead (`run_backward`): the producer
//! is halved, right half first, down to chunks, so the first chunk folded is the last and
//! whatever lies left of a match is never started. Its other splits (`with_max_len`'s, an
//! unindexed producer's, whose rightmost piece is also split further) run the right piece
//! first too.

use super::plumbing::traits::{
    Consumer, Folder, Producer, Reducer, UnindexedConsumer, UnindexedProducer,
};
use super::sized_chunk;
use crate::clock;
use crate::join::{join, join_context, join_in_current};
use crate::registry::{self, Worker};
use std::cell::Cell;

/// A loop `with_max_len` cuts into at least this many pieces a thread folds them whole
/// (`split_max_len`).
const WHOLE_LEAVES: usize = 4;
/// From this chunk length on, a run times its chunks (before, the counter would cost more
/// than the items between two reads).
const TIMED_FROM: usize = 16;
/// A timed chunk lasts about this long: the longest an idle worker waits for an answer.
const CHUNK_TIME_NS: u64 = 10_000;
/// The least work, in nanoseconds of this run's own items, worth offering to another worker.
const SHARE_WORTH_NS: u64 = 16_000;
/// How much longer each chunk is than the one before, until the run times its chunks: the
/// first chunk is one item (ready to split at once if an idle worker is waiting), the next
/// sixteen, and from then on chunks are timed. A loop of sixteen items so folds in two
/// chunks.
const GROWTH: usize = 16;
/// A run of at most this many items in a pool of one folds at once, without a run's set-up
/// (a small closure is inlined at this call too; a large one, at the run's).
const SHORT_ALONE: usize = 64;
/// Chunks this short are fed to the folder item by item.
const SHORT_CHUNK: usize = 4;
/// Items at least this long are worth a short wait for an idle worker at a boundary
/// (`Pace::idle_soon`), which costs at most `IDLE_POLL_SHARE` of one such item.
const LONG_ITEM_NS: u64 = 1_000_000;
/// A run of long items waits for an idle worker at a boundary at most this share of an
/// item, and at least `IDLE_POLL_NS`, at most `IDLE_POLL_MAX_NS`: workers whose items take
/// the same time finish apart by the timers' and the scheduler's jitter, which grows with
/// the item (a 150 ms sleep ends up to about 100 us late), not by a fixed 20 us.
const IDLE_POLL_SHARE: f32 = 1.0 / 64.0;
const IDLE_POLL_NS: u64 = 20_000;
const IDLE_POLL_MAX_NS: u64 = 10_000_000;
/// A run that has gone on this long is cut into `Bounds::pieces` pieces, as rayon's splitter
/// cuts every loop: a fold whose steps grow dearer with its accumulator (a product of big
/// numbers) costs far less in pieces, and a shorter loop never pays for them.
const LONG_RUN_NS: u64 = 50_000;
/// Chunks end, and runs split, on multiples of this many items from the loop's start where
/// they are longer: a vectorised loop started part-way into a cache line reads across lines
/// on every other load, and its chunks would fold slower than std's loop folds the same items.
const ALIGN: usize = 64;
/// Only chunks and pieces of at least this many items are aligned: a shorter one would lose
/// up to a sixteenth of its length (a loop of few, dear items wants even pieces, and its
/// items are not loaded in vectors).
const ALIGNED_FROM: usize = 16 * ALIGN;
/// A timed chunk is at most this many times the previous one (a chunk of cheap first items
/// must not make the next one of dearer items far too long).
const MAX_GROWTH: usize = 16;

/// A run of at least this many items, still to be cut into pieces, that starts beside an
/// idle worker is halved at once (`split_half`); a shorter one splits its first item off
/// (`split_first`): a loop of few items may be of coarse or blocking ones, and a sixteen-item
/// loop pays one join, not the three of its halving down to rayon's pieces.
const HALVED_FROM: usize = ALIGNED_FROM;

/// Splitting bounds from the producer (`with_min_len`, `with_max_len`), how many pieces a
/// long run of this part of the loop is still cut into (`LONG_RUN_NS`), and where the part
/// starts, modulo `ALIGN`, from the loop's start.
#[derive(Clone, Copy)]
struct Bounds {
    min: usize,
    max: usize,
    pieces: u32,
    phase: usize,
}

impl Bounds {
    /// The producer's bounds, for the whole loop, in one piece.
    #[inline]
    fn of<P: Producer>(producer: &P) -> Bounds {
        Bounds {
            min: producer.min_len().max(1),
            max: producer.max_len().max(1),
            pieces: 1,
            phase: 0,
        }
    }

    /// These bounds for a loop run on `worker`'s pool, called from `outside` it or not: the
    /// pieces rayon would cut it into.
    ///
    /// A loop called inside a pool of one stays one piece: it folds in one chunk, untimed,
    /// as std's loop does. Timing it (to cut it into rayon's two pieces) moved the fold out
    /// of its caller's code, where the optimiser had kept the accumulator in registers, and
    /// cost more than the pieces gain. A call from outside, which rayon cuts into eight,
    /// already pays a hand-off to the pool, and is timed.
    #[inline]
    fn on(self, worker: &Worker, outside: bool) -> Bounds {
        if worker.alone() && !outside {
            return self;
        }
        Bounds {
            pieces: rayon_pieces(worker.registry().num_threads(), outside),
            ..self
        }
    }

    /// These bounds for the part `at` items further on, cut into at most `pieces`.
    #[inline(always)]
    fn part(self, at: usize, pieces: u32) -> Bounds {
        Bounds {
            pieces,
            phase: (self.phase + at) % ALIGN,
            ..self
        }
    }

    /// The bounds of the two halves of this part split after `mid` items, each to be cut
    /// into half its pieces.
    #[inline(always)]
    fn halves(self, mid: usize) -> (Bounds, Bounds) {
        let pieces = (self.pieces / 2).max(1);
        (self.part(0, pieces), self.part(mid, pieces))
    }

    /// Where `len` items are halved: the middle, moved to an aligned item (`aligned_len`)
    /// unless that leaves the first half under `with_min_len`.
    #[inline]
    fn middle(&self, len: usize) -> usize {
        let aligned = aligned_len(self.phase, len / 2, len);
        if aligned >= self.min {
            aligned
        } else {
            len / 2
        }
    }

    /// Whether `len` items are more than `with_max_len` allows and may be halved.
    #[inline]
    fn over_max(&self, len: usize) -> bool {
        len > self.max && self.can_halve(len)
    }

    /// Whether `len` items may be halved: each half at least `with_min_len`.
    #[inline]
    fn can_halve(&self, len: usize) -> bool {
        len / 2 >= self.min
    }

    /// Whether a run of `len` items may split its first `min` off (`split_first`): any
    /// two items without a `with_min_len`; with one, only where the lazy splitter could
    /// split the rest after a first chunk of `min` items too, so that a piece of at most
    /// `3 * min` items is folded whole.
    #[inline]
    fn split_first(&self, len: usize) -> bool {
        if self.min == 1 {
            len >= 2
        } else {
            len / 3 >= self.min
        }
    }
}

/// `len` of the `rest` items that start `at` items (modulo `ALIGN`) from the loop's start,
/// shortened to end on a multiple of `ALIGN` if they are at least `ALIGNED_FROM`.
#[inline(always)]
fn aligned_len(at: usize, len: usize, rest: usize) -> usize {
    if len < ALIGNED_FROM || len >= rest {
        return len;
    }
    let end = (at + len) / ALIGN * ALIGN;
    if end > at {
        end - at
    } else {
        len
    }
}

/// The pieces rayon's splitter cuts a loop into, in a pool of `threads` (DESIGN.md, section
/// 8, "A long run takes rayon's pieces"): two per thread; eight from outside the pool, whose
/// two halves rayon counts as stolen, each then cut into two per thread again.
fn rayon_pieces(threads: usize, outside: bool) -> u32 {
    let per_thread = if outside { 8 } else { 2 };
    (threads as u32).saturating_mul(per_thread)
}

/// Entry point of `bridge_producer_consumer`.
#[inline]
pub(super) fn drive_producer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let bounds = Bounds::of(&producer);
    let outside = Worker::current().is_null();
    if outside && !bounds.can_halve(len) && len <= bounds.max {
        // A loop that can never be split, called from outside any pool, runs on the caller,
        // as rayon's does: in the pool it would only add a hand-off and a wake-up.
        return producer.fold_with(consumer.into_folder()).complete();
    }
    registry::on_worker(move |worker| {
        split_to_max(len, producer, consumer, bounds.on(worker, outside), worker)
    })
}

/// Entry point of `deterministic()`: the producer is cut at fixed block boundaries, in a
/// tree that depends only on `len` and `block` (DESIGN.md, section 8, "Deterministic
/// reductions"). Every node is a `join`, whose frame the heartbeat promotes when an idle
/// worker asks, so who runs which blocks still follows the load; what is combined with
/// what does not.
#[inline]
pub(super) fn drive_fixed_blocks<P, C>(
    len: usize,
    block: usize,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if len <= block {
        // One block: folded where it is called, as a loop that cannot split is.
        return producer.fold_with(consumer.into_folder()).complete();
    }
    registry::on_worker(move |worker| fixed_blocks(len, block, producer, consumer, worker.alone()))
}

/// A node of the fixed tree: `len` items from a block boundary; the left child holds the
/// first half of its blocks (rounded down), the right child the rest.
fn fixed_blocks<P, C>(len: usize, block: usize, producer: P, consumer: C, alone: bool) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if len <= block || consumer.full() {
        return fold_whole(producer, consumer);
    }
    let mid = len.div_ceil(block) / 2 * block;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    let left = move || fixed_blocks(mid, block, left_p, left_c, alone);
    let right = move || fixed_blocks(len - mid, block, right_p, right_c, alone);
    let (l, r) = if alone {
        // Nobody could take a share: the same tree, without the joins' frames.
        if C::RIGHT_FIRST {
            let r = right();
            (left(), r)
        } else {
            let l = left();
            (l, right())
        }
    } else {
        join_in_order(C::RIGHT_FIRST, left, right)
    };
    reducer.reduce(l, r)
}

/// Splits eagerly while the pieces are longer than `with_max_len` allows, then runs them.
#[inline]
fn split_to_max<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    worker: &Worker,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if bounds.over_max(len) && !consumer.full() {
        return split_max_len(len, producer, consumer, bounds);
    }
    run(len, producer, consumer, bounds, worker)
}

/// `split_to_max` for a loop longer than `with_max_len` allows. Cut into at least
/// `WHOLE_LEAVES` pieces a thread, it folds each piece whole where it was cut, as rayon's
/// leaves are; run as a paced run (its first item split off, its chunks timed), a piece of a
/// hundred items cost more than its items (docs/measurements.md, section 8,
/// "`increment_all_max`"). A stolen piece, or a loop of fewer pieces, runs lazily and can
/// still be shared.
#[cold]
#[inline(never)]
fn split_max_len<P, C>(len: usize, producer: P, consumer: C, bounds: Bounds) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let threads = current_worker().registry().num_threads();
    let whole = !C::RIGHT_FIRST && len / bounds.max >= WHOLE_LEAVES * threads;
    halve_to_max(len, producer, consumer, bounds, whole)
}

/// Halves a loop down to `with_max_len`; its pieces fold `whole` where they were cut.
fn halve_to_max<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    whole: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let start = Start::UnderMax { whole };
    fork_halves(len, len / 2, producer, consumer, bounds, [start, start])
}

/// Folds a piece in one call, unless its consumer is already full.
#[inline]
fn fold_whole<P, C>(producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    producer.fold_with(consumer.into_folder()).complete()
}

/// A part of a loop split off, and how it starts.
struct Piece<P, C> {
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    start: Start,
}

/// How a piece starts (`Piece::start`), by the split that made it.
#[derive(Clone, Copy)]
enum Start {
    /// As any run (`run`): a run's shared rest.
    Run,
    /// As any run, timed from the start if it migrated (`split_half`'s right half).
    TimedIfMigrated,
    /// A piece of a loop longer than `with_max_len` allows (`halve_to_max`): halved again,
    /// or folded `whole` where it was cut.
    UnderMax { whole: bool },
}

impl<P, C> Piece<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// Runs the piece, on the thread that split it unless it `migrated`.
    #[inline]
    fn start(self, migrated: bool) -> C::Result {
        let Piece {
            len,
            producer: p,
            consumer: c,
            bounds,
            start,
        } = self;
        let worker = current_worker();
        match start {
            Start::Run => run(len, p, c, bounds, worker),
            Start::TimedIfMigrated => run_timed(len, p, c, bounds, worker, migrated),
            Start::UnderMax { whole } => {
                if bounds.over_max(len) && !c.full() {
                    halve_to_max(len, p, c, bounds, whole)
                } else if whole && !migrated {
                    fold_whole(p, c)
                } else {
                    run(len, p, c, bounds, worker)
                }
            }
        }
    }
}

/// What a fork runs on the thread that split (the first closure of its join): a piece, or
/// the part a run keeps, which goes on with the run's state.
enum Here<P, C: Consumer<P::Item>>
where
    P: Producer,
{
    /// A piece, run afresh (a halving's half).
    Piece(Piece<P, C>),
    /// The part a run keeps, folded on into its folder (`split_folder`).
    Folder {
        len: usize,
        producer: P,
        folder: C::Folder,
        bounds: Bounds,
        pace: Pace,
    },
    /// The part a run of a consumer written for rayon keeps (`run_chunks`).
    Chunks {
        len: usize,
        producer: P,
        consumer: C,
        bounds: Bounds,
        pace: Pace,
    },
}

impl<P, C> Here<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// Runs what stays, on the thread that split.
    #[inline]
    fn run(self) -> C::Result {
        match self {
            Here::Piece(piece) => piece.start(false),
            // A consumer makes only one of the two kinds (`Consumer::SPLITS_FOLDER`): the
            // guards leave the other unreachable in its instance, so it is not compiled.
            Here::Folder {
                len,
                producer,
                folder,
                bounds,
                pace,
            } if C::SPLITS_FOLDER => run_folder::<P, C>(len, producer, folder, bounds, pace),
            Here::Chunks {
                len,
                producer,
                consumer,
                bounds,
                pace,
            } if !C::SPLITS_FOLDER => run_chunks(len, producer, consumer, bounds, pace),
            _ => unreachable!("a run's kind follows its consumer"),
        }
    }
}

/// A fork of a loop: runs `here` on this thread and offers `there` to idle workers, as one
/// join; returns their results in that order. Every split of a loop but `split_first`'s
/// forks here, through one join of one pair of closure types (DESIGN.md, section 2, "Generic
/// code kept small"). `there` waits in the caller's frame and the join's frame holds a pointer
/// to it, as in `fork_at_direct`.
#[inline(never)]
fn fork<P, C>(here: Here<P, C>, there: &mut Option<Piece<P, C>>) -> (C::Result, C::Result)
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The joining thread, to tell whether `there` migrated.
    let thread = Worker::current() as usize;
    // The first closure of a join runs on the joining worker: `here`, which may hold a folder
    // or a pace, never leaves this thread.
    let here = StaysHere(here);
    join_in_current(
        move || here.into_inner().run(),
        move || {
            let piece = there.take().expect("a piece runs once");
            piece.start(Worker::current() as usize != thread)
        },
    )
}

/// Splits the producer and the consumer after `mid` of their `len` items, each half to be
/// cut into half the pieces and to start as `starts` says, and forks them (the right one here
/// for a consumer that wants the last items first).
#[inline]
fn fork_halves<P, C>(
    len: usize,
    mid: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    starts: [Start; 2],
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (left_bounds, right_bounds) = bounds.halves(mid);
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    let left = Piece {
        len: mid,
        producer: left_p,
        consumer: left_c,
        bounds: left_bounds,
        start: starts[0],
    };
    let right = Piece {
        len: len - mid,
        producer: right_p,
        consumer: right_c,
        bounds: right_bounds,
        start: starts[1],
    };
    let (l, r) = if C::RIGHT_FIRST {
        let (r, l) = fork(Here::Piece(right), &mut Some(left));
        (l, r)
    } else {
        fork(Here::Piece(left), &mut Some(right))
    };
    reducer.reduce(l, r)
}

/// The fork of `split_first`, which every loop started beside an idle worker takes: the
/// right piece waits in this function's frame and the join's frame holds only a pointer to
/// it (`join_in_current`, not `join`'s path for large closures). A closure of several words
/// copied into the join's frame right after it was built is read back with wide loads before
/// its narrow stores retire, a store-forwarding stall on every such loop
/// (docs/measurements.md, section 8, "The first item's join").
#[inline(always)]
fn fork_at_direct<P, C, L, R>(mid: usize, producer: P, consumer: C, left: L, right: R) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
    L: FnOnce(P, C, bool) -> C::Result + Send,
    R: FnOnce(P, C, bool) -> C::Result + Send,
{
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    // The joining thread, to tell whether the right piece migrated.
    let here = Worker::current() as usize;
    let mut rest = Some((right_p, right_c, right, here));
    let rest = &mut rest;
    let (l, r) = join_in_current(
        move || left(left_p, left_c, false),
        move || {
            let (p, c, right, here) = rest.take().expect("the right piece runs once");
            right(p, c, Worker::current() as usize != here)
        },
    );
    reducer.reduce(l, r)
}

/// One run: fold on this worker, splitting lazily; while some worker is idle as it starts,
/// its first item is split off first (`split_first`).
#[inline]
fn run<P, C>(len: usize, producer: P, consumer: C, bounds: Bounds, worker: &Worker) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    run_timed(len, producer, consumer, bounds, worker, false)
}

/// `run`, its items timed from the start if `timed` and no first item is split off.
#[inline]
fn run_timed<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    worker: &Worker,
    timed: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if bounds.split_first(len) && !C::RIGHT_FIRST && worker.someone_idle() && !worker.alone() {
        return split_first(len, producer, consumer, bounds);
    }
    run_lazily(len, producer, consumer, bounds, worker, timed)
}

/// A run of `HALVED_FROM` items or more, still to be cut into pieces, that starts while some
/// worker is idle: halved at once, each half with half the pieces, as rayon's splitter does
/// (DESIGN.md, section 8, "A long run takes rayon's pieces"). Its first item split off
/// instead made a one-item piece at the left of each such run, into whose result every
/// reduction above it then went (a `Vec` fold copied the loop once more into that vector).
#[cold]
#[inline(never)]
fn split_half<P, C>(len: usize, producer: P, consumer: C, bounds: Bounds) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let mid = bounds.middle(len);
    let starts = [Start::Run, Start::TimedIfMigrated];
    fork_halves(len, mid, producer, consumer, bounds, starts)
}

/// A run that starts while some worker is idle: its first item (or `with_min_len` items)
/// and its rest are the two halves of a join, so that the rest is a join frame from the
/// start. If the first item runs long or blocks (a loop of a few coarse items), an idle
/// worker claims the rest (DESIGN.md, section 8, "The first item split off"); a thief's run
/// of it splits its own first item off again. If the first item is short, the rest comes
/// back private at once and runs lazily, as any run, for the cost of one join. A run of
/// many items still to be cut into pieces is halved instead (`split_half`).
#[cold]
#[inline(never)]
fn split_first<P, C>(len: usize, producer: P, consumer: C, bounds: Bounds) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if bounds.pieces > 1 && len >= HALVED_FROM {
        return split_half(len, producer, consumer, bounds);
    }
    let first = bounds.min;
    fork_at_direct(
        first,
        producer,
        consumer,
        move |p, c, _| run_lazily(first, p, c, bounds.part(0, 1), current_worker(), false),
        move |p, c, migrated| {
            let worker = current_worker();
            let bounds = bounds.part(first, bounds.pieces);
            if !migrated {
                return run_lazily(len - first, p, c, bounds, worker, false);
            }
            // A thief's rest, taken while the first item ran: maybe a loop of a few long
            // items, so timed from the start: its first boundary knows their cost.
            run_timed(len - first, p, c, bounds, worker, true)
        },
    )
}

/// `run` without the first item split off; `timed` times its items from the start.
#[inline]
fn run_lazily<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    worker: &Worker,
    timed: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if C::RIGHT_FIRST {
        // Also alone: the point is the order, not the sharing.
        return run_backward(len, producer, consumer, bounds, worker);
    }
    if len <= SHORT_ALONE && worker.alone() {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    // The guard leaves on every way out.
    let depth = worker.enter_loop();
    let _nested = LoopGuard(worker);
    // Alone, nobody could ever take a share: one chunk, no boundaries, folded by the same
    // call as every run's chunks. A longer loop folded by a call of its own left the user's
    // closure out of line there (docs/measurements.md, section 8, "A pool of one folds
    // through the run's call").
    let pace = if !worker.alone() {
        Pace::new(worker, depth, timed, bounds, len)
    } else if bounds.pieces <= 1 {
        Pace::whole(worker)
    } else {
        // Alone, only its pieces split it: timed from the start.
        Pace::new(worker, depth, true, bounds, len)
    };
    if C::SPLITS_FOLDER {
        run_folder::<P, C>(len, producer, consumer.into_folder(), bounds, pace)
    } else {
        run_chunks(len, producer, consumer, bounds, pace)
    }
}

/// Ends a run's nesting on its worker (also when the run unwinds).
struct LoopGuard<'w>(&'w Worker);

impl Drop for LoopGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.leave_loop()
    }
}

/// A run with one folder for all its chunks (consumers that can split a running folder).
/// One fold call site, so that the producer's loop is inlined once.
///
/// The last chunk is the whole rest of the producer, not split off an empty rest: a
/// producer may hold items past its length that its sequential iterator still touches at
/// the end (the longer side of a `zip`, whose closures `std::iter::Zip` runs on one more
/// item), as the last piece of rayon's does.
#[inline]
fn run_folder<P, C>(
    mut len: usize,
    mut producer: P,
    folder: C::Folder,
    bounds: Bounds,
    mut pace: Pace,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // A local, not the argument (passed by pointer when large): LLVM splits into registers
    // only memory the function owns (DESIGN.md, section 8, "What a run carries").
    let mut folder = folder;
    loop {
        let take = pace.chunk.min(len);
        let (head, tail) = if take < len {
            let (head, tail) = producer.split_at(take);
            (head, Some(tail))
        } else {
            (producer, None)
        };
        folder = if take <= SHORT_CHUNK {
            // A vectorised loop's set-up costs more than a few items.
            let mut folder = folder;
            for item in head.into_iter() {
                folder = folder.consume(item);
            }
            folder
        } else {
            sized_chunk::fold(take, head, folder)
        };
        let Some(tail) = tail else {
            return folder.complete();
        };
        producer = tail;
        len -= take;
        if folder.full() {
            return folder.complete();
        }
        if let Some(mid) = pace.boundary(take, len, bounds) {
            return split_folder::<P, C>(len, mid, producer, folder, bounds, pace);
        }
    }
}

/// Shares a run's rest after `mid` items; the first `mid` go on in the same folder.
#[cold]
#[inline(never)]
fn split_folder<P, C>(
    len: usize,
    mid: usize,
    producer: P,
    mut folder: C::Folder,
    bounds: Bounds,
    pace: Pace,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (left, right) = producer.split_at(mid);
    let (right_c, reducer) = C::split_folder(&mut folder, mid);
    let mut rest = Some(Piece {
        len: len - mid,
        producer: right,
        consumer: right_c,
        bounds: pace.right(bounds),
        start: Start::Run,
    });
    let kept = Here::Folder {
        len: mid,
        producer: left,
        folder,
        bounds,
        pace,
    };
    let (l, r) = fork(kept, &mut rest);
    reducer.reduce(l, r)
}

/// A run for consumers written for rayon, which cannot split a running folder: every chunk
/// gets a consumer (and folder) of its own, split off the rest.
#[inline]
fn run_chunks<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    bounds: Bounds,
    mut pace: Pace,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The result so far, with the reducer that joins it to what follows.
    let mut done: Option<(C::Result, C::Reducer)> = None;
    let finish = |done: Option<(C::Result, C::Reducer)>, rest: C::Result| match done {
        Some((left, reducer)) => reducer.reduce(left, rest),
        None => rest,
    };
    loop {
        if consumer.full() {
            return finish(done, consumer.into_folder().complete());
        }
        // A chunk is a piece of its own here, so it honours `with_min_len`.
        let take = pace.chunk.max(bounds.min);
        if take >= len {
            return finish(done, producer.fold_with(consumer.into_folder()).complete());
        }
        let (head, tail) = producer.split_at(take);
        let (head_c, tail_c, reducer) = consumer.split_at(take);
        let result = head.fold_with(head_c.into_folder()).complete();
        done = Some(match done {
            Some((left, previous)) => (previous.reduce(left, result), reducer),
            None => (result, reducer),
        });
        producer = tail;
        consumer = tail_c;
        len -= take;
        if let Some(mid) = pace.boundary(take, len, bounds) {
            let (left_p, right_p) = producer.split_at(mid);
            let (left_c, right_c, reducer) = consumer.split_at(mid);
            let mut rest = Some(Piece {
                len: len - mid,
                producer: right_p,
                consumer: right_c,
                bounds: pace.right(bounds),
                start: Start::Run,
            });
            let kept = Here::Chunks {
                len: mid,
                producer: left_p,
                consumer: left_c,
                bounds,
                pace,
            };
            let (l, r) = fork(kept, &mut rest);
            return finish(done, reducer.reduce(l, r));
        }
    }
}

/// A run for a consumer that wants the last items first (`Consumer::RIGHT_FIRST`). The
/// producer is halved, right half first, down to pieces of the chunk length, each folded
/// front to back by a folder of its own: the first piece folded is the last chunk, and a
/// piece left of a result is never started (`full`). Halving, rather than taking chunks
/// off the right end one at a time, keeps the depth of the splits logarithmic: `find_last`
/// tells pieces apart by halving a range of positions, one split per chunk would use a
/// range up every 64 chunks.
///
/// Every halving is a `join` with the right half first, so the heartbeat's promotion of the
/// oldest frame shares the largest left piece still waiting: no request is weighed here.
/// The chunk length is learnt as in a forward run, by timing the pieces; the pieces that
/// stay on this worker share it through a `Cell` (a piece a thief takes starts its own).
#[inline]
fn run_backward<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    worker: &Worker,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // Depth 0: unused, as a backward run never weighs a request (`Pace::boundary`).
    let pace = Cell::new(Pace::new(worker, 0, false, bounds.part(0, 1), len));
    backward(len, producer, consumer, bounds, &pace)
}

#[inline]
fn backward<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    pace: &Cell<Pace>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let mut next = pace.get();
    if len <= next.chunk || !bounds.can_halve(len) {
        // A chunk the pace sized, or a piece `with_min_len` keeps whole (not marked).
        let mark = if len <= next.chunk { len } else { 0 };
        let result = sized_chunk::fold(mark, producer, consumer.into_folder()).complete();
        next.learn(len);
        pace.set(next);
        return result;
    }
    let mid = len / 2;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    let (right_pace, left_pace) = (OwnerOnly(pace), OwnerOnly(pace));
    let (r, l) = join_context(
        move |c| {
            backward_piece(
                len - mid,
                right_p,
                right_c,
                bounds,
                right_pace.get(c.migrated()),
            )
        },
        move |c| backward_piece(mid, left_p, left_c, bounds, left_pace.get(c.migrated())),
    );
    reducer.reduce(l, r)
}

/// One half of a backward run's split: on in the same run, or a run of its own on the
/// thief that took it (`pace` is `None`).
#[inline]
fn backward_piece<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    bounds: Bounds,
    pace: Option<&Cell<Pace>>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    match pace {
        Some(pace) => backward(len, producer, consumer, bounds, pace),
        None => run(len, producer, consumer, bounds, current_worker()),
    }
}

/// A backward run's pace, moved into both closures of its joins. `Cell` is not `Sync`, so
/// a closure that runs on another thread (a thief took it) must not touch it: `get` gives
/// it only to a closure that did not migrate.
struct OwnerOnly<'a>(&'a Cell<Pace>);

// SAFETY: the reference reaches another thread only inside a closure a thief took, which
// drops it unused (`get` returns `None` there); a shared reference has no drop glue.
unsafe impl Send for OwnerOnly<'_> {}

impl<'a> OwnerOnly<'a> {
    /// The pace, unless the closure holding it migrated (`FnContext::migrated`).
    #[inline(always)]
    fn get(self, migrated: bool) -> Option<&'a Cell<Pace>> {
        (!migrated).then_some(self.0)
    }
}

/// A value moved into the first closure of a `join`, which runs on the joining thread
/// itself: the splitter only joins on a worker, and a worker runs a join's first closure
/// inline (only from outside any pool does `join` send both closures away). So a folder,
/// which need not be `Send`, can go on in it, and a `Pace` with its worker pointer.
struct StaysHere<T>(T);

// SAFETY: see above: the value never leaves the thread that made it.
unsafe impl<T> Send for StaysHere<T> {}

impl<T> StaysHere<T> {
    /// Taken out by a method, so that the closure captures the whole wrapper, not its field.
    #[inline]
    fn into_inner(self) -> T {
        self.0
    }
}

/// Entry point of `bridge_unindexed`.
#[inline]
pub(super) fn drive_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    registry::on_worker(move |worker| {
        let threads = worker.registry().num_threads();
        let edge = if C::RIGHT_FIRST { EDGE_SPLITS } else { 0 };
        unindexed(worker.index, threads, edge, producer, consumer)
    })
}

/// How many times a consumer that wants the last items first (`Consumer::RIGHT_FIRST`)
/// halves the rightmost piece of an unindexed producer, whatever the pool: such a producer
/// can only be folded front to back, so its right end is reached by splitting. Bounded,
/// as some producers split without end (`repeat`); 64 halvings leave a piece of a 64-bit
/// count of items at one item.
const EDGE_SPLITS: u32 = 64;

/// An unindexed producer cannot be folded in chunks and split later, so it is split before
/// it runs: into up to `splits` pieces (the pool's size; again when a piece has moved to
/// another worker, as rayon does), or when an idle worker is asking. The rightmost piece
/// of a consumer that wants the last items first is also split `edge` more times, and the
/// right piece runs first.
#[inline]
fn unindexed<P, C>(
    parent: usize,
    mut splits: usize,
    edge: u32,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let worker = current_worker();
    let threads = worker.registry().num_threads();
    let here = worker.index;
    let split = if here != parent {
        splits = threads.max(splits / 2);
        true
    } else if splits > 0 {
        splits /= 2;
        true
    } else {
        (C::RIGHT_FIRST && edge > 0) || worker.split_requested()
    };
    if split {
        match producer.split() {
            (left, Some(right)) => {
                let reducer = consumer.to_reducer();
                let left_c = consumer.split_off_left();
                let edge = edge.saturating_sub(1);
                let (l, r) = join_in_order(
                    C::RIGHT_FIRST,
                    move || unindexed(here, splits, 0, left, left_c),
                    move || unindexed(here, splits, edge, right, consumer),
                );
                return reducer.reduce(l, r);
            }
            (producer, None) => return producer.fold_with(consumer.into_folder()).complete(),
        }
    }
    producer.fold_with(consumer.into_folder()).complete()
}

/// `join` of the pieces left (`a`) and right (`b`) of a split, results as `(left, right)`.
/// With `right_first` (the consumer's `RIGHT_FIRST`) the right piece runs first, on this
/// thread, and the left one is what a thief may take.
#[inline]
pub(crate) fn join_in_order<A, B, RA, RB>(right_first: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if right_first {
        let (rb, ra) = join(b, a);
        (ra, rb)
    } else {
        join(a, b)
    }
}

/// The worker running this code: the splitter only runs inside `on_worker`.
#[inline(always)]
fn current_worker<'a>() -> &'a Worker {
    let w = Worker::current();
    debug_assert!(!w.is_null(), "the splitter runs on a worker");
    // SAFETY: the splitter is entered through `registry::on_worker`, and the pieces it
    // joins run on workers of the same pool; a worker lives while its thread runs it.
    unsafe { &*w }
}

/// The chunk schedule of one run, and what it has learnt of its items' cost.
#[derive(Clone, Copy)]
struct Pace {
    /// Length of the next chunk.
    chunk: usize,
    /// The clock at the last timed boundary, or 0 while the run is not timing.
    since: u64,
    /// Clock ticks per item, measured over the last timed chunk (0: not known yet).
    cost: f32,
    /// The clock when the run started timing (0: not yet).
    born: u64,
    /// Into how many pieces this run is still cut once it has gone on `LONG_RUN_NS`.
    pieces: u32,
    /// The items this run folds, those done included.
    items: usize,
    /// Where the run starts, modulo `ALIGN`, from the loop's start (`Bounds::phase`).
    phase: usize,
    /// The rest was found not worth sharing; it only shrinks, so do not ask again.
    declined: bool,
    /// The worker running this run (it never moves: a run is one call on one thread).
    worker: *const Worker,
    /// How deeply this run is nested in other runs on its worker (1: outermost).
    depth: u32,
}

impl Pace {
    #[inline(always)]
    fn new(worker: &Worker, depth: u32, timed: bool, bounds: Bounds, items: usize) -> Pace {
        Pace {
            chunk: 1,
            // Timed from the start if a request is already pending (a fresh job, idle
            // workers asking), or if asked to: the first boundary then knows the first
            // item's cost and can answer at once. Untimed, it timed one more item first, and
            // a loop of four 3 ms items at 2 workers split only before its last
            // (docs/measurements.md).
            since: if timed || worker.heartbeat_pending() {
                clock::now()
            } else {
                0
            },
            cost: 0.0,
            born: 0,
            pieces: bounds.pieces,
            items,
            phase: bounds.phase,
            declined: false,
            worker,
            depth,
        }
    }

    /// A run that is one chunk: no boundary, no clock.
    #[inline(always)]
    fn whole(worker: &Worker) -> Pace {
        Pace {
            chunk: usize::MAX,
            since: 0,
            cost: 0.0,
            born: 0,
            pieces: 1,
            items: usize::MAX,
            phase: 0,
            declined: true,
            worker,
            depth: 0,
        }
    }

    /// After a piece of `done` items of a backward run: the next piece's length, grown then
    /// timed as a forward run's chunks are.
    #[inline]
    fn learn(&mut self, done: usize) {
        if self.since != 0 {
            *self = self.timed(done);
        } else {
            self.chunk = self.chunk.saturating_mul(GROWTH);
            if self.chunk >= TIMED_FROM {
                self.since = clock::now();
            }
        }
    }

    /// Called between two chunks: `done` items were just folded and `rest` remain. Sets the
    /// next chunk's length and says where to split the rest now, if it should: in half, when
    /// asked and worth it.
    #[inline(always)]
    fn boundary(&mut self, done: usize, rest: usize, bounds: Bounds) -> Option<usize> {
        if self.since != 0 {
            if let Some(mid) = self.timed_boundary(done, rest, bounds) {
                return Some(mid);
            }
        } else {
            self.chunk = self.chunk.saturating_mul(GROWTH);
            // Start timing only if another boundary will follow the next chunk.
            if self.chunk >= TIMED_FROM && rest > self.chunk {
                self.since = clock::now();
            }
        }
        if self.declined || !bounds.can_halve(rest) {
            return None;
        }
        // SAFETY: the worker running this run (see `worker`), alive while its thread is.
        let worker = unsafe { &*self.worker };
        let deferred = worker.deferred_request_for(self.depth) && worker.someone_idle();
        if !deferred && !worker.split_requested() && (self.cost == 0.0 || !self.idle_soon(rest)) {
            return None;
        }
        let (pace, split) = self.asked(rest);
        *self = pace;
        split.then(|| self.split_asked(rest, bounds.min))
    }

    /// `boundary` in a timed run, out of line: learns the cost, cuts a long run into its
    /// pieces, aligns the next chunk's end.
    #[cold]
    #[inline(never)]
    fn timed_boundary(&mut self, done: usize, rest: usize, bounds: Bounds) -> Option<usize> {
        *self = self.timed(done);
        if self.pieces > 1 && bounds.can_halve(rest) {
            if let Some(mid) = self.long_run(rest, bounds.min) {
                return Some(mid);
            }
        }
        self.chunk = self.aligned(rest, self.chunk);
        None
    }

    /// A timed run that may still be cut into pieces: once it has gone on `LONG_RUN_NS`, it
    /// is halved at each boundary (its items, those done included, as rayon halves a range),
    /// the half that leaves to be cut into half the pieces after running that long itself,
    /// until this run's own share is one piece.
    #[cold]
    #[inline(never)]
    fn long_run(&mut self, rest: usize, min: usize) -> Option<usize> {
        let long = clock::ticks(LONG_RUN_NS);
        let ran = self.since - self.born;
        if ran >= long {
            return Some(self.halve_pieces(rest, min));
        }
        None
    }

    /// Where a run asked to share splits its rest: in half, or at the middle of its items
    /// if it is still to be cut into pieces (halving them). Both parts keep `min` items.
    #[cold]
    #[inline(never)]
    fn split_asked(&mut self, rest: usize, min: usize) -> usize {
        if self.pieces > 1 {
            self.halve_pieces(rest, min)
        } else {
            self.keep(rest, rest / 2, min)
        }
    }

    /// Halves the run at the middle of its items (those done included), each half taking
    /// half its pieces: returns where the rest is split.
    #[cold]
    #[inline(never)]
    fn halve_pieces(&mut self, rest: usize, min: usize) -> usize {
        self.pieces /= 2;
        let done = self.items - rest;
        let half = (self.items / 2).saturating_sub(done);
        // `half < rest`: the run's first half never reaches past its items.
        let mid = if half == 0 { rest / 2 } else { half };
        self.keep(rest, mid, min)
    }

    /// The rest is split after about `mid` items (moved to a multiple of `ALIGN` from the
    /// loop's start, unless that leaves this run fewer than `min`), which this run keeps:
    /// returns where.
    #[cold]
    #[inline(never)]
    fn keep(&mut self, rest: usize, mid: usize, min: usize) -> usize {
        let aligned = self.aligned(rest, mid);
        let mid = if self.items - rest + aligned >= min {
            aligned
        } else {
            mid
        };
        self.items -= rest - mid;
        mid
    }

    /// `len` items from here, aligned (`aligned_len`); `rest` items remain.
    #[inline(always)]
    fn aligned(&self, rest: usize, len: usize) -> usize {
        aligned_len(self.phase + (self.items - rest), len, rest)
    }

    /// The bounds of the rest this run gave away at its last split.
    #[inline(always)]
    fn right(&self, bounds: Bounds) -> Bounds {
        bounds.part(self.phase + self.items, self.pieces)
    }

    /// Nobody asks, but the items are long (`LONG_ITEM_NS` or more) and few are left (`rest`,
    /// at most two per worker): waits a little (`IDLE_POLL_SHARE` of an item), yielding the
    /// core, for a worker to become idle before starting the next. Workers that finish items
    /// of the same length finish together, and a request sent a microsecond after this
    /// boundary would wait a whole item for the next one (a loop of four 150 ms items on 2
    /// workers took three items' time). With many items left, a late request costs one item
    /// of many, and nothing waits.
    #[cold]
    #[inline(never)]
    fn idle_soon(&self, rest: usize) -> bool {
        // SAFETY: as in `boundary`.
        let worker = unsafe { &*self.worker };
        if worker.alone()
            || self.cost < clock::ticks(LONG_ITEM_NS) as f32
            || rest > 2 * worker.registry().num_threads()
        {
            return false;
        }
        let wait = (self.cost * IDLE_POLL_SHARE) as u64;
        let until =
            clock::now() + wait.clamp(clock::ticks(IDLE_POLL_NS), clock::ticks(IDLE_POLL_MAX_NS));
        loop {
            if worker.someone_idle() || worker.split_requested() {
                return true;
            }
            if clock::now() >= until {
                return false;
            }
            // Yielding, not spinning: the worker about to finish the other item may have
            // been woken onto this core, and a spin kept it off for the whole wait.
            std::thread::yield_now();
        }
    }

    /// A timed chunk ended: learn the cost per item and size the next chunk.
    #[cold]
    #[inline(never)]
    fn timed(self, done: usize) -> Pace {
        let now = clock::now();
        // SAFETY: as in `boundary`.
        let worker = unsafe { &*self.worker };
        if worker.outside_call_alone() {
            // A call from outside runs this loop alone: its clock.
            worker.caller_tick();
        }
        let ticks = now.saturating_sub(self.since).max(1);
        // A chunk may fold nothing (a search that stopped): count it as one item.
        let done = done.max(1);
        let cost = ticks as f32 / done as f32;
        let target = (clock::ticks(CHUNK_TIME_NS) as f32 / cost) as usize;
        Pace {
            born: if self.born == 0 {
                self.since
            } else {
                self.born
            },
            since: now,
            cost,
            chunk: target.clamp(1, done.saturating_mul(MAX_GROWTH)),
            ..self
        }
    }

    /// An idle worker asks: split if the rest is worth sharing, or find out.
    #[cold]
    #[inline(never)]
    fn asked(self, rest: usize) -> (Pace, bool) {
        if self.cost == 0.0 {
            // Time the next chunk first, one item: if items are long, the answer should
            // not wait for many. The request stays pending meanwhile.
            let since = if self.since == 0 {
                clock::now()
            } else {
                self.since
            };
            return (
                Pace {
                    since,
                    chunk: 1,
                    ..self
                },
                false,
            );
        }
        // SAFETY: the worker running this run, alive while its thread is.
        let worker = unsafe { &*self.worker };
        // While profiled, every boundary asks: trust the cost only once a chunk near
        // `CHUNK_TIME_NS` has timed it, not the first item's, whose clock reads dwarf a cheap
        // item (and would split a cheap loop into leaves of a few hundred items).
        if worker.profiling_now()
            && (self.chunk as f32) * self.cost < clock::ticks(CHUNK_TIME_NS / 2) as f32
        {
            return (self, false);
        }
        if rest as f32 * self.cost >= clock::ticks(SHARE_WORTH_NS) as f32 {
            worker.raise_request();
            (self, true)
        } else {
            worker.decline_request(self.depth);
            (
                Pace {
                    declined: true,
                    ..self
                },
                false,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{clock, rayon_pieces, Bounds, Pace, ALIGN, HALVED_FROM, LONG_RUN_NS};

    /// A timed run of `items` items starting `phase` past a multiple of `ALIGN`, cut into
    /// `pieces`, that has run `ran_ns` since it started timing. No worker: the methods under
    /// test never read it.
    fn pace(items: usize, pieces: u32, phase: usize, ran_ns: u64) -> Pace {
        let born = 1_000;
        Pace {
            chunk: 64,
            since: born + clock::ticks(ran_ns),
            cost: 1.0,
            born,
            pieces,
            items,
            phase,
            declined: false,
            worker: std::ptr::null(),
            depth: 1,
        }
    }

    #[test]
    fn a_loop_takes_rayons_pieces_two_per_thread_eight_from_outside() {
        assert_eq!(rayon_pieces(1, false), 2);
        assert_eq!(rayon_pieces(4, false), 8);
        assert_eq!(rayon_pieces(1, true), 8);
        assert_eq!(rayon_pieces(3, true), 24);
    }

    #[test]
    fn a_run_is_halved_only_once_it_has_run_long() {
        let mut young = pace(10_000, 8, 0, LONG_RUN_NS / 2);
        assert_eq!(young.long_run(9_000, 1), None);
        assert_eq!((young.items, young.pieces), (10_000, 8));
    }

    /// Halved by its items, those done included, at a multiple of `ALIGN` from the loop's
    /// start, until its own share is one piece; the halves it gives away are cut into the
    /// rest of the pieces.
    #[test]
    fn a_long_run_halves_its_items_on_aligned_ends_down_to_one_piece() {
        // 1,000 items done of 10,000: the first half ends at 5,000, moved down to 4,992.
        let mut run = pace(10_000, 8, 0, LONG_RUN_NS);
        assert_eq!(run.long_run(9_000, 1), Some(3_992));
        assert_eq!((run.items, run.pieces), (4_992, 4));
        let given = run.right(Bounds {
            min: 1,
            max: usize::MAX,
            pieces: 8,
            phase: 0,
        });
        assert_eq!((given.pieces, given.phase), (4, 0));
        // Next boundary, 1,100 done: half of 4,992 (2,496) is aligned already.
        assert_eq!(run.long_run(4_992 - 1_100, 1), Some(2_496 - 1_100));
        assert_eq!((run.items, run.pieces), (2_496, 2));
        // Next, 1,200 done: half of 2,496 is 1,248, leaving 48 here, too few to align.
        assert_eq!(run.long_run(2_496 - 1_200, 1), Some(48));
        assert_eq!((run.items, run.pieces), (1_248, 1));
        // Done past the half: the rest is halved instead.
        let mut late = pace(10_000, 2, 0, LONG_RUN_NS);
        assert_eq!(late.long_run(3_000, 1), Some(1_500 - (7_000 + 1_500) % 64));
        assert_eq!(late.pieces, 1);
        // A loop of few items is halved evenly.
        let mut few = pace(157, 8, 0, LONG_RUN_NS);
        assert_eq!(few.long_run(149, 1), Some(78 - 8));
    }

    #[test]
    fn chunks_end_on_multiples_of_align_from_the_loops_start() {
        // A run starting 17 items past a multiple of 64 (phase 17), 100 items done.
        let run = pace(10_000, 1, 17, 0);
        let rest = 10_000 - 100;
        for len in [1_024, 1_100, 4_097] {
            let chunk = run.aligned(rest, len);
            assert!(chunk <= len && chunk > len - ALIGN, "{len}: {chunk}");
            assert_eq!((17 + 100 + chunk) % ALIGN, 0, "{len}: {chunk}");
        }
        // Short chunks and the last chunk stay as they are.
        assert_eq!(run.aligned(rest, 1_023), 1_023);
        assert_eq!(run.aligned(rest, rest), rest);
    }

    /// `with_min_len` is a floor on both parts of every split, wherever aligning moves it:
    /// a long run halved (`middle`), a run asked to share or cut into its pieces (`keep`).
    /// Runs, floors and phases drawn at random, each split as the splitter allows it (the
    /// rest at least twice the floor: `can_halve`).
    #[test]
    fn aligning_a_split_never_leaves_a_part_under_with_min_len() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut draw = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        for _ in 0..100_000 {
            let min = 1 + draw(3_000);
            let phase = draw(ALIGN);
            let bounds = Bounds {
                min,
                max: usize::MAX,
                pieces: 8,
                phase,
            };
            let len = HALVED_FROM + draw(20_000);
            if bounds.split_first(len) {
                let mid = bounds.middle(len);
                assert!(mid >= min && len - mid >= min, "{len} at {mid}, min {min}");
            }
            // Runs just long enough to split, where aligning could cut under the floor.
            let items = 2 * min + draw(256);
            let rest = items - draw(items - 2 * min + 1);
            let mut run = pace(items, 1 << draw(4), phase, LONG_RUN_NS);
            let done = items - rest;
            let mid = run.split_asked(rest, min);
            assert!(
                done + mid >= min && rest - mid >= min,
                "{done} done, {rest} left, split after {mid}, min {min}"
            );
            assert_eq!(run.items, done + mid);
        }
    }
}
