//! A worker: its slot (join frames, deque, counters, inbox), the join state every join reads
//! and the state only its owner touches, pushing and running jobs, and the search for work
//! (`find_work`; how a worker waits is `wait.rs`'s).

use super::claim::StallWatching;
use super::fifo_spawns::FifoSpawns;
use super::heartbeat::{Requests, SHARE_REQUEST};
use super::inbox::Inbox;
use super::isolation::{Regions, WaiterSlot};
use super::outside::OutsideCall;
use super::spares::Blocking;
use super::Registry;
use crate::deque::{Deque, Steal};
use crate::frame_counts::{FrameCounts, FramesLock};
use crate::job::FrameHead;
use crate::job::{HeapJob, JobHeader, JobRef};
use crate::lineage::Lineage;
use crate::padded::CachePadded;
use crate::profile_hooks;
use crate::sync::AtomicUsize;
use std::cell::{Cell, UnsafeCell};
use std::ptr::{self, NonNull};
// std's, also under loom: statistics counters order nothing (`crate::counter`).
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Capacity of a worker's frame array (promoted frames plus at most `PRIVATE_FRAMES`).
pub(crate) const FRAMES: usize = 4096;

/// How many private join frames a worker records, its outermost joins (DESIGN.md, section 4,
/// "Frames"; docs/measurements.md, section 4).
pub(crate) const PRIVATE_FRAMES: usize = 8;

/// Where a worker took the job it runs (`OwnerState::source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JobSource {
    /// Its own deque or inbox.
    Own,
    /// The deque of the slot with this index (stolen).
    Slot(usize),
    /// The submission queue with this index.
    Queue(usize),
}

crate::sync::thread_local! {
    /// The join state of the worker this thread is, or `OUTSIDE` (`const`: one load).
    pub(super) static CURRENT: Cell<*const JoinState> = const { Cell::new(outside()) };
}

crate::sync::static_with_atomics! {
    /// The join state of every non-worker thread: its `limit` is `SHARE_REQUEST`, so a join
    /// takes the slow path, which goes to the global pool. Nothing writes it.
    pub(super) static OUTSIDE: JoinState = JoinState::new(0, SHARE_REQUEST);
    fn outside;
}

/// Per-worker counters: written by their worker alone (Relaxed load and store, no RMW), read
/// by `Pool::stats` as a snapshot; statistics need no ordering.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) executed: AtomicU64,
    pub(crate) stolen: AtomicU64,
    pub(crate) failed_steals: AtomicU64,
    pub(crate) parks: AtomicU64,
    pub(crate) isolated_sleeps: AtomicU64,
    pub(crate) promoted: AtomicU64,
    /// Private frames this worker claimed from stalled workers (`registry/claim.rs`).
    pub(crate) claimed: AtomicU64,
}

pub(crate) use crate::counter::{add, bump};

/// What only the owning worker touches, reached through `Worker::owner` (see `JoinState`'s
/// `Sync`): its frame counts, its job's source, each feature's state.
pub(crate) struct OwnerState {
    /// Frames recorded and shared: atomics, as a claiming thief reads them (`frame_counts`).
    pub(crate) counts: FrameCounts,
    /// Joins whose second closure ran here unshared: a statistics counter (see `Counters`).
    pub(crate) inline_joins: AtomicU64,
    /// Share the next join even if nobody is idle yet: a job started, or a thief finished
    /// (DESIGN.md, section 4, "Fresh jobs", "Region starts").
    pub(super) fresh: Cell<bool>,
    /// Where the running job came from: its first join is not shared while that holds more.
    pub(super) source: Cell<JobSource>,
    pub(super) rng: Cell<u64>,
    /// A job runs on this thread: no batch from a submission queue (DESIGN.md, section 5).
    pub(super) running: Cell<bool>,
    /// Each feature's state, typed in its file.
    pub(super) requests: Requests,
    pub(super) outside: Cell<OutsideCall>,
    pub(crate) blocking: Blocking,
    pub(super) regions: Regions,
    pub(super) stall: StallWatching,
}

/// What every join reads: the owner's state and the bound. A `Worker`'s first field, so a
/// pointer to it is one to its worker (`OUTSIDE` aside).
#[repr(C)]
pub(crate) struct JoinState {
    owner: CachePadded<OwnerState>,
    /// Frames below this index may be recorded: `min(FRAMES, shared + PRIVATE_FRAMES)`, or
    /// `SHARE_REQUEST` while a heartbeat is pending (DESIGN.md, section 2).
    pub(crate) limit: CachePadded<AtomicUsize>,
}

// SAFETY: the owner-only `Cell`s are touched only by the worker's thread (`owner`, checked in
// debug builds); other threads read only atomics; `OUTSIDE`'s state is only read.
unsafe impl Sync for JoinState {}

