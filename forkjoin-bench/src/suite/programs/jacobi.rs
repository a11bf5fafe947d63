//! `jacobi` and `jacobi-10`: Lea's Jacobi relaxation, synchronised every step or every 10.
//!
//! An n x n grid (edges fixed at 1.0, interior starting at 0.0) takes 100 Jacobi steps:
//! every interior cell becomes 0.25 * (up + down + left + right) of the previous grid, which
//! is kept in a second buffer. The interior rows are cut into leaf blocks of at most 64
//! rows, and a parallel region is a recursive join over the blocks.
//!
//! `jacobi` runs one parallel region per step: a global barrier after every step. In
//! `jacobi-10` (the comparison of the paper's section 4.4) each leaf runs 10 steps on its
//! block before the region ends, so there is a barrier every 10 steps only. To stay exact it
//! uses ghost zones: the leaf reads its rows plus 10 halo rows on each side from the grid of
//! the last barrier, and at step t of 10 recomputes its rows plus 10 - t halo rows per side
//! in two private scratch buffers (allocated in `make`), writing only its own rows at step
//! 10. The price is redundant work on the halos (90 row-steps per 10 steps: 14% for a
//! 64-row block) and memory (the scratch buffers hold 2.6 grids). Both variants use the
//! same row kernel, so both must equal the sequential per-step result bit for bit.
//!
//! Sizes (n): Test 128, Default 2048 (about 0.55 s sequentially for `jacobi` on the
//! development machine, 0.3 s for `jacobi-10`, whose blocks stay in cache for 10 steps),
//! Paper 4096.

use std::ops::Range;
use std::sync::OnceLock;

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "jacobi",
            about: "100 steps of 4-point Jacobi relaxation, a barrier after every step (Lea)",
            make: |size| Box::new(Jacobi::new(size, 1)),
        },
        Program {
            name: "jacobi-10",
            about: "jacobi with a barrier every 10 steps only (ghost zones, same answer)",
            make: |size| Box::new(Jacobi::new(size, 10)),
        },
    ]
}

const STEPS: usize = 100;
/// The most rows a leaf block holds.
const LEAF_ROWS: usize = 64;

struct Jacobi {
    n: usize,
    /// Steps between barriers; divides `STEPS`.
    steps_per_sync: usize,
    /// The grid before and after each step, row-major n x n.
    grids: [Vec<f64>; 2],
    blocks: Vec<Block>,
    /// The sequential per-step result, computed on the first `verify`.
    sequential: OnceLock<Vec<f64>>,
}

/// A leaf of the parallel regions: a range of interior rows and, with several steps per
/// barrier, its two scratch buffers covering its rows plus the halos.
struct Block {
    rows: Range<usize>,
    scratch: [Vec<f64>; 2],
}

impl Jacobi {
    fn new(size: Size, steps_per_sync: usize) -> Jacobi {
        let n = match size {
            Size::Test => 128,
            Size::Default => 2048,
            Size::Paper => 4096,
        };
        Jacobi {
            n,
            steps_per_sync,
            grids: [initial_grid(n), initial_grid(n)],
            blocks: blocks(n, steps_per_sync, LEAF_ROWS),
            sequential: OnceLock::new(),
        }
    }

    /// The grid holding the result after `run`: each region swaps the two.
    fn result(&self) -> &[f64] {
        &self.grids[(STEPS / self.steps_per_sync) % 2]
    }
}

impl Workload for Jacobi {
    fn reset(&mut self) {
        let initial = initial_grid(self.n);
        for g in &mut self.grids {
            g.copy_from_slice(&initial);
        }
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (grids, blocks, n, k) = (
            &mut self.grids,
            &mut self.blocks[..],
            self.n,
            self.steps_per_sync,
        );
        match ctx {
            Ctx::Sequential => relax(&mut Seq, grids, blocks, n, k),
            Ctx::Forkjoin => relax(&mut Fj, grids, blocks, n, k),
            Ctx::Rayon => relax(&mut Rayon, grids, blocks, n, k),
            Ctx::Chili(s) => relax(&mut Chili(s), grids, blocks, n, k),
            Ctx::Split(r) => relax(&mut r.join(), grids, blocks, n, k),
        }
    }

