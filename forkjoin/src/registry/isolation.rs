//! Waiting in isolation: a worker that waits for a join, a scope, a task or a job in
//! another pool runs only work that descends from what it waits for, so that stealing can
//! never put an unrelated task on its stack (DESIGN.md, section 5, gives the rule, its
//! reasons and the guarantee).
//!
//! - **Regions.** Every job a worker pushes carries a tag in its deque slot: the *region*
//!   the worker was running in, the address of the promoted join frame, scope or task whose
//!   work it is doing (0 outside any). Running a promoted frame, a scope's task or a task
//!   enters its region (`enter_region`); what it pushes is tagged with it.
//! - **What a waiter takes** (`Helps::Descendants`): the jobs it pushed itself since it
//!   began to wait (its deque above `floor`), the jobs tagged with the region it waits for,
//!   wherever they are (`Deque::steal_tagged`: the tag is read before the CAS, so a job of
//!   another region is never taken), and its broadcast shares (which only it can run).
//!   Never a submission queue's job, never another region's.
//! - **Its core.** A waiter with nothing of its own passes unrelated work on (wakes a parked
//!   worker, which may take it) and parks, with a timeout; the thread that pushes work of its
//!   region wakes it (`Worker::push_in`). No spare stands in for it: a spare runs unrelated
//!   work under the waiter's index, which the waiter must let finish before it goes on, and a
//!   spare that takes a lock the waiter holds deadlocks them both.
//! - Waits for another pool are not isolated (`Helps::Anything`): the job there may send work
//!   back into this pool, untagged.

use super::heartbeat::HEARTBEAT;
use super::idle::Parking;
use super::worker::{Worker, SOURCE_OWN};
use crate::deque::Steal;
use crate::job::JobRef;

/// What a waiting worker may run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Helps {
    /// Anything: a worker between jobs, a spare.
    Anything,
    /// Only what descends from what it waits for: the jobs of its own deque pushed since
    /// `bottom` was `floor`, and the jobs tagged `region` on any deque.
    Descendants { floor: isize, region: usize },
}

/// A region no job is tagged with: its waiter takes only the jobs it pushes itself.
pub(crate) const NO_REGION: usize = usize::MAX;

/// A region nobody waits on as a worker of this pool (no one to wake when its work is pushed).
pub(crate) const NO_OWNER: usize = usize::MAX;

impl Helps {
    /// The descendants of `region`, and whatever `worker` pushes from now on.
    pub(crate) fn descendants_of(worker: &Worker, region: usize) -> Helps {
        Helps::Descendants {
            floor: worker.deque.bottom_index(),
            region,
        }
    }
}

/// The region a worker runs in, restored when dropped (also when the job unwinds).
pub(crate) struct InRegion<'w> {
    worker: &'w Worker,
    outer: (usize, usize),
}

impl Drop for InRegion<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: made by `enter_region` on this worker's thread, which still runs it.
        unsafe {
            let st = self.worker.owner_state();
            ((*st).region, (*st).region_owner) = self.outer;
        }
    }
}

impl Worker {
    /// Runs in `region` until the guard drops: what this worker pushes meanwhile is tagged
    /// with it, and `owner` (the slot of the worker waiting for the region, or `NO_OWNER`)
    /// is woken when it is pushed.
    ///
    /// # Safety
    /// On this worker's thread.
    #[inline]
    pub(crate) unsafe fn enter_region(&self, region: usize, owner: usize) -> InRegion<'_> {
        // SAFETY: owner-only state, on the owner's thread (our contract).
        let outer = unsafe {
            let st = self.owner_state();
            let outer = ((*st).region, (*st).region_owner);
            ((*st).region, (*st).region_owner) = (region, owner);
            outer
        };
        InRegion {
            worker: self,
            outer,
        }
    }

    /// A job that descends from `region`, or one this worker pushed since `floor`.
    fn find_descendant(&self, hint: Option<usize>, floor: isize, region: usize) -> Option<JobRef> {
        self.reclaim_index();
        if let Some(job) = self.take_own_above(floor) {
            return Some(JobRef(job));
        }
        let registry = self.registry();
        if let Some(job) = registry.slot(self.shown_index()).inbox.take() {
            return Some(job);
        }
        let workers = registry.slot_count();
        // The thief of the frame waited for first: it is the one running the region.
        let first = hint.filter(|&v| v < workers).unwrap_or(self.index);
        loop {
            let mut contended = false;
            for k in 0..workers {
                let i = (first + k) % workers;
                // Our own deque too: a task waited for may lie at its top.
                match registry.slot(i).deque.steal_tagged(region) {
                    Steal::Success(job) => {
                        super::worker::bump(&self.counters.stolen);
                        // Where it came from, as `find_work` records it (`OwnerState::source`).
                        let source = if i == self.index { SOURCE_OWN } else { i };
                        // SAFETY: owner-only state, on the owner's thread.
                        unsafe { (*self.owner_state()).source = source };
                        return Some(JobRef(job));
                    }
                    Steal::Retry => contended = true,
                    Steal::Empty => {}
                }
            }
            if !contended {
                return None;
            }
        }
    }

    /// Whether a job this waiter may take is in sight (a snapshot, for parking).
    fn sees_descendant(&self, floor: isize, region: usize) -> bool {
        let registry = self.registry();
        (self.deque.bottom_index() > floor && !self.deque.is_empty())
            || !registry.slot(self.shown_index()).inbox.is_empty()
            || (0..registry.slot_count()).any(|i| registry.slot(i).deque.top_tag() == Some(region))
    }

    /// Runs descendants of `region` (and jobs pushed since `floor`) until `done()`; with
    /// none in sight, spins, yields and parks as the idle policy says (`Idle`), in
    /// isolation (see the module's docs).
    pub(super) fn wait_isolated(
        &self,
        done: &dyn Fn() -> bool,
        hint: Option<usize>,
        floor: isize,
        region: usize,
    ) {
        let registry = self.registry();
        // Counted idle while it looks, so that the thief of its frame shares on request.
        let mut round = None;
        while !done() {
            if let Some(job) = self.find_descendant(hint, floor, region) {
                if round.take().is_some() {
                    registry.idle.work_found(&registry.sleep);
                }
                // SAFETY: on this worker's thread; the job was taken from a queue.
                unsafe { self.execute(job) };
                continue;
            }
            let round = round.get_or_insert_with(|| registry.idle.start_looking());
            if registry.some_busy() {
                self.request_sharing();
            }
            let parking = Parking {
                index: self.index,
                stay_awake: &|| done() || self.sees_descendant(floor, region),
                wants_watcher: &|| false,
                lendable: false,
                parks: &self.counters.parks,
                period: HEARTBEAT,
                requests_pending: &|| false,
                isolated: Some(&self.counters.isolated_sleeps),
            };
            if !round.parks_next() {
                registry.idle.no_work_found(round, &registry.sleep, parking);
                continue;
            }
            // About to park. Work this waiter may not take: make sure a thread that may is
            // awake (counted idle, this waiter may have made its publisher skip the
            // wake-up). No spare stands in for it (see the module's docs).
            if registry.has_work() {
                registry.sleep.wake_any();
            }
            registry.idle.no_work_found(round, &registry.sleep, parking);
        }
        if round.is_some() {
            registry.idle.work_found(&registry.sleep);
        }
    }
}
