//! `scope` and `in_place_scope`: tasks that may borrow from the enclosing stack.

use crate::broadcast::{broadcast_boxed, BroadcastContext};
use crate::latch::{CoreLatch, Latch, OutsideLatch};
use crate::lineage::RegionId;
use crate::panic::{catch, Panic};
use crate::profile_hooks::{self, SpawnPoint, TimedTasks};
use crate::program_profile::entry;
use crate::registry::isolation::{self, LeftRegion, WaiterSlot};
use crate::registry::CrossLatch;
use crate::registry::{self, Registry, Worker};
use crate::sync::{AtomicPtr, AtomicUsize};
use std::fmt;
use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

/// A scope in which tasks can be spawned; see [`scope`].
pub struct Scope<'scope> {
    /// The pool the tasks run in.
    registry: *const Registry,
    /// Unfinished tasks, plus one for the scope's own closure.
    pending: AtomicUsize,
    /// Set when `pending` reaches zero; says how to wake the scope's owner.
    done: ScopeLatch,
    /// The first panic of a task; re-raised by `scope` once all tasks have finished.
    panic: FirstPanic,
    /// The scope's region, and the one it was made in if its owner is a worker of its pool.
    region: usize,
    parent: Option<RegionId>,
    /// Besides the region, what the owner may run while it waits: its pushes from here on.
    floor: isize,
    /// The owner's frames hidden while the scope is open (`Worker::hide_frames_unguarded`).
    hidden: usize,
    /// The tasks' times, for the owner's profiled closure (`profile_hooks::open_tasks`).
    timed: Option<TimedTasks>,
    /// Invariant in `'scope`, like `std::thread::Scope`.
    _marker: PhantomData<&'scope mut &'scope ()>,
}

// SAFETY: the registry is used only while the scope lives, its pool kept alive; the rest is `Sync`.
unsafe impl Sync for Scope<'_> {}
// SAFETY: as above.
unsafe impl Send for Scope<'_> {}

/// Creates a scope, runs `op` in it, and returns when every task spawned in it (also by
/// other tasks) has finished. Tasks may borrow anything that outlives the scope.
///
/// If `op` or any task panics, the first panic is re-raised here after all have finished.
///
/// ```
/// let mut counts = [0u32; 4];
/// forkjoin::scope(|s| {
///     for (i, c) in counts.iter_mut().enumerate() {
///         s.spawn(move |_| *c = i as u32 * 10);
///     }
/// });
/// assert_eq!(counts, [0, 10, 20, 30]);
/// ```
#[track_caller]
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    entry(|| registry::on_worker(|w| scope_on(w, op)))
}

/// Creates a scope whose closure `op` runs on the calling thread, while the tasks it spawns
/// run in the current pool (the global pool outside any pool), and returns when every task
/// has finished. It is rayon's `in_place_scope`: like [`scope`], but `op` need not be
/// `Send` and is not moved into the pool; only the tasks are.
///
/// On a worker of a pool this is `scope` on that worker. From a thread outside any pool,
/// `op` runs on that thread, outside the pool (`current_thread_index()` is `None` there),
/// and the thread then blocks without spinning until the tasks are done.
///
/// If `op` or any task panics, the first panic is re-raised here after all have finished.
///
/// ```
/// use std::rc::Rc;
/// // `op` may use what cannot cross threads; the tasks borrow the caller's stack.
/// let here = Rc::new(std::thread::current().id());
/// let mut halves = [0u64; 2];
/// let (a, b) = halves.split_at_mut(1);
/// forkjoin::in_place_scope(|s| {
///     assert_eq!(*here, std::thread::current().id());
///     s.spawn(|_| a[0] = (0..1000u64).sum());
///     s.spawn(|_| b[0] = (1000..2000u64).sum());
/// });
/// assert_eq!(halves, [499_500, 1_499_500]);
/// ```
#[track_caller]
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    entry(|| match Worker::current_ref() {
        Some(worker) => scope_on(worker, op),
        None => in_place_scope_in(registry::global_registry(), op),
    })
}

/// `in_place_scope` in `registry`'s pool, which the caller keeps alive.
pub(crate) fn in_place_scope_in<'scope, OP, R>(registry: &Registry, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    if let Some(worker) = Worker::current_of(registry) {
        return scope_on(worker, op);
    }
    let owner = Worker::current_ref().map_or(Owner::Outside, Owner::Cross);
    complete(registry, owner, op)
}

