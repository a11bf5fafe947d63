//! `iter-tiny`: 20,000 separate 16-item parallel sums inside a plain sequential loop.
//!
//! ```text
//! for i in 0..20_000 { total += (0..16).into_par_iter().map(|j| work(i, j, buckets)).sum::<u64>() }
//! ```
//!
//! `work` is a splitmix64 hash of `(i, j)` reduced modulo a bucket count known only at run
//! time (as a hash table picks a bucket): about 2 ns an item, most of it the division,
//! which no vector unit does, so every version runs the items one by one, and each parallel
//! loop carries some 30 ns of work, far less than sharing any of it with another worker
//! costs. It measures what a parallel loop costs when it should not run in parallel at all,
//! the case of a library function that uses a parallel iterator and is called in a loop on
//! small inputs. A runtime that splits eagerly pays for its splits and joins at every call
//! (rayon splits a loop into at least one piece per worker, whatever its length);
//! forkjoin's splitter splits only when an idle worker asks and the rest is worth it, so
//! its loops stay sequential. The whole loop runs inside one `install` (the harness's), so
//! entering the pool is paid once.
//!
//! Without the modulo, the sequential version's 16 hashes are two AVX-512 vectors, 0.2 ns
//! an item, and the comparison would be of a 3 ns vectorised loop with a library call: the
//! parallel versions fold their loop in pieces (forkjoin's splitter folds 1, 2, 4, 8 and 1
//! items, to be ready to split early), which no compiler vectorises as one loop.
//!
//! Sizes (outer iterations, 16 items each): Test 200, Default 20,000, Paper 100,000. The
//! answer is checked against the same sums computed by two plain nested `for` loops when
//! the input is made.

use super::{on_each_prelude, Computes, Kernel};
use crate::suite::programs::{Program, Size};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "iter-tiny",
        about: "20,000 separate 16-item parallel sums in a sequential loop (parallel iterators)",
        make: |size| Box::new(Computes::new("iter-tiny", Tiny::new(size))),
    }]
}

/// Items of each inner parallel loop.
const INNER: u64 = 16;

/// The bucket count: a prime, so that every bit of the hash counts.
const BUCKETS: u64 = 1_000_003;

/// The work of one item: the splitmix64 finaliser of `(i, j)`, modulo `buckets`.
#[inline(always)]
fn work(i: u64, j: u64, buckets: u64) -> u64 {
    let mut z = ((i << 4) | j).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % buckets
}

on_each_prelude! {
    /// The program: a parallel sum of `INNER` items per outer iteration.
    pub(super) fn total(outer: u64, buckets: u64) -> u64 {
        let mut total = 0u64;
        for i in 0..outer {
            total += (0..INNER).into_par_iter().map(|j| work(i, j, buckets)).sum::<u64>();
        }
        total
    }
}

struct Tiny {
    outer: u64,
    expected: u64,
}

impl Tiny {
    fn new(size: Size) -> Tiny {
        let outer = match size {
            Size::Test => 200,
            Size::Default => 20_000,
            Size::Paper => 100_000,
        };
        let mut expected = 0;
        for i in 0..outer {
            for j in 0..INNER {
                expected += work(i, j, BUCKETS);
            }
        }
        Tiny { outer, expected }
    }
}

impl Kernel for Tiny {
    type Output = u64;
    fn sequential(&self) -> u64 {
        seq::total(self.outer, std::hint::black_box(BUCKETS))
    }
    fn forkjoin(&self) -> u64 {
        fj::total(self.outer, std::hint::black_box(BUCKETS))
    }
    fn rayon(&self) -> u64 {
        ry::total(self.outer, std::hint::black_box(BUCKETS))
    }
    fn check(&self, found: &u64) -> Result<(), String> {
        if *found == self.expected {
            Ok(())
        } else {
            Err(format!("expected {}, found {found}", self.expected))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_supported_runtimes;
    use super::*;

    #[test]
    fn runs_on_every_supported_runtime() {
        check_supported_runtimes(&mut Computes::new("iter-tiny", Tiny::new(Size::Test)));
    }

    #[test]
    fn a_wrong_total_fails() {
        let t = Tiny::new(Size::Test);
        assert!(t.check(&t.expected).is_ok());
        assert!(t.check(&(t.expected + 1)).is_err());
    }
}
