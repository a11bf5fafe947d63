//! The profiler's hooks in the scheduler, one interface with two implementations: the
//! instrument (`strands`, feature `profile`) and a do-nothing twin (`off`), so that the
//! scheduler's files carry no `cfg` and a build without the feature compiles none of it.
//!
//! - `ProfilingFlag`: a registry field; while set, joins take the slow path and loops
//!   split all the way down.
//! - `open_join`, `OpenJoin::timed`, `OpenJoin::close`: a join inside a timed closure.
//! - `detached`: a job taken from a queue runs outside any strand.

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
