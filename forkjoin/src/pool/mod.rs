//! The pool: [`Pool`] and what a thread asks about its pool (`current_thread_index`, ...);
//! `builder.rs` configures and starts one, `spawn.rs` starts jobs nobody waits for.

mod builder;
mod spawn;

pub use crate::broadcast::{broadcast, spawn_broadcast, BroadcastContext};
pub use builder::PoolBuilder;
pub use spawn::{spawn, spawn_fifo};

use crate::broadcast::{broadcast_in, spawn_broadcast_in};
use crate::build_error::BuildError;
use crate::program_profile;
use crate::registry::{self, Registry, Worker};
use crate::scope::{in_place_scope_in, Scope};
use crate::scope_fifo::{in_place_scope_fifo_in, ScopeFifo};
use crate::stats::{Stats, WorkerStats};
use crate::sync::JoinHandle;
use crate::task::Task;
use spawn::{invoke_all, spawn_fifo_in, spawn_in};
use std::fmt;
use std::panic::Location;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// A pool of worker threads, one deque each, that run fork/join work.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let sum = pool.install(|| forkjoin::map_reduce(0..1000u64 as usize, || 0u64, |i| i as u64, |a, b| a + b));
/// assert_eq!(sum, 499_500);
/// ```
///
/// Dropping the pool returns at once, as rayon's `ThreadPool` does: the threads finish the
/// running, submitted and spawned jobs (they drain every queue), run the exit handlers and
/// exit, the last freeing the pool. To know that they have ended, wait for the exit handler.
///
/// ```
/// use std::sync::mpsc;
/// let (tx, rx) = mpsc::channel();
/// let (done_tx, done_rx) = mpsc::channel();
/// let pool = forkjoin::Pool::builder()
///     .threads(1)
///     .exit_handler(move |_| done_tx.send("exited").unwrap())
///     .build()
///     .unwrap();
/// pool.spawn(move || {
///     let n: u32 = rx.recv().unwrap();
///     println!("got {n}");
/// });
/// drop(pool); // returns although the job waits
/// tx.send(7).unwrap(); // the job still runs, then the worker exits
/// assert_eq!(done_rx.recv().unwrap(), "exited");
/// ```
pub struct Pool {
    registry: Arc<Registry>,
    handles: Vec<JoinHandle<()>>,
}

impl Drop for Pool {
    /// Tells the threads to finish and returns; they are detached (see the type's docs).
    fn drop(&mut self) {
        self.registry.shut_down();
    }
}

impl Pool {
    /// The registry of a pool never dropped (the global pool's), its threads never joined.
    fn into_registry(self) -> Arc<Registry> {
        let pool = std::mem::ManuallyDrop::new(self);
        // SAFETY: `pool` is never dropped or used again, so the registry moves out once.
        unsafe { std::ptr::read(&pool.registry) }
    }

    #[cfg(feature = "profile")]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// A pool of `threads` workers.
    ///
    /// ```
    /// assert!(forkjoin::Pool::new(0).is_err());
    /// ```
    pub fn new(threads: usize) -> Result<Pool, BuildError> {
        Pool::builder().threads(threads).build()
    }

    /// A builder to configure a pool, or the global pool (`PoolBuilder::build_global`).
    pub fn builder() -> PoolBuilder {
        PoolBuilder::new()
    }

