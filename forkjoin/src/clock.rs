//! A cheap monotonic clock: the time-stamp counter where there is one (cheaper to read than
//! `Instant::now`), else nanoseconds since the first read.
//! The splitter times its chunks with it, a thread that borrowed a worker's slot its run, and
//! the profiler every strand.

use std::sync::OnceLock;
use std::time::Instant;

/// The current tick count; never 0.
#[inline(always)]
pub(crate) fn now() -> u64 {
    // Under loom time stands still (see `crate::sync::still_time`).
    #[cfg(loom)]
    {
        1
    }
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        // SAFETY: `rdtsc` is available on every x86-64 CPU and has no side effects.
        unsafe { core::arch::x86_64::_rdtsc() | 1 }
    }
    #[cfg(all(not(all(target_arch = "x86_64", not(miri))), not(loom)))]
    {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64 | 1
    }
}

/// How many ticks make `ns` nanoseconds.
pub(crate) fn ticks(ns: u64) -> u64 {
    ns * per_microsecond() / 1000
}

/// Ticks per microsecond.
pub(crate) fn per_microsecond() -> u64 {
    static PER_MICROSECOND: OnceLock<u64> = OnceLock::new();
    *PER_MICROSECOND.get_or_init(measure_per_microsecond)
}

/// Ticks per microsecond, measured once against `Instant` over 200 us.
fn measure_per_microsecond() -> u64 {
    if cfg!(any(not(all(target_arch = "x86_64", not(miri))), loom)) {
        return 1000;
    }
    let start = Instant::now();
    let first = now();
    while start.elapsed().as_micros() < 200 {
        std::hint::spin_loop();
    }
    let ticks = now() - first;
    let us = start.elapsed().as_micros().max(1) as u64;
    (ticks / us).max(1)
}
