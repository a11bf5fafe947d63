//! Claiming a stalled worker's oldest private frame (DESIGN.md, section 4, "Claimed from a
//! stalled worker"): when to claim, and what a claimed frame becomes. The race with the
//! owner's pop, and the asymmetric fence that settles it, are `crate::frame_counts`'s.

use super::heartbeat::{HEARTBEAT, SHARE_REQUEST};
use super::worker::{bump, JobSource, Worker};
use crate::job::{FrameHead, JobHeader, JobRef};
use crate::lineage::RegionId;
use crate::sync::Instant;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// How long a request must stay unanswered, the owner making no progress, before an idle
/// worker claims a private frame (DESIGN.md, section 4, "Claimed from a stalled worker").
const STALL: Duration = Duration::from_micros(2 * HEARTBEAT.as_micros() as u64);

/// A worker an idle one watches for a stall: which, its progress then, and since when.
#[derive(Clone, Copy)]
pub(crate) struct StallWatch {
    victim: usize,
    progress: u64,
    since: Instant,
}

/// A worker's watch for a stalled one, while idle (owner-only, `OwnerState`).
pub(crate) struct StallWatching {
    /// The worker this one watches, and since when.
    pub(super) watch: Cell<Option<StallWatch>>,
    /// When this worker last looked for a worker to watch.
    pub(super) looked: Cell<Option<Instant>>,
}

impl StallWatching {
    pub(super) const fn new() -> StallWatching {
        StallWatching {
            watch: Cell::new(None),
            looked: Cell::new(None),
        }
    }
}

impl Worker {
    /// The owner's slow path for frame `idx`, maybe shared: `None` if a claim backed off (run
    /// it inline), else whether a thief claimed it. On the owner's thread, younger frames done.
    pub(crate) fn take_back_shared(&self, idx: usize) -> Option<bool> {
        if !self.owner().counts.take_back(&self.frames_lock, idx) {
            return None;
        }
        // SAFETY: our contract (owner's thread, a running join's frame); a shared frame's latch
        // was written by its sharer under the lock `take_back` then took.
        unsafe { Some((*(*self.frames())[idx]).latch().claimed()) }
    }

    /// What a worker's owner has done lately: its joins and jobs.
    fn progress(&self) -> u64 {
        // Relaxed: statistics counters, read as hints.
        self.inline_joins()
            .wrapping_add(self.counters.executed.load(Relaxed))
    }

    /// Whether `victim` has a private frame to claim and no other work (hints, lock-free).
    fn claimable(&self, victim: &Worker) -> bool {
        // Relaxed: hints; `try_claim` decides under the lock.
        victim.index != self.index
            && victim.join.limit.load(Relaxed) == SHARE_REQUEST
            && victim.deque.is_empty()
            && victim.shared_counts().has_private()
    }

    /// An idle worker claims the oldest private frame of one stalled in a `wanted` region.
    pub(super) fn claim_from_stalled(&self, wanted: &dyn Fn(usize) -> bool) -> Option<JobRef> {
        let registry = self.registry();
        let stall = &self.owner().stall;
        let now = Instant::now();
        let watch = stall.watch.get();
        if let Some(w) = watch.filter(|w| w.victim < registry.slot_count()) {
            let victim = registry.slot(w.victim);
            if self.claimable(victim) && victim.progress() == w.progress {
                if now.duration_since(w.since) < STALL {
                    return None;
                }
                stall.watch.set(None);
                return self.try_claim(victim, wanted);
            }
        }
        // Watch the first claimable worker from a random start, at most every half period:
        // each look reads the line the others' joins write.
        if stall
            .looked
            .get()
            .is_some_and(|t| now.duration_since(t) < HEARTBEAT / 2)
        {
            stall.watch.set(None);
            return None;
        }
        stall.looked.set(Some(now));
        let workers = registry.slot_count();
        let start = (self.next_random() % workers as u64) as usize;
        let found = (0..workers)
            .map(|k| registry.slot((start + k) % workers))
            .find(|&v| self.claimable(v))
            .map(|v| StallWatch {
                victim: v.index,
                progress: v.progress(),
                since: now,
            });
        stall.watch.set(found);
        None
    }

    /// Claims `victim`'s oldest private frame if its region is `wanted`, to run as if stolen.
    fn try_claim(&self, victim: &Worker, wanted: &dyn Fn(usize) -> bool) -> Option<JobRef> {
        let mut claimed_head = std::ptr::null();
        // SAFETY: the counts and `region` are atomics. `claim` runs the closure for frame `s`
        // once the claim holds: its pointer, contents and region are visible (`enter_region`
        // shares private frames under the lock before changing the region), and the owner
        // cannot pop it before the unlock, so it stays on its stack until its latch is set.
        let claimed = unsafe {
            victim.shared_counts().claim(&victim.frames_lock, |s| {
                let region = victim.running_region().load(Relaxed);
                if !wanted(region) {
                    return false;
                }
                let head = (*victim.frames())[s];
                claimed_head = head;
                // `new_region` on this worker's thread, the caller's.
                let id = self.new_region();
                // Relaxed: under the lock the owner cannot push (a spawn promotes its
                // frames first, under the lock): what it pushes from now on lies above.
                let floor = victim.deque.bottom_index();
                let parent = RegionId::new(region);
                FrameHead::prepare_for_sharing(head, victim.index, id, parent, Some(floor));
                true
            })
        };
        // SAFETY: as above: the claimed frame (read under the lock) is live and ours alone.
        let claimed = claimed
            .map(|_| unsafe { JobRef(NonNull::new_unchecked(claimed_head as *mut JobHeader)) });
        if claimed.is_some() {
            bump(&self.counters.claimed);
            bump(&self.counters.stolen);
            // Where the job came from, as `find_work` records it (`OwnerState::source`).
            self.owner().source.set(JobSource::Slot(victim.index));
        }
        claimed
    }
}
