//! A call from a thread outside the pool, on a worker or in a borrowed slot, running alone at
//! first (DESIGN.md, section 7, "Entry from outside the pool").

use super::worker::Worker;
use super::Registry;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// How long a call from outside runs alone before it wakes a parked worker
/// (docs/measurements.md, section 8, "Short loops from outside").
const CALLER_ALONE: Duration = Duration::from_micros(10);

/// How long a watcher stays on duty after a call from outside started, though nobody is busy.
const WATCH_AFTER_CALL: Duration = Duration::from_millis(1);

/// The call from outside running on a worker (owner-only, `OwnerState`); calls may nest.
#[derive(Clone, Copy)]
pub(crate) struct OutsideCall {
    /// A call from outside runs on this slot and has not yet brought the parked workers in.
    pub(super) alone: bool,
    /// Promotions push without waking anyone: the watcher on duty takes them at its tick.
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
    /// A call from outside starts on this worker's slot; returns the one it replaced.
    pub(crate) fn begin_outside_call(&self) -> OutsideCall {
        let registry = self.registry();
        let now = crate::clock::now();
        // Relaxed: a hint for the watcher, read first as most calls need not write its line.
        if now.saturating_sub(registry.last_outside_call.load(Relaxed))
            > crate::clock::ticks(WATCH_AFTER_CALL.as_nanos() as u64) / 8
        {
            registry.last_outside_call.store(now, Relaxed);
        }
        let several = registry.slot_count() > 1;
        let st = self.owner();
        // The first join is shared as a queued job's, quietly if a watcher is on duty.
        // Relaxed: a hint; a watcher just gone costs a tick's wait (`caller_tick` then wakes).
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

    /// The clock of a call from outside, read at each timed chunk of a loop (module docs).
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

    /// Whether a call from outside runs on this slot and has not yet brought the workers in.
    #[inline(always)]
    pub(crate) fn outside_call_alone(&self) -> bool {
        self.owner().outside.get().alone
    }
}

impl Registry {
    /// Whether a call from outside started within `WATCH_AFTER_CALL`.
    pub(super) fn called_lately(&self) -> bool {
        // Relaxed: a hint; a stale value costs one period more or less of watching.
        let last = self.last_outside_call.load(Relaxed);
        last != 0
            && crate::clock::now().saturating_sub(last)
                < crate::clock::ticks(WATCH_AFTER_CALL.as_nanos() as u64)
    }
}
