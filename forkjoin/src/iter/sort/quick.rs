//! The unstable parallel quicksort; see the parent module's doc.

use super::presorted::sort_nearly_sorted;
use super::{is_sorted, ordering};
use crate::join::join;
use std::mem::{self, ManuallyDrop};
use std::ptr;

/// Pieces of at most this many elements go to std's unstable sort. Measured with 4M, 1M and
/// 200K random `u64` at 1 and 2 workers: from 2K to 16K the times differ by less than the
/// noise (within 3% of std's sort at one worker); 32K starts to cost balance at 2 workers.
/// Smaller leaves spread better over more workers, larger ones leave more of the work to
/// std's partitions, which are as fast as ours.
const LEAF: usize = if cfg!(miri) { 16 } else { 8192 };

/// Elements larger than `MAX_LOMUTO_SIZE` go to std's sort only in pieces of this many:
/// std partitions them with a branch per element, mispredicted about half the time on
/// random keys, where `partition_blocks` has none; below `LEAF` the two sides are sorted
/// one after the other, without a `join`.
const LARGE_LEAF: usize = if cfg!(miri) { 4 } else { 24 };

/// Shorter inputs go to std's sort without a look for a nearly sorted order.
const NEARLY_SORTED_MIN: usize = if cfg!(miri) { 64 } else { 128 };

/// Elements up to this size are partitioned by moving each one (`partition_lomuto`), larger
/// ones by swapping only those on the wrong side (`partition_blocks`).
const MAX_LOMUTO_SIZE: usize = 64;

/// Pieces of at most this many `T` go to std's unstable sort.
const fn std_leaf<T>() -> usize {
    if mem::size_of::<T>() <= MAX_LOMUTO_SIZE {
        LEAF
    } else {
        LARGE_LEAF
    }
}

/// Sorts `v` in parallel, not necessarily keeping the order of equal elements: after it, no
/// element is less than its predecessor.
///
/// If `is_less` panics, the panic propagates and `v` holds a permutation of its elements.
pub(crate) fn par_quick_sort<T, F>(v: &mut [T], is_less: &F)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    let len = v.len();
    if mem::size_of::<T>() == 0 || len <= 1 {
        return;
    }
    // Short inputs go to std's sort: up to `LEAF` small elements, `NEARLY_SORTED_MIN` large.
    if len <= std_leaf::<T>().max(NEARLY_SORTED_MIN) {
        // std's sort finds an ordered input by itself, not a nearly ordered one.
        if len < NEARLY_SORTED_MIN || !sort_nearly_sorted(v, is_less) {
            v.sort_unstable_by(ordering(is_less));
        }
        return;
    }
    // Ordered inputs cost one pass instead of a sort; other inputs stop at the first pair
    // that disagrees, almost at once for random data. Nearly ordered ones, ascending or
    // descending, cost about one pass more.
    if is_sorted(v, is_less) || sort_nearly_sorted(v, is_less) {
        return;
    }
    // Twice the depth of a balanced recursion; past it, pivots have been bad too often.
    let limit = 2 * len.ilog2();
    quick_rec(v, None, is_less, limit);
}

