//! `exact_sum` and its accumulator, [`ExactSum`]: a fixed-point number wide enough for the
//! sum of any floats, so adding is exact and the answer does not depend on the order
//! (DESIGN.md, section 8, "Deterministic reductions"). Kulisch's long accumulator, with
//! carries deferred: every limb holds 32 bits of weight in an `i64`, so an addition touches
//! three limbs without carrying, and the carries are propagated once per 2^30 additions.

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::ParallelIterator;
use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

/// Bits of weight per limb.
const LIMB_BITS: u32 = 32;
/// Limb 0's lowest bit weighs 2^-1074 (the least subnormal `f64`); a finite `f64`'s
/// highest bit is bit 2097, and 2^64 of them carry 64 bits more: 2,162 bits, 68 limbs.
const LIMBS: usize = 68;
/// Each addition adds less than 2^32 to a limb; an `i64` holds 2^31 of them. Carries are
/// propagated before that.
const ADDS_BEFORE_CARRY: u32 = 1 << 30;

/// The exact sum of floats: add `f64` or `f32` values in any order, merge accumulators
/// filled on other threads, and read the sum rounded once to the nearest float (ties to
/// even). What [`exact_sum`](crate::iter::ParallelIterator::exact_sum) uses.
///
/// ```
/// use forkjoin::iter::ExactSum;
/// let mut a = ExactSum::new();
/// a.add(1e16);
/// a.add(1.0);
/// let mut b = ExactSum::new();
/// b.add(-1e16);
/// a.merge(&b);
/// assert_eq!(a.value::<f64>(), 1.0);
/// ```
#[derive(Clone)]
pub struct ExactSum {
    limbs: [i64; LIMBS],
    /// Additions since the carries were last propagated.
    adds: u32,
    nan: bool,
    positive_infinity: bool,
    negative_infinity: bool,
    /// Some value other than -0.0 was added: an exact zero is then +0.0, as IEEE rounds
    /// `x + -x` (and the sum of nothing, or of -0.0 only, is -0.0, as `Iterator::sum`).
    not_only_negative_zeros: bool,
}

impl Default for ExactSum {
    #[inline]
    fn default() -> Self {
        ExactSum::new()
    }
}

impl fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ExactSum")
            .field(&self.value::<f64>())
            .finish()
    }
}

impl ExactSum {
    /// The sum of nothing.
    #[inline]
    pub fn new() -> ExactSum {
        ExactSum {
            limbs: [0; LIMBS],
            adds: 0,
            nan: false,
            positive_infinity: false,
            negative_infinity: false,
            not_only_negative_zeros: false,
        }
    }

    /// Adds `x` exactly.
    #[inline]
    pub fn add<F: ExactFloat>(&mut self, x: F) {
        self.add_f64(x.to_f64());
    }

    #[inline]
    fn add_f64(&mut self, x: f64) {
        let bits = x.to_bits();
        let negative = bits >> 63 == 1;
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        self.not_only_negative_zeros |= bits != 1 << 63;
        if exponent == 0x7ff {
            self.special(negative, fraction);
            return;
        }
        // The value is `mantissa * 2^(shift - 1074)`: an integer at bit `shift`.
        let (mantissa, shift) = if exponent == 0 {
            (fraction, 0)
        } else {
            (fraction | 1 << 52, exponent - 1)
        };
        let at = (shift / LIMB_BITS) as usize;
        let wide = (mantissa as u128) << (shift % LIMB_BITS);
        let pieces = [
            wide as u32 as i64,
            (wide >> 32) as u32 as i64,
            (wide >> 64) as i64,
        ];
        for (limb, piece) in self.limbs[at..at + 3].iter_mut().zip(pieces) {
            if negative {
                *limb -= piece;
            } else {
                *limb += piece;
            }
        }
        self.adds += 1;
        if self.adds == ADDS_BEFORE_CARRY {
            self.carry();
        }
    }

    #[cold]
    fn special(&mut self, negative: bool, fraction: u64) {
        if fraction != 0 {
            self.nan = true;
        } else if negative {
            self.negative_infinity = true;
        } else {
            self.positive_infinity = true;
        }
    }

