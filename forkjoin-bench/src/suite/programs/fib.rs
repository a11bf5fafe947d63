//! `fib` and `fib-nothreshold`: Fibonacci by naive double recursion, Lea's first example.
//!
//! `fib(n)` joins `fib(n - 1)` and `fib(n - 2)`; at or below the sequential threshold it
//! calls the plain recursive function instead. Lea's `Fib` task (section 2 of the paper)
//! tests `n <= threshold` with threshold 13, and so does this one. `fib-nothreshold` uses
//! threshold 1, so every call with `n >= 2` forks: nothing but fork/join overhead.
//!
//! Sizes (`n`): `fib` Test 24, Default 40 (about 0.3 s sequentially on the development
//! machine), Paper 47; `fib-nothreshold` Test 20, Default 34 (about 23 ms), Paper 36. At
//! 30 a run took 3.5 ms, of which waking the second worker on a 2-vCPU VM took 0.1-1 ms:
//! its 2-worker times varied from 1.8 to 2.8 ms between runs of the suite.
//!

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "fib",
            about: "Fibonacci by double recursion, sequential at n <= 13 (Lea: n = 47)",
            make: |size| Box::new(Fib::new(FIB, size)),
        },
        Program {
            name: "fib-nothreshold",
            about: "Fibonacci forking at every call: pure fork/join overhead",
            make: |size| Box::new(Fib::new(FIB_NOTHRESHOLD, size)),
        },
    ]
}

/// One of the two programs: its threshold and `n` per size.
struct Variant {
    threshold: u32,
    test: u32,
    default: u32,
    paper: u32,
}

const FIB: Variant = Variant {
    threshold: 13,
    test: 24,
    default: 40,
    paper: 47,
};
const FIB_NOTHRESHOLD: Variant = Variant {
    threshold: 1,
    test: 20,
    default: 34,
    paper: 36,
};

struct Fib {
    n: u32,
    threshold: u32,
    /// The exact answer, from an iterative loop.
    expected: u64,
    result: Option<u64>,
}

impl Fib {
    fn new(v: Variant, size: Size) -> Fib {
        let n = match size {
            Size::Test => v.test,
            Size::Default => v.default,
            Size::Paper => v.paper,
        };
        Fib {
            n,
            threshold: v.threshold,
            expected: fib_iterative(n),
            result: None,
        }
    }
}

impl Workload for Fib {
    fn reset(&mut self) {
        self.result = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (n, t) = (self.n, self.threshold);
        self.result = Some(match ctx {
            Ctx::Sequential => fib(&mut Seq, n, t),
            Ctx::Forkjoin => fib(&mut Fj, n, t),
            Ctx::Rayon => fib(&mut Rayon, n, t),
            Ctx::Chili(s) => fib(&mut Chili(s), n, t),
            Ctx::Split(r) => fib(&mut r.join(), n, t),
        });
    }

    fn verify(&self) -> Result<(), String> {
        match self.result {
            Some(r) if r == self.expected => Ok(()),
            Some(r) => Err(format!(
                "fib({}): expected {}, found {r}",
                self.n, self.expected
            )),
            None => Err(format!("fib({}): no result (run did not complete)", self.n)),
        }
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(fib_joins(self.n, self.threshold))
    }
}

fn fib<J: Join>(j: &mut J, n: u32, threshold: u32) -> u64 {
    if n <= threshold {
        return seq_fib(n);
    }
    let (a, b) = j.join(
        move |j| fib(j, n - 1, threshold),
        move |j| fib(j, n - 2, threshold),
    );
    a + b
}

/// The plain recursive function below the threshold (Lea's `seqFib`).
fn seq_fib(n: u32) -> u64 {
    if n <= 1 {
        n as u64
    } else {
        seq_fib(n - 1) + seq_fib(n - 2)
    }
}

fn fib_iterative(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Joins in `fib(n)`: `joins(m) = 0` for `m <= threshold`, else
/// `1 + joins(m - 1) + joins(m - 2)`, evaluated bottom-up.
fn fib_joins(n: u32, threshold: u32) -> u64 {
    let (mut prev, mut cur) = (0u64, 0u64); // joins(m - 1), joins(m) for m = threshold
    for _ in threshold..n {
        (prev, cur) = (cur, 1 + cur + prev);
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;
    use crate::join::CountJoins;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Fib::new(FIB, Size::Test));
        check_all_runtimes(&mut Fib::new(FIB_NOTHRESHOLD, Size::Test));
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = Fib::new(FIB, Size::Test);
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        w.result = w.result.map(|r| r + 1);
        assert!(w.verify().is_err());
        w.reset();
        assert!(w.verify().is_err(), "verify must fail when no run happened");
    }

    #[test]
    fn exact_values_and_task_counts() {
        assert_eq!(fib_iterative(47), 2_971_215_073);
        assert_eq!(seq_fib(20), fib_iterative(20));
        for (n, t) in [(24, 13), (20, 1), (13, 13), (5, 13)] {
            let mut count = CountJoins(0);
            assert_eq!(fib(&mut count, n, t), fib_iterative(n));
            assert_eq!(count.0, fib_joins(n, t), "fib({n}), threshold {t}");
        }
        // Every call with n >= 2 forks: joins = F(n + 1) - 1.
        assert_eq!(fib_joins(30, 1), fib_iterative(31) - 1);
    }
}
