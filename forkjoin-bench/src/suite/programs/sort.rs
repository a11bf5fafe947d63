//! `sort`, `sort-u8`, `sort-u16`, `sort-u32`, `sort-u64`: Cilk's parallel merge sort
//! (cilksort), the Sort of Lea's paper.
//!
//! `cilksort(a, tmp)` cuts `a` into four quarters and sorts them in parallel (each using
//! its quarter of `tmp` as scratch), merges quarters 1+2 and 3+4 into the two halves of
//! `tmp` in parallel, then merges the halves of `tmp` back into `a`. Below 2048 keys it sorts
//! sequentially (`sort_unstable`, a quicksort with insertion-sorted small runs). The merge
//! is Cilk's `cilkmerge`: take the middle key of the longer run, binary-search its position
//! in the shorter run, place it, and merge the two sides in parallel; runs shorter than 2048
//! keys in all are merged sequentially. The scratch buffer is allocated once, in `make`.
//!
//! `sort` sorts u64 keys over the full 64-bit range (splitmix64, seed 42). The paper's key
//! width variants (section 4.3, memory bandwidth) sort the same generator's values taken
//! mod 256, stored as u8, u16, u32 or u64: same count, same values, only the width differs.
//!
//! Sizes (keys): Test 100,000, Default 10,000,000 (about 0.55 s sequentially for `sort` on
//! the development machine, 0.33 s for `sort-u8`), Paper 100,000,000.

use std::sync::OnceLock;

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, CountJoins, Fj, Join, Rayon, Seq};

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "sort",
            about: "Cilk's parallel merge sort of full-range u64 keys (Lea: 100M keys)",
            make: |size| Box::new(Sort::<u64>::new(size, KeyRange::Full)),
        },
        Program {
            name: "sort-u8",
            about: "sort of keys 0..255 stored as u8 (memory bandwidth)",
            make: |size| Box::new(Sort::<u8>::new(size, KeyRange::Byte)),
        },
        Program {
            name: "sort-u16",
            about: "sort of keys 0..255 stored as u16 (memory bandwidth)",
            make: |size| Box::new(Sort::<u16>::new(size, KeyRange::Byte)),
        },
        Program {
            name: "sort-u32",
            about: "sort of keys 0..255 stored as u32 (memory bandwidth)",
            make: |size| Box::new(Sort::<u32>::new(size, KeyRange::Byte)),
        },
        Program {
            name: "sort-u64",
            about: "sort of keys 0..255 stored as u64 (memory bandwidth)",
            make: |size| Box::new(Sort::<u64>::new(size, KeyRange::Byte)),
        },
    ]
}

/// Below this many keys `cilksort` sorts sequentially (Cilk's QUICKSIZE).
const SORT_CUTOFF: usize = 2048;
/// Below this many keys in all `merge` merges sequentially (Cilk's MERGESIZE).
const MERGE_CUTOFF: usize = 2048;

/// A key type: the four widths of the paper's variants.
pub(super) trait Key: Ord + Copy + Send + Sync + 'static {
    /// Truncates a generated value (already in range) to the key type.
    fn from_u64(v: u64) -> Self;
    fn to_u64(self) -> u64;
}

macro_rules! impl_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            fn to_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
impl_key!(u8, u16, u32, u64);

#[derive(Clone, Copy)]
enum KeyRange {
    /// Every generated value as is.
    Full,
    /// Generated values mod 256.
    Byte,
}

struct Sort<T: Key> {
    /// The unsorted keys; `reset` copies them into `keys`.
    original: Vec<T>,
    keys: Vec<T>,
    /// Cilksort's scratch buffer, as long as `keys`.
    tmp: Vec<T>,
    /// The multiset checksum of `original`.
    checksum: Checksum,
    /// The join count (the merge splits depend on the keys), computed on the first
    /// `tasks_per_run` by a counting sequential sort of a copy of the keys.
    joins: OnceLock<u64>,
}

