use super::borrow::WATCH_AFTER_BORROW;
use super::Registry;
use std::sync::atomic::fence;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};

/// Search rounds with exponential `spin_loop` back-off, then rounds of `yield_now`, before an
/// idle worker parks (seed 000, section 2.3: "yield, then sleep"). Only the first
/// `PURE_SPIN_ROUNDS` (about 126 `spin_loop`s) keep the CPU; the later spin rounds yield it
/// after spinning. Spinning through all 24 rounds (a hundred microseconds or more) held up
/// whoever shared the CPU: in the submit benchmark at one worker, where the submitter and
/// the worker share one CPU, 600 tasks took 125 us with a pure spin, 66-70 us with a
/// yield after round 6 (rayon, which yields in every round: 72-81 us), with no change
/// beyond the noise in fib, integrate, jacobi, lu or uts at 1 and 2 workers.
pub(super) const SPIN_ROUNDS: u32 = 24;

pub(super) const PURE_SPIN_ROUNDS: u32 = 6;

pub(super) const YIELD_ROUNDS: u32 = 8;

impl Registry {
    /// The number of threads that should be running or ready: the workers and the spares,
    /// less those inside `blocking` (a snapshot for heuristics).
    pub(super) fn busy_or_ready(&self) -> usize {
        let (blocked, spares) = self.compensation.counts();
        (self.workers.len() + spares).saturating_sub(blocked)
    }

    /// Wakes a parked worker for new work, unless some worker is awake and searching: it
    /// will find the work (it looks again after announcing itself, before it could park),
    /// and when it takes a job it passes the signal on if more work is queued.
    pub(crate) fn notify_work(&self) {
        self.sleep.notify_work(|| {
            self.idle
                .load(Relaxed)
                .saturating_sub(self.sleep.sleepers())
        });
    }

    /// A worker stops being idle (it found work, or what it waited for is done). If workers
    /// are parked and none of them watches (see `Worker::idle_until`), wakes one to take the
    /// role, since this one will be busy: without it, parked workers would sleep through
    /// all the work this one goes on to create, which nobody would be asked to share.
    pub(super) fn leave_idle(&self) {
        self.idle_changed(-1);
        // The Dekker pattern with a parking worker, which announces itself, fences, and
        // then reads `idle` to decide whether to watch: one of the two sees the other.
        fence(SeqCst);
        // Relaxed: ordered by the fences; a stale `watcher` only costs a needless wake-up.
        if self.sleep.sleepers() > 0 && !self.watcher.load(Relaxed) {
            self.sleep.wake_any();
        }
    }

    /// Records a worker entering (+1) or leaving (-1) the idle state.
    pub(super) fn idle_changed(&self, delta: isize) {
        // SeqCst: `notify_work` skips the wake-up when it counts a searching worker, which
        // is right only if that worker looks at the queues after this increment (the
        // Dekker pattern with the publisher's push and fence; see `sleep`).
        if delta > 0 {
            self.idle.fetch_add(1, SeqCst);
        } else {
            self.idle.fetch_sub(1, SeqCst);
        }
    }

    /// Whether a thread outside the pool borrowed a slot within `WATCH_AFTER_BORROW`.
    pub(super) fn borrowed_lately(&self) -> bool {
        // Relaxed: a hint for the watcher's decision; a stale value costs one period more or
        // less of watching.
        let last = self.last_borrow.load(Relaxed);
        last != 0
            && crate::clock::now().saturating_sub(last)
                < crate::clock::ticks(WATCH_AFTER_BORROW.as_nanos() as u64)
    }
}
