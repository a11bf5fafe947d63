//! Cache-line padding (seed 003's false-sharing lesson, seed 004's Disruptor cursors).

use std::ops::Deref;

/// Aligns and pads `T` to 128 bytes: a 64-byte line plus the adjacent line that Intel's
/// spatial prefetcher pulls in with it, so two padded values never share either.
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> Deref for CachePadded<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}
