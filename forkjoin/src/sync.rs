//! The lock-free parts' primitives: `std`'s, or `loom`'s under `--cfg loom` (then only the
//! deque, the sleep protocol, the idle policy, the compensation counts and the outside
//! waiter's latch are built; the rest needs real threads).

// `AtomicU64` serves the registry, which loom does not build yet.
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub(crate) use loom::thread::{current as current_thread, park, yield_now, Thread};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::thread::{current as current_thread, park, yield_now, Thread};

/// A loom model check of every interleaving with at most three preemptions (as tokio bounds
/// it; the races here need two), unless `LOOM_MAX_PREEMPTIONS` says otherwise.
#[cfg(all(test, loom))]
pub(crate) fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}

/// The owner's half of an asymmetric Dekker fence (DESIGN.md, section 4, "Claimed from a
/// stalled worker"): only the compiler is held back; `heavy_barrier` drains this thread's
/// store buffer. Under loom and Miri, which know no such syscall, a SeqCst fence.
#[inline(always)]
pub(crate) fn light_barrier() {
    #[cfg(any(loom, miri))]
    fence(std::sync::atomic::Ordering::SeqCst);
    #[cfg(not(any(loom, miri)))]
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// The other half: a full fence on every running thread of the process (Linux's
/// `membarrier`, private expedited). False where the system offers none.
pub(crate) fn heavy_barrier() -> bool {
    #[cfg(any(loom, miri))]
    {
        fence(std::sync::atomic::Ordering::SeqCst);
        true
    }
    #[cfg(all(not(any(loom, miri)), target_os = "linux"))]
    {
        membarrier::heavy()
    }
    #[cfg(all(not(any(loom, miri)), not(target_os = "linux")))]
    {
        false
    }
}

#[cfg(all(not(any(loom, miri)), target_os = "linux"))]
mod membarrier {
    use std::sync::atomic::AtomicU8;
    use std::sync::atomic::Ordering::Relaxed;

    // membarrier(2)'s commands (linux/membarrier.h); the libc crate has only its number.
    const QUERY: libc::c_long = 0;
    const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    /// 0: not tried yet; 1: registered; 2: not offered.
    static STATE: AtomicU8 = AtomicU8::new(0);

    fn membarrier(cmd: libc::c_long) -> libc::c_long {
        // SAFETY: membarrier takes two integers and touches no memory of ours.
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                cmd,
                0 as libc::c_long,
                0 as libc::c_long,
            )
        }
    }

    pub(super) fn heavy() -> bool {
        // Relaxed: the state carries no data; a thread seeing 0 registers again (allowed).
        let mut state = STATE.load(Relaxed);
        if state == 0 {
            let offered = membarrier(QUERY);
            state = if offered >= 0
                && offered & PRIVATE_EXPEDITED != 0
                && membarrier(REGISTER_PRIVATE_EXPEDITED) == 0
            {
                1
            } else {
                2
            };
            STATE.store(state, Relaxed);
        }
        state == 1 && membarrier(PRIVATE_EXPEDITED) == 0
    }
}
