//! Cache-line padding (false sharing: "Multithreaded multicore optimisation", "lazySet").

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
