//! N-queens: count every placement of `n` non-attacking queens on an `n`×`n` board.
//!
//! The search is the classic bitmask backtracking: row by row, the columns and the two
//! diagonals already attacked are three bitmasks, and the free squares of the current row
//! are the bits none of them has. In the first [`PAR_ROWS`] rows the free columns are
//! forked by binary splitting of the bitmask (half of its set bits to each side of a
//! `join`); below that cutoff a subtree is searched by a plain loop, which keeps a task
//! at tens of microseconds of work rather than a few nanoseconds.
//!
//! Sizes: `Test` n = 8 (92 solutions), `Default` n = 14 (365,596 solutions, about 0.17 s
//! sequentially on the development machine, 9,631 tasks), `Paper` n = 15 (2,279,184 solutions, about
//! 1.1 s; Lea's paper has no n-queens). Every answer is checked against the known counts.

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

/// Number of solutions for n = 1..=16 (OEIS A000170).
const SOLUTIONS: [u64; 16] = [
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
];

/// Rows whose free columns are forked; deeper rows are searched sequentially.
const PAR_ROWS: u32 = 4;

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "nqueens",
        about: "count all n-queens solutions, bitmask backtracking forked over the first rows",
        make: |size| Box::new(NQueens::new(size)),
    }]
}

/// Counts the solutions of the `n`-queens problem (1 <= n <= 16).
fn count<J: Join>(j: &mut J, n: u32) -> u64 {
    assert!(
        (1..=16).contains(&n),
        "n-queens supports 1 <= n <= 16, got {n}"
    );
    let full = (1u32 << n) - 1;
    place(j, full, 0, 0, 0, 0)
}

/// Counts the completions of a board whose first `row` rows are filled: `cols` are the
/// attacked columns, `left`/`right` the squares of this row attacked along the diagonals.
fn place<J: Join>(j: &mut J, full: u32, row: u32, cols: u32, left: u32, right: u32) -> u64 {
    if row >= PAR_ROWS {
        return place_seq(full, cols, left, right);
    }
    if cols == full {
        return 1;
    }
    let free = !(cols | left | right) & full;
    split(j, full, row, cols, left, right, free)
}

/// Sums the completions over the queens of `free` (a subset of this row's free columns),
/// forking half of them against the other half.
fn split<J: Join>(
    j: &mut J,
    full: u32,
    row: u32,
    cols: u32,
    left: u32,
    right: u32,
    free: u32,
) -> u64 {
    match free.count_ones() {
        0 => 0,
        1 => place(
            j,
            full,
            row + 1,
            cols | free,
            (left | free) << 1,
            (right | free) >> 1,
        ),
        k => {
            // Clear the k/2 lowest set bits: `high` keeps the rest, `low` the cleared ones.
            let mut high = free;
            for _ in 0..k / 2 {
                high &= high - 1;
            }
            let low = free ^ high;
            let (a, b) = j.join(
                move |j| split(j, full, row, cols, left, right, low),
                move |j| split(j, full, row, cols, left, right, high),
            );
            a + b
        }
    }
}

/// The sequential search below the cutoff, in three copies that call each other in a ring
/// (`place_seq` -> `place_seq_2` -> `place_seq_3` -> `place_seq`), the last two inlined:
/// three rows per call. The JDK's JIT inlines a recursive method into itself, which LLVM
/// never does, so written as one function the Java peer's search ran faster than this one
/// (n = 14 at one worker: 171 ms against 180). The same search unrolled by hand: 158-161 ms
/// against 170-178 in a standalone loop. Every Rust runtime and the baseline share it.
macro_rules! search_rows {
    ($(#[$attr:meta])* $name:ident calls $next:ident) => {
        $(#[$attr])*
        fn $name(full: u32, cols: u32, left: u32, right: u32) -> u64 {
            if cols == full {
                return 1;
            }
            let mut free = !(cols | left | right) & full;
            let mut total = 0;
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                total += $next(full, cols | bit, (left | bit) << 1, (right | bit) >> 1);
            }
            total
        }
    };
}
search_rows!(#[inline(never)] place_seq calls place_seq_2);
search_rows!(#[inline(always)] place_seq_2 calls place_seq_3);
search_rows!(#[inline(always)] place_seq_3 calls place_seq);

/// The joins a search forks from a board whose first `row` rows are filled (arguments as
/// in `place`): every node of the first `PAR_ROWS` rows with `k` free columns forks
/// `k - 1` times.
fn joins(full: u32, row: u32, cols: u32, left: u32, right: u32) -> u64 {
    if row >= PAR_ROWS || cols == full {
        return 0;
    }
    let mut free = !(cols | left | right) & full;
    let mut total = u64::from(free.count_ones().saturating_sub(1));
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        total += joins(
            full,
            row + 1,
            cols | bit,
            (left | bit) << 1,
            (right | bit) >> 1,
        );
    }
    total
}

struct NQueens {
    n: u32,
    found: Option<u64>,
}

impl NQueens {
    fn new(size: Size) -> NQueens {
        let n = match size {
            Size::Test => 8,
            Size::Default => 14,
            Size::Paper => 15,
        };
        NQueens { n, found: None }
    }
}

impl Workload for NQueens {
    fn reset(&mut self) {
        self.found = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let n = self.n;
        self.found = Some(match ctx {
            Ctx::Sequential => count(&mut Seq, n),
            Ctx::Forkjoin => count(&mut Fj, n),
            Ctx::Rayon => count(&mut Rayon, n),
            Ctx::Chili(s) => count(&mut Chili(s), n),
            Ctx::Split(r) => count(&mut r.join(), n),
        });
    }

    fn verify(&self) -> Result<(), String> {
        let expected = SOLUTIONS[self.n as usize - 1];
        match self.found {
            None => Err("no run to verify".to_string()),
            Some(found) if found == expected => Ok(()),
            Some(found) => Err(format!(
                "{}-queens: expected {expected} solutions, found {found}",
                self.n
            )),
        }
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(joins((1 << self.n) - 1, 0, 0, 0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;
    use crate::join::CountJoins;

    #[test]
    fn table_sequential_and_forkjoin() {
        let pool = forkjoin::Pool::new(2).unwrap();
        for n in 1..=12 {
            let expected = SOLUTIONS[n as usize - 1];
            assert_eq!(count(&mut Seq, n), expected, "sequential n={n}");
            assert_eq!(
                pool.install(|| count(&mut Fj, n)),
                expected,
                "forkjoin n={n}"
            );
        }
    }

    #[test]
    fn test_size_every_runtime() {
        check_all_runtimes(&mut NQueens::new(Size::Test));
    }

    #[test]
    fn wrong_answer_fails() {
        let mut w = NQueens::new(Size::Test);
        assert!(w.verify().is_err(), "verify before any run");
        w.found = Some(91);
        let err = w.verify().unwrap_err();
        assert!(
            err.contains("expected 92") && err.contains("found 91"),
            "{err}"
        );
    }

    #[test]
    fn joins_counted() {
        for n in [1, 4, 8, 12] {
            let mut counter = CountJoins(0);
            count(&mut counter, n);
            let w = NQueens { n, found: None };
            assert_eq!(w.tasks_per_run(), Some(counter.0), "n={n}");
        }
    }
}
