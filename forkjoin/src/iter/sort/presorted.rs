//! Inputs that are nearly in order, for the unstable sort: an ascending (or descending)
//! sequence with a few elements out of place, as when a sorted vector had some items changed
//! or appended. Such an input costs a quicksort as much as a random one (every partition moves
//! every element), where one pass can take the few misplaced elements out; rayon's pdqsort
//! notices such order too.
//!
//! A sample of adjacent pairs guesses the direction (a descending input is reversed). The
//! pass then keeps an ascending run at the front and takes out each element that is less than
//! the run's last one, together with that last one (Estivill-Castro and Wood's rule: at most
//! twice as many taken out as the fewest that would leave the rest in order), giving up past a
//! bound. The taken-out elements ride along behind the run as one block, moved by block swaps,
//! then are sorted and merged back in place, the largest first, in rounds of what fits a 4 KiB
//! stack buffer, each placed after a galloping search from the end: no allocation, as rayon
//! promises for its unstable sort. The comparisons are the pass's one per element, the sort of
//! the few and the searches.

use super::{is_sorted, par_quick_sort, CopyOnDrop};
use std::mem::{self, MaybeUninit};
use std::ptr;

/// Adjacent pairs sampled to guess whether an input is nearly ascending or descending.
const SAMPLES: usize = 64;

/// At most this many of the sampled pairs may disagree with the guessed direction: enough
/// that an input with a few percent of its elements out of place is not missed by chance,
/// few enough that a random one never passes.
const SAMPLE_MISSES: usize = 8;

/// The merge's stack buffer, in bytes.
const BUF_BYTES: usize = 4096;

/// Sorts `v` (at least two elements) if it is nearly ascending or nearly
/// descending, and returns whether it did. Otherwise `v` is left a permutation of itself (a
/// nearly descending guess reverses it, a pass that gives up leaves the taken-out elements
/// behind the kept ones) for the quicksort to sort. A panic in `is_less` leaves `v` a
/// permutation of itself too.
pub(super) fn sort_nearly_sorted<T, F>(v: &mut [T], is_less: &F) -> bool
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    if mem::size_of::<T>() > BUF_BYTES / 8 {
        // Fewer than eight elements a merge round: leave such inputs to the quicksort.
        return false;
    }
    let len = v.len();
    let (mut descents, mut ascents) = (0, 0);
    // Pseudo-random places (fixed by the length), which a periodic input cannot line up with.
    let mut state = len as u64;
    for _ in 0..SAMPLES {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = ((state >> 33) % (len as u64 - 1)) as usize;
        if is_less(&v[i + 1], &v[i]) {
            descents += 1;
        } else if is_less(&v[i], &v[i + 1]) {
            ascents += 1;
        }
        if ascents.min(descents) > SAMPLE_MISSES {
            // Neither: a random input stops here after a few dozen comparisons.
            return false;
        }
    }
    if descents > ascents {
        if ascents > SAMPLE_MISSES {
            return false;
        }
        // Nearly descending: reversed, nearly ascending (equal elements may swap places);
        // a wholly descending input is sorted now, which the vectorised scan sees at once.
        v.reverse();
        if is_sorted(v, is_less) {
            return true;
        }
    } else if descents > SAMPLE_MISSES {
        return false;
    }
    // Past an eighth taken out, the input is not what this is for; and the merge's rounds
    // move the rest of the taken-out elements each time, about `out² / (2 * cap)` moves in
    // all, kept below `len`.
    let max_out = (len / 8).min((2 * buf_cap::<T>() * len).isqrt());
    let Some(kept) = take_out_of_order(v, is_less, max_out) else {
        return false;
    };
    if kept < len {
        par_quick_sort(&mut v[kept..], is_less);
        merge_short_tail(v, kept, is_less);
    }
    true
}

/// Reorders `v` into an ascending run `v[..kept]` followed by the elements taken out of it,
/// and returns `kept`; or `None` as soon as more than `max_out` are taken out.
fn take_out_of_order<T, F>(v: &mut [T], is_less: &F, max_out: usize) -> Option<usize>
where
    F: Fn(&T, &T) -> bool,
{
    let len = v.len();
    // v[..kept] is ascending, v[kept..i] taken out, v[i..] not looked at yet.
    let mut kept = 0;
    let mut i = 0;
    while i < len {
        if kept > 0 && is_less(&v[i], &v[kept - 1]) {
            // Both leave the run: the block of taken-out elements grows at both ends.
            kept -= 1;
            i += 1;
            if i - kept > max_out {
                return None;
            }
            continue;
        }
        // `v[i]` extends the run, and so does the ascending stretch that follows it.
        let mut end = i + 1;
        while end < len && !is_less(&v[end], &v[end - 1]) {
            end += 1;
        }
        let out = i - kept;
        if out == 0 {
            kept = end;
        } else {
            // Move the stretch down over the taken-out block, at most `out` elements at a
            // time, swapping them with the block's front: the block stays whole behind it.
            while i < end {
                let m = (end - i).min(out);
                let (run, rest) = v.split_at_mut(i);
                run[kept..kept + m].swap_with_slice(&mut rest[..m]);
                kept += m;
                i += m;
            }
        }
        i = end;
    }
    Some(kept)
}

