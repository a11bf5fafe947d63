//! `Pool`: building, using and dropping a pool of workers; external submission (`Task`);
//! the global pool and its configuration; the pool services of rayon's `ThreadPool`
//! (`broadcast`, `spawn`, `in_place_scope`, start, exit and panic handlers).

use crate::build_error::{BuildError, MAX_STACK};
use crate::job::{JobHeader, JobRef};
use crate::latch::{CountLatch, CrossLatch, Latch, LockLatch};
use crate::panic::{catch, Panic};
use crate::registry::{
    self, allowed_cores, default_threads, global_registry, CustomSpawn, DefaultSpawn, PanicHandler,
    Registry, Start, ThreadBuilder, ThreadConfig, ThreadHandler, ThreadSpawn, Worker,
    BORROW_STACK_DEFAULT, DEFAULT_MAX_BLOCKING, DEFAULT_STACK,
};
use crate::scope::Scope;
use crate::stats::{Stats, WorkerStats};
use crate::task::Task;
use std::any::Any;
use std::cell::UnsafeCell;
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::fence;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The smallest stack a worker may ask for (glibc's `PTHREAD_STACK_MIN` on x86-64 and
/// aarch64 is 16 KiB; the runtime's own frames need a few KiB on top).
const MIN_STACK: usize = 64 * 1024;

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
pub struct PoolBuilder<S = DefaultSpawn> {
    threads: Option<usize>,
    pin_threads: bool,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    max_blocking: usize,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    panic_handler: Option<PanicHandler>,
    use_current_thread: bool,
    breadth_first: bool,
    spawn: S,
}

impl PoolBuilder {
    /// A builder with the defaults (rayon's `ThreadPoolBuilder::new`); the same as
    /// [`Pool::builder`].
    pub fn new() -> PoolBuilder {
        Pool::builder()
    }

    /// Builds the pool with its threads started by `wrapper` inside a `std::thread::scope`,
    /// runs `with_pool` with it, then drops it and waits for its threads (rayon's
    /// `build_scoped`): the threads may borrow from the caller's stack, and run inside
    /// whatever `wrapper` sets up around [`ThreadBuilder::run`].
    ///
    /// ```
    /// let answer = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(|thread| thread.run(), |pool| pool.install(|| forkjoin::join(|| 6, || 7)))
    ///     .unwrap();
    /// assert_eq!(answer, (6, 7));
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&Pool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut b = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        b = b.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        b = b.stack_size(size);
                    }
                    b.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl Default for PoolBuilder {
    fn default() -> Self {
        Pool::builder()
    }
}

impl<S> PoolBuilder<S> {
    /// Number of worker threads, 0 meaning the default (rayon's `num_threads`): see
    /// [`threads`](Self::threads).
    pub fn num_threads(mut self, threads: usize) -> Self {
        self.threads = (threads > 0).then_some(threads);
        self
    }

    /// Starts the pool's threads with `spawn` instead of `std::thread::spawn` (rayon's
    /// `spawn_handler`): it gets a [`ThreadBuilder`] per worker and must start a thread that
    /// calls [`ThreadBuilder::run`]. The pool does not join such threads when dropped; they
    /// end on their own.
    pub fn spawn_handler<F>(self, spawn: F) -> PoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        PoolBuilder {
            threads: self.threads,
            pin_threads: self.pin_threads,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            max_blocking: self.max_blocking,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            panic_handler: self.panic_handler,
            use_current_thread: self.use_current_thread,
            breadth_first: self.breadth_first,
            spawn: CustomSpawn(spawn),
        }
    }

    /// Makes the building thread worker 0 of the pool (rayon's `use_current_thread`): no
    /// thread is started for it, and the caller takes part in the pool's work when it
    /// joins, waits, or calls [`yield_now`](crate::yield_now), until it drops the pool.
    /// `build` fails with [`BuildError::CurrentThreadInPool`] if the caller is already a
    /// worker of a pool.
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// rayon's deprecated hint that workers run their own spawned jobs breadth first: a
    /// worker looking for work (idle, or waiting in a join or scope) takes the *oldest* job
    /// of its own deque instead of the newest. Thieves steal the oldest either way, and a
    /// join still runs its own second half at once when nobody stole it. As in rayon it is
    /// only a hint about order; [`scope_fifo`](crate::scope_fifo) and
    /// [`spawn_fifo`](crate::spawn_fifo) say it directly.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use std::sync::Mutex;
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).breadth_first().build().unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for i in 0..4 {
    ///         let order = &order;
    ///         s.spawn(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]); // depth first: [3, 2, 1, 0]
    /// ```
    #[deprecated(note = "use `scope_fifo` and `spawn_fifo` for similar effect")]
    pub fn breadth_first(mut self) -> Self {
        self.breadth_first = true;
        self
    }

    /// Number of worker threads. The default is the value of the `FORKJOIN_NUM_THREADS`
    /// environment variable if it is a positive integer (as `RAYON_NUM_THREADS` in rayon),
    /// else one per available core (`std::thread::available_parallelism`). A value of 0
    /// means the default; a value that is not a number is reported once on stderr and
    /// ignored.
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

    /// Names worker threads (default: `forkjoin-<i>`). A pool with named threads runs every
    /// job on them: a thread from outside waits for its `install` instead of running it in a
    /// borrowed slot, so a job always sees a worker's name.
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

    /// Sets a closure that runs on each worker thread as it starts, before it takes any
    /// work, with the worker's index. It may run on several threads at once. If it panics,
    /// the panic goes to the panic handler (see [`panic_handler`](Self::panic_handler)) and
    /// the worker starts normally.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&started);
    /// let pool = forkjoin::Pool::builder()
    ///     .threads(2)
    ///     .start_handler(move |_index| {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // joins the threads: both have started
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Arc::new(start_handler));
        self
    }

    /// Sets a closure that runs on each worker thread just before it ends, with the
    /// worker's index: when the pool is dropped, after the worker has run its share of the
    /// work still queued. It may run on several threads at once. If it panics, the panic
    /// goes to the panic handler and the thread ends normally. The global pool is never
    /// dropped, so its exit handler never runs. Other workers may have ended already, so an
    /// exit handler (or a job still running while the pool drains) must not `broadcast` on
    /// the pool being dropped: the shares of ended workers would never run.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let ended = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&ended);
    /// let pool = forkjoin::Pool::builder()
    ///     .threads(3)
    ///     .exit_handler(move |_index| {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(ended.load(Ordering::SeqCst), 0);
    /// drop(pool);
    /// assert_eq!(ended.load(Ordering::SeqCst), 3);
    /// ```
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Arc::new(exit_handler));
        self
    }

    /// Sets the closure that receives panics nobody waits for: the payload of a panicking
    /// job started with [`Pool::spawn`] or [`spawn`], or of a panicking start or exit
    /// handler. It runs on the worker where the panic happened.
    ///
    /// Without a panic handler such a panic is reported as one line on stderr,
    /// `forkjoin: a spawned job panicked: <message>`, and the pool keeps running (rayon
    /// aborts the process instead). A panic handler that panics is reported the same way;
    /// it never aborts the process.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::sync::Mutex;
    /// let (tx, rx) = mpsc::channel::<String>();
    /// let tx = Mutex::new(tx);
    /// let pool = forkjoin::Pool::builder()
    ///     .threads(2)
    ///     .panic_handler(move |payload| {
    ///         let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         tx.lock().unwrap().send(message.to_string()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("lost"));
    /// assert_eq!(rx.recv().unwrap(), "lost");
    /// ```
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Arc::new(panic_handler));
        self
    }

    /// Configures the global pool, the one that `join`, `scope`, `broadcast`, `spawn` and
    /// the parallel iterators use outside any pool, and starts it. It must be called before
    /// the global pool's first use (which starts it with the default configuration, see
    /// [`threads`](Self::threads)); after that it returns
    /// [`BuildError::GlobalPoolAlreadyInitialized`], and so does any call after the first
    /// successful one. Several threads may call it at once: one pool is built, and the
    /// others get the error. The builder's closures must not use the global pool
    /// themselves (the global pool is being built: they would wait for themselves).
    ///
    /// ```
    /// // In a program's `main`, before anything runs in parallel:
    /// forkjoin::Pool::builder().threads(2).build_global().unwrap();
    /// assert_eq!(forkjoin::current_num_threads(), 2);
    /// let again = forkjoin::Pool::builder().threads(4).build_global();
    /// assert!(matches!(again, Err(forkjoin::BuildError::GlobalPoolAlreadyInitialized)));
    /// ```
    pub fn build_global(self) -> Result<(), BuildError>
    where
        S: ThreadSpawn,
    {
        registry::init_global_registry(|| self.build().map(Pool::into_registry))
    }

    /// Starts the workers.
    pub fn build(mut self) -> Result<Pool, BuildError>
    where
        S: ThreadSpawn,
    {
        if self.use_current_thread && !Worker::current().is_null() {
            return Err(BuildError::CurrentThreadInPool);
        }
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
        // A caller from outside may run its job in a borrowed slot only where the pool's
        // threads are plain ones: a spawn handler or a start handler may give them state
        // (thread-locals, say) the job expects and the caller lacks, and a job in a pool
        // with named threads may look at its thread's name. No stack is that deep.
        let borrow_stack =
            if S::SETS_UP_THREADS || self.start_handler.is_some() || self.thread_name.is_some() {
                usize::MAX
            } else {
                self.stack_size.unwrap_or(BORROW_STACK_DEFAULT)
            };
        let config = ThreadConfig {
            stack_size: stack,
            cores: cores.map(Arc::from),
            start_handler: self.start_handler.take(),
            exit_handler: self.exit_handler.take(),
            panic_handler: self.panic_handler.take(),
            breadth_first: self.breadth_first,
        };
        let start = Start {
            threads,
            borrow_stack,
            config,
            max_blocking: self.max_blocking,
            thread_name: self.thread_name.take(),
            use_current_thread: self.use_current_thread,
        };
        let (registry, handles, error) = Registry::start(start, &mut self.spawn);
        let pool = Pool { registry, handles };
        match error {
            // Dropping the partial pool stops and joins the threads already started.
            Some(e) => Err(e),
            None => Ok(pool),
        }
    }
}

