//! NAS FT over MPI, in the two decompositions of the ParJava paper:
//!
//! - `Processes` (NPB's FT): a 2-D (pencil) decomposition over a pr x pc grid of
//!   processes, one per core; each FFT transforms the local whole axis, then two
//!   all-to-alls (within a grid column, then within a grid row) bring the next axis whole.
//! - `Hybrid` (FT_T): a 1-D (slab) decomposition, one process per node; each process's
//!   pool transforms its planes in x and y, one all-to-all makes z whole.
//!
//! Every compute phase runs on the process's pool through `Comm::compute`, so a run with a
//! network model charges it to the process's model clock; the transposes go through
//! `Comm::all_to_all`.

use std::time::Instant;

use forkjoin::Pool;
use forkjoin_mpi::mpi::collective::CommunicatorCollectives;
use forkjoin_mpi::Comm;
use rustfft::num_complex::Complex64;

use super::{
    checksum, evolve, fft_axis, grid, initial_conditions, par_range, Class, Direction, Layout,
    Plans, SharedMut, Twiddle,
};
use crate::join::Fj;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Processes,
    Hybrid,
}

impl Mode {
    pub(crate) fn parse(s: &str) -> Result<Mode, String> {
        match s {
            "processes" => Ok(Mode::Processes),
            "hybrid" => Ok(Mode::Hybrid),
            _ => Err(format!("unknown mode `{s}` (expected processes or hybrid)")),
        }
    }
}

/// One exchange between layouts: every member of the group holds the whole of global
/// dimension `split` and its piece of `gather`; afterwards it holds its piece of `split`
/// and the whole of `gather`. `src` and `dst` are this member's layouts before and after.
struct Transpose {
    src: Layout,
    dst: Layout,
    split: usize,
    gather: usize,
}

/// The local axis of `l` that carries global dimension `g`.
fn axis_of(l: &Layout, g: usize) -> usize {
    (0..3)
        .find(|&a| l.global[a] == g)
        .expect("every layout carries x, y and z")
}

impl Transpose {
    /// The sub-box of `from` (a member's source layout) bound for member q: its `split`
    /// axis cut to q's piece.
    fn block(&self, from: &Layout, q: usize, p: usize) -> Layout {
        let a = axis_of(from, self.split);
        let mut b = *from;
        b.dims[a] = from.dims[a] / p;
        b.offset[a] = q * b.dims[a];
        b
    }

    /// Member p's source layout: this member's with the `gather` piece moved to p's.
    fn source_of(&self, p: usize) -> Layout {
        let a = axis_of(&self.src, self.gather);
        let mut l = self.src;
        l.offset[a] = p * l.dims[a];
        l
    }

    /// Exchanges `src` (laid out as `self.src`) into `dst` (as `self.dst`) through the
    /// reusable buffers `buf`.
    fn run(
        &self,
        comm: &Comm,
        pool: &Pool,
        src: &[Complex64],
        dst: &mut [Complex64],
        buf: &mut Buffers,
    ) {
        let p = comm.size();
        let me = comm.rank();
        let block_len = src.len() / p;
        // Leaves: (member, run of rows) pairs, about `LEAF_POINTS` points each, so that
        // the copies run in parallel whatever the number of members.
        let row_len = self.block(&self.src, 0, p).dims[0];
        let rows = block_len / row_len;
        let rows_per_leaf = (super::LEAF_POINTS / row_len).max(1);
        let chunks = rows.div_ceil(rows_per_leaf);
        let leaf_rows = |leaf: usize| {
            let first = (leaf % chunks) * rows_per_leaf;
            (leaf / chunks, first..(first + rows_per_leaf).min(rows))
        };
        // Pack: block q holds the sub-box bound for q, in source order. My own block is not
        // packed: the unpack copies it straight from `src`.
        comm.compute(pool, || {
            let out = SharedMut::new(as_complex_mut(&mut buf.send));
            par_range(&mut Fj, 0..p * chunks, &|leaf| {
                let (q, rows) = leaf_rows(leaf);
                if q == me {
                    return;
                }
                let b = self.block(&self.src, q, p);
                for r in rows {
                    let (g, len) = row(&b, r);
                    let i = self
                        .src
                        .local_index(g)
                        .expect("the box lies inside the layout");
                    let at = q * block_len + r * len;
                    // SAFETY: leaf (q, rows) writes those rows of block q only.
                    unsafe { out.slice(at..at + len) }.copy_from_slice(&src[i..i + len]);
                }
            });
        });
        // Every member's block but my own arrives in `recv`.
        comm.all_to_all(&buf.send, &mut buf.recv);
        let received = as_complex(&buf.recv);
        // Unpack: block `from` is the sub-box of that member's source bound for me, in its
        // source order; its rows run along x, which is local axis 0 of every layout here.
        debug_assert_eq!(self.dst.global[0], self.src.global[0]);
        comm.compute(pool, || {
            let out = SharedMut::new(dst);
            par_range(&mut Fj, 0..p * chunks, &|leaf| {
                let (from, rows) = leaf_rows(leaf);
                let b = self.block(&self.source_of(from), me, p);
                for r in rows {
                    let (g, len) = row(&b, r);
                    let i = self
                        .dst
                        .local_index(g)
                        .expect("a received point belongs to this member");
                    let row = if from == me {
                        let at = self
                            .src
                            .local_index(g)
                            .expect("my block lies inside my source");
                        &src[at..at + len]
                    } else {
                        let at = from * block_len + r * len;
                        &received[at..at + len]
                    };
                    // SAFETY: distinct (sender, row) pairs land on disjoint rows of `dst`
                    // (the senders' `gather` pieces differ, and so do a block's rows).
                    unsafe { out.slice(i..i + len) }.copy_from_slice(row);
                }
            });
        });
    }
}

