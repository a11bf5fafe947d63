//! The profiler's hooks in the scheduler (DESIGN.md, section 12): the instrument (`strands`,
//! feature `profile`) or a do-nothing twin (`off`), so the scheduler carries no `cfg`:
//! `ProfilingFlag` (while set, joins take the slow path and loops split wherever the rest is worth sharing),
//! `open_join`, `OpenJoin::timed` and `close` (a join inside a timed closure), `detached`
//! (a job taken from a queue runs outside any strand) and `open_tasks` (a scope's or a
//! broadcast's tasks, timed for the closure that waits for them).

#[cfg(feature = "profile")]
pub(crate) mod graph;
#[cfg(feature = "profile")]
mod strands;
#[cfg(feature = "profile")]
pub use strands::*;

#[cfg(not(feature = "profile"))]
mod off;
#[cfg(not(feature = "profile"))]
pub(crate) use off::*;