/// A pool of worker threads, one deque each, that run fork/join work.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let sum = pool.install(|| forkjoin::map_reduce(0..1000u64 as usize, || 0u64, |i| i as u64, |a, b| a + b));
/// assert_eq!(sum, 499_500);
/// ```
///
/// Dropping the pool lets running, already submitted and already spawned jobs finish (the
/// workers drain every queue), runs the exit handlers, then joins its threads.
pub struct Pool {
    registry: Arc<Registry>,
    handles: Vec<JoinHandle<()>>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.registry.shut_down(std::mem::take(&mut self.handles));
    }
}

impl Pool {
    /// The registry of a pool that is never dropped (the global pool's): its threads run
    /// until the process ends and are never joined.
    fn into_registry(self) -> Arc<Registry> {
        let pool = std::mem::ManuallyDrop::new(self);
        // SAFETY: `pool` is never dropped or used again, so the registry is moved out of it
        // exactly once; the thread handles it also holds are leaked (never joined).
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

    /// A builder to configure the pool: threads, pinning, names, stack size, handlers; or
    /// the global pool (`PoolBuilder::build_global`).
    pub fn builder() -> PoolBuilder {
        PoolBuilder {
            threads: None,
            pin_threads: false,
            thread_name: None,
            stack_size: None,
            max_blocking: DEFAULT_MAX_BLOCKING,
            start_handler: None,
            exit_handler: None,
            panic_handler: None,
            use_current_thread: false,
            breadth_first: false,
            spawn: DefaultSpawn,
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
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        crate::scope::in_place_scope_in(&self.registry, op)
    }

    /// [`scope_fifo`](crate::scope_fifo) in this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&crate::ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) with this pool's workers.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&crate::ScopeFifo<'scope>) -> R,
    {
        crate::scope_fifo::in_place_scope_fifo_in(self, op)
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
        // SAFETY: `current_of` returns this thread's own worker.
        Worker::current_of(&self.registry).map(|w| unsafe { w.has_pending_tasks() })
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
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_fifo_in(&self.registry, f);
    }

    /// Runs `op` once on every worker without waiting for it (rayon's
    /// `ThreadPool::spawn_broadcast`); a panic goes to the panic handler.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_in(&self.registry, op);
    }

    /// Runs `op` once on every worker of the pool, with the worker's index, and returns the
    /// results in index order (rayon's `ThreadPool::broadcast`). Each worker runs its share
    /// itself, the next time it looks for work (before its own queue); a parked worker is
    /// woken for it. A slot lent to a thread outside the pool (see [`install`](Self::install))
    /// runs its share on whichever thread runs that slot when it next looks for work: the
    /// borrowing thread while it waits for something, or the worker once the slot is given
    /// back. A worker busy with a long job runs its share when that job waits or ends.
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
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast_in(&self.registry, op)
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
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(&self.registry, f);
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

/// The settings; for each closure, only whether one is set.
///
/// ```
/// let builder = forkjoin::ThreadPoolBuilder::new().num_threads(3).thread_name(|i| format!("w{i}"));
/// let text = format!("{builder:?}");
/// assert!(text.contains("threads: Some(3)") && text.contains("thread_name: true"), "{text}");
/// ```
impl<S> fmt::Debug for PoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBuilder")
            .field("threads", &self.threads)
            .field("pin_threads", &self.pin_threads)
            .field("thread_name", &self.thread_name.is_some())
            .field("stack_size", &self.stack_size)
            .field("max_blocking", &self.max_blocking)
            .field("start_handler", &self.start_handler.is_some())
            .field("exit_handler", &self.exit_handler.is_some())
            .field("panic_handler", &self.panic_handler.is_some())
            .field("use_current_thread", &self.use_current_thread)
            .field("breadth_first", &self.breadth_first)
            .finish_non_exhaustive()
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

/// The index of the current thread in its pool, or `None` outside any pool.
pub fn current_thread_index() -> Option<usize> {
    let w = Worker::current();
    // SAFETY: this thread's worker, if any.
    (!w.is_null()).then(|| unsafe { (*w).shown_index() })
}

/// Whether the current thread, a worker of a pool, has work other workers could take
/// (rayon's `current_thread_has_pending_tasks`); `None` outside any pool. That is the jobs it
/// spawned that nobody has taken, and the second halves of its outer joins that it has not
/// shared yet (a join's second half waits on the worker's stack until an idle worker asks
/// for it; joins deeper than the few outermost run as plain calls and are not counted). A
/// heuristic's input: whether to start more work here or do it inline.
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
    let w = Worker::current();
    // SAFETY: this thread's worker, if any, asked on its own thread.
    (!w.is_null()).then(|| unsafe { (*w).has_pending_tasks() })
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

/// What a share of [`broadcast`] learns about where it runs.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let described = pool.broadcast(|ctx| format!("{ctx:?}"));
/// assert_eq!(described[1], "BroadcastContext { index: 1, num_threads: 2 }");
/// ```
pub struct BroadcastContext<'a> {
    worker: &'a Worker,
    /// Neither `Send` nor `Sync`, as rayon's: it describes the thread it was made on.
    _marker: PhantomData<&'a mut dyn Fn()>,
}

impl BroadcastContext<'_> {
    /// The index of the worker running this share, in `0..num_threads()`.
    #[inline]
    pub fn index(&self) -> usize {
        self.worker.index
    }