/// The send and receive buffers of the exchanges, allocated once per run.
struct Buffers {
    send: Vec<f64>,
    recv: Vec<f64>,
}

/// Row r of box `b` (rows run along local axis 0, in `b`'s order): the global coordinates
/// of its first point, and its length.
fn row(b: &Layout, r: usize) -> ([usize; 3], usize) {
    let mut g = [0; 3];
    g[b.global[0]] = b.offset[0];
    g[b.global[1]] = b.offset[1] + r % b.dims[1];
    g[b.global[2]] = b.offset[2] + r / b.dims[1];
    (g, b.dims[0])
}

fn as_complex(v: &[f64]) -> &[Complex64] {
    // SAFETY: Complex64 is #[repr(C)] { re: f64, im: f64 }: two f64 with f64's alignment,
    // so 2n f64 are n Complex64; the length is halved (the buffers have even lengths).
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), v.len() / 2) }
}

fn as_complex_mut(v: &mut [f64]) -> &mut [Complex64] {
    // SAFETY: as in `as_complex`; the borrow is unique.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), v.len() / 2) }
}

/// What a run measured.
pub(crate) struct Outcome {
    pub(crate) sums: Vec<Complex64>,
    /// The slowest rank's wall time of the timed part.
    pub(crate) seconds: f64,
    /// The latest model clock at the end, when a model was asked for.
    pub(crate) model_seconds: Option<f64>,
    /// Of that, the communication of the rank with the latest clock.
    pub(crate) model_communication: Option<f64>,
    /// Ranks that reached the end (a sum over all of them: the run's size when none was
    /// lost).
    pub(crate) ranks: usize,
}

/// The layouts of one decomposition and its exchanges: each transpose of the forward FFT
/// is followed by the transform of the local axis it made whole, and runs in one of the
/// plan's communicators; the inverse FFT runs its own list.
struct Plan {
    /// Physical space: x whole, where the run starts and ends.
    physical: Layout,
    forward: Vec<(Transpose, usize, usize)>,
    inverse: Vec<(Transpose, usize, usize)>,
    groups: Vec<Comm>,
}

fn plan(class: Class, mode: Mode, world: &Comm) -> Result<Plan, String> {
    let [nx, ny, nz] = class.dims();
    let p = world.size();
    let me = world.rank();
    let name = class.name();
    match mode {
        Mode::Hybrid => {
            if nz % p != 0 || ny % p != 0 {
                return Err(format!(
                    "class {name} in hybrid mode needs the number of processes ({p}) to divide ny = {ny} and nz = {nz}"
                ));
            }
            // Slabs of z planes; after the exchange, slabs of y planes stored (x, z, y).
            let physical = Layout {
                dims: [nx, ny, nz / p],
                global: [0, 1, 2],
                offset: [0, 0, me * nz / p],
            };
            let spectral = Layout {
                dims: [nx, nz, ny / p],
                global: [0, 2, 1],
                offset: [0, 0, me * ny / p],
            };
            Ok(Plan {
                physical,
                forward: vec![(
                    Transpose {
                        src: physical,
                        dst: spectral,
                        split: 1,
                        gather: 2,
                    },
                    1,
                    0,
                )],
                inverse: vec![(
                    Transpose {
                        src: spectral,
                        dst: physical,
                        split: 2,
                        gather: 1,
                    },
                    1,
                    0,
                )],
                groups: vec![world.split(0, me)],
            })
        }
        Mode::Processes => {
            let (pr, pc) = grid(p);
            if nx % pr != 0 || ny % pr != 0 || ny % pc != 0 || nz % pc != 0 {
                return Err(format!(
                    "class {name} in processes mode on a {pr} x {pc} grid needs {pr} to divide nx = {nx} and ny = {ny}, and {pc} to divide ny and nz = {nz}"
                ));
            }
            let (r, c) = (me / pc, me % pc);
            // x pencils, y pencils, z pencils, all stored (x, y, z).
            let a = Layout {
                dims: [nx, ny / pr, nz / pc],
                global: [0, 1, 2],
                offset: [0, r * ny / pr, c * nz / pc],
            };
            let b = Layout {
                dims: [nx / pr, ny, nz / pc],
                global: [0, 1, 2],
                offset: [r * nx / pr, 0, c * nz / pc],
            };
            let z = Layout {
                dims: [nx / pr, ny / pc, nz],
                global: [0, 1, 2],
                offset: [r * nx / pr, c * ny / pc, 0],
            };
            // Group 0: the grid column c (members r = 0..pr); group 1: the grid row r.
            let groups = vec![world.split(c, r), world.split(pc + r, c)];
            Ok(Plan {
                physical: a,
                forward: vec![
                    (
                        Transpose {
                            src: a,
                            dst: b,
                            split: 0,
                            gather: 1,
                        },
                        1,
                        0,
                    ),
                    (
                        Transpose {
                            src: b,
                            dst: z,
                            split: 1,
                            gather: 2,
                        },
                        2,
                        1,
                    ),
                ],
                inverse: vec![
                    (
                        Transpose {
                            src: z,
                            dst: b,
                            split: 2,
                            gather: 1,
                        },
                        1,
                        1,
                    ),
                    (
                        Transpose {
                            src: b,
                            dst: a,
                            split: 1,
                            gather: 0,
                        },
                        0,
                        0,
                    ),
                ],
                groups,
            })
        }
    }
}

