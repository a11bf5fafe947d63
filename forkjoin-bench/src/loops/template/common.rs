//! What every program uses, whatever its prelude: the closure kinds, the accumulators,
//! the per-thread scratch of `for_each_init`, the checksums and the input.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// Every value a closure returns stays below 2^32: sums of up to 2^20 of them cannot
/// overflow, so every split order gives the same answer.
pub const LOW: u64 = 0xffff_ffff;

/// `arith`: vectorisable arithmetic.
#[inline(always)]
pub fn k_arith(v: u64) -> u64 {
    v.wrapping_mul(3).wrapping_add(1) & LOW
}

/// `branch`: data-dependent branches.
#[inline(always)]
pub fn k_branch(v: u64) -> u64 {
    if v % 3 == 0 {
        v / 3
    } else if v & 4 != 0 {
        v.wrapping_mul(5) & LOW
    } else {
        v ^ 0x5555
    }
}

/// `float`: a square root and a multiply-add on the value's high 20 bits. The result is
/// integer-valued (truncated through an integer: `floor` and `%` are library calls
/// without SSE4.1) and below 2^21, so sums of such floats are exact in any order.
#[inline(always)]
pub fn k_float(f: f64) -> f64 {
    let f = ((f as u64) >> 12) as f64;
    ((f * 1.25 + f.sqrt() * 3.0) as u64) as f64
}

/// `rounds` rounds of the splitmix64 finaliser, the high half: a dependent chain.
#[inline(always)]
pub fn spin(x: u64, rounds: u32) -> u64 {
    let mut z = x;
    for _ in 0..rounds {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
    }
    z >> 32
}

/// `hash`: four rounds.
#[inline(always)]
pub fn k_hash(v: u64) -> u64 {
    spin(v, 4)
}

/// `spin`: `rounds` rounds (read at run time: about 100 ns).
#[inline(always)]
pub fn k_spin(v: u64, rounds: u32) -> u64 {
    spin(v, rounds)
}

/// `alloc`: a `Vec` of 1 to 8 items per call (black-boxed, so that it is allocated).
#[inline(always)]
pub fn k_alloc(v: u64) -> u64 {
    let s: Vec<u64> = (0..(v & 7) + 1).map(|j| v ^ j).collect();
    let s = black_box(s);
    s.iter().fold(0u64, |a, &b| a.wrapping_add(b)) & LOW
}

/// `string`: a `String` formatted per call.
#[inline(always)]
pub fn k_string(v: u64) -> u64 {
    let s = format!("{v:x}");
    s.bytes().fold(v, |a, b| a.wrapping_mul(31).wrapping_add(b as u64)) & LOW
}

/// `scratch`: as `alloc`, in a `Vec` reused from call to call.
#[inline(always)]
pub fn k_scratch(s: &mut Vec<u64>, v: u64) -> u64 {
    s.clear();
    s.extend((0..(v & 7) + 1).map(|j| v ^ j));
    black_box(&mut *s);
    s.iter().fold(0u64, |a, &b| a.wrapping_add(b)) & LOW
}

/// A search's predicate `rare`: one value in 2^20.
#[inline(always)]
pub fn rare(v: u64) -> bool {
    k_hash(v) & 0xf_ffff == 7
}

/// The sum of a chunk, masked.
#[inline(always)]
pub fn chunk_sum(c: &[u64]) -> u64 {
    c.iter().fold(0u64, |a, &b| a.wrapping_add(b)) & LOW
}

/// An accumulator of `N` words (8N bytes): each value added to the word it selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acc<const N: usize>(pub [u64; N]);

impl<const N: usize> Acc<N> {
    #[inline(always)]
    pub fn zero() -> Self {
        Acc([0; N])
    }
    #[inline(always)]
    pub fn add(mut self, v: u64) -> Self {
        let at = (v as usize) % N;
        self.0[at] = self.0[at].wrapping_add(v);
        self
    }
    #[inline(always)]
    pub fn merge(mut self, other: Self) -> Self {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.wrapping_add(b);
        }
        self
    }
    /// Linear in the words, so that a sum of checksums is the checksum of the merge.
    pub fn check(&self) -> u64 {
        self.0
            .iter()
            .enumerate()
            .fold(0u64, |a, (i, &w)| a.wrapping_add(w.wrapping_mul(i as u64 + 1)))
    }
}

