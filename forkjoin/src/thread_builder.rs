//! Who starts a pool's threads: the pool itself (`DefaultSpawn`), or the program, through
//! `PoolBuilder::spawn_handler` (rayon's `ThreadBuilder`, `build_scoped`): so that workers
//! can run inside a scope of the program's own, with its thread-locals or its allocator.

use crate::registry::Registry;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;

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
}

impl ThreadBuilder {
    /// The worker's index in its pool.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name the pool gives the thread (`PoolBuilder::thread_name`, else
    /// `forkjoin-<index>`).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size the pool asks for, in bytes.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the calling thread until the pool is dropped and its work is
    /// done.
    pub fn run(self) {
        if let Some(cores) = &self.registry.config.cores {
            crate::pool::pin_current_thread(cores[self.index % cores.len()]);
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
    /// Starts one worker thread; returns its handle if the pool may join it on drop.
    #[doc(hidden)]
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>>;

    /// Whether the threads may carry the user's own setup (a spawn handler's wrapper,
    /// thread-local values it sets): then a call from outside runs on them, as in rayon,
    /// never on the caller in a borrowed slot.
    #[doc(hidden)]
    const SETS_UP_THREADS: bool = true;
}

mod private {
    pub trait Sealed {}
}

/// The pool starts its threads itself (std threads, joined when the pool is dropped).
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl private::Sealed for DefaultSpawn {}

impl ThreadSpawn for DefaultSpawn {
    const SETS_UP_THREADS: bool = false;

    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        let mut b = std::thread::Builder::new();
        if let Some(name) = thread.name() {
            b = b.name(name.to_owned());
        }
        if let Some(size) = thread.stack_size() {
            b = b.stack_size(size);
        }
        b.spawn(move || thread.run()).map(Some)
    }
}

/// The program starts the threads, through the closure given to
/// `PoolBuilder::spawn_handler`. The pool does not join them: dropping it ends them, and
/// they exit on their own (as rayon's).
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
