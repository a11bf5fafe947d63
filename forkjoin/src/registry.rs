//! The pool's shared state (`Registry`), its workers, and the scheduling loop: where a
//! worker looks for work, how it helps while it waits, when it parks, and the heartbeat
//! that decides when a join is worth sharing.

use crate::blocking::Compensation;
use crate::deque::{Deque, Steal};
use crate::job::{HeapJob, JobHeader, JobRef};
use crate::join::FrameHead;
use crate::latch::{CrossLatch, Latch, LockLatch};
use crate::padded::CachePadded;
use crate::panic::{catch, Panic};
use crate::sleep::Sleep;
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;
use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Capacity of a worker's frame array (promoted frames plus at most `PRIVATE_FRAMES`).
pub(crate) const FRAMES: usize = 4096;

/// How many private (unshared) join frames a worker records: the outermost joins on its
/// stack, whose second closures are the largest pieces of work. Joins nested deeper run as
/// plain calls until a heartbeat or a promotion makes room. Eight: a worker can share its
/// eight largest pieces before it must record smaller ones (and a thief records eight of its
/// own in the piece it took), while fewer frames leave more joins plain (fib(32) without a
/// threshold: one worker took 1.79-2.02 times the sequential time with 16, 1.41-1.52 with 8).
pub(crate) const PRIVATE_FRAMES: usize = 8;

/// `Worker::limit` while a heartbeat is pending: every join is below it, and the first one
/// sees the request.
pub(crate) const SHARE_REQUEST: usize = usize::MAX;

/// `OwnerState::source` of a job popped from the worker's own deque.
const SOURCE_OWN: usize = usize::MAX;
/// `OwnerState::source` of a job from submission queue `q`: `SOURCE_QUEUE + q` (slots,
/// whose number grows with spares, are below it).
const SOURCE_QUEUE: usize = usize::MAX / 2;

/// The heartbeat period: how often busy workers are asked to consider sharing their oldest
/// unshared join while some worker is idle. The idle workers ask (`request_sharing`), each
/// at most every half period, and one parked worker, the watcher, wakes every period to ask
/// again; a pool with no idle worker, or no busy one, has no heartbeat at all.
pub(crate) const HEARTBEAT: Duration = Duration::from_micros(50);

/// How many times per half period a worker renews a request whose shared frame came back
/// untaken (`Worker::renew_request`).
const RENEWALS: u32 = 4;

/// The most jobs a worker takes from a submission queue at once (it takes the oldest half).
/// A stream of small submitted jobs then costs the queue's cache misses and CAS once per
/// batch; the rest of the batch waits on the worker's own deque, where idle workers steal it.
const SUBMISSION_BATCH: usize = 32;

/// Search rounds with exponential `spin_loop` back-off, then rounds of `yield_now`, before an
/// idle worker parks (seed 000, section 2.3: "yield, then sleep"). Only the first
/// `PURE_SPIN_ROUNDS` (about 126 `spin_loop`s) keep the CPU; the later spin rounds yield it
/// after spinning. Spinning through all 24 rounds (a hundred microseconds or more) held up
/// whoever shared the CPU: in the submit benchmark at one worker, where the submitter and
/// the worker share one CPU, 600 tasks took 125 us with a pure spin, 66-70 us with a
/// yield after round 6 (rayon, which yields in every round: 72-81 us), with no change
/// beyond the noise in fib, integrate, jacobi, lu or uts at 1 and 2 workers.
const SPIN_ROUNDS: u32 = 24;
const PURE_SPIN_ROUNDS: u32 = 6;
const YIELD_ROUNDS: u32 = 8;

thread_local! {
    /// The join state of the worker this thread is, or `OUTSIDE`. `const`-initialised with
    /// no destructor, so an access is a single thread-pointer-relative load.
    static CURRENT: Cell<*const JoinState> = const { Cell::new(&OUTSIDE) };
}

/// The join state of every thread that is not a worker. Its `limit` is `SHARE_REQUEST`, so
/// a join there takes the path that handles a request, which finds no worker and goes to
/// the global pool: the fast path needs no test for "not a worker". Nothing writes it.
static OUTSIDE: JoinState = JoinState::new(0, SHARE_REQUEST);

/// Per-worker counters. Each is written only by its worker, with a relaxed load and store
/// (no read-modify-write: nobody else writes it), and read by `Pool::stats` as a snapshot:
/// no ordering is needed for statistics.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) executed: AtomicU64,
    pub(crate) stolen: AtomicU64,
    pub(crate) failed_steals: AtomicU64,
    pub(crate) parks: AtomicU64,
    pub(crate) promoted: AtomicU64,
}

#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64) {
    add(counter, 1);
}

/// Adds `n` to a counter with one writer at a time.
#[inline(always)]
pub(crate) fn add(counter: &AtomicU64, n: u64) {
    // Relaxed load and store: one writer at a time (the owning worker, see `Counters`, or
    // the holder of a submission queue's lock).
    counter.store(counter.load(Relaxed).wrapping_add(n), Relaxed);
}

/// What only the owning worker touches on every join: the size of its stack of join frames
/// (`Worker::frames`). `frames[..shared]` have been promoted (pushed onto the deque),
/// `frames[shared..len]` are private. Accessed through raw pointers only, never through a
/// long-lived `&mut`, because joins nest.
pub(crate) struct OwnerState {
    pub(crate) len: usize,
    pub(crate) shared: usize,
    /// Joins whose second closure ran on this worker without ever being shared. Written by
    /// the owner (relaxed load and store), read by `Pool::stats`.
    pub(crate) inline_joins: AtomicU64,
    /// The worker started a job since its last heartbeat, or the thief of a frame it joined
    /// has just finished (`share_next_join`): share its next join even if nobody is idle
    /// yet (unless other work is queued at `source`), so that a worker that becomes idle
    /// while the first closure blocks or runs long can take the second.
    fresh: bool,
    /// Where the running job was taken from (`SOURCE_OWN`, a slot's index, or
    /// `SOURCE_QUEUE` plus a submission queue's index): its first join is not shared while that
    /// place still holds work, which idle workers can take instead.
    source: usize,
    rng: u64,
    /// When this worker last asked the others to share (`request_sharing`).
    last_request: Option<Instant>,
    /// A job is running on this thread. Only a worker between jobs takes a batch from a
    /// submission queue: pushed above a promoted join frame or a scope's spawned jobs, the
    /// batch would have to run before the waiting join or scope could go on.
    running: bool,
    /// This worker's `stolen` count when it last asked: a request is only rate-limited
    /// while it has not been answered (see `request_sharing`).
    stolen_at_request: u64,
    /// Requests renewed in the current renewal window (see `renew_request`).
    renewals: u32,
    /// When the current renewal window started.
    renewal_window: Option<Instant>,
    /// Parallel-iterator runs nested on this worker's stack (see `iter/splitter.rs`).
    loop_depth: u32,
    /// The depth of a run that declined the pending request and took it, so that sibling
    /// runs do not each weigh it again (0: none). Runs nested less deeply still see it.
    deferred_request: u32,
    /// A thread outside the pool runs in this slot (`run_borrowed`), and has not yet
    /// brought the parked workers in (`caller_tick`).
    borrowed: bool,
    /// When the borrower's run has lasted long enough to wake a parked worker for it.
    caller_deadline: u64,
    /// Promotions push without waking anyone: the watcher, on duty, takes them at its next
    /// tick (a borrower's run whose first join is shared at once, see `run_borrowed`).
    quiet: bool,
    /// The thread running as this worker is inside `blocking` (a nested call starts
    /// nothing more).
    pub(crate) blocking: bool,
}

/// What every join reads: the owner's frame count and the bound on it. The first field of a
/// `Worker`, so that a pointer to it is a pointer to its worker (see `OUTSIDE` for the one
/// that is not).
#[repr(C)]
pub(crate) struct JoinState {
    owner: CachePadded<UnsafeCell<OwnerState>>,
    /// Frames below this index may be recorded: `min(FRAMES, shared + PRIVATE_FRAMES)`, or
    /// `SHARE_REQUEST` when a heartbeat is pending. Folding the heartbeat flag into the bound
    /// as the largest value leaves one load and compare on the path of deep joins, which are
    /// nearly all joins: a join at or past the bound is plain, and only a join below it (an
    /// outer join, which records a frame anyway) checks for the request. Set to
    /// `SHARE_REQUEST` by idle workers (`request_sharing`) and when the worker starts a job; otherwise
    /// written by the owner; read by the owner at every join.
    pub(crate) limit: CachePadded<AtomicUsize>,
}

// SAFETY: a worker's `owner` is only accessed by the thread running as that worker (and the
// `inline_joins` counter, an atomic, by `stats`); `OUTSIDE`'s is only read; `limit` is atomic.
unsafe impl Sync for JoinState {}