impl<const N: usize> std::iter::Sum for Acc<N> {
    fn sum<I: Iterator<Item = Self>>(it: I) -> Self {
        it.fold(Acc::zero(), Acc::merge)
    }
}

/// An accumulator that carries a scratch `Vec` (the `scratch` kind of a fold).
#[derive(Clone, Debug)]
pub struct Scr<const N: usize> {
    pub acc: Acc<N>,
    pub tmp: Vec<u64>,
}

impl<const N: usize> Scr<N> {
    #[inline(always)]
    pub fn zero() -> Self {
        Scr {
            acc: Acc::zero(),
            tmp: Vec::new(),
        }
    }
    #[inline(always)]
    pub fn push(mut self, v: u64) -> Self {
        let r = k_scratch(&mut self.tmp, v);
        self.acc = self.acc.add(r);
        self
    }
    #[inline(always)]
    pub fn merge(mut self, other: Self) -> Self {
        self.acc = self.acc.merge(other.acc);
        self
    }
    pub fn check(&self) -> u64 {
        self.acc.check()
    }
}

impl<const N: usize> std::iter::Sum for Scr<N> {
    fn sum<I: Iterator<Item = Self>>(it: I) -> Self {
        it.fold(Scr::zero(), Scr::merge)
    }
}

/// `for_each_init`'s per-thread scratch: values are buffered 64 at a time and summed;
/// dropping it adds its sum to the shared one (any split gives the same total).
pub struct Flush<'a> {
    sink: &'a AtomicU64,
    sum: u64,
    buf: Vec<u64>,
    /// The `scratch` kind's buffer.
    pub tmp: Vec<u64>,
}

impl<'a> Flush<'a> {
    pub fn new(sink: &'a AtomicU64) -> Self {
        Flush {
            sink,
            sum: 0,
            buf: Vec::with_capacity(64),
            tmp: Vec::new(),
        }
    }
    #[inline(always)]
    pub fn push(&mut self, v: u64) {
        self.buf.push(v);
        if self.buf.len() == 64 {
            self.sum = self.sum.wrapping_add(self.buf.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
            self.buf.clear();
        }
    }
}

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        let rest = self.buf.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        self.sink.fetch_add(self.sum.wrapping_add(rest), Ordering::Relaxed);
    }
}

/// A checksum of `v` through `f`: its length and about 4,096 of its items at a stride.
pub fn cs<T>(v: &[T], f: impl Fn(&T) -> u64) -> u64 {
    let stride = (v.len() / 4096).max(1);
    v.iter()
        .step_by(stride)
        .fold(v.len() as u64, |a, x| a.wrapping_mul(31).wrapping_add(f(x)))
}

pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Which of the input's vectors a program reads.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    pub v: bool,
    pub w: bool,
    pub fv: bool,
    pub out: bool,
}

/// A program's input, made once, outside the timed runs.
pub struct Input {
    pub n: usize,
    /// Values below 2^24.
    pub v: Vec<u64>,
    pub w: Vec<u64>,
    /// Integer-valued floats below 2^24.
    pub fv: Vec<f64>,
    /// What `iter-mut` writes: low halves below 2^32 read, high halves written.
    pub out: Vec<u64>,
    /// The `spin` kind's rounds (black-boxed).
    pub rounds: u32,
    /// A value no item has (black-boxed).
    pub missing: u64,
}

impl Input {
    pub fn new(n: usize, needs: Needs, seed: u64) -> Input {
        let mut s = seed;
        let mut values = |on: bool, shift: u32| -> Vec<u64> {
            if on {
                (0..n).map(|_| splitmix64(&mut s) >> shift).collect()
            } else {
                Vec::new()
            }
        };
        let v = values(needs.v, 40);
        let w = values(needs.w, 40);
        let fv = values(needs.fv, 40).into_iter().map(|x| x as f64).collect();
        let out = values(needs.out, 32);
        Input {
            n,
            v,
            w,
            fv,
            out,
            rounds: black_box(40),
            missing: black_box(u64::MAX),
        }
    }

    /// Clears what the last run wrote (the high halves of `out`), so that a version that
    /// fails to write an item shows in its answer.
    pub fn reset(&mut self) {
        for o in &mut self.out {
            *o &= LOW;
        }
    }
}
