//! The counts behind `blocking`'s compensation (see `crate::blocking`): threads inside
//! `blocking` and spare threads alive; and `StandIn`, the hand-over of one index between a
//! thread inside `blocking` and the spare that runs tasks under that index meanwhile.
//!
//! The two counts share one atomic word, `Compensation::counts`, so that a decision reads
//! both at once. Each spare stands in for one blocked thread (whose index it shows) and counts
//! until that thread takes its index back, so there are never more spares than blocked
//! threads. A spare's thread may outlive its stand-in, resting in its slot for the next one
//! (`registry/spares.rs`), but a resting thread is not counted: it runs nothing.

use crate::sync::{AtomicBool, AtomicUsize, Condvar, Mutex};
use std::sync::atomic::Ordering::{Relaxed, SeqCst};

/// Bits of `counts` for each count: the blocked threads in the low half, the spares in the
/// high half.
const HALF: u32 = usize::BITS / 2;
const LOW: usize = (1 << HALF) - 1;

/// The compensation decision's state (see the module docs).
pub(crate) struct Compensation {
    /// `blocked | spares << HALF`. SeqCst: every change is a read-modify-write on this one
    /// word, so all threads agree on the order of the decisions taken on it.
    counts: AtomicUsize,
    /// The most spares alive at once.
    max_spares: usize,
}

impl Compensation {
    pub(crate) fn new(max_spares: usize) -> Self {
        Compensation {
            counts: AtomicUsize::new(0),
            max_spares: max_spares.min(LOW),
        }
    }

    /// (threads inside `blocking`, spares alive), a snapshot.
    pub(crate) fn counts(&self) -> (usize, usize) {
        // Relaxed: a snapshot for heuristics (the heartbeat's "is anyone busy"); decisions
        // are taken by the read-modify-writes below.
        split(self.counts.load(Relaxed))
    }

    /// A thread is about to block. Returns how many more spares it would take for the
    /// spares to match the blocked threads: the caller wakes a parked thread or starts a
    /// spare (`reserve_spare`) for each.
    pub(crate) fn enter(&self) -> usize {
        // One spare per blocked thread at most: this is at least 1 (the caller has none yet).
        let (blocked, spares) = split(self.counts.fetch_add(1, SeqCst) + 1);
        blocked.saturating_sub(spares)
    }

    /// The blocked thread is back (its stand-in, if it had one, already counted out).
    pub(crate) fn leave(&self) {
        self.counts.fetch_sub(1, SeqCst);
    }

    /// Counts one more spare, if the spares are fewer than the blocked threads and below the
    /// bound: the caller then starts it (or calls `spare_failed`).
    pub(crate) fn reserve_spare(&self) -> bool {
        self.update(|blocked, spares| {
            (spares < blocked && spares < self.max_spares).then(|| (blocked, spares + 1))
        })
    }

    /// A spare is counted out: it has handed its index back (or is about to), or its thread
    /// could not be started.
    pub(crate) fn spare_gone(&self) {
        self.counts.fetch_sub(1 << HALF, SeqCst);
    }

    fn update(&self, f: impl Fn(usize, usize) -> Option<(usize, usize)>) -> bool {
        let mut current = self.counts.load(SeqCst);
        loop {
            let (blocked, spares) = split(current);
            let Some((blocked, spares)) = f(blocked, spares) else {
                return false;
            };
            match self.counts.compare_exchange_weak(
                current,
                blocked | spares << HALF,
                SeqCst,
                SeqCst,
            ) {
                Ok(_) => return true,
                Err(now) => current = now,
            }
        }
    }
}

fn split(counts: usize) -> (usize, usize) {
    (counts & LOW, counts >> HALF)
}

/// The hand-over of one index (see `crate::blocking`): a thread inside `blocking` lends its
/// index to the spare started for it, which runs tasks under it; when the thread wants it back
/// (its closure returned, or it is about to run pool work itself), it asks, and waits until
/// the spare has finished the task it is running and handed the index back. The spare takes
/// no task once asked, and its thread runs no task after the hand-back until it is given
/// another stand-in (it rests, then exits): a thread's index never changes, and no two
/// threads run tasks under one index at once. One `StandIn` per stand-in: a resting thread
/// reused for the next gets a new one.
pub(crate) struct StandIn {
    /// The blocked thread wants its index back.
    asked: AtomicBool,
    /// The spare has left its last task and takes no other: the index is the blocked
    /// thread's again. The mutex orders everything the spare did before it under the index
    /// before what the thread does after.
    handed_back: Mutex<bool>,
    back: Condvar,
}

impl StandIn {
    pub(crate) fn new() -> Self {
        StandIn {
            asked: AtomicBool::new(false),
            handed_back: Mutex::new(false),
            back: Condvar::new(),
        }
    }

    /// The blocked thread asks for its index back; it then fences and wakes the spare if it
    /// is parked (`Sleep::fence_and_wake`), and waits (`wait_until_handed_back`).
    pub(crate) fn ask_back(&self) {
        // SeqCst: the Dekker pattern with the parking spare, which reads this (`asked_back`)
        // after its own fence: it sees the request or its waker sees it asleep.
        self.asked.store(true, SeqCst);
    }

    /// Whether the blocked thread wants its index back (the spare's loop condition).
    pub(crate) fn asked_back(&self) -> bool {
        // SeqCst: as in `ask_back`.
        self.asked.load(SeqCst)
    }

    /// The spare gives the index back: its last touch of the pool in this stand-in (its
    /// thread then rests, outside the pool, until given another).
    pub(crate) fn hand_back(&self) {
        *self
            .handed_back
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        self.back.notify_all();
    }

