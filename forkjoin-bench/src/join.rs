//! How the programs and NAS FT fork: the [`Join`] trait, and a `Join` for every way of
//! running them (the sequential baseline, forkjoin, rayon, chili, `fj validate`'s split
//! runs) plus [`CountJoins`], which counts the joins of a sequential run.
//!
//! The suite's programs and the FT kernel (`ft`) both fork through this module, which
//! imports neither: the programs use the kernel (`ft`), the kernel uses only these joins.

use std::sync::atomic::{AtomicU64, Ordering};

/// The one place where the programs and the FT kernel fork: each algorithm is written once,
/// generic over `J: Join`, so the sequential baseline is exactly the parallel code with
/// `join` replaced by two plain calls, compiled with the same flags.
pub(crate) trait Join: Sized {
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// Two plain calls: the sequential baseline.
pub(crate) struct Seq;
impl Join for Seq {
    #[inline(always)]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        (a(self), b(self))
    }
}

/// A `Join` that runs both closures in order, exactly like `Seq`, and counts the joins.
/// Programs whose task tree depends on the data (integrate, sort) count their tasks with
/// it; the others' tests use it to check their closed-form counts.
pub(crate) struct CountJoins(pub u64);

impl Join for CountJoins {
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.0 += 1;
        (a(self), b(self))
    }
}

/// A `Join` that forwards to a runtime's free `join` function.
macro_rules! join_through {
    ($(#[$doc:meta])* $name:ident, $join:path) => {
        $(#[$doc])*
        pub(crate) struct $name;
        impl Join for $name {
            #[inline(always)]
            fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
            where
                A: FnOnce(&mut Self) -> RA + Send,
                B: FnOnce(&mut Self) -> RB + Send,
                RA: Send,
                RB: Send,
            {
                $join(|| a(&mut $name), || b(&mut $name))
            }
        }
    };
}

join_through!(
    /// `forkjoin::join` (inside the pool the harness installed).
    Fj,
    forkjoin::join
);
join_through!(
    /// `rayon::join` (inside the rayon pool the harness installed).
    Rayon,
    rayon::join
);

/// chili's `Scope::join` (the scope of the pool the harness built).
pub(crate) struct Chili<'a, 's>(pub &'a mut chili::Scope<'s>);
impl Join for Chili<'_, '_> {
    #[inline(always)]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.0.join(
            |s| {
                // SAFETY: only the lifetimes differ: chili hands the closure a scope borrowed
                // for the call, and `Chili` is a plain wrapper around that borrow.
                let mut c: Chili<'_, '_> = Chili(unsafe {
                    std::mem::transmute::<&mut chili::Scope<'_>, &mut chili::Scope<'_>>(s)
                });
                // SAFETY: `Self` is `Chili` with other lifetimes (as above).
                a(unsafe { std::mem::transmute::<&mut Chili<'_, '_>, &mut Self>(&mut c) })
            },
            |s| {
                // SAFETY: as above.
                let mut c: Chili<'_, '_> = Chili(unsafe {
                    std::mem::transmute::<&mut chili::Scope<'_>, &mut chili::Scope<'_>>(s)
                });
                // SAFETY: `Self` is `Chili` with other lifetimes (as above).
                b(unsafe { std::mem::transmute::<&mut Chili<'_, '_>, &mut Self>(&mut c) })
            },
        )
    }
}

/// How much slower a program's work runs while several workers run parts of it at once
/// than alone (the memory bandwidth and shared cache that strands timed on one worker do
/// not see): `fj validate` runs the program with its first `levels` nested joins through
/// forkjoin, so that up to 2^`levels` subtrees run at once on the pool's workers, and
/// everything below as plain calls, and adds up the time each of those subtrees took.
/// That sum on P workers over the same sum on one worker is the slowdown, measured on
/// the program's own data (copies of the program, one per CPU, hold P times as much and
/// overstate it where the data fits the cache once but not P times).
pub(crate) struct SplitRun {
    levels: u32,
    busy_ns: AtomicU64,
    /// Subtrees timed, for the tests.
    #[cfg(test)]
    subtrees: AtomicU64,
}

impl SplitRun {
    pub(crate) fn new(levels: u32) -> SplitRun {
        SplitRun {
            levels,
            busy_ns: AtomicU64::new(0),
            #[cfg(test)]
            subtrees: AtomicU64::new(0),
        }
    }

    /// The `Join` a program's run starts with.
    pub(crate) fn join(&self) -> Split<'_> {
        Split {
            levels: self.levels,
            run: self,
        }
    }

    /// The time the timed subtrees took, summed, since the last call (which clears it).
    pub(crate) fn take_busy_seconds(&self) -> f64 {
        // Relaxed: read after the run, which the pool's `install` has joined (its return
        // happens after every job of the run), so every addition is visible.
        self.busy_ns.swap(0, Ordering::Relaxed) as f64 * 1e-9
    }

    /// How many subtrees were timed since the last call (which clears it).
    #[cfg(test)]
    pub(crate) fn take_subtrees(&self) -> u64 {
        // Relaxed: as in `take_busy_seconds`.
        self.subtrees.swap(0, Ordering::Relaxed)
    }

    fn timed<R>(&self, f: impl FnOnce() -> R) -> R {
        let start = std::time::Instant::now();
        let r = f();
        // Relaxed: counters read only after the run (see `take_busy_seconds`).
        self.busy_ns
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        #[cfg(test)]
        self.subtrees.fetch_add(1, Ordering::Relaxed);
        r
    }
}

/// The `Join` of a [`SplitRun`]: `levels` more joins go through forkjoin, the last of
/// them timing its two closures.
pub(crate) struct Split<'a> {
    levels: u32,
    run: &'a SplitRun,
}

impl Join for Split<'_> {
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let run = self.run;
        match self.levels {
            0 => (a(self), b(self)),
            1 => forkjoin::join(
                || run.timed(|| a(&mut Split { levels: 0, run })),
                || run.timed(|| b(&mut Split { levels: 0, run })),
            ),
            l => forkjoin::join(
                || a(&mut Split { levels: l - 1, run }),
                || b(&mut Split { levels: l - 1, run }),
            ),
        }
    }
}
