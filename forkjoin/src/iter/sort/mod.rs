//! Parallel sorts of slices, built on `join` alone.
//!
//! [`par_merge_sort`] (stable) splits the slice in halves down to pieces of 16K-64K
//! elements, sorts those with std's stable sort, and merges back up. Each merge is itself
//! parallel: the median of the longer run and a binary search for it in the shorter run
//! split the merge into two independent merges (Cilk's `cilkmerge`), down to sequential
//! merges of 32K elements. One scratch buffer of the slice's length is allocated once;
//! successive levels merge from the slice into the buffer and back (ping-pong), so each
//! element moves once per level.
//!
//! Two choices keep fresh memory down, whose first touch costs a page fault per 4 KB (about
//! 2 us on this project's virtual machine, a third of a 128-byte sort's time):
//! - Elements over 64 bytes are sorted in the leaves by the same halving and merging, one
//!   half after the other, down to pieces std sorts without allocating (up to 20 elements,
//!   by insertion, or its 4 KB of stack). std's sort of a whole leaf would allocate scratch as
//!   large as the leaf; our merges use the leaf's part of the buffer. For smaller elements
//!   std's leaves are faster than our merges (its partitions), and take its scratch.
//! - The buffer is allocated on a worker. With an allocator that keeps an arena per thread
//!   (glibc's), it then comes from another arena than a calling thread's data: a caller that
//!   clones a large slice and sorts it, over and over (rayon-demo's sorts), frees its copy
//!   next to our freed buffer in one arena, and glibc returned both to the system each time
//!   (the top of the heap past its trim threshold), to fault them in again on the next call.
//!
//! [`par_quick_sort`] (unstable) is a quicksort in the style of pattern-defeating quicksort:
//! a pseudo-median pivot, a branchless partition (elements of up to 64 bytes moved one by
//! one, larger ones exchanged in blocks), both sides sorted with `join` down to 8K elements;
//! std's unstable sort on pieces of 8K elements (24 of the larger ones, whose partitions std
//! makes with a branch per element), and on any piece whose recursion ran too deep (as
//! introsort does, so adversarial inputs stay O(n log n)). A pivot equal to an earlier
//! pivot on its left makes the piece gather the keys equal to it and drop them, so few
//! distinct keys sort in O(n log k). A nearly ascending or descending input takes
//! `presorted`'s linear path instead.
//!
//! Both are panic safe: if the comparison panics, the panic reaches the caller and the
//! slice holds every original element exactly once, in some order.

mod merge;
mod presorted;
mod quick;

pub(crate) use merge::par_merge_sort;
pub(crate) use quick::par_quick_sort;

use std::cmp::Ordering;

/// The `compare` for std's `sort_by` / `sort_unstable_by` from an `is_less`.
///
/// std's `sort_by` and `sort_unstable_by` use `compare` only as `compare(a, b) == Less`
/// (their implementations are written on an `is_less`), so one call of `is_less` per
/// comparison is enough, and answering `Greater` for "not less" (which may be "equal") is
/// never told apart from the truth. The full ordering would cost two calls of `is_less`.
#[inline(always)]
fn ordering<T, F: Fn(&T, &T) -> bool>(is_less: &F) -> impl Fn(&T, &T) -> Ordering + '_ {
    move |a, b| {
        if is_less(a, b) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }
}

/// A raw pointer that may cross to another worker.
///
/// The sorts split their slices (and the merge sort's buffer) into disjoint ranges, each
/// handed to one closure of a `join`: whoever holds a range has exclusive access to it, as
/// with a `&mut [T]`, which is `Send` when `T` is.
struct SendPtr<T>(*mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}

// SAFETY: see the type's doc: each range behind the pointer is used by one thread at a time,
// as through a `&mut [T]`, which is `Send` for `T: Send`. (No `Sync`: closures take their
// `SendPtr`s by value.)
unsafe impl<T: Send> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    #[inline(always)]
    fn get(self) -> *mut T {
        self.0
    }

    /// # Safety
    /// As for `pointer::add`: the result stays within (or one past) the same allocation.
    #[inline(always)]
    unsafe fn add(self, n: usize) -> SendPtr<T> {
        // SAFETY: the caller's contract.
        SendPtr(unsafe { self.0.add(n) })
    }
}

