//! The `fj` commands.

pub mod bench;
pub mod ft;
pub mod profile;
pub mod uts;
