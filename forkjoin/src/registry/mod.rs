//! The pool's shared state (`Registry`), the worker slots it owns and the global pool; one
//! file per concern, each saying what it owns (DESIGN.md maps each to its mechanism).

mod borrow;
mod claim;
pub(crate) mod compensation;
mod cross_latch;
mod entry;
mod fifo_spawns;
pub(crate) mod heartbeat;
pub(crate) mod idle;
mod inbox;
pub(crate) mod isolation;
mod outside;
mod spares;
mod submission;
mod thread;
pub(crate) mod wait;
mod worker;

pub(crate) use borrow::BORROW_STACK_DEFAULT;
pub(crate) use cross_latch::CrossLatch;
pub(crate) use entry::{in_worker, on_worker, spawn_job, submit_job_in};
pub(crate) use heartbeat::SHARE_REQUEST;
pub(crate) use thread::{
    allowed_cores, default_threads, PanicHandler, Start, ThreadConfig, ThreadHandler,
    DEFAULT_MAX_BLOCKING, DEFAULT_STACK, MAX_THREADS,
};
pub use thread::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
pub(crate) use worker::{bump, JoinState, Worker, FRAMES, PRIVATE_FRAMES};

use crate::build_error::BuildError;
use crate::padded::CachePadded;
use crate::profile_hooks::ProfilingFlag;
use crate::sync::{AtomicBool, AtomicU64};
use compensation::Compensation;
use idle::Idle;
use spares::Spares;
use std::sync::atomic::Ordering::{Acquire, Release, SeqCst};
use std::sync::{Arc, OnceLock, PoisonError};
use submission::SubmissionQueue;
use worker::JobSource;

/// A pool's shared state. Worker threads each hold an `Arc`.
pub(crate) struct Registry {
    pub(crate) workers: Box<[Worker]>,
    pub(super) queues: Box<[CachePadded<SubmissionQueue>]>,
    /// The idle policy: who is idle, who watches, whom new work wakes, where threads park.
    pub(crate) idle: Idle,
    pub(super) terminating: AtomicBool,
    /// When a call from outside the pool last started (clock ticks; `registry/outside.rs`).
    pub(super) last_outside_call: CachePadded<AtomicU64>,
    /// `Some(stack)` with `PoolBuilder::caller_runs`: a thread outside the pool with at least
    /// `stack` bytes of stack left runs its call itself, in a borrowed slot (`in_worker`).
    pub(super) caller_runs: Option<usize>,
    /// How worker threads are started and what they run besides work (`ThreadConfig`).
    pub(crate) config: ThreadConfig,
    /// Threads inside `blocking` and spare threads alive (see `blocking`).
    pub(crate) compensation: Compensation,
    /// The spare threads' slots.
    pub(super) spares: Spares,
    /// Set while a profile is taken on this pool (see `profile_hooks`).
    pub(crate) profiling: ProfilingFlag,
}

impl Registry {
    pub(crate) fn new(
        threads: usize,
        caller_runs: Option<usize>,
        config: ThreadConfig,
        max_spares: usize,
    ) -> Arc<Registry> {
        // One for tagged jobs, then a power of two for the rest (`push_to_queue`).
        let queues = 1 + (threads * 2).next_power_of_two();
        let registry = Arc::new_cyclic(|me| Registry {
            workers: (0..threads)
                .map(|index| Worker::new(index, me.as_ptr()))
                .collect(),
            queues: (0..queues)
                .map(|_| CachePadded(SubmissionQueue::new()))
                .collect(),
            compensation: Compensation::new(max_spares),
            spares: Spares::new(threads, max_spares),
            idle: Idle::new(
                idle::sleep::Sleep::with_spares(threads, max_spares),
                threads,
            ),
            terminating: AtomicBool::new(false),
            last_outside_call: CachePadded(AtomicU64::new(0)),
            caller_runs,
            config,
            profiling: ProfilingFlag::new(),
        });
        isolation::register_pool(&registry);
        registry
    }

