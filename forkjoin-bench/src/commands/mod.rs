//! The `fj` commands, one module each.

pub mod bench;
