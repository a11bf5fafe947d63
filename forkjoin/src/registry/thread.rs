//! A worker thread's life: the registry's start and shut-down, the threads' configuration and
//! handlers, a worker's main loop, a thread adopted as worker 0 (DESIGN.md, section 7).

use super::idle::Idle;
use super::wait::Helps;
use super::worker::Worker;
use super::worker::{outside, CURRENT};
use super::Registry;
use crate::build_error::BuildError;
use crate::panic::{catch, print_error_line, Panic};
use crate::sync::{JoinHandle, SpawnBuilder};
use std::any::Any;
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::ptr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Linux's default timer slack would stretch every timed park (DESIGN.md, section 4).
pub(super) fn set_precise_timer() {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: PR_SET_TIMERSLACK takes a value in nanoseconds and touches only this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong);
    }
}

/// A start or exit handler: called with the worker's index.
pub(crate) type ThreadHandler = Arc<dyn Fn(usize) + Send + Sync>;

/// The pool's panic handler: receives the payload of a panic nobody waits for.
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// All a worker thread needs besides work, so a spare started later gets the same.
#[derive(Clone, Default)]
pub(crate) struct ThreadConfig {
    /// Stack size of each worker thread, in bytes (0: the platform's default).
    pub(crate) stack_size: usize,
    /// If the pool pins its threads: worker `i`'s core is `cores[i % cores.len()]`.
    pub(crate) cores: Option<Arc<[usize]>>,
    /// Runs on each worker thread as it starts, before it takes any work.
    pub(crate) start_handler: Option<ThreadHandler>,
    /// Runs on each worker thread as it ends, after it has drained the pool's work.
    pub(crate) exit_handler: Option<ThreadHandler>,
    /// Receives panics nobody waits for (see `Registry::report_panic`).
    pub(crate) panic_handler: Option<PanicHandler>,
    /// rayon's deprecated `breadth_first` hint (see `Worker::take_own_above`).
    pub(crate) breadth_first: bool,
}

crate::sync::thread_local! {
    /// The pool whose worker 0 this thread is, kept alive while `CURRENT` points into it.
    static ADOPTED: std::cell::RefCell<Option<Arc<Registry>>> = const { std::cell::RefCell::new(None) };
}

/// The checked options a registry starts with (`PoolBuilder::build` makes them).
#[derive(Default)]
pub(crate) struct Start {
    pub(crate) threads: usize,
    /// See `Registry::caller_runs`.
    pub(crate) caller_runs: Option<usize>,
    pub(crate) config: ThreadConfig,
    pub(crate) max_blocking: usize,
    /// Names worker `i`'s thread (`DefaultSpawn`'s default: `forkjoin-{i}`).
    pub(crate) thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    /// Whether the program chose `config.stack_size`: only then does a `ThreadBuilder` report it.
    pub(crate) stack_size_chosen: bool,
    /// The calling thread becomes worker 0 (`PoolBuilder::use_current_thread`).
    pub(crate) use_current_thread: bool,
}

impl Registry {
    /// A worker thread's life.
    pub(crate) fn worker_main(self: &Arc<Registry>, index: usize) {
        let worker = &self.workers[index];
        set_precise_timer();
        // From the whole worker, so that `JoinState::worker` may cast back to it.
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        // Idle until its first search finds work (DESIGN.md, section 8); a start handler is work.
        let round = if self.config.start_handler.is_some() {
            self.idle.leave();
            self.run_thread_handler(index, &self.config.start_handler, "start");
            self.idle.start_looking()
        } else {
            Idle::looking_from_start()
        };
        let terminating = || self.is_terminating();
        if !worker.idle_until(&terminating, None, round) {
            worker.wait_until(&terminating, None, Helps::Anything);
        }
        // Drain: everything queued before the pool was dropped still runs.
        while let Some(job) = worker.find_work(None) {
            // SAFETY: on this worker's thread; the job was taken from a queue.
            unsafe { worker.execute(job) };
        }
        self.run_thread_handler(index, &self.config.exit_handler, "exit");
        CURRENT.with(|c| c.set(outside()));
        // A stand-in of this index mid-task gets it, and drains what it leaves.
        self.leave_index(worker);
    }

