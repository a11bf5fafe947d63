//! Broadcasts: a closure once on every worker of a pool. `broadcast` returns the results,
//! `spawn_broadcast` does not wait (`broadcast_boxed` serves it and the scopes, `unwaited` it
//! and `spawn`). Beside the scopes, as in rayon-core: it imports nothing from them or the pool.

use crate::job::{JobHeader, JobRef};
use crate::latch::{CountLatch, Latch, OutsideLatch};
use crate::panic::{catch, Panic};
use crate::profile_hooks::{self, TimedTasks};
use crate::program_profile::call_site;
use crate::registry::isolation::{self, WaiterSlot};
use crate::registry::{CrossLatch, Registry, Worker};
use crate::sync::fence;
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::panic::Location;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

/// What a share of [`broadcast`] learns about where it runs.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let described = pool.broadcast(|ctx| format!("{ctx:?}"));
/// assert_eq!(described[1], "BroadcastContext { index: 1, num_threads: 2 }");
/// ```
pub struct BroadcastContext<'a> {
    worker: &'a Worker,
    /// Neither `Send` nor `Sync`, as rayon's: it describes the thread it was made on.
    _marker: PhantomData<&'a mut dyn Fn()>,
}

impl BroadcastContext<'_> {
    /// The index of the worker running this share, in `0..num_threads()`: a spare standing
    /// in for a worker inside [`blocking`](crate::blocking) runs that worker's share, under
    /// its index.
    #[inline]
    pub fn index(&self) -> usize {
        self.worker.shown_index()
    }

    /// The number of workers the broadcast runs on: the pool's size.
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.worker.registry().num_threads()
    }
}

impl fmt::Debug for BroadcastContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastContext")
            .field("index", &self.index())
            .field("num_threads", &self.num_threads())
            .finish()
    }
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool)
/// and returns the results in index order: [`Pool::broadcast`](crate::Pool::broadcast) there.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let indexes = pool.install(|| forkjoin::broadcast(|ctx| ctx.index()));
/// assert_eq!(indexes, [0, 1]);
/// ```
#[track_caller]
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    crate::program_profile::entry(|| broadcast_in(Registry::current(), op))
}

/// [`broadcast`] without waiting (rayon's `spawn_broadcast`), on the current pool or the
/// global pool outside any pool.
#[track_caller]
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    spawn_broadcast_in(Registry::current(), op);
}

/// `spawn_broadcast` in `registry`'s pool.
#[track_caller]
pub(super) fn spawn_broadcast_in<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let site = Location::caller();
    broadcast_boxed(registry, move |ctx| {
        let worker = ctx.worker;
        unwaited(site, "a spawned broadcast", || op(ctx))(worker)
    });
}

/// `f` as a job nobody waits for (a spawned job, a spawned broadcast's share): an entry of
/// its own, timed where it runs, its panic reported as `what`'s.
pub(crate) fn unwaited(
    site: &'static Location<'static>,
    what: &'static str,
    f: impl FnOnce(),
) -> impl FnOnce(&Worker) {
    move |worker: &Worker| {
        if let Err(p) = catch(|| call_site(site, None, f)) {
            worker.registry().report_panic(&what, p.into_payload());
        }
    }
}

/// Puts a boxed share of `op` into every inbox and wakes sleepers, without waiting; `op`
/// catches its panics, and the caller keeps what it borrows alive until every share ran.
pub(crate) fn broadcast_boxed<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync,
{
    let op = Arc::new(op);
    // The broadcast's region: what shares push descends from it, not from a share's wait.
    let region = isolation::new_region();
    for worker in registry.workers.iter() {
        let op = Arc::clone(&op);
        worker.inbox.push(Worker::heap_job(move |worker: &Worker| {
            let _region = worker.enter_region(region, WaiterSlot::NOBODY, None);
            op(BroadcastContext {
                worker,
                _marker: PhantomData,
            })
        }));
    }
    wake_for_shares(registry);
}

/// Shares were put in every inbox: the waker's half of the Dekker pattern (DESIGN.md, section
/// 6) for every slot at once; a slot whose thread blocks without a spare gets one.
fn wake_for_shares(registry: &Registry) {
    fence(SeqCst);
    for index in 0..registry.num_threads() {
        registry.idle.published_for(index);
    }
    registry.stand_in_for_waiting();
}

/// One worker's share of a broadcast, on the caller's stack (the caller waits for all).
#[repr(C)]
struct BroadcastJob<OP, R, L> {
    header: JobHeader,
    /// The broadcast's region, and its waiter if a worker of this pool.
    region: usize,
    waiter: WaiterSlot,
    op: *const OP,
    latch: *const CountLatch<L>,
    result: UnsafeCell<Option<Result<R, Panic>>>,
}

