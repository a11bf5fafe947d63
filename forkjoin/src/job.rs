//! Jobs: the unit the queues hold. A job is a pointer to a `JobHeader` embedded first in a
//! `#[repr(C)]` struct that also holds the closure; the header's function pointer knows the
//! concrete type. Join frames live on the joining worker's stack (no allocation, see
//! `join.rs`; `FrameHead` is their type-erased start, which the registry records and
//! shares); spawned and submitted jobs live on the heap (`HeapJob`). A job's function finds
//! the worker it runs on as any code on a worker does (`Worker::executing`), so that jobs do
//! not depend on the registry that runs them.

use crate::latch::CoreLatch;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::AtomicUsize;

/// The first field of every job.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job on the calling thread's worker. Called exactly once per job (the deque
    /// and the submission queues hand each job to exactly one taker).
    ///
    /// Safety: `this` is the header of a live job of the type this function was made for,
    /// executed by no other thread, on a worker's thread.
    pub(crate) execute: unsafe fn(this: *const JobHeader),
}

/// A job in a queue.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(pub(crate) NonNull<JobHeader>);

// SAFETY: every job type is built from `Send` closures (the public APIs require it), and a
// job is executed by exactly one thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    /// `self` must point to a live job that no other thread will execute, and the calling
    /// thread is a worker's.
    pub(crate) unsafe fn execute(self) {
        // SAFETY: `self` points to a live job that no other thread executes, on a worker's
        // thread (our contract), and its header's function was made for its type.
        unsafe {
            let header = self.0.as_ptr();
            ((*header).execute)(header)
        }
    }
}

/// A boxed closure: the jobs of `Scope::spawn` and `Pool::submit`. The closure must not
/// unwind (the callers wrap the user's code in `catch_unwind`).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
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
    unsafe fn execute(this: *const JobHeader) {
        unsafe {
            // SAFETY: made by `into_job_ref` from a `Box<HeapJob<F>>`, executed once.
            let job = Box::from_raw(this as *mut HeapJob<F>);
            (job.func)()
        }
    }
}

/// What a thief needs to run a frame and signal its owner. Written by the owner when it
/// promotes the frame, before the deque's release store publishes it.
pub(crate) struct FrameLatch {
    pub(crate) core: CoreLatch,
    pub(crate) owner: usize,
    /// The worker that took the frame: the owner steals back from it while waiting.
    pub(crate) thief: AtomicUsize,
    /// The frame's region, which its thief runs in and its owner waits for, and the region
    /// the owner ran in when it shared the frame (`registry/isolation.rs`).
    pub(crate) region: usize,
    pub(crate) parent: usize,
    /// The owner's deque holds what the frame's first closure pushed from this index on:
    /// its bottom when the frame was claimed (jobs below were there before, an outer
    /// join's, which its wait must not take), or `isize::MIN` for a frame it promoted
    /// (every job left above a promoted frame was pushed after it).
    pub(crate) floor: isize,
}

impl FrameLatch {
    /// Taken by a thief straight from the owner's private frames (`registry/claim.rs`),
    /// not from its deque: only such a frame has a floor.
    pub(crate) fn claimed(&self) -> bool {
        self.floor != isize::MIN
    }
}

/// The type-erased start of every join frame. `#[repr(C)]` so that a `*const FrameHead`
/// is also a `*const JobHeader`.
#[repr(C)]
pub(crate) struct FrameHead {
    pub(crate) job: JobHeader,
    /// Initialised only when the frame is promoted.
    pub(crate) latch: UnsafeCell<MaybeUninit<FrameLatch>>,
}

impl FrameHead {
    /// Fills in the latch before the frame is pushed onto the deque, or as a thief claims
    /// it (`floor`: the owner's deque bottom then).
    ///
    /// # Safety
    /// `head` is a live frame that has not been shared, on the calling worker's stack or
    /// claimed under its owner's `frames_lock`.
    pub(crate) unsafe fn prepare_for_sharing(
        head: *const FrameHead,
        owner: usize,
        region: usize,
        parent: usize,
        floor: Option<isize>,
    ) {
        // SAFETY: `head` is a live, unshared frame on the calling worker's stack (our contract): nobody else reads its latch yet.
        unsafe {
            (*(*head).latch.get()).write(FrameLatch {
                core: CoreLatch::new(),
                owner,
                thief: AtomicUsize::new(usize::MAX),
                region,
                parent,
                floor: floor.unwrap_or(isize::MIN),
            });
        }
    }

    /// # Safety
    /// The frame has been promoted.
    pub(crate) unsafe fn latch(&self) -> &FrameLatch {
        // SAFETY: the frame has been promoted (our contract), so `prepare_for_sharing` initialised the latch.
        unsafe { (*self.latch.get()).assume_init_ref() }
    }
}
