//! The heartbeat (DESIGN.md, section 4): the join limit, the share requests idle workers
//! send and `on_heartbeat`'s answer; loops take part by nesting depth (`decline_request`).

use super::worker::{bump, JobSource, Worker, FRAMES, PRIVATE_FRAMES};
use crate::job::{FrameHead, JobHeader};
use crate::lineage::RegionId;
use crate::sync::Instant;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// `Worker::limit` while a heartbeat is pending: every join is below it and sees the request.
pub(crate) const SHARE_REQUEST: usize = usize::MAX;

/// The heartbeat period: idle workers ask at most every half period (`request_sharing`), the
/// watcher every period; a pool with no idle or no busy worker has no heartbeat.
pub(crate) const HEARTBEAT: Duration = Duration::from_micros(50);

/// Renewals per half period of a request whose shared frame came back untaken.
pub(super) const RENEWALS: u32 = 4;

/// A worker's requests: those it sends when idle (rate-limited while unanswered) and, for
/// the loops on its stack, which run declined the pending one (owner-only, `OwnerState`).
pub(crate) struct Requests {
    /// When this worker last asked the others to share (`request_sharing`).
    pub(super) last: Cell<Option<Instant>>,
    /// This worker's `stolen` count when it last asked: only unanswered requests wait.
    pub(super) stolen_at: Cell<u64>,
    /// Requests renewed in the current renewal window (see `renew_request`).
    pub(super) renewals: Cell<u32>,
    /// When the current renewal window started.
    pub(super) renewal_window: Cell<Option<Instant>>,
    /// Parallel-iterator runs nested on this worker's stack (see `iter/splitter.rs`).
    pub(super) loop_depth: Cell<u32>,
    /// The depth of a run that declined and took the pending request (0: none).
    pub(super) deferred: Cell<u32>,
}

impl Requests {
    pub(super) const fn new() -> Requests {
        Requests {
            last: Cell::new(None),
            stolen_at: Cell::new(0),
            renewals: Cell::new(0),
            renewal_window: Cell::new(None),
            loop_depth: Cell::new(0),
            deferred: Cell::new(0),
        }
    }
}

impl Worker {
    /// The bound on recorded frames: `shared + PRIVATE_FRAMES`, or `SHARE_REQUEST` if profiled.
    #[inline]
    fn frame_bound(&self) -> usize {
        let shared = self.owner().counts.shared();
        if self.registry().profiling.is_set() {
            return SHARE_REQUEST;
        }
        (shared + PRIVATE_FRAMES).min(FRAMES)
    }

    /// Recomputes `limit` after `shared` changed, keeping a pending request for the next
    /// join (DESIGN.md, section 4, "Promotion").
    #[inline]
    pub(crate) fn refresh_limit(&self) {
        let bound = self.frame_bound();
        // Relaxed: only this thread acts on `limit`; the CAS only keeps a concurrent request.
        let current = self.join.limit.load(Relaxed);
        if current != SHARE_REQUEST && current != bound {
            let _ = self
                .join
                .limit
                .compare_exchange(current, bound, Relaxed, Relaxed);
        }
    }

    /// Takes the pending request: `limit` back to the frame bound.
    #[inline]
    pub(super) fn take_request(&self) {
        self.owner().requests.deferred.set(0);
        // Relaxed: as in `refresh_limit`; a request just after this store is answered here.
        self.join.limit.store(self.frame_bound(), Relaxed);
    }

    /// A parallel-iterator run starts here; its depth (1: outermost). `leave_loop` ends it.
    #[inline(always)]
    pub(crate) fn enter_loop(&self) -> u32 {
        let depth = &self.owner().requests.loop_depth;
        depth.set(depth.get() + 1);
        depth.get()
    }

    /// Ends the run `enter_loop` started, once per `enter_loop`.
    #[inline(always)]
    pub(crate) fn leave_loop(&self) {
        let depth = &self.owner().requests.loop_depth;
        depth.set(depth.get() - 1);
    }

    /// Whether a request declined by a run nested deeper than `depth` is waiting for it.
    #[inline(always)]
    pub(crate) fn deferred_request_for(&self, depth: u32) -> bool {
        depth < self.owner().requests.deferred.get()
    }

    /// A run at `depth` found its rest not worth sharing: with no private frame, take the
    /// request from its siblings (DESIGN.md, section 8); else it stays for the next join.
    pub(crate) fn decline_request(&self, depth: u32) {
        let st = self.owner();
        if st.counts.has_private() || self.profiling_now() {
            return;
        }
        st.requests.deferred.set(depth);
        // Relaxed: as in `take_request`.
        self.join.limit.store(self.frame_bound(), Relaxed);
    }