impl<T: Key> Sort<T> {
    fn new(size: Size, range: KeyRange) -> Sort<T> {
        let n = match size {
            Size::Test => 100_000,
            Size::Default => 10_000_000,
            Size::Paper => 100_000_000,
        };
        let mut state = 42;
        let original: Vec<T> = (0..n)
            .map(|_| {
                let v = splitmix64(&mut state);
                T::from_u64(match range {
                    KeyRange::Full => v,
                    KeyRange::Byte => v % 256,
                })
            })
            .collect();
        Sort {
            checksum: Checksum::of(&original),
            keys: original.clone(),
            tmp: original.clone(),
            original,
            joins: OnceLock::new(),
        }
    }
}

impl<T: Key> Workload for Sort<T> {
    fn reset(&mut self) {
        self.keys.copy_from_slice(&self.original);
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (a, tmp) = (&mut self.keys[..], &mut self.tmp[..]);
        match ctx {
            Ctx::Sequential => cilksort(&mut Seq, a, tmp),
            Ctx::Forkjoin => cilksort(&mut Fj, a, tmp),
            Ctx::Rayon => cilksort(&mut Rayon, a, tmp),
            Ctx::Chili(s) => cilksort(&mut Chili(s), a, tmp),
            Ctx::Split(r) => cilksort(&mut r.join(), a, tmp),
        }
    }

    fn verify(&self) -> Result<(), String> {
        if let Some(i) = self.keys.windows(2).position(|w| w[0] > w[1]) {
            return Err(format!(
                "sort: not sorted at index {i}: {} > {}",
                self.keys[i].to_u64(),
                self.keys[i + 1].to_u64()
            ));
        }
        let found = Checksum::of(&self.keys);
        if found != self.checksum {
            return Err(format!(
                "sort: not a permutation of the input: expected checksum {:?}, found {found:?}",
                self.checksum
            ));
        }
        Ok(())
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(*self.joins.get_or_init(|| {
            let (mut a, mut tmp) = (self.original.clone(), self.original.clone());
            let mut count = CountJoins(0);
            cilksort(&mut count, &mut a, &mut tmp);
            count.0
        }))
    }
}

/// Sorts `a`, using `tmp` (as long as `a`) as scratch.
fn cilksort<J: Join, T: Key>(j: &mut J, a: &mut [T], tmp: &mut [T]) {
    let n = a.len();
    if n < SORT_CUTOFF {
        a.sort_unstable();
        return;
    }
    let q = n / 4;
    let [a0, a1, a2, a3] = quarters_mut(a, q);
    let [t0, t1, t2, t3] = quarters_mut(tmp, q);
    j.join(
        |j| j.join(|j| cilksort(j, a0, t0), |j| cilksort(j, a1, t1)),
        |j| j.join(|j| cilksort(j, a2, t2), |j| cilksort(j, a3, t3)),
    );
    let (lo, hi) = tmp.split_at_mut(2 * q);
    let (a0, a1, a2, a3) = (&*a0, &*a1, &*a2, &*a3);
    j.join(|j| merge(j, a0, a1, lo), |j| merge(j, a2, a3, hi));
    merge(j, lo, hi, a);
}

/// Splits `s` into three pieces of `q` elements and the rest.
fn quarters_mut<T>(s: &mut [T], q: usize) -> [&mut [T]; 4] {
    let (s0, rest) = s.split_at_mut(q);
    let (s1, rest) = rest.split_at_mut(q);
    let (s2, s3) = rest.split_at_mut(q);
    [s0, s1, s2, s3]
}

/// Merges the sorted runs `x` and `y` into `dest` (of length `x.len() + y.len()`).
fn merge<J: Join, T: Key>(j: &mut J, x: &[T], y: &[T], dest: &mut [T]) {
    // Split the longer run at its middle, so each side keeps at least a quarter.
    let (x, y) = if x.len() < y.len() { (y, x) } else { (x, y) };
    if dest.len() < MERGE_CUTOFF {
        seq_merge(x, y, dest);
        return;
    }
    let sx = x.len() / 2;
    let pivot = x[sx];
    // y[..sy] < pivot <= y[sy..]; x[..sx] <= pivot <= x[sx + 1..].
    let sy = y.partition_point(|&k| k < pivot);
    let (left, rest) = dest.split_at_mut(sx + sy);
    let (mid, right) = rest.split_first_mut().expect("dest holds the pivot");
    *mid = pivot;
    j.join(
        |j| merge(j, &x[..sx], &y[..sy], left),
        |j| merge(j, &x[sx + 1..], &y[sy..], right),
    );
}