/// Sorts `v`, all of whose elements are not less than `ancestor` (when given): the pivot
/// just left of `v` in the parent's partition, or an earlier one.
fn quick_rec<'a, T, F>(
    mut v: &'a mut [T],
    mut ancestor: Option<&'a mut T>,
    is_less: &F,
    mut limit: u32,
) where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    loop {
        if v.len() <= std_leaf::<T>() || limit == 0 {
            // std's unstable sort is O(n log n) in the worst case (it has a heapsort
            // fallback), so a piece that kept getting bad pivots ends here.
            v.sort_unstable_by(ordering(is_less));
            return;
        }
        limit -= 1;
        let p = choose_pivot(v, is_less);
        v.swap(0, p);
        let (pivot, rest) = v.split_first_mut().unwrap();
        if let Some(anc) = ancestor.as_deref() {
            if !is_less(anc, pivot) {
                // No element here is less than the ancestor, and the pivot is not greater
                // than it: the pivot equals it. Gather the elements equal to the pivot (not
                // greater than it) on the left; they are in place, leave them.
                let equal = partition(rest, pivot, |x, p| !is_less(p, x));
                v = &mut mem::take(&mut v)[equal + 1..];
                continue;
            }
        }
        // Sequential even at the top: a parallel partition would compare with the one pivot
        // from two threads at once, sharing a `&T` across threads, which needs `T: Sync`
        // (and a comparison may mutate through it). At 2 workers the top partition of 4M
        // `u64` takes about 2.5 ms of the 35 ms.
        let mid = partition(rest, pivot, |x, p| is_less(x, p));
        // The pivot goes between the two sides, to its final place.
        v.swap(0, mid);
        let len = v.len();
        let (left, right) = mem::take(&mut v).split_at_mut(mid);
        let (pivot, right) = right.split_first_mut().unwrap();
        if len > LEAF {
            join(
                move || quick_rec(left, ancestor, is_less, limit),
                move || quick_rec(right, Some(pivot), is_less, limit),
            );
            return;
        }
        // Below `LEAF` (large elements only): the shorter side first, the longer one by
        // looping, so the recursion is at most logarithmic.
        if left.len() <= right.len() {
            quick_rec(left, ancestor, is_less, limit);
            (v, ancestor) = (right, Some(pivot));
        } else {
            quick_rec(right, Some(pivot), is_less, limit);
            v = left;
        }
    }
}

/// The index of a pivot for `v` (more than `LEAF` elements): a pseudo-median of `3^depth`
/// samples spread over the slice (medians of three, recursively, as in Tukey's ninther,
/// which is depth 2). More samples make splits closer to even, which for a parallel sort
/// matters twice: an uneven split at the top is also a longer critical path. About `n^0.4`
/// samples (81 for 8K elements, 729 from 256K up) cost little next to the partition.
fn choose_pivot<T, F: Fn(&T, &T) -> bool>(v: &[T], is_less: &F) -> usize {
    let depth = (v.len().ilog2() / 3).clamp(2, 6);
    pseudo_median(v, 0, v.len(), depth, is_less)
}

/// The index of a pseudo-median of `3^depth` samples of `v[start..start + len]`: the median
/// of three pseudo-medians, one of each third, down to the middle element of a piece.
fn pseudo_median<T, F: Fn(&T, &T) -> bool>(
    v: &[T],
    start: usize,
    len: usize,
    depth: u32,
    is_less: &F,
) -> usize {
    if depth == 0 || len < 3 {
        return start + len / 2;
    }
    let third = len / 3;
    let a = pseudo_median(v, start, third, depth - 1, is_less);
    let b = pseudo_median(v, start + third, third, depth - 1, is_less);
    let c = pseudo_median(v, start + 2 * third, len - 2 * third, depth - 1, is_less);
    median3(v, a, b, c, is_less)
}

/// The index of the median of `v[a]`, `v[b]`, `v[c]`.
fn median3<T, F: Fn(&T, &T) -> bool>(v: &[T], a: usize, b: usize, c: usize, is_less: &F) -> usize {
    let ab = is_less(&v[a], &v[b]);
    let bc = is_less(&v[b], &v[c]);
    if ab == bc {
        // a < b < c, or a >= b >= c.
        return b;
    }
    // `b` is the largest (ab) or the smallest (!ab); the median is the other extreme of `a`
    // and `c`, whichever is nearer `b`.
    let ac = is_less(&v[a], &v[c]);
    if ab == ac {
        c
    } else {
        a
    }
}

/// Moves the elements `x` of `v` for which `goes_left(x, pivot)` to the front and returns
/// how many there are. A panic in `goes_left` leaves `v` a permutation of itself.
fn partition<T, P>(v: &mut [T], pivot: &T, goes_left: P) -> usize
where
    P: Fn(&T, &T) -> bool,
{
    if mem::size_of::<T>() <= MAX_LOMUTO_SIZE {
        partition_lomuto(v, pivot, goes_left)
    } else {
        partition_blocks(v, pivot, goes_left)
    }
}

