//! The runtime's primitives: `std`'s, or `loom`'s under `--cfg loom` (one facade, no `cfg`
//! where they are used). What loom cannot stand in for stays `std`'s: `Arc` (no `new_cyclic`
//! nor `Weak`), statistics counters (`crate::counter`) and `static`s.

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub(crate) use loom::thread::{
    current as current_thread, park, yield_now, Builder as SpawnBuilder, JoinHandle, Thread,
};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::thread::{
    current as current_thread, park, yield_now, Builder as SpawnBuilder, JoinHandle, Thread,
};

#[cfg(not(loom))]
pub(crate) use std::time::Instant;
#[cfg(loom)]
pub(crate) use still_time::Instant;

/// Locks `m`, poisoned or not: nothing panics while the runtime holds a lock, but a poisoned
/// lock must not stop a pool.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Under loom time stands still (as `crate::clock::now`): a model explores orders, not
/// durations, and each of its runs must take the branches the one before took.
#[cfg(loom)]
mod still_time {
    use std::ops::{Add, Sub};
    use std::time::Duration;

    /// `std::time::Instant`'s methods the runtime calls, at a time that never moves.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub(crate) struct Instant(Duration);

    impl Instant {
        pub(crate) fn now() -> Instant {
            Instant(Duration::ZERO)
        }

        pub(crate) fn duration_since(&self, earlier: Instant) -> Duration {
            self.0.saturating_sub(earlier.0)
        }
    }

    impl Add<Duration> for Instant {
        type Output = Instant;

        fn add(self, d: Duration) -> Instant {
            Instant(self.0 + d)
        }
    }

    impl Sub for Instant {
        type Output = Duration;

        fn sub(self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }
    }
}

/// `std::thread_local!`; under loom, loom's (its threads share one OS thread, its values live
/// one execution), where a `const { .. }` initialiser runs at each thread's first use.
#[cfg(not(loom))]
pub(crate) use std::thread_local;

#[cfg(loom)]
macro_rules! loom_thread_local {
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }$(;)?) => {
        loom::thread_local!($(#[$attr])* $vis static $name: $t = $init);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr$(;)?) => {
        loom::thread_local!($(#[$attr])* $vis static $name: $t = $init);
    };
}
#[cfg(loom)]
pub(crate) use loom_thread_local as thread_local;

/// A `const fn` whose body builds atomics: a plain `fn` under loom, whose atomics are made
/// inside an execution and are not `const`.
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis const fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$attr])* $vis const fn $($rest)*
        #[cfg(loom)]
        $(#[$attr])* $vis fn $($rest)*
    };
}
pub(crate) use const_fn;

/// A `static` whose value holds atomics, and `const fn $addr()`, a reference to it (usable in
/// a `const` thread-local's initialiser). Under loom, whose atomics live one execution, a
/// value built afresh in each (loom's `lazy_static!`), and `$addr` a plain `fn`.
macro_rules! static_with_atomics {
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; fn $addr:ident;) => {
        #[cfg(not(loom))]
        $(#[$attr])* $vis static $name: $t = $init;
        #[cfg(loom)]
        loom::lazy_static! {
            $(#[$attr])* static ref $name: $t = $init;
        }
        /// A reference to the static of the same name.
        #[cfg(not(loom))]
        #[inline(always)]
        $vis const fn $addr() -> &'static $t {
            &$name
        }
        /// A reference to the static of the same name (this execution's).
        #[cfg(loom)]
        $vis fn $addr() -> &'static $t {
            &$name
        }
    };
}
pub(crate) use static_with_atomics;

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

/// `model` over a real pool (`registry::thread::model_pool`): at most `preemptions`
/// preemptions unless `LOOM_MAX_PREEMPTIONS` says otherwise (a pool's threads take many
/// steps, each a branch point), and room for the branches of a run that starts and stops one.
#[cfg(all(test, loom))]
pub(crate) fn model_of_pool(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    const POOL_BRANCHES: usize = 20_000;
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(preemptions);
    }
    builder.max_branches = builder.max_branches.max(POOL_BRANCHES);
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