    /// The number of worker threads.
    pub fn num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// Runs `op` on a thread of this pool and returns its result; `join`, `scope` and the
    /// parallel loops inside it use this pool. A panic in `op` is re-raised here.
    ///
    /// From a worker of this pool, `op` runs at once on that worker. From a thread outside
    /// any pool, `op` is handed to a worker and the caller waits (DESIGN.md, section 7,
    /// "Entry from outside the pool"), or runs it itself with [`PoolBuilder::caller_runs`].
    /// From a worker of another pool, `op` is queued and the worker keeps working for its
    /// own pool meanwhile.
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let (n, index) = pool.install(|| (forkjoin::current_num_threads(), forkjoin::current_thread_index()));
    /// assert_eq!(n, 2);
    /// assert!(index.unwrap() < 2);
    /// ```
    #[track_caller]
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.call_site(|registry| registry::in_worker(registry, |_| op()))
    }

    /// Runs `f` on this pool as an entry of the program's profile, at the caller's line.
    #[track_caller]
    fn call_site<R>(&self, f: impl FnOnce(&Arc<Registry>) -> R) -> R {
        let site = Location::caller();
        program_profile::call_site(site, Some(&self.registry), || f(&self.registry))
    }

    /// `join` in this pool.
    #[track_caller]
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(a, b))
    }

    /// Creates a scope in this pool and runs `op` in it on a worker: `install` and
    /// [`scope`](crate::scope) together (rayon's `ThreadPool::scope`).
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let mut parts = [0u32; 3];
    /// pool.scope(|s| {
    ///     for (i, p) in parts.iter_mut().enumerate() {
    ///         s.spawn(move |_| *p = i as u32 + 1);
    ///     }
    /// });
    /// assert_eq!(parts, [1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope(op))
    }

    /// Creates a scope whose tasks run in this pool, while `op` itself runs on the calling
    /// thread: [`in_place_scope`](crate::in_place_scope) for this pool. From a thread
    /// outside any pool the caller blocks without spinning until the tasks are done; from a
    /// worker of another pool it keeps working for that pool meanwhile.
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let v: Vec<u64> = (1..=100).collect();
    /// let (mut a, mut b) = (0, 0);
    /// pool.in_place_scope(|s| {
    ///     s.spawn(|_| a = v[..50].iter().sum());
    ///     s.spawn(|_| b = v[50..].iter().sum());
    /// });
    /// assert_eq!(a + b, 5050);
    /// ```
    #[track_caller]
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.call_site(|registry| in_place_scope_in(registry, op))
    }

    /// [`scope_fifo`](crate::scope_fifo) in this pool.
    #[track_caller]
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) with this pool's workers.
    #[track_caller]
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        self.call_site(|registry| in_place_scope_fifo_in(registry, op))
    }

    /// The pool's number of workers (rayon's `ThreadPool::current_num_threads`).
    pub fn current_num_threads(&self) -> usize {
        self.num_threads()
    }

    /// The current thread's index in this pool, if it is one of its workers (rayon's
    /// `ThreadPool::current_thread_index`).
    pub fn current_thread_index(&self) -> Option<usize> {
        Worker::current_of(&self.registry).map(Worker::shown_index)
    }

    /// Whether the current thread is a worker of this pool with work others could take
    /// (rayon's `ThreadPool::current_thread_has_pending_tasks`); `None` if it is not a
    /// worker of this pool. See [`current_thread_has_pending_tasks`].
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        Worker::current_of(&self.registry).map(|w| w.has_pending_tasks())
    }

    /// [`yield_now`](crate::yield_now), if the current thread is a worker of this pool;
    /// else `None`.
    pub fn yield_now(&self) -> Option<crate::Yield> {
        Worker::current_of(&self.registry)?;
        crate::yield_now()
    }

    /// [`yield_local`](crate::yield_local), if the current thread is a worker of this
    /// pool; else `None`.
    pub fn yield_local(&self) -> Option<crate::Yield> {
        Worker::current_of(&self.registry)?;
        crate::yield_local()
    }

    /// Starts `f` in this pool in FIFO order: into the pool's submission queues, which
    /// workers take oldest first (rayon's `ThreadPool::spawn_fifo`).
    #[track_caller]
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_fifo_in(&self.registry, f);
    }

    /// Runs `op` once on every worker without waiting for it (rayon's
    /// `ThreadPool::spawn_broadcast`); a panic goes to the panic handler.
    #[track_caller]
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_in(&self.registry, op);
    }

    /// Runs `op` once on every worker of the pool, with the worker's index, and returns the
    /// results in index order (rayon's `ThreadPool::broadcast`). Each worker runs its share
    /// itself, the next time it looks for work (before its own queue); a parked worker is
    /// woken for it. A worker busy with a long job runs its share when that job waits or
    /// ends. (With [`PoolBuilder::caller_runs`], a lent slot's share runs on whichever thread
    /// runs the slot next: the borrower, or the worker once the slot is given back.)
    ///
    /// From a worker of this pool (also inside `install`), the caller runs its own share
    /// and helps until all are done. From a thread outside any pool it blocks without
    /// spinning; from a worker of another pool it keeps working for that pool meanwhile.
    ///
    /// If shares panic, every share still runs, and then the panic of the lowest index is
    /// re-raised here (as rayon does).
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(3).unwrap();
    /// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
    /// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
    /// ```
    #[track_caller]
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.call_site(|registry| broadcast_in(registry, op))
    }

    /// Starts `f` in this pool and returns at once (fire and forget; rayon's
    /// `ThreadPool::spawn`). From a worker of this pool `f` goes onto that worker's own
    /// queue, where idle workers may steal it; from any other thread, into the pool's
    /// submission queues. A panic in `f` goes to the pool's panic handler (see
    /// [`PoolBuilder::panic_handler`]); without one it is reported on stderr and the pool
    /// keeps running. Dropping the pool still runs every job spawned before.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// for i in 0..10u64 {
    ///     let tx = tx.clone();
    ///     pool.spawn(move || tx.send(i * i).unwrap());
    /// }
    /// let total: u64 = rx.iter().take(10).sum();
    /// assert_eq!(total, 285);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(&self.registry, f);
    }

    /// Submits `job` from any thread and returns at once (the JDK pool's external submission:
    /// the job goes into one of the pool's submission queues; from a worker of this pool,
    /// onto that worker's deque).
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let tasks: Vec<_> = (0..8u64).map(|i| pool.submit(move || i * i)).collect();
    /// let squares: Vec<u64> = tasks.into_iter().map(|t| t.join().unwrap()).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49]);
    /// ```
    pub fn submit<T, F>(&self, job: F) -> Task<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        crate::task::submit(job, &self.registry)
    }

    /// Runs every closure, potentially in parallel, and returns their results in order.
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let jobs: Vec<_> = (1..=4u32).map(|i| move || i * 100).collect();
    /// assert_eq!(pool.invoke_all(jobs), [100, 200, 300, 400]);
    /// ```
    pub fn invoke_all<T, F>(&self, jobs: Vec<F>) -> Vec<T>
    where
        T: Send,
        F: FnOnce() -> T + Send,
    {
        self.install(|| invoke_all(jobs))
    }

    /// Scheduling statistics since the pool started.
    pub fn stats(&self) -> Stats {
        let workers = self
            .registry
            .workers
            .iter()
            .map(|w| WorkerStats {
                // Relaxed: snapshots of statistics.
                tasks_run: w.inline_joins() + w.counters.executed.load(Relaxed),
                tasks_stolen: w.counters.stolen.load(Relaxed),
                failed_steals: w.counters.failed_steals.load(Relaxed),
                parks: w.counters.parks.load(Relaxed),
                isolated_sleeps: w.counters.isolated_sleeps.load(Relaxed),
                joins_inline: w.inline_joins(),
                tasks_shared: w.counters.promoted.load(Relaxed),
                frames_claimed: w.counters.claimed.load(Relaxed),
            })
            .collect();
        Stats::new(workers, self.registry.external_submissions())
    }

    /// CPU time used so far by the pool's threads (its workers), where the
    /// platform can tell (Linux and other POSIX systems with per-thread CPU clocks).
    pub fn cpu_time(&self) -> Option<Duration> {
        // Not under loom, whose threads have no CPU clock of their own.
        #[cfg(all(unix, not(loom)))]
        {
            use std::os::unix::thread::JoinHandleExt;
            self.handles.iter().try_fold(Duration::ZERO, |total, h| {
                let mut clock: libc::clockid_t = 0;
                // SAFETY: the thread is alive (not joined); `clock`, `ts` are valid out-pointers.
                unsafe {
                    if libc::pthread_getcpuclockid(h.as_pthread_t(), &mut clock) != 0 {
                        return None;
                    }
                    let mut ts: libc::timespec = std::mem::zeroed();
                    if libc::clock_gettime(clock, &mut ts) != 0 {
                        return None;
                    }
                    Some(total + Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
                }
            })
        }
        #[cfg(any(not(unix), loom))]
        {
            None
        }
    }
}

