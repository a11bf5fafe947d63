//! `Pool`: building, using and dropping a pool of workers; external submission (`Task`).

use crate::registry::{self, Registry, Worker};
use crate::stats::{Stats, WorkerStats};
use crate::task::Task;
use std::fmt;
use std::io;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// The smallest stack a worker may ask for (glibc's `PTHREAD_STACK_MIN` on x86-64 and
/// aarch64 is 16 KiB; the runtime's own frames need a few KiB on top).
const MIN_STACK: usize = 64 * 1024;
/// No machine this runs on has more than 2^47 bytes of user address space per process.
const MAX_STACK: usize = 1 << 47;
/// Workers get 16 MiB stacks unless told otherwise: deep recursions (UTS, sorting) are the
/// point of a fork/join pool, and untouched stack costs only address space.
const DEFAULT_STACK: usize = 16 * 1024 * 1024;
/// Spare threads for blocked ones, at most (the JDK pool's `DEFAULT_MAX_SPARES` is 256).
const DEFAULT_MAX_BLOCKING: usize = 256;

/// Why a pool could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// `threads(0)` or `Pool::new(0)`.
    ZeroThreads,
    /// The requested worker stack is smaller than the runtime needs.
    StackTooSmall {
        /// The size asked for, in bytes.
        requested: usize,
        /// The smallest size accepted, in bytes.
        minimum: usize,
    },
    /// The requested worker stack is larger than any address space.
    StackTooLarge {
        /// The size asked for, in bytes.
        requested: usize,
    },
    /// The operating system refused to start a worker thread (for example, it could not
    /// reserve the requested stack).
    Spawn {
        /// The index of the worker that could not start.
        worker: usize,
        /// What the operating system said.
        source: io::Error,
    },
    /// `pin_threads(true)` on a system where this process may not set its affinity.
    Pinning(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::ZeroThreads => f.write_str("a pool needs at least one thread (got 0)"),
            BuildError::StackTooSmall { requested, minimum } => write!(
                f,
                "worker stack size {requested} bytes is too small (at least {minimum} bytes)"
            ),
            BuildError::StackTooLarge { requested } => write!(
                f,
                "worker stack size {requested} bytes is larger than the address space (at most {MAX_STACK} bytes)"
            ),
            BuildError::Spawn { worker, source } => write!(
                f,
                "the operating system refused to start worker thread {worker}: {source}"
            ),
            BuildError::Pinning(why) => write!(f, "cannot pin worker threads to cores: {why}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Configures a [`Pool`].
///
/// ```
/// let pool = forkjoin::Pool::builder()
///     .threads(2)
///     .thread_name(|i| format!("solver-{i}"))
///     .stack_size(4 << 20)
///     .build()
///     .unwrap();
/// assert_eq!(pool.num_threads(), 2);
/// ```
#[must_use]
pub struct PoolBuilder {
    threads: Option<usize>,
    pin_threads: bool,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    max_blocking: usize,
}

impl PoolBuilder {
    /// Number of worker threads (default: one per available core).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Pins worker `i` to the `i`-th core this process may run on (modulo their number), as
    /// seed 003 recommends when nothing else shares the machine.
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.pin_threads = pin;
        self
    }

    /// Names worker threads (default: `forkjoin-<i>`).
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// Stack size of each worker thread in bytes (default 16 MiB). Also the least stack a
    /// thread outside the pool must have left for `install` to run a job on it (see
    /// `Pool::install`); without this setting, 1 MiB.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// The most spare threads alive at once (default 256, the JDK pool's limit on spares),
    /// which the pool starts so that its configured number of threads keep running while
    /// some of its threads are inside [`blocking`](crate::blocking). 0 turns compensation
    /// off: a blocked worker then takes its core out of the pool until it returns.
    pub fn max_blocking(mut self, spares: usize) -> Self {
        self.max_blocking = spares;
        self
    }

    /// Starts the workers.
    pub fn build(mut self) -> Result<Pool, BuildError> {
        let threads = match self.threads {
            Some(0) => return Err(BuildError::ZeroThreads),
            Some(n) => n,
            None => default_threads(),
        };
        let stack = self.stack_size.unwrap_or(DEFAULT_STACK);
        if stack < MIN_STACK {
            return Err(BuildError::StackTooSmall {
                requested: stack,
                minimum: MIN_STACK,
            });
        }
        if stack > MAX_STACK {
            return Err(BuildError::StackTooLarge { requested: stack });
        }
        let cores = if self.pin_threads {
            Some(allowed_cores()?)
        } else {
            None
        };
        let borrow_stack = self
            .stack_size
            .unwrap_or(crate::registry::BORROW_STACK_DEFAULT);
        let registry = Registry::new(threads, borrow_stack, stack, self.max_blocking);
        let mut handles = Vec::with_capacity(threads + 1);
        let mut spawn_error = None;
        for index in 0..threads {
            let name = match &mut self.thread_name {
                Some(f) => f(index),
                None => format!("forkjoin-{index}"),
            };
            let r = Arc::clone(&registry);
            let core = cores.as_ref().map(|c| c[index % c.len()]);
            let spawned = std::thread::Builder::new()
                .name(name)
                .stack_size(stack)
                .spawn(move || {
                    if let Some(core) = core {
                        pin_current_thread(core);
                    }
                    r.worker_main(index);
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(source) => {
                    spawn_error = Some(BuildError::Spawn {
                        worker: index,
                        source,
                    });
                    break;
                }
            }
        }
        let pool = Pool { registry, handles };
        match spawn_error {
            // Dropping the partial pool stops and joins the threads already started.
            Some(e) => Err(e),
            None => Ok(pool),
        }
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

#[cfg(target_os = "linux")]
fn allowed_cores() -> Result<Vec<usize>, BuildError> {
    // SAFETY: `set` is a plain bit set, zero-initialised, of the size we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(BuildError::Pinning(io::Error::last_os_error().to_string()));
        }
        let cores: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect();
        if cores.is_empty() {
            return Err(BuildError::Pinning(
                "no core in this process's affinity mask".into(),
            ));
        }
        Ok(cores)
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cores() -> Result<Vec<usize>, BuildError> {
    Err(BuildError::Pinning(
        "pinning is implemented for Linux only".into(),
    ))
}

#[cfg(target_os = "linux")]
fn pin_current_thread(core: usize) {
    // SAFETY: as above; a failure (the mask changed since) leaves the thread unpinned,
    // which is still correct.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_current_thread(_core: usize) {}

/// A pool of worker threads, one deque each, that run fork/join work.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let sum = pool.install(|| forkjoin::map_reduce(0..1000u64 as usize, || 0u64, |i| i as u64, |a, b| a + b));
/// assert_eq!(sum, 499_500);
/// ```
///
/// Dropping the pool lets running and already-submitted tasks finish, then joins its
/// threads.
pub struct Pool {
    registry: Arc<Registry>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
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

    /// A builder to configure the pool: threads, pinning, names, stack size.
    pub fn builder() -> PoolBuilder {
        PoolBuilder {
            threads: None,
            pin_threads: false,
            thread_name: None,
            stack_size: None,
            max_blocking: DEFAULT_MAX_BLOCKING,
        }
    }

    /// The number of worker threads.
    pub fn num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// Runs `op` in this pool and returns its result; `join`, `scope` and the parallel
    /// loops inside it use this pool. A panic in `op` is re-raised here.
    ///
    /// From a thread outside any pool, `op` runs on the calling thread itself when a worker
    /// is parked and the thread has enough stack left (what `PoolBuilder::stack_size` asked
    /// for, else 1 MiB; a job that needs more runs on a worker): the caller takes that worker's place (its index, its queue) until `op`
    /// returns, idle workers steal from it once the job proves long enough to share, and it
    /// helps while it waits for them. A small job then costs about what it costs
    /// sequentially, with no hand-off to another thread and back. When every worker is
    /// busy, `op` is queued for them and the caller blocks without spinning. From a worker
    /// of another pool, `op` is queued and the worker keeps working for its own pool
    /// meanwhile.
    ///
    /// ```
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let (n, index) = pool.install(|| (forkjoin::current_num_threads(), forkjoin::current_thread_index()));
    /// assert_eq!(n, 2);
    /// assert!(index.unwrap() < 2);
    /// ```
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        registry::in_worker(&self.registry, |_| op())
    }

    /// `join` in this pool.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(a, b))
    }

    /// Submits `job` from any thread and returns at once (seed 001's external submission:
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
        let (task, job) = crate::task::new(job, &self.registry);
        registry::submit_job(&self.registry, job);
        task
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
                joins_inline: w.inline_joins(),
                tasks_shared: w.counters.promoted.load(Relaxed),
            })
            .collect();
        Stats::new(workers, self.registry.external_submissions())
    }

    /// CPU time used so far by the pool's threads (its workers), where the
    /// platform can tell (Linux and other POSIX systems with per-thread CPU clocks).
    pub fn cpu_time(&self) -> Option<Duration> {
        #[cfg(unix)]
        {
            use std::os::unix::thread::JoinHandleExt;
            let mut total = Duration::ZERO;
            for h in &self.handles {
                let mut clock: libc::clockid_t = 0;
                // SAFETY: the thread is alive (we have not joined it) and `clock` and `ts`
                // are valid out-pointers.
                unsafe {
                    if libc::pthread_getcpuclockid(h.as_pthread_t(), &mut clock) != 0 {
                        return None;
                    }
                    let mut ts: libc::timespec = std::mem::zeroed();
                    if libc::clock_gettime(clock, &mut ts) != 0 {
                        return None;
                    }
                    total += Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
                }
            }
            Some(total)
        }
        #[cfg(not(unix))]
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

impl Drop for Pool {
    fn drop(&mut self) {
        self.registry.terminate();
        // Joining from one of our own workers would wait for ourselves: leave the threads
        // to finish on their own then.
        if Worker::current_of(&self.registry).is_some() {
            return;
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        // Spares still running jobs when the workers finished may start more spares: join
        // until none is left.
        loop {
            let spares = self.registry.take_spare_threads();
            if spares.is_empty() {
                break;
            }
            for h in spares {
                let _ = h.join();
            }
        }
    }
}

fn invoke_all<T: Send, F: FnOnce() -> T + Send>(mut jobs: Vec<F>) -> Vec<T> {
    match jobs.len() {
        0 => Vec::new(),
        1 => vec![jobs.pop().expect("one job")()],
        n => {
            let right = jobs.split_off(n / 2);
            let (mut left, right) = crate::join(|| invoke_all(jobs), || invoke_all(right));
            left.extend(right);
            left
        }
    }
}

static GLOBAL: OnceLock<Pool> = OnceLock::new();

/// The pool used by `join`, `scope` and the loops when called outside any pool: one worker
/// per core, started on first use, never dropped.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    &GLOBAL.get_or_init(Pool::default).registry
}

/// The index of the current thread in its pool, or `None` outside any pool.
pub fn current_thread_index() -> Option<usize> {
    let w = Worker::current();
    // SAFETY: this thread's worker, if any.
    (!w.is_null()).then(|| unsafe { (*w).shown_index() })
}

/// The number of workers of the current pool (the global pool's outside any pool).
pub fn current_num_threads() -> usize {
    let w = Worker::current();
    if w.is_null() {
        global_registry().num_threads()
    } else {
        // SAFETY: this thread's worker.
        unsafe { (*w).registry().num_threads() }
    }
}