    /// Adds everything `other` holds, exactly.
    #[inline]
    pub fn merge(&mut self, other: &ExactSum) {
        if self.adds.saturating_add(other.adds) >= ADDS_BEFORE_CARRY {
            self.carry();
            let mut other = other.clone();
            other.carry();
            self.add_limbs(&other);
        } else {
            self.add_limbs(other);
        }
        self.nan |= other.nan;
        self.positive_infinity |= other.positive_infinity;
        self.negative_infinity |= other.negative_infinity;
        self.not_only_negative_zeros |= other.not_only_negative_zeros;
    }

    #[inline]
    fn add_limbs(&mut self, other: &ExactSum) {
        for (limb, o) in self.limbs.iter_mut().zip(other.limbs) {
            *limb += o;
        }
        // A propagated accumulator counts as one addition per limb.
        self.adds += other.adds.max(1);
    }

    /// Propagates the carries: every limb but the top one in `0..2^32`, the top one signed.
    fn carry(&mut self) {
        normalize(&mut self.limbs);
        self.adds = 1;
    }

    /// The sum, rounded once to the nearest `F` (ties to even). With an infinity added, the
    /// infinity; with both or a NaN, NaN.
    ///
    /// ```
    /// use forkjoin::iter::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(f64::MAX);
    /// s.add(f64::MAX);
    /// s.add(-f64::MAX);
    /// assert_eq!(s.value::<f64>(), f64::MAX); // no overflow in between
    /// assert_eq!(s.value::<f32>(), f32::INFINITY);
    /// ```
    pub fn value<F: ExactFloat>(&self) -> F {
        if self.nan || (self.positive_infinity && self.negative_infinity) {
            return F::from_f64(f64::NAN);
        }
        if self.positive_infinity || self.negative_infinity {
            return F::from_f64(if self.positive_infinity {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            });
        }
        let mut limbs = self.limbs;
        normalize(&mut limbs);
        let negative = limbs[LIMBS - 1] < 0;
        if negative {
            for limb in &mut limbs {
                *limb = -*limb;
            }
            normalize(&mut limbs);
        }
        let Some(high) = limbs.iter().rposition(|&l| l != 0) else {
            return F::from_bits(if self.not_only_negative_zeros {
                0
            } else {
                F::SIGN_BIT
            });
        };
        let bits = round(&limbs, high, F::PRECISION, F::MIN_SHIFT).min(F::INFINITY_BITS);
        F::from_bits(if negative { bits | F::SIGN_BIT } else { bits })
    }
}

/// Propagates carries upward: every limb but the top one ends in `0..2^32`.
fn normalize(limbs: &mut [i64; LIMBS]) {
    for i in 0..LIMBS - 1 {
        let carry = limbs[i] >> LIMB_BITS;
        limbs[i] -= carry << LIMB_BITS;
        limbs[i + 1] += carry;
    }
}

/// The bits of the float nearest `N * 2^-1074` (ties to even), `N` the non-negative
/// normalised `limbs` whose highest non-zero limb is `high`: `precision` significant bits,
/// none below bit `min_shift` of `N` (the least subnormal). The exponent field is
/// `shift - min_shift + 1` for a normal result, and adding the integer part of the
/// significand to `(shift - min_shift) << (precision - 1)` gives it (a subnormal's field is
/// 0, and one rounded up to the least normal carries into it). At least the infinity's
/// bits when too large.
fn round(limbs: &[i64; LIMBS], high: usize, precision: u32, min_shift: u32) -> u64 {
    let bit = |i: u32| (limbs[(i / LIMB_BITS) as usize] >> (i % LIMB_BITS)) & 1 == 1;
    let length = high as u32 * LIMB_BITS + (64 - (limbs[high] as u64).leading_zeros());
    let mut shift = length.saturating_sub(precision).max(min_shift);
    let mut significand = window(limbs, shift);
    if shift > 0 && bit(shift - 1) {
        // At least half a unit in the last place: up if more, or if a tie and odd.
        let below = shift - 1;
        let sticky = (0..below / LIMB_BITS).any(|i| limbs[i as usize] != 0)
            || limbs[(below / LIMB_BITS) as usize] & ((1i64 << (below % LIMB_BITS)) - 1) != 0;
        if sticky || significand & 1 == 1 {
            significand += 1;
            if significand == 1 << precision {
                significand >>= 1;
                shift += 1;
            }
        }
    }
    (((shift - min_shift) as u64) << (precision - 1)) + significand
}