impl Default for Pool {
    /// One worker per available core.
    fn default() -> Self {
        Pool::builder()
            .build()
            .expect("cannot start the default forkjoin pool")
    }
}

/// The pool's size and the registry's address, which tells pools apart (rayon prints its
/// pool's id).
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// assert!(format!("{pool:?}").starts_with("Pool { num_threads: 2, id: "));
/// ```
impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("num_threads", &self.num_threads())
            .field("id", &Arc::as_ptr(&self.registry))
            .finish()
    }
}

/// The index of the current thread in its pool, or `None` outside any pool.
pub fn current_thread_index() -> Option<usize> {
    Worker::current_ref().map(Worker::shown_index)
}

/// Whether the current thread, a worker of a pool, has work other workers could take
/// (rayon's `current_thread_has_pending_tasks`); `None` outside any pool: the jobs it spawned
/// that nobody has taken, and the second halves of its outer joins not yet shared (joins
/// deeper than the few outermost run as plain calls and are not counted).
///
/// ```
/// assert_eq!(forkjoin::current_thread_has_pending_tasks(), None);
/// let pool = forkjoin::Pool::new(1).unwrap();
/// pool.scope(|s| {
///     assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
///     s.spawn(|_| {});
///     // One worker, busy here: nobody has taken the task yet.
///     assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(true));
/// });
/// pool.install(|| {
///     let (inside, _) = forkjoin::join(forkjoin::current_thread_has_pending_tasks, || ());
///     assert_eq!(inside, Some(true)); // the second closure waits
///     assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
/// });
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    Worker::current_ref().map(Worker::has_pending_tasks)
}

/// The number of workers of the current pool (the global pool's outside any pool).
pub fn current_num_threads() -> usize {
    Registry::current().num_threads()
}

/// The most workers a pool may have (rayon's `max_num_threads`, the same 65,535): a larger
/// `threads(n)`, or a larger count from the environment, is reduced to it, as in rayon.
/// Programs size per-thread tables with it.
///
/// ```
/// assert_eq!(forkjoin::max_num_threads(), 65_535);
/// ```
pub fn max_num_threads() -> usize {
    crate::registry::MAX_THREADS
}
