//! Submission queues: jobs from outside, pushed under a lock, taken lock-free and in batches.

use super::worker::{bump, Worker};
use super::Registry;
use crate::deque::{Deque, Steal};
use crate::job::{JobHeader, JobRef};
use crate::sync::{lock, Mutex};
use std::cell::Cell;
use std::ptr::{self, NonNull};
// std's, also under loom: a statistics counter (`crate::counter`).
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// The most jobs a worker takes from a submission queue at once (DESIGN.md, section 5).
pub(super) const SUBMISSION_BATCH: usize = 32;

/// A deque owned by the holder of `push_lock`, taken from lock-free (DESIGN.md, section 5).
pub(crate) struct SubmissionQueue {
    pub(super) push_lock: Mutex<()>,
    /// Jobs pushed here so far, written under `push_lock` on its line (Relaxed, no RMW) and
    /// read as a snapshot (docs/measurements.md, section 9).
    pub(super) submitted: AtomicU64,
    pub(super) deque: Deque<JobHeader>,
}

impl SubmissionQueue {
    pub(super) fn new() -> SubmissionQueue {
        SubmissionQueue {
            push_lock: Mutex::new(()),
            submitted: AtomicU64::new(0),
            deque: Deque::new(),
        }
    }

    /// Takes the oldest job (FIFO), lock-free.
    pub(super) fn take(&self) -> Option<JobRef> {
        loop {
            match self.deque.steal() {
                Steal::Success(job) => return Some(JobRef(job)),
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
    }

    /// Takes the oldest half of the queue (at most `SUBMISSION_BATCH`) for `worker`, between
    /// jobs: the oldest to run now, the rest pushed on its deque in order; and how many.
    ///
    /// # Safety
    /// On `worker`'s own thread.
    pub(super) unsafe fn take_batch(&self, worker: &Worker) -> Option<(JobRef, usize)> {
        let mut batch = [(ptr::null_mut(), 0); SUBMISSION_BATCH];
        loop {
            // SAFETY: nobody pops a submission queue; submitters only push, workers steal.
            match unsafe { self.deque.steal_batch(&mut batch) } {
                Steal::Success(n) => {
                    for &(job, tag) in batch[1..n].iter().rev() {
                        // With its tag: a waiter its job descends from may still take it.
                        // SAFETY: on the worker's thread (our contract); non-null jobs were pushed.
                        unsafe { worker.deque.push_tagged(NonNull::new_unchecked(job), tag) };
                    }
                    // SAFETY: as above.
                    return Some((JobRef(unsafe { NonNull::new_unchecked(batch[0].0) }), n));
                }
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
    }
}

crate::sync::thread_local! {
    /// This thread's probe into the submission queues (JDK: `ThreadLocalRandom` probe).
    static PROBE: Cell<u32> = const { Cell::new(0) };
}

impl Registry {
    /// Jobs submitted from outside the pool so far (a snapshot).
    pub(crate) fn external_submissions(&self) -> u64 {
        // Relaxed: statistics.
        self.queues.iter().map(|q| q.submitted.load(Relaxed)).sum()
    }

    /// Queues a job from outside the pool and wakes a worker for it (`notify_work`).
    pub(crate) fn inject(&self, job: JobRef) {
        self.inject_in(job, 0);
    }

    /// `inject` of a job that descends from `region`, tagged with it, so that a waiter it
    /// descends from may take it (`registry/isolation.rs`).
    pub(crate) fn inject_in(&self, job: JobRef, region: usize) {
        self.push_to_queue(job, region, true);
        self.notify_work();
    }

    /// `inject_in` of a spare's leftovers, not counted as a submission from outside.
    pub(super) fn reinject(&self, job: JobRef, region: usize) {
        self.push_to_queue(job, region, false);
        self.notify_work();
    }

    /// Queues a job from outside the pool without waking anyone (DESIGN.md, section 7).
    pub(super) fn push_submission(&self, job: JobRef) {
        self.push_to_queue(job, 0, true);
    }

    /// Pushes `job` onto a submission queue with `tag`, counted if `external`; tagged jobs
    /// have the first (DESIGN.md, section 5, "Across pools").
    fn push_to_queue(&self, job: JobRef, tag: usize, external: bool) {
        // Called with the queue's lock held.
        let push = |queue: &SubmissionQueue| {
            // SAFETY: the queue's lock makes this thread its owner, after the previous one.
            unsafe { queue.deque.push_tagged(job.0, tag) };
            if external {
                bump(&queue.submitted);
            }
        };
        if tag != 0 {
            let _owner = lock(&self.queues[0].push_lock);
            return push(&self.queues[0]);
        }
        // The untagged queues, `1..=n`, `n` a power of two.
        let n = self.queues.len() - 1;
        let mut probe = PROBE.with(|p| {
            if p.get() == 0 {
                // Seed from the address of a thread-local: distinct per live thread.
                p.set((p as *const Cell<u32> as usize as u32) | 1);
            }
            p.get()
        });
        let mut attempts = 0;
        loop {
            let queue = &self.queues[1 + (probe as usize & (n - 1))];
            let guard = if attempts < n {
                queue.push_lock.try_lock().ok()
            } else {
                Some(queue.push_lock.lock().unwrap())
            };
            if let Some(_owner) = guard {
                push(queue);
                break;
            }
            // Contended: move to another queue, as the JDK pool does.
            probe ^= probe << 13;
            probe ^= probe >> 17;
            probe ^= probe << 5;
            attempts += 1;
        }
        PROBE.with(|p| p.set(probe));
    }
}