    /// Wakes a parked worker for work just published unless one is searching, and starts a
    /// stand-in for a thread blocked without one (after `new_work`'s fence).
    pub(crate) fn notify_work(&self) {
        self.idle.new_work();
        self.stand_in_for_published();
    }

    /// Whether some worker or spare is busy (a snapshot): fewer are idle than should be
    /// running or ready, the workers and the spares less those inside `blocking`.
    pub(super) fn some_busy(&self) -> bool {
        let (blocked, spares) = self.compensation.counts();
        self.idle.count() < (self.workers.len() + spares).saturating_sub(blocked)
    }

    /// The current thread's pool: its worker's (while it runs as one), else the global pool.
    pub(crate) fn current<'a>() -> &'a Registry {
        match Worker::current_ref() {
            Some(worker) => worker.registry(),
            None => global_registry(),
        }
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
            // SAFETY: a slot below `slot_count` was stored before `made` passed it; it lives on.
            None => unsafe { &*self.spares.slots[i - self.workers.len()].load(SeqCst) },
        }
    }

    /// Any queued work that any worker may take (a snapshot), inboxes excepted: a share for
    /// one worker must not keep the others from parking (`has_work_for` adds its own).
    pub(crate) fn has_work(&self) -> bool {
        (0..self.slot_count()).any(|i| !self.slot(i).deque.is_empty())
            || self.queues.iter().any(|q| !q.deque.is_empty())
    }

    /// Whether the place a job came from (see `OwnerState::source`) still holds work.
    fn holds_work(&self, source: JobSource) -> bool {
        match source {
            JobSource::Own => false,
            JobSource::Slot(i) => i < self.slot_count() && !self.slot(i).deque.is_empty(),
            JobSource::Queue(q) => self.queues.get(q).is_some_and(|q| !q.deque.is_empty()),
        }
    }

    pub(crate) fn is_terminating(&self) -> bool {
        self.terminating.load(Acquire)
    }

    /// Asks the workers to finish the queued work and exit, and resting spares to exit.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, Release);
        self.idle.shutdown();
        self.spares.wake_resting();
    }

    /// `has_work`, plus the broadcast shares in slot `index`'s inbox, which only its runner
    /// may take: whether that runner may park, or must be woken when its slot is given back.
    pub(crate) fn has_work_for(&self, index: usize) -> bool {
        !self.slot(index).inbox.is_empty() || self.has_work()
    }
}

/// The global pool's registry, once started; never dropped.
static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();
/// Held while the global pool starts, so that exactly one is ever built. std's, also under
/// loom (a `static`; the models build pools of their own).
static GLOBAL_INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The registry `join`, `scope` and the loops use outside any pool: `build_global`'s, else
/// started on first use with the default size.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    match GLOBAL.get() {
        Some(registry) => registry,
        None => start_default_global(),
    }
}

/// The global pool's first use, unless `build_global` came first.
#[cold]
fn start_default_global() -> &'static Arc<Registry> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(PoisonError::into_inner);
    GLOBAL
        .get_or_init(|| Registry::start_default().expect("cannot start the default forkjoin pool"))
}

/// Makes the registry `build` returns the global one (`PoolBuilder::build_global`), unless
/// the global pool has already started.
pub(crate) fn init_global_registry(
    build: impl FnOnce() -> Result<Arc<Registry>, BuildError>,
) -> Result<(), BuildError> {
    // Held while the pool is built: a concurrent first use or `build_global` waits and finds it.
    let _init = GLOBAL_INIT.lock().unwrap_or_else(PoisonError::into_inner);
    if GLOBAL.get().is_some() {
        return Err(BuildError::GlobalPoolAlreadyInitialized);
    }
    let registry = build()?;
    GLOBAL
        .set(registry)
        // Not reachable: every initialisation holds `GLOBAL_INIT`.
        .map_err(|_| BuildError::GlobalPoolAlreadyInitialized)
}

#[cfg(all(test, not(loom)))]
mod test;
