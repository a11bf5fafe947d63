//! `PoolBuilder`: a pool's settings and the three ways to start one: `build`, `build_global`
//! and `build_scoped`.

use super::Pool;
use crate::build_error::{BuildError, MAX_STACK};
use crate::registry::{
    self, allowed_cores, default_threads, CustomSpawn, DefaultSpawn, PanicHandler, Registry, Start,
    ThreadBuilder, ThreadConfig, ThreadHandler, ThreadSpawn, Worker, BORROW_STACK_DEFAULT,
    DEFAULT_MAX_BLOCKING, DEFAULT_STACK, MAX_THREADS,
};
use std::any::Any;
use std::fmt;
use std::io;
use std::sync::Arc;

/// The smallest stack a worker may ask for (glibc's `PTHREAD_STACK_MIN`, 16 KiB, plus ours).
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
    settings: Settings,
    spawn: S,
}

/// Everything but how the threads start, which `spawn_handler` replaces.
#[derive(Default)]
struct Settings {
    threads: Option<usize>,
    pin_threads: bool,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    max_blocking: usize,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    panic_handler: Option<PanicHandler>,
    use_current_thread: bool,
    caller_runs: bool,
    breadth_first: bool,
}

impl PoolBuilder {
    /// A builder with the defaults (rayon's `ThreadPoolBuilder::new`), as [`Pool::builder`].
    pub fn new() -> PoolBuilder {
        PoolBuilder {
            settings: Settings {
                max_blocking: DEFAULT_MAX_BLOCKING,
                ..Settings::default()
            },
            spawn: DefaultSpawn,
        }
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
                    b.spawn_scoped(scope, move || wrapper(thread)).map(drop)
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
        self.settings.threads = (threads > 0).then_some(threads);
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
            settings: self.settings,
            spawn: CustomSpawn(spawn),
        }
    }

    /// Makes the building thread worker 0 of the pool (rayon's `use_current_thread`): no
    /// thread is started for it, and the caller takes part in the pool's work when it
    /// joins, waits, or calls [`yield_now`](crate::yield_now), until it drops the pool.
    /// `build` fails with [`BuildError::CurrentThreadInPool`] if the caller is already a
    /// worker of a pool.
    pub fn use_current_thread(mut self) -> Self {
        self.settings.use_current_thread = true;
        self
    }

    /// Lets a thread outside the pool run its own calls (`install`, `join`, `scope`,
    /// `broadcast`'s caller side, a parallel loop started from outside) on itself, in the
    /// place of a parked worker, instead of handing them to a pool thread and waiting (the
    /// default, as in rayon). A stream of tiny jobs from one thread then pays no hand-off at
    /// all; the price is what a program can see (DESIGN.md, section 7, "The borrowed slot, on request"):
    ///
    /// - the call runs on the calling thread: its thread id and name, its thread-locals (a
    ///   `RefCell` the caller holds borrowed stays borrowed), its stack (which must have
    ///   the pool's [`stack_size`](Self::stack_size) left, or 1 MiB without one, or the call
    ///   goes to a pool thread; a job deeper than that still overflows it);
    /// - inside the call, [`current_thread_index`](crate::current_thread_index) is the
    ///   borrowed slot's index, and `None` again after it;
    /// - a [`broadcast`](crate::broadcast) made inside the call runs the borrowed slot's
    ///   share on the caller, so the parked worker of that index never runs it.
    ///
    /// Only when no worker is parked, or the stack is short, does the call go to a pool
    /// thread. Nested calls and calls from the pool's own threads are not affected.
    ///
    /// ```
    /// let pool = forkjoin::Pool::builder().threads(2).caller_runs(true).build().unwrap();
    /// let sum: u64 = pool.install(|| (0..1000u64).map(|x| x * x).sum());
    /// assert_eq!(sum, 332_833_500);
    /// ```
    pub fn caller_runs(mut self, yes: bool) -> Self {
        self.settings.caller_runs = yes;
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
        self.settings.breadth_first = true;
        self
    }

    /// Number of worker threads. The default is the value of the `FORKJOIN_NUM_THREADS`
    /// environment variable if it is a positive integer (0 means one per core; a value that
    /// is not a number is reported once on stderr and ignored); else rayon's
    /// `RAYON_NUM_THREADS` and `RAYON_RS_NUM_CPUS`, read as rayon reads them; else one per
    /// available core (`std::thread::available_parallelism`).
    pub fn threads(mut self, threads: usize) -> Self {
        self.settings.threads = Some(threads);
        self
    }

    /// Pins worker `i` to the `i`-th core this process may run on (modulo their number): for
    /// a machine nothing else shares.
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.settings.pin_threads = pin;
        self
    }

    /// Names worker threads (default: `forkjoin-<i>`).
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Self {
        self.settings.thread_name = Some(Box::new(name));
        self
    }

    /// Stack size of each worker thread in bytes (default 16 MiB). Every job runs on a stack
    /// of this size, wherever it was started from (with [`caller_runs`](Self::caller_runs),
    /// also the least stack a caller must have left to run its call itself).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.settings.stack_size = Some(bytes);
        self
    }

    /// The most spare threads alive at once (default 256, the JDK pool's limit on spares),
    /// which the pool starts so that its configured number of threads keep running while
    /// some of its threads are inside [`blocking`](crate::blocking). 0 turns compensation
    /// off: a blocked worker then takes its core out of the pool until it returns.
    pub fn max_blocking(mut self, spares: usize) -> Self {
        self.settings.max_blocking = spares;
        self
    }

    /// Sets a closure that runs on each worker thread as it starts, before it takes any
    /// work, with the worker's index. It may run on several threads at once. If it panics,
    /// the panic goes to the panic handler (see [`panic_handler`](Self::panic_handler)) and
    /// the worker starts normally.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::sync::Mutex;
    /// let (tx, rx) = mpsc::channel();
    /// let tx = Mutex::new(tx);
    /// let pool = forkjoin::Pool::builder()
    ///     .threads(2)
    ///     .start_handler(move |index| tx.lock().unwrap().send(index).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let mut started = [rx.recv().unwrap(), rx.recv().unwrap()];
    /// started.sort();
    /// assert_eq!(started, [0, 1]);
    /// ```
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.settings.start_handler = Some(Arc::new(start_handler));
        self
    }

    /// Sets a closure that runs on each worker thread just before it ends, with the
    /// worker's index: after the pool is dropped (which returns at once, as in rayon) and the
    /// worker has run its share of the work still queued. It may run on several threads at
    /// once; a panic in it goes to the panic handler. The global pool is never dropped, so
    /// its exit handler never runs. Other workers may have ended already, so an exit handler
    /// (or a job still running while the pool drains) must not `broadcast` on the pool being
    /// dropped: the shares of ended workers would never run.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::sync::Mutex;
    /// let (tx, rx) = mpsc::channel();
    /// let tx = Mutex::new(tx);
    /// let pool = forkjoin::Pool::builder()
    ///     .threads(3)
    ///     .exit_handler(move |index| tx.lock().unwrap().send(index).unwrap())
    ///     .build()
    ///     .unwrap();
    /// assert!(rx.try_recv().is_err());
    /// drop(pool);
    /// let mut ended: Vec<usize> = rx.iter().collect(); // until the last thread drops `tx`
    /// ended.sort();
    /// assert_eq!(ended, [0, 1, 2]);
    /// ```
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.settings.exit_handler = Some(Arc::new(exit_handler));
        self
    }

    /// Sets the closure that receives panics nobody waits for: the payload of a panicking
    /// job started with [`Pool::spawn`] or [`spawn`](crate::spawn), or of a panicking start or exit
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
        self.settings.panic_handler = Some(Arc::new(panic_handler));
        self
    }

    /// Configures and starts the global pool, which `join`, `scope`, `broadcast`, `spawn` and
    /// the parallel iterators use outside any pool. Call it before the global pool's first use
    /// (which starts it with the defaults, see [`threads`](Self::threads)); after that, or
    /// after a first success, it returns [`BuildError::GlobalPoolAlreadyInitialized`] (of
    /// threads calling at once, one builds the pool). The builder's closures must not use the
    /// global pool (it is being built: they would wait for themselves).
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
    pub fn build(self) -> Result<Pool, BuildError>
    where
        S: ThreadSpawn,
    {
        let PoolBuilder {
            settings: s,
            mut spawn,
        } = self;
        if s.use_current_thread && !Worker::current().is_null() {
            return Err(BuildError::CurrentThreadInPool);
        }
        let threads = match s.threads {
            Some(0) => return Err(BuildError::ZeroThreads),
            Some(n) => n,
            None => default_threads(),
        }
        .min(MAX_THREADS);
        let stack = s.stack_size.unwrap_or(DEFAULT_STACK);
        if stack < MIN_STACK {
            return Err(BuildError::StackTooSmall {
                requested: stack,
                minimum: MIN_STACK,
            });
        }
        if stack > MAX_STACK {
            return Err(BuildError::StackTooLarge { requested: stack });
        }
        let cores = s.pin_threads.then(allowed_cores).transpose()?;
        let start = Start {
            threads,
            caller_runs: s
                .caller_runs
                .then(|| s.stack_size.unwrap_or(BORROW_STACK_DEFAULT)),
            config: ThreadConfig {
                stack_size: stack,
                cores: cores.map(Arc::from),
                start_handler: s.start_handler,
                exit_handler: s.exit_handler,
                panic_handler: s.panic_handler,
                breadth_first: s.breadth_first,
            },
            max_blocking: s.max_blocking,
            thread_name: s.thread_name,
            stack_size_chosen: s.stack_size.is_some(),
            use_current_thread: s.use_current_thread,
        };
        let (registry, handles, error) = Registry::start(start, &mut spawn);
        let pool = Pool { registry, handles };
        // On an error, dropping the partial pool stops the threads already started.
        error.map_or(Ok(pool), Err)
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
            .field("threads", &self.settings.threads)
            .field("pin_threads", &self.settings.pin_threads)
            .field("thread_name", &self.settings.thread_name.is_some())
            .field("stack_size", &self.settings.stack_size)
            .field("max_blocking", &self.settings.max_blocking)
            .field("start_handler", &self.settings.start_handler.is_some())
            .field("exit_handler", &self.settings.exit_handler.is_some())
            .field("panic_handler", &self.settings.panic_handler.is_some())
            .field("use_current_thread", &self.settings.use_current_thread)
            .field("caller_runs", &self.settings.caller_runs)
            .field("breadth_first", &self.settings.breadth_first)
            .finish_non_exhaustive()
    }
}
