//! `sort-unstable` and `sort-stable`: the library sorts of the parallel iterators,
//! `par_sort_unstable` and `par_sort`, on 4 million random u64.
//!
//! They measure the sorts a program gets for free from `forkjoin::prelude` (or rayon's),
//! against std's `sort_unstable` (ipnsort, a pattern-defeating quicksort) and `sort`
//! (driftsort, a stable merge sort) as the sequential baselines, where `sort` measures Cilk's hand-written
//! merge sort over `join`. rayon's `par_sort_unstable` is a parallel pdqsort (the two sides
//! of each partition in parallel) and its `par_sort` a parallel merge sort into a buffer.
//!
//! The keys are splitmix64 values over the full 64-bit range (seed 42, as `sort`'s), made
//! once; `reset` copies them back before each run, untimed. Every run is checked to be
//! sorted and a permutation of the input (`sort`'s multiset checksum); `sort-stable` sorts
//! plain u64, whose equal keys are indistinguishable, so it checks the order, not the
//! stability (the sorts' own tests do that).
//!
//! Sizes (keys): Test 100,000, Default 4,000,000, Paper 16,000,000.

use super::super::sort::{splitmix64, Checksum};
use super::{no_split, on_each_prelude, supported, unsupported};
use crate::suite::programs::{Ctx, Program, Runtime, Size, Workload};

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "sort-unstable",
            about: "par_sort_unstable of 4M random u64 against std's sort_unstable",
            make: |size| Box::new(LibrarySort::new(size, Stability::Unstable)),
        },
        Program {
            name: "sort-stable",
            about: "par_sort (stable) of 4M random u64 against std's sort",
            make: |size| Box::new(LibrarySort::new(size, Stability::Stable)),
        },
    ]
}

on_each_prelude! {
    /// The programs.
    pub(super) fn sort_unstable(keys: &mut [u64]) {
        keys.par_sort_unstable();
    }
    pub(super) fn sort_stable(keys: &mut [u64]) {
        keys.par_sort();
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stability {
    Unstable,
    Stable,
}

struct LibrarySort {
    name: &'static str,
    stability: Stability,
    /// The unsorted keys; `reset` copies them into `keys`.
    original: Vec<u64>,
    keys: Vec<u64>,
    checksum: Checksum,
    /// A run's error (an unsupported runtime), for `verify`.
    error: Option<String>,
}

impl LibrarySort {
    fn new(size: Size, stability: Stability) -> LibrarySort {
        let n = match size {
            Size::Test => 100_000,
            Size::Default => 4_000_000,
            Size::Paper => 16_000_000,
        };
        let mut state = 42;
        let original: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
        LibrarySort {
            name: match stability {
                Stability::Unstable => "sort-unstable",
                Stability::Stable => "sort-stable",
            },
            stability,
            checksum: Checksum::of(&original),
            keys: original.clone(),
            original,
            error: None,
        }
    }
}

impl Workload for LibrarySort {
    fn reset(&mut self) {
        self.keys.copy_from_slice(&self.original);
        self.error = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let keys = &mut self.keys[..];
        match (ctx, self.stability) {
            (Ctx::Sequential, Stability::Unstable) => seq::sort_unstable(keys),
            (Ctx::Sequential, Stability::Stable) => seq::sort_stable(keys),
            (Ctx::Forkjoin, Stability::Unstable) => fj::sort_unstable(keys),
            (Ctx::Forkjoin, Stability::Stable) => fj::sort_stable(keys),
            (Ctx::Rayon, Stability::Unstable) => ry::sort_unstable(keys),
            (Ctx::Rayon, Stability::Stable) => ry::sort_stable(keys),
            (Ctx::Chili(_), _) => self.error = Some(unsupported(self.name, Runtime::Chili)),
            (Ctx::Split(_), _) => self.error = Some(no_split(self.name)),
        }
    }

    fn verify(&self) -> Result<(), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(i) = self.keys.windows(2).position(|w| w[0] > w[1]) {
            return Err(format!(
                "{}: not sorted at index {i}: {} > {}",
                self.name,
                self.keys[i],
                self.keys[i + 1]
            ));
        }
        let found = Checksum::of(&self.keys);
        if found != self.checksum {
            return Err(format!(
                "{}: not a permutation of the input: expected checksum {:?}, found {found:?}",
                self.name, self.checksum
            ));
        }
        Ok(())
    }

    fn supports(&self, rt: Runtime) -> bool {
        supported(rt)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_supported_runtimes;
    use super::*;

    #[test]
    fn runs_on_every_supported_runtime() {
        for stability in [Stability::Unstable, Stability::Stable] {
            check_supported_runtimes(&mut LibrarySort::new(Size::Test, stability));
        }
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = LibrarySort::new(Size::Test, Stability::Unstable);
        assert!(w.verify().is_err(), "the unsorted input must fail");
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        // Still sorted, but one key replaced by its neighbour: not a permutation.
        w.keys[1000] = w.keys[1001];
        assert!(w.verify().is_err());
        w.reset();
        w.run(&mut Ctx::Sequential);
        w.keys.swap(10, 20);
        assert!(w.verify().is_err());
    }
}