/// Runs FT once: `on_iteration(t, checksum)` is called on every rank after each
/// iteration's checksum (all ranks hold the same sum).
pub(crate) fn run(
    class: Class,
    mode: Mode,
    world: &Comm,
    pool: &Pool,
    mut on_iteration: impl FnMut(usize, Complex64),
) -> Result<Outcome, String> {
    let n = class.dims();
    let plan = plan(class, mode, world)?;
    let plans = Plans::new(n);
    let twiddle = Twiddle::new(n);
    let physical = plan.physical;
    let len = physical.len();
    let mut cur = vec![Complex64::default(); len];
    let mut tmp = vec![Complex64::default(); len];
    let mut work = vec![Complex64::default(); len];
    let mut buf = Buffers {
        send: vec![0.0; 2 * len],
        recv: vec![0.0; 2 * len],
    };

    world.reset_clock();
    let start = Instant::now();
    // Forward: x (and, in slabs, y) locally, then exchange and transform.
    world.compute(pool, || {
        initial_conditions(&mut Fj, &mut cur, &physical, n);
        fft_axis(&mut Fj, &mut cur, &physical, 0, Direction::Forward, &plans);
        if mode == Mode::Hybrid {
            fft_axis(&mut Fj, &mut cur, &physical, 1, Direction::Forward, &plans);
        }
    });
    let mut spectral = physical;
    for (t, axis, g) in &plan.forward {
        t.run(&plan.groups[*g], pool, &cur, &mut tmp, &mut buf);
        std::mem::swap(&mut cur, &mut tmp);
        spectral = t.dst;
        world.compute(pool, || {
            fft_axis(
                &mut Fj,
                &mut cur,
                &spectral,
                *axis,
                Direction::Forward,
                &plans,
            )
        });
    }
    let mut spectrum = cur;
    let z = axis_of(&spectral, 2);

    let mut sums = Vec::with_capacity(class.iterations());
    for iter in 1..=class.iterations() {
        world.compute(pool, || {
            evolve(&mut Fj, &mut spectrum, &mut work, &spectral, &twiddle);
            fft_axis(&mut Fj, &mut work, &spectral, z, Direction::Inverse, &plans);
        });
        for (t, axis, g) in &plan.inverse {
            t.run(&plan.groups[*g], pool, &work, &mut tmp, &mut buf);
            std::mem::swap(&mut work, &mut tmp);
            let layout = t.dst;
            world.compute(pool, || {
                fft_axis(
                    &mut Fj,
                    &mut work,
                    &layout,
                    *axis,
                    Direction::Inverse,
                    &plans,
                );
                if mode == Mode::Hybrid {
                    fft_axis(&mut Fj, &mut work, &layout, 0, Direction::Inverse, &plans);
                }
            });
        }
        let local = checksum(&work, &physical, n);
        let mut total = [0.0f64; 2];
        world.all_reduce_sum(&[local.re, local.im], &mut total);
        let sum = Complex64::new(total[0], total[1]);
        on_iteration(iter, sum);
        sums.push(sum);
    }
    let seconds = start.elapsed().as_secs_f64();
    // After the timed part (not modelled), one gather of every rank's [present, wall time,
    // model clock, its communication part]: the slowest rank's time, and the model of the
    // rank that finished last.
    let mine = [
        1.0,
        seconds,
        world.clock().unwrap_or(0.0),
        world.communication().unwrap_or(0.0),
    ];
    let mut all = vec![0.0f64; 4 * world.size()];
    world.raw.all_gather_into(&mine[..], &mut all[..]);
    let ranks: Vec<&[f64]> = all.chunks(4).collect();
    let last = ranks
        .iter()
        .max_by(|a, b| a[2].total_cmp(&b[2]))
        .expect("at least one rank");
    Ok(Outcome {
        sums,
        seconds: ranks.iter().map(|r| r[1]).fold(0.0, f64::max),
        model_seconds: world.modelled().then_some(last[2]),
        model_communication: world.modelled().then_some(last[3]),
        ranks: ranks.iter().map(|r| r[0]).sum::<f64>() as usize,
    })
}
