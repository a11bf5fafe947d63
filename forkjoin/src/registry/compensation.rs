//! The counts behind `blocking`'s compensation (see `crate::blocking`): threads inside
//! `blocking` and spare threads alive.
//!
//! The two counts that decide (threads inside `blocking`, spares alive) share one atomic
//! word, `Compensation::counts`, so that "start a spare" and "retire a spare" are each one
//! compare-and-swap on both: a spare can never retire on a stale count of the blocked
//! threads while a worker, on a stale count of the spares, decides that nobody needs
//! starting.

use crate::sync::AtomicUsize;
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
        let (blocked, spares) = split(self.counts.fetch_add(1, SeqCst) + 1);
        blocked.saturating_sub(spares)
    }

    /// The blocked thread is back. Returns whether spares now outnumber the blocked threads,
    /// so that a parked spare should be woken to retire.
    pub(crate) fn leave(&self) -> bool {
        let (blocked, spares) = split(self.counts.fetch_sub(1, SeqCst) - 1);
        spares > blocked
    }

    /// Counts one more spare, if the spares are fewer than the blocked threads and below the
    /// bound: the caller then starts it (or calls `spare_failed`).
    pub(crate) fn reserve_spare(&self) -> bool {
        self.update(|blocked, spares| {
            (spares < blocked && spares < self.max_spares).then(|| (blocked, spares + 1))
        })
    }

    /// A spare with nothing to do: it retires (and is counted out) if the spares outnumber
    /// the blocked threads.
    pub(crate) fn try_retire(&self) -> bool {
        self.update(|blocked, spares| (spares > blocked).then(|| (blocked, spares - 1)))
    }

    /// A spare that leaves for another reason (the pool terminates, or its thread could not
    /// be started) is counted out.
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

#[cfg(all(test, loom))]
mod loom_tests {
    //! The compensation protocol with the sleep protocol under it: run with
    //! `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`.

    use super::*;
    use crate::sleep::Sleep;
    use crate::sync::model;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;
    use loom::thread;
    use std::sync::atomic::Ordering::{Acquire, Release};

    /// A spare's life as `registry::spare_main` lives it, reduced to the protocol: take the
    /// work if there is some, else retire if the spares outnumber the blocked threads, else
    /// park until work or a retirement signal arrives. Returns how many items it ran.
    fn spare(sleep: &Sleep, comp: &Compensation, index: usize, work: &AtomicUsize) -> usize {
        let mut ran = 0;
        loop {
            let n = work.load(Acquire);
            if n > 0 {
                if work.compare_exchange(n, n - 1, SeqCst, SeqCst).is_ok() {
                    ran += 1;
                }
                continue;
            }
            if comp.try_retire() {
                return ran;
            }
            sleep.sleep(
                index,
                || {
                    let (blocked, spares) = split(comp.counts.load(SeqCst));
                    work.load(Relaxed) > 0 || spares > blocked
                },
                || None,
                false,
            );
        }
    }

    /// A worker of a one-worker pool blocks while work is queued: a spare starts, runs the
    /// work, and retires once the worker is back; nothing is lost, nothing is left behind.
    #[test]
    fn a_spare_runs_the_work_of_a_blocked_worker_and_retires() {
        model(|| {
            let sleep = Arc::new(Sleep::with_spares(1, 1));
            let comp = Arc::new(Compensation::new(4));
            let work = Arc::new(AtomicUsize::new(1));
            // The worker (slot 0) blocks: nobody is parked, so it starts a spare.
            assert_eq!(comp.enter(), 1);
            assert!(!sleep.wake_any());
            assert!(comp.reserve_spare());
            sleep.activate(1);
            let spare = {
                let (sleep, comp, work) = (sleep.clone(), comp.clone(), work.clone());
                thread::spawn(move || spare(&sleep, &comp, 1, &work))
            };
            // While it is blocked, more work arrives from outside.
            work.fetch_add(1, SeqCst);
            sleep.notify_work(|| 0);
            // The worker is back.
            if comp.leave() {
                sleep.wake_spare();
            }
            assert_eq!(spare.join().unwrap(), 2 - work.load(SeqCst));
            // The worker runs whatever the spare left (it retires only when it finds none,
            // or once the worker is back: then the worker takes it).
            assert_eq!(comp.counts(), (0, 0));
        });
    }

    /// A spare parked with nothing to do while its worker is still blocked stays (it is
    /// the pool's running thread); when the worker comes back, the wake-up that tells it to
    /// retire is never lost.
    #[test]
    fn a_parked_spare_is_woken_to_retire() {
        model(|| {
            let sleep = Arc::new(Sleep::with_spares(1, 1));
            let comp = Arc::new(Compensation::new(4));
            let work = Arc::new(AtomicUsize::new(0));
            assert_eq!(comp.enter(), 1);
            assert!(comp.reserve_spare());
            sleep.activate(1);
            let spare = {
                let (sleep, comp, work) = (sleep.clone(), comp.clone(), work.clone());
                thread::spawn(move || spare(&sleep, &comp, 1, &work))
            };
            if comp.leave() {
                sleep.wake_spare();
            }
            assert_eq!(spare.join().unwrap(), 0);
            assert_eq!(comp.counts(), (0, 0));
        });
    }

    /// Two threads block at once while a spare of an earlier block is retiring: the count
    /// ends with exactly as many spares as it needs (never a retirement on a stale count).
    #[test]
    fn a_retiring_spare_and_a_new_block_agree() {
        model(|| {
            let comp = Arc::new(Compensation::new(4));
            // One spare alive for a worker that has just come back.
            assert_eq!(comp.enter(), 1);
            assert!(comp.reserve_spare());
            assert!(comp.leave());
            let retired = Arc::new(AtomicBool::new(false));
            let spare = {
                let (comp, retired) = (comp.clone(), retired.clone());
                thread::spawn(move || retired.store(comp.try_retire(), Release))
            };
            // Meanwhile another worker blocks.
            let short = comp.enter();
            let started = short > 0 && comp.reserve_spare();
            spare.join().unwrap();
            let (blocked, spares) = comp.counts();
            assert_eq!(blocked, 1);
            // Either the old spare stayed for the new block, or it retired and a new one
            // was started: one spare either way.
            assert_eq!(spares, 1);
            assert_eq!(retired.load(Acquire), started);
        });
    }
}