impl JoinState {
    crate::sync::const_fn! {
        /// No frames, the given random seed and bound.
        const fn new(rng: u64, limit: usize) -> JoinState {
            JoinState {
                owner: CachePadded(OwnerState {
                    counts: FrameCounts::new(),
                    inline_joins: AtomicU64::new(0),
                    fresh: Cell::new(false),
                    source: Cell::new(JobSource::Own),
                    rng: Cell::new(rng),
                    running: Cell::new(false),
                    requests: Requests::new(),
                    outside: Cell::new(OutsideCall::new()),
                    blocking: Blocking::new(),
                    regions: Regions::new(),
                    stall: StallWatching::new(),
                }),
                limit: CachePadded(AtomicUsize::new(limit)),
            }
        }
    }

    /// This thread's join state: its worker's, or `OUTSIDE`. Never null.
    #[inline(always)]
    pub(crate) fn current() -> *const JoinState {
        CURRENT.with(Cell::get)
    }

    /// The owner-only state of this thread's join state (see the `Sync` impl above).
    #[inline(always)]
    pub(crate) fn owner(&self) -> &OwnerState {
        debug_assert!(
            ptr::eq(JoinState::current(), self),
            "a worker's owner-only state touched from another thread"
        );
        &self.owner
    }

    /// The worker `this` is the state of, or `None` for `OUTSIDE`. A raw pointer: a reference
    /// to the `JoinState` would give access to its own bytes only.
    ///
    /// # Safety
    /// `this` came from `current` on this thread, which still runs as that worker.
    #[inline]
    pub(crate) unsafe fn worker<'a>(this: *const JoinState) -> Option<&'a Worker> {
        // SAFETY: any other `JoinState` heads a `#[repr(C)]` `Worker`, pointed to as a whole.
        (!ptr::eq(this, outside())).then(|| unsafe { &*this.cast::<Worker>() })
    }
}

/// One worker: the thread-private join stack, and what other threads touch, each on its own
/// cache line (DESIGN.md, section 9).
#[repr(C)]
pub(crate) struct Worker {
    pub(crate) join: JoinState,
    /// The join frames recorded on this worker's stack (see `OwnerState`); owner-only.
    pub(super) frames: CachePadded<UnsafeCell<[*const FrameHead; FRAMES]>>,
    pub(crate) deque: Deque<JobHeader>,
    pub(crate) counters: CachePadded<Counters>,
    /// The slot's place (`Sleep`'s index too): the workers', then spares'.
    pub(crate) index: usize,
    pub(super) registry: *const Registry,
    /// What `current_thread_index` reports: `index`, or a spare's blocked thread's.
    pub(super) shown_index: AtomicUsize,
    /// Held by a claiming thief, and by the owner changing `shared` (`registry/claim.rs`).
    pub(super) frames_lock: FramesLock,
    /// Regions it runs that descend from another's, for their waiters (`isolation.rs`).
    pub(crate) lineage: CachePadded<Lineage>,
    /// Broadcast shares for this slot (see `Inbox`); last, away from the join path's fields.
    pub(crate) inbox: CachePadded<Inbox>,
    /// The jobs this slot's threads spawned with `spawn_fifo`, oldest first.
    pub(super) fifo_spawns: FifoSpawns,
}

// SAFETY: `join` is `Sync`, `frames` owner-only, `inbox`, `fifo_spawns` locked; else atomic/fixed.
unsafe impl Sync for Worker {}

// SAFETY: as above; the raw registry pointer points into the `Arc` that owns the worker.
unsafe impl Send for Worker {}

impl Worker {
    pub(super) fn new(index: usize, registry: *const Registry) -> Worker {
        Worker {
            join: JoinState::new(
                0x2545_F491_4F6C_DD1D ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                PRIVATE_FRAMES,
            ),
            frames: CachePadded(UnsafeCell::new([ptr::null(); FRAMES])),
            deque: Deque::new(),
            counters: CachePadded(Counters::default()),
            index,
            registry,
            shown_index: AtomicUsize::new(index),
            frames_lock: FramesLock::new(),
            lineage: CachePadded(Lineage::new()),
            inbox: CachePadded(Inbox::new()),
            fifo_spawns: FifoSpawns::new(),
        }
    }

    /// The index `current_thread_index` reports for this slot.
    pub(crate) fn shown_index(&self) -> usize {
        // Relaxed: the spawn or the slot's lock orders `start_spare`'s store before this.
        self.shown_index.load(Relaxed)
    }

    /// The worker this thread is, or null.
    #[inline(always)]
    pub(crate) fn current() -> *const Worker {
        Worker::current_ref().map_or(ptr::null(), |w| w as *const Worker)
    }