fn scope_on<'scope, OP, R>(worker: &Worker, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    complete(worker.registry(), Owner::Worker(worker), op)
}

/// Who opens a scope and waits for it.
#[derive(Clone, Copy)]
enum Owner<'w> {
    /// A worker (or borrowed slot) of the scope's pool.
    Worker(&'w Worker),
    /// A worker of another pool (`Pool::in_place_scope` from there).
    Cross(&'w Worker),
    /// A thread outside every pool (`in_place_scope`).
    Outside,
}

/// Opens the scope, runs `op` in it and waits for its tasks; only the scope and the result
/// stay in this frame (DESIGN.md, section 5, "The stack under a wait").
fn complete<'scope, OP, R>(registry: &Registry, owner: Owner<'_>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = Scope::open(registry, owner);
    let result = run_body(&scope, op);
    // SAFETY: opened above, on this thread, and the body has returned.
    unsafe { scope.close() };
    match result {
        Ok(r) => r,
        Err(()) => unreachable!("the scope's panic was recorded and re-raised by `close`"),
    }
}

/// Runs `op`, recording its panic; out of line, so its stack is gone before the owner waits.
#[inline(never)]
fn run_body<'scope, OP, R>(scope: &Scope<'scope>, op: OP) -> Result<R, ()>
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    catch(|| op(scope)).map_err(|p| scope.panic.record(p))
}

/// How the owner waits, and so how the last task wakes it; the rare kinds are boxed.
enum ScopeLatch {
    /// A worker (or borrowed slot) of the scope's pool: it helps, woken by the sleep protocol.
    Owner { core: CoreLatch, index: usize },
    /// A worker of another pool: it works for its own pool, which the latch keeps alive.
    Cross(Box<CrossOwner>),
    /// The owner is outside any pool: it blocks without spinning.
    Outside(Box<OutsideLatch>),
}

/// A worker of another pool waiting for the scope: its latch, and the region it left.
struct CrossOwner {
    latch: CrossLatch,
    left: LeftRegion,
}

impl<'scope> Scope<'scope> {
    /// Makes the scope and readies its owner; out of line, as `close`, off the body's stack.
    #[inline(never)]
    fn open(registry: &Registry, owner: Owner<'_>) -> Self {
        let waiter = match owner {
            Owner::Worker(w) | Owner::Cross(w) => Some(w),
            Owner::Outside => None,
        };
        let floor = waiter.map_or(0, |w| w.deque.bottom_index());
        // The joins below stay private from here on, body included (DESIGN.md, section 5,
        // "Frames below a wait stay private").
        let hidden = waiter.map_or(0, Worker::hide_frames_unguarded);
        let region = isolation::new_region();
        let (done, parent) = match owner {
            // Its tasks descend from the region its owner runs in.
            Owner::Worker(w) => (
                ScopeLatch::Owner {
                    core: CoreLatch::new(),
                    index: w.index,
                },
                RegionId::new(w.current_region()),
            ),
            // From another pool: the body runs in the scope's region (`enter_handed_over`).
            Owner::Cross(w) => {
                // `close` leaves the region.
                let left = w.enter_handed_over_unguarded(region);
                let latch = CrossLatch::new(w.registry_arc(), w.index);
                (
                    ScopeLatch::Cross(Box::new(CrossOwner { latch, left })),
                    None,
                )
            }
            Owner::Outside => (ScopeLatch::Outside(Box::new(OutsideLatch::new())), None),
        };
        Scope {
            registry,
            pending: AtomicUsize::new(1),
            done,
            panic: FirstPanic::new(),
            region,
            parent,
            floor,
            hidden,
            timed: profile_hooks::open_tasks(),
            _marker: PhantomData,
        }
    }