    /// The number of workers the broadcast runs on: the pool's size.
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.worker.registry().num_threads()
    }
}

impl fmt::Debug for BroadcastContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastContext")
            .field("index", &self.index())
            .field("num_threads", &self.num_threads())
            .finish()
    }
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool)
/// and returns the results in index order: [`Pool::broadcast`] there.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let indexes = pool.install(|| forkjoin::broadcast(|ctx| ctx.index()));
/// assert_eq!(indexes, [0, 1]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let current = Worker::current();
    if current.is_null() {
        return broadcast_in(global_registry(), op);
    }
    // SAFETY: this thread's worker, live while the thread runs it.
    let worker = unsafe { &*current };
    broadcast_in(worker.registry(), op)
}

/// Starts `f` in the current pool (the global pool outside any pool) and returns at once:
/// [`Pool::spawn`] there. On a worker, `f` goes onto the worker's own queue.
///
/// ```
/// use std::sync::mpsc;
/// let (tx, rx) = mpsc::channel();
/// forkjoin::spawn(move || tx.send(forkjoin::current_thread_index().is_some()).unwrap());
/// assert!(rx.recv().unwrap(), "spawned jobs run on a worker");
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    let current = Worker::current();
    if current.is_null() {
        spawn_in(global_registry(), f);
    } else {
        // SAFETY: this thread's worker, live while the thread runs it.
        spawn_in(unsafe { (*current).registry() }, f);
    }
}

