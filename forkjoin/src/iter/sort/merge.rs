//! The stable parallel merge sort; see the parent module's doc.
//!
//! Every range of elements lives either in the slice or at the same offsets in the buffer.
//! A call that sorts or merges a range promises that, when it returns and also when it
//! unwinds, the range's elements are all at its destination (sorted on return, in some order
//! on unwind), and its source holds only stale bitwise copies. Guards that copy the
//! remaining source elements to the destination on unwind keep that promise, so a panic
//! anywhere leaves the slice a permutation of its input.

use super::{is_sorted, ordering, CopyOnDrop, SendPtr};
use crate::join::join;
use crate::registry::on_worker;
use std::{mem, ptr, slice};

// The sizes below were measured with 4M random `u64` at 1 and 2 workers (interleaved runs;
// 1M and 200K checked too). std's stable sort costs about 0.8-1.1 ns per element per level
// of its recursion, our sequential merge 1.2 ns per element (1.6 out of cache), so each
// halving that the merge does instead of std costs time: leaves as large as parallelism
// allows are fastest. Leaves below 64K elements: 4M sorts in 0.95-1.0x std's time at one
// worker (1.06x for 1M), against 1.03x with leaves below 32K and 1.1x below 8K; and 4M still
// makes 64 leaves.

/// Slices up to this length are sorted sequentially: below it a parallel sort gains less
/// than a wake-up of another worker costs.
const SEQUENTIAL: usize = if cfg!(miri) { 16 } else { 8192 };

/// Leaves hold fewer elements than this (and, in slices longer than it, at least a quarter
/// as many: see `leaf_depth`).
const MAX_LEAF: usize = if cfg!(miri) { 32 } else { 65536 };

/// Merges of at most this many elements in all run sequentially. Each split of a merge
/// costs a binary search, whose steps miss the cache in large runs: with merges split down
/// to 1K elements, the searches took a tenth of the whole sort; from 16K up the size makes
/// no measurable difference, and 32K still cuts the top merge of 4M into 128 pieces.
const MERGE_LEAF: usize = if cfg!(miri) { 8 } else { 32768 };

/// Sorts `v` stably in parallel: after it, no element is less than its predecessor, and
/// elements neither of which is less than the other keep their order.
///
/// If `is_less` panics, the panic propagates and `v` holds a permutation of its elements.
pub(crate) fn par_merge_sort<T, F>(v: &mut [T], is_less: &F)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    let len = v.len();
    if mem::size_of::<T>() == 0 || len <= 1 {
        return;
    }
    if len <= SEQUENTIAL {
        v.sort_by(ordering(is_less));
        return;
    }
    // Ordered and strictly descending inputs cost one pass instead of a sort. On other
    // inputs these stop at the first pair that disagrees, almost at once for random data.
    if is_sorted(v, is_less) {
        return;
    }
    if v.windows(2).all(|w| is_less(&w[1], &w[0])) {
        // Strictly descending: no two elements are equal, so reversing is stable.
        v.reverse();
        return;
    }
    // The buffer is allocated on a worker (see the parent module's doc).
    on_worker(|_| {
        // Room for `len` elements, never any in it (its length stays 0): dropping it frees
        // the memory and drops nothing.
        let mut buf: Vec<T> = Vec::with_capacity(len);
        let (src, dst) = (SendPtr(v.as_mut_ptr()), SendPtr(buf.as_mut_ptr()));
        // SAFETY: `src` holds the `len` initialized elements of `v`, which nothing else
        // touches while `v` stays mutably borrowed here; `dst` has room for `len` and is a
        // distinct allocation. The leaf depth is even, as `sort_into` requires for a
        // destination in the slice, and on return or unwind the elements are back in `v`.
        unsafe {
            sort_into(
                src,
                dst,
                len,
                false,
                leaf_depth(len, MAX_LEAF),
                true,
                is_less,
            )
        }
    })
}