    /// Ends the body's share, waits for the tasks, undoes `open`, re-raises the first panic.
    ///
    /// # Safety
    /// On the thread that opened the scope, once the body has returned.
    #[inline(never)]
    unsafe fn close(&self) {
        if let Some(timed) = &self.timed {
            // SAFETY: on the opener's thread, in the closure that opened the tasks.
            unsafe { timed.wait() };
        }
        // SAFETY: `self` lives on the opener's stack until this wait has returned.
        unsafe { Scope::task_done(self) };
        match &self.done {
            ScopeLatch::Owner { core, .. } => {
                // SAFETY: the owner is this thread's worker (`open`).
                let waiter = unsafe { &*Worker::current() };
                let done = || core.probe();
                if !waiter.run_own_above(&done, self.floor) {
                    waiter.wait_isolated(&done, None, self.floor, self.region, false);
                }
                waiter.unhide_frames(self.hidden);
            }
            ScopeLatch::Cross(cross) => {
                // SAFETY: as above.
                let waiter = unsafe { &*Worker::current() };
                // Tasks may send work back by way of any pool: as `install` into another pool.
                waiter.wait_in_region(&|| cross.latch.core.probe(), self.region, true);
                // Leaves the region `open` entered.
                waiter.leave_region(&cross.left);
                waiter.unhide_frames(self.hidden);
            }
            ScopeLatch::Outside(latch) => latch.wait(),
        }
        if let Some(timed) = &self.timed {
            // SAFETY: as `wait` above; the latch ordered every task's end before this.
            unsafe { timed.close() };
        }
        if let Some(p) = self.panic.take() {
            p.resume();
        }
    }
}

impl Scope<'_> {
    /// Runs a task spawned at `at`, timed if the tasks are, recording its panic.
    #[inline(always)]
    fn run_task(&self, at: Option<SpawnPoint>, task: impl FnOnce()) {
        let run = || match (&self.timed, at) {
            (Some(timed), Some(at)) => timed.run(at, task),
            _ => task(),
        };
        if let Err(p) = catch(run) {
            self.panic.record(p);
        }
    }

    /// The worker that waits for the scope, if one of its pool's.
    fn waiter(&self) -> WaiterSlot {
        match self.done {
            ScopeLatch::Owner { index, .. } => WaiterSlot::worker(index),
            _ => WaiterSlot::NOBODY,
        }
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns a task into the scope. It may run on any worker of the pool, and may itself
    /// spawn more tasks through the `&Scope` it receives.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        // Relaxed: the queue that hands the task over orders this before its decrement.
        self.pending.fetch_add(1, Relaxed);
        let at = self.timed.as_ref().map(TimedTasks::spawned);
        let scope = ScopePtr(self);
        // SAFETY: the scope outlives its tasks (it waits for `pending` to reach zero).
        let registry = unsafe { &*self.registry };
        // The job holds only the scope's pointer (DESIGN.md, section 5, "The stack under a wait").
        let job = Worker::heap_job(move |worker: &Worker| {
            let scope = scope;
            // SAFETY: the scope waits for this task before it goes away.
            let s = unsafe { &*scope.0 };
            let left = s.enter_task(worker);
            s.run_task(at, || body(s));
            // SAFETY: as above, on the scope's pool; the region entered is the innermost.
            unsafe { Scope::end_task(scope.0, worker, &left) };
        });
        registry::submit_job_in(registry, job, self.region, self.waiter());
    }

    /// Enters the scope's region for a task on `worker`; out of line, as `end_task`.
    #[inline(never)]
    fn enter_task(&self, worker: &Worker) -> LeftRegion {
        worker.enter_region_unguarded(self.region, self.waiter(), self.parent)
    }

    /// Ends a task: counted done (which may free the scope), then leaves the scope's region.
    ///
    /// # Safety
    /// As `task_done`, on `worker`'s thread, with the `LeftRegion` of `enter_task`.
    #[inline(never)]
    unsafe fn end_task(this: *const Self, worker: &Worker, left: &LeftRegion) {
        // SAFETY: our contract; after `task_done` only the worker is used, not the scope.
        unsafe {
            Scope::task_done(this);
            worker.leave_region(left);
        }
    }

    /// Spawns a task into the scope on every worker of the pool (rayon's
    /// `Scope::spawn_broadcast`): each worker runs `body` once, with its
    /// [`BroadcastContext`], sometime before the scope ends. A worker runs its share the next
    /// time it looks for work, before stealing.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::Pool::new(3).unwrap();
    /// let seen = [(); 3].map(|_| AtomicUsize::new(0));
    /// pool.scope(|s| {
    ///     s.spawn_broadcast(|_, ctx| {
    ///         seen[ctx.index()].fetch_add(ctx.num_threads(), Ordering::Relaxed);
    ///     });
    /// });
    /// assert_eq!(seen.map(|n| n.into_inner()), [3, 3, 3]);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        // SAFETY: the scope outlives its tasks (it waits for `pending` to reach zero).
        let registry = unsafe { &*self.registry };
        // Relaxed: as in `spawn`, the inbox hands each share over.
        self.pending.fetch_add(registry.num_threads(), Relaxed);
        let at = self.timed.as_ref().map(TimedTasks::spawned);
        let scope = ScopePtr(self);
        broadcast_boxed(registry, move |ctx| {
            // The whole pointer, not its field, is captured (the field is not `Send`).
            let scope = &scope;
            // SAFETY: the scope waits for every share before it goes away.
            let s = unsafe { &*scope.0 };
            s.run_task(at, || body(s, ctx));
            // SAFETY: as in `spawn`: the share runs on a worker of the scope's pool.
            unsafe { Scope::task_done(scope.0) };
        });
    }

    /// One task (or the scope's closure) finished.
    ///
    /// # Safety
    /// `this` is live on entry; it may be freed once `pending` reaches zero. The caller is
    /// the scope's owner or runs on a worker of the scope's pool (which so stays alive).
    unsafe fn task_done(this: *const Self) {
        // SAFETY: `this` is live until `pending` reaches zero (our contract); then only what
        // was copied out and the owner's latch are used; the caller keeps the pool alive.
        unsafe {
            let registry = (*this).registry;
            // AcqRel: the last decrement acquires every task's writes; the latch releases them.
            if (*this).pending.fetch_sub(1, AcqRel) == 1 {
                // The owner waits for the latch, so the scope is still alive until it is set.
                match &(*this).done {
                    ScopeLatch::Owner { core, index } => {
                        // Copied out: the set may free the scope.
                        let index = *index;
                        CoreLatch::set_raw(core);
                        // A worker of the scope's pool, kept alive by the caller.
                        (*registry).idle.latch_set(index);
                    }
                    ScopeLatch::Cross(cross) => CrossLatch::set(&cross.latch),
                    ScopeLatch::Outside(latch) => OutsideLatch::set(&**latch),
                }
            }
        }
    }
}