/// Copies `len` elements from `src` to `dst` when dropped: what a sort holds outside its
/// slice goes back on every way out, unwinding included.
struct CopyOnDrop<T> {
    src: *mut T,
    dst: *mut T,
    len: usize,
}

impl<T> Drop for CopyOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: made (and updated) only where `src` holds `len` initialized elements that
        // belong at `dst`, a disjoint range with room for them (see `merge::sort_into`,
        // `presorted::merge_through_buffer`).
        unsafe { std::ptr::copy_nonoverlapping(self.src, self.dst, self.len) };
    }
}

/// Whether `v` is already in order (no element less than its predecessor). Reads only, so a
/// panic in `is_less` leaves `v` as it was.
fn is_sorted<T, F: Fn(&T, &T) -> bool>(v: &[T], is_less: &F) -> bool {
    // Sixteen pairs at a time without a branch between them, which simple keys vectorise;
    // a disorder stops the scan at the end of its group.
    let whole = v
        .windows(17)
        .step_by(16)
        .all(|w| !(0..16).fold(false, |out, k| out | is_less(&w[k + 1], &w[k])));
    let checked = (v.len().saturating_sub(1) / 16) * 16;
    whole && v[checked..].windows(2).all(|w| !is_less(&w[1], &w[0]))
}

#[cfg(test)]
mod testutil {
    //! Inputs, pools and a drop-counting element shared by the tests of both sorts.

    use std::cell::Cell;
    use std::panic;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::{Arc, Once};

    /// The lengths every sort is checked at. Miri runs the small ones only, with cutoffs
    /// shrunk to match (see the constants of the sorts): at 100 both sorts already split
    /// below their parallel cutoff, merge in parallel and run sequential leaves. The
    /// unoptimised build stops at 100,000 (where both sorts also split below their cutoffs
    /// and merge in parallel); the optimised run of the test command adds 1,000,000.
    pub(super) const LENS: &[usize] = if cfg!(miri) {
        &[0, 1, 2, 3, 17, 100]
    } else if cfg!(debug_assertions) {
        &[0, 1, 2, 3, 17, 1000, 4097, 100_000]
    } else {
        &[0, 1, 2, 3, 17, 1000, 4097, 100_000, 1_000_000]
    };

    /// Worker counts: one, the machine's two, and oversubscribed (under Miri one and two: a
    /// thief; see DESIGN.md, "Miri's cases").
    pub(super) const WORKERS: &[usize] = if cfg!(miri) { &[1, 2] } else { &[1, 2, 8] };