/// How many times to halve `len` elements before sorting the pieces directly: the fewest
/// that leave pieces shorter than `piece` (`MAX_LEAF` for the parallel leaves), rounded up to
/// even so that the leaves, which sort in place, are on the side of the ping-pong that ends
/// in the slice (no leaf copies); at least 2, so that slices shorter than `MAX_LEAF` are
/// sorted in parallel too.
fn leaf_depth(len: usize, piece: usize) -> u32 {
    let mut depth = 2;
    // A piece at depth `d` holds `len >> d` elements, or one more.
    while (len >> depth) >= piece {
        depth += 2;
    }
    depth
}

/// Sorts the `len` elements at `v`, leaving them at `v` (`into_buf == false`) or at the same
/// offsets from `buf`: the halves by `join` and merged in parallel if `parallel`, else one
/// after the other and merged sequentially.
///
/// # Safety
/// `v` holds `len` initialized elements and `buf` has room for `len`, the two ranges
/// disjoint, and no one else uses either during the call. `into_buf` is true exactly when
/// `depth` is odd (the leaves sort in place in the slice). On return the elements are
/// sorted at the destination; on unwind they are there in some order. Either way the other
/// range holds only stale bitwise copies, which must not be used or dropped.
unsafe fn sort_into<T, F>(
    v: SendPtr<T>,
    buf: SendPtr<T>,
    len: usize,
    into_buf: bool,
    depth: u32,
    parallel: bool,
    is_less: &F,
) where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    if depth == 0 {
        debug_assert!(!into_buf);
        let small = small_sort_len::<T>();
        if parallel && mem::size_of::<T>() > LARGE_ELEMENT && len > small {
            // A parallel leaf of large elements: halved on, one half after the other, down to
            // pieces std sorts without allocating, with the leaf's part of the buffer as the
            // merges' scratch.
            let depth = leaf_depth(len, small);
            // SAFETY: the caller's contract, with the even depth that keeps the elements here.
            unsafe { sort_into(v, buf, len, false, depth, false, is_less) };
            return;
        }
        // SAFETY: the caller gives us the `len` elements at `v` exclusively. std's sort is
        // panic safe: on unwind they are still all there, where they belong.
        let piece = unsafe { slice::from_raw_parts_mut(v.get(), len) };
        piece.sort_by(ordering(is_less));
        return;
    }
    let mid = len / 2;
    // The halves go to the other side, from where the merge brings them to ours.
    let (src, dst) = if into_buf { (v, buf) } else { (buf, v) };
    // If a half unwinds, `join` still waits for the other half; then both halves are at
    // `src` (each call's promise), and the guard moves them to `dst`, keeping ours.
    let guard = CopyOnDrop {
        src: src.get(),
        dst: dst.get(),
        len,
    };
    // SAFETY: the halves `[0, mid)` and `[mid, len)` split our ranges in two disjoint
    // parts, one per closure; `!into_buf` matches the parity of `depth - 1`.
    let left = move || unsafe { sort_into(v, buf, mid, !into_buf, depth - 1, parallel, is_less) };
    // SAFETY: as above.
    let right = move || unsafe {
        let (v, buf) = (v.add(mid), buf.add(mid));
        sort_into(v, buf, len - mid, !into_buf, depth - 1, parallel, is_less)
    };
    if parallel {
        join(left, right);
    } else {
        one_then_other(left, right);
    }
    mem::forget(guard);
    // SAFETY: both sorted halves are at `src`, adjacent and initialized; `dst` has room for
    // `len` and does not overlap `src`; the merge leaves all `len` elements at `dst`, on
    // return or unwind, as we promise.
    unsafe {
        if parallel {
            par_merge(src, mid, src.add(mid), len - mid, dst, is_less)
        } else {
            seq_merge(
                src.get(),
                mid,
                src.get().add(mid),
                len - mid,
                dst.get(),
                is_less,
            )
        }
    }
}

/// Elements larger than this many bytes are sorted in leaves by our merges down to pieces
/// of `small_sort_len`; smaller ones by std's stable sort (see the parent module's doc).
const LARGE_ELEMENT: usize = 64;

