//! `iter-nested`: a 3000 x 3000 nested parallel sum, a parallel loop in every item of a
//! parallel loop.
//!
//! ```text
//! (0..3000).into_par_iter().map(|i| (0..3000).into_par_iter().map(|j| f(i, j)).sum()).sum()
//! ```
//!
//! `f` is a splitmix64 hash of `(i, j)` modulo a bucket count known only at run time (as
//! in `iter-tiny`): about 2 ns an item, one by one, so an inner loop is about 6 us of work,
//! too little to be worth sharing, and the whole sum about 18 ms. (With a vectorised
//! one-multiply hash the whole sum took 0.9 ms, and what it measured was mostly how fast
//! this virtual machine's second vCPU wakes after the harness's pauses: rayon and forkjoin
//! alike ran 0.55 to 1.1 ms at 2 workers.) It measures how a runtime handles
//! nesting: both levels are written parallel, as they are when the inner loop is a function
//! that does not know its caller runs it in parallel, and the runtime must find the
//! parallelism at the outer level without paying for thousands of inner splits. Rayon
//! splits every inner loop (at least once per worker); forkjoin's splitter splits a loop
//! only when an idle worker asks and, of two nested loops, the outer one gets the request
//! (the heartbeat promotes the oldest frame).
//!
//! Sizes (per side): Test 100, Default 3000, Paper 6000. The answer is checked against two
//! plain nested `for` loops, run when the input is made.

use super::{on_each_prelude, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-nested",
        about: "3000 x 3000 nested parallel sum: a parallel loop in each item of one",
        make: |size| Box::new(Computes::new("iter-nested", Nested::new(size))),
    }]
}

/// The bucket count: a prime, so that every bit of the hash counts. Below 2^20, so that
/// 36 million items cannot overflow the sum.
const BUCKETS: u64 = 1_000_003;

/// The item: the splitmix64 finaliser of `(i, j)`, modulo `buckets`.
#[inline(always)]
fn f(i: u64, j: u64, buckets: u64) -> u64 {
    let mut z = ((i << 32) | j).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % buckets
}

on_each_prelude! {
    /// The program: an `n` x `n` sum, both loops parallel.
    pub(super) fn nested_sum(n: u64, buckets: u64) -> u64 {
        (0..n)
            .into_par_iter()
            .map(|i| (0..n).into_par_iter().map(|j| f(i, j, buckets)).sum::<u64>())
            .sum::<u64>()
    }
}

struct Nested {
    n: u64,
    expected: u64,
}

impl Nested {
    fn new(size: Size) -> Nested {
        let n = match size {
            Size::Test => 100,
            Size::Default => 3000,
            Size::Paper => 6000,
        };
        let mut expected = 0;
        for i in 0..n {
            for j in 0..n {
                expected += f(i, j, BUCKETS);
            }
        }
        Nested { n, expected }
    }
}

impl Kernel for Nested {
    type Output = u64;
    fn sequential(&self) -> u64 {
        seq::nested_sum(std::hint::black_box(self.n), std::hint::black_box(BUCKETS))
    }
    fn forkjoin(&self) -> u64 {
        fj::nested_sum(std::hint::black_box(self.n), std::hint::black_box(BUCKETS))
    }
    fn rayon(&self) -> u64 {
        ry::nested_sum(std::hint::black_box(self.n), std::hint::black_box(BUCKETS))
    }
    fn check(&self, found: &u64) -> Result<(), String> {
        if *found == self.expected {
            Ok(())
        } else {
            Err(format!(
                "{n} x {n}: expected {}, found {found}",
                self.expected,
                n = self.n
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
        check_supported_runtimes(&mut Computes::new("iter-nested", Nested::new(Size::Test)));
    }

    #[test]
    fn a_wrong_sum_fails() {
        let w = Nested::new(Size::Test);
        assert!(w.check(&w.expected).is_ok() && w.check(&(w.expected + 1)).is_err());
    }
}
