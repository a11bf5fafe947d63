//! `iter-filter-collect`: the third of 10^7 random u64 divisible by 3, kept in order,
//! `input.par_iter().filter(|&&x| x % 3 == 0).copied().collect::<Vec<u64>>()`.
//!
//! It measures an unindexed `collect`: after a filter the pieces' lengths are not known in
//! advance, so every piece collects into a vector of its own and the pieces are joined in
//! order at the end (rayon: a linked list of vectors, then one copy into the result). The
//! predicate is cheap and unpredictable for the branch predictor (random keys), and the
//! loop is mostly memory traffic: 80 MB read, about 27 MB kept. The input is made once
//! (splitmix64, seed 11); the output of the last run is freed in `reset`, untimed.
//!
//! Sizes (items): Test 10^5, Default 10^7, Paper 3*10^7. The answer is checked exactly and
//! in order, against the input walked with the same predicate.

use super::{on_each_prelude, random_u64s, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-filter-collect",
        about: "the 1/3 of 10^7 random u64 divisible by 3, collected in order (parallel iterators)",
        make: |size| {
            Box::new(Computes::new(
                "iter-filter-collect",
                FilterCollect::new(size),
            ))
        },
    }]
}

/// Whether an item is kept.
#[inline(always)]
fn keep(x: u64) -> bool {
    x.is_multiple_of(3)
}

on_each_prelude! {
    /// The program.
    pub(super) fn filter_collect(input: &[u64]) -> Vec<u64> {
        input.par_iter().filter(|&&x| keep(x)).copied().collect::<Vec<u64>>()
    }
}

struct FilterCollect {
    input: Vec<u64>,
    /// How many items `keep` keeps.
    kept: usize,
}

impl FilterCollect {
    fn new(size: Size) -> FilterCollect {
        let n = match size {
            Size::Test => 100_000,
            Size::Default => 10_000_000,
            Size::Paper => 30_000_000,
        };
        let input = random_u64s(n, 11);
        let kept = input.iter().filter(|&&x| keep(x)).count();
        FilterCollect { input, kept }
    }
}

impl Kernel for FilterCollect {
    type Output = Vec<u64>;
    fn sequential(&self) -> Vec<u64> {
        seq::filter_collect(&self.input)
    }
    fn forkjoin(&self) -> Vec<u64> {
        fj::filter_collect(&self.input)
    }
    fn rayon(&self) -> Vec<u64> {
        ry::filter_collect(&self.input)
    }
    fn check(&self, found: &Vec<u64>) -> Result<(), String> {
        if found.len() != self.kept {
            return Err(format!(
                "expected {} items kept, found {}",
                self.kept,
                found.len()
            ));
        }
        let expected = self.input.iter().copied().filter(|&x| keep(x));
        for (i, (e, &y)) in expected.zip(found).enumerate() {
            if e != y {
                return Err(format!("item {i} of the kept: expected {e}, found {y}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_supported_runtimes;
    use super::*;

    #[test]
    fn runs_on_every_supported_runtime() {
        check_supported_runtimes(&mut Computes::new(
            "iter-filter-collect",
            FilterCollect::new(Size::Test),
        ));
    }

    #[test]
    fn a_reordered_or_short_vector_fails() {
        let w = FilterCollect::new(Size::Test);
        assert!(w.kept > 30_000 && w.kept < 36_000, "{}", w.kept);
        let mut v = w.sequential();
        assert!(w.check(&v).is_ok());
        v.swap(5, 6);
        assert!(w.check(&v).is_err());
        v.swap(5, 6);
        v.pop();
        assert!(w.check(&v).is_err());
    }
}