    /// Blocks until the spare has handed the index back.
    pub(crate) fn wait_until_handed_back(&self) {
        let mut back = self
            .handed_back
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while !*back {
            back = self
                .back
                .wait(back)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The compensation protocol with the sleep protocol under it: run with
    //! `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`.

    use super::*;
    use crate::sleep::Sleep;
    use crate::sync::{fence, model};
    use loom::sync::Arc;
    use loom::thread;
    use std::sync::atomic::Ordering::{Acquire, Relaxed};

    /// A spare's life as `registry::spare_main` lives it, reduced to the protocol: take the
    /// work if there is some, else leave once asked for the index back, else park until work
    /// or the request arrives; then count itself out and hand the index back. Returns how
    /// many items it ran.
    fn spare(
        sleep: &Sleep,
        comp: &Compensation,
        stand_in: &StandIn,
        index: usize,
        work: &AtomicUsize,
    ) -> usize {
        let mut ran = 0;
        while !stand_in.asked_back() {
            let n = work.load(Acquire);
            if n > 0 {
                if work.compare_exchange(n, n - 1, SeqCst, SeqCst).is_ok() {
                    ran += 1;
                }
                continue;
            }
            sleep.sleep(
                index,
                || work.load(Relaxed) > 0 || stand_in.asked_back(),
                || None,
                false,
            );
        }
        comp.spare_gone();
        stand_in.hand_back();
        ran
    }

    /// The worker of a one-worker pool blocks while work is queued: a spare starts and runs
    /// work; when the worker is back it asks for its index, the spare (busy or parked) hands
    /// it back and ends, and the counts are back to zero. Never lost: the request's wake-up.
    #[test]
    fn a_spare_stands_in_and_hands_the_index_back() {
        model(|| {
            let sleep = Arc::new(Sleep::with_spares(1, 1));
            let comp = Arc::new(Compensation::new(4));
            let stand_in = Arc::new(StandIn::new());
            let work = Arc::new(AtomicUsize::new(1));
            // The worker (slot 0) blocks: nobody is parked, so it starts a spare.
            assert_eq!(comp.enter(), 1);
            assert!(comp.reserve_spare());
            sleep.activate(1);
            let spare = {
                let (sleep, comp, stand_in, work) =
                    (sleep.clone(), comp.clone(), stand_in.clone(), work.clone());
                thread::spawn(move || spare(&sleep, &comp, &stand_in, 1, &work))
            };
            // The worker is back: it asks for its index and waits for it.
            stand_in.ask_back();
            sleep.fence_and_wake(1);
            stand_in.wait_until_handed_back();
            comp.leave();
            assert_eq!(comp.counts(), (0, 0));
            // The worker runs whatever the spare left.
            assert_eq!(spare.join().unwrap(), 1 - work.load(SeqCst));
        });
    }

    /// A thread blocks without a spare (a parked worker was left its core) while a broadcast
    /// queues a share for its index: the blocked side, holding its slot's lock, counts itself
    /// waiting, fences and looks at its inbox; the broadcaster pushes, fences and reads the
    /// count, and locks the slot only if it is not zero (`Registry::lend_index`,
    /// `stand_in_for_waiting`, which this re-enacts). Whatever the interleaving, exactly one
    /// of them starts the spare (without the blocked side's fence, loom finds a run where
    /// neither does).
    #[test]
    fn a_share_queued_beside_a_block_without_a_spare_gets_one() {
        const WAITING: u8 = 1;
        const LENT: u8 = 2;
        fn start(lending: &mut u8, waiting: &AtomicUsize, starts: &AtomicUsize) {
            *lending = LENT;
            waiting.fetch_sub(1, SeqCst);
            starts.fetch_add(1, SeqCst);
        }
        model(|| {
            let waiting = Arc::new(AtomicUsize::new(0));
            let inbox = Arc::new(AtomicUsize::new(0));
            let lending = Arc::new(Mutex::new(0u8));
            let starts = Arc::new(AtomicUsize::new(0));
            let blocked = {
                let (waiting, inbox, lending, starts) = (
                    waiting.clone(),
                    inbox.clone(),
                    lending.clone(),
                    starts.clone(),
                );
                thread::spawn(move || {
                    let mut lending = lending.lock().unwrap();
                    *lending = WAITING;
                    waiting.fetch_add(1, SeqCst);
                    fence(SeqCst);
                    if inbox.load(Relaxed) != 0 {
                        start(&mut lending, &waiting, &starts);
                    }
                })
            };
            inbox.store(1, Relaxed);
            fence(SeqCst);
            if waiting.load(SeqCst) != 0 {
                let mut lending = lending.lock().unwrap();
                if *lending == WAITING {
                    start(&mut lending, &waiting, &starts);
                }
            }
            blocked.join().unwrap();
            assert_eq!(*lending.lock().unwrap(), LENT);
            assert_eq!(starts.load(SeqCst), 1);
            assert_eq!(waiting.load(SeqCst), 0);
        });
    }

    /// Two threads block at once, each starts its one spare (as `blocking` does), and
    /// each takes its index back: the counts agree at every step and end at zero.
    #[test]
    fn two_blocked_threads_each_get_a_spare() {
        model(|| {
            let comp = Arc::new(Compensation::new(4));
            let block = |comp: &Compensation| {
                assert!(comp.enter() >= 1);
                assert!(comp.reserve_spare());
                let (blocked, spares) = comp.counts();
                assert!(spares <= blocked);
                // Back: its spare counts itself out, then the thread.
                comp.spare_gone();
                comp.leave();
            };
            let other = {
                let comp = comp.clone();
                thread::spawn(move || block(&comp))
            };
            block(&comp);
            other.join().unwrap();
            assert_eq!(comp.counts(), (0, 0));
        });
    }
}