/// `N >> shift`, its low 64 bits at least.
fn window(limbs: &[i64; LIMBS], shift: u32) -> u64 {
    let at = (shift / LIMB_BITS) as usize;
    let mut wide = 0u128;
    for (k, &limb) in limbs[at..].iter().take(3).enumerate() {
        wide |= (limb as u32 as u128) << (32 * k);
    }
    (wide >> (shift % LIMB_BITS)) as u64
}

/// The floats [`ExactSum`] adds and rounds to: `f64` and `f32` (whose values an `f64`
/// holds exactly).
///
/// ```
/// use forkjoin::iter::{ExactFloat, ExactSum};
/// fn total<F: ExactFloat>(xs: &[F]) -> F {
///     let mut s = ExactSum::new();
///     xs.iter().for_each(|&x| s.add(x));
///     s.value()
/// }
/// assert_eq!(total(&[1e16f64, 1.0, -1e16]), 1.0);
/// assert_eq!(total(&[1.0f32, 2f32.powi(-24), 2f32.powi(-60)]), 1.0 + 2f32.powi(-23));
/// ```
pub trait ExactFloat: Copy + Send + Sync + sealed::Sealed {
    #[doc(hidden)]
    const PRECISION: u32;
    #[doc(hidden)]
    const MIN_SHIFT: u32;
    #[doc(hidden)]
    const SIGN_BIT: u64;
    #[doc(hidden)]
    const INFINITY_BITS: u64;
    #[doc(hidden)]
    fn to_f64(self) -> f64;
    #[doc(hidden)]
    fn from_f64(x: f64) -> Self;
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

impl ExactFloat for f64 {
    const PRECISION: u32 = 53;
    const MIN_SHIFT: u32 = 0;
    const SIGN_BIT: u64 = 1 << 63;
    const INFINITY_BITS: u64 = 0x7ff << 52;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> f64 {
        x
    }
    #[inline]
    fn from_bits(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
}

impl ExactFloat for f32 {
    const PRECISION: u32 = 24;
    // 2^-149, the least subnormal `f32`, is bit 925 of the accumulator.
    const MIN_SHIFT: u32 = 1074 - 149;
    const SIGN_BIT: u64 = 1 << 31;
    const INFINITY_BITS: u64 = 0xff << 23;
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    #[inline]
    fn from_bits(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
}

#[inline]
pub(crate) fn exact_sum<PI, F>(pi: PI) -> F
where
    PI: ParallelIterator,
    F: ExactFloat,
    PI::Item: Borrow<F>,
{
    pi.drive_unindexed(Exact(PhantomData)).value()
}

/// The consumer: stateless. `fn() -> F` keeps it `Send` and `Sync`.
struct Exact<F>(PhantomData<fn() -> F>);

impl<F> Clone for Exact<F> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for Exact<F> {}

impl<T: Borrow<F>, F: ExactFloat> Consumer<T> for Exact<F> {
    type Folder = ExactFolder<F>;
    type Reducer = Self;
    type Result = ExactSum;

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }

    #[inline]
    fn into_folder(self) -> ExactFolder<F> {
        ExactFolder(ExactSum::new(), PhantomData)
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(_folder: &mut ExactFolder<F>, _keep: usize) -> (Self, Self) {
        (Exact(PhantomData), Exact(PhantomData))
    }
}

impl<T: Borrow<F>, F: ExactFloat> UnindexedConsumer<T> for Exact<F> {
    #[inline]
    fn split_off_left(&self) -> Self {
        *self
    }

    #[inline]
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<F> Reducer<ExactSum> for Exact<F> {
    #[inline]
    fn reduce(self, mut left: ExactSum, right: ExactSum) -> ExactSum {
        left.merge(&right);
        left
    }
}

/// Adds in place: the accumulator is never moved per item.
struct ExactFolder<F>(ExactSum, PhantomData<fn() -> F>);

impl<T: Borrow<F>, F: ExactFloat> Folder<T> for ExactFolder<F> {
    type Result = ExactSum;

    #[inline]
    fn consume(mut self, item: T) -> Self {
        self.0.add(*item.borrow());
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        iter.into_iter().for_each(|item| self.0.add(*item.borrow()));
        self
    }

    #[inline]
    fn complete(self) -> ExactSum {
        self.0
    }

    #[inline]
    fn full(&self) -> bool {
        false
    }
}
