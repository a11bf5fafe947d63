//! `scope`: any number of tasks that may borrow from the enclosing stack.

use crate::latch::CoreLatch;
use crate::panic::{catch, Panic};
use crate::registry::{self, Registry, Worker};
use std::marker::PhantomData;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Relaxed};
use std::sync::Mutex;

/// A scope in which tasks can be spawned; see [`scope`].
pub struct Scope<'scope> {
    registry: *const Registry,
    /// Unfinished tasks, plus one for the scope's own closure.
    pending: AtomicUsize,
    /// Set when `pending` reaches zero.
    done: CoreLatch,
    /// The worker waiting for the scope.
    owner: usize,
    /// The first panic of a task; re-raised by `scope` once all tasks have finished.
    panic: Mutex<Option<Panic>>,
    /// Invariant in `'scope`, like `std::thread::Scope`.
    _marker: PhantomData<&'scope mut &'scope ()>,
}

// SAFETY: the registry pointer is only dereferenced while the scope is alive, inside the
// pool it belongs to; everything else is `Sync`.
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
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    registry::on_worker(|w| scope_on(w, op))
}

fn scope_on<'scope, OP, R>(worker: &Worker, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let scope = Scope {
        registry: worker.registry(),
        pending: AtomicUsize::new(1),
        done: CoreLatch::new(),
        owner: worker.index,
        panic: Mutex::new(None),
        _marker: PhantomData,
    };
    let result = catch(|| op(&scope)).map_err(|p| scope.record_panic(p));
    // SAFETY: `scope` lives on this stack until we have waited for `done` below.
    unsafe { Scope::task_done(&scope, worker) };
    worker.wait_until(&|| scope.done.probe(), None);
    if let Some(p) = scope.panic.lock().unwrap().take() {
        p.resume();
    }
    match result {
        Ok(r) => r,
        Err(()) => unreachable!("the scope's panic was recorded and re-raised above"),
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns a task into the scope. It may run on any worker of the pool, and may itself
    /// spawn more tasks through the `&Scope` it receives.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        // Relaxed: the increment reaches the task's decrement through the queue that
        // hands it over (release/acquire); no other ordering is needed.
        self.pending.fetch_add(1, Relaxed);
        let scope = ScopePtr(self);
        // SAFETY: the scope outlives its tasks (it waits for `pending` to reach zero).
        let registry = unsafe { &*self.registry };
        registry::spawn_job(registry, move |worker: &Worker| {
            let scope = scope;
            // SAFETY: the scope waits for this task before it goes away.
            let s = unsafe { &*scope.0 };
            if let Err(p) = catch(|| body(s)) {
                s.record_panic(p);
            }
            // SAFETY: as above; `task_done` does not touch the scope after the decrement.
            unsafe { Scope::task_done(scope.0, worker) };
        });
    }

    fn record_panic(&self, p: Panic) {
        let mut slot = self.panic.lock().unwrap();
        if slot.is_none() {
            *slot = Some(p);
        }
    }

    /// One task (or the scope's closure) finished.
    ///
    /// # Safety
    /// `this` is live on entry; it may be freed once `pending` reaches zero.
    unsafe fn task_done(this: *const Self, worker: &Worker) {
        let owner = (*this).owner;
        // AcqRel: the last decrement acquires every task's writes (their releases) and the
        // latch below releases them to the owner.
        if (*this).pending.fetch_sub(1, AcqRel) == 1 {
            CoreLatch::set_raw(&(*this).done);
            // The task ran on a worker of the scope's pool, so its registry is ours.
            worker.registry().sleep.fence_and_wake(owner);
        }
    }
}

/// A pointer to the scope that a task carries to another thread.
struct ScopePtr<'scope>(*const Scope<'scope>);
// SAFETY: `Scope` is `Sync`, and the pointee outlives every task (see `spawn`).
unsafe impl Send for ScopePtr<'_> {}