/// [`spawn`] in FIFO order (rayon's `spawn_fifo`): into the current pool's submission
/// queues (the global pool's outside any pool), which workers take oldest first.
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    let current = Worker::current();
    if current.is_null() {
        spawn_fifo_in(global_registry(), f);
    } else {
        // SAFETY: this thread's worker, live while the thread runs it.
        spawn_fifo_in(unsafe { (*current).registry() }, f);
    }
}

fn spawn_fifo_in<F>(registry: &Registry, f: F)
where
    F: FnOnce() + Send + 'static,
{
    registry.inject(crate::job::HeapJob::into_job_ref(move |worker: &Worker| {
        if let Err(p) = catch(f) {
            worker
                .registry()
                .report_panic(&"a spawned job", p.into_payload());
        }
    }));
}

/// [`broadcast`] without waiting (rayon's `spawn_broadcast`), on the current pool or the
/// global pool outside any pool.
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let current = Worker::current();
    if current.is_null() {
        spawn_broadcast_in(global_registry(), op);
    } else {
        // SAFETY: this thread's worker, live while the thread runs it.
        spawn_broadcast_in(unsafe { (*current).registry() }, op);
    }
}

fn spawn_broadcast_in<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    broadcast_boxed(registry, move |ctx| {
        let worker = ctx.worker;
        if let Err(p) = catch(|| op(ctx)) {
            worker
                .registry()
                .report_panic(&"a spawned broadcast", p.into_payload());
        }
    });
}