    /// Runs the `which` (start or exit) handler, if any, on worker `index`'s thread, as a job
    /// (`running`: its waits help, its slot is never lent); a panic goes to the panic handler.
    pub(super) fn run_thread_handler(
        &self,
        index: usize,
        handler: &Option<ThreadHandler>,
        which: &str,
    ) {
        let Some(handler) = handler else {
            return;
        };
        let worker = self.slot(index);
        // A spare runs them with the index it shows (see `blocking`).
        let index = worker.shown_index();
        // On the owner's thread (`worker_main`, a spare's `stand_in`).
        let running = &worker.owner().running;
        let outer = running.replace(true);
        if let Err(p) = catch(|| handler(index)) {
            let what = format!("the {which} handler of worker {index}");
            self.report_panic(&what, p.into_payload());
        }
        running.set(outer);
    }

    /// Reports the panic of `what`, which nobody waits for, to the panic handler, else as a
    /// line on stderr (as is a panicking panic handler's). Never unwinds.
    pub(crate) fn report_panic(&self, what: &dyn fmt::Display, payload: Box<dyn Any + Send>) {
        let (p, line) = match &self.config.panic_handler {
            None => (Panic::new(payload), format!("{what} panicked")),
            Some(handler) => match catch(|| handler(payload)) {
                Ok(()) => return,
                Err(p) => (
                    p,
                    format!("the panic handler panicked on the panic of {what}"),
                ),
            },
        };
        let message = p
            .message()
            .unwrap_or("(a panic payload that is not a string)");
        print_error_line(format_args!("forkjoin: {line}: {message}"));
        // A payload whose `drop` panics must not unwind into the worker either.
        let _ = catch(move || drop(p));
    }

    /// A new registry with its threads started by `spawn`; on a failed start also the error
    /// (the caller then calls `shut_down`).
    pub(crate) fn start<S: ThreadSpawn>(
        mut start: Start,
        spawn: &mut S,
    ) -> (Arc<Registry>, Vec<JoinHandle<()>>, Option<BuildError>) {
        let threads = start.threads;
        let stack = start.config.stack_size;
        let registry = Registry::new(threads, start.caller_runs, start.config, start.max_blocking);
        let mut handles = Vec::with_capacity(threads + 1);
        for index in 0..threads {
            let name = start.thread_name.as_mut().map(|f| f(index));
            if start.use_current_thread && index == 0 {
                continue;
            }
            let thread = ThreadBuilder {
                registry: Arc::clone(&registry),
                index,
                name,
                stack_size: start.stack_size_chosen.then_some(stack),
                default_stack: stack,
            };
            match spawn.spawn(thread) {
                Ok(h) => handles.extend(h),
                Err(source) => {
                    let error = BuildError::Spawn {
                        worker: index,
                        source,
                    };
                    return (registry, handles, Some(error));
                }
            }
        }
        if start.use_current_thread {
            registry.adopt_current_thread(0);
        }
        (registry, handles, None)
    }

    /// Makes the calling thread worker `index` until `shut_down`, as a worker inside a job
    /// (`running`: never lent).
    fn adopt_current_thread(self: &Arc<Registry>, index: usize) {
        let worker = &self.workers[index];
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        worker.owner().running.set(true);
        // Busy from now (every worker is counted idle at the start).
        self.idle.leave();
        ADOPTED.with(|a| *a.borrow_mut() = Some(Arc::clone(self)));
    }

    /// The global pool's registry when nobody configured it (`global_registry`).
    pub(crate) fn start_default() -> Result<Arc<Registry>, BuildError> {
        let start = Start {
            threads: default_threads(),
            config: ThreadConfig {
                stack_size: DEFAULT_STACK,
                ..ThreadConfig::default()
            },
            max_blocking: DEFAULT_MAX_BLOCKING,
            ..Start::default()
        };
        match Registry::start(start, &mut DefaultSpawn) {
            // The global pool is never dropped: its threads are not joined.
            (registry, _threads, None) => Ok(registry),
            (registry, _threads, Some(error)) => {
                registry.shut_down();
                Err(error)
            }
        }
    }

    /// Stops the pool and returns at once, as rayon's `ThreadPool` drop: the threads finish
    /// the queued work and exit unjoined, the last freeing the registry.
    pub(crate) fn shut_down(&self) {
        // A thread adopted by `use_current_thread` leaves the pool first.
        let adopted = ADOPTED.with(|a| a.borrow().as_ref().is_some_and(|r| ptr::eq(&**r, self)));
        if adopted {
            CURRENT.with(|c| c.set(outside()));
            ADOPTED.with(|a| a.borrow_mut().take());
        }
        self.terminate();
    }
}