    /// A run is about to answer a request: the join that shares its rest must see it.
    pub(crate) fn raise_request(&self) {
        self.owner().requests.deferred.set(0);
        // Relaxed: a request to ourselves, as in `share_next_join`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// Whether a profile is being taken on this worker's pool.
    #[inline(always)]
    pub(crate) fn profiling_now(&self) -> bool {
        self.registry().profiling.is_set()
    }

    /// Shares the next join: a thief of ours finished (DESIGN.md, section 4, "Region starts").
    pub(crate) fn share_next_join(&self) {
        let st = self.owner();
        st.fresh.set(true);
        st.source.set(JobSource::Own);
        // Relaxed: a request to ourselves, as in `execute`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// A frame this worker shared came back untaken: renew the request while someone is idle
    /// (DESIGN.md, section 4, "Renewal").
    #[cold]
    pub(crate) fn renew_request(&self) {
        let st = self.owner();
        // Relaxed: `idle` is a hint. A quiet share answered no request: nobody awaits renewal.
        if !self.someone_idle() || st.outside.get().quiet {
            return;
        }
        let now = Instant::now();
        let requests = &st.requests;
        if requests
            .renewal_window
            .get()
            .is_none_or(|t| now.duration_since(t) >= HEARTBEAT / 2)
        {
            requests.renewal_window.set(Some(now));
            requests.renewals.set(0);
        }
        if requests.renewals.get() >= RENEWALS {
            return;
        }
        requests.renewals.set(requests.renewals.get() + 1);
        // Relaxed: a request to ourselves, as in `share_next_join`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// Whether some worker is idle, or some index has no thread running. A hint.
    #[inline(always)]
    pub(crate) fn someone_idle(&self) -> bool {
        let registry = self.registry();
        // Relaxed: a hint, as the idle count is; the publisher's fence orders what follows.
        registry.idle.count() > 0 || registry.spares.free_tokens.load(Relaxed) > 0
    }

    /// Whether there is no other worker to share with, and no profile taken.
    #[inline(always)]
    pub(crate) fn alone(&self) -> bool {
        !self.profiling_now() && self.registry().num_threads() == 1
    }

    /// Whether an idle worker asks this one for work; always while a profile is taken.
    #[inline(always)]
    pub(crate) fn split_requested(&self) -> bool {
        self.heartbeat_pending() && (self.profiling_now() || self.someone_idle())
    }

    /// Whether a heartbeat is pending (loops split their range then).
    #[inline(always)]
    pub(crate) fn heartbeat_pending(&self) -> bool {
        // Relaxed: a hint, see `limit`.
        self.join.limit.load(Relaxed) == SHARE_REQUEST
    }

    /// The heartbeat arrived at a join: share the oldest private frame, or keep or take the
    /// request (DESIGN.md, section 4, "Promotion").
    #[cold]
    #[inline(never)]
    pub(crate) fn on_heartbeat(&self) {
        let registry = self.registry();
        let st = self.owner();
        let fresh = st.fresh.take();
        let share = registry.slot_count() > 1
            && if fresh {
                // A fresh job's first join: shared unless its source holds more.
                !registry.holds_work(st.source.get())
            } else {
                // Relaxed: a hint; sharing needlessly or a tick late is harmless.
                self.someone_idle()
            };
        if !share {
            self.take_request();
            return;
        }
        if !self.deque.is_empty() || !st.counts.has_private() {
            // Someone can use work, but none can be shared now: keep the request.
            return;
        }
        self.take_request();
        // SAFETY: on the owner's thread (a join's heartbeat).
        unsafe { self.promote_oldest_private() };
    }

    /// Promotes the oldest private frame onto the deque unless a thief claimed the last one
    /// meanwhile; whether it did.
    ///
    /// # Safety
    /// On this worker's thread.
    unsafe fn promote_oldest_private(&self) -> bool {
        let st = self.owner();
        // SAFETY: on the owner's thread (our contract); frames in `shared..len` are of joins
        // running on this stack; under the lock no thief claims one. Pushed under it too: a
        // claim's floor is this deque's bottom, and this outer frame lies below (`claim.rs`).
        let promoted = unsafe {
            st.counts.promote_oldest(&self.frames_lock, |i| {
                let head = (*self.frames())[i];
                let region = st.regions.current.load(Relaxed);
                FrameHead::prepare_for_sharing(
                    head,
                    self.index,
                    self.new_region(),
                    RegionId::new(region),
                    None,
                );
                self.deque
                    .push_tagged(NonNull::new_unchecked(head as *mut JobHeader), region);
            })
        };
        if promoted.is_none() {
            return false;
        }
        self.refresh_limit();
        bump(&self.counters.promoted);
        if !st.outside.get().quiet {
            self.notify_pushed(st.regions.waiter.get());
        }
        true
    }

    /// Promotes every private frame, oldest first, on the worker's own thread (DESIGN.md,
    /// section 4, "Offered before a wait outside the pool").
    #[inline]
    pub(crate) fn share_private_frames(&self) {
        if !self.owner().counts.none_private() {
            self.share_private_frames_locked();
        }
    }

    /// Counted under the lock, one promotion at a time: read without it, `shared` may be a
    /// claim's tentative count, which the claim takes back if it fails.
    #[cold]
    #[inline(never)]
    fn share_private_frames_locked(&self) {
        // SAFETY: on the owner's thread (our caller's).
        while unsafe { self.promote_oldest_private() } {}
    }

    /// Whether every other worker still has a request pending (`Idle::no_work_found`).
    pub(super) fn requests_pending(&self) -> bool {
        let registry = self.registry();
        (0..registry.slot_count())
            .map(|i| registry.slot(i))
            // Relaxed: a hint; a stale answer costs one period more or less.
            .all(|w| w.index == self.index || w.join.limit.load(Relaxed) == SHARE_REQUEST)
    }

    /// The heartbeat, from the idle side: asks every other worker to share at its next join,
    /// at most every half period (DESIGN.md, section 4).
    pub(super) fn request_sharing(&self) {
        let requests = &self.owner().requests;
        let now = Instant::now();
        // Relaxed: this worker's own counter.
        let stolen = self.counters.stolen.load(Relaxed);
        let answered = stolen != requests.stolen_at.get();
        if !answered
            && requests
                .last
                .get()
                .is_some_and(|t| now.duration_since(t) < HEARTBEAT / 2)
        {
            return;
        }
        requests.last.set(Some(now));
        requests.stolen_at.set(stolen);
        let registry = self.registry();
        for w in (0..registry.slot_count()).map(|i| registry.slot(i)) {
            // Relaxed: a request carries no data. Read first: no store on a pending one.
            if w.index != self.index && w.join.limit.load(Relaxed) != SHARE_REQUEST {
                w.join.limit.store(SHARE_REQUEST, Relaxed);
            }
        }
    }
}
