//! A call from a thread outside the pool, wherever it runs: on a worker that took it from a
//! submission queue (the default), or on the caller itself in a borrowed slot
//! (`PoolBuilder::caller_runs`, see `borrow.rs`). A call of a microsecond must not pay a
//! wake-up of several, so it runs alone at first: its first join is shared *quietly* when a
//! watcher is on duty (pushed, nobody woken; the watcher takes it at its next tick), and it
//! wakes a parked worker only once it has run `CALLER_ALONE`. A watcher stays on duty
//! `WATCH_AFTER_CALL` after each call, so that a stream of calls finds one.
//! DESIGN.md, section 7, "Entry from outside the pool".

use super::worker::Worker;
use super::Registry;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// How long a call from outside runs alone before it wakes a parked worker to share it:
/// several wake-ups' worth (a futex wake costs the waker microseconds, and the woken thread
/// starts later still: docs/measurements.md, section 8, "Short loops from outside"), so that small calls never pay one
/// and long ones lose little.
const CALLER_ALONE: Duration = Duration::from_micros(10);

/// How long a watcher stays on duty after a call from outside started, though nobody is
/// busy: the next call of a stream finds it, shares its first join quietly and wakes
/// nobody. Each of its ticks costs a few microseconds of CPU; an idle pool stops them after
/// this long.
const WATCH_AFTER_CALL: Duration = Duration::from_millis(1);

/// The call from outside running on a worker (owner-only, `OwnerState`); what
/// `begin_outside_call` returns is the one it replaced, for `end_outside_call` to restore (a
/// call from outside may run nested in another, on a worker that waits and takes it from a
/// queue).
#[derive(Clone, Copy)]
pub(crate) struct OutsideCall {
    /// A call from outside the pool runs on this slot and has not yet brought the parked
    /// workers in.
    pub(super) alone: bool,
    /// Promotions push without waking anyone: the watcher, on duty, takes them at its next
    /// tick (a call from outside whose first join is shared at once).
    pub(super) quiet: bool,
    /// When the call has run long enough to wake a parked worker for it.
    pub(super) deadline: u64,
}

impl OutsideCall {
    pub(super) const fn new() -> OutsideCall {
        OutsideCall {
            alone: false,
            quiet: false,
            deadline: 0,
        }
    }
}

impl Worker {
    /// A call from outside starts on this worker's slot: it runs alone (see the module's
    /// comment), its first join shared quietly if a watcher is on duty.
    pub(crate) fn begin_outside_call(&self) -> OutsideCall {
        let registry = self.registry();
        let now = crate::clock::now();
        // Relaxed: a hint for the watcher (see `called_lately`). Read first: the line is
        // shared with the watcher, and most calls of a stream need not write it.
        if now.saturating_sub(registry.last_outside_call.load(Relaxed))
            > crate::clock::ticks(WATCH_AFTER_CALL.as_nanos() as u64) / 8
        {
            registry.last_outside_call.store(now, Relaxed);
        }
        let several = registry.slot_count() > 1;
        let st = self.owner();
        // The first join is shared as a queued job's is, so that two long closures joined at
        // the top run in parallel: quietly if a watcher will come for it; if none is on duty,
        // its push wakes a parked worker (which then stays on watch while calls keep coming).
        // Relaxed: a hint; a watcher that has just left costs the quiet frame a tick's wait
        // (`caller_tick` then wakes someone).
        st.fresh.set(several);
        st.outside.replace(OutsideCall {
            alone: true,
            quiet: several && registry.idle.watched(),
            deadline: now + crate::clock::ticks(CALLER_ALONE.as_nanos() as u64),
        })
    }

    /// The call from outside that `begin_outside_call` started has returned.
    pub(crate) fn end_outside_call(&self, saved: OutsideCall) {
        self.owner().outside.set(saved);
    }

    /// The clock of a call from outside, read at each timed chunk of a parallel loop. A
    /// loop that has run `CALLER_ALONE` wakes a parked worker for a frame still waiting, or
    /// shares its next split, whose push wakes one; from then on the pool's own heartbeat
    /// (idle workers asking) takes over. Joins have no such clock: a per-join countdown
    /// slowed fib (docs/measurements.md, section 5, "No clock on joins"; the first join's
    /// share, with the watcher, covers them).
    #[cold]
    #[inline(never)]
    pub(crate) fn caller_tick(&self) {
        let outside = &self.owner().outside;
        let call = outside.get();
        if !call.alone || crate::clock::now() < call.deadline {
            return;
        }
        outside.set(OutsideCall {
            alone: false,
            quiet: false,
            ..call
        });
        if self.registry().slot_count() > 1 {
            if self.deque.is_empty() {
                self.share_next_join();
            } else {
                // A frame shared quietly is still waiting for the watcher: wake someone.
                self.registry().notify_work();
            }
        }
    }

    /// Whether a call from outside runs on this slot and has not yet brought the parked
    /// workers in (see `caller_tick`).
    #[inline(always)]
    pub(crate) fn outside_call_alone(&self) -> bool {
        self.owner().outside.get().alone
    }
}

impl Registry {
    /// Whether a call from outside started within `WATCH_AFTER_CALL`.
    pub(super) fn called_lately(&self) -> bool {
        // Relaxed: a hint for the watcher's decision; a stale value costs one period more or
        // less of watching.
        let last = self.last_outside_call.load(Relaxed);
        last != 0
            && crate::clock::now().saturating_sub(last)
                < crate::clock::ticks(WATCH_AFTER_CALL.as_nanos() as u64)
    }
}