/// The elements of the merge's buffer.
fn buf_cap<T>() -> usize {
    BUF_BYTES / mem::size_of::<T>()
}

/// Merges the ascending runs `v[..mid]` and `v[mid..]` (the short one) in place.
///
/// Each round takes the largest elements of the second run, as many as fit the buffer: the
/// elements of the first run that go after the smallest of them are rotated past the rest of
/// the second run, and the two are merged from the back, through the buffer, into the top of
/// `v`, which is then final; the rounds go on below it.
fn merge_short_tail<T, F>(v: &mut [T], mut mid: usize, is_less: &F)
where
    F: Fn(&T, &T) -> bool,
{
    #[repr(C)]
    struct StackBuf<T> {
        _align: [T; 0],
        _bytes: MaybeUninit<[u8; BUF_BYTES]>,
    }
    let mut buf = MaybeUninit::<StackBuf<T>>::uninit();
    let buf = buf.as_mut_ptr().cast::<T>();
    let cap = buf_cap::<T>();
    let mut end = v.len();
    while end > mid {
        let hi = end - (end - mid).min(cap);
        // The first run's elements from `p` on go after `v[hi]` (and all of `v[hi..end]`).
        let p = v[..mid].partition_point(|x| !is_less(&v[hi], x));
        v[p..hi].rotate_left(mid - p);
        let lo = p + (hi - mid);
        // SAFETY: `v[lo..hi]` and `v[hi..end]` are ascending runs inside `v`, and the
        // second has at most `cap` elements, which is what `buf` holds.
        unsafe { merge_through_buffer(v, lo, hi, end, buf, is_less) };
        end = lo;
        mid = p;
    }
}

/// Merges the ascending runs `v[lo..hi]` and `v[hi..end]` into `v[lo..end]`, moving the
/// second into `buf` first and then placing its elements from the largest down, each after
/// a block copy of the first run's elements greater than it.
///
/// # Safety
/// `lo <= hi <= end <= v.len()`, and `buf` is valid for writes of `end - hi` elements and
/// not used by anyone else meanwhile.
unsafe fn merge_through_buffer<T, F>(
    v: &mut [T],
    lo: usize,
    hi: usize,
    end: usize,
    buf: *mut T,
    is_less: &F,
) where
    F: Fn(&T, &T) -> bool,
{
    let base = v.as_mut_ptr();
    // SAFETY: `v[hi..end]` is inside `v` and `buf` holds `end - hi` elements (the caller's
    // contract), and the two do not overlap.
    let dst = unsafe {
        let dst = base.add(hi);
        ptr::copy_nonoverlapping(dst, buf, end - hi);
        dst
    };
    // From here on `gap.dst[..gap.len]` holds stale copies and `buf[..gap.len]` the elements
    // missing from `v`; the guard's drop copies them back into the gap, on return (when the
    // gap is empty) and on unwind alike.
    let mut gap = CopyOnDrop {
        src: buf,
        dst,
        len: end - hi,
    };
    let mut at = hi;
    while gap.len > 0 {
        // SAFETY: `buf[gap.len - 1]` is live (see above), and `v[lo..at]` is live and not
        // written while the search reads it.
        let (largest, first) = unsafe {
            (
                &*buf.add(gap.len - 1),
                std::slice::from_raw_parts(base.add(lo), at - lo),
            )
        };
        let q = lo + gallop_back(first, |x| is_less(largest, x));
        // SAFETY: `v[q..at]` (live) moves up by `gap.len` into `v[q + gap.len..at + gap.len]`,
        // which ends at the gap's end, so the gap becomes `v[q..q + gap.len]`; then the
        // largest of the buffer fills the gap's last place. Both stay inside `v[lo..end]`.
        unsafe {
            ptr::copy(base.add(q), base.add(q + gap.len), at - q);
            at = q;
            ptr::copy_nonoverlapping(largest, base.add(at + gap.len - 1), 1);
            gap.dst = base.add(at);
        }
        gap.len -= 1;
    }
}

