//! `lu`: LU decomposition without pivoting, recursive by blocks as in Cilk's `lu.cilk`;
//! the LU of Lea's paper.
//!
//! A = [A00 A01; A10 A11] is factored in place into L (unit lower, below the diagonal) and
//! U (upper, with the diagonal): factor A00 = L00 U00; then, in parallel, solve
//! U01 = L00^-1 A01 (`lower_solve`) and L10 = A10 U00^-1 (`upper_solve`); update the Schur
//! complement A11 -= L10 U01 (the parallel multiply of `matmul`); factor A11. The solves
//! recurse too: `lower_solve` handles the two column halves of its right-hand side in
//! parallel (each: solve the top, subtract L10 times it from the bottom, solve the bottom),
//! `upper_solve` the two row halves. Leaves are tiles of at most 64 x 64; the matrix is
//! stored in `matmul`'s quadtree order, so every block is one contiguous slice.
//!
//! A has off-diagonal entries in [-1, 1) and n on the diagonal: diagonally dominant by rows
//! and columns, so elimination without pivoting is stable. Each entry's sequence of
//! operations is fixed by the recursion, so every runtime must match the sequential result
//! bit for bit; `verify` checks that and the residual |L U - A|max / |A|max on sample rows.
//!
//! Sizes (n): Test 128, Default 1792 = 56 * 2^5 (about 0.35 s sequentially on the
//! development machine; 1024 takes 0.1 s, 2048 0.6 s), Paper 4096.

use std::sync::OnceLock;

use super::matmul::{
    first_difference, multiply, multiply_joins, quad_from_fn, quad_offset, quarters, quarters_mut,
    Op, MAX_TILE,
};
use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "lu",
        about: "recursive block LU decomposition without pivoting (Lea: 4096 x 4096)",
        make: |size| Box::new(Lu::new(size)),
    }]
}

struct Lu {
    n: usize,
    /// The input matrix, in quadtree order; `reset` copies it into `a`.
    original: Vec<f64>,
    /// Factored in place by `run`.
    a: Vec<f64>,
    /// The sequential result, computed on the first `verify`.
    sequential: OnceLock<Vec<f64>>,
}

impl Lu {
    fn new(size: Size) -> Lu {
        Lu::with_side(match size {
            Size::Test => 128,
            Size::Default => 1792,
            Size::Paper => 4096,
        })
    }

    fn with_side(n: usize) -> Lu {
        let original = quad_from_fn(n, |i, j| if i == j { n as f64 } else { off_diagonal(i, j) });
        Lu {
            n,
            a: original.clone(),
            original,
            sequential: OnceLock::new(),
        }
    }

    /// |L U - A|max / |A|max over sample rows (all rows for small n; the product costs
    /// n^2 per row).
    fn residual(&self) -> f64 {
        let n = self.n;
        let factored = to_row_major(n, &self.a);
        let rows: Vec<usize> = if n <= 256 {
            (0..n).collect()
        } else {
            (0..n).step_by(n / 64).chain([n - 1]).collect()
        };
        let mut worst: f64 = 0.0;
        let mut row = vec![0.0; n];
        for i in rows {
            // Row i of L U: sum over k <= i of L[i][k] U[k][..], with L[i][i] = 1.
            row.fill(0.0);
            for k in 0..i {
                let l = factored[i * n + k];
                for (x, &u) in row[k..].iter_mut().zip(&factored[k * n + k..(k + 1) * n]) {
                    *x += l * u;
                }
            }
            for (x, &u) in row[i..].iter_mut().zip(&factored[i * n + i..(i + 1) * n]) {
                *x += u;
            }
            for (j, &x) in row.iter().enumerate() {
                worst = worst.max((x - self.original[quad_offset(n, i, j)]).abs());
            }
        }
        worst / n as f64 // |A|max is the diagonal, n
    }
}

