//! A worker's inbox of broadcast shares, which only the thread running its slot takes.

use crate::job::JobRef;
use crate::sync::{lock, AtomicUsize, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;

/// A slot's broadcast shares, for its worker or borrower; an empty inbox costs one relaxed
/// load (DESIGN.md, section 7).
pub(crate) struct Inbox {
    /// How many jobs `jobs` holds: a hint read without the mutex.
    len: AtomicUsize,
    jobs: Mutex<VecDeque<JobRef>>,
}

impl Inbox {
    pub(super) fn new() -> Inbox {
        Inbox {
            len: AtomicUsize::new(0),
            jobs: Mutex::new(VecDeque::new()),
        }
    }

    /// Queues a share for the slot's runner; the caller fences and wakes it (DESIGN.md, section 6).
    pub(crate) fn push(&self, job: JobRef) {
        let mut jobs = lock(&self.jobs);
        jobs.push_back(job);
        // Relaxed: the job itself is handed over by the mutex; the caller's SeqCst fence
        // orders this store before its check for a sleeping runner (see above).
        self.len.store(jobs.len(), Relaxed);
    }

    /// Whether the inbox looks empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        // Relaxed: a hint. A non-zero count is confirmed under the mutex, which also makes
        // the job visible; a stale zero only delays the share until the runner's next look,
        // and a runner about to park reads this after its fence, which the pusher's fence
        // pairs with.
        self.len.load(Relaxed) == 0
    }

    /// Takes the oldest share, if any. Only the slot's runner calls this.
    pub(super) fn take(&self) -> Option<JobRef> {
        if self.is_empty() {
            return None;
        }
        let mut jobs = lock(&self.jobs);
        let job = jobs.pop_front();
        // Relaxed: as in `push`.
        self.len.store(jobs.len(), Relaxed);
        job
    }
}
