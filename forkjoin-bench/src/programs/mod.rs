//! The benchmark programs. Each program has a sequential version (the same code with
//! `join` replaced by two plain calls, or, for the parallel-iterator programs of
//! [`par_iter`], with std's iterators), a forkjoin version, a rayon version and, where its
//! API fits, a chili version, and checks its own answer.

use std::sync::atomic::{AtomicU64, Ordering};

/// Problem sizes: `Test` is tiny (every program in well under a second), `Default` is the
/// suite's default run, `Paper` the sizes of Lea's paper (the programs not in the paper
/// say in their documentation what they use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Test,
    Default,
    Paper,
}

/// The runtime a run uses. The harness has already entered the runtime's pool: a
/// forkjoin run executes inside `Pool::install`, a rayon run inside `ThreadPool::install`,
/// and a chili run gets the pool's scope.
pub enum Ctx<'a, 's> {
    Sequential,
    Forkjoin,
    Rayon,
    Chili(&'a mut chili::Scope<'s>),
    /// forkjoin for the top joins only, timed below them: `fj validate`'s co-run
    /// measurement (see [`SplitRun`]). Inside `Pool::install` too.
    Split(&'a SplitRun),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runtime {
    Sequential,
    Forkjoin,
    Rayon,
    Chili,
    Java,
}

impl Runtime {
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Sequential => "sequential",
            Runtime::Forkjoin => "forkjoin",
            Runtime::Rayon => "rayon",
            Runtime::Chili => "chili",
            Runtime::Java => "java",
        }
    }
}

/// One prepared instance of a program at one size: input built, ready to run many times.
pub trait Workload: Send {
    /// Restores the input before a timed run (e.g. re-copies the unsorted keys). Not timed.
    fn reset(&mut self) {}
    /// Runs the computation once with `ctx`. Timed. Keeps whatever `verify` needs.
    fn run(&mut self, ctx: &mut Ctx<'_, '_>);
    /// Checks the answer of the last `run` against a known value or the sequential result.
    /// The error says what was expected and what was found.
    fn verify(&self) -> Result<(), String>;
    /// Which runtimes this program supports (sequential, forkjoin and rayon always).
    fn supports(&self, rt: Runtime) -> bool {
        matches!(rt, Runtime::Sequential | Runtime::Forkjoin | Runtime::Rayon)
    }
    /// Tasks forked by one run (joins plus spawns), where the program can count them
    /// (for the paper's task-rate figure). `None` if not known.
    fn tasks_per_run(&self) -> Option<u64> {
        None
    }
    /// The Java peer's program and parameters (`peers/java/README.md`) for the same
    /// computation at this workload's size, e.g. `["fib", "40", "13"]`. `None`: not stated
    /// here, and the harness's own table (`java::java_args`) decides, which also knows the
    /// programs without a Java equivalent.
    fn java_args(&self) -> Option<Vec<String>> {
        None
    }
}

/// The one place where the programs fork: each algorithm is written once, generic over
/// `J: Join`, so the sequential baseline is exactly the parallel code with `join` replaced
/// by two plain calls, compiled with the same flags.
pub trait Join: Sized {
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// Two plain calls: the sequential baseline.
pub struct Seq;
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
pub struct CountJoins(pub u64);

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

/// Helpers for the programs' unit tests: run a workload on every runtime with two workers.
#[cfg(test)]
pub mod testkit {
    use super::{Ctx, Runtime, Workload};
    use std::num::NonZero;

    pub const RUNTIMES: [Runtime; 4] = [
        Runtime::Sequential,
        Runtime::Forkjoin,
        Runtime::Rayon,
        Runtime::Chili,
    ];

    /// `reset` then `run` on `rt` (inside a fresh two-thread pool), then `verify`.
    pub fn run_on(w: &mut dyn Workload, rt: Runtime) -> Result<(), String> {
        w.reset();
        match rt {
            Runtime::Sequential => w.run(&mut Ctx::Sequential),
            Runtime::Forkjoin => forkjoin::Pool::new(2)
                .unwrap()
                .install(|| w.run(&mut Ctx::Forkjoin)),
            Runtime::Rayon => rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap()
                .install(|| w.run(&mut Ctx::Rayon)),
            Runtime::Chili => {
                let pool = chili::ThreadPool::with_config(chili::Config {
                    thread_count: NonZero::new(2),
                    ..Default::default()
                });
                let mut scope = pool.scope();
                w.run(&mut Ctx::Chili(&mut scope));
            }
            Runtime::Java => unreachable!("not a Rust runtime"),
        }
        w.verify()
    }

