//! `iter-map-collect`: 10^7 f64 mapped into a new vector,
//! `input.par_iter().map(|x| x.sqrt() * 1.5 + 1.0).collect::<Vec<f64>>()`.
//!
//! It measures an indexed `collect`, the commonest way a parallel iterator produces data:
//! the length is known, so every piece writes its items straight into its own part of the
//! one output vector (rayon's `collect_into_vec` path). The work per item is small (a
//! square root), so the loop is mostly memory traffic: 80 MB read, 80 MB written into
//! freshly allocated memory, whose page faults are part of every version's run. The input
//! is made once (splitmix64 values scaled to `[0, 10^6)`); the output of the last run is
//! freed in `reset`, untimed.
//!
//! Sizes (items): Test 10^5, Default 10^7, Paper 3*10^7. The answer is checked exactly, bit
//! for bit, item by item, against the same expression evaluated in a plain loop (a square
//! root, a product and a sum are correctly rounded, and Rust never fuses them, so every
//! version gets the same bits).

use super::{on_each_prelude, random_u64s, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-map-collect",
        about: "10^7 f64 mapped (sqrt) and collected into a new Vec (parallel iterators)",
        make: |size| Box::new(Computes::new("iter-map-collect", MapCollect::new(size))),
    }]
}

/// The map of one item.
#[inline(always)]
fn g(x: f64) -> f64 {
    x.sqrt() * 1.5 + 1.0
}

on_each_prelude! {
    /// The program.
    pub(super) fn map_collect(input: &[f64]) -> Vec<f64> {
        input.par_iter().map(|&x| g(x)).collect::<Vec<f64>>()
    }
}

struct MapCollect {
    input: Vec<f64>,
}

impl MapCollect {
    fn new(size: Size) -> MapCollect {
        let n = match size {
            Size::Test => 100_000,
            Size::Default => 10_000_000,
            Size::Paper => 30_000_000,
        };
        let input = random_u64s(n, 7)
            .into_iter()
            .map(|v| (v >> 11) as f64 * (1e6 / (1u64 << 53) as f64))
            .collect();
        MapCollect { input }
    }
}

impl Kernel for MapCollect {
    type Output = Vec<f64>;
    fn sequential(&self) -> Vec<f64> {
        seq::map_collect(&self.input)
    }
    fn forkjoin(&self) -> Vec<f64> {
        fj::map_collect(&self.input)
    }
    fn rayon(&self) -> Vec<f64> {
        ry::map_collect(&self.input)
    }
    fn check(&self, found: &Vec<f64>) -> Result<(), String> {
        if found.len() != self.input.len() {
            return Err(format!(
                "expected {} items, found {}",
                self.input.len(),
                found.len()
            ));
        }
        for (i, (&x, &y)) in self.input.iter().zip(found).enumerate() {
            let expected = g(x);
            if expected.to_bits() != y.to_bits() {
                return Err(format!("item {i}: expected {expected:e}, found {y:e}"));
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
            "iter-map-collect",
            MapCollect::new(Size::Test),
        ));
    }

    #[test]
    fn a_wrong_or_short_vector_fails() {
        let w = MapCollect::new(Size::Test);
        let mut v = w.sequential();
        assert!(w.check(&v).is_ok());
        v.swap(5, 6);
        assert!(w.check(&v).is_err());
        v.swap(5, 6);
        v.pop();
        assert!(w.check(&v).is_err());
    }
}