impl JoinState {
    /// No frames, the given random seed and bound.
    const fn new(rng: u64, limit: usize) -> JoinState {
        JoinState {
            owner: CachePadded(UnsafeCell::new(OwnerState {
                len: 0,
                shared: 0,
                inline_joins: AtomicU64::new(0),
                fresh: false,
                source: SOURCE_OWN,
                rng,
                last_request: None,
                running: false,
                stolen_at_request: 0,
                renewals: 0,
                renewal_window: None,
                loop_depth: 0,
                deferred_request: 0,
                borrowed: false,
                caller_deadline: 0,
                quiet: false,
                blocking: false,
            })),
            limit: CachePadded(AtomicUsize::new(limit)),
        }
    }

    /// This thread's join state: its worker's, or `OUTSIDE`. Never null.
    #[inline(always)]
    pub(crate) fn current() -> *const JoinState {
        CURRENT.with(Cell::get)
    }

    #[inline(always)]
    pub(crate) fn owner_state(&self) -> *mut OwnerState {
        self.owner.get()
    }

    /// The worker `this` is the state of, or `None` for `OUTSIDE`. Takes the raw pointer
    /// from `current`, not a reference: a reference to the `JoinState` would only give
    /// access to its own bytes, not to the rest of the worker.
    ///
    /// # Safety
    /// `this` came from `current` on this thread, which still runs as that worker.
    #[inline]
    pub(crate) unsafe fn worker<'a>(this: *const JoinState) -> Option<&'a Worker> {
        // SAFETY: every `JoinState` but `OUTSIDE` is the first field of a `#[repr(C)]`
        // `Worker`, and `CURRENT` holds a pointer derived from the whole worker.
        (!ptr::eq(this, &OUTSIDE)).then(|| unsafe { &*this.cast::<Worker>() })
    }
}

/// One worker: the thread-private join stack, and what other threads touch, each on its own
/// cache line (seeds 003 and 004).
#[repr(C)]
pub(crate) struct Worker {
    pub(crate) join: JoinState,
    /// The join frames recorded on this worker's stack (see `OwnerState`); owner-only.
    frames: CachePadded<UnsafeCell<[*const FrameHead; FRAMES]>>,
    pub(crate) deque: Deque<JobHeader>,
    pub(crate) counters: CachePadded<Counters>,
    /// The slot's place: `0..num_threads` for the workers, after them for spare threads
    /// (`blocking`). Also its index in `Sleep`.
    pub(crate) index: usize,
    registry: *const Registry,
    /// What `current_thread_index` reports: `index` for a worker; for a spare, the index of
    /// the worker it was started for (set before its thread starts).
    shown_index: AtomicUsize,
    /// Broadcast shares for this slot (see `Inbox`); last, away from the join path's fields.
    pub(crate) inbox: CachePadded<Inbox>,
}

// SAFETY: `join` is `Sync` (see there); `frames` is only accessed by the thread running as
// this worker; `inbox` is a mutex and an atomic; everything else is atomic or immutable.
unsafe impl Sync for Worker {}
// SAFETY: as above; the raw registry pointer points into the `Arc` that owns the worker.
unsafe impl Send for Worker {}