    /// The worker this thread is, if any: for use on this thread while it runs as that worker.
    #[inline(always)]
    pub(crate) fn current_ref<'a>() -> Option<&'a Worker> {
        // SAFETY: `CURRENT` points to `OUTSIDE` or the live state of this thread's worker.
        unsafe { JoinState::worker(JoinState::current()) }
    }

    /// The worker a job runs on: this thread's (jobs run only on workers' threads).
    ///
    /// # Safety
    /// On a worker's thread, and the reference is not kept beyond the job's run (while the
    /// thread runs as that worker).
    #[inline(always)]
    pub(crate) unsafe fn executing<'a>() -> &'a Worker {
        let w = Worker::current();
        debug_assert!(!w.is_null(), "a job runs on a worker's thread");
        // SAFETY: our contract: the worker lives while the thread runs as it.
        unsafe { &*w }
    }

    /// A boxed job that runs `func` on the worker that takes it.
    pub(crate) fn heap_job<'a>(func: impl FnOnce(&Worker) + Send + 'a) -> JobRef {
        HeapJob::into_job_ref(move || {
            // SAFETY: a boxed job runs on a worker's thread, for the length of this call.
            func(unsafe { Worker::executing() })
        })
    }

    /// The worker this thread is, if it belongs to `registry` (and so lives as long).
    pub(crate) fn current_of(registry: &Registry) -> Option<&Worker> {
        Worker::current_ref().filter(|w| ptr::eq(w.registry, registry))
    }

    /// This worker's owner-only state: on its own thread only (see `JoinState`'s `Sync`).
    #[inline(always)]
    pub(crate) fn owner(&self) -> &OwnerState {
        self.join.owner()
    }

    /// The frame counts, which a claiming thief reads and changes (under the frames lock).
    #[inline(always)]
    pub(super) fn shared_counts(&self) -> &FrameCounts {
        &self.join.owner.counts
    }

    /// The worker's frame array (`OwnerState` says which entries are live).
    #[inline(always)]
    pub(crate) fn frames(&self) -> *mut [*const FrameHead; FRAMES] {
        self.frames.get()
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: a worker lives inside its registry.
        unsafe { &*self.registry }
    }

    /// A strong reference to this worker's registry (`CrossLatch` keeps the pool alive).
    pub(crate) fn registry_arc(&self) -> Arc<Registry> {
        // SAFETY: the data pointer of `Registry::new`'s `Arc`, alive while its worker is.
        unsafe {
            Arc::increment_strong_count(self.registry);
            Arc::from_raw(self.registry)
        }
    }

    /// The region this worker runs in, as a claiming thief reads it (see `Regions`).
    #[inline(always)]
    pub(super) fn running_region(&self) -> &AtomicUsize {
        &self.join.owner.regions.current
    }

    /// Joins this worker ran inline, for `Pool::stats` and idle workers: any thread.
    pub(crate) fn inline_joins(&self) -> u64 {
        // Relaxed: a statistics counter, read as a snapshot or a hint.
        self.join.owner.inline_joins.load(Relaxed)
    }

    pub(super) fn next_random(&self) -> u64 {
        let rng = &self.owner().rng;
        let mut x = rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rng.set(x);
        x
    }

    /// A push of a job the program spawned, above the private frames, promoted first
    /// (DESIGN.md, section 4, "Offered before a wait outside the pool").
    ///
    /// # Safety
    /// Must be called on this worker's own thread.
    pub(crate) unsafe fn push_spawned(&self, job: JobRef) {
        let regions = &self.owner().regions;
        // SAFETY: on this worker's own thread (our contract).
        unsafe { self.push_spawned_in(job, regions.current.load(Relaxed), regions.waiter.get()) }
    }

    /// `push_spawned`, tagged with `region`, whose waiter is `waiter` (a scope's task, a task).
    ///
    /// # Safety
    /// Must be called on this worker's own thread.
    pub(crate) unsafe fn push_spawned_in(&self, job: JobRef, region: usize, waiter: WaiterSlot) {
        // Inside `blocking`, the index comes back first (DESIGN.md, section 7, point 3).
        self.reclaim_index();
        self.share_private_frames();
        // SAFETY: on this worker's own thread (our contract).
        unsafe { self.push_in(job, region, waiter) };
    }

    /// `push`, tagged with `region`, whose waiter is `waiter` (a scope's task, a task).
    ///
    /// # Safety
    /// Must be called on this worker's own thread.
    pub(crate) unsafe fn push_in(&self, job: JobRef, region: usize, waiter: WaiterSlot) {
        // SAFETY: on this worker's own thread (our contract), the deque's owner.
        unsafe { self.deque.push_tagged(job.0, region) };
        self.notify_pushed(waiter);
    }

    /// After a push of work whose waiter is `waiter`: wakes a parked worker, and the waiter.
    pub(super) fn notify_pushed(&self, waiter: WaiterSlot) {
        let registry = self.registry();
        // Its fence also orders the push before the look at the waiter's slot below.
        registry.notify_work();
        if let Some(index) = waiter.index() {
            if index != self.index {
                registry.idle.published_for(index);
            }
        }
    }

    /// Runs a job taken from a queue; its start counts as a heartbeat (DESIGN.md, section 4,
    /// "Fresh jobs").
    ///
    /// # Safety
    /// On this worker's thread, with a job nobody else will execute.
    pub(crate) unsafe fn execute(&self, job: JobRef) {
        let st = self.owner();
        st.fresh.set(true);
        // Jobs catch their own panics, so this is restored on every way out.
        let outer = st.running.replace(true);
        // Relaxed: a request to ourselves; the idle workers' requests are hints too.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
        bump(&self.counters.executed);
        // SAFETY: on this worker's thread, with a job nobody else will execute (our contract).
        unsafe {
            if self.registry().profiling.is_set() {
                profile_hooks::detached(|| job.execute());
            } else {
                job.execute();
            }
        }
        st.running.set(outer);
    }

    /// Inside `blocking`, takes this thread's index back before it runs a task under it.
    #[inline]
    pub(crate) fn reclaim_index(&self) {
        if self.owner().blocking.gave_up_index.get() {
            self.registry().take_index_back(self);
        }
    }

    /// Finds a job: own deque, inbox, the hinted victim (as the JDK's `helpStealer`), then
    /// the others from a random start (DESIGN.md, section 5).
    pub(crate) fn find_work(&self, hint: Option<usize>) -> Option<JobRef> {
        self.reclaim_index();
        let found = self.search(hint);
        if let Some((_, source)) = found {
            self.owner().source.set(source);
        }
        found.map(|(job, _)| job)
    }

    /// A job of its own deque pushed since `bottom` was `floor` (`isize::MIN`: any): the
    /// newest, or the oldest under rayon's `breadth_first` hint.
    pub(super) fn take_own_above(&self, floor: isize) -> Option<NonNull<JobHeader>> {
        if !self.registry().config.breadth_first {
            // SAFETY: `find_work` and waiters run on this worker's thread.
            return unsafe { self.deque.pop_above(floor) };
        }
        // The owner may steal from its own deque: `steal` is safe from any thread.
        loop {
            match self.deque.steal_above(floor) {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Whether this worker has work another could take (rayon's "pending tasks"): jobs on its
    /// deque, or private frames (plain joins are not counted).
    pub(crate) fn has_pending_tasks(&self) -> bool {
        !self.deque.is_empty() || self.owner().counts.has_private()
    }

    /// `find_work`'s search; also says where the job came from (see `OwnerState::source`).
    fn search(&self, hint: Option<usize>) -> Option<(JobRef, JobSource)> {
        if let Some(job) = self.take_own_above(isize::MIN) {
            return Some((JobRef(job), JobSource::Own));
        }
        let registry = self.registry();
        // Then broadcast shares (as in rayon), of the index shown: a spare's blocked thread's.
        if let Some(job) = registry.slot(self.shown_index()).inbox.take() {
            return Some((job, JobSource::Own));
        }
        let workers = registry.slot_count();
        if let Some(victim) = hint.filter(|&v| v != self.index && v < workers) {
            if let Steal::Success(job) = registry.slot(victim).deque.steal() {
                bump(&self.counters.stolen);
                return Some((JobRef(job), JobSource::Slot(victim)));
            }
        }
        let total = workers + registry.queues.len();
        loop {
            let mut contended = false;
            let start = (self.next_random() % total as u64) as usize;
            for k in 0..total {
                let i = (start + k) % total;
                if i < workers {
                    if i == self.index {
                        continue;
                    }
                    match registry.slot(i).deque.steal() {
                        Steal::Success(job) => {
                            bump(&self.counters.stolen);
                            return Some((JobRef(job), JobSource::Slot(i)));
                        }
                        Steal::Retry => contended = true,
                        Steal::Empty => {}
                    }
                } else {
                    let queue = &registry.queues[i - workers];
                    let taken = if self.owner().running.get() {
                        queue.take().map(|job| (job, 1))
                    } else {
                        // SAFETY: on this worker's thread.
                        unsafe { queue.take_batch(self) }
                    };
                    if let Some((job, n)) = taken {
                        add(&self.counters.stolen, n as u64);
                        return Some((job, JobSource::Queue(i - workers)));
                    }
                }
            }
            if !contended {
                bump(&self.counters.failed_steals);
                return None;
            }
        }
    }
}
