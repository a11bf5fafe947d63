//! `spawn_fifo` from a worker: the job waits in the spawning slot's FIFO, and a marker job that
//! runs the FIFO's oldest goes onto the worker's deque like any push, as in rayon (DESIGN.md,
//! section 7).

use super::worker::Worker;
use crate::job::JobRef;
use crate::sync::{lock, Mutex};
use std::collections::VecDeque;

/// The jobs a slot's threads spawned with `spawn_fifo`, oldest first; any thread running a
/// marker takes from it, so a mutex guards it (a spawn allocates already).
pub(crate) struct FifoSpawns {
    jobs: Mutex<VecDeque<JobRef>>,
}

impl FifoSpawns {
    pub(super) fn new() -> FifoSpawns {
        FifoSpawns {
            jobs: Mutex::new(VecDeque::new()),
        }
    }

    fn push(&self, job: JobRef) {
        lock(&self.jobs).push_back(job);
    }

    fn pop(&self) -> Option<JobRef> {
        lock(&self.jobs).pop_front()
    }
}

impl Worker {
    /// Queues `job` in this slot's FIFO and pushes a marker that runs the FIFO's oldest
    /// job: one marker per job, so every job runs once, in the order spawned, whichever
    /// thread takes which marker.
    ///
    /// # Safety
    /// On this worker's own thread.
    pub(crate) unsafe fn push_fifo(&self, job: JobRef) {
        self.fifo_spawns.push(job);
        let slot = self.index;
        let marker = Worker::heap_job(move |runner: &Worker| {
            // The same pool: a marker is only ever on this pool's deques and queues.
            if let Some(job) = runner.registry().slot(slot).fifo_spawns.pop() {
                // SAFETY: run once, by the thread that took it from the FIFO, as `runner`.
                unsafe { job.execute() };
            }
        });
        // SAFETY: on this worker's own thread (our contract).
        unsafe { self.push_spawned(marker) };
    }
}
