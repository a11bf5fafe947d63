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
// Under `--cfg loom` only the model-checked modules are built, without their users.
#![cfg_attr(loom, allow(dead_code))]

#[cfg(not(loom))]
mod blocking;
#[cfg(not(loom))]
mod broadcast;
#[cfg(not(loom))]
mod build_error;
#[cfg(doctest)]
mod compile_fail;
mod counter;
mod deque;
mod frame_counts;
mod lineage;
mod padded;
mod sync;

#[cfg(not(loom))]
pub mod iter;
#[cfg(not(loom))]
pub mod prelude;
#[cfg(not(loom))]
pub use iter::sources::{
    array, collections, option, range, range_inclusive, result, slice, str, string, vec,
};
#[cfg(not(loom))]
mod clock;
#[cfg(not(loom))]
mod configuration;
#[cfg(all(feature = "profile", not(loom)))]
pub mod instrument;
#[cfg(not(loom))]
mod job;
#[cfg(not(loom))]
mod join;
#[cfg(not(loom))]
mod latch;
// Under loom, only the latch a thread outside the pool waits on.
#[cfg(loom)]
mod latch {
    pub(crate) mod outside;
}
#[cfg(not(loom))]
mod panic;
#[cfg(not(loom))]
mod pool;
#[cfg(not(loom))]
mod profile_hooks;
#[cfg(not(loom))]
mod program_profile;
#[cfg(not(loom))]
mod registry;
// Under loom, only the registry's model-checked parts, without the rest of the registry.
#[cfg(loom)]
mod registry {
    pub(crate) mod compensation;
    pub(crate) mod idle;
}
#[cfg(not(loom))]
mod scope;
#[cfg(not(loom))]
mod scope_fifo;
#[cfg(not(loom))]
mod stats;
#[cfg(not(loom))]
mod task;
#[cfg(not(loom))]
mod yielding;

#[cfg(not(loom))]
pub use blocking::blocking;
#[cfg(not(loom))]
pub use build_error::BuildError;
#[allow(deprecated)]
#[cfg(not(loom))]
pub use configuration::{initialize, Configuration};
#[cfg(not(loom))]
pub use iter::loops::{
    for_each, for_each_slice, for_each_slice_mut, map_reduce, map_reduce_deterministic,
    map_reduce_slice, map_reduce_slice_deterministic, DETERMINISTIC_LEAF,
};
#[cfg(not(loom))]
pub use join::{join, join_context, FnContext};
#[cfg(not(loom))]
pub use panic::Panic;
#[cfg(not(loom))]
pub use pool::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    max_num_threads, spawn, spawn_broadcast, spawn_fifo, BroadcastContext, Pool, PoolBuilder,
};
#[cfg(not(loom))]
pub use registry::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
#[cfg(not(loom))]
pub use scope_fifo::{in_place_scope_fifo, scope_fifo, ScopeFifo};

/// rayon's name for [`Pool`]: a rayon program's `ThreadPool` is this pool.
#[cfg(not(loom))]
pub type ThreadPool = Pool;
/// rayon's name for [`PoolBuilder`] (`ThreadPoolBuilder::new().num_threads(n).build()`).
#[cfg(not(loom))]
pub type ThreadPoolBuilder<S = DefaultSpawn> = PoolBuilder<S>;
/// rayon's name for [`BuildError`].
#[cfg(not(loom))]
pub type ThreadPoolBuildError = BuildError;
#[cfg(not(loom))]
pub use scope::{in_place_scope, scope, Scope};
#[cfg(not(loom))]
pub use stats::{Stats, WorkerStats};
#[cfg(not(loom))]
pub use task::Task;
#[cfg(not(loom))]
pub use yielding::{yield_local, yield_now, Yield};
