//! `matmul`: recursive blocked matrix multiply C += A * B of n x n f64 matrices, the MM of
//! Lea's paper.
//!
//! The matrices are stored in quadtree order: the four quadrants of a matrix lie one after
//! the other (top-left, top-right, bottom-left, bottom-right), each stored the same way,
//! down to tiles of at most 64 x 64 stored row by row. Every block of the recursion is
//! then one contiguous slice, so the quadrants of C are split with `split_at_mut` and the
//! code needs no `unsafe`. The multiply splits C's rows and columns in half (the four
//! quadrants of C in parallel) and the inner dimension k in half (the two products into
//! one C quadrant one after the other, never in parallel): C00 += A00 B00 then
//! C00 += A01 B10, and so on.
//! A tile product is an i-k-j loop, which vectorises over j. `lu` uses the same layout and
//! multiply (with subtraction).
//!
//! The entries of A and B are small integers, so every product and partial sum is an exact
//! integer and the result is exact whatever the order; `verify` compares it bit for bit
//! with the sequential result and checks sample entries against naive dot products.
//!
//! Sizes (n): Test 128, Default 1024 (about 0.3 s sequentially on the development machine),
//! Paper 2048. Any n = t * 2^k with t <= 64 works.

use std::sync::OnceLock;

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "matmul",
        about: "recursive blocked f64 matrix multiply (Lea: 2048 x 2048)",
        make: |size| Box::new(Matmul::new(size)),
    }]
}

/// Blocks of at most this side are leaves (tiles). A matrix side n must be t * 2^k with
/// t <= `MAX_TILE`, so that halving reaches the tiles exactly (see `valid_side`).
pub(super) const MAX_TILE: usize = 64;

fn a_entry(i: usize, k: usize) -> i64 {
    ((i * 7 + k * 3) % 17) as i64 - 8
}

fn b_entry(k: usize, j: usize) -> i64 {
    ((k * 5 + j * 11) % 13) as i64 - 6
}

struct Matmul {
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    /// The sequential result, computed on the first `verify`.
    sequential: OnceLock<Vec<f64>>,
}

impl Matmul {
    fn new(size: Size) -> Matmul {
        Matmul::with_side(match size {
            Size::Test => 128,
            Size::Default => 1024,
            Size::Paper => 2048,
        })
    }

    fn with_side(n: usize) -> Matmul {
        Matmul {
            n,
            a: quad_from_fn(n, |i, k| a_entry(i, k) as f64),
            b: quad_from_fn(n, |k, j| b_entry(k, j) as f64),
            c: vec![0.0; n * n],
            sequential: OnceLock::new(),
        }
    }
}

impl Workload for Matmul {
    fn reset(&mut self) {
        self.c.fill(0.0);
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (c, a, b, n) = (&mut self.c[..], &self.a[..], &self.b[..], self.n);
        match ctx {
            Ctx::Sequential => multiply(&mut Seq, c, a, b, n, Op::Add),
            Ctx::Forkjoin => multiply(&mut Fj, c, a, b, n, Op::Add),
            Ctx::Rayon => multiply(&mut Rayon, c, a, b, n, Op::Add),
            Ctx::Chili(s) => multiply(&mut Chili(s), c, a, b, n, Op::Add),
            Ctx::Split(r) => multiply(&mut r.join(), c, a, b, n, Op::Add),
        }
    }

    fn verify(&self) -> Result<(), String> {
        let n = self.n;
        // Corners, the diagonal's ends and a scatter of entries in every tile row.
        let samples = [
            (0, 0),
            (0, n - 1),
            (n - 1, 0),
            (n - 1, n - 1),
            (n / 2, n / 3),
        ]
        .into_iter()
        .chain((0..n).step_by(MAX_TILE / 2).map(|i| (i, (i * 37 + 11) % n)));
        for (i, j) in samples {
            let expected: i64 = (0..n).map(|k| a_entry(i, k) * b_entry(k, j)).sum();
            let found = self.c[quad_offset(n, i, j)];
            if found != expected as f64 {
                return Err(format!(
                    "matmul: C[{i}][{j}]: expected {expected} (dot product), found {found}"
                ));
            }
        }
        let seq = self.sequential.get_or_init(|| {
            let mut c = vec![0.0; n * n];
            multiply(&mut Seq, &mut c, &self.a, &self.b, n, Op::Add);
            c
        });
        first_difference(n, &self.c, seq).map_or(Ok(()), |(i, j, want, got)| {
            Err(format!(
                "matmul: C[{i}][{j}]: expected {want} (sequential, bit-exact), found {got}"
            ))
        })
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(multiply_joins(self.n))
    }
}