/// Puts a boxed share of `op` into the inbox of each of `registry`'s workers and wakes
/// those that sleep, without waiting; `op` must catch its own panics. The caller must keep
/// what `op` borrows alive until every share has run (`spawn_broadcast` borrows nothing; a
/// scope waits for its shares).
pub(crate) fn broadcast_boxed<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync,
{
    let op = Arc::new(op);
    for worker in registry.workers.iter() {
        let op = Arc::clone(&op);
        worker
            .inbox
            .push(crate::job::HeapJob::into_job_ref(move |worker: &Worker| {
                op(BroadcastContext {
                    worker,
                    _marker: PhantomData,
                })
            }));
    }
    // The waker's half of the Dekker pattern, as in `run_broadcast`.
    fence(SeqCst);
    for index in 0..registry.num_threads() {
        registry.sleep.wake(index);
    }
}

/// The most workers a pool may have (rayon's `max_num_threads`): forkjoin sets no limit of
/// its own, so this is `usize::MAX`; memory and the operating system set the real one
/// (each worker takes a stack and about 40 KiB of queues).
pub fn max_num_threads() -> usize {
    usize::MAX
}

/// `spawn` into `registry`'s pool: onto the current worker's deque if this thread is one of
/// its workers, else into a submission queue; a panic goes to the pool's panic handler.
fn spawn_in<F>(registry: &Registry, f: F)
where
    F: FnOnce() + Send + 'static,
{
    registry::spawn_job(registry, move |worker: &Worker| {
        if let Err(p) = catch(f) {
            worker
                .registry()
                .report_panic(&"a spawned job", p.into_payload());
        }
    });
}

