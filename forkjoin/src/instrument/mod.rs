//! The profiler's instrument (feature `profile`): what `forkjoin-profile` needs from inside
//! the runtime. It turns profiling on and off, runs closures as timed strands, and reads the
//! scheduler facts the calibration measures (DESIGN.md, section 12).
//!
//! ```
//! use forkjoin::instrument::{measured, Profiling, Session};
//! let pool = forkjoin::Pool::new(1).unwrap();
//! let _on = Profiling::start(&pool);
//! let session = Session::new(0, 0, false, 0);
//! let (sum, acc) = pool.install(|| {
//!     measured(&session, || forkjoin::join(|| 1, || 2))
//! });
//! assert_eq!(sum, (1, 2));
//! assert_eq!(acc.joins, 1);
//! assert_eq!(acc.strands, 4); // before the join, one in each closure, and after it
//! ```

pub use crate::profile_hooks::graph::{Step, TaskNode};
pub use crate::profile_hooks::{burdened_join, measured, Acc, Session};
pub use call_sites::{call_sites, record_call_sites, write_call_sites, CallSite, PROFILE_VAR};

pub(crate) mod call_sites;

use crate::pool::Pool;
use crate::registry::{Registry, Worker, SHARE_REQUEST};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// The heartbeat period: how often an idle worker asks busy ones to share (DESIGN.md, section 4).
pub const HEARTBEAT: Duration = crate::registry::heartbeat::HEARTBEAT;

/// A worker waiting in isolation parks for [`HEARTBEAT`] at first, doubling at each timeout
/// up to 2 to this power times it (DESIGN.md, section 5); the simulator's waiters as well.
///
/// ```
/// use forkjoin::instrument::{HEARTBEAT, ISOLATED_PARK_DOUBLINGS};
/// // The longest park of a waiter in isolation: four heartbeat periods.
/// assert_eq!(HEARTBEAT * (1 << ISOLATED_PARK_DOUBLINGS), HEARTBEAT * 4);
/// ```
pub const ISOLATED_PARK_DOUBLINGS: u32 = crate::registry::idle::ISOLATED_BACKOFF;

/// A pool profiles while this lives: every join takes the slow path, where it is timed, and
/// every loop splits wherever its rest is worth sharing. Dropping it restores what was
/// before, also when the profiled closure panics.
pub struct Profiling {
    registry: Arc<Registry>,
    was: bool,
}

impl Profiling {
    /// Turns profiling on for `pool`.
    pub fn start(pool: &Pool) -> Profiling {
        Profiling::on(Arc::clone(pool.registry()))
    }

    /// Turns profiling on for the pool of the calling worker; `None` outside any pool.
    pub fn start_on_current() -> Option<Profiling> {
        Worker::current_ref().map(|worker| Profiling::on(worker.registry_arc()))
    }

    pub(crate) fn on(registry: Arc<Registry>) -> Profiling {
        let was = registry.profiling.replace(true);
        for w in registry.workers.iter() {
            // Relaxed: as the heartbeat's request; the workers that run the profiled closure
            // get their part through a queue after this store.
            w.join.limit.store(SHARE_REQUEST, Relaxed);
        }
        Profiling { registry, was }
    }
}

impl Drop for Profiling {
    fn drop(&mut self) {
        self.registry.profiling.replace(self.was);
    }
}

/// Whether `pool` is profiling.
///
/// ```
/// use forkjoin::instrument::{is_profiling, Profiling};
/// let pool = forkjoin::Pool::new(1).unwrap();
/// assert!(!is_profiling(&pool));
/// let on = Profiling::start(&pool);
/// assert!(is_profiling(&pool));
/// drop(on);
/// assert!(!is_profiling(&pool));
/// ```
pub fn is_profiling(pool: &Pool) -> bool {
    pool.registry().profiling.is_set()
}

/// On a worker: the profiler's own cost per strand there, in ns: the least mean duration of
/// the strands of an empty join tree, timed as a profile times them (best of five). Turns
/// the pool's profiling on for the measurement. `None` outside any pool.
///
/// ```
/// let pool = forkjoin::Pool::new(1).unwrap();
/// assert_eq!(forkjoin::instrument::strand_cost(), None);
/// assert!(pool.install(forkjoin::instrument::strand_cost).is_some());
/// ```
pub fn strand_cost() -> Option<u64> {
    fn tree(depth: u32) {
        if depth > 0 {
            crate::join(|| tree(depth - 1), || tree(depth - 1));
        }
        std::hint::black_box(());
    }
    let _on = Profiling::start_on_current()?;
    let session = Session::new(0, 0, false, 0);
    (0..5)
        .map(|_| {
            let ((), acc) = measured(&session, || tree(10));
            acc.work / acc.strands.max(1)
        })
        .min()
}

/// On a worker: one search for work, as an idle worker makes it (its own deque, its inbox,
/// every other deque and the submission queues), running what it finds. Returns whether it
/// found a job; `None` outside any pool.
///
/// ```
/// let pool = forkjoin::Pool::new(1).unwrap();
/// assert_eq!(forkjoin::instrument::search_once(), None);
/// // The one worker, with nothing queued, finds nothing.
/// assert_eq!(pool.install(forkjoin::instrument::search_once), Some(false));
/// ```
pub fn search_once() -> Option<bool> {
    let worker = Worker::current_ref()?;
    let job = worker.find_work(None);
    // SAFETY: on this worker's thread; the job was taken from a queue.
    Some(job.map(|job| unsafe { worker.execute(job) }).is_some())
}

/// On a worker: how many times the workers of its pool have parked so far (the sum of
/// their `parks` counters); `None` outside any pool.
///
/// ```
/// let pool = forkjoin::Pool::new(1).unwrap();
/// assert_eq!(forkjoin::instrument::parks_of_current_pool(), None);
/// assert!(pool.install(forkjoin::instrument::parks_of_current_pool).is_some());
/// ```
pub fn parks_of_current_pool() -> Option<u64> {
    Worker::current_ref().map(|worker| {
        worker
            .registry()
            .workers
            .iter()
            // Relaxed: a snapshot of statistics.
            .map(|w| w.counters.parks.load(Relaxed))
            .sum()
    })
}