/// Workers get 16 MiB stacks unless told otherwise: deep recursions (UTS, sorting) are the
/// point of a fork/join pool, and untouched stack costs only address space.
pub(crate) const DEFAULT_STACK: usize = 16 * 1024 * 1024;
/// The most workers a pool may have (rayon's `max_num_threads`); more are reduced to it.
pub(crate) const MAX_THREADS: usize = 0xFFFF;

/// Spare threads for blocked ones, at most (the JDK pool's `DEFAULT_MAX_SPARES` is 256).
pub(crate) const DEFAULT_MAX_BLOCKING: usize = 256;

/// forkjoin's variable for the default number of workers, read first.
const THREADS_VAR: &str = "FORKJOIN_NUM_THREADS";
/// rayon's variable, read as rayon 1.12 reads it, so that a rayon program keeps its setting.
const RAYON_THREADS_VAR: &str = "RAYON_NUM_THREADS";
/// rayon's deprecated name for `RAYON_NUM_THREADS`, still read by rayon after it.
const RAYON_OLD_THREADS_VAR: &str = "RAYON_RS_NUM_CPUS";

/// The number of workers of a pool built without `threads(n)` (or with `threads(0)`), read at
/// each build: `FORKJOIN_NUM_THREADS` if set (0: one per core; not a number: reported once on
/// stderr and ignored), else rayon 1.12's rules (`RAYON_NUM_THREADS`, then the deprecated
/// `RAYON_RS_NUM_CPUS`), else one per available core.
pub(crate) fn default_threads() -> usize {
    threads_from(|name| std::env::var_os(name)).min(MAX_THREADS)
}

/// `default_threads` over an environment given as a lookup (for tests).
pub(super) fn threads_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> usize {
    let cores = || {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    };
    // What rayon 1.12 does (`ThreadPoolBuilder::get_num_threads`): `env::var`, so a value
    // that is not UTF-8 counts as unset, then `usize::from_str`; 0 means the default.
    let rayon = || {
        let number = |name| var(name)?.into_string().ok()?.parse::<usize>().ok();
        number(RAYON_THREADS_VAR)
            .or_else(|| number(RAYON_OLD_THREADS_VAR))
            .filter(|&n| n > 0)
            .unwrap_or_else(cores)
    };
    let Some(value) = var(THREADS_VAR) else {
        return rayon();
    };
    match value.to_str().and_then(|v| v.parse::<usize>().ok()) {
        Some(0) => cores(),
        Some(n) => n,
        None => {
            let threads = rayon();
            warn_threads_var(&value, threads);
            threads
        }
    }
}

/// Reports an unusable `FORKJOIN_NUM_THREADS`, on the first call only.
#[cold]
fn warn_threads_var(value: &OsStr, threads: usize) {
    // std's, also under loom (a `static`): it only picks the call that prints.
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    // Relaxed: only decides which call prints; nothing else is published through it.
    if !WARNED.swap(true, Relaxed) {
        print_error_line(format_args!(
            "forkjoin: ignoring {THREADS_VAR}={value:?}: not a number of threads; \
             using {threads} (from {RAYON_THREADS_VAR} if set, else one per available core)"
        ));
    }
}

