//! `Task`: the handle of a job submitted with `Pool::submit` (seed 001's external
//! submission). The job and its result share one allocation, and joining a finished task
//! takes no lock.

use crate::job::{JobHeader, JobRef};
use crate::panic::{catch, Panic};
use crate::registry::{Registry, Worker};
use std::cell::UnsafeCell;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{fence, AtomicBool, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};

const NO_WAITER: usize = usize::MAX;

/// What the handle sees of a submitted job, whatever its closure type.
struct Shared<T> {
    /// Set (Release) once `result` is written.
    done: AtomicBool,
    /// Written once by the job before `done`; read by `join` after `done` (Acquire).
    result: UnsafeCell<Option<Result<T, Panic>>>,
    /// The index of a worker of the task's pool waiting in `join`, or `NO_WAITER`.
    waiter: AtomicUsize,
    /// A thread outside the pool is blocked (or about to block) on `condvar`.
    blocked: AtomicBool,
    lock: Mutex<()>,
    condvar: Condvar,
    /// The pool's registry, for identity only.
    registry: usize,
}

/// The job: its header first (it is queued as a `JobHeader`), the closure, the shared part.
#[repr(C)]
struct TaskJob<F, T> {
    header: JobHeader,
    func: UnsafeCell<Option<F>>,
    shared: Shared<T>,
}

// SAFETY: `func` is taken once, by the single thread that executes the job; `result` is
// written once before `done` is released and read only after it is acquired.
unsafe impl<F: Send, T: Send> Sync for TaskJob<F, T> {}
// SAFETY: as above; `F` and `T` are `Send`.
unsafe impl<F: Send, T: Send> Send for TaskJob<F, T> {}

trait Handle<T>: Send + Sync {
    fn shared(&self) -> &Shared<T>;
}

impl<F: Send, T: Send> Handle<T> for TaskJob<F, T> {
    fn shared(&self) -> &Shared<T> {
        &self.shared
    }
}

/// Makes the task and its job. The job holds one reference to the allocation, the task
/// the other.
pub(crate) fn new<T, F>(func: F, registry: &Arc<Registry>) -> (Task<T>, JobRef)
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let job = Arc::new(TaskJob {
        header: JobHeader {
            execute: TaskJob::<F, T>::execute,
        },
        func: UnsafeCell::new(Some(func)),
        shared: Shared {
            done: AtomicBool::new(false),
            result: UnsafeCell::new(None),
            waiter: AtomicUsize::new(NO_WAITER),
            blocked: AtomicBool::new(false),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
            registry: Arc::as_ptr(registry) as usize,
        },
    });
    let queued = Arc::into_raw(Arc::clone(&job));
    // SAFETY: `Arc::into_raw` is never null; the header is the first field (`repr(C)`).
    let job_ref = JobRef(unsafe { NonNull::new_unchecked(queued as *mut JobHeader) });
    (Task { handle: job }, job_ref)
}

impl<F: FnOnce() -> T + Send, T: Send> TaskJob<F, T> {
    /// The header's `execute` for a submitted task.
    ///
    /// # Safety
    /// `this` came from `new` (the queue's `Arc` reference) and is executed once.
    unsafe fn execute(this: *const JobHeader, worker: &Worker) {
        // SAFETY: made by `new` from `Arc::into_raw`; executed once, which gives back the
        // queue's reference.
        let job = Arc::from_raw(this as *const Self);
        let func = (*job.func.get()).take().expect("a task executed twice");
        let result = catch(func);
        let shared = &job.shared;
        *shared.result.get() = Some(result);
        // Release: `join` acquires it before reading the result.
        shared.done.store(true, Release);
        // The setter's half of the Dekker pattern with a waiter that announces itself in
        // `waiter` (a worker) or `blocked` (another thread) and then checks `done`.
        fence(SeqCst);
        if shared.blocked.load(Relaxed) {
            // Taking the lock orders us after the waiter's check of `done`, so the notify
            // cannot fall before its wait.
            let _guard = shared.lock.lock().unwrap();
            shared.condvar.notify_all();
        }
        let waiter = shared.waiter.load(Relaxed);
        if waiter != NO_WAITER {
            worker.registry().sleep.wake(waiter);
        }
    }
}

/// A job submitted with [`Pool::submit`](crate::Pool::submit).
pub struct Task<T> {
    handle: Arc<dyn Handle<T>>,
}

impl<T> Task<T> {
    /// Whether the job has finished (its result is ready).
    pub fn is_done(&self) -> bool {
        // Acquire: pairs with the job's Release.
        self.handle.shared().done.load(Acquire)
    }

    /// Waits for the job and returns its result, or its panic. A worker of the same pool
    /// runs other work while it waits; any other thread blocks without spinning.
    pub fn join(self) -> Result<T, Panic> {
        let shared = self.handle.shared();
        if !self.is_done() {
            let current = Worker::current();
            // SAFETY: this thread's worker, if any.
            let worker = (!current.is_null()).then(|| unsafe { &*current });
            match worker {
                Some(w) if w.registry() as *const Registry as usize == shared.registry => {
                    shared.waiter.store(w.index, Relaxed);
                    // The waiter's half: announce, fence, then look (in `wait_until`, and
                    // again under the sleep protocol's own fence before parking).
                    fence(SeqCst);
                    w.wait_until(&|| shared.done.load(Acquire), None);
                }
                _ => {
                    let mut guard = shared.lock.lock().unwrap();
                    shared.blocked.store(true, Relaxed);
                    fence(SeqCst);
                    while !shared.done.load(Acquire) {
                        guard = shared.condvar.wait(guard).unwrap();
                    }
                }
            }
        }
        // SAFETY: `done` was acquired, so the job's write of the result is visible and no
        // one writes it again; this task is the only reader (`join` consumes it).
        unsafe { (*shared.result.get()).take() }.expect("a finished task has a result")
    }
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("done", &self.is_done())
            .finish()
    }
}