/// What a multiply does with the product: C += A B or C -= A B.
#[derive(Clone, Copy)]
pub(super) enum Op {
    Add,
    Sub,
}

/// C op= A B for n x n blocks in quadtree order.
pub(super) fn multiply<J: Join>(j: &mut J, c: &mut [f64], a: &[f64], b: &[f64], n: usize, op: Op) {
    if n <= MAX_TILE {
        match op {
            Op::Add => tile_multiply::<true>(c, a, b, n),
            Op::Sub => tile_multiply::<false>(c, a, b, n),
        }
        return;
    }
    let h = n / 2;
    let [c00, c01, c10, c11] = quarters_mut(c);
    let [a00, a01, a10, a11] = quarters(a);
    let [b00, b01, b10, b11] = quarters(b);
    // The two halves of k go into the same C quadrant, so they run one after the other.
    let quadrant = |j: &mut J, c: &mut [f64], a0: &[f64], a1: &[f64], b0: &[f64], b1: &[f64]| {
        multiply(j, c, a0, b0, h, op);
        multiply(j, c, a1, b1, h, op);
    };
    j.join(
        |j| {
            j.join(
                |j| quadrant(j, c00, a00, a01, b00, b10),
                |j| quadrant(j, c01, a00, a01, b01, b11),
            )
        },
        |j| {
            j.join(
                |j| quadrant(j, c10, a10, a11, b00, b10),
                |j| quadrant(j, c11, a10, a11, b01, b11),
            )
        },
    );
}

/// Joins in one `multiply` of n x n blocks: three per level, eight sub-multiplies each.
pub(super) fn multiply_joins(n: usize) -> u64 {
    if n <= MAX_TILE {
        0
    } else {
        3 + 8 * multiply_joins(n / 2)
    }
}

/// c += a b (ADD) or c -= a b for row-major t x t tiles, in i-k-j order so the inner loop
/// runs along rows of b and c. Never inlined: the sequential baseline and every runtime
/// run this same machine code (inlined into the sequential recursion, LLVM compiled it
/// differently there for AVX-512, and the sequential run took 1.15 times as long).
#[inline(never)]
fn tile_multiply<const ADD: bool>(c: &mut [f64], a: &[f64], b: &[f64], t: usize) {
    for (c_row, a_row) in c.chunks_exact_mut(t).zip(a.chunks_exact(t)) {
        for (&aik, b_row) in a_row.iter().zip(b.chunks_exact(t)) {
            for (x, &y) in c_row.iter_mut().zip(b_row) {
                if ADD {
                    *x += aik * y;
                } else {
                    *x -= aik * y;
                }
            }
        }
    }
}

/// The four quadrants of a block in quadtree order.
pub(crate) fn quarters(m: &[f64]) -> [&[f64]; 4] {
    let q = m.len() / 4;
    [&m[..q], &m[q..2 * q], &m[2 * q..3 * q], &m[3 * q..]]
}

/// The four quadrants of a block in quadtree order, mutably.
pub(crate) fn quarters_mut(m: &mut [f64]) -> [&mut [f64]; 4] {
    let q = m.len() / 4;
    let (m0, rest) = m.split_at_mut(q);
    let (m1, rest) = rest.split_at_mut(q);
    let (m2, m3) = rest.split_at_mut(q);
    [m0, m1, m2, m3]
}