/// The longest piece of large elements a leaf leaves to std's stable sort: std sorts up to
/// 20 elements by insertion, and somewhat more with scratch space on its stack (4 KB),
/// without allocating. Larger pieces would each allocate scratch as large as themselves.
const fn small_sort_len<T>() -> usize {
    // Zero-sized elements never come here (`par_merge_sort` returns first).
    let size = if mem::size_of::<T>() == 0 {
        1
    } else {
        mem::size_of::<T>()
    };
    let on_stack = 4096 / size;
    if cfg!(miri) {
        // Miri's leaves are short (`MAX_LEAF`): shorter pieces still, so that it checks our
        // merges inside a leaf.
        4
    } else if on_stack > 20 {
        on_stack
    } else {
        20
    }
}

/// Runs `first`, then `second` even if `first` unwinds, as `join` does; a panic of either
/// propagates after both ran.
fn one_then_other(first: impl FnOnce(), second: impl FnOnce()) {
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(first));
    second();
    if let Err(payload) = first {
        std::panic::resume_unwind(payload);
    }
}

/// Merges the sorted runs `a` (`na` elements) and `b` (`nb`) into `dst`, stably: of equal
/// elements, `a`'s come first.
///
/// # Safety
/// `a` and `b` hold initialized elements and `dst` has room for `na + nb`; `dst` overlaps
/// neither run; no one else uses them during the call. On return the elements are merged
/// at `dst`; on unwind they are all at `dst` in some order. Either way the runs hold only
/// stale bitwise copies.
unsafe fn par_merge<T, F>(
    a: SendPtr<T>,
    na: usize,
    b: SendPtr<T>,
    nb: usize,
    dst: SendPtr<T>,
    is_less: &F,
) where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    if na + nb <= MERGE_LEAF || na == 0 || nb == 0 {
        // SAFETY: the caller's contract, passed on.
        unsafe { seq_merge(a.get(), na, b.get(), nb, dst.get(), is_less) };
        return;
    }
    // Split both runs so that every element of the left parts belongs before every element
    // of the right parts, at the median of the longer run, found by binary search in the
    // other. If a comparison panics, nothing has moved yet: the guard moves both runs.
    // SAFETY: one past the end of each run.
    let (a_end, b_end) = unsafe { (a.get().add(na), b.get().add(nb)) };
    let guard = MergeGuard {
        a: a.get(),
        a_end,
        b: b.get(),
        b_end,
        dst: dst.get(),
    };
    // SAFETY: the runs hold `na` and `nb` initialized elements, read here only.
    let (ra, rb) = unsafe {
        (
            slice::from_raw_parts(a.get(), na),
            slice::from_raw_parts(b.get(), nb),
        )
    };
    let (am, bm) = if na >= nb {
        // `b`'s elements less than `a[am]` go left; those equal to it go right, after it.
        let am = na / 2;
        (am, rb.partition_point(|x| is_less(x, &ra[am])))
    } else {
        // `a`'s elements not greater than `b[bm]` go left, before it.
        let bm = nb / 2;
        (ra.partition_point(|x| !is_less(&rb[bm], x)), bm)
    };
    mem::forget(guard);
    join(
        // SAFETY: the two merges take disjoint parts of `a`, `b` and `dst`
        // (the left one the first `am + bm` places of `dst`), each keeping the promise for
        // its own part.
        move || unsafe { par_merge(a, am, b, bm, dst, is_less) },
        // SAFETY: as above.
        move || unsafe {
            par_merge(
                a.add(am),
                na - am,
                b.add(bm),
                nb - bm,
                dst.add(am + bm),
                is_less,
            )
        },
    );
}

