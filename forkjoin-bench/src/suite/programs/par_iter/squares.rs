//! `iter-squares`: the sum of `i * i` over `0..2*10^8` (u64, wrapping), one flat parallel
//! loop of very cheap items.
//!
//! It measures what a runtime adds to a loop the CPU runs at full speed: the sequential
//! version is a vectorised loop of a fraction of a nanosecond per item, so any per-item or
//! per-chunk cost shows, and the speedup is the runtime's splitting alone (the data is the
//! index, no memory is touched).
//!
//! LLVM turns `(0..n).map(|i| i * i).sum()` into its closed form (it took 18 us for
//! 2*10^8), which would measure nothing. Every version therefore squares `i ^ k`, with `k`
//! a zero the compiler cannot see (`black_box`): the same values, but no closed form, so
//! each version really loops over its items (checked in the disassembly: `vpmullq` loops in
//! the sequential version and in both parallel ones' folds). The sums are of
//! `Wrapping<u64>`, so that they wrap in every build.
//!
//! Sizes (items): Test 10^6, Default 2*10^8, Paper 10^9. The answer is checked against the
//! closed form `n (n-1) (2n-1) / 6`, computed exactly in u128 and taken mod 2^64.

use std::num::Wrapping;

use super::{on_each_prelude, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-squares",
        about: "sum of i*i over 0..2*10^8, wrapping (parallel iterators, one flat loop)",
        make: |size| Box::new(Computes::new("iter-squares", Squares::new(size))),
    }]
}

on_each_prelude! {
    /// The program: `sum(i * i)` over `0..n`, with `i ^ k` (`k` = 0) for `i`.
    pub(super) fn sum_of_squares(n: u64, k: u64) -> u64 {
        (0..n)
            .into_par_iter()
            .map(|i| {
                let x = i ^ k;
                Wrapping(x.wrapping_mul(x))
            })
            .sum::<Wrapping<u64>>()
            .0
    }
}

struct Squares {
    n: u64,
    expected: u64,
}

impl Squares {
    fn new(size: Size) -> Squares {
        let n = match size {
            Size::Test => 1_000_000,
            Size::Default => 200_000_000,
            Size::Paper => 1_000_000_000,
        };
        Squares {
            n,
            expected: closed_form(n),
        }
    }
}

/// `sum(i * i)` over `0..n`, mod 2^64: `(n-1) n (2n-1) / 6` (exact in u128 for n < 2^40).
fn closed_form(n: u64) -> u64 {
    assert!(n < 1 << 40, "n^3 must fit in u128");
    let n = n as u128;
    if n == 0 {
        return 0;
    }
    ((n - 1) * n * (2 * n - 1) / 6) as u64
}

/// The zero that the compiler cannot see through.
#[inline(always)]
fn hidden_zero() -> u64 {
    std::hint::black_box(0)
}

impl Kernel for Squares {
    type Output = u64;
    fn sequential(&self) -> u64 {
        seq::sum_of_squares(self.n, hidden_zero())
    }
    fn forkjoin(&self) -> u64 {
        fj::sum_of_squares(self.n, hidden_zero())
    }
    fn rayon(&self) -> u64 {
        ry::sum_of_squares(self.n, hidden_zero())
    }
    fn check(&self, found: &u64) -> Result<(), String> {
        if *found == self.expected {
            Ok(())
        } else {
            Err(format!(
                "n = {}: expected {} (closed form, mod 2^64), found {found}",
                self.n, self.expected
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
        check_supported_runtimes(&mut Computes::new("iter-squares", Squares::new(Size::Test)));
    }

    #[test]
    fn closed_form_matches_a_plain_loop() {
        for n in [0, 1, 2, 3, 1000, 3_000_000] {
            let mut sum = 0u64;
            for i in 0..n {
                sum = sum.wrapping_add(i * i);
            }
            assert_eq!(closed_form(n), sum, "n = {n}");
        }
        // Past 2^64: the wrapping sum, not a saturated or truncated-early one.
        assert_eq!(seq::sum_of_squares(5_000_000, 0), closed_form(5_000_000));
        let s = Squares::new(Size::Test);
        assert!(s.check(&s.expected).is_ok() && s.check(&(s.expected ^ 1)).is_err());
    }
}