impl<OP, R, L> BroadcastJob<OP, R, L>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
    L: Latch,
{
    /// The header's `execute` for a share.
    ///
    /// # Safety
    /// `this` is the header of a live `BroadcastJob`, executed once, by the thread running
    /// the slot whose inbox held it.
    unsafe fn execute(this: *const JobHeader) {
        // SAFETY: our contract; `op` and `latch` are in the caller's frame, live until the set.
        unsafe {
            let worker = Worker::executing();
            let job = this as *const Self;
            // `op` is shared by every share (`OP: Sync`); the caller keeps it alive.
            let op = &*(*job).op;
            // Its region's link is published by its waiter (`enter_handed_over`).
            let region = worker.enter_region((*job).region, (*job).waiter, None);
            let result = catch(|| {
                op(BroadcastContext {
                    worker,
                    _marker: PhantomData,
                })
            });
            drop(region);
            // Only this thread writes the result; the caller reads it after the latch.
            *(*job).result.get() = Some(result);
            // The pointer is copied out: once the latch is set the caller may free the job.
            CountLatch::set((*job).latch);
        }
    }

    fn into_result(self) -> R {
        self.result
            .into_inner()
            .expect("a broadcast share did not run")
            .unwrap_or_else(|p| p.resume())
    }
}

/// `broadcast` on `registry`'s pool. A worker runs what descends from the broadcast until
/// the last share wakes it; a thread outside any pool blocks, borrowing no slot.
pub(super) fn broadcast_in<OP, R>(registry: &Registry, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = registry.num_threads();
    let region = isolation::new_region();
    // The shares, timed for the caller's profiled closure as a scope's tasks are.
    let timed = profile_hooks::open_tasks();
    let at = timed.as_ref().map(TimedTasks::opened);
    let op = |ctx: BroadcastContext<'_>| match (&timed, at) {
        (Some(timed), Some(at)) => {
            let mut result = None;
            timed.run(at, || result = Some(op(ctx)));
            result.expect("a timed share returns")
        }
        _ => op(ctx),
    };
    let waited = |wait: &dyn Fn()| match &timed {
        // SAFETY: on the opening thread; `close` after the latch, after every share's end.
        Some(timed) => unsafe {
            timed.wait();
            wait();
            timed.close();
        },
        None => wait(),
    };
    let Some(worker) = Worker::current_ref() else {
        let latch = CountLatch::new(n, OutsideLatch::new());
        return run_broadcast(registry, &op, &latch, (region, WaiterSlot::NOBODY), || {
            waited(&|| latch.inner.wait())
        });
    };
    // The waiter's own pool, kept alive by the latch until the last share has woken it.
    let latch = CountLatch::new(n, CrossLatch::new(worker.registry_arc(), worker.index));
    // It runs its own share, what it pushes and what the shares push, wherever it comes back.
    let own_pool = std::ptr::eq(worker.registry(), registry);
    let waiter = own_pool.then_some(WaiterSlot::worker(worker.index));
    let waiter = waiter.unwrap_or(WaiterSlot::NOBODY);
    let _in = worker.enter_handed_over(region);
    run_broadcast(registry, &op, &latch, (region, waiter), || {
        waited(&|| worker.wait_in_region(&|| latch.inner.core.probe(), region, !own_pool))
    })
}

/// Puts a share of `op` in every worker's inbox, wakes sleepers, waits with `wait` for
/// `latch`, and collects the results in index order, re-raising the lowest index's panic.
fn run_broadcast<OP, R, L>(
    registry: &Registry,
    op: &OP,
    latch: &CountLatch<L>,
    region_waiter: (usize, WaiterSlot),
    wait: impl FnOnce(),
) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
    L: Latch,
{
    let n = registry.num_threads();
    let (region, waiter) = region_waiter;
    let jobs: Vec<BroadcastJob<OP, R, L>> = (0..n)
        .map(|_| BroadcastJob {
            header: JobHeader {
                execute: BroadcastJob::<OP, R, L>::execute,
            },
            region,
            waiter,
            op,
            latch,
            result: UnsafeCell::new(None),
        })
        .collect();
    for (worker, job) in registry.workers[..n].iter().zip(&jobs) {
        // From the whole job, not the header field: `execute` reads all of it.
        worker.inbox.push(JobRef(NonNull::from(job).cast()));
    }
    wake_for_shares(registry);
    wait();
    jobs.into_iter().map(BroadcastJob::into_result).collect()
}
