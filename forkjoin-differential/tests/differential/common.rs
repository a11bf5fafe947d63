//! Helpers the programs share.

/// The worker counts every program runs at.
pub(crate) const WORKERS: [usize; 3] = [1, 2, 8];
