//! NAS FT (NPB 3.3): a 3-D FFT PDE solver, the kernel every way of running it shares.
//!
//! The benchmark: fill a complex nx x ny x nz array from the NPB generator, transform it
//! forward once, then per iteration t multiply the spectrum by exp(-4 alpha pi^2 |k|^2)
//! (cumulatively, so after t iterations the factor is that to the power t), transform it
//! back unnormalised and take a checksum of 1024 fixed points divided by nx ny nz. The
//! checksums of every iteration must match NPB's reference values to 1e-12.
//!
//! One-dimensional FFTs come from `rustfft`; which lines are transformed, in which order and
//! in parallel is ours. Every routine here works on a *local block* described by a
//! [`Layout`]: three local axes, each carrying one global dimension (x, y or z) and an
//! offset into it. One process holds the whole array in (x, y, z) order; the MPI modes
//! (`dist`) hold slabs or pencils, in other orders after their transposes, and call the same
//! routines. Parallelism is a recursive join over blocks of lines (generic over `Join`, so
//! the sequential baseline is the same code with two plain calls).

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

use crate::join::Join;

pub(crate) mod cluster;
#[cfg(feature = "mpi")]
pub(crate) mod dist;

/// An NPB problem class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    S,
    W,
    A,
    B,
}

impl Class {
    pub(crate) fn parse(s: &str) -> Result<Class, String> {
        match s {
            "S" | "s" => Ok(Class::S),
            "W" | "w" => Ok(Class::W),
            "A" | "a" => Ok(Class::A),
            "B" | "b" => Ok(Class::B),
            _ => Err(format!(
                "unknown NAS FT class `{s}` (expected S, W, A or B)"
            )),
        }
    }

    pub(crate) fn name(self) -> char {
        match self {
            Class::S => 'S',
            Class::W => 'W',
            Class::A => 'A',
            Class::B => 'B',
        }
    }

    /// [nx, ny, nz].
    pub(crate) fn dims(self) -> [usize; 3] {
        match self {
            Class::S => [64, 64, 64],
            Class::W => [128, 128, 32],
            Class::A => [256, 256, 128],
            Class::B => [512, 256, 256],
        }
    }

    pub(crate) fn iterations(self) -> usize {
        self.reference().len()
    }

    /// NPB 3.3's reference checksums (`verify` in ft.f), one per iteration.
    pub(crate) fn reference(self) -> &'static [(f64, f64)] {
        match self {
            Class::S => &[
                (5.546087004964e+02, 4.845363331978e+02),
                (5.546385409189e+02, 4.865304269511e+02),
                (5.546148406171e+02, 4.883910722336e+02),
                (5.545423607415e+02, 4.901273169046e+02),
                (5.544255039624e+02, 4.917475857993e+02),
                (5.542683411902e+02, 4.932597244941e+02),
            ],
            Class::W => &[
                (5.673612178944e+02, 5.293246849175e+02),
                (5.631436885271e+02, 5.282149986629e+02),
                (5.594024089970e+02, 5.270996558037e+02),
                (5.560698047020e+02, 5.260027904925e+02),
                (5.530898991250e+02, 5.249400845633e+02),
                (5.504159734538e+02, 5.239212247086e+02),
            ],
            Class::A => &[
                (5.046735008193e+02, 5.114047905510e+02),
                (5.059412319734e+02, 5.098809666433e+02),
                (5.069376896287e+02, 5.098144042213e+02),
                (5.077892868474e+02, 5.101336130759e+02),
                (5.085233095391e+02, 5.104914655194e+02),
                (5.091487099959e+02, 5.107917842803e+02),
            ],
            Class::B => &[
                (5.177643571579e+02, 5.077803458597e+02),
                (5.154521291263e+02, 5.088249431599e+02),
                (5.146409228649e+02, 5.096208912659e+02),
                (5.142378756213e+02, 5.101023387619e+02),
                (5.139626667737e+02, 5.103976610617e+02),
                (5.137423460082e+02, 5.105948019802e+02),
                (5.135547056878e+02, 5.107404165783e+02),
                (5.133910925466e+02, 5.108576573661e+02),
                (5.132470705390e+02, 5.109577278523e+02),
                (5.131197729984e+02, 5.110460304483e+02),
                (5.130070319283e+02, 5.111252433800e+02),
                (5.129070537032e+02, 5.111968077718e+02),
                (5.128182883502e+02, 5.112616233064e+02),
                (5.127393733383e+02, 5.113203605551e+02),
                (5.126691062020e+02, 5.113735928093e+02),
                (5.126064276004e+02, 5.114218460548e+02),
                (5.125504076570e+02, 5.114656139760e+02),
                (5.125002331720e+02, 5.115053595966e+02),
                (5.124551951846e+02, 5.115415130407e+02),
                (5.124146770029e+02, 5.115744692211e+02),
            ],
        }
    }

    /// NPB's operation count for FT (`mflops` in ft.f), for Mop/s.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn mops(self, seconds: f64) -> f64 {
        let [nx, ny, nz] = self.dims();
        let n = (nx * ny * nz) as f64;
        let flops = n
            * (14.8157
                + 7.19641 * n.ln()
                + (5.23518 + 7.21113 * n.ln()) * self.iterations() as f64);
        flops / seconds / 1e6
    }
}

