//! Jobs, the unit the queues hold: a pointer to a `JobHeader` opening a `#[repr(C)]` struct
//! with the closure, on the joiner's stack (`FrameHead`) or the heap (`HeapJob`; DESIGN.md,
//! section 7).

use crate::latch::CoreLatch;
use crate::lineage::RegionId;
use crate::sync::AtomicUsize;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// The first field of every job.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job on the calling thread's worker, once (each queue hands it to one taker).
    ///
    /// Safety: `this` is the header of a live job of the type this function was made for,
    /// executed by no other thread, on a worker's thread.
    pub(crate) execute: unsafe fn(this: *const JobHeader),
}

/// A job in a queue.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(pub(crate) NonNull<JobHeader>);

// SAFETY: every job is built from `Send` closures and executed by exactly one thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    /// `self` must point to a live job that no other thread will execute, and the calling
    /// thread is a worker's.
    pub(crate) unsafe fn execute(self) {
        // SAFETY: our contract (a live job, run once, on a worker); its `execute` fits its type.
        unsafe {
            let header = self.0.as_ptr();
            ((*header).execute)(header)
        }
    }
}

/// A boxed closure (`Scope::spawn`, `Pool::submit`), which must not unwind (callers catch).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func`; the caller keeps what it borrows alive (a scope waits, `submit`: `'static`).
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

/// What a thief needs to run a frame and signal its owner; written before the frame is shared.
pub(crate) struct FrameLatch {
    pub(crate) core: CoreLatch,
    pub(crate) owner: usize,
    /// The worker that took the frame: the owner steals back from it while waiting.
    pub(crate) thief: AtomicUsize,
    /// The frame's region, and the one its owner ran in when sharing it, if any.
    pub(crate) region: usize,
    pub(crate) parent: Option<RegionId>,
    /// Where the first closure's pushes start on the owner's deque: its bottom when claimed
    /// (below lie an outer join's jobs), or `isize::MIN` when promoted (all above came after).
    pub(crate) floor: isize,
}

impl FrameLatch {
    /// Claimed from the owner's private frames (`registry/claim.rs`): only such has a floor.
    pub(crate) fn claimed(&self) -> bool {
        self.floor != isize::MIN
    }
}

/// The type-erased start of every join frame; `#[repr(C)]`: also a `*const JobHeader`.
#[repr(C)]
pub(crate) struct FrameHead {
    pub(crate) job: JobHeader,
    /// Initialised only when the frame is promoted.
    pub(crate) latch: UnsafeCell<MaybeUninit<FrameLatch>>,
}

impl FrameHead {
    /// Fills in the latch before a push, or as a thief claims it (`floor`: the owner's bottom).
    ///
    /// # Safety
    /// `head` is a live frame that has not been shared, on the calling worker's stack or
    /// claimed under its owner's `frames_lock`.
    pub(crate) unsafe fn prepare_for_sharing(
        head: *const FrameHead,
        owner: usize,
        region: usize,
        parent: Option<RegionId>,
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