/// The first index of `run` from which on every element is `after` (a suffix, as in an
/// ascending run), searched from the end in steps that double, then by halving: about
/// twice the logarithm of the suffix's length, which the merge keeps short.
fn gallop_back<T>(run: &[T], after: impl Fn(&T) -> bool) -> usize {
    let mut end = run.len();
    let mut step = 1;
    while step <= end {
        if !after(&run[end - step]) {
            let start = end - step + 1;
            return start + run[start..end].partition_point(|x| !after(x));
        }
        end -= step;
        step *= 2;
    }
    run[..end].partition_point(|x| !after(x))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    /// `len` ascending keys (descending if `descending`) with `swaps` random pairs swapped.
    fn nearly(len: usize, swaps: usize, descending: bool, seed: u64) -> Vec<u64> {
        let mut v: Vec<u64> = (0..len as u64).map(|k| k / 3).collect();
        if descending {
            v.reverse();
        }
        let mut s = seed;
        for _ in 0..swaps {
            let a = splitmix64(&mut s) as usize % len;
            let b = splitmix64(&mut s) as usize % len;
            v.swap(a, b);
        }
        v
    }

    /// Generated nearly sorted inputs, with few and with too many elements out of place:
    /// sorted exactly when taken, a permutation of the input when not, and taken whenever
    /// at most a hundredth of the elements were swapped (twice that out of place).
    #[test]
    fn nearly_sorted_inputs_sort_exactly() {
        let mut s = 11u64;
        for case in 0..300 {
            let len = 64 + splitmix64(&mut s) as usize % 20_000;
            let swaps = match case % 3 {
                0 => splitmix64(&mut s) as usize % (len / 100 + 1),
                1 => splitmix64(&mut s) as usize % (len / 4 + 1),
                _ => (len as f64).sqrt() as usize,
            };
            let descending = case % 2 == 1;
            let input = nearly(len, swaps, descending, case);
            let mut expected = input.clone();
            expected.sort_unstable();
            let mut v = input.clone();
            let sorted = sort_nearly_sorted(&mut v, &|a: &u64, b: &u64| a < b);
            let mut permutation = v.clone();
            permutation.sort_unstable();
            assert_eq!(permutation, expected, "case {case}: not a permutation");
            if sorted {
                assert!(v == expected, "case {case}: len {len}, {swaps} swaps");
            }
            if swaps <= len / 100 {
                assert!(sorted, "case {case}: len {len}, {swaps} swaps not taken");
            }
        }
    }

    /// Merges with the second run longer than a buffer's round, of small elements (512 a
    /// round) and of large ones (8 a round).
    #[test]
    fn merge_rounds_are_exact() {
        let mut s = 5u64;
        let (lens, shorts): (&[usize], &[usize]) = if cfg!(miri) {
            (&[0, 1, 40], &[0, 1, 9, 20])
        } else {
            (&[0, 1, 2, 600, 3000], &[0, 1, 7, 513, 1100])
        };
        for &len in lens {
            for &short in shorts {
                let mut a: Vec<u64> = (0..len).map(|_| splitmix64(&mut s) % 500).collect();
                let mut b: Vec<u64> = (0..short).map(|_| splitmix64(&mut s) % 500).collect();
                a.sort_unstable();
                b.sort_unstable();
                let mut expected = [a.clone(), b.clone()].concat();
                expected.sort_unstable();
                let mut v = [a.clone(), b.clone()].concat();
                merge_short_tail(&mut v, len, &|x: &u64, y: &u64| x < y);
                assert_eq!(v, expected, "len {len}, short {short}");
                let mut wide: Vec<[u64; 60]> = a.iter().chain(&b).map(|&k| [k; 60]).collect();
                merge_short_tail(&mut wide, len, &|x: &[u64; 60], y: &[u64; 60]| x < y);
                assert!(
                    wide.iter().map(|w| w[0]).eq(expected.iter().copied()),
                    "wide, len {len}, short {short}"
                );
            }
        }
    }

    /// The search from the end finds what a binary search over the whole run finds, for
    /// generated runs and thresholds.
    #[test]
    fn gallop_back_is_partition_point() {
        let mut s = 17u64;
        for _ in 0..2000 {
            let len = splitmix64(&mut s) as usize % 300;
            let mut run: Vec<u64> = (0..len).map(|_| splitmix64(&mut s) % 64).collect();
            run.sort_unstable();
            let t = splitmix64(&mut s) % 66;
            let expected = run.partition_point(|&x| x <= t);
            assert_eq!(gallop_back(&run, |&x| x > t), expected, "{run:?} > {t}");
        }
    }

    /// A comparison that panics anywhere in the pass, the sort of the few or the merge
    /// leaves every element once, each in its latest state, and dropped once.
    #[test]
    fn nearly_sorted_panic_safe() {
        let sort = |v: &mut [Tracked], f: &Cmp| {
            let n = v.len();
            // Nearly ascending keys: the path must be taken, not left to the quicksort.
            for (i, t) in v.iter_mut().enumerate() {
                t.key = (i as u64 * 7919) % 97 + if i % 50 == 0 { 0 } else { i as u64 * 100 };
            }
            assert!(
                n < 64 || sort_nearly_sorted(v, &|a: &Tracked, b: &Tracked| f(a, b)),
                "len {n}: {:?}",
                v.iter().map(|t| t.key).take(120).collect::<Vec<_>>()
            );
        };
        let lens: &[usize] = if cfg!(miri) {
            &[70, 200]
        } else {
            &[70, 2000, 20_000]
        };
        for &len in lens {
            let total = count_comparisons(&sort, len, 1 << 40);
            for k in panic_points(total) {
                assert!(check_panic_safety(&sort, len, 1 << 40, k, false));
            }
        }
    }
}