/// The relative error NPB accepts on a checksum.
pub(crate) const EPSILON: f64 = 1e-12;

/// Checks `sums` (one per iteration) against the class's reference: the first failure.
pub(crate) fn verify(class: Class, sums: &[Complex64]) -> Result<(), String> {
    let reference = class.reference();
    if sums.len() != reference.len() {
        return Err(format!(
            "class {}: {} checksums, expected {}",
            class.name(),
            sums.len(),
            reference.len()
        ));
    }
    for (t, (s, &(re, im))) in sums.iter().zip(reference).enumerate() {
        let r = Complex64::new(re, im);
        let err = ((s - r) / r).norm();
        if err.is_nan() || err > EPSILON {
            return Err(format!(
                "class {} iteration {}: checksum {:.12e} {:.12e}, expected {:.12e} {:.12e} (relative error {:.1e} > {EPSILON:e})",
                class.name(),
                t + 1,
                s.re,
                s.im,
                re,
                im,
                err
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The NPB generator: x_{k+1} = a x_k mod 2^46, value x_{k+1} / 2^46.

const A: u64 = 1_220_703_125; // 5^13
const SEED: u64 = 314_159_265;
const MASK46: u64 = (1 << 46) - 1;
const R46: f64 = 1.0 / (1u64 << 46) as f64;

/// a b mod 2^46, exactly: 2^46 divides 2^64, so the wrapped 64-bit product has the right
/// low 46 bits.
fn mul46(a: u64, b: u64) -> u64 {
    a.wrapping_mul(b) & MASK46
}

fn pow46(mut base: u64, mut n: u64) -> u64 {
    let mut r = 1;
    while n > 0 {
        if n & 1 == 1 {
            r = mul46(r, base);
        }
        base = mul46(base, base);
        n >>= 1;
    }
    r
}

/// Fills `line` with the complex points of the global array starting at linear point
/// index `first` (Fortran order: x fastest): point p takes the generator's values 2p+1 and
/// 2p+2 as its real and imaginary parts, as NPB's `compute_initial_conditions`.
fn fill_line(line: &mut [Complex64], first: u64) {
    let mut x = mul46(SEED, pow46(A, 2 * first));
    for c in line {
        x = mul46(A, x);
        let re = x as f64 * R46;
        x = mul46(A, x);
        *c = Complex64::new(re, x as f64 * R46);
    }
}

// ---------------------------------------------------------------------------------------
// Local blocks.

/// A local block of the global array: `dims[a]` points along local axis `a` (axis 0
/// fastest in memory), which carries global dimension `global[a]` (0 = x, 1 = y, 2 = z)
/// from global index `offset[a]` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub dims: [usize; 3],
    pub global: [usize; 3],
    pub offset: [usize; 3],
}

impl Layout {
    /// The whole array in (x, y, z) order.
    pub(crate) fn whole(n: [usize; 3]) -> Layout {
        Layout {
            dims: n,
            global: [0, 1, 2],
            offset: [0; 3],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.dims.iter().product()
    }

    /// The global coordinates (x, y, z) of local point (a, b, c).
    pub(crate) fn global_coords(&self, local: [usize; 3]) -> [usize; 3] {
        let mut g = [0; 3];
        for ax in 0..3 {
            g[self.global[ax]] = self.offset[ax] + local[ax];
        }
        g
    }

    /// The local index of global point `g`, if this block holds it.
    pub(crate) fn local_index(&self, g: [usize; 3]) -> Option<usize> {
        let mut idx = 0;
        let mut stride = 1;
        for ax in 0..3 {
            let l = g[self.global[ax]].checked_sub(self.offset[ax])?;
            if l >= self.dims[ax] {
                return None;
            }
            idx += l * stride;
            stride *= self.dims[ax];
        }
        Some(idx)
    }
}

/// A mutable slice shared by leaf tasks that write disjoint elements.
#[derive(Clone, Copy)]
pub(crate) struct SharedMut {
    ptr: *mut Complex64,
    len: usize,
}
// SAFETY: `SharedMut` is only handed to leaves that touch disjoint index sets (each leaf's
// set is stated where it is used), while the slice it came from stays borrowed mutably.
unsafe impl Send for SharedMut {}
// SAFETY: as for `Send`: shared between leaves whose index sets are disjoint.
unsafe impl Sync for SharedMut {}

impl SharedMut {
    pub(crate) fn new(s: &mut [Complex64]) -> SharedMut {
        SharedMut {
            ptr: s.as_mut_ptr(),
            len: s.len(),
        }
    }
    /// # Safety
    /// `range` lies inside the slice and no other leaf touches it.
    // A `&mut` from `&self` is the point: the leaves share the handle and own disjoint parts.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice(&self, range: Range<usize>) -> &mut [Complex64] {
        debug_assert!(range.end <= self.len);
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
    /// # Safety
    /// `i < len` and no other leaf touches element `i`.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn at(&self, i: usize) -> &mut Complex64 {
        debug_assert!(i < self.len);
        // SAFETY: the caller's contract.
        unsafe { &mut *self.ptr.add(i) }
    }
}

/// Runs `f(i)` for every i in `range`, by recursive halving with `join`.
pub(crate) fn par_range<J: Join, F: Fn(usize) + Sync>(j: &mut J, range: Range<usize>, f: &F) {
    if range.len() <= 1 {
        if let Some(i) = range.clone().next() {
            f(i);
        }
        return;
    }
    let mid = range.start + range.len() / 2;
    j.join(
        |j| par_range(j, range.start..mid, f),
        |j| par_range(j, mid..range.end, f),
    );
}

/// Fills the block with the initial conditions. Local axis 0 must be global x, so that
/// each local line is a run of consecutive generator values.
pub(crate) fn initial_conditions<J: Join>(
    j: &mut J,
    u: &mut [Complex64],
    layout: &Layout,
    n: [usize; 3],
) {
    assert_eq!(
        layout.global[0], 0,
        "initial conditions need x as the fastest axis"
    );
    assert_eq!(u.len(), layout.len());
    let [d0, d1, d2] = layout.dims;
    let shared = SharedMut::new(u);
    par_range(j, 0..d2, &|c| {
        for b in 0..d1 {
            let [x, y, z] = layout.global_coords([0, b, c]);
            let first = (x + n[0] * (y + n[1] * z)) as u64;
            let start = (b + d1 * c) * d0;
            // SAFETY: leaf c writes the lines of plane c only.
            fill_line(unsafe { shared.slice(start..start + d0) }, first);
        }
    });
}

/// The 1-D transforms of the three global lengths, forward and inverse.
pub(crate) struct Plans {
    forward: [Arc<dyn Fft<f64>>; 3],
    inverse: [Arc<dyn Fft<f64>>; 3],
}

impl Plans {
    pub(crate) fn new(n: [usize; 3]) -> Plans {
        let mut planner = FftPlanner::new();
        Plans {
            forward: n.map(|len| planner.plan_fft_forward(len)),
            inverse: n.map(|len| planner.plan_fft_inverse(len)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Inverse,
}

/// How many lines a strided leaf gathers at once (16 complex numbers: 4 cache lines per
/// row of the gather).
pub(crate) const GATHER: usize = 16;
/// About how many points a contiguous leaf transforms.
pub(crate) const LEAF_POINTS: usize = 1 << 14;

/// A per-thread buffer that always starts on a page boundary. Where a heap buffer starts
/// depends on the allocator's heap for that thread and its history, and that moved FT's time by up to
/// 15% from one thread (so one runtime) to another: the gathers stream lines of the array
/// through the buffer, and how their addresses fall relative to each other modulo 4 KiB
/// (4K aliasing, cache sets) decides how well loads and stores overlap. Page-aligned, every
/// runtime and the sequential baseline see the same relation.
#[derive(Default)]
struct PageAligned(Vec<Complex64>);

/// Complex numbers per 4 KiB page.
const PAGE_POINTS: usize = 4096 / std::mem::size_of::<Complex64>();

impl PageAligned {
    /// The first `len` points, from a page boundary (zeroed when first grown).
    fn get(&mut self, len: usize) -> &mut [Complex64] {
        if self.0.len() < len + PAGE_POINTS {
            self.0 = vec![Complex64::default(); len + PAGE_POINTS];
        }
        let skip = self.0.as_ptr().align_offset(4096);
        // A Complex64 is 16 bytes and a heap block at least 16-aligned, so `skip` is a
        // whole number of points below PAGE_POINTS.
        &mut self.0[skip..skip + len]
    }
}

thread_local! {
    /// The FFT's scratch and the gather buffer.
    static SCRATCH: RefCell<(PageAligned, PageAligned)> = RefCell::new(Default::default());
}

/// Transforms every line of the block along local axis `axis` (unnormalised, as NPB).
pub(crate) fn fft_axis<J: Join>(
    j: &mut J,
    u: &mut [Complex64],
    layout: &Layout,
    axis: usize,
    dir: Direction,
    plans: &Plans,
) {
    assert_eq!(u.len(), layout.len());
    let [d0, d1, d2] = layout.dims;
    let g = layout.global[axis];
    let fft = match dir {
        Direction::Forward => &plans.forward[g],
        Direction::Inverse => &plans.inverse[g],
    };
    assert_eq!(
        fft.len(),
        layout.dims[axis],
        "local axis {axis} must be whole"
    );
    let shared = SharedMut::new(u);
    if axis == 0 {
        let lines = d1 * d2;
        let per_leaf = (LEAF_POINTS / d0).max(1);
        par_range(j, 0..lines.div_ceil(per_leaf), &|leaf| {
            let first = leaf * per_leaf;
            let last = (first + per_leaf).min(lines);
            SCRATCH.with_borrow_mut(|(scratch, _)| {
                let scratch = scratch.get(fft.get_inplace_scratch_len());
                // SAFETY: leaf `leaf` owns lines first..last.
                let data = unsafe { shared.slice(first * d0..last * d0) };
                fft.process_with_scratch(data, scratch);
            });
        });
        return;
    }
    // Strided lines: element t of line (o, i) sits at o * outer_stride + i + t * stride.
    let (len, stride, outer, outer_stride) = if axis == 1 {
        (d1, d0, d2, d0 * d1)
    } else {
        (d2, d0 * d1, d1, d0)
    };
    let blocks = d0.div_ceil(GATHER);
    par_range(j, 0..outer * blocks, &|leaf| {
        let (o, blk) = (leaf / blocks, leaf % blocks);
        let i0 = blk * GATHER;
        let width = GATHER.min(d0 - i0);
        let base = o * outer_stride + i0;
        SCRATCH.with_borrow_mut(|(scratch, buf)| {
            let scratch = scratch.get(fft.get_inplace_scratch_len());
            let buf = buf.get(width * len);
            for t in 0..len {
                for w in 0..width {
                    // SAFETY: leaf (o, blk) alone touches columns i0..i0+width of outer
                    // index o.
                    buf[w * len + t] = unsafe { *shared.at(base + w + t * stride) };
                }
            }
            fft.process_with_scratch(buf, scratch);
            for t in 0..len {
                for w in 0..width {
                    // SAFETY: as above.
                    unsafe { *shared.at(base + w + t * stride) = buf[w * len + t] };
                }
            }
        });
    });
}

/// exp(-4 alpha pi^2 m) for m = 0..=max |k|^2: NPB's twiddle factor, looked up by the
/// integer |k|^2 so each factor is the very value NPB computes.
pub(crate) struct Twiddle {
    n: [usize; 3],
    table: Vec<f64>,
}

const ALPHA: f64 = 1e-6;

impl Twiddle {
    pub(crate) fn new(n: [usize; 3]) -> Twiddle {
        let max: usize = n.iter().map(|&d| (d / 2) * (d / 2)).sum();
        let ap = -4.0 * ALPHA * std::f64::consts::PI * std::f64::consts::PI;
        Twiddle {
            n,
            table: (0..=max).map(|m| (ap * m as f64).exp()).collect(),
        }
    }
}

/// The signed frequency of index i of a dimension of length d.
fn frequency(i: usize, d: usize) -> i64 {
    ((i + d / 2) % d) as i64 - (d / 2) as i64
}

/// One time step in frequency space, as NPB's `evolve`: u *= exp(-4 alpha pi^2 |k|^2), and
/// `out` = the new u (the copy the inverse FFT then works in), in the same pass.
pub(crate) fn evolve<J: Join>(
    j: &mut J,
    u: &mut [Complex64],
    out: &mut [Complex64],
    layout: &Layout,
    tw: &Twiddle,
) {
    assert_eq!(u.len(), layout.len());
    assert_eq!(out.len(), layout.len());
    let [d0, d1, d2] = layout.dims;
    // The squared frequency along each local axis, per local index.
    let sq: Vec<Vec<usize>> = (0..3)
        .map(|ax| {
            let d = tw.n[layout.global[ax]];
            (0..layout.dims[ax])
                .map(|l| frequency(layout.offset[ax] + l, d).pow(2) as usize)
                .collect()
        })
        .collect();
    let (shared, copy) = (SharedMut::new(u), SharedMut::new(out));
    par_range(j, 0..d2, &|c| {
        let plane = c * d0 * d1..(c + 1) * d0 * d1;
        // SAFETY: leaf c owns plane c of both arrays.
        let (plane, copy) = unsafe { (shared.slice(plane.clone()), copy.slice(plane)) };
        for b in 0..d1 {
            let bc = sq[1][b] + sq[2][c];
            for (a, v) in plane[b * d0..(b + 1) * d0].iter_mut().enumerate() {
                *v *= tw.table[sq[0][a] + bc];
            }
        }
        // A plain copy of the plane while it is in cache (memcpy beats a second store in
        // the loop above).
        copy.copy_from_slice(plane);
    });
}

/// This block's part of NPB's checksum: the sum of u at global points (j mod nx, 3j mod ny,
/// 5j mod nz), j = 1..=1024, that it holds, divided by nx ny nz. Summed over all blocks
/// (in any order: 1024 terms) it is the checksum.
pub(crate) fn checksum(u: &[Complex64], layout: &Layout, n: [usize; 3]) -> Complex64 {
    let mut sum = Complex64::default();
    for jj in 1..=1024usize {
        let g = [jj % n[0], (3 * jj) % n[1], (5 * jj) % n[2]];
        if let Some(i) = layout.local_index(g) {
            sum += u[i];
        }
    }
    sum / (n[0] * n[1] * n[2]) as f64
}

/// The process grid of the pencil decomposition: pr x pc = p, pr the largest divisor of p
/// not above its square root.
pub(crate) fn grid(p: usize) -> (usize, usize) {
    let pr = (1..=p)
        .filter(|d| p.is_multiple_of(*d) && d * d <= p)
        .max()
        .unwrap_or(1);
    (pr, p / pr)
}

/// The whole benchmark in one process: the arrays, and `run` for the timed part.
pub(crate) struct Solver {
    pub class: Class,
    n: [usize; 3],
    layout: Layout,
    plans: Plans,
    twiddle: Twiddle,
    /// The spectrum, evolved in place.
    spectrum: Vec<Complex64>,
    /// The inverse transform of the current spectrum.
    work: Vec<Complex64>,
}

impl Solver {
    pub(crate) fn new(class: Class) -> Solver {
        let n = class.dims();
        let layout = Layout::whole(n);
        Solver {
            class,
            n,
            layout,
            plans: Plans::new(n),
            twiddle: Twiddle::new(n),
            spectrum: vec![Complex64::default(); layout.len()],
            work: vec![Complex64::default(); layout.len()],
        }
    }

    /// Initial conditions, forward FFT, then per iteration evolve, inverse FFT, checksum.
    /// Returns the checksums.
    pub(crate) fn run<J: Join>(&mut self, j: &mut J) -> Vec<Complex64> {
        let (n, layout, plans) = (self.n, self.layout, &self.plans);
        initial_conditions(j, &mut self.spectrum, &layout, n);
        for axis in 0..3 {
            fft_axis(
                j,
                &mut self.spectrum,
                &layout,
                axis,
                Direction::Forward,
                plans,
            );
        }
        let mut sums = Vec::with_capacity(self.class.iterations());
        for _ in 0..self.class.iterations() {
            evolve(
                j,
                &mut self.spectrum,
                &mut self.work,
                &layout,
                &self.twiddle,
            );
            for axis in (0..3).rev() {
                fft_axis(j, &mut self.work, &layout, axis, Direction::Inverse, plans);
            }
            sums.push(checksum(&self.work, &layout, n));
        }
        sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::{CountJoins, Seq};

    #[test]
    fn generator_matches_npb_randlc() {
        // randlc from seed 314159265 with a = 5^13: first value 1220703125 * 314159265 mod
        // 2^46, divided by 2^46 (worked out independently with big integers).
        let expected =
            (1_220_703_125u128 * 314_159_265u128 % (1u128 << 46)) as f64 / (1u64 << 46) as f64;
        let mut line = [Complex64::default(); 2];
        fill_line(&mut line, 0);
        assert_eq!(line[0].re, expected);
        // Jumping ahead equals stepping.
        let mut from_one = [Complex64::default(); 1];
        fill_line(&mut from_one, 1);
        assert_eq!(from_one[0], line[1]);
    }

    #[test]
    fn grids_are_near_square() {
        assert_eq!(
            [1, 2, 3, 4, 6, 8, 16].map(grid),
            [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (2, 4), (4, 4)]
        );
    }

    #[test]
    fn frequencies_are_signed() {
        let f: Vec<i64> = (0..8).map(|i| frequency(i, 8)).collect();
        assert_eq!(f, [0, 1, 2, 3, -4, -3, -2, -1]);
    }

    #[test]
    fn class_s_verifies_sequentially() {
        let mut s = Solver::new(Class::S);
        let sums = s.run(&mut Seq);
        verify(Class::S, &sums).unwrap();
        // A wrong answer is caught: the first checksum nudged by 1e-9 relative.
        let mut bad = sums.clone();
        bad[0] *= 1.0 + 1e-9;
        assert!(verify(Class::S, &bad).unwrap_err().contains("iteration 1"));
        assert!(verify(Class::S, &sums[..5]).is_err());
    }

    #[test]
    fn class_w_verifies_on_a_pool() {
        let pool = forkjoin::Pool::new(3).unwrap();
        let mut s = Solver::new(Class::W);
        let sums = pool.install(|| s.run(&mut crate::join::Fj));
        verify(Class::W, &sums).unwrap();
    }

    #[test]
    fn local_blocks_map_back_to_the_whole() {
        // A block of the transposed (x, z, y) layout: each local point's global
        // coordinates, looked up again, give the same local index.
        let l = Layout {
            dims: [4, 8, 2],
            global: [0, 2, 1],
            offset: [0, 0, 6],
        };
        let mut idx = 0;
        for c in 0..2 {
            for b in 0..8 {
                for a in 0..4 {
                    assert_eq!(l.local_index(l.global_coords([a, b, c])), Some(idx));
                    idx += 1;
                }
            }
        }
        assert_eq!(l.local_index([0, 0, 0]), None);
        // par_range visits each index once: 100 leaves, 99 joins.
        let mut count = CountJoins(0);
        let hits = std::sync::Mutex::new(vec![0; 100]);
        par_range(&mut count, 0..100, &|i| hits.lock().unwrap()[i] += 1);
        assert_eq!(count.0, 99);
        assert!(hits.into_inner().unwrap().iter().all(|&h| h == 1));
    }
}
