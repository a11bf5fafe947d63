//! `iter-zip-dot`: the dot product of two vectors of 10^7 f64,
//! `a.par_iter().zip(b).map(|(x, y)| x * y).sum::<f64>()`.
//!
//! It measures `zip` (two indexed iterators split at the same points) feeding a reduction:
//! 160 MB read, one multiply and one add per item. The sum of f64 is a chain of dependent
//! adds in every version (no reassociation without fast-math), so the sequential loop runs
//! at one add per add-latency and the parallel versions' pieces do the same, several
//! chains at once.
//!
//! The parallel sums group the items differently from the sequential one (and from run to
//! run), which for arbitrary floats changes the last bits. The inputs are therefore small
//! integers (1 to 1024, from splitmix64, seeds 3 and 5): every product and every partial
//! sum is an integer below 2^53 (at most 3*10^7 * 2^20 < 2^45), so every grouping gives the
//! exact sum, and the answer is checked for equality with a plain loop's sum, made once. A
//! dropped or repeated item would change it.
//!
//! Sizes (items): Test 10^5, Default 10^7, Paper 3*10^7.

use super::{on_each_prelude, random_u64s, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-zip-dot",
        about: "dot product of two 10^7 f64 vectors, zip + map + sum (parallel iterators)",
        make: |size| Box::new(Computes::new("iter-zip-dot", ZipDot::new(size))),
    }]
}

on_each_prelude! {
    /// The program.
    pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.par_iter().zip(b).map(|(x, y)| x * y).sum::<f64>()
    }
}

struct ZipDot {
    a: Vec<f64>,
    b: Vec<f64>,
    expected: f64,
}

/// `n` integers from 1 to 1024, as f64.
fn small_integers(n: usize, seed: u64) -> Vec<f64> {
    random_u64s(n, seed)
        .into_iter()
        .map(|v| (1 + v % 1024) as f64)
        .collect()
}

impl ZipDot {
    fn new(size: Size) -> ZipDot {
        let n = match size {
            Size::Test => 100_000,
            Size::Default => 10_000_000,
            Size::Paper => 30_000_000,
        };
        let (a, b) = (small_integers(n, 3), small_integers(n, 5));
        let mut expected = 0.0;
        for (x, y) in a.iter().zip(&b) {
            expected += x * y;
        }
        assert!(expected < (1u64 << 53) as f64, "the sum must be exact");
        ZipDot { a, b, expected }
    }
}

impl Kernel for ZipDot {
    type Output = f64;
    fn sequential(&self) -> f64 {
        seq::dot(&self.a, &self.b)
    }
    fn forkjoin(&self) -> f64 {
        fj::dot(&self.a, &self.b)
    }
    fn rayon(&self) -> f64 {
        ry::dot(&self.a, &self.b)
    }
    fn check(&self, found: &f64) -> Result<(), String> {
        if *found == self.expected {
            Ok(())
        } else {
            Err(format!(
                "expected {} (exact: integer inputs), found {found} (off by {})",
                self.expected,
                found - self.expected
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_supported_runtimes;
    use super::*;

    #[test]
    fn runs_on_every_supported_runtime() {
        check_supported_runtimes(&mut Computes::new("iter-zip-dot", ZipDot::new(Size::Test)));
    }

    #[test]
    fn a_dropped_item_fails() {
        let w = ZipDot::new(Size::Test);
        assert!(w.check(&w.sequential()).is_ok());
        let short = seq::dot(&w.a[1..], &w.b[1..]);
        assert!(w.check(&short).is_err());
    }
}