/// A deterministic entry in [-1, 1) from a hash of (i, j).
fn off_diagonal(i: usize, j: usize) -> f64 {
    let mut z = (i as u64) << 32 | j as u64;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

impl Workload for Lu {
    fn reset(&mut self) {
        self.a.copy_from_slice(&self.original);
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (a, n) = (&mut self.a[..], self.n);
        match ctx {
            Ctx::Sequential => lu(&mut Seq, a, n),
            Ctx::Forkjoin => lu(&mut Fj, a, n),
            Ctx::Rayon => lu(&mut Rayon, a, n),
            Ctx::Chili(s) => lu(&mut Chili(s), a, n),
            Ctx::Split(r) => lu(&mut r.join(), a, n),
        }
    }

    fn verify(&self) -> Result<(), String> {
        let n = self.n;
        let seq = self.sequential.get_or_init(|| {
            let mut a = self.original.clone();
            lu(&mut Seq, &mut a, n);
            a
        });
        if let Some((i, j, want, got)) = first_difference(n, &self.a, seq) {
            return Err(format!(
                "lu: LU[{i}][{j}]: expected {want:e} (sequential, bit-exact), found {got:e}"
            ));
        }
        // Backward error of LU: |LU - A| <= gamma_n |L| |U| entrywise, gamma_n ~ n eps/2.
        // Here |L| |U| stays within a small factor of |A|max (|L| entries ~ 1/n off the
        // diagonal, growth <= 2 by column dominance), so 2 n eps bounds the relative residual.
        let bound = 2.0 * n as f64 * f64::EPSILON;
        let residual = self.residual();
        if residual.is_nan() || residual > bound {
            return Err(format!(
                "lu: residual |LU - A|max / |A|max = {residual:e} > {bound:e}"
            ));
        }
        Ok(())
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(lu_joins(self.n))
    }
}

/// Factors the n x n block `a` in place.
fn lu<J: Join>(j: &mut J, a: &mut [f64], n: usize) {
    if n <= MAX_TILE {
        tile_lu(a, n);
        return;
    }
    let h = n / 2;
    let [a00, a01, a10, a11] = quarters_mut(a);
    lu(j, a00, h);
    let l00_u00 = &*a00;
    j.join(
        |j| lower_solve(j, a01, l00_u00, h),
        |j| upper_solve(j, a10, l00_u00, h),
    );
    multiply(j, a11, a10, a01, h, Op::Sub);
    lu(j, a11, h);
}

/// m := L^-1 m for the unit lower triangle L of the n x n block `l`.
fn lower_solve<J: Join>(j: &mut J, m: &mut [f64], l: &[f64], n: usize) {
    if n <= MAX_TILE {
        tile_lower_solve(m, l, n);
        return;
    }
    let h = n / 2;
    let [m00, m01, m10, m11] = quarters_mut(m);
    let [l00, _, l10, l11] = quarters(l);
    // The column halves [M00; M10] and [M01; M11] are independent.
    let half = |j: &mut J, top: &mut [f64], bottom: &mut [f64]| {
        lower_solve(j, top, l00, h);
        multiply(j, bottom, l10, top, h, Op::Sub);
        lower_solve(j, bottom, l11, h);
    };
    j.join(|j| half(j, m00, m10), |j| half(j, m01, m11));
}

/// m := m U^-1 for the upper triangle U (with the diagonal) of the n x n block `u`.
fn upper_solve<J: Join>(j: &mut J, m: &mut [f64], u: &[f64], n: usize) {
    if n <= MAX_TILE {
        tile_upper_solve(m, u, n);
        return;
    }
    let h = n / 2;
    let [m00, m01, m10, m11] = quarters_mut(m);
    let [u00, u01, _, u11] = quarters(u);
    // The row halves [M00 M01] and [M10 M11] are independent.
    let half = |j: &mut J, left: &mut [f64], right: &mut [f64]| {
        upper_solve(j, left, u00, h);
        multiply(j, right, left, u01, h, Op::Sub);
        upper_solve(j, right, u11, h);
    };
    j.join(|j| half(j, m00, m01), |j| half(j, m10, m11));
}

/// Joins in `lu` of an n x n block (mirrors the recursion).
fn lu_joins(n: usize) -> u64 {
    if n <= MAX_TILE {
        0
    } else {
        let h = n / 2;
        2 * lu_joins(h) + 1 + 2 * solve_joins(h) + multiply_joins(h)
    }
}

/// Joins in `lower_solve` or `upper_solve` of an n x n block.
fn solve_joins(n: usize) -> u64 {
    if n <= MAX_TILE {
        0
    } else {
        let h = n / 2;
        1 + 2 * (2 * solve_joins(h) + multiply_joins(h))
    }
}

/// Unpivoted LU of a row-major t x t tile, in place.
fn tile_lu(a: &mut [f64], t: usize) {
    for k in 0..t {
        let (above, below) = a.split_at_mut((k + 1) * t);
        let pivot_row = &above[k * t..];
        let pivot = pivot_row[k];
        for row in below.chunks_exact_mut(t) {
            let l = row[k] / pivot;
            row[k] = l;
            for (x, &u) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                *x -= l * u;
            }
        }
    }
}