/// Lomuto's partition without branches on the comparisons, as a cyclic permutation: the
/// first element is taken out, leaving a gap; each step moves the first right-side element
/// into the gap and the next element into its place, then counts that element to the left
/// side if it goes there. Two moves and one comparison per element, and nothing for the
/// branch predictor to miss.
fn partition_lomuto<T, P>(v: &mut [T], pivot: &T, goes_left: P) -> usize
where
    P: Fn(&T, &T) -> bool,
{
    let len = v.len();
    if len == 0 {
        return 0;
    }
    let base = v.as_mut_ptr();
    // SAFETY: `v[0]` is read out and its place becomes the gap; from here until the guard
    // drops, exactly one place (`gap.hole`) holds a stale copy and `gap.tmp` the element
    // missing from `v`. The guard's drop writes it into the gap, on return and on unwind
    // alike, so `v` ends a permutation of itself.
    let tmp = ManuallyDrop::new(unsafe { ptr::read(base) });
    let mut gap = Gap { tmp, hole: base };
    let mut lt = 0;
    for i in 1..len {
        // SAFETY: `lt <= i - 1 < i < len`. Before the step, `v[..lt]` go left, `v[lt..i-1]`
        // go right and the gap is at `i - 1`. Moving `v[lt]` into the gap (the same place
        // when `lt == i - 1`, hence `copy`) and `v[i]` into `v[lt]` moves the gap to `i`;
        // `v[lt]` now holds the new element, on the left if `lt` counts it. The element is
        // compared in place before it moves, so the moved copy is its latest state.
        unsafe {
            let right = base.add(i);
            let is_left = goes_left(&*right, pivot);
            let left = base.add(lt);
            ptr::copy(left, gap.hole, 1);
            ptr::copy_nonoverlapping(right, left, 1);
            gap.hole = right;
            lt += is_left as usize;
        }
    }
    // The element taken out takes the same step, through the guard's drop.
    let is_left = goes_left(&gap.tmp, pivot);
    // SAFETY: `lt < len` and the gap is at `len - 1`; as in the loop, `v[lt]` moves to the
    // gap and the gap moves to `lt`, which the guard fills.
    unsafe {
        let left = base.add(lt);
        ptr::copy(left, gap.hole, 1);
        gap.hole = left;
    }
    drop(gap);
    lt + is_left as usize
}

/// An element taken out of a slice, and the place it goes back to when dropped.
struct Gap<T> {
    tmp: ManuallyDrop<T>,
    hole: *mut T,
}

impl<T> Drop for Gap<T> {
    fn drop(&mut self) {
        // SAFETY: `hole` is the one place of the slice whose content is a stale copy (see
        // `partition_lomuto`); `tmp` is not used after this.
        unsafe { ptr::copy_nonoverlapping(&*self.tmp, self.hole, 1) };
    }
}

/// Elements a block of `partition_blocks` looks at, at most (offsets fit in a `u8`).
const BLOCK: usize = 128;

/// Hoare's partition in blocks (Edelkamp and Weiss's BlockQuicksort), for elements too large
/// to move each one: a block at each end is scanned without a branch, noting the offsets of
/// the elements on the wrong side, and then the noted pairs are exchanged. Elements move only
/// between calls of `goes_left`, by exchanges and swaps, so `v` stays a permutation of itself
/// whatever `goes_left` does.
fn partition_blocks<T, P>(v: &mut [T], pivot: &T, goes_left: P) -> usize
where
    P: Fn(&T, &T) -> bool,
{
    // `v[..l]` go left and `v[r..]` right. The left block is `v[l..]`, its wrong-side
    // offsets `left.offsets[left.done..left.found]`; the right block ends at `r`, offsets
    // counted from `r - 1` down.
    let (mut l, mut r) = (0, v.len());
    let (mut left, mut right) = (Offsets::new(), Offsets::new());
    loop {
        let width = r - l;
        // The last round takes what is left: a block still pending keeps its width.
        let last = width <= 2 * BLOCK;
        let (left_width, right_width) = match (left.pending(), right.pending()) {
            _ if !last => (BLOCK, BLOCK),
            (true, _) => (BLOCK, width - BLOCK),
            (_, true) => (width - BLOCK, BLOCK),
            _ => (width / 2, width - width / 2),
        };
        if !left.pending() {
            left.scan(v[l..l + left_width].iter(), |x| !goes_left(x, pivot));
        }
        if !right.pending() {
            right.scan(v[r - right_width..r].iter().rev(), |x| goes_left(x, pivot));
        }
        let pairs = left.remaining().min(right.remaining());
        // SAFETY: `pairs` offsets of each block, below its width: the left block's places
        // `l + a` are below `l + left_width`, the right block's `r - 1 - b` at or above
        // `r - right_width`, and `l + left_width <= r - right_width`; each block's offsets
        // are distinct.
        unsafe {
            exchange(
                v,
                left.take(pairs).map(|a| l + a),
                right.take(pairs).map(|b| r - 1 - b),
            );
        }
        if last {
            if left.pending() {
                // Wrong-side elements left in the left block: to its end, last first.
                r = l + left_width;
                for a in left.rest().rev() {
                    r -= 1;
                    v.swap(l + a, r);
                }
                return r;
            }
            if right.pending() {
                l = r - right_width;
                for b in right.rest().rev() {
                    v.swap(r - 1 - b, l);
                    l += 1;
                }
                return l;
            }
            return l + left_width;
        }
        if !left.pending() {
            l += BLOCK;
        }
        if !right.pending() {
            r -= BLOCK;
        }
    }
}

