//! The profiler's hooks in the scheduler: the instrument (`strands`, feature `profile`) or a
//! do-nothing twin (`off`), so the scheduler carries no `cfg` (DESIGN.md, section 12).

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
