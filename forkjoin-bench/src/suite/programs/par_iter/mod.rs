//! The parallel-iterator programs: `iter-tiny`, `iter-squares`, `iter-nested`,
//! `iter-map-collect`, `iter-filter-collect`, `iter-zip-dot`, `sort-unstable` and
//! `sort-stable`. They measure `forkjoin::prelude`'s iterators (lazy splitting, no grain
//! size) against rayon's, on the loops people write with them, where the join programs of
//! the rest of the suite measure `join` itself.
//!
//! Each program's body is written once, inside [`on_each_prelude!`], which compiles it
//! three times: with `forkjoin::prelude::*`, with `rayon::prelude::*` (the method names and
//! semantics are the same), and with [`seq::prelude`], which gives std's iterators rayon's
//! names (`into_par_iter` is `into_iter`, `par_iter` is `iter`, `par_sort_unstable` is
//! `sort_unstable`...). So the sequential baseline is exactly the program with std's
//! iterators, forkjoin and rayon run exactly the same code, and all three are compiled with
//! the same flags.
//!
//! None of them has a chili version (chili has no parallel iterators) or a Java one, and
//! none can be profiled or split-run (`fj profile`, `predict` and `validate` skip them, see
//! `suite::programs::not_modelled`): they fork inside forkjoin's splitter, not through
//! the suite's [`Join`](crate::join::Join), so a split run has no joins of the program's
//! own to time, and the profiler's graph of a loop shows it split wherever its rest is
//! worth sharing, which the simulator does not model as the splitter's lazy splits.

use super::sort::splitmix64;
use super::{Ctx, Program, Runtime, Workload};

pub(crate) mod filter_collect;
pub(crate) mod map_collect;
pub(crate) mod nested;
pub(crate) mod seq;
pub(crate) mod sort;
pub(crate) mod squares;
pub(crate) mod tiny;
pub(crate) mod zip_dot;

/// The programs of this directory, in the order the report lists them.
pub(crate) fn programs() -> Vec<Program> {
    let mut v = Vec::new();
    v.extend(tiny::programs());
    v.extend(squares::programs());
    v.extend(nested::programs());
    v.extend(map_collect::programs());
    v.extend(filter_collect::programs());
    v.extend(zip_dot::programs());
    v.extend(sort::programs());
    v
}

/// Whether `name` is one of this directory's programs.
pub(crate) fn is_iterator_program(name: &str) -> bool {
    programs().iter().any(|p| p.name == name)
}

/// Compiles the items given three times, in modules `seq` (std's iterators, through
/// [`seq::prelude`]), `fj` (`forkjoin::prelude`) and `ry` (`rayon::prelude`); each module
/// sees its parent's items. The items are the program's body, written once.
///
/// `on_each_prelude! { seq: [path], fj: [path], ry: [path]; items }` names the three
/// modules whose items each version imports instead (`fj matrix` gives its sequential
/// version a prelude of its own, and each version a `join`).
macro_rules! on_each_prelude {
    (seq: [$($seq:tt)*], fj: [$($fj:tt)*], ry: [$($ry:tt)*]; $($body:item)*) => {
        /// The body with std's iterators: the sequential baseline.
        mod seq {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use $($seq)*::*;
            $($body)*
        }
        /// The body with forkjoin's parallel iterators.
        mod fj {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use $($fj)*::*;
            $($body)*
        }
        /// The body with rayon's parallel iterators.
        mod ry {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use $($ry)*::*;
            $($body)*
        }
    };
    ($($body:item)*) => {
        $crate::suite::programs::par_iter::on_each_prelude! {
            seq: [crate::suite::programs::par_iter::seq::prelude],
            fj: [forkjoin::prelude],
            ry: [rayon::prelude];
            $($body)*
        }
    };
}
pub(crate) use on_each_prelude;