/// One worker's share of a broadcast: on the caller's stack, which outlives it (the caller
/// waits for every share before returning).
#[repr(C)]
struct BroadcastJob<OP, R, L> {
    header: JobHeader,
    op: *const OP,
    latch: *const CountLatch<L>,
    result: UnsafeCell<Option<Result<R, Panic>>>,
}

impl<OP, R, L> BroadcastJob<OP, R, L>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
    L: Latch,
{
    fn new(op: &OP, latch: &CountLatch<L>) -> Self {
        BroadcastJob {
            header: JobHeader {
                execute: Self::execute,
            },
            op,
            latch,
            result: UnsafeCell::new(None),
        }
    }

    fn job_ref(&self) -> JobRef {
        // From the whole job, not the header field: `execute` reads all of it.
        JobRef(NonNull::from(self).cast())
    }

    /// The header's `execute` for a share.
    ///
    /// # Safety
    /// `this` is the header of a live `BroadcastJob`, executed once, by the thread running
    /// the slot whose inbox held it.
    unsafe fn execute(this: *const JobHeader, worker: &Worker) {
        // SAFETY (the whole body): `this` is the header of a live `BroadcastJob` (the
        // caller waits on the latch before freeing it), executed once; `op` and `latch`
        // point into the caller's frame, which outlives the latch's set.
        let job = this as *const Self;
        // `op` is shared by every share (`OP: Sync`); the caller keeps it alive.
        let op = &*(*job).op;
        let result = catch(|| {
            op(BroadcastContext {
                worker,
                _marker: PhantomData,
            })
        });
        // Only this thread writes the result; the caller reads it after the latch.
        *(*job).result.get() = Some(result);
        // Copied out: once the latch is set the caller may free the job.
        let latch = (*job).latch;
        CountLatch::set(latch);
    }

    fn into_result(self) -> R {
        match self
            .result
            .into_inner()
            .expect("a broadcast share did not run")
        {
            Ok(r) => r,
            Err(p) => p.resume(),
        }
    }
}

/// `broadcast` on `registry`'s pool, waiting as the calling thread must: a worker (of this
/// pool, possibly in a borrowed slot, or of another) helps its own pool until the shares
/// are done, and is woken by the last of them; a thread outside any pool blocks on a
/// condition variable (it borrows no slot: the shares must run on the pool's own slots).
fn broadcast_in<OP, R>(registry: &Registry, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = registry.num_threads();
    let current = Worker::current();
    if current.is_null() {
        let latch = CountLatch::new(n, LockLatch::new());
        return run_broadcast(registry, &op, &latch, || latch.inner.wait());
    }
    // SAFETY: this thread's worker, live while the thread runs it.
    let worker = unsafe { &*current };
    // The waiter's own pool (this one or another), kept alive by the latch until the last
    // share has woken it.
    let latch = CountLatch::new(n, CrossLatch::new(worker.registry_arc(), worker.index));
    run_broadcast(registry, &op, &latch, || {
        worker.wait_until(&|| latch.inner.core.probe(), None)
    })
}

/// Puts one share of `op` into the inbox of each of `registry`'s workers, wakes those that
/// sleep, waits with `wait` until `latch` (counting the shares) is set, and collects the
/// results in index order, re-raising the first panic by index.
fn run_broadcast<OP, R, L>(
    registry: &Registry,
    op: &OP,
    latch: &CountLatch<L>,
    wait: impl FnOnce(),
) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
    L: Latch,
{
    let n = registry.num_threads();
    let jobs: Vec<BroadcastJob<OP, R, L>> = (0..n).map(|_| BroadcastJob::new(op, latch)).collect();
    for (worker, job) in registry.workers[..n].iter().zip(&jobs) {
        worker.inbox.push(job.job_ref());
    }
    // The waker's half of the Dekker pattern (sleep.rs) for every slot at once: the pushes
    // come before the fence, the checks for a sleeping runner after it. A runner that parks
    // announces itself, fences and then looks at its inbox (`Registry::has_work_for`), so
    // either it sees its share or we see it asleep and wake it.
    fence(SeqCst);
    for index in 0..n {
        registry.sleep.wake(index);
    }
    wait();
    jobs.into_iter().map(BroadcastJob::into_result).collect()
}