/// Exchanges the elements at `lefts` with those at `rights`, pair by pair, as one cycle:
/// `2n + 1` moves of an element where `n` swaps make `3n`.
///
/// # Safety
/// `lefts` and `rights` yield as many indices each, all in bounds and all distinct.
unsafe fn exchange<T>(
    v: &mut [T],
    mut lefts: impl Iterator<Item = usize>,
    mut rights: impl Iterator<Item = usize>,
) {
    let Some(mut left) = lefts.next() else {
        return;
    };
    let len = v.len();
    let base = v.as_mut_ptr();
    let at = |i: usize| {
        debug_assert!(i < len);
        // SAFETY: in bounds (the contract).
        unsafe { base.add(i) }
    };
    // SAFETY: the places are distinct places of `v` (the contract), so each copy is between
    // two of them. The cycle takes the first left element out, moves each right element into
    // the left place before it and each later left element into the right place before it,
    // and puts the one taken out in the last right place: `v` ends a permutation of itself.
    // Only copies run in between (no user code), so nothing unwinds halfway.
    unsafe {
        let out = ManuallyDrop::new(ptr::read(at(left)));
        let mut right = rights.next().unwrap_unchecked();
        ptr::copy_nonoverlapping(at(right), at(left), 1);
        for next_left in lefts {
            ptr::copy_nonoverlapping(at(next_left), at(right), 1);
            left = next_left;
            right = rights.next().unwrap_unchecked();
            ptr::copy_nonoverlapping(at(right), at(left), 1);
        }
        ptr::copy_nonoverlapping(&*out, at(right), 1);
    }
}

/// The offsets of one block's wrong-side elements (`partition_blocks`), and how many of them
/// have been moved to the other side.
struct Offsets {
    offsets: [u8; BLOCK],
    found: usize,
    done: usize,
}

impl Offsets {
    fn new() -> Self {
        Offsets {
            offsets: [0; BLOCK],
            found: 0,
            done: 0,
        }
    }

    /// How many offsets are left to move.
    fn remaining(&self) -> usize {
        self.found - self.done
    }

    fn pending(&self) -> bool {
        self.remaining() > 0
    }

    /// Notes the offsets of the block's elements (at most `BLOCK`) for which `wrong` holds,
    /// writing every offset and counting only those, so the scan has no branch.
    fn scan<'a, T: 'a>(&mut self, block: impl Iterator<Item = &'a T>, wrong: impl Fn(&T) -> bool) {
        self.found = 0;
        self.done = 0;
        for (i, x) in block.enumerate() {
            self.offsets[self.found] = i as u8;
            self.found += wrong(x) as usize;
        }
    }