    pub(super) fn splitmix64(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Named inputs of length `len`: random, few distinct values, sorted, reversed, all
    /// equal, and a sorted run with a random tail.
    pub(super) fn inputs(len: usize) -> Vec<(&'static str, Vec<u64>)> {
        let mut s = len as u64;
        let random: Vec<u64> = (0..len).map(|_| splitmix64(&mut s)).collect();
        let few: Vec<u64> = (0..len).map(|_| splitmix64(&mut s) % 4).collect();
        let sorted: Vec<u64> = (0..len as u64).collect();
        let reversed: Vec<u64> = (0..len as u64).rev().collect();
        let equal = vec![7u64; len];
        let mut tail = sorted.clone();
        for x in tail.iter_mut().skip(len - len / 8) {
            *x = splitmix64(&mut s) % (len as u64 + 1);
        }
        vec![
            ("random", random),
            ("few", few),
            ("sorted", sorted),
            ("reversed", reversed),
            ("equal", equal),
            ("sorted+tail", tail),
        ]
    }

    /// Runs `f` in pools of each of `WORKERS`.
    pub(super) fn in_pools(f: impl Fn(usize) + Sync) {
        for &w in WORKERS {
            let pool = crate::Pool::new(w).unwrap();
            pool.install(|| f(w));
        }
    }

    /// Checks that `sort` sorts every input of every length in `LENS`, in pools of each of
    /// `WORKERS`, as std does: ascending, or descending if `descending` (the comparator
    /// `sort` is given is `a < b` or `a > b` to match).
    pub(super) fn sorts_like_std(
        descending: bool,
        sort: impl Fn(&mut [u64], &(dyn Fn(&u64, &u64) -> bool + Sync)) + Sync,
    ) {
        let is_less = |a: &u64, b: &u64| if descending { a > b } else { a < b };
        in_pools(|w| {
            for &len in LENS {
                for (name, input) in inputs(len) {
                    let mut expected = input.clone();
                    expected.sort_by(|a, b| if descending { b.cmp(a) } else { a.cmp(b) });
                    let mut v = input;
                    sort(&mut v, &is_less);
                    assert!(v == expected, "{name}, len {len}, {w} workers");
                }
            }
        });
    }

    /// The payload of the tests' deliberate panics, which the hook keeps quiet.
    pub(super) const PANIC_MSG: &str = "sort test: deliberate panic";

    /// Installs (once) a panic hook that prints nothing for the deliberate panics.
    pub(super) fn quiet_deliberate_panics() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let prev = panic::take_hook();
            panic::set_hook(Box::new(move |info| {
                if info.payload().downcast_ref::<&str>() != Some(&PANIC_MSG) {
                    prev(info);
                }
            }));
        });
    }

    /// A comparison of `Tracked` elements, and a sort that takes one.
    pub(super) type Cmp<'a, const PAD: usize = 0> =
        dyn Fn(&Tracked<PAD>, &Tracked<PAD>) -> bool + Sync + 'a;
    pub(super) type SortFn<const PAD: usize = 0> = dyn Fn(&mut [Tracked<PAD>], &Cmp<PAD>) + Sync;

    /// What the `Tracked` elements of one test count.
    #[derive(Default)]
    pub(super) struct Counters {
        drops: AtomicUsize,
        /// Comparisons made (each adds 2) less the versions of the elements dropped: 0 at the
        /// end exactly when each element dropped was its latest state.
        versions: AtomicUsize,
    }

    /// An element that is not `Copy` (nor `Sync`), carries a unique id, counts its drops, and
    /// changes on each comparison, through a `Cell`, as in rayon's `sort-panic-safe` test: a
    /// sort that compared an element and then kept an older copy of it is caught. `PAD` words
    /// more make it large (40 bytes without), for the sorts' paths for large elements.
    pub(super) struct Tracked<const PAD: usize = 0> {
        pub(super) key: u64,
        pub(super) id: usize,
        version: Cell<usize>,
        // Heap data, so a duplicated element would be a double free that Miri reports.
        _heap: Box<u64>,
        counters: Arc<Counters>,
        _pad: [u64; PAD],
    }

    impl<const PAD: usize> Tracked<PAD> {
        pub(super) fn new_vec(len: usize, distinct: u64, counters: &Arc<Counters>) -> Vec<Self> {
            let mut s = 0x5eed ^ len as u64;
            (0..len)
                .map(|id| Tracked {
                    key: splitmix64(&mut s) % distinct,
                    id,
                    version: Cell::new(0),
                    _heap: Box::new(id as u64),
                    counters: Arc::clone(counters),
                    _pad: [0; PAD],
                })
                .collect()
        }

        /// Compares the keys, and makes both elements a new version.
        pub(super) fn less(a: &Self, b: &Self) -> bool {
            a.version.set(a.version.get() + 1);
            b.version.set(b.version.get() + 1);
            a.counters.versions.fetch_add(2, Relaxed);
            a.key < b.key
        }
    }

    impl<const PAD: usize> Drop for Tracked<PAD> {
        fn drop(&mut self) {
            self.counters.drops.fetch_add(1, Relaxed);
            self.counters
                .versions
                .fetch_sub(self.version.get(), Relaxed);
        }
    }

    /// Sorts `Tracked` elements with a comparison that panics at its `k`-th call (and, when
    /// `keep_panicking`, at every later one, so several workers panic at once), then checks
    /// that the slice holds every id once and that dropping it drops each element once.
    /// Returns whether the sort panicked (false when it needed fewer than `k` comparisons).
    pub(super) fn check_panic_safety<const PAD: usize>(
        sort: &SortFn<PAD>,
        len: usize,
        distinct: u64,
        k: usize,
        keep_panicking: bool,
    ) -> bool {
        quiet_deliberate_panics();
        let counters = Arc::new(Counters::default());
        let mut v = Tracked::new_vec(len, distinct, &counters);
        let calls = AtomicUsize::new(0);
        let is_less = |a: &Tracked<PAD>, b: &Tracked<PAD>| {
            let c = calls.fetch_add(1, Relaxed) + 1;
            if c == k || (keep_panicking && c > k) {
                panic::panic_any(PANIC_MSG);
            }
            Tracked::less(a, b)
        };
        let r = panic::catch_unwind(panic::AssertUnwindSafe(|| sort(&mut v, &is_less)));
        assert_eq!(
            counters.drops.load(Relaxed),
            0,
            "an element was dropped during the sort"
        );
        let mut seen = vec![false; len];
        for t in &v {
            assert!(!seen[t.id], "id {} twice (len {len}, k {k})", t.id);
            seen[t.id] = true;
        }
        assert!(
            seen.iter().all(|&s| s),
            "an id is missing (len {len}, k {k})"
        );
        if r.is_ok() {
            assert!(v.windows(2).all(|w| w[0].key <= w[1].key));
        }
        drop(v);
        assert_eq!(
            counters.drops.load(Relaxed),
            len,
            "drop count (len {len}, k {k})"
        );
        assert_eq!(
            counters.versions.load(Relaxed),
            0,
            "an element was dropped in an older state than its last comparison (len {len}, k {k})"
        );
        r.is_err()
    }

    /// The comparisons `sort` makes on the `Tracked` input of `len` (deterministic: neither
    /// sort's comparisons depend on scheduling).
    pub(super) fn count_comparisons<const PAD: usize>(
        sort: &SortFn<PAD>,
        len: usize,
        distinct: u64,
    ) -> usize {
        let counters = Arc::new(Counters::default());
        let mut v = Tracked::new_vec(len, distinct, &counters);
        let calls = AtomicUsize::new(0);
        sort(&mut v, &|a: &Tracked<PAD>, b: &Tracked<PAD>| {
            calls.fetch_add(1, Relaxed);
            Tracked::less(a, b)
        });
        calls.into_inner()
    }

    /// The panic points checked for a sort of `total` comparisons: the first few, some in
    /// the middle, the last (fewer under Miri, which runs them a thousand times slower).
    pub(super) fn panic_points(total: usize) -> Vec<usize> {
        let mut ks = if cfg!(miri) {
            vec![1, total / 3, total - total / 5, total]
        } else {
            vec![
                1,
                2,
                3,
                10,
                100,
                total / 7,
                total / 3,
                total / 2,
                total - total / 5,
                total.saturating_sub(10),
                total.saturating_sub(1),
                total,
            ]
        };
        ks.retain(|&k| k >= 1 && k <= total);
        ks.sort_unstable();
        ks.dedup();
        ks
    }

    /// The lengths the panic-safety checks of both sorts run at (shorter under Miri).
    pub(super) const PANIC_LENS: &[usize] = if cfg!(miri) {
        &[2, 17, 150]
    } else {
        &[2, 17, 5000, 50_000]
    };

    /// Checks `sort` with a panic at each of `panic_points` (once, and from there on), at
    /// every length of `lens`, on few and on many distinct keys, in pools of each size; and
    /// that one comparison past the last makes no panic and a sorted result.
    pub(super) fn panic_safe_at_every_point<const PAD: usize>(sort: &SortFn<PAD>, lens: &[usize]) {
        in_pools(|_| {
            for &len in lens {
                for distinct in [3, 1 << 40] {
                    let total = count_comparisons(sort, len, distinct);
                    for k in panic_points(total) {
                        for keep in [false, true] {
                            assert!(check_panic_safety(sort, len, distinct, k, keep));
                        }
                    }
                    assert!(!check_panic_safety(sort, len, distinct, total + 1, false));
                }
            }
        });
    }
}
