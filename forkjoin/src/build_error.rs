//! Why a pool could not be built (`BuildError`, rayon's `ThreadPoolBuildError`).

use std::fmt;
use std::io;

/// No machine this runs on has more than 2^47 bytes of user address space per process.
pub(crate) const MAX_STACK: usize = 1 << 47;

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
    /// `build_global` was called after the global pool had been started, by an earlier
    /// `build_global` or by its first use.
    GlobalPoolAlreadyInitialized,
    /// `use_current_thread`, called on a thread that is already a worker of a pool.
    CurrentThreadInPool,
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
            // rayon's words, which programs and rayon's own tests compare against.
            BuildError::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            BuildError::CurrentThreadInPool => f.write_str(
                "use_current_thread: the current thread is already a worker of a pool",
            ),
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
