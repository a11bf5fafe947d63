//! The benchmark programs. Each program has a sequential version (the same code with
//! `join` replaced by two plain calls, or, for the parallel-iterator programs of
//! [`par_iter`], with std's iterators), a forkjoin version, a rayon version and, where its
//! API fits, a chili version, and checks its own answer.

use crate::join::SplitRun;

/// Problem sizes: `Test` is tiny (every program in well under a second), `Default` is the
/// suite's default run, `Paper` the sizes of Lea's paper (the programs not in the paper
/// say in their documentation what they use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    Test,
    Default,
    Paper,
}

/// The runtime a run uses. The harness has already entered the runtime's pool: a
/// forkjoin run executes inside `Pool::install`, a rayon run inside `ThreadPool::install`,
/// and a chili run gets the pool's scope.
pub(crate) enum Ctx<'a, 's> {
    Sequential,
    Forkjoin,
    Rayon,
    Chili(&'a mut chili::Scope<'s>),
    /// forkjoin for the top joins only, timed below them: `fj validate`'s co-run
    /// measurement (see [`SplitRun`]). Inside `Pool::install` too.
    Split(&'a SplitRun),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Runtime {
    Sequential,
    Forkjoin,
    Rayon,
    Chili,
    Java,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
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
pub(crate) trait Workload: Send {
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

/// Helpers for the programs' unit tests: run a workload on every runtime with two workers.
#[cfg(test)]
pub(crate) mod testkit {
    use super::{Ctx, Runtime, Workload};
    use std::num::NonZero;

    pub(crate) const RUNTIMES: [Runtime; 4] = [
        Runtime::Sequential,
        Runtime::Forkjoin,
        Runtime::Rayon,
        Runtime::Chili,
    ];

    /// `reset` then `run` on `rt` (inside a fresh two-thread pool), then `verify`.
    pub(crate) fn run_on(w: &mut dyn Workload, rt: Runtime) -> Result<(), String> {
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
    pub(crate) fn check_all_runtimes(w: &mut dyn Workload) {
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
        let split = crate::join::SplitRun::new(2);
        w.reset();
        pool.install(|| w.run(&mut Ctx::Split(&split)));
        if let Err(e) = w.verify() {
            panic!("split run: {e}");
        }
    }
}

/// A program of the suite: its name, a one-line description, and a factory.
pub(crate) struct Program {
    pub name: &'static str,
    pub about: &'static str,
    pub make: fn(Size) -> Box<dyn Workload>,
}

pub(crate) mod fib;
pub(crate) mod ft;
pub(crate) mod integrate;
pub(crate) mod jacobi;
pub(crate) mod lu;
pub(crate) mod matmul;
pub(crate) mod micro;
pub(crate) mod nqueens;
pub(crate) mod par_iter;
pub(crate) mod sort;
pub(crate) mod submit;
pub(crate) mod uts;

/// Every program of the suite, in the order the report lists them.
pub(crate) fn all() -> Vec<Program> {
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

/// Why a program cannot be profiled (and so neither calibrated on nor predicted), or `None`
/// if it can.
pub(crate) fn not_modelled(program: &str) -> Option<&'static str> {
    if program.starts_with("submit-") {
        return Some(
            "submits from a thread outside its pool, into a pool of its own: the profiler sees joins on one pool only",
        );
    }
    // See `programs::par_iter`'s module documentation.
    par_iter::is_iterator_program(program).then_some(
        "runs parallel iterators, which fork inside forkjoin's splitter, not through the program's joins: \
         a split run has nothing to split, and a profile forks at every item (up to 10^9 joins)",
    )
}
