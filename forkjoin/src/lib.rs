//! # forkjoin
//!
//! A work-stealing fork/join runtime: Doug Lea's Fork/Join design (a worker per core, a
//! deque per worker, LIFO for the owner, FIFO random stealing, joins that help instead of
//! blocking, external submission queues), with joins that cost little more than a function
//! call until another worker actually needs work. `DESIGN.md` at the repository root
//! explains the scheduler.
//!
//! ```
//! fn sum(v: &[u64]) -> u64 {
//!     if v.len() <= 1024 {
//!         return v.iter().sum();
//!     }
//!     let (l, r) = v.split_at(v.len() / 2);
//!     let (a, b) = forkjoin::join(|| sum(l), || sum(r));
//!     a + b
//! }
//! let v: Vec<u64> = (0..100_000).collect();
//! let pool = forkjoin::Pool::new(2).unwrap();
//! assert_eq!(pool.install(|| sum(&v)), 4_999_950_000);
//! ```

#![warn(missing_docs)]
// Under `--cfg loom` the iterators are not built, and what only they use is dead.
#![cfg_attr(loom, allow(dead_code))]

mod blocking;
mod broadcast;
mod build_error;
#[cfg(doctest)]
mod compile_fail;
mod counter;
mod deque;
mod frame_counts;
mod lineage;
mod padded;
mod sync;

// Not under loom: the model checks need the runtime, not its iterators.
#[cfg(not(loom))]
pub mod iter;
#[cfg(not(loom))]
pub mod prelude;
#[cfg(not(loom))]
pub use iter::sources::{
    array, collections, option, range, range_inclusive, result, slice, str, string, vec,
};
mod clock;
mod configuration;
#[cfg(all(feature = "profile", not(loom)))]
pub mod instrument;
mod job;
mod join;
mod latch;
mod panic;
mod pool;
mod profile_hooks;
mod program_profile;
mod registry;
mod scope;
mod scope_fifo;
mod stats;
mod task;
mod yielding;

pub use blocking::blocking;
pub use build_error::BuildError;
#[allow(deprecated)]
pub use configuration::{initialize, Configuration};
#[cfg(not(loom))]
pub use iter::loops::{
    for_each, for_each_slice, for_each_slice_mut, map_reduce, map_reduce_deterministic,
    map_reduce_slice, map_reduce_slice_deterministic, DETERMINISTIC_LEAF,
};
pub use join::{join, join_context, FnContext};
pub use panic::Panic;
pub use pool::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    max_num_threads, spawn, spawn_broadcast, spawn_fifo, BroadcastContext, Pool, PoolBuilder,
};
pub use registry::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
pub use scope_fifo::{in_place_scope_fifo, scope_fifo, ScopeFifo};

/// rayon's name for [`Pool`]: a rayon program's `ThreadPool` is this pool.
pub type ThreadPool = Pool;
/// rayon's name for [`PoolBuilder`] (`ThreadPoolBuilder::new().num_threads(n).build()`).
pub type ThreadPoolBuilder<S = DefaultSpawn> = PoolBuilder<S>;
/// rayon's name for [`BuildError`].
pub type ThreadPoolBuildError = BuildError;
pub use scope::{in_place_scope, scope, Scope};
pub use stats::{Stats, WorkerStats};
pub use task::Task;
pub use yielding::{yield_local, yield_now, Yield};