    /// The next `n` offsets, marked moved.
    fn take(&mut self, n: usize) -> impl Iterator<Item = usize> + '_ {
        let from = self.done;
        self.done += n;
        self.offsets[from..from + n].iter().map(|&o| o as usize)
    }

    /// The offsets not yet moved, in increasing order.
    fn rest(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.offsets[self.done..self.found]
            .iter()
            .map(|&o| o as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn quick_sort_matches_std() {
        sorts_like_std(false, |v, is_less| {
            par_quick_sort(v, &|a: &u64, b: &u64| is_less(a, b))
        });
    }

    #[test]
    fn quick_sort_descending_comparator() {
        sorts_like_std(true, |v, is_less| {
            par_quick_sort(v, &|a: &u64, b: &u64| is_less(a, b))
        });
    }

    /// Large elements take Hoare's partition.
    #[test]
    fn quick_sort_large_elements() {
        in_pools(|w| {
            for &len in LENS {
                for (name, keys) in inputs(len) {
                    let input: Vec<[u64; 12]> = keys
                        .iter()
                        .map(|&k| [k % 1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, k])
                        .collect();
                    let mut expected = input.clone();
                    expected.sort_unstable();
                    let mut v = input;
                    par_quick_sort(&mut v, &|a: &[u64; 12], b: &[u64; 12]| a < b);
                    assert!(v == expected, "{name}, len {len}, {w} workers");
                }
            }
        });
    }

    #[test]
    fn quick_sort_strings() {
        in_pools(|w| {
            for &len in LENS {
                let mut s = 1u64;
                let input: Vec<String> = (0..len)
                    .map(|_| format!("{:x}", splitmix64(&mut s) % 5000))
                    .collect();
                let mut expected = input.clone();
                expected.sort_unstable();
                let mut v = input;
                par_quick_sort(&mut v, &|a: &String, b: &String| a < b);
                assert!(v == expected, "len {len}, {w} workers");
            }
        });
    }

    /// McIlroy's "killer adversary for quicksort" (1999): the comparison fixes the elements'
    /// values lazily, so that whatever pivot is chosen comes out (nearly) the smallest. Without
    /// the depth limit that is quadratic; with it the comparisons stay O(n log n), and the
    /// result is sorted by the values fixed in the end.
    #[test]
    fn quick_sort_killer_adversary() {
        use std::sync::Mutex;
        let len = if cfg!(miri) { 300 } else { 1 << 16 };
        struct Adversary {
            /// The value fixed for each element, or `GAS` (above all fixed ones) if none yet.
            val: Vec<usize>,
            fixed: usize,
            candidate: usize,
            calls: usize,
        }
        const GAS: usize = usize::MAX;
        in_pools(|w| {
            let adv = Mutex::new(Adversary {
                val: vec![GAS; len],
                fixed: 0,
                candidate: 0,
                calls: 0,
            });
            let mut v: Vec<usize> = (0..len).collect();
            // `quick_rec` itself: `par_quick_sort`'s check for sorted input would let the
            // adversary make the input sorted, and end there.
            let limit = 2 * len.ilog2();
            quick_rec(
                &mut v,
                None,
                &|&x: &usize, &y: &usize| {
                    let mut a = adv.lock().unwrap();
                    a.calls += 1;
                    if a.val[x] == GAS && a.val[y] == GAS {
                        // Fix one of the two: the other stays the candidate pivot.
                        let z = if x == a.candidate { x } else { y };
                        a.val[z] = a.fixed;
                        a.fixed += 1;
                    }
                    if a.val[x] == GAS {
                        a.candidate = x;
                    } else if a.val[y] == GAS {
                        a.candidate = y;
                    }
                    a.val[x] < a.val[y]
                },
                limit,
            );
            let a = adv.into_inner().unwrap();
            let mut seen = vec![false; len];
            for &x in &v {
                assert!(!seen[x]);
                seen[x] = true;
            }
            assert!(
                v.windows(2).all(|p| a.val[p[0]] <= a.val[p[1]]),
                "{w} workers"
            );
            let n = len as f64;
            assert!(
                (a.calls as f64) < 6.0 * n * n.log2(),
                "{w} workers: {} comparisons for {len} elements",
                a.calls
            );
        });
    }

    /// Patterned inputs stay exact and O(n log n): organ pipe, sawtooth, and a few values in
    /// sorted blocks.
    #[test]
    fn quick_sort_patterns() {
        let n: u64 = if cfg!(miri) { 300 } else { 1 << 20 };
        let inputs: Vec<(&str, Vec<u64>)> = vec![
            ("organ", (0..n).map(|i| i.min(n - i)).collect()),
            ("sawtooth", (0..n).map(|i| i % 1000).collect()),
            ("blocks", (0..n).map(|i| i * 8 / n).collect()),
        ];
        let nf = n as f64;
        in_pools(|w| {
            for (name, input) in &inputs {
                let mut expected = input.clone();
                expected.sort_unstable();
                let mut v = input.clone();
                let calls = std::sync::atomic::AtomicUsize::new(0);
                par_quick_sort(&mut v, &|a: &u64, b: &u64| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    a < b
                });
                assert!(v == expected, "{name}, {w} workers");
                assert!(
                    (calls.into_inner() as f64) < 4.0 * nf * nf.log2(),
                    "{name}: too many comparisons"
                );
            }
        });
    }

    #[test]
    fn quick_sort_zero_sized() {
        in_pools(|_| {
            let mut v = vec![(); 100_000];
            par_quick_sort(&mut v, &|_: &(), _: &()| {
                panic!("compared zero-sized values")
            });
            assert_eq!(v.len(), 100_000);
        });
    }

    fn quick_sort_tracked<const PAD: usize>(v: &mut [Tracked<PAD>], f: &Cmp<PAD>) {
        par_quick_sort(v, &|a: &Tracked<PAD>, b: &Tracked<PAD>| f(a, b))
    }

    #[test]
    fn quick_sort_panic_safe() {
        panic_safe_at_every_point::<0>(&quick_sort_tracked, PANIC_LENS);
    }

    /// Elements over 64 bytes, partitioned in blocks.
    #[test]
    fn quick_sort_panic_safe_large_elements() {
        let lens: &[usize] = if cfg!(miri) { &[150] } else { &[5000] };
        panic_safe_at_every_point::<8>(&quick_sort_tracked, lens);
    }

    /// The grouped scan answers as a pairwise one, wherever the one disorder lies.
    #[test]
    fn is_sorted_finds_any_disorder() {
        let less = |a: &u64, b: &u64| a < b;
        for len in 0..80usize {
            let sorted: Vec<u64> = (0..len as u64).collect();
            assert!(is_sorted(&sorted, &less));
            for at in 1..len {
                let mut v = sorted.clone();
                v.swap(at - 1, at);
                assert!(!is_sorted(&v, &less), "len {len}, pair at {at}");
            }
        }
    }

    /// Both partitions on every length around `partition_blocks`'s block widths, for the
    /// exact split and a permutation; under Miri, the blocks' (their `exchange` is unsafe) on
    /// one length with full blocks and a last round.
    #[test]
    fn partitions_are_exact() {
        let mut s = 3u64;
        let (lens, distincts, lomutos): (&[usize], &[u64], &[bool]) = if cfg!(miri) {
            (&[300], &[1000], &[false])
        } else {
            (
                &[
                    0, 1, 2, 3, 10, 127, 128, 129, 255, 256, 257, 383, 384, 385, 1000, 4099,
                ],
                &[1, 2, 5, 1000],
                &[true, false],
            )
        };
        for &len in lens {
            for &distinct in distincts {
                let input: Vec<u64> = (0..len).map(|_| splitmix64(&mut s) % distinct).collect();
                let pivot = distinct / 2;
                for &lomuto in lomutos {
                    let mut v = input.clone();
                    let less = |x: &u64, p: &u64| x < p;
                    let n = if lomuto {
                        partition_lomuto(&mut v, &pivot, less)
                    } else {
                        partition_blocks(&mut v, &pivot, less)
                    };
                    assert_eq!(n, input.iter().filter(|&&x| x < pivot).count());
                    assert!(
                        v[..n].iter().all(|&x| x < pivot) && v[n..].iter().all(|&x| x >= pivot)
                    );
                    let (mut a, mut b) = (v.clone(), input.clone());
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b);
                }
            }
        }
    }
}