#[cfg(target_os = "linux")]
pub(crate) fn allowed_cores() -> Result<Vec<usize>, BuildError> {
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
pub(crate) fn allowed_cores() -> Result<Vec<usize>, BuildError> {
    Err(BuildError::Pinning(
        "pinning is implemented for Linux only".into(),
    ))
}

/// Pins the calling thread to `core` (see `PoolBuilder::pin_threads`).
#[cfg(target_os = "linux")]
pub(crate) fn pin_current_thread(core: usize) {
    // SAFETY: as above; a failure (the mask changed) leaves the thread unpinned, still correct.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Pinning is implemented for Linux only (`allowed_cores` refuses elsewhere).
#[cfg(not(target_os = "linux"))]
pub(crate) fn pin_current_thread(_core: usize) {}

/// One worker thread to start, handed to a spawn handler: the handler starts a thread (as
/// it likes) that calls [`run`](Self::run).
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .spawn_handler(|thread| {
///         let mut b = std::thread::Builder::new();
///         if let Some(name) = thread.name() {
///             b = b.name(name.to_owned());
///         }
///         b.spawn(|| thread.run())?;
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(forkjoin::current_num_threads), 2);
/// ```
pub struct ThreadBuilder {
    pub(crate) registry: Arc<Registry>,
    pub(crate) index: usize,
    pub(crate) name: Option<String>,
    pub(crate) stack_size: Option<usize>,
    /// The stack `DefaultSpawn` gives when the program chose none.
    pub(crate) default_stack: usize,
}

impl ThreadBuilder {
    /// The worker's index in its pool.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name the program gave the thread (`PoolBuilder::thread_name`), `None` if it gave
    /// none, as in rayon (the pool's own threads are then named `forkjoin-<index>`).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size the program asked for (`PoolBuilder::stack_size`), in bytes; `None`
    /// if it asked for none, as in rayon (the pool's own threads then get 16 MiB).
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the calling thread until the pool is dropped and its work is done.
    pub fn run(self) {
        if let Some(cores) = &self.registry.config.cores {
            pin_current_thread(cores[self.index % cores.len()]);
        }
        self.registry.worker_main(self.index);
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish()
    }
}

/// How a builder starts its threads (rayon's `ThreadSpawn`, sealed).
pub trait ThreadSpawn: private::Sealed {
    /// Starts one worker thread; returns its handle if there is one (the pool reads its
    /// threads' CPU time through it; dropping the pool joins no thread).
    #[doc(hidden)]
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>>;
}

mod private {
    pub trait Sealed {}
}

/// The pool starts its threads itself (std threads, ending on their own once it is dropped).
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl private::Sealed for DefaultSpawn {}

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        let name = match thread.name() {
            Some(name) => name.to_owned(),
            None => format!("forkjoin-{}", thread.index),
        };
        SpawnBuilder::new()
            .name(name)
            .stack_size(thread.stack_size().unwrap_or(thread.default_stack))
            .spawn(move || thread.run())
            .map(Some)
    }
}

/// The program starts the threads, through `PoolBuilder::spawn_handler`'s closure. The pool
/// does not join them: dropping it ends them, and they exit on their own (as rayon's).
pub struct CustomSpawn<F>(pub(crate) F);

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn")
    }
}

impl<F: FnMut(ThreadBuilder) -> io::Result<()>> private::Sealed for CustomSpawn<F> {}

impl<F: FnMut(ThreadBuilder) -> io::Result<()>> ThreadSpawn for CustomSpawn<F> {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        (self.0)(thread).map(|()| None)
    }
}

#[cfg(all(test, loom))]
pub(super) mod model_pool {
    //! A loom model's pool, started as `PoolBuilder::build` starts one and stopped as its drop
    //! but joined; and a thread with a worker's stack for the model's body (loom gives 32 KiB).

    use super::{DefaultSpawn, Registry, Start, ThreadConfig};
    use crate::sync::{JoinHandle, SpawnBuilder};
    use std::sync::Arc;

    /// The workers' stacks: loom takes the size in words, so 1 MiB.
    const STACK_WORDS: usize = 1 << 17;

    pub(crate) fn start(
        threads: usize,
        use_current_thread: bool,
        caller_runs: Option<usize>,
    ) -> (Arc<Registry>, Vec<JoinHandle<()>>) {
        let start = Start {
            threads,
            caller_runs,
            config: ThreadConfig {
                stack_size: STACK_WORDS,
                ..ThreadConfig::default()
            },
            max_blocking: 0,
            thread_name: None,
            stack_size_chosen: false,
            use_current_thread,
        };
        match Registry::start(start, &mut DefaultSpawn) {
            (registry, handles, None) => (registry, handles),
            (_, _, Some(error)) => panic!("a model's pool did not start: {error}"),
        }
    }

    pub(crate) fn stop(registry: Arc<Registry>, handles: Vec<JoinHandle<()>>) {
        registry.shut_down();
        for handle in handles {
            handle.join().expect("a worker of a model's pool panicked");
        }
    }

    pub(crate) fn on_large_stack(body: impl FnOnce() + Send + 'static) {
        SpawnBuilder::new()
            .stack_size(STACK_WORDS)
            .spawn(body)
            .expect("loom starts a thread")
            .join()
            .expect("a model's body panicked");
    }
}