/// Whether n x n matrices can be stored in quadtree order: halving n until it is at most
/// `MAX_TILE` never meets an odd side.
pub(super) fn valid_side(n: usize) -> bool {
    let mut side = n;
    while side > MAX_TILE {
        if !side.is_multiple_of(2) {
            return false;
        }
        side /= 2;
    }
    side > 0
}

/// Where entry (i, j) of an n x n matrix lies in quadtree order (n a `valid_side`).
pub(super) fn quad_offset(n: usize, mut i: usize, mut j: usize) -> usize {
    let (mut size, mut offset) = (n, 0);
    while size > MAX_TILE {
        size /= 2;
        let quadrant = 2 * (i / size) + j / size;
        offset += quadrant * size * size;
        i %= size;
        j %= size;
    }
    offset + i * size + j
}

/// An n x n matrix in quadtree order with entries `f(i, j)`.
pub(super) fn quad_from_fn(n: usize, f: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    assert!(
        valid_side(n),
        "{n} x {n} does not halve down to tiles of at most {MAX_TILE}"
    );
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[quad_offset(n, i, j)] = f(i, j);
        }
    }
    m
}

/// The first entry (row-major order) where two n x n quadtree matrices differ in any bit:
/// (i, j, entry of `expected`, entry of `found`).
pub(super) fn first_difference(
    n: usize,
    found: &[f64],
    expected: &[f64],
) -> Option<(usize, usize, f64, f64)> {
    let same = |x: &f64, y: &f64| x.to_bits() == y.to_bits();
    if found.iter().zip(expected).all(|(x, y)| same(x, y)) {
        return None;
    }
    (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .find_map(|(i, j)| {
            let o = quad_offset(n, i, j);
            (!same(&found[o], &expected[o])).then(|| (i, j, expected[o], found[o]))
        })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;
    use crate::join::CountJoins;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Matmul::new(Size::Test));
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = Matmul::new(Size::Test);
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        // An entry no spot check looks at: only the bit-exact comparison sees it.
        let o = quad_offset(w.n, 5, 6);
        w.c[o] += 1.0;
        assert!(w.verify().unwrap_err().contains("C[5][6]"));
        w.c[o] -= 1.0;
        // A spot-checked entry, with the reference agreeing: the dot product sees it.
        let o = quad_offset(w.n, 0, 0);
        w.c[o] = -w.c[o] + 1.0;
        let mut wrong = w.sequential.take().unwrap();
        wrong[o] = w.c[o];
        w.sequential = OnceLock::from(wrong);
        assert!(w.verify().unwrap_err().contains("dot product"));
    }

    #[test]
    fn tiles_of_any_side_up_to_64() {
        // Tiles of 48 (3 levels), 40 and 5 (one level), and a single tile.
        for n in [384, 80, 10, 50] {
            let mut w = Matmul::with_side(n);
            w.run(&mut Ctx::Sequential);
            assert_eq!(w.verify(), Ok(()), "n = {n}");
        }
        assert!(valid_side(1536) && valid_side(64) && valid_side(63));
        assert!(!valid_side(130) && !valid_side(0));
    }

    #[test]
    fn layout_and_task_count() {
        for n in [256, 96] {
            let mut seen = vec![false; n * n];
            for i in 0..n {
                for j in 0..n {
                    seen[quad_offset(n, i, j)] = true;
                }
            }
            assert!(
                seen.iter().all(|&s| s),
                "quad_offset is a bijection for n = {n}"
            );
            let mut count = CountJoins(0);
            let mut c = vec![0.0; n * n];
            multiply(
                &mut count,
                &mut c,
                &quad_from_fn(n, |_, _| 1.0),
                &quad_from_fn(n, |_, _| 2.0),
                n,
                Op::Add,
            );
            assert!(c.iter().all(|&x| x == 2.0 * n as f64));
            assert_eq!(count.0, multiply_joins(n));
        }
        assert_eq!(quad_offset(256, 0, 64), 64 * 64);
        assert_eq!(quad_offset(256, 128, 0), 2 * 128 * 128);
        assert_eq!(quad_offset(96, 1, 48), 48 * 48 + 48);
    }
}
