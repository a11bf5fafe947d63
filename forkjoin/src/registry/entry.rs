//! How work enters a pool: a closure run on a worker (`in_worker`, `on_worker`), and jobs
//! queued (`spawn_job`, `submit_job_in`).

use super::borrow::{run_borrowed, stack_left};
use super::isolation::WaiterSlot;
use super::worker::Worker;
use super::CrossLatch;
use super::Registry;
use crate::job::JobHeader;
use crate::job::JobRef;
use crate::latch::{spin_until, Latch, OutsideLatch, PURE_SPIN_ROUNDS};
use crate::lineage::RegionId;
use crate::panic::{catch, Panic};
use crate::profile_hooks;
use crate::sync::AtomicBool;
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// How long a thread outside the pool waits for a searching worker to take its call before
/// it wakes a parked one (docs/measurements.md, section 7, "Calls from outside on pool threads").
const HANDOFF_WAIT: Duration = Duration::from_micros(5);

/// A job that runs a closure for a waiter on another thread, and its latch.
#[repr(C)]
struct InstallJob<L, F, R> {
    header: JobHeader,
    /// Set by the worker that takes the job: the waiter outside the pool then wakes nobody.
    started: AtomicBool,
    /// The region its sender, a worker of another pool, waits for (none from outside).
    region: Option<RegionId>,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<Result<R, Panic>>>,
    latch: L,
}