/// Merges without a data-dependent branch per key (random keys would mispredict half of
/// them): the smaller head is selected, and both cursors advance by the comparison's result.
fn seq_merge<T: Key>(x: &[T], y: &[T], dest: &mut [T]) {
    let (mut i, mut k) = (0, 0);
    while i < x.len() && k < y.len() {
        let (a, b) = (x[i], y[k]);
        let take_x = a <= b;
        dest[i + k] = if take_x { a } else { b };
        i += take_x as usize;
        k += !take_x as usize;
    }
    let (x_rest, y_rest) = (&x[i..], &y[k..]);
    dest[i + k..i + k + x_rest.len()].copy_from_slice(x_rest);
    dest[i + k + x_rest.len()..].copy_from_slice(y_rest);
}

/// splitmix64: the keys' generator (and the parallel-iterator programs' inputs').
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An order-independent fingerprint of a multiset of keys: equal for any permutation, and
/// (with the mixed sum) unlikely to be equal for a different multiset, e.g. one key
/// duplicated over another, which plain sums can miss.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Checksum {
    count: u64,
    sum: u64,
    xor: u64,
    mixed_sum: u64,
}

impl Checksum {
    pub(super) fn of<T: Key>(keys: &[T]) -> Checksum {
        let mut c = Checksum {
            count: 0,
            sum: 0,
            xor: 0,
            mixed_sum: 0,
        };
        for &k in keys {
            let v = k.to_u64();
            let mut mixed = v;
            c.count += 1;
            c.sum = c.sum.wrapping_add(v);
            c.xor ^= v;
            c.mixed_sum = c.mixed_sum.wrapping_add(splitmix64(&mut mixed));
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;

    #[test]
    fn runs_on_all_runtimes() {
        check_all_runtimes(&mut Sort::<u64>::new(Size::Test, KeyRange::Full));
        check_all_runtimes(&mut Sort::<u8>::new(Size::Test, KeyRange::Byte));
        check_all_runtimes(&mut Sort::<u16>::new(Size::Test, KeyRange::Byte));
        check_all_runtimes(&mut Sort::<u32>::new(Size::Test, KeyRange::Byte));
        check_all_runtimes(&mut Sort::<u64>::new(Size::Test, KeyRange::Byte));
    }

    #[test]
    fn verify_rejects_a_wrong_answer() {
        let mut w = Sort::<u64>::new(Size::Test, KeyRange::Full);
        assert!(w.verify().is_err(), "the unsorted input must fail");
        w.run(&mut Ctx::Sequential);
        assert!(w.verify().is_ok());
        // Still sorted, but one key replaced by its neighbour: not a permutation.
        w.keys[1000] = w.keys[1001];
        assert!(w.verify().is_err());
        w.reset();
        w.run(&mut Ctx::Sequential);
        w.keys.swap(10, 20);
        assert!(w.verify().is_err());
    }

    #[test]
    fn merge_handles_uneven_and_duplicate_runs() {
        let x: Vec<u32> = (0..5000).map(|i| i / 7).collect();
        let y: Vec<u32> = (0..300).map(|i| i * 3).collect();
        let mut dest = vec![0; x.len() + y.len()];
        merge(&mut Seq, &x, &y, &mut dest);
        let mut expected = [x, y].concat();
        expected.sort();
        assert_eq!(dest, expected);
    }

    #[test]
    fn byte_variants_hold_the_same_values() {
        let a = Sort::<u8>::new(Size::Test, KeyRange::Byte);
        let b = Sort::<u64>::new(Size::Test, KeyRange::Byte);
        assert!(a
            .original
            .iter()
            .zip(&b.original)
            .all(|(&x, &y)| x as u64 == y));
        assert_eq!(a.checksum, b.checksum);
        assert!(a.tasks_per_run().unwrap() > 0);
    }
}