    fn verify(&self) -> Result<(), String> {
        let n = self.n;
        let seq = self.sequential.get_or_init(|| {
            let mut grids = [initial_grid(n), initial_grid(n)];
            relax(&mut Seq, &mut grids, &mut blocks(n, 1, LEAF_ROWS), n, 1);
            let [result, _] = grids; // STEPS is even
            result
        });
        let found = self.result();
        let differ = |(x, y): (&f64, &f64)| x.to_bits() != y.to_bits();
        let Some(first) = found.iter().zip(seq).position(differ) else {
            return Ok(());
        };
        let max_diff = found
            .iter()
            .zip(seq)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        Err(format!(
            "jacobi: grid[{}][{}]: expected {:e} (sequential per-step, bit-exact), found {:e}; max |diff| {max_diff:e}",
            first / n,
            first % n,
            seq[first],
            found[first]
        ))
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some((self.blocks.len() as u64 - 1) * (STEPS / self.steps_per_sync) as u64)
    }
}

/// Edges 1.0, interior 0.0.
fn initial_grid(n: usize) -> Vec<f64> {
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                g[i * n + j] = 1.0;
            }
        }
    }
    g
}

/// The leaf blocks: interior rows 1..n-1 halved recursively down to at most `leaf_rows`.
fn blocks(n: usize, steps_per_sync: usize, leaf_rows: usize) -> Vec<Block> {
    fn cut(rows: Range<usize>, leaf_rows: usize, out: &mut Vec<Range<usize>>) {
        if rows.len() <= leaf_rows {
            out.push(rows);
        } else {
            let mid = rows.start + rows.len() / 2;
            cut(rows.start..mid, leaf_rows, out);
            cut(mid..rows.end, leaf_rows, out);
        }
    }
    let mut ranges = Vec::new();
    cut(1..n - 1, leaf_rows, &mut ranges);
    ranges
        .into_iter()
        .map(|rows| {
            let scratch_rows = if steps_per_sync == 1 {
                0
            } else {
                halo(&rows, n, steps_per_sync).len()
            };
            Block {
                rows,
                scratch: [vec![0.0; scratch_rows * n], vec![0.0; scratch_rows * n]],
            }
        })
        .collect()
}

/// The rows a block reads from the last barrier's grid: its own plus `k` on each side.
fn halo(rows: &Range<usize>, n: usize, k: usize) -> Range<usize> {
    rows.start.saturating_sub(k)..(rows.end + k).min(n)
}

/// `STEPS` steps, a parallel region (ending in a barrier) every `k` of them.
fn relax<J: Join>(j: &mut J, grids: &mut [Vec<f64>; 2], blocks: &mut [Block], n: usize, k: usize) {
    let [g0, g1] = grids;
    for region in 0..STEPS / k {
        let (src, dst) = if region % 2 == 0 {
            (&*g0, &mut *g1)
        } else {
            (&*g1, &mut *g0)
        };
        region_steps(j, blocks, &mut dst[n..(n - 1) * n], src, n, k);
    }
}

/// `k` steps for `blocks`, whose rows are `dst` (the interior rows of the new grid), in
/// parallel over the blocks.
fn region_steps<J: Join>(
    j: &mut J,
    blocks: &mut [Block],
    dst: &mut [f64],
    src: &[f64],
    n: usize,
    k: usize,
) {
    if let [block] = blocks {
        block_steps(block, dst, src, n, k);
        return;
    }
    let (left, right) = blocks.split_at_mut(blocks.len() / 2);
    let (dst_left, dst_right) = dst.split_at_mut((right[0].rows.start - left[0].rows.start) * n);
    j.join(
        |j| region_steps(j, left, dst_left, src, n, k),
        |j| region_steps(j, right, dst_right, src, n, k),
    );
}