    /// Runs `w` twice on each runtime it supports (the second run checks that `reset`
    /// restores the input) and panics on the first failed `verify`. Every program of
    /// this directory supports all four runtimes, which this asserts too.
    pub fn check_all_runtimes(w: &mut dyn Workload) {
        for rt in RUNTIMES {
            assert!(w.supports(rt), "{} not supported", rt.name());
            for round in 0..2 {
                if let Err(e) = run_on(w, rt) {
                    panic!("{} run {round}: {e}", rt.name());
                }
            }
        }
        // `fj validate`'s split runs compute the same answer.
        let pool = forkjoin::Pool::new(2).unwrap();
        let split = super::SplitRun::new(2);
        w.reset();
        pool.install(|| w.run(&mut Ctx::Split(&split)));
        if let Err(e) = w.verify() {
            panic!("split run: {e}");
        }
    }
}

/// A `Join` that forwards to a runtime's free `join` function.
macro_rules! join_through {
    ($(#[$doc:meta])* $name:ident, $join:path) => {
        $(#[$doc])*
        pub struct $name;
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
pub struct Chili<'a, 's>(pub &'a mut chili::Scope<'s>);
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
                a(unsafe { std::mem::transmute::<&mut Chili<'_, '_>, &mut Self>(&mut c) })
            },
            |s| {
                // SAFETY: as above.
                let mut c: Chili<'_, '_> = Chili(unsafe {
                    std::mem::transmute::<&mut chili::Scope<'_>, &mut chili::Scope<'_>>(s)
                });
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
pub struct SplitRun {
    levels: u32,
    busy_ns: AtomicU64,
    /// Subtrees timed, for the tests.
    #[cfg(test)]
    subtrees: AtomicU64,
}

impl SplitRun {
    pub fn new(levels: u32) -> SplitRun {
        SplitRun {
            levels,
            busy_ns: AtomicU64::new(0),
            #[cfg(test)]
            subtrees: AtomicU64::new(0),
        }
    }

    /// The `Join` a program's run starts with.
    pub fn join(&self) -> Split<'_> {
        Split {
            levels: self.levels,
            run: self,
        }
    }

    /// The time the timed subtrees took, summed, since the last call (which clears it).
    pub fn take_busy_seconds(&self) -> f64 {
        // Relaxed: read after the run, which the pool's `install` has joined (its return
        // happens after every job of the run), so every addition is visible.
        self.busy_ns.swap(0, Ordering::Relaxed) as f64 * 1e-9
    }

    /// How many subtrees were timed since the last call (which clears it).
    #[cfg(test)]
    pub fn take_subtrees(&self) -> u64 {
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
pub struct Split<'a> {
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

/// A program of the suite: its name, a one-line description, and a factory.
pub struct Program {
    pub name: &'static str,
    pub about: &'static str,
    pub make: fn(Size) -> Box<dyn Workload>,
}

pub mod fib;
pub mod ft;
pub mod integrate;
pub mod jacobi;
pub mod lu;
pub mod matmul;
pub mod micro;
pub mod nqueens;
pub mod par_iter;
pub mod sort;
pub mod submit;
pub mod uts;

/// Every program of the suite, in the order the report lists them.
pub fn all() -> Vec<Program> {
    let mut v = Vec::new();
    v.extend(fib::programs());
    v.extend(integrate::programs());
    v.extend(micro::programs());
    v.extend(sort::programs());
    v.extend(matmul::programs());
    v.extend(lu::programs());
    v.extend(jacobi::programs());
    v.extend(submit::programs());
    v.extend(ft::programs());
    v.extend(nqueens::programs());
    v.extend(uts::programs());
    v.extend(par_iter::programs());
    v
}