impl<L: Latch, F: FnOnce(&Worker) -> R + Send, R: Send> InstallJob<L, F, R> {
    pub(super) fn new(func: F, latch: L, region: Option<RegionId>) -> Self {
        InstallJob {
            header: JobHeader {
                execute: Self::execute,
            },
            started: AtomicBool::new(false),
            region,
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
    unsafe fn execute(this: *const JobHeader) {
        unsafe {
            // SAFETY: a job executes on a worker's thread (our contract).
            let worker = Worker::executing();
            // SAFETY: a live `InstallJob` (the waiter keeps it until the latch), executed once.
            let job = &*(this as *const Self);
            // Relaxed: a hint for the waiter, which reads nothing of the job because of it.
            job.started.store(true, Relaxed);
            let func = (*job.func.get())
                .take()
                .expect("install job executed twice");
            // Run as a call from outside (`registry/outside.rs`): alone at first.
            let call = worker.begin_outside_call();
            // In its sender's region, whose link the sender publishes.
            let region = job
                .region
                .map(|region| worker.enter_region(region.get(), WaiterSlot::NOBODY, None));
            let result = catch(|| func(worker));
            drop(region);
            worker.end_outside_call(call);
            *job.result.get() = Some(result);
            L::set(&job.latch);
        }
    }

    /// Whether a worker takes the job within `wait` (its latch is set only after that).
    fn started_within(&self, wait: Duration) -> bool {
        // Relaxed: a hint (see `started`).
        spin_until(wait, PURE_SPIN_ROUNDS, || self.started.load(Relaxed))
    }

    fn into_result(self) -> R {
        match self.result.into_inner().expect("install job not executed") {
            Ok(r) => r,
            Err(p) => p.resume(),
        }
    }
}

/// Runs `op` on a worker of `registry`: directly if this thread is one, else injected and
/// waited for (or here in a borrowed slot), in isolation from another pool's worker.
pub(crate) fn in_worker<R: Send>(
    registry: &Arc<Registry>,
    op: impl FnOnce(&Worker) -> R + Send,
) -> R {
    if let Some(worker) = Worker::current_of(registry) {
        return op(worker);
    }
    // Through one function for every caller (DESIGN.md, section 2, "Generic code kept small").
    let mut op = Some(op);
    let mut result = None;
    in_worker_elsewhere(registry, &mut |worker| {
        if let Some(op) = op.take() {
            result = Some(op(worker));
        }
    });
    // `None` only if `op` panicked, and then its panic went on from the hand-off.
    result.expect("a call handed to a worker returned")
}

/// `in_worker` on a thread that is not one of `registry`'s workers.
#[inline(never)]
fn in_worker_elsewhere(registry: &Arc<Registry>, op: &mut (dyn FnMut(&Worker) + Send)) {
    profile_hooks::handed_over(op, |op| hand_over(registry, op));
}

/// `in_worker_elsewhere`, past the profiler's hook.
fn hand_over(registry: &Arc<Registry>, op: &mut (dyn FnMut(&Worker) + Send)) {
    let Some(current) = Worker::current_ref() else {
        // From outside any pool: here in a parked worker's slot (`run_borrowed`), or handed over.
        if registry.caller_runs.is_some_and(|n| stack_left() >= n) {
            if let Some(index) = registry.idle.lend_parked_slot() {
                return run_borrowed(registry, index, op);
            }
        }
        let job = InstallJob::new(op, OutsideLatch::new(), None);
        // Queued without a wake-up (DESIGN.md, section 7, "Entry from outside the pool").
        registry.push_submission(job.job_ref());
        if !job.started_within(HANDOFF_WAIT) {
            registry.notify_work();
        }
        job.latch.wait();
        job.into_result();
        return;
    };
    // A worker of another pool: its registry, for the latch, which must outlive the job.
    let own = current.registry_arc();
    // The joins below are offered first, below the wait's floor, as `op` may wait for one
    // (DESIGN.md, section 4, "Offered before a wait outside the pool").
    current.share_private_frames();
    // Its own region, below this worker's: what comes back descends from it.
    let region = current.new_region();
    let _in = current.enter_handed_over(region);
    let job = InstallJob::new(
        op,
        CrossLatch::new(own, current.index),
        RegionId::new(region),
    );
    registry.inject_in(job.job_ref(), region);
    current.wait_in_region(&|| job.latch.core.probe(), region, true);
    job.into_result();
}

/// Queues a boxed job: on the current worker's deque if this thread is a worker of
/// `registry` (`Worker::push_spawned`), else into a submission queue.
pub(crate) fn spawn_job(registry: &Registry, func: impl FnOnce(&Worker) + Send) {
    let job = Worker::heap_job(func);
    match Worker::current_of(registry) {
        // SAFETY: on the worker's own thread.
        Some(worker) => unsafe { worker.push_spawned(job) },
        None => registry.inject(job),
    }
}

/// `spawn_job` of a job of `region`, tagged with it, whose waiter is `waiter` (perhaps nobody).
pub(crate) fn submit_job_in(registry: &Registry, job: JobRef, region: usize, waiter: WaiterSlot) {
    match Worker::current_of(registry) {
        // SAFETY: on the worker's own thread.
        Some(worker) => unsafe { worker.push_spawned_in(job, region, waiter) },
        None => registry.inject_in(job, region),
    }
}

/// Runs `op` on this thread's worker (of any pool), else on one of the global pool's.
#[inline]
pub(crate) fn on_worker<R: Send>(op: impl FnOnce(&Worker) -> R + Send) -> R {
    match Worker::current_ref() {
        Some(worker) => op(worker),
        None => on_global_worker(op),
    }
}

/// `on_worker` from outside any pool; out of line, keeping the hand-off off the caller's frame.
#[cold]
#[inline(never)]
fn on_global_worker<R: Send>(op: impl FnOnce(&Worker) -> R + Send) -> R {
    in_worker(super::global_registry(), op)
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the real hand-off of a call from outside the pool, and of a call run in
    //! a borrowed slot, on a real pool (`thread::model_pool`): run with `RUSTFLAGS="--cfg loom"
    //! cargo test -p forkjoin --lib loom_tests`. A caller or a worker left parked, or a job left
    //! queued with every thread parked, is a deadlock to loom.

    use super::super::thread::model_pool;
    use super::{in_worker, spawn_job};
    use crate::latch::{Latch, OutsideLatch};
    use crate::sync::model_of_pool;
    use std::sync::Arc;

    /// A thread outside the pool calls into a pool whose only worker is going idle (counted
    /// idle from its start, it searches, spins, yields and parks): the call is queued without
    /// a wake-up, the caller looks once for a worker that took it, else wakes one, and waits
    /// on its latch. The call must run on the worker and its result come back.
    #[test]
    fn a_call_from_outside_reaches_a_worker_going_idle_and_its_result_comes_back() {
        model_of_pool(3, || {
            model_pool::on_large_stack(|| {
                let (registry, handles) = model_pool::start(1, false, None);
                let ran_on = in_worker(&registry, |worker| worker.index + 1);
                assert_eq!(ran_on, 1, "the call ran on worker 0");
                model_pool::stop(registry, handles);
            })
        });
    }

    /// A thread outside a `caller_runs` pool calls in as the pool's only worker goes idle:
    /// if the worker has parked, the caller borrows its slot and runs the call there, else it
    /// hands the call over. The call spawns a job, which a borrower leaves queued when it
    /// gives the slot back: the worker must be woken for it, and the job run.
    #[test]
    fn a_job_spawned_in_a_borrowed_slot_runs_after_the_slot_is_given_back() {
        model_of_pool(3, || {
            model_pool::on_large_stack(|| {
                let (registry, handles) = model_pool::start(1, false, Some(0));
                let ran = Arc::new(OutsideLatch::new());
                let setter = Arc::clone(&ran);
                in_worker(&registry, move |worker| {
                    spawn_job(worker.registry(), move |_| {
                        // SAFETY: `setter` keeps the latch alive through the set.
                        unsafe { OutsideLatch::set(&*setter) };
                    });
                });
                ran.wait();
                model_pool::stop(registry, handles);
            })
        });
    }
}