/// m := L^-1 m for t x t tiles, L the unit lower triangle of `l`: forward substitution,
/// row by row.
fn tile_lower_solve(m: &mut [f64], l: &[f64], t: usize) {
    for i in 1..t {
        let (done, rest) = m.split_at_mut(i * t);
        let row = &mut rest[..t];
        for (&lik, done_row) in l[i * t..i * t + i].iter().zip(done.chunks_exact(t)) {
            for (x, &y) in row.iter_mut().zip(done_row) {
                *x -= lik * y;
            }
        }
    }
}

/// m := m U^-1 for t x t tiles, U the upper triangle of `u`: each row of m solves
/// x U = row, one unknown at a time.
fn tile_upper_solve(m: &mut [f64], u: &[f64], t: usize) {
    for row in m.chunks_exact_mut(t) {
        for (k, u_row) in u.chunks_exact(t).enumerate() {
            let x = row[k] / u_row[k];
            row[k] = x;
            for (y, &ukj) in row[k + 1..].iter_mut().zip(&u_row[k + 1..]) {
                *y -= x * ukj;
            }
        }
    }
}

/// The n x n quadtree matrix `m` in row-major order.
fn to_row_major(n: usize, m: &[f64]) -> Vec<f64> {
    (0..n)
        .flat_map(|i| (0..n).map(move |j| m[quad_offset(n, i, j)]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;
    use crate::join::CountJoins;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Lu::new(Size::Test));
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = Lu::new(Size::Test);
        assert!(w.verify().is_err(), "the unfactored input must fail");
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        assert!(w.residual() < 1e-14, "residual {:e}", w.residual());
        let o = quad_offset(w.n, 70, 3);
        w.a[o] *= 1.0 + 1e-6;
        assert!(w.verify().unwrap_err().contains("bit-exact"));
        // A reference that agrees with the wrong answer: the residual catches it.
        w.sequential = OnceLock::from(w.a.clone());
        assert!(w.verify().unwrap_err().contains("residual"));
    }

    #[test]
    fn tiles_of_any_side_up_to_64() {
        for n in [192, 80, 50] {
            let mut w = Lu::with_side(n);
            w.run(&mut Ctx::Sequential);
            assert_eq!(w.verify(), Ok(()), "n = {n}");
        }
    }

    #[test]
    fn task_count() {
        let n = 256;
        let mut a = quad_from_fn(n, |i, j| if i == j { n as f64 } else { off_diagonal(i, j) });
        let mut count = CountJoins(0);
        lu(&mut count, &mut a, n);
        assert_eq!(count.0, lu_joins(n));
    }
}
