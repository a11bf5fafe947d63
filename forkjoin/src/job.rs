//! Jobs: the unit the queues hold. A job is a pointer to a `JobHeader` embedded first in a
//! `#[repr(C)]` struct that also holds the closure; the header's function pointer knows the
//! concrete type. Join frames live on the joining worker's stack (no allocation, see
//! `join.rs`); spawned and submitted jobs live on the heap (`HeapJob`).

use crate::registry::Worker;
use std::ptr::NonNull;

/// The first field of every job.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job on `worker`. Called exactly once per job (the deque and the submission
    /// queues hand each job to exactly one taker).
    ///
    /// Safety: `this` is the header of a live job of the type this function was made for,
    /// executed by no other thread, and `worker` is the calling thread's worker.
    pub(crate) execute: unsafe fn(this: *const JobHeader, worker: &Worker),
}

/// A job in a queue.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(pub(crate) NonNull<JobHeader>);

// SAFETY: every job type is built from `Send` closures (the public APIs require it), and a
// job is executed by exactly one thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    /// `self` must point to a live job that no other thread will execute.
    pub(crate) unsafe fn execute(self, worker: &Worker) {
        let header = self.0.as_ptr();
        ((*header).execute)(header, worker)
    }
}

/// A boxed closure: the jobs of `Scope::spawn` and `Pool::submit`. The closure must not
/// unwind (the callers wrap the user's code in `catch_unwind`).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce(&Worker) + Send> HeapJob<F> {
    /// Boxes `func`. The caller must not let the job outlive what `func` borrows: the
    /// scope waits for its jobs, and `submit` requires `'static`.
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        let job = Box::new(HeapJob {
            header: JobHeader {
                execute: Self::execute,
            },
            func,
        });
        JobRef(NonNull::from(Box::leak(job)).cast())
    }

    /// The header's `execute` for a boxed closure.
    ///
    /// # Safety
    /// `this` came from `into_job_ref` and is executed once, on a worker's thread.
    unsafe fn execute(this: *const JobHeader, worker: &Worker) {
        // SAFETY: made by `into_job_ref` from a `Box<HeapJob<F>>`, executed once.
        let job = Box::from_raw(this as *mut HeapJob<F>);
        (job.func)(worker)
    }
}