/// The first panic, in one word (a mutex took three per nesting level); later ones dropped.
struct FirstPanic(AtomicPtr<Panic>);

impl FirstPanic {
    fn new() -> Self {
        FirstPanic(AtomicPtr::new(ptr::null_mut()))
    }

    fn record(&self, p: Panic) {
        let boxed = Box::into_raw(Box::new(p));
        // Release on success, for `take`'s Acquire; Relaxed on failure: nothing is read.
        if self
            .0
            .compare_exchange(ptr::null_mut(), boxed, Release, Relaxed)
            .is_err()
        {
            // SAFETY: `boxed` was not published; it is ours alone.
            drop(unsafe { Box::from_raw(boxed) });
        }
    }

    fn take(&self) -> Option<Panic> {
        // Acquire: pairs with the Release of `record`'s exchange.
        let p = self.0.swap(ptr::null_mut(), Acquire);
        // SAFETY: from `Box::into_raw` in `record`, taken out by the swap: nobody else frees it.
        (!p.is_null()).then(|| *unsafe { Box::from_raw(p) })
    }

    fn is_set(&self) -> bool {
        // Relaxed: a snapshot for `Debug`; it orders nothing.
        !self.0.load(Relaxed).is_null()
    }
}

impl Drop for FirstPanic {
    fn drop(&mut self) {
        drop(self.take());
    }
}

/// A pointer to the scope that a task carries to another thread.
struct ScopePtr<'scope>(*const Scope<'scope>);
// SAFETY: `Scope` is `Sync`, and the pointee outlives every task (see `spawn`).
unsafe impl Send for ScopePtr<'_> {}
// SAFETY: as above; the broadcast shares share one pointer.
unsafe impl Sync for ScopePtr<'_> {}

/// The task count and whether a task has panicked (rayon prints its scope's state too).
impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            // Relaxed: a snapshot for display; it orders nothing.
            .field("pending", &self.pending.load(Relaxed))
            .field("panicked", &self.panic.is_set())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod test;