/// Merges the runs sequentially, from both ends at once (the smallest remaining element to
/// the front, the largest to the back): two independent chains of dependent loads, and no
/// branch on the comparisons' results.
///
/// # Safety
/// As for `par_merge`.
unsafe fn seq_merge<T, F>(a: *mut T, na: usize, b: *mut T, nb: usize, dst: *mut T, is_less: &F)
where
    F: Fn(&T, &T) -> bool,
{
    // `g` holds the unmerged parts `[g.a, g.a_end)` and `[g.b, g.b_end)` and the next free
    // place at the front, `g.dst`; `back` is the last free place. Its drop copies what
    // remains of the runs to the free places, which are exactly as many: on return that is
    // the rest of the one run not exhausted, on unwind whatever is left.
    // SAFETY: one past the end of each run, and of `dst` (`back` may go one before `dst`,
    // hence `wrapping_sub`; it is never read or written there).
    let (a_end, b_end, dst_end) = unsafe { (a.add(na), b.add(nb), dst.add(na + nb)) };
    let mut g = MergeGuard {
        a,
        a_end,
        b,
        b_end,
        dst,
    };
    let mut back = dst_end.wrapping_sub(1);
    // Each element is compared where it is and then copied, so the copy merged is its latest
    // state (a comparison may change an element with interior mutability).
    loop {
        // SAFETY: each start and end pointer lies in (or one past) its run.
        let (ra, rb) = unsafe {
            (
                g.a_end.offset_from(g.a) as usize,
                g.b_end.offset_from(g.b) as usize,
            )
        };
        let pairs = ra.min(rb) / 2;
        if pairs == 0 {
            break;
        }
        for _ in 0..pairs {
            // SAFETY: the runs have `ra` and `rb` unmerged elements and each step takes one,
            // so both keep at least one through `2 * pairs <= min(ra, rb)` steps: every
            // pointer read is an unmerged element, every place written a free one (free
            // places and unmerged elements are as many).
            unsafe {
                // The smallest to the front; of equal ones, `a`'s.
                let take_b = is_less(&*g.b, &*g.a);
                ptr::copy_nonoverlapping(if take_b { g.b } else { g.a }, g.dst, 1);
                g.a = g.a.add(!take_b as usize);
                g.b = g.b.add(take_b as usize);
                g.dst = g.dst.add(1);
                // The largest to the back; of equal ones, `b`'s.
                let (la, lb) = (g.a_end.sub(1), g.b_end.sub(1));
                let take_a = is_less(&*lb, &*la);
                ptr::copy_nonoverlapping(if take_a { la } else { lb }, back, 1);
                g.a_end = g.a_end.sub(take_a as usize);
                g.b_end = g.b_end.sub(!take_a as usize);
                back = back.wrapping_sub(1);
            }
        }
    }
    // One run has at most one element left: finish from the front.
    while g.a < g.a_end && g.b < g.b_end {
        // SAFETY: as above, both runs are nonempty.
        unsafe {
            let take_b = is_less(&*g.b, &*g.a);
            ptr::copy_nonoverlapping(if take_b { g.b } else { g.a }, g.dst, 1);
            g.a = g.a.add(!take_b as usize);
            g.b = g.b.add(take_b as usize);
            g.dst = g.dst.add(1);
        }
    }
}

/// The state of a merge: the elements `[a, a_end)` and `[b, b_end)` not yet merged, and the
/// next free place `dst`. Dropping it copies them there, `a`'s first.
struct MergeGuard<T> {
    a: *mut T,
    a_end: *mut T,
    b: *mut T,
    b_end: *mut T,
    dst: *mut T,
}