/// `k` steps for one block: from `src` (the whole grid of the last barrier) to `dst` (the
/// block's rows of the new grid), through the scratch buffers when k > 1.
fn block_steps(block: &mut Block, dst: &mut [f64], src: &[f64], n: usize, k: usize) {
    let rows = block.rows.clone();
    if k == 1 {
        sweep(dst, rows.start, src, 0, rows, n);
        return;
    }
    let halo = halo(&rows, n, k);
    let [a, b] = &mut block.scratch;
    let (mut a, mut b) = (&mut a[..], &mut b[..]);
    // Edge rows are read but never computed: the scratch buffers need their fixed values.
    for s in [&mut *a, &mut *b] {
        for edge in [0, n - 1] {
            if halo.contains(&edge) {
                let at = (edge - halo.start) * n;
                s[at..at + n].copy_from_slice(&src[edge * n..(edge + 1) * n]);
            }
        }
    }
    // After step t the rows within k - t of the block are exact; step k writes only the
    // block's own rows, into the grid.
    let exact_after =
        |t: usize| (rows.start + t).saturating_sub(k).max(1)..(rows.end + k - t).min(n - 1);
    sweep(a, halo.start, src, 0, exact_after(1), n);
    for t in 2..k {
        sweep(b, halo.start, a, halo.start, exact_after(t), n);
        std::mem::swap(&mut a, &mut b);
    }
    sweep(dst, rows.start, a, halo.start, rows, n);
}

/// One step for `rows` (global row numbers): reads `input` (rows from `input_first` on),
/// writes `output` (rows from `output_first` on).
fn sweep(
    output: &mut [f64],
    output_first: usize,
    input: &[f64],
    input_first: usize,
    rows: Range<usize>,
    n: usize,
) {
    let row = |i: usize| &input[(i - input_first) * n..(i - input_first + 1) * n];
    for i in rows {
        let out = &mut output[(i - output_first) * n..(i - output_first + 1) * n];
        relax_row(out, row(i - 1), row(i), row(i + 1));
    }
}

/// The 4-point update of one row; the edge columns are copied (they are fixed).
#[inline]
fn relax_row(out: &mut [f64], up: &[f64], mid: &[f64], down: &[f64]) {
    let n = out.len();
    out[0] = mid[0];
    out[n - 1] = mid[n - 1];
    let inner = out[1..n - 1]
        .iter_mut()
        .zip(&up[1..n - 1])
        .zip(&down[1..n - 1])
        .zip(&mid[..n - 2])
        .zip(&mid[2..]);
    for ((((o, &u), &d), &l), &r) in inner {
        *o = 0.25 * (u + d + l + r);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;
    use crate::join::CountJoins;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Jacobi::new(Size::Test, 1));
        check_all_runtimes(&mut Jacobi::new(Size::Test, 10));
    }

    #[test]
    fn ghost_zones_are_exact_for_any_block_shape() {
        // Blocks shorter than the halo, uneven blocks, a single block.
        for (n, leaf_rows) in [(40, 3), (40, 7), (100, 20), (130, 64), (50, 64)] {
            for k in [2, 5, 10] {
                let mut w = Jacobi::new(Size::Test, k);
                w.n = n;
                w.grids = [initial_grid(n), initial_grid(n)];
                w.blocks = blocks(n, k, leaf_rows);
                w.run(&mut Ctx::Sequential);
                assert_eq!(w.verify(), Ok(()), "n {n}, k {k}");
            }
        }
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        for k in [1, 10] {
            let mut w = Jacobi::new(Size::Test, k);
            w.run(&mut Ctx::Sequential);
            assert!(w.verify().is_ok());
            let r = (STEPS / k) % 2;
            let cell = &mut w.grids[r][5 * w.n + 64];
            *cell = f64::from_bits(cell.to_bits() + 1); // one ulp
            assert!(w.verify().unwrap_err().contains("grid[5][64]"));
            w.reset();
            assert!(w.verify().is_err(), "the initial grid must fail");
        }
    }

    #[test]
    fn task_count() {
        let w = Jacobi::new(Size::Test, 10);
        let mut grids = [initial_grid(w.n), initial_grid(w.n)];
        let mut count = CountJoins(0);
        relax(
            &mut count,
            &mut grids,
            &mut blocks(w.n, 10, LEAF_ROWS),
            w.n,
            10,
        );
        assert_eq!(count.0, w.tasks_per_run().unwrap());
    }
}
