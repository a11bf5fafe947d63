//! `yield_now` and `yield_local`: a task that waits for something outside the pool's view
//! (a flag, a message) runs pool work meanwhile, as rayon's functions of the same names.

use crate::job::JobRef;
use crate::registry::Worker;

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Yield {
    /// It ran one job (and whatever that job ran in turn).
    Executed,
    /// It found no job to run.
    Idle,
}

/// Runs one job of the current pool, if there is one: from this worker's own deque first
/// (the newest second closure of its pending joins among them, as in rayon), then stolen
/// from the others or taken from the submission queues, as an idle worker would. `None`
/// outside any pool.
///
/// ```
/// let pool = forkjoin::Pool::new(1).unwrap();
/// let ran = std::sync::atomic::AtomicBool::new(false);
/// pool.install(|| {
///     forkjoin::scope(|s| {
///         s.spawn(|_| ran.store(true, std::sync::atomic::Ordering::Relaxed));
///         // The spawned task is queued on this worker: run it now.
///         assert_eq!(forkjoin::yield_now(), Some(forkjoin::Yield::Executed));
///         assert!(ran.load(std::sync::atomic::Ordering::Relaxed));
///     })
/// });
/// assert_eq!(forkjoin::yield_now(), None);
/// ```
pub fn yield_now() -> Option<Yield> {
    let worker = Worker::current_ref()?;
    worker.share_private_frames();
    Some(run(worker, worker.find_work(None)))
}

/// Runs one job from this worker's own deque, if there is one (no stealing): the newest
/// second closure of its pending joins first, as in rayon. `None` outside any pool.
pub fn yield_local() -> Option<Yield> {
    let worker = Worker::current_ref()?;
    worker.share_private_frames();
    worker.reclaim_index();
    // SAFETY: `pop` on the worker's own thread.
    let job = unsafe { worker.deque.pop() }.map(JobRef);
    Some(run(worker, job))
}

fn run(worker: &Worker, job: Option<JobRef>) -> Yield {
    match job {
        Some(job) => {
            // SAFETY: on the worker's own thread, with a job taken from a queue.
            unsafe { worker.execute(job) };
            Yield::Executed
        }
        None => Yield::Idle,
    }
}