/// A program whose run computes a value from an input made once: the three versions of its
/// body, and the check of a result.
pub(crate) trait Kernel: Send + 'static {
    type Output: Send;
    fn sequential(&self) -> Self::Output;
    fn forkjoin(&self) -> Self::Output;
    fn rayon(&self) -> Self::Output;
    /// `Ok` if `found` is the right answer; else what was expected and what was found.
    fn check(&self, found: &Self::Output) -> Result<(), String>;
}

/// The workload of a [`Kernel`]: runs the version of the context, keeps its result for
/// `verify`. `reset` drops the last result, so that freeing it (a 80 MB vector for the
/// collecting programs) is not timed.
pub(crate) struct Computes<K: Kernel> {
    name: &'static str,
    kernel: K,
    found: Option<Result<K::Output, String>>,
}

impl<K: Kernel> Computes<K> {
    pub(crate) fn new(name: &'static str, kernel: K) -> Computes<K> {
        Computes {
            name,
            kernel,
            found: None,
        }
    }
}

impl<K: Kernel> Workload for Computes<K> {
    fn reset(&mut self) {
        self.found = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let k = &self.kernel;
        self.found = Some(match ctx {
            Ctx::Sequential => Ok(k.sequential()),
            Ctx::Forkjoin => Ok(k.forkjoin()),
            Ctx::Rayon => Ok(k.rayon()),
            Ctx::Chili(_) => Err(unsupported(self.name, Runtime::Chili)),
            Ctx::Split(_) => Err(no_split(self.name)),
        });
    }

    fn verify(&self) -> Result<(), String> {
        match &self.found {
            None => Err(format!("{}: no run to verify", self.name)),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(found)) => self
                .kernel
                .check(found)
                .map_err(|e| format!("{}: {e}", self.name)),
        }
    }

    fn supports(&self, rt: Runtime) -> bool {
        supported(rt)
    }
}

/// The runtimes of every program here: no chili (no parallel iterators), no Java peer.
pub(crate) fn supported(rt: Runtime) -> bool {
    matches!(rt, Runtime::Sequential | Runtime::Forkjoin | Runtime::Rayon)
}

/// The error of a run on a runtime the program does not support.
pub(crate) fn unsupported(program: &str, rt: Runtime) -> String {
    format!(
        "{program} does not support {} (no parallel iterators)",
        rt.name()
    )
}

/// The error of a split run (`fj validate`), which these programs cannot make.
pub(crate) fn no_split(program: &str) -> String {
    format!("{program} has no join tree to split (its loops fork inside forkjoin's splitter)")
}

/// `n` values of splitmix64 from `seed` (`sort`'s generator): the programs' inputs.
pub(crate) fn random_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    (0..n).map(|_| splitmix64(&mut state)).collect()
}

#[cfg(test)]
pub(crate) mod testkit {
    use super::super::testkit::run_on;
    use super::super::{Runtime, Workload};
    use super::supported;

    /// Runs `w` twice on sequential, forkjoin and rayon (the second run checks `reset`)
    /// and panics on the first failed `verify`; checks that chili and split runs are
    /// refused with an error, not a wrong answer or a panic.
    pub(crate) fn check_supported_runtimes(w: &mut dyn Workload) {
        for rt in [Runtime::Sequential, Runtime::Forkjoin, Runtime::Rayon] {
            assert!(w.supports(rt), "{} not supported", rt.name());
            for round in 0..2 {
                if let Err(e) = run_on(w, rt) {
                    panic!("{} run {round}: {e}", rt.name());
                }
            }
        }
        for rt in [Runtime::Chili, Runtime::Java] {
            assert!(!w.supports(rt) && !supported(rt), "{} supported", rt.name());
        }
        let err = run_on(w, Runtime::Chili).expect_err("a chili run is refused");
        assert!(err.contains("chili"), "{err}");
        let pool = forkjoin::Pool::new(2).unwrap();
        let split = super::super::SplitRun::new(1);
        w.reset();
        pool.install(|| w.run(&mut super::super::Ctx::Split(&split)));
        let err = w.verify().expect_err("a split run is refused");
        assert!(err.contains("no join tree"), "{err}");
    }
}