impl<T> Drop for MergeGuard<T> {
    fn drop(&mut self) {
        // SAFETY: the merge's invariant: the two ranges hold the initialized elements not yet
        // merged, and `dst` has room for exactly as many; none overlaps `dst`'s free part.
        unsafe {
            let na = self.a_end.offset_from(self.a) as usize;
            let nb = self.b_end.offset_from(self.b) as usize;
            ptr::copy_nonoverlapping(self.a, self.dst, na);
            ptr::copy_nonoverlapping(self.b, self.dst.add(na), nb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn merge_sort_matches_std() {
        sorts_like_std(false, |v, is_less| {
            par_merge_sort(v, &|a: &u64, b: &u64| is_less(a, b))
        });
    }

    #[test]
    fn merge_sort_descending_comparator() {
        sorts_like_std(true, |v, is_less| {
            par_merge_sort(v, &|a: &u64, b: &u64| is_less(a, b))
        });
    }

    #[test]
    fn merge_sort_is_stable() {
        in_pools(|w| {
            for &len in LENS {
                for (name, keys) in inputs(len) {
                    // Few distinct keys make long runs of equal keys.
                    let input: Vec<(u64, usize)> =
                        keys.iter().enumerate().map(|(i, &k)| (k % 16, i)).collect();
                    let mut expected = input.clone();
                    expected.sort_by_key(|p| p.0);
                    let mut v = input;
                    par_merge_sort(&mut v, &|a: &(u64, usize), b: &(u64, usize)| a.0 < b.0);
                    assert!(
                        v.windows(2)
                            .all(|p| p[0].0 < p[1].0 || (p[0].0 == p[1].0 && p[0].1 < p[1].1)),
                        "{name}, len {len}, {w} workers"
                    );
                    assert!(v == expected, "{name}, len {len}, {w} workers");
                }
            }
        });
    }

    #[test]
    fn merge_sort_strings() {
        in_pools(|w| {
            for &len in LENS {
                let mut s = 1u64;
                let input: Vec<String> = (0..len)
                    .map(|_| format!("{:x}", splitmix64(&mut s) % 5000))
                    .collect();
                let mut expected = input.clone();
                expected.sort();
                let mut v = input;
                par_merge_sort(&mut v, &|a: &String, b: &String| a < b);
                assert!(v == expected, "len {len}, {w} workers");
            }
        });
    }

    #[test]
    fn merge_sort_zero_sized() {
        in_pools(|_| {
            let mut v = vec![(); 100_000];
            par_merge_sort(&mut v, &|_: &(), _: &()| {
                panic!("compared zero-sized values")
            });
            assert_eq!(v.len(), 100_000);
        });
    }

    fn merge_sort_tracked<const PAD: usize>(v: &mut [Tracked<PAD>], f: &Cmp<PAD>) {
        par_merge_sort(v, &|a: &Tracked<PAD>, b: &Tracked<PAD>| f(a, b))
    }

    #[test]
    fn merge_sort_panic_safe() {
        panic_safe_at_every_point::<0>(&merge_sort_tracked, PANIC_LENS);
    }

    /// Elements over 64 bytes, whose leaves our merges sort (longer than `SEQUENTIAL`).
    #[test]
    fn merge_sort_panic_safe_large_elements() {
        let lens: &[usize] = if cfg!(miri) { &[150] } else { &[20_000] };
        panic_safe_at_every_point::<8>(&merge_sort_tracked, lens);
    }

    /// Elements over 64 bytes sort as std's stable sort does, equal keys in their order.
    /// (Under Miri only where our merges sort a leaf: random keys and few, 100 of them.)
    #[test]
    fn merge_sort_large_elements() {
        in_pools(|w| {
            for &len in LENS.iter().filter(|&&len| !cfg!(miri) || len == 100) {
                for (name, keys) in inputs(len) {
                    if cfg!(miri) && !matches!(name, "random" | "few") {
                        continue;
                    }
                    // The key, then the position, which the comparison does not look at.
                    let input: Vec<[u64; 12]> = keys
                        .iter()
                        .enumerate()
                        .map(|(i, &k)| [k % 1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, i as u64])
                        .collect();
                    let mut expected = input.clone();
                    expected.sort_by_key(|e| e[0]);
                    let mut v = input;
                    par_merge_sort(&mut v, &|a: &[u64; 12], b: &[u64; 12]| a[0] < b[0]);
                    assert!(v == expected, "{name}, len {len}, {w} workers");
                }
            }
        });
    }
}
