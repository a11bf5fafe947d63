//! `integrate`: Lea's Integrate, recursive adaptive quadrature.
//!
//! Integrates f(x) = sum_{i=1..5} (2i-1) x^(2i-1) = x + 3x^3 + 5x^5 + 7x^7 + 9x^9 over
//! [-47, 48], as in Lea's FJTask example: `area(l, r, fl, fr, a)` halves [l, r] at c,
//! computes the trapezoids al and ar of the halves, and returns al + ar when it differs from
//! the whole interval's trapezoid a by at most the tolerance; otherwise it joins the two
//! halves. Every internal node of the tree forks, so the tasks are tiny and many.
//!
//! Sizes (absolute tolerance, joins per run): Test 1 (1.2 million), Default 1e-4 (25
//! million, about 0.22 s sequentially on the development machine), Paper 1e-6 (113 million,
//! 4.6 times the Default work: the interval count grows like tolerance^(-1/3)). The tree
//! depends only on the tolerance, so every runtime must return the sequential result bit
//! for bit.

use std::sync::OnceLock;

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, CountJoins, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "integrate",
        about: "adaptive trapezoid quadrature of sum (2i-1)x^(2i-1) over [-47, 48] (Lea)",
        make: |size| Box::new(Integrate::new(size)),
    }]
}

const LO: f64 = -47.0;
const HI: f64 = 48.0;

/// Relative error allowed against the exact integral. The trapezoid rule's error falls
/// 4-fold per halving, so an accepted interval is off by about |alr - a| / 3 <= tolerance / 3
/// and the sum by at most intervals * tolerance / 3: 4e5 at Test (1.2e6 intervals at
/// tolerance 1), less at the other sizes, against an integral of 1.1e16, i.e. 4e-11.
/// Rounding adds about eps * depth * (integral of |f|) / (integral), with depth < 40 and the
/// integral of |f| ten times the integral: 5e-14. So 1e-10 holds at every size (the measured
/// errors are 3e-13 at Test, 1e-15 at Default). A wrong tree (an interval lost or counted
/// twice) is caught by the bit-exact comparison with the sequential result.
const REL_TOLERANCE: f64 = 1e-10;

struct Integrate {
    tolerance: f64,
    /// F(48) - F(-47) for F(x) = sum (2i-1)/(2i) x^(2i), computed exactly in integers.
    exact: f64,
    /// The sequential result, computed on the first `verify`.
    sequential: OnceLock<f64>,
    /// The join count, computed on the first `tasks_per_run`.
    joins: OnceLock<u64>,
    result: Option<f64>,
}

impl Integrate {
    fn new(size: Size) -> Integrate {
        let tolerance = match size {
            Size::Test => 1.0,
            Size::Default => 1e-4,
            Size::Paper => 1e-6,
        };
        Integrate {
            tolerance,
            exact: exact_integral(),
            sequential: OnceLock::new(),
            joins: OnceLock::new(),
            result: None,
        }
    }
}

impl Workload for Integrate {
    fn reset(&mut self) {
        self.result = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let tol = self.tolerance;
        self.result = Some(match ctx {
            Ctx::Sequential => integrate(&mut Seq, tol),
            Ctx::Forkjoin => integrate(&mut Fj, tol),
            Ctx::Rayon => integrate(&mut Rayon, tol),
            Ctx::Chili(s) => integrate(&mut Chili(s), tol),
            Ctx::Split(r) => integrate(&mut r.join(), tol),
        });
    }

    fn verify(&self) -> Result<(), String> {
        let Some(r) = self.result else {
            return Err("integrate: no result (run did not complete)".into());
        };
        let rel = ((r - self.exact) / self.exact).abs();
        if rel.is_nan() || rel > REL_TOLERANCE {
            return Err(format!(
                "integrate: expected {:e} (exact), found {r:e}: relative error {rel:e} > {REL_TOLERANCE:e}",
                self.exact
            ));
        }
        let seq = *self
            .sequential
            .get_or_init(|| integrate(&mut Seq, self.tolerance));
        if r.to_bits() != seq.to_bits() {
            return Err(format!(
                "integrate: expected {seq:e} (sequential, bit-exact), found {r:e}"
            ));
        }
        Ok(())
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(*self.joins.get_or_init(|| {
            let mut count = CountJoins(0);
            integrate(&mut count, self.tolerance);
            count.0
        }))
    }
}

/// The integrand, by Horner's rule in x^2.
#[inline]
fn f(x: f64) -> f64 {
    let x2 = x * x;
    x * (1.0 + x2 * (3.0 + x2 * (5.0 + x2 * (7.0 + x2 * 9.0))))
}

fn integrate<J: Join>(j: &mut J, tolerance: f64) -> f64 {
    let (fl, fr) = (f(LO), f(HI));
    area(j, LO, HI, fl, fr, (HI - LO) * (fl + fr) / 2.0, tolerance)
}

/// The trapezoid estimate of the integral over [l, r], refined until halving changes it by
/// at most `tolerance`; `a` is the estimate for the whole of [l, r].
fn area<J: Join>(j: &mut J, l: f64, r: f64, fl: f64, fr: f64, a: f64, tolerance: f64) -> f64 {
    let c = (l + r) / 2.0;
    let fc = f(c);
    let al = (c - l) * (fl + fc) / 2.0;
    let ar = (r - c) * (fc + fr) / 2.0;
    let alr = al + ar;
    if (alr - a).abs() <= tolerance {
        return alr;
    }
    let (x, y) = j.join(
        move |j| area(j, l, c, fl, fc, al, tolerance),
        move |j| area(j, c, r, fc, fr, ar, tolerance),
    );
    x + y
}

/// F(48) - F(-47) = sum_{i=1..5} (2i-1)/(2i) (48^(2i) - 47^(2i)), summed exactly over the
/// common denominator 120 (48^10 < 2^56, so i128 has room) and rounded once.
fn exact_integral() -> f64 {
    let numerator: i128 = (1..=5i128)
        .map(|i| {
            (2 * i - 1) * (120 / (2 * i)) * (48i128.pow(2 * i as u32) - 47i128.pow(2 * i as u32))
        })
        .sum();
    numerator as f64 / 120.0
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Integrate::new(Size::Test));
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = Integrate::new(Size::Test);
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        let r = w.result.unwrap();
        // One ulp off: within the relative tolerance, caught by the bit-exact check.
        w.result = Some(f64::from_bits(r.to_bits() + 1));
        assert!(w.verify().is_err());
        // Off by far more than the tolerance, caught by the closed form.
        w.sequential = OnceLock::from(r * 2.0);
        w.result = Some(r * 2.0);
        assert!(w.verify().is_err());
    }

    #[test]
    fn closed_form_and_task_count() {
        // F(x) in floating point agrees with the exact integer evaluation.
        let big_f = |x: f64| {
            (1..=5)
                .map(|i| (2 * i - 1) as f64 / (2 * i) as f64 * x.powi(2 * i))
                .sum::<f64>()
        };
        let approx = big_f(HI) - big_f(LO);
        assert!(((approx - exact_integral()) / exact_integral()).abs() < 1e-14);
        let w = Integrate::new(Size::Test);
        assert!(w.tasks_per_run().unwrap() > 1000);
    }
}