impl Worker {
    fn new(index: usize, registry: *const Registry) -> Worker {
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
            inbox: CachePadded(Inbox::new()),
        }
    }

    /// The index `current_thread_index` reports for this slot.
    pub(crate) fn shown_index(&self) -> usize {
        // Relaxed: written before the spare's thread starts (spawning orders it), read by
        // that thread and the threads it hands work to.
        self.shown_index.load(Relaxed)
    }

    /// The worker this thread is, or null.
    #[inline(always)]
    pub(crate) fn current() -> *const Worker {
        // SAFETY: `CURRENT` always points to a live join state: `OUTSIDE` or the state of
        // the worker this thread runs, which lives in its registry while the thread runs it.
        unsafe {
            JoinState::worker(JoinState::current()).map_or(ptr::null(), |w| w as *const Worker)
        }
    }

    /// The worker this thread is, if it belongs to `registry`. The worker lives inside the
    /// registry, so it lives as long as the borrow.
    pub(crate) fn current_of(registry: &Registry) -> Option<&Worker> {
        let current = Worker::current();
        // SAFETY: a non-null `CURRENT` is this thread's worker, which lives in its registry;
        // it is only dereferenced after checking that this is `registry`.
        (!current.is_null() && ptr::eq(unsafe { (*current).registry }, registry))
            .then(|| unsafe { &*current })
    }

    #[inline(always)]
    pub(crate) fn owner_state(&self) -> *mut OwnerState {
        self.join.owner_state()
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

    pub(crate) fn inline_joins(&self) -> u64 {
        // SAFETY: a shared reference to the atomic field only; the owner never makes a
        // `&mut` to the whole state.
        unsafe { (*ptr::addr_of!((*self.owner_state()).inline_joins)).load(Relaxed) }
    }

    fn next_random(&self) -> u64 {
        let st = self.owner_state();
        // SAFETY: owner-only field, accessed by the owner.
        unsafe {
            let mut x = (*st).rng;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (*st).rng = x;
            x
        }
    }

    /// Pushes a job onto this worker's deque and lets an idle worker know.
    ///
    /// # Safety
    /// Must be called on this worker's own thread.
    pub(crate) unsafe fn push(&self, job: JobRef) {
        self.deque.push(job.0);
        self.registry().notify_work();
    }

    /// Runs a job taken from a queue. Starting a job counts as a heartbeat: if workers are
    /// idle, its first join is shared at once, so a fresh job spreads without waiting for
    /// the next tick (and two long closures joined at the top run in parallel).
    ///
    /// # Safety
    /// On this worker's thread, with a job nobody else will execute.
    pub(crate) unsafe fn execute(&self, job: JobRef) {
        let st = self.owner_state();
        (*st).fresh = true;
        // Jobs catch their own panics, so this is restored on every way out.
        let outer = std::mem::replace(&mut (*st).running, true);
        // Relaxed: a request to ourselves; the idle workers' requests are hints too.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
        bump(&self.counters.executed);
        #[cfg(feature = "profile")]
        if self.registry().profiling() {
            crate::profile::detached(|| job.execute(self));
        } else {
            job.execute(self);
        }
        #[cfg(not(feature = "profile"))]
        job.execute(self);
        (*st).running = outer;
    }

    /// The bound on recorded frames for the current `shared`: `shared + PRIVATE_FRAMES`, or
    /// `SHARE_REQUEST` while a profile is taken (every join then takes the slow path, where
    /// it is measured).
    #[inline]
    fn frame_bound(&self) -> usize {
        // SAFETY: owner-only state, on the owner's thread.
        let shared = unsafe { (*self.owner_state()).shared };
        #[cfg(feature = "profile")]
        if self.registry().profiling() {
            return SHARE_REQUEST;
        }
        (shared + PRIVATE_FRAMES).min(FRAMES)
    }

    /// Recomputes `limit` after `shared` changed, keeping a pending request: a join whose
    /// promoted frame was stolen completes with `shared` lower, and an idle worker's request
    /// that arrived meanwhile must still reach the next join. A plain store overwrote it,
    /// and the request was lost until the idle worker, rate-limited, asked again.
    /// (DESIGN.md, section 4, has the measurement.)
    #[inline]
    pub(crate) fn refresh_limit(&self) {
        let bound = self.frame_bound();
        // Relaxed: only this thread acts on `limit`; the CAS only keeps a concurrent
        // request (a hint that carries no data) from being overwritten.
        let current = self.join.limit.load(Relaxed);
        if current != SHARE_REQUEST && current != bound {
            let _ = self
                .join
                .limit
                .compare_exchange(current, bound, Relaxed, Relaxed);
        }
    }

    /// Takes the pending request: `limit` back to the frame bound. Only `on_heartbeat`,
    /// which then acts on the request, does this.
    #[inline]
    fn take_request(&self) {
        // SAFETY: owner-only state, on the owner's thread.
        unsafe { (*self.owner_state()).deferred_request = 0 };
        // Relaxed: as in `refresh_limit`. A request that arrives just after this store is
        // answered by this same heartbeat.
        self.join.limit.store(self.frame_bound(), Relaxed);
    }

    /// A parallel-iterator run starts on this worker; returns its depth (1 for the
    /// outermost). `leave_loop` ends it.
    ///
    /// # Safety
    /// On this worker's thread.
    #[inline(always)]
    pub(crate) unsafe fn enter_loop(&self) -> u32 {
        let st = self.owner_state();
        (*st).loop_depth += 1;
        (*st).loop_depth
    }

    /// # Safety
    /// On this worker's thread, once per `enter_loop`.
    #[inline(always)]
    pub(crate) unsafe fn leave_loop(&self) {
        (*self.owner_state()).loop_depth -= 1;
    }

    /// Whether a request declined by a run nested deeper than `depth` is waiting for it.
    ///
    /// # Safety
    /// On this worker's thread.
    #[inline(always)]
    pub(crate) unsafe fn deferred_request_for(&self, depth: u32) -> bool {
        depth < (*self.owner_state()).deferred_request
    }

    /// A run at `depth` found its rest not worth sharing. If no join frame of this worker
    /// could answer the request, take it: its siblings (the next small loops of a
    /// sequential loop) then need not weigh it again, while runs nested less deeply (an
    /// outer loop, whose rest may well be worth it) still see it. With private join
    /// frames, the request stays pending for the next join to promote the oldest.
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn decline_request(&self, depth: u32) {
        let st = self.owner_state();
        if (*st).shared < (*st).len || self.profiling_now() {
            return;
        }
        (*st).deferred_request = depth;
        // Relaxed: as in `take_request`.
        self.join.limit.store(self.frame_bound(), Relaxed);
    }

    /// A run is about to answer a request it saw pending or deferred: make sure the join
    /// that shares its rest sees it (`join_slow` promotes only under a pending request).
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn raise_request(&self) {
        (*self.owner_state()).deferred_request = 0;
        // Relaxed: a request to ourselves, as in `share_next_join`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// Whether a profile is being taken on this worker's pool.
    #[inline(always)]
    fn profiling_now(&self) -> bool {
        #[cfg(feature = "profile")]
        if self.registry().profiling() {
            return true;
        }
        false
    }

    /// Shares the next join's oldest private frame, as at the first join of a job taken from
    /// a queue (`execute`): called when the thief of a frame this worker joined has just
    /// finished it, and so is about to look for work.
    pub(crate) fn share_next_join(&self) {
        let st = self.owner_state();
        // SAFETY: owner-only state, on the owner's thread.
        unsafe {
            (*st).fresh = true;
            (*st).source = SOURCE_OWN;
        }
        // Relaxed: a request to ourselves, as in `execute`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// A frame this worker shared came back to it untaken (the join that recorded it
    /// finished before any thief arrived). The request that frame answered was spent on it,
    /// so if someone is still idle, ask the next join to share again; otherwise the idle
    /// worker, whose request looks unanswered, waits out its rate limit before asking again.
    /// At most `RENEWALS` times per half period, the idle side's own rate: in a stream of
    /// regions too small to share every shared frame comes back, and an unbounded renewal
    /// would share at every join. (DESIGN.md, section 4, has the measurements.)
    #[cold]
    pub(crate) fn renew_request(&self) {
        let st = self.owner_state();
        // Relaxed: `idle` is a hint, as in `on_heartbeat`. A quiet share (see `run_borrowed`)
        // answered no request: nobody waits for a renewal.
        // SAFETY: owner-only state, on the owner's thread.
        if self.registry().idle.load(Relaxed) == 0 || unsafe { (*st).quiet } {
            return;
        }
        let now = Instant::now();
        // SAFETY: owner-only state, on the owner's thread.
        unsafe {
            if (*st)
                .renewal_window
                .is_none_or(|t| now.duration_since(t) >= HEARTBEAT / 2)
            {
                (*st).renewal_window = Some(now);
                (*st).renewals = 0;
            }
            if (*st).renewals >= RENEWALS {
                return;
            }
            (*st).renewals += 1;
        }
        // Relaxed: a request to ourselves, as in `share_next_join`.
        self.join.limit.store(SHARE_REQUEST, Relaxed);
    }

    /// The clock of a thread that borrowed this slot (`run_borrowed`), read at each timed
    /// chunk of a parallel loop. A job of a microsecond must not pay a wake-up of several,
    /// so its first join is shared quietly when a watcher is on duty, for the watcher to
    /// take at its next tick (within a heartbeat period), and nobody is woken. A loop that
    /// has run `CALLER_ALONE` wakes a parked worker for a frame still waiting, or shares
    /// its next split, whose push wakes one; from then on the pool's own heartbeat (idle
    /// workers asking) takes over. Joins have no such clock: a per-join countdown slowed
    /// fib(32) by 7-11% (the first join's share, with the watcher, covers them).
    #[cold]
    #[inline(never)]
    pub(crate) fn caller_tick(&self) {
        let st = self.owner_state();
        // SAFETY: owner-only state, on the owner's thread.
        unsafe {
            if !(*st).borrowed || crate::clock::now() < (*st).caller_deadline {
                return;
            }
            (*st).borrowed = false;
            (*st).quiet = false;
        }
        if self.registry().slot_count() > 1 {
            if self.deque.is_empty() {
                self.share_next_join();
            } else {
                // A frame shared quietly is still waiting for the watcher: wake someone.
                self.registry().notify_work();
            }
        }
    }

    /// Whether a thread outside the pool runs in this slot and has not yet brought the
    /// parked workers in (see `caller_tick`).
    #[inline(always)]
    pub(crate) fn borrowed_alone(&self) -> bool {
        // SAFETY: owner-only state, on the owner's thread.
        unsafe { (*self.owner_state()).borrowed }
    }

    /// Whether a heartbeat is pending (loops split their range then).
    #[inline(always)]
    pub(crate) fn heartbeat_pending(&self) -> bool {
        // Relaxed: a hint, see `limit`.
        self.join.limit.load(Relaxed) == SHARE_REQUEST
    }

    /// The heartbeat arrived at a join: share the oldest private frame if someone is idle
    /// and nothing of ours is already on offer.
    ///
    /// The request is taken (`limit` back to the frame bound) when it is answered (a frame
    /// promoted) or when nobody can use work. While someone is idle but this worker cannot
    /// share yet (its deque still holds what it shared), the request stays pending for the
    /// next join instead of being dropped, which would leave the idle worker waiting for its
    /// rate-limited next request to reach a join.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_heartbeat(&self) {
        let registry = self.registry();
        let st = self.owner_state();
        // SAFETY: owner-only state on the owner's thread; frames in `shared..len` belong to
        // joins still running on this stack, so their heads are live.
        unsafe {
            let fresh = std::mem::take(&mut (*st).fresh);
            let share = registry.slot_count() > 1
                && if fresh {
                    // The first join of a job just started: share it unless the queue the
                    // job came from holds more (idle workers take that instead; splitting a
                    // stream of small submitted jobs across workers would only add traffic).
                    !registry.holds_work((*st).source)
                } else {
                    // Relaxed: a hint. Sharing needlessly or a tick late is harmless; the
                    // idle worker keeps looking or is woken by the next promotion.
                    registry.idle.load(Relaxed) > 0
                };
            if !share {
                self.take_request();
                return;
            }
            let i = (*st).shared;
            if !self.deque.is_empty() || i >= (*st).len {
                // Someone can use work, but none can be shared now: keep the request. (The
                // join that called us has just recorded a frame, so `i < len` in practice.)
                return;
            }
            self.take_request();
            let head = (*self.frames())[i];
            FrameHead::prepare_for_sharing(head, self.index);
            (*st).shared = i + 1;
            self.refresh_limit();
            bump(&self.counters.promoted);
            if (*st).quiet {
                self.deque
                    .push(NonNull::new_unchecked(head as *mut JobHeader));
            } else {
                self.push(JobRef(NonNull::new_unchecked(head as *mut JobHeader)));
            }
        }
    }

    /// Finds a job: own deque first (LIFO), then the hinted victim (the thief of the job we
    /// wait for: stealing back its subtasks helps it finish ours, seed 001), then a sweep of
    /// the other deques and the submission queues from a random start (FIFO steals).
    pub(crate) fn find_work(&self, hint: Option<usize>) -> Option<JobRef> {
        let found = self.search(hint);
        if let Some((_, source)) = found {
            // SAFETY: owner-only state, on the owner's thread.
            unsafe { (*self.owner_state()).source = source };
        }
        found.map(|(job, _)| job)
    }

    /// A job of this worker's own deque for `find_work`: the newest (depth first), or the
    /// oldest in a pool built with rayon's `breadth_first` hint. The join's own path pops
    /// its just-pushed task directly and is the same in both.
    fn take_own(&self) -> Option<NonNull<JobHeader>> {
        if !self.registry().config.breadth_first {
            // SAFETY: `find_work` runs on this worker's thread.
            return unsafe { self.deque.pop() };
        }
        // The owner may steal from its own deque: `steal` is safe from any thread, and the
        // owner is not inside `push` or `pop` meanwhile.
        loop {
            match self.deque.steal() {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Whether this worker has work another could take (rayon's "pending tasks"): jobs on
    /// its deque, or joins recorded in private frames and not yet shared, which the
    /// heartbeat would share on request. (Joins deeper than the private frames run as
    /// plain calls and are not counted.)
    ///
    /// # Safety
    /// On this worker's thread (it reads owner-only state).
    pub(crate) unsafe fn has_pending_tasks(&self) -> bool {
        let st = self.owner_state();
        !self.deque.is_empty() || (*st).len > (*st).shared
    }

    /// `find_work`'s search; also says where the job came from (see `OwnerState::source`).
    fn search(&self, hint: Option<usize>) -> Option<(JobRef, usize)> {
        if let Some(job) = self.take_own() {
            return Some((JobRef(job), SOURCE_OWN));
        }
        // Then broadcast shares, before stealing: nobody else may run them (see `Inbox`).
        // After the own deque, as rayon orders them (its `broadcast_after_spawn` test
        // relies on it). One relaxed load when there are none.
        if let Some(job) = self.inbox.take() {
            return Some((job, SOURCE_OWN));
        }
        let registry = self.registry();
        let workers = registry.slot_count();
        if let Some(victim) = hint.filter(|&v| v != self.index && v < workers) {
            if let Steal::Success(job) = registry.slot(victim).deque.steal() {
                bump(&self.counters.stolen);
                return Some((JobRef(job), victim));
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
                            return Some((JobRef(job), i));
                        }
                        Steal::Retry => contended = true,
                        Steal::Empty => {}
                    }
                } else {
                    let queue = &registry.queues[i - workers];
                    // SAFETY: owner-only state, on the owner's thread.
                    let taken = if unsafe { (*self.owner_state()).running } {
                        queue.take().map(|job| (job, 1))
                    } else {
                        // SAFETY: on this worker's thread.
                        unsafe { queue.take_batch(self) }
                    };
                    if let Some((job, n)) = taken {
                        add(&self.counters.stolen, n as u64);
                        return Some((job, SOURCE_QUEUE + (i - workers)));
                    }
                }
            }
            if !contended {
                bump(&self.counters.failed_steals);
                return None;
            }
        }
    }

    /// Runs other work until `done()` holds; never blocks while work exists. With nothing
    /// to do it spins, yields, then parks, and whoever makes `done()` true wakes it.
    pub(crate) fn wait_until(&self, done: &dyn Fn() -> bool, hint: Option<usize>) {
        while !done() {
            match self.find_work(hint) {
                // SAFETY: on this worker's thread; the job was taken from a queue.
                Some(job) => unsafe { self.execute(job) },
                None => {
                    if self.idle_until(done, hint) {
                        return;
                    }
                }
            }
        }
    }

    /// The heartbeat, from the idle side: asks every other worker to consider sharing at its
    /// next join, unless this worker asked less than half a period ago and has taken no work
    /// since. The busy ones share their oldest private frame then (`on_heartbeat`); the idle
    /// ones ignore it.
    ///
    /// The rate limit keeps a region too small to be worth sharing from being split at
    /// every join. But a worker whose request was answered (it stole since) and who has
    /// already finished what it got asks again at once: in an unbalanced tree the oldest
    /// private frame is often a tiny subtree, and waiting out the half period after each
    /// one left the thief idle most of the time. UTS T3 at 2 workers: 593 idle periods of
    /// 16-32 us per run (15 ms of a 141 ms run) with the plain rate limit, 172 with this
    /// rule; speedup 1.62-1.66 -> 1.70-1.71 in interleaved runs, and no change in the tree
    /// sum of `examples/overhead` (the small-region case the limit exists for).
    fn request_sharing(&self) {
        let st = self.owner_state();
        let now = Instant::now();
        // SAFETY: owner-only state, on the owner's thread.
        unsafe {
            // Relaxed: this worker's own counter.
            let stolen = self.counters.stolen.load(Relaxed);
            let answered = stolen != (*st).stolen_at_request;
            if !answered
                && (*st)
                    .last_request
                    .is_some_and(|t| now.duration_since(t) < HEARTBEAT / 2)
            {
                return;
            }
            (*st).last_request = Some(now);
            (*st).stolen_at_request = stolen;
        }
        let registry = self.registry();
        for w in (0..registry.slot_count()).map(|i| registry.slot(i)) {
            // Relaxed: a request, which carries no data; the owner reads the idle count
            // itself. Read first, so that a pending request does not cost its owner a miss.
            if w.index != self.index && w.join.limit.load(Relaxed) != SHARE_REQUEST {
                w.join.limit.store(SHARE_REQUEST, Relaxed);
            }
        }
    }

    /// The idle phase. Returns true when `done()` became true, false after running a job.
    ///
    /// While some worker is busy the idle ones keep its heartbeat: they ask for sharing as
    /// they start looking and then every half period while they spin; one of those that
    /// park, the watcher, parks for one period at a time and asks again each time. The
    /// heartbeat so runs on cores that have nothing else to do, never preempting a busy
    /// worker (a heartbeat thread that kept ticking for a millisecond after the pool became
    /// fully busy took a third of a worker's core on the 2-core development VM: Lea's Jacobi
    /// at 2 workers ran 1.25-1.38 times faster than sequentially, with no ticks then
    /// 1.72-1.84 times), and a pool that is all busy or all idle has no heartbeat at all.
    fn idle_until(&self, done: &dyn Fn() -> bool, hint: Option<usize>) -> bool {
        let registry = self.registry();
        registry.idle_changed(1);
        let mut round = 0u32;
        loop {
            if done() {
                registry.leave_idle();
                return true;
            }
            if let Some(job) = self.find_work(hint) {
                registry.leave_idle();
                // Pass the signal on (the JDK pool's signalWork): a wake-up may have been
                // spared because we were searching, and we are about to be busy.
                if registry.has_work() {
                    registry.notify_work();
                }
                // SAFETY: on this worker's thread; the job was taken from a queue.
                unsafe { self.execute(job) };
                return false;
            }
            // Relaxed: a snapshot; see `idle`.
            let some_busy = registry.idle.load(Relaxed) < registry.busy_or_ready();
            if some_busy {
                self.request_sharing();
            }
            round += 1;
            if round <= SPIN_ROUNDS {
                for _ in 0..(1u32 << round.min(6)) {
                    std::hint::spin_loop();
                }
                if round > PURE_SPIN_ROUNDS {
                    // Give the CPU to whoever else may be waiting for it (on a CPU of its
                    // own this returns at once): an idle worker that shares its CPU with
                    // the thread about to give it work, or with a waiter its work just
                    // released, must not hold the CPU through the whole spin.
                    std::thread::yield_now();
                }
            } else if round <= SPIN_ROUNDS + YIELD_ROUNDS {
                std::thread::yield_now();
            } else {
                // Counted before parking, so that a snapshot taken while it sleeps shows it;
                // a watcher's periodic parks count once.
                let first_park = round == SPIN_ROUNDS + YIELD_ROUNDS + 1;
                if first_park {
                    bump(&self.counters.parks);
                }
                let mut watch = false;
                // SAFETY: owner-only state, on the owner's thread.
                // A worker between jobs (not inside one, where its stack holds frames or a
                // scope) may lend its slot while it sleeps: see `run_borrowed`.
                let lendable = unsafe { !(*self.owner_state()).running };
                let slept = registry.sleep.sleep(
                    self.index,
                    || done() || registry.has_work_for(self.index),
                    || {
                        // After announcing this worker as a sleeper (the fence in
                        // `sleep`): either it sees a worker that became busy, or that
                        // worker sees it asleep (`Registry::leave_idle`). Relaxed: ordered
                        // by the fences.
                        let some_busy = registry.idle.load(Relaxed) < registry.busy_or_ready();
                        watch = (some_busy || registry.borrowed_lately())
                            && !registry.watcher.swap(true, Relaxed);
                        watch.then_some(HEARTBEAT)
                    },
                    lendable,
                );
                if watch {
                    registry.watcher.store(false, Relaxed);
                }
                if !slept && first_park {
                    let parks = &self.counters.parks;
                    // Relaxed load and store: only this worker writes the counter.
                    parks.store(parks.load(Relaxed) - 1, Relaxed);
                }
                // A watcher that timed out searches, asks, and parks again at once; any
                // other worker that wakes starts over from spinning.
                round = if watch && slept { round } else { 0 };
            }
        }
    }
}

/// A submission queue for jobs from outside the pool (seed 001: Java 8's external queues).
/// As in the JDK pool, submitters push under a lock (several threads may share a queue) and
/// workers take from the other end lock-free, exactly as they steal from a worker's deque:
/// it *is* a deque, whose owner role passes to whoever holds the lock. Submitters pick a
/// queue by a per-thread random probe and move to another on contention.
struct SubmissionQueue {
    push_lock: Mutex<()>,
    /// Jobs pushed here so far. Written only under `push_lock` (a relaxed load and store, no
    /// read-modify-write), on the lock's own line, which only submitters touch; read by
    /// `Pool::stats` as a snapshot. A pool-wide counter sat on the line every idle worker
    /// reads (`terminating`, the registry's slices), so each submission's `lock inc` missed
    /// there: a quarter of a submitter's time in the submit benchmark.
    submitted: AtomicU64,
    deque: Deque<JobHeader>,
}

impl SubmissionQueue {
    /// Takes the oldest job (FIFO), lock-free.
    fn take(&self) -> Option<JobRef> {
        loop {
            match self.deque.steal() {
                Steal::Success(job) => return Some(JobRef(job)),
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
    }

    /// Takes the oldest half of the queued jobs (at most `SUBMISSION_BATCH`), lock-free, for
    /// `worker`, which is between jobs: returns the oldest to run now and pushes the rest
    /// onto the worker's own deque, oldest on top of the stack, so that the worker runs them
    /// in submission order and idle workers can steal them. Also returns how many it took.
    ///
    /// # Safety
    /// On `worker`'s own thread.
    unsafe fn take_batch(&self, worker: &Worker) -> Option<(JobRef, usize)> {
        let mut batch = [ptr::null_mut(); SUBMISSION_BATCH];
        loop {
            // SAFETY: nobody pops a submission queue; submitters only push, workers steal.
            match unsafe { self.deque.steal_batch(&mut batch) } {
                Steal::Success(n) => {
                    for &job in batch[1..n].iter().rev() {
                        // SAFETY: on the worker's own thread (our contract); the batch's
                        // pointers came from pushes of non-null jobs.
                        unsafe { worker.deque.push(NonNull::new_unchecked(job)) };
                    }
                    // SAFETY: as above.
                    return Some((JobRef(unsafe { NonNull::new_unchecked(batch[0]) }), n));
                }
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
    }
}

/// The slots of spare threads (see `blocking`), made on first use and kept for reuse until
/// the pool is dropped: a spare is a full worker (frames, deque, counters), too large to
/// make for every pool up front.
struct Spares {
    /// `slots[..made]` point to live workers; the rest are null.
    slots: Box<[AtomicPtr<Worker>]>,
    /// Slots made so far. SeqCst: raised after the slot is stored, read before scanning.
    made: AtomicUsize,
    /// Slots whose spare retired, free for the next one, and the spares' threads, to join
    /// when the pool is dropped. Starting a spare takes a thread start, far costlier than
    /// this lock.
    free: Mutex<SpareThreads>,
}

#[derive(Default)]
struct SpareThreads {
    free: Vec<usize>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Spares {
    fn new(max: usize) -> Spares {
        Spares {
            slots: (0..max).map(|_| AtomicPtr::new(ptr::null_mut())).collect(),
            made: AtomicUsize::new(0),
            free: Mutex::new(SpareThreads::default()),
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        for slot in self.slots.iter() {
            let worker = slot.load(SeqCst);
            if !worker.is_null() {
                // SAFETY: made by `Box::into_raw` in `start_spare`; the registry is being
                // dropped, so no thread runs in the slot or steals from it any more.
                drop(unsafe { Box::from_raw(worker) });
            }
        }
    }
}

/// A pool's shared state. Worker threads each hold an `Arc`.
pub(crate) struct Registry {
    pub(crate) workers: Box<[Worker]>,
    queues: Box<[CachePadded<SubmissionQueue>]>,
    pub(crate) sleep: Sleep,
    /// Workers looking for work or parked. Read (relaxed) by busy workers at heartbeats.
    pub(crate) idle: CachePadded<AtomicUsize>,
    terminating: AtomicBool,
    /// A parked worker keeps the heartbeat going (see `Worker::idle_until`).
    watcher: CachePadded<AtomicBool>,
    /// When a thread outside the pool last borrowed a slot (`run_borrowed`; clock ticks): a
    /// watcher stays on duty for `WATCH_AFTER_BORROW` after it, so that a stream of calls
    /// from outside finds one and need not wake anyone.
    last_borrow: CachePadded<AtomicU64>,
    /// The least stack a thread outside the pool must have left to run a job in a borrowed
    /// slot (`in_worker`): the workers' stack size if the pool was built with one, else
    /// `BORROW_STACK_DEFAULT`. A job that needs a deep stack runs on a worker otherwise.
    borrow_stack: usize,
    /// How worker threads are started and what they run besides work (`ThreadConfig`).
    pub(crate) config: ThreadConfig,
    /// Threads inside `blocking` and spare threads alive (see `blocking`).
    pub(crate) compensation: Compensation,
    /// The spare threads' slots.
    spares: Spares,
    /// Set while `profile::run` measures a run on this pool: every join then takes the
    /// slow path (see `Worker::refresh_limit`), where it is timed.
    #[cfg(feature = "profile")]
    pub(crate) profiling: AtomicBool,
}

thread_local! {
    /// This thread's probe into the submission queues (JDK: `ThreadLocalRandom` probe).
    static PROBE: Cell<u32> = const { Cell::new(0) };
}

impl Registry {
    pub(crate) fn new(
        threads: usize,
        borrow_stack: usize,
        config: ThreadConfig,
        max_spares: usize,
    ) -> Arc<Registry> {
        let queues = (threads * 2).next_power_of_two();
        Arc::new_cyclic(|me| Registry {
            workers: (0..threads)
                .map(|index| Worker::new(index, me.as_ptr()))
                .collect(),
            queues: (0..queues)
                .map(|_| {
                    CachePadded(SubmissionQueue {
                        push_lock: Mutex::new(()),
                        submitted: AtomicU64::new(0),
                        deque: Deque::new(),
                    })
                })
                .collect(),
            sleep: Sleep::with_spares(threads, max_spares),
            compensation: Compensation::new(max_spares),
            spares: Spares::new(max_spares),
            // Every worker starts out idle (it is counted out when it finds its first job), so
            // a job that arrives before a worker thread has even started sees it as idle.
            idle: CachePadded(AtomicUsize::new(threads)),
            terminating: AtomicBool::new(false),
            watcher: CachePadded(AtomicBool::new(false)),
            last_borrow: CachePadded(AtomicU64::new(0)),
            borrow_stack,
            config,
            #[cfg(feature = "profile")]
            profiling: AtomicBool::new(false),
        })
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.workers.len()
    }

    /// Slots to scan for work: the workers' and the spares' made so far.
    #[inline]
    pub(crate) fn slot_count(&self) -> usize {
        // SeqCst: pairs with `start_spare`'s raise, after the slot's pointer is stored.
        self.workers.len() + self.spares.made.load(SeqCst)
    }

    /// Slot `i < slot_count()`: a worker, or a spare's.
    #[inline]
    pub(crate) fn slot(&self, i: usize) -> &Worker {
        match self.workers.get(i) {
            Some(w) => w,
            // SAFETY: slots below `slot_count` were stored before `made` was raised past
            // them and live until the registry is dropped.
            None => unsafe { &*self.spares.slots[i - self.workers.len()].load(SeqCst) },
        }
    }

    /// The number of threads that should be running or ready: the workers and the spares,
    /// less those inside `blocking` (a snapshot for heuristics).
    fn busy_or_ready(&self) -> usize {
        let (blocked, spares) = self.compensation.counts();
        (self.workers.len() + spares).saturating_sub(blocked)
    }

    /// Starts a spare thread (its count was reserved by `Compensation::reserve_spare`), in a
    /// free spare slot or a new one, reporting `shown_index` as its index.
    pub(crate) fn start_spare(&self, shown_index: usize) {
        let mut threads = self.spares.free.lock().unwrap();
        threads.handles.retain(|h| !h.is_finished());
        let k = match threads.free.pop() {
            Some(k) => k,
            None => {
                let k = self.spares.made.load(SeqCst);
                let worker = Box::new(Worker::new(self.workers.len() + k, self));
                self.spares.slots[k].store(Box::into_raw(worker), SeqCst);
                self.sleep.activate(self.workers.len() + k);
                self.spares.made.store(k + 1, SeqCst);
                k
            }
        };
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        // Relaxed: the thread start below orders it before the spare reads it.
        worker.shown_index.store(shown_index, Relaxed);
        // The spare counts as idle (searching) from now, as a worker does from the pool's
        // start: a job published before its thread runs sees it and need not wake anyone.
        self.idle_changed(1);
        // SAFETY: `self` is inside an `Arc<Registry>`: the calling thread runs one of its
        // workers, and worker threads each hold an `Arc`.
        let me = unsafe {
            Arc::increment_strong_count(self);
            Arc::from_raw(self)
        };
        let mut builder = std::thread::Builder::new().name(format!("forkjoin-spare-{k}"));
        if self.config.stack_size > 0 {
            builder = builder.stack_size(self.config.stack_size);
        }
        let spawned = builder.spawn(move || me.spare_main(index));
        match spawned {
            Ok(h) => threads.handles.push(h),
            Err(_) => {
                // No thread: the blocked thread waits without compensation, as before.
                threads.free.push(k);
                self.idle_changed(-1);
                self.compensation.spare_gone();
            }
        }
    }

    /// A spare thread's life: a worker's, until it retires (see `blocking`).
    fn spare_main(self: Arc<Registry>, index: usize) {
        let worker = self.slot(index);
        set_precise_timer();
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle_changed(-1);
        self.run_thread_handler(index, ThreadEvent::Start);
        let retired = Cell::new(false);
        worker.wait_until(
            &|| {
                retired.get()
                    || self.is_terminating()
                    || (self.compensation.try_retire() && {
                        retired.set(true);
                        true
                    })
            },
            None,
        );
        if !retired.get() {
            // The pool terminates: run what is left, as the workers do (they may have
            // finished before this spare's last jobs spawned more).
            while let Some(job) = worker.find_work(None) {
                // SAFETY: on this slot's thread; the job was taken from a queue.
                unsafe { worker.execute(job) };
            }
            self.compensation.spare_gone();
        }
        // Jobs it spawned and nobody took: to the submission queues, where the others
        // find them (the slot waits for the next spare).
        // SAFETY: `pop` on the slot's own thread.
        while let Some(job) = unsafe { worker.deque.pop() } {
            self.inject(JobRef(job));
        }
        self.run_thread_handler(index, ThreadEvent::Exit);
        CURRENT.with(|c| c.set(&OUTSIDE));
        self.spares
            .free
            .lock()
            .unwrap()
            .free
            .push(index - self.workers.len());
    }

    /// The spare threads started so far and still to be joined (pool drop).
    pub(crate) fn take_spare_threads(&self) -> Vec<std::thread::JoinHandle<()>> {
        std::mem::take(&mut self.spares.free.lock().unwrap().handles)
    }

    /// Whether a profile is being taken on this pool.
    #[cfg(feature = "profile")]
    #[inline]
    pub(crate) fn profiling(&self) -> bool {
        // Relaxed: set before the profiled closure starts on this pool; every worker that
        // runs part of it got that part through a queue (release/acquire) after the store.
        self.profiling.load(Relaxed)
    }

    /// Jobs submitted from outside the pool so far (a snapshot).
    pub(crate) fn external_submissions(&self) -> u64 {
        // Relaxed: statistics.
        self.queues.iter().map(|q| q.submitted.load(Relaxed)).sum()
    }

    /// Any queued work anywhere that any worker may take (a snapshot; see the sleep protocol
    /// for when it is exact). Broadcast inboxes are not included: a share waiting for one
    /// worker must not keep the others from parking; `has_work_for` adds a worker's own.
    pub(crate) fn has_work(&self) -> bool {
        (0..self.slot_count()).any(|i| !self.slot(i).deque.is_empty())
            || self.queues.iter().any(|q| !q.deque.is_empty())
    }

    /// Whether the place a job came from (see `OwnerState::source`) still holds work.
    fn holds_work(&self, source: usize) -> bool {
        if source < self.slot_count() {
            !self.slot(source).deque.is_empty()
        } else if let Some(queue) = source
            .checked_sub(SOURCE_QUEUE)
            .and_then(|q| self.queues.get(q))
        {
            !queue.deque.is_empty()
        } else {
            false
        }
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

    /// Queues a job from outside the pool.
    pub(crate) fn inject(&self, job: JobRef) {
        let n = self.queues.len();
        let mut probe = PROBE.with(|p| {
            if p.get() == 0 {
                // Seed from the address of a thread-local: distinct per live thread.
                p.set((p as *const Cell<u32> as usize as u32) | 1);
            }
            p.get()
        });
        let mut attempts = 0;
        loop {
            let queue = &self.queues[probe as usize & (n - 1)];
            let guard = if attempts < n {
                queue.push_lock.try_lock().ok()
            } else {
                Some(queue.push_lock.lock().unwrap())
            };
            if let Some(_owner) = guard {
                // SAFETY: holding the queue's lock makes this thread its deque's owner; the
                // mutex orders this push after the previous owner's.
                unsafe { queue.deque.push(job.0) };
                bump(&queue.submitted);
                break;
            }
            // Contended: move to another queue, as the JDK pool does.
            probe ^= probe << 13;
            probe ^= probe >> 17;
            probe ^= probe << 5;
            attempts += 1;
        }
        PROBE.with(|p| p.set(probe));
        self.notify_work();
    }

    /// A worker stops being idle (it found work, or what it waited for is done). If workers
    /// are parked and none of them watches (see `Worker::idle_until`), wakes one to take the
    /// role, since this one will be busy: without it, parked workers would sleep through
    /// all the work this one goes on to create, which nobody would be asked to share.
    fn leave_idle(&self) {
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
    fn idle_changed(&self, delta: isize) {
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
    fn borrowed_lately(&self) -> bool {
        // Relaxed: a hint for the watcher's decision; a stale value costs one period more or
        // less of watching.
        let last = self.last_borrow.load(Relaxed);
        last != 0
            && crate::clock::now().saturating_sub(last)
                < crate::clock::ticks(WATCH_AFTER_BORROW.as_nanos() as u64)
    }

    pub(crate) fn is_terminating(&self) -> bool {
        self.terminating.load(Acquire)
    }

    /// Asks the workers to finish the queued work and exit.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, Release);
        self.sleep.wake_all();
    }

    /// A worker thread's life.
    pub(crate) fn worker_main(self: &Arc<Registry>, index: usize) {
        let worker = &self.workers[index];
        set_precise_timer();
        // From the whole worker, so that `JoinState::worker` may cast back to it.
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        // Counted idle from the start (see `idle`); `wait_until` counts it again as soon
        // as it finds nothing.
        self.idle_changed(-1);
        self.run_thread_handler(index, ThreadEvent::Start);
        worker.wait_until(&|| self.is_terminating(), None);
        // Drain: everything queued before the pool was dropped still runs.
        while let Some(job) = worker.find_work(None) {
            // SAFETY: on this worker's thread; the job was taken from a queue.
            unsafe { worker.execute(job) };
        }
        self.run_thread_handler(index, ThreadEvent::Exit);
        CURRENT.with(|c| c.set(&OUTSIDE));
    }
}

/// Linux rounds timed waits up by the thread's timer slack (50 us by default), which would
/// double the watcher's heartbeat period.
fn set_precise_timer() {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: PR_SET_TIMERSLACK takes a value in nanoseconds and touches only this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong);
    }
}

/// How long a thread outside the pool runs a parallel loop alone in a borrowed slot before it wakes
/// a parked worker to share it: several wake-ups' worth (a futex wake costs the caller a few
/// microseconds, and the woken thread starts tens of microseconds later on this VM), so
/// that small jobs never pay one and long ones lose little.
const CALLER_ALONE: Duration = Duration::from_micros(10);

/// How long a watcher stays on duty after a thread outside the pool last borrowed a slot,
/// though nobody is busy: the next call of a stream finds it, shares its first join quietly
/// and wakes nobody. Each of its ticks costs a few microseconds of CPU; an idle pool stops
/// them after this long.
const WATCH_AFTER_BORROW: Duration = Duration::from_millis(1);

/// Runs `op` on the calling thread, outside any pool, in the slot of worker `index`, which
/// `Sleep::lend` lent it: the thread becomes that worker until `op` returns. Its joins are
/// recorded in the slot's frames, shared through the slot's deque when idle workers ask
/// (and stolen from there), and it helps and parks as the worker would, on the borrower's
/// side of the slot. The worker's own thread stays parked meanwhile: the pool keeps its
/// size, and `current_thread_index` stays below it. Seed 001's external `invoke`, which
/// runs the task on the caller, with a worker's queue instead of a submission queue.
fn run_borrowed<R>(registry: &Registry, index: usize, op: impl FnOnce(&Worker) -> R) -> R {
    let worker = &registry.workers[index];
    // The slot is busy now (its worker counted itself idle before parking).
    registry.idle_changed(-1);
    CURRENT.with(|c| c.set((worker as *const Worker).cast()));
    let st = worker.owner_state();
    // SAFETY: the slot is ours until `give_back` (the lend's mutex made the worker's writes
    // visible); owner-only state, now on the owner's thread.
    let now = crate::clock::now();
    // Relaxed: a hint for the watcher (see `borrowed_lately`). Read first: the line is
    // shared with the watcher, and most calls of a stream need not write it.
    if now.saturating_sub(registry.last_borrow.load(Relaxed))
        > crate::clock::ticks(WATCH_AFTER_BORROW.as_nanos() as u64) / 8
    {
        registry.last_borrow.store(now, Relaxed);
    }
    let several = registry.workers.len() > 1;
    // Relaxed: a hint; a watcher that has just left costs the quiet frame a tick's wait
    // (`caller_tick` then wakes someone).
    let watched = several && registry.watcher.load(Relaxed);
    // SAFETY: as above.
    unsafe {
        (*st).borrowed = true;
        (*st).caller_deadline = now + crate::clock::ticks(CALLER_ALONE.as_nanos() as u64);
        (*st).running = true;
        (*st).source = SOURCE_OWN;
        // The first join is shared as a job's from a queue is, so that two long closures
        // joined at the top run in parallel: quietly if a watcher will come for it; if
        // none is on duty, its push wakes a parked worker (which then stays on watch while
        // calls keep coming).
        (*st).fresh = several;
        (*st).quiet = watched;
    }
    if several {
        // Relaxed: a request to ourselves, as in `Worker::execute`.
        worker.join.limit.store(SHARE_REQUEST, Relaxed);
    } else {
        worker.take_request();
    }
    bump(&worker.counters.executed);

    /// Gives the slot back on every way out of `op`, unwinding included.
    struct GiveBack<'a>(&'a Registry, &'a Worker);
    impl Drop for GiveBack<'_> {
        fn drop(&mut self) {
            let (registry, worker) = (self.0, self.1);
            // Jobs `op` spawned or submitted that nobody has taken yet: to the submission
            // queues, where the workers find them (the slot's deque must be empty when its
            // worker wakes: its thread never saw them pushed).
            // SAFETY: the slot is still ours: `pop` on its owner's thread.
            while !worker.deque.is_empty() {
                let Some(job) = (unsafe { worker.deque.pop() }) else {
                    break;
                };
                registry.inject(JobRef(job));
            }
            let st = worker.owner_state();
            // SAFETY: owner-only state, on the owner's thread (until `give_back`).
            unsafe {
                debug_assert_eq!((*st).len, 0);
                (*st).borrowed = false;
                (*st).running = false;
                (*st).fresh = false;
                (*st).quiet = false;
            }
            worker.take_request();
            CURRENT.with(|c| c.set(&OUTSIDE));
            registry.idle_changed(1);
            // Work published while the slot was lent found its worker uncounted: wake it.
            // Broadcast shares left in the slot's inbox are the worker's to run.
            registry.sleep.give_back(worker.index, || {
                registry.is_terminating() || registry.has_work_for(worker.index)
            });
        }
    }
    let _give_back = GiveBack(registry, worker);
    #[cfg(feature = "profile")]
    if registry.profiling() {
        return crate::profile::detached(|| op(worker));
    }
    op(worker)
}

/// How much stack a thread outside the pool must have left to run a job in a borrowed slot,
/// for a pool built without `PoolBuilder::stack_size`: enough for the deep recursions the
/// benchmarks run (UTS T3 takes about 2 MiB on a worker), short of a spawned thread's whole
/// 2 MiB. A pool built with a stack size asks for that much.
pub(crate) const BORROW_STACK_DEFAULT: usize = 1 << 20;

/// Bytes of stack left below the caller's frame on this thread (`usize::MAX` where the
/// stack's bounds are not known).
fn stack_left() -> usize {
    thread_local! {
        /// The lowest address of this thread's stack (0: not known), looked up once: for
        /// the main thread glibc reads `/proc/self/maps` to find it.
        static STACK_LOW: Cell<Option<usize>> = const { Cell::new(None) };
    }
    let low = STACK_LOW.with(|c| match c.get() {
        Some(low) => low,
        None => {
            let low = stack_low();
            c.set(Some(low));
            low
        }
    });
    let here = &low as *const usize as usize;
    if low == 0 {
        usize::MAX
    } else {
        here.saturating_sub(low)
    }
}

/// The lowest address of the calling thread's stack, or 0 if it cannot be known.
fn stack_low() -> usize {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read and destroyed
    // after; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let mut addr: *mut libc::c_void = ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        // Leave a guard page's worth of margin.
        if ok {
            addr as usize + 64 * 1024
        } else {
            0
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    0
}

/// A job that runs a closure for a waiter on another thread, and its latch.
#[repr(C)]
struct InstallJob<L, F, R> {
    header: JobHeader,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<Result<R, Panic>>>,
    latch: L,
}

impl<L: Latch, F: FnOnce(&Worker) -> R + Send, R: Send> InstallJob<L, F, R> {
    fn new(func: F, latch: L) -> Self {
        InstallJob {
            header: JobHeader {
                execute: Self::execute,
            },
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
            latch,
        }
    }

    fn job_ref(&self) -> JobRef {
        // From the whole job, not the header field: `execute` reads all of it.
        JobRef(NonNull::from(self).cast())
    }

    /// The header's `execute` for an installed closure.
    ///
    /// # Safety
    /// `this` is the header of a live `InstallJob`, executed once, on a worker's thread.
    unsafe fn execute(this: *const JobHeader, worker: &Worker) {
        // SAFETY: `this` is the header of a live `InstallJob` (the waiter keeps it on its
        // stack until the latch is set), executed once.
        let job = &*(this as *const Self);
        let func = (*job.func.get())
            .take()
            .expect("install job executed twice");
        let result = catch(|| func(worker));
        *job.result.get() = Some(result);
        L::set(&job.latch);
    }

    fn into_result(self) -> R {
        match self.result.into_inner().expect("install job not executed") {
            Ok(r) => r,
            Err(p) => p.resume(),
        }
    }
}

/// Runs `op` on a worker of `registry`: directly if this thread is one; from outside any
/// pool, on this thread in a borrowed slot (`run_borrowed`) when a worker is parked, else by
/// injecting it and waiting (a worker of another pool keeps working for its own pool while
/// it waits).
pub(crate) fn in_worker<R: Send>(
    registry: &Arc<Registry>,
    op: impl FnOnce(&Worker) -> R + Send,
) -> R {
    if let Some(worker) = Worker::current_of(registry) {
        return op(worker);
    }
    let current = Worker::current();
    if current.is_null() {
        // From outside any pool: run `op` here, in the slot of a parked worker, if there is
        // one (see `run_borrowed`); else hand it to the workers and wait.
        if stack_left() >= registry.borrow_stack {
            if let Some(index) = registry.sleep.lend() {
                return run_borrowed(registry, index, op);
            }
        }
        let job = InstallJob::new(op, LockLatch::new());
        registry.inject(job.job_ref());
        job.latch.wait();
        return job.into_result();
    }
    // SAFETY: this thread's worker, live while the thread runs it.
    let current = unsafe { &*current };
    // A worker of another pool. Its registry is alive (its thread holds an Arc); take one
    // for the latch, which must outlive the job's completion.
    // SAFETY: `current.registry` points into an `Arc<Registry>` held by this thread.
    let own = unsafe {
        Arc::increment_strong_count(current.registry);
        Arc::from_raw(current.registry)
    };
    let job = InstallJob::new(op, CrossLatch::new(own, current.index));
    registry.inject(job.job_ref());
    current.wait_until(&|| job.latch.core.probe(), None);
    job.into_result()
}

/// Queues a boxed job: on the current worker's deque if this thread is a worker of
/// `registry`, else into a submission queue.
pub(crate) fn spawn_job(registry: &Registry, func: impl FnOnce(&Worker) + Send) {
    submit_job(registry, HeapJob::into_job_ref(func));
}

/// Queues a job: on the current worker's deque if this thread is a worker of `registry`
/// (FJTask's `fork`), else into a submission queue (seed 001).
pub(crate) fn submit_job(registry: &Registry, job: JobRef) {
    match Worker::current_of(registry) {
        // SAFETY: `push` on the worker's own thread.
        Some(worker) => unsafe { worker.push(job) },
        None => registry.inject(job),
    }
}

/// Runs `op` on a worker: this thread's if it is one (of any pool), else one of the global
/// pool's.
pub(crate) fn on_worker<R: Send>(op: impl FnOnce(&Worker) -> R + Send) -> R {
    let current = Worker::current();
    if current.is_null() {
        return in_worker(crate::pool::global_registry(), op);
    }
    // SAFETY: this thread's worker, live while the thread runs it.
    op(unsafe { &*current })
}

// ---------------------------------------------------------------------------------------
// Pool services (issue 21): how worker threads start and end (`ThreadConfig`,
// `ThreadBuilder::run`, the start and exit handlers), where panics nobody waits for go
// (`Registry::report_panic`), and the per-worker inboxes of broadcast shares (`Inbox`).
// ---------------------------------------------------------------------------------------

/// A start or exit handler: called with the worker's index.
pub(crate) type ThreadHandler = Arc<dyn Fn(usize) + Send + Sync>;
/// The pool's panic handler: receives the payload of a panic nobody waits for.
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// How the pool's worker threads are started, and what they run besides work: everything
/// a worker thread needs (`ThreadBuilder::run`), so that a thread started later (a spare worker) gets the
/// same configuration as those started by `PoolBuilder::build`.
#[derive(Clone, Default)]
pub(crate) struct ThreadConfig {
    /// Stack size of each worker thread, in bytes (0: the platform's default).
    pub(crate) stack_size: usize,
    /// The cores worker `i` is pinned to, `cores[i % cores.len()]` (never empty), if the pool
    /// pins its threads.
    pub(crate) cores: Option<Arc<[usize]>>,
    /// Runs on each worker thread as it starts, before it takes any work.
    pub(crate) start_handler: Option<ThreadHandler>,
    /// Runs on each worker thread as it ends, after it has drained the pool's work.
    pub(crate) exit_handler: Option<ThreadHandler>,
    /// Receives panics nobody waits for (spawned jobs, start and exit handlers); without
    /// one, such a panic is reported on stderr and the pool keeps running.
    pub(crate) panic_handler: Option<PanicHandler>,
    /// rayon's deprecated `breadth_first` hint: a worker looking for work takes the oldest
    /// job of its own deque instead of the newest (see `Worker::search`).
    pub(crate) breadth_first: bool,
}

thread_local! {
    /// The pool whose worker 0 this thread is, for a pool built with
    /// `PoolBuilder::use_current_thread`: keeps the registry alive while `CURRENT` points
    /// into it.
    static ADOPTED: std::cell::RefCell<Option<Arc<Registry>>> = const { std::cell::RefCell::new(None) };
}

impl Registry {
    /// Makes the calling thread, which is outside any pool, worker `index` of this pool
    /// until `release_current_thread` (`PoolBuilder::use_current_thread`). It does not run
    /// the scheduling loop: it takes part when it joins, waits or yields, as a worker inside
    /// a job does (`running`, so its slot is never lent while it parks).
    pub(crate) fn adopt_current_thread(self: &Arc<Registry>, index: usize) {
        let worker = &self.workers[index];
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        // SAFETY: owner-only state; the slot has no thread of its own.
        unsafe { (*worker.owner_state()).running = true };
        // Busy from now (every worker is counted idle at the start).
        self.idle_changed(-1);
        ADOPTED.with(|a| *a.borrow_mut() = Some(Arc::clone(self)));
    }

    /// Whether the calling thread was adopted by this pool.
    pub(crate) fn adopted_current_thread(&self) -> bool {
        ADOPTED.with(|a| a.borrow().as_ref().is_some_and(|r| ptr::eq(&**r, self)))
    }

    /// The calling thread stops being this pool's worker (the pool is being dropped).
    pub(crate) fn release_current_thread(&self) {
        CURRENT.with(|c| c.set(&OUTSIDE));
        ADOPTED.with(|a| a.borrow_mut().take());
    }
}

/// Which of a worker thread's handlers runs.
#[derive(Clone, Copy)]
enum ThreadEvent {
    Start,
    Exit,
}

impl Registry {
    /// Runs the start or exit handler, if any, on worker `index`'s own thread. It runs as a
    /// job does (`running`): should it wait (a `join`, a `scope`, a `broadcast`), the worker
    /// helps and parks as inside a job, where its slot is never lent, and takes submitted
    /// work one job at a time. A panic goes to the panic handler, and the thread goes on.
    fn run_thread_handler(&self, index: usize, event: ThreadEvent) {
        let handler = match event {
            ThreadEvent::Start => &self.config.start_handler,
            ThreadEvent::Exit => &self.config.exit_handler,
        };
        let Some(handler) = handler else {
            return;
        };
        let worker = self.slot(index);
        // A spare runs them with the index it shows (see `blocking`).
        let index = worker.shown_index();
        let st = worker.owner_state();
        // SAFETY: owner-only state, on the owner's thread (`worker_main`, `spare_main`).
        let outer = unsafe { std::mem::replace(&mut (*st).running, true) };
        if let Err(p) = catch(|| handler(index)) {
            let what = match event {
                ThreadEvent::Start => format!("the start handler of worker {index}"),
                ThreadEvent::Exit => format!("the exit handler of worker {index}"),
            };
            self.report_panic(&what, p.into_payload());
        }
        // SAFETY: as above.
        unsafe { (*st).running = outer };
    }

    /// Reports the panic of `what` (a spawned job, a handler), which nobody waits for: to
    /// the pool's panic handler if it has one, else as one line on stderr. Never unwinds: a
    /// panicking panic handler is reported on stderr too, and the pool keeps running.
    pub(crate) fn report_panic(&self, what: &dyn fmt::Display, payload: Box<dyn Any + Send>) {
        let Some(handler) = &self.config.panic_handler else {
            let p = Panic::new(payload);
            crate::pool::print_error_line(format_args!(
                "forkjoin: {what} panicked: {}",
                panic_message(&p)
            ));
            // A payload whose `drop` panics must not unwind into the worker either.
            let _ = catch(move || drop(p));
            return;
        };
        if let Err(p) = catch(|| handler(payload)) {
            crate::pool::print_error_line(format_args!(
                "forkjoin: the panic handler panicked on the panic of {what}: {}",
                panic_message(&p)
            ));
            let _ = catch(move || drop(p));
        }
    }

    /// `has_work`, plus the broadcast shares in worker `index`'s inbox, which only the
    /// thread running that slot may take: whether that slot's runner may park (read after
    /// the sleep protocol's fence, `Worker::idle_until`) or must be woken when its slot is
    /// given back (`run_borrowed`).
    pub(crate) fn has_work_for(&self, index: usize) -> bool {
        !self.slot(index).inbox.is_empty() || self.has_work()
    }
}

/// A panic's message for a report, or a note that it has none.
fn panic_message(p: &Panic) -> &str {
    p.message()
        .unwrap_or("(a panic payload that is not a string)")
}

impl Worker {
    /// A strong reference to this worker's registry, for a latch that must keep the pool
    /// alive until its wake-up is done (`CrossLatch`).
    pub(crate) fn registry_arc(&self) -> Arc<Registry> {
        // SAFETY: every registry is made by `Registry::new` inside an `Arc` (`new_cyclic`),
        // and `self.registry` is that allocation's data pointer; the registry is alive, with
        // a strong count of at least one, since we hold a reference to a worker inside it.
        unsafe {
            Arc::increment_strong_count(self.registry);
            Arc::from_raw(self.registry)
        }
    }
}

/// A worker's inbox of broadcast shares (`Pool::broadcast`): jobs that only the thread
/// running this slot may take, the worker itself or a thread that borrowed the slot
/// (`run_borrowed`). Any thread may push; the slot's runner checks it first whenever it
/// looks for work (`Worker::search`), with one relaxed load when it is empty, and its park
/// condition includes it (`Registry::has_work_for`). Broadcasts are rare, so a mutex guards
/// the queue.
pub(crate) struct Inbox {
    /// How many jobs `jobs` holds: a hint read without the mutex.
    len: AtomicUsize,
    jobs: Mutex<VecDeque<JobRef>>,
}

impl Inbox {
    fn new() -> Inbox {
        Inbox {
            len: AtomicUsize::new(0),
            jobs: Mutex::new(VecDeque::new()),
        }
    }

    /// Queues a share for the slot's runner. The caller then wakes it: a SeqCst fence, then
    /// `Sleep::wake`, the waker's half of the Dekker pattern (sleep.rs) against the
    /// runner's announce, fence and `has_work_for`.
    pub(crate) fn push(&self, job: JobRef) {
        // Nothing panics while the lock is held, but a poisoned lock must not stop a pool.
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        jobs.push_back(job);
        // Relaxed: the job itself is handed over by the mutex; the caller's SeqCst fence
        // orders this store before its check for a sleeping runner (see above).
        self.len.store(jobs.len(), Relaxed);
    }

    /// Whether the inbox looks empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        // Relaxed: a hint. A non-zero count is confirmed under the mutex, which also makes
        // the job visible; a stale zero only delays the share until the runner's next look,
        // and a runner about to park reads this after its fence, which the pusher's fence
        // pairs with.
        self.len.load(Relaxed) == 0
    }

    /// Takes the oldest share, if any. Only the slot's runner calls this.
    fn take(&self) -> Option<JobRef> {
        if self.is_empty() {
            return None;
        }
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        let job = jobs.pop_front();
        // Relaxed: as in `push`.
        self.len.store(jobs.len(), Relaxed);
        job
    }
}
