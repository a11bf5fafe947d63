//! The parallel iterators against std's sequential ones: every source, adaptor and consumer
//! gives exactly std's answer on inputs of 0, 1, 2, 3, 17, 1001 and 10^6 items, inside pools
//! of 1, 2 and 8 workers (8 oversubscribes this 2-core machine on purpose) and outside any
//! pool (the global pool). Then early stops, panics, drops, nesting, the sorts and the
//! loops of the first API built on the iterators.
//!
//! Where rayon leaves a choice open (which of several matches `find_any` returns, which
//! error `try_reduce` returns when several items fail), the test checks that the answer is
//! one of the allowed ones; everywhere else it compares values exactly.

use forkjoin::prelude::*;
use forkjoin::{join, scope, Pool};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::num::Wrapping;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, Mutex, OnceLock};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

const BIG: usize = 1_000_000;
/// Every input length the tests use; `input(n)` has them cached.
const LENS: [usize; 7] = [0, 1, 2, 3, 17, 1001, BIG];
/// The lengths without 10^6, for the costlier checks.
const SMALL: [usize; 6] = [0, 1, 2, 3, 17, 1001];

/// Pools of 1, 2 and 8 workers, shared by all the tests.
fn pools() -> &'static [(usize, Pool)] {
    static POOLS: OnceLock<Vec<(usize, Pool)>> = OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 2, 8]
            .into_iter()
            .map(|w| (w, Pool::new(w).unwrap()))
            .collect()
    })
}

/// Runs `f` inside pools of 1, 2 and 8 workers, then outside any pool (on the global pool).
/// `f` gets a label naming where it runs, for the assertion messages.
fn on_pools(f: impl Fn(&str) + Sync) {
    for (w, pool) in pools() {
        let at = format!("{w} workers");
        pool.install(|| f(&at));
    }
    f("the global pool");
}

/// `f` once per (pool, input length) pair.
fn on_pools_and_lens(lens: &[usize], f: impl Fn(&str, usize) + Sync) {
    on_pools(|at| {
        for &n in lens {
            f(&format!("n = {n}, {at}"), n);
        }
    });
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n).map(|_| splitmix64(&mut s)).collect()
}

/// Random 64-bit values, `n` of them (`n` one of `LENS`), made once.
fn input(n: usize) -> &'static [u64] {
    static CACHE: OnceLock<Vec<Vec<u64>>> = OnceLock::new();
    let all = CACHE.get_or_init(|| LENS.iter().map(|&n| random(n, n as u64 + 1)).collect());
    let i = LENS.iter().position(|&m| m == n).expect("n is one of LENS");
    &all[i]
}

/// Another input of the same length, with many repeated values (keys 0..10).
fn keys(n: usize) -> Vec<u64> {
    input(n).iter().map(|x| x % 10).collect()
}

fn wsum<'a>(it: impl Iterator<Item = &'a u64>) -> u64 {
    it.fold(0u64, |a, &x| a.wrapping_add(x))
}

/// The message of the panic `f` raises (which it must).
fn panic_message(f: impl FnOnce()) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => panic!("expected a panic"),
        Err(payload) => {
            if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                panic!("the panic's payload is neither &str nor String")
            }
        }
    }
}

/// Counts how many times each index was visited.
struct Hits(Vec<AtomicU32>);

impl Hits {
    fn new(n: usize) -> Hits {
        Hits((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    fn hit(&self, i: usize) {
        self.0[i].fetch_add(1, Relaxed);
    }
    #[track_caller]
    fn assert_each_once(&self, what: &str) {
        for (i, h) in self.0.iter().enumerate() {
            assert_eq!(h.load(Relaxed), 1, "index {i} visited wrongly: {what}");
        }
    }
}

/// Counts creations and drops per id: every item must be dropped exactly once.
struct Ledger {
    created: Vec<AtomicU32>,
    dropped: Vec<AtomicU32>,
}

struct Tracked<'a> {
    id: usize,
    ledger: &'a Ledger,
}

impl Ledger {
    fn new(n: usize) -> Ledger {
        Ledger {
            created: (0..n).map(|_| AtomicU32::new(0)).collect(),
            dropped: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }
    fn make(&self, id: usize) -> Tracked<'_> {
        self.created[id].fetch_add(1, Relaxed);
        Tracked { id, ledger: self }
    }
    fn created(&self) -> usize {
        self.created.iter().map(|c| c.load(Relaxed) as usize).sum()
    }
    #[track_caller]
    fn assert_all_dropped_once(&self, what: &str) {
        for i in 0..self.created.len() {
            let (c, d) = (self.created[i].load(Relaxed), self.dropped[i].load(Relaxed));
            assert!(c <= 1, "item {i} created {c} times: {what}");
            assert_eq!(
                d, c,
                "item {i} created {c} times, dropped {d} times: {what}"
            );
        }
    }
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.ledger.dropped[self.id].fetch_add(1, Relaxed);
    }
}

/// A 2x2 matrix of wrapping u64: multiplication is associative but not commutative, so a
/// reduction that regroups is fine and one that reorders is caught.
type Mat = [u64; 4];
const ID: Mat = [1, 0, 0, 1];
fn mat(x: u64) -> Mat {
    [x | 1, x >> 7, x >> 13, 3]
}
fn mul(a: Mat, b: Mat) -> Mat {
    let m = |x: u64, y: u64| x.wrapping_mul(y);
    [
        m(a[0], b[0]).wrapping_add(m(a[1], b[2])),
        m(a[0], b[1]).wrapping_add(m(a[1], b[3])),
        m(a[2], b[0]).wrapping_add(m(a[3], b[2])),
        m(a[2], b[1]).wrapping_add(m(a[3], b[3])),
    ]
}

// ---------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------

/// A range of any integer type against std: collect (in order), count, opt_len, sum, min,
/// max, find_first, find_last.
macro_rules! check_range {
    ($r:expr, $at:expr) => {{
        let r = $r;
        let expected: Vec<_> = r.clone().collect();
        let what = format!("{:?}, {}", r, $at);
        let got: Vec<_> = r.clone().into_par_iter().collect();
        assert_eq!(got, expected, "collect {what}");
        assert_eq!(
            r.clone().into_par_iter().count(),
            expected.len(),
            "count {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().opt_len(),
            Some(expected.len()),
            "opt_len {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().map(|x| x as i128).sum::<i128>(),
            expected.iter().map(|&x| x as i128).sum::<i128>(),
            "sum {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().min(),
            expected.iter().copied().min(),
            "min {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().max(),
            expected.iter().copied().max(),
            "max {what}"
        );
        let p = |x: i128| x.rem_euclid(3) == 1;
        assert_eq!(
            r.clone().into_par_iter().find_first(|&x| p(x as i128)),
            expected.iter().copied().find(|&x| p(x as i128)),
            "find_first {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().find_last(|&x| p(x as i128)),
            expected.iter().copied().rfind(|&x| p(x as i128)),
            "find_last {what}"
        );
    }};
}

/// `check_range`, plus what an indexed range offers: len, rev, enumerate, skip/take, zip.
macro_rules! check_indexed_range {
    ($r:expr, $at:expr) => {{
        check_range!($r, $at);
        let r = $r;
        let expected: Vec<_> = r.clone().collect();
        let what = format!("{:?}, {}", r, $at);
        let n = expected.len();
        assert_eq!(r.clone().into_par_iter().len(), n, "len {what}");
        let rev: Vec<_> = r.clone().into_par_iter().rev().collect();
        assert_eq!(
            rev,
            expected.iter().rev().copied().collect::<Vec<_>>(),
            "rev {what}"
        );
        let en: Vec<_> = r.clone().into_par_iter().enumerate().collect();
        assert_eq!(
            en,
            expected.iter().copied().enumerate().collect::<Vec<_>>(),
            "enumerate {what}"
        );
        let mid: Vec<_> = r
            .clone()
            .into_par_iter()
            .skip(n / 3)
            .take(n / 3 + 1)
            .collect();
        assert_eq!(
            mid,
            expected
                .iter()
                .copied()
                .skip(n / 3)
                .take(n / 3 + 1)
                .collect::<Vec<_>>(),
            "skip/take {what}"
        );
        let z: Vec<_> = r
            .clone()
            .into_par_iter()
            .zip(r.clone().into_par_iter().rev())
            .collect();
        assert_eq!(
            z,
            expected
                .iter()
                .copied()
                .zip(expected.iter().rev().copied())
                .collect::<Vec<_>>(),
            "zip {what}"
        );
    }};
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn ranges_of_every_integer_type() {
    on_pools(|at| {
        // u8 u16 u32 usize i8 i16 i32 isize: indexed.
        check_indexed_range!(0u8..0, at);
        check_indexed_range!(7u8..3, at);
        check_indexed_range!(0u8..1, at);
        check_indexed_range!(0u8..2, at);
        check_indexed_range!(5u8..8, at);
        check_indexed_range!(3u8..20, at);
        check_indexed_range!(u8::MIN..u8::MAX, at);
        check_indexed_range!(i8::MIN..i8::MAX, at);
        check_indexed_range!(-100i8..100, at);
        check_indexed_range!(-3i8..-3, at);
        check_indexed_range!(i8::MIN..i8::MIN + 1, at);
        check_indexed_range!(0u16..17, at);
        check_indexed_range!(u16::MIN..u16::MAX, at);
        check_indexed_range!(i16::MIN..i16::MAX, at);
        check_indexed_range!(-1000i16..1, at);
        check_indexed_range!(0u32..1001, at);
        check_indexed_range!(u32::MAX - 17..u32::MAX, at);
        check_indexed_range!(i32::MIN..i32::MIN + 17, at);
        check_indexed_range!(-500i32..501, at);
        check_indexed_range!(i32::MAX - 2..i32::MAX, at);
        check_indexed_range!(0usize..3, at);
        check_indexed_range!(usize::MAX - 1001..usize::MAX, at);
        check_indexed_range!(isize::MIN..isize::MIN + 17, at);
        check_indexed_range!(-8isize..9, at);
        check_indexed_range!(0u32..BIG as u32, at);
        // u64 and i64: not indexed (as in rayon), but exact wherever the length fits.
        check_range!(0u64..0, at);
        check_range!(9u64..2, at);
        check_range!(0u64..1, at);
        check_range!(0u64..1001, at);
        check_range!(u64::MAX - 5..u64::MAX, at);
        check_range!(i64::MIN..i64::MIN + 10, at);
        check_range!(-500i64..501, at);
        check_range!(i64::MAX - 3..i64::MAX, at);
        check_range!(-(BIG as i64 / 2)..BIG as i64 / 2, at);
    });
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn inclusive_ranges_of_every_integer_type() {
    on_pools(|at| {
        // u8 u16 i8 i16: indexed.
        check_indexed_range!(u8::MIN..=u8::MAX, at);
        check_indexed_range!(255u8..=255, at);
        check_indexed_range!(1u8..=0, at);
        check_indexed_range!(0u8..=2, at);
        check_indexed_range!(i8::MIN..=i8::MAX, at);
        check_indexed_range!(-1i8..=-1, at);
        check_indexed_range!(-100i8..=100, at);
        check_indexed_range!(u16::MIN..=u16::MAX, at);
        check_indexed_range!(i16::MIN..=i16::MAX, at);
        check_indexed_range!(-8i16..=8, at);
        // The others: not indexed, exact where the length fits.
        check_range!(u32::MAX - 5..=u32::MAX, at);
        check_range!(0u32..=1000, at);
        check_range!(3u32..=2, at);
        check_range!(i32::MIN..=i32::MIN + 16, at);
        check_range!(-3i32..=-1, at);
        check_range!(u64::MAX - 5..=u64::MAX, at);
        check_range!(0u64..=0, at);
        check_range!(i64::MIN..=i64::MIN + 9, at);
        check_range!(i64::MAX - 2..=i64::MAX, at);
        check_range!(-500i64..=500, at);
        check_range!(usize::MAX - 16..=usize::MAX, at);
        check_range!(0usize..=1000, at);
        check_range!(isize::MIN..=isize::MIN + 2, at);
        check_range!(isize::MAX - 2..=isize::MAX, at);
        check_range!(-1isize..=1, at);
        // An exhausted inclusive range is empty even though start <= end.
        let mut spent = 3u32..=3;
        assert_eq!(spent.next(), Some(3));
        assert_eq!(spent.into_par_iter().count(), 0, "{at}");
        let mut spent = 5u8..=5;
        assert_eq!(spent.next(), Some(5));
        assert_eq!(spent.into_par_iter().len(), 0, "{at}");
    });
}

/// Ranges too long to run through: their lengths, and searches that stop near the start.
#[test]
fn full_width_ranges_without_running_through_them() {
    on_pools(|at| {
        assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (0..u64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..i64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..=i64::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!((0..=usize::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (isize::MIN..=isize::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!(
            (0..=u32::MAX).into_par_iter().opt_len(),
            Some(1 << 32),
            "{at}"
        );
        assert_eq!(
            (i32::MIN..=i32::MAX).into_par_iter().opt_len(),
            Some(1 << 32),
            "{at}"
        );
        assert_eq!(
            (0..u32::MAX).into_par_iter().len(),
            u32::MAX as usize,
            "{at}"
        );
        assert_eq!(
            (i32::MIN..i32::MAX).into_par_iter().len(),
            u32::MAX as usize,
            "{at}"
        );

        assert_eq!(
            (0..=u64::MAX).into_par_iter().find_first(|&x| x == 5),
            Some(5),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..=i64::MAX)
                .into_par_iter()
                .find_first(|&x| x > i64::MIN + 2),
            Some(i64::MIN + 3),
            "{at}"
        );
        assert_eq!(
            (isize::MIN..=isize::MAX)
                .into_par_iter()
                .find_first(|&x| x % 7 == -6),
            Some((isize::MIN..).find(|&x| x % 7 == -6).unwrap()),
            "{at}"
        );
        assert_eq!(
            (0..=usize::MAX).into_par_iter().find_first(|&x| x == 3),
            Some(3),
            "{at}"
        );
        assert_eq!(
            (0..u64::MAX).into_par_iter().find_any(|&x| x == 4),
            Some(4),
            "{at}"
        );
        assert!((0..=u64::MAX).into_par_iter().any(|x| x == 40), "{at}");
        assert!(
            !(i64::MIN..=i64::MAX)
                .into_par_iter()
                .all(|x| x < i64::MIN + 10),
            "{at}"
        );
        assert_eq!(
            (0..u32::MAX).into_par_iter().position_first(|x| x == 9),
            Some(9),
            "{at}"
        );
    });
}

#[test]
fn slices_by_reference_and_by_mutable_reference() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(v.par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(v.par_iter().len(), n, "{at}");
        assert_eq!(
            v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(v.iter()),
            "{at}"
        );
        let refs: Vec<&u64> = v.par_iter().collect();
        assert!(refs.iter().zip(v).all(|(&a, b)| std::ptr::eq(a, b)), "{at}");

        let mut w = v.to_vec();
        w.par_iter_mut().for_each(|x| *x = x.wrapping_mul(3) ^ 1);
        let expected: Vec<u64> = v.iter().map(|x| x.wrapping_mul(3) ^ 1).collect();
        assert_eq!(w, expected, "{at}");
        w.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i as u64);
        assert_eq!(w, (0..n as u64).collect::<Vec<_>>(), "{at}");
        (&mut w[..])
            .into_par_iter()
            .rev()
            .enumerate()
            .for_each(|(i, x)| *x += 10 * i as u64);
        let expected: Vec<u64> = (0..n as u64).map(|i| i + 10 * (n as u64 - 1 - i)).collect();
        assert_eq!(w, expected, "{at}");
    });
}

#[test]
fn slice_chunks_chunks_mut_and_windows() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 7, 1000, n.max(1), n + 1] {
            let got: Vec<&[u64]> = v.par_chunks(k).collect();
            assert_eq!(
                got,
                v.chunks(k).collect::<Vec<_>>(),
                "par_chunks({k}), {at}"
            );
            assert_eq!(
                v.par_chunks(k).len(),
                v.chunks(k).len(),
                "par_chunks({k}), {at}"
            );

            let mut w = v.to_vec();
            w.par_chunks_mut(k).enumerate().for_each(|(c, chunk)| {
                for x in chunk.iter_mut() {
                    *x = c as u64;
                }
                chunk[0] = u64::MAX;
            });
            let mut expected = v.to_vec();
            for (c, chunk) in expected.chunks_mut(k).enumerate() {
                chunk.fill(c as u64);
                chunk[0] = u64::MAX;
            }
            assert_eq!(w, expected, "par_chunks_mut({k}), {at}");
        }
        for k in [1, 2, 5, n.max(1), n + 1] {
            let got: Vec<&[u64]> = v.par_windows(k).collect();
            assert_eq!(
                got,
                v.windows(k).collect::<Vec<_>>(),
                "par_windows({k}), {at}"
            );
            assert_eq!(
                v.par_windows(k).len(),
                v.windows(k).len(),
                "par_windows({k}), {at}"
            );
        }
    });
    // As rayon: a size of zero is a panic, not an endless loop.
    let v = [1, 2, 3];
    assert_eq!(
        panic_message(|| {
            let _ = v.par_chunks(0);
        }),
        "chunk_size must not be zero"
    );
    assert_eq!(
        panic_message(|| {
            let _ = v.par_windows(0);
        }),
        "window_size must not be zero"
    );
    let mut w = [1, 2, 3];
    assert_eq!(
        panic_message(|| {
            let _ = w.par_chunks_mut(0);
        }),
        "chunk_size must not be zero"
    );
}

#[test]
fn vectors_owned_and_by_reference() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n).to_vec();
        assert_eq!((&v).into_par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(
            v.par_iter().rev().copied().collect::<Vec<_>>(),
            v.iter().rev().copied().collect::<Vec<_>>(),
            "{at}"
        );
        let mut w = v.clone();
        (&mut w).into_par_iter().for_each(|x| *x >>= 1);
        assert_eq!(w, v.iter().map(|x| x >> 1).collect::<Vec<_>>(), "{at}");
        assert_eq!(v.clone().into_par_iter().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(v.clone().into_par_iter().len(), n, "{at}");
        assert_eq!(
            v.clone().into_par_iter().rev().skip(1).collect::<Vec<_>>(),
            v.iter().rev().skip(1).copied().collect::<Vec<_>>(),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        // Owned items with heap memory: moved out once each, in order.
        let strings: Vec<String> = input(n).iter().map(|x| x.to_string()).collect();
        let moved: Vec<String> = strings.clone().into_par_iter().collect();
        assert_eq!(moved, strings, "{at}");
        let lens: usize = strings.clone().into_par_iter().map(|s| s.len()).sum();
        assert_eq!(lens, strings.iter().map(String::len).sum::<usize>(), "{at}");
        // Items never reached (take, skip, an early stop) are dropped, exactly once.
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let firsts: Vec<usize> = items.into_par_iter().take(3).map(|t| t.id).collect();
        assert_eq!(firsts, (0..n.min(3)).collect::<Vec<_>>(), "{at}");
        ledger.assert_all_dropped_once(&format!("take, {at}"));
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let lasts: Vec<Tracked> = items.into_par_iter().skip(n / 2).collect();
        assert_eq!(
            lasts.iter().map(|t| t.id).collect::<Vec<_>>(),
            (n / 2..n).collect::<Vec<_>>(),
            "{at}"
        );
        drop(lasts);
        ledger.assert_all_dropped_once(&format!("skip, {at}"));
        let ledger = Ledger::new(n);
        let items: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
        let found = items.into_par_iter().find_first(|t| t.id == n / 2);
        assert_eq!(
            found.as_ref().map(|t| t.id),
            (n > 0).then_some(n / 2),
            "{at}"
        );
        drop(found);
        ledger.assert_all_dropped_once(&format!("find_first, {at}"));
    });
}

#[test]
fn arrays_by_value_and_by_reference() {
    on_pools(|at| {
        let a: [u64; 17] = std::array::from_fn(|i| input(17)[i]);
        assert_eq!(a.into_par_iter().collect::<Vec<_>>(), a, "{at}");
        assert_eq!(a.into_par_iter().len(), 17, "{at}");
        assert_eq!((&a).into_par_iter().copied().collect::<Vec<_>>(), a, "{at}");
        assert_eq!(a.par_iter().max(), a.iter().max(), "{at}");
        let mut b = a;
        b.par_iter_mut().for_each(|x| *x /= 3);
        assert_eq!(b, a.map(|x| x / 3), "{at}");
        (&mut b)
            .into_par_iter()
            .enumerate()
            .for_each(|(i, x)| *x = i as u64);
        assert_eq!(b, std::array::from_fn(|i| i as u64), "{at}");
        let empty: [u8; 0] = [];
        assert_eq!(empty.into_par_iter().count(), 0, "{at}");
        assert_eq!(empty.par_iter().min(), None, "{at}");
        let one = [String::from("one")];
        assert_eq!(
            one.clone().into_par_iter().collect::<Vec<_>>(),
            ["one"],
            "{at}"
        );
        let words = [
            String::from("fork"),
            String::from("join"),
            String::from("pool"),
        ];
        assert_eq!(
            words.clone().into_par_iter().rev().collect::<Vec<_>>(),
            ["pool", "join", "fork"],
            "{at}"
        );
        assert_eq!(words.par_iter().map(|w| w.len()).sum::<usize>(), 12, "{at}");
        let big: [u32; 1001] = std::array::from_fn(|i| i as u32 * 7);
        assert_eq!(big.into_par_iter().collect::<Vec<_>>(), big, "{at}");
        assert_eq!(
            big.into_par_iter().map(u64::from).sum::<u64>(),
            7 * 1000 * 1001 / 2,
            "{at}"
        );
    });
}

#[test]
fn options_by_value_and_by_reference() {
    on_pools(|at| {
        assert_eq!(Some(5).into_par_iter().collect::<Vec<_>>(), [5], "{at}");
        assert_eq!(
            None::<i32>.into_par_iter().collect::<Vec<_>>(),
            Vec::<i32>::new(),
            "{at}"
        );
        assert_eq!(Some(5).into_par_iter().len(), 1, "{at}");
        assert_eq!(None::<i32>.into_par_iter().len(), 0, "{at}");
        let some = Some(String::from("x"));
        assert_eq!(
            (&some).into_par_iter().collect::<Vec<_>>(),
            [&String::from("x")],
            "{at}"
        );
        assert_eq!(some.par_iter().map(|s| s.len()).sum::<usize>(), 1, "{at}");
        let mut m = Some(41);
        m.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(m, Some(42), "{at}");
        let mut none: Option<i32> = None;
        none.par_iter_mut().for_each(|_| unreachable!());
        assert_eq!(none, None, "{at}");
        let zipped: Vec<(i32, char)> = Some(1).into_par_iter().zip(Some('a')).collect();
        assert_eq!(zipped, [(1, 'a')], "{at}");
        let chained: Vec<i32> = Some(1).into_par_iter().chain(None).chain(Some(3)).collect();
        assert_eq!(chained, [1, 3], "{at}");
    });
}

#[test]
fn hash_and_btree_collections_by_reference_and_owned() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let hm: HashMap<u64, u64> = v.iter().map(|&x| (x, x >> 3)).collect();
        let hs: HashSet<u64> = v.iter().copied().collect();
        let bm: BTreeMap<u64, u64> = v.iter().map(|&x| (x, x >> 5)).collect();
        let bs: BTreeSet<u64> = v.iter().copied().collect();

        let s = hm
            .par_iter()
            .map(|(&k, &x)| k ^ x)
            .reduce(|| 0, |a, b| a ^ b);
        assert_eq!(s, hm.iter().fold(0, |a, (&k, &x)| a ^ k ^ x), "{at}");
        assert_eq!(hm.par_iter().count(), hm.len(), "{at}");
        let copy: HashMap<u64, u64> = hm.par_iter().map(|(&k, &x)| (k, x)).collect();
        assert_eq!(copy, hm, "{at}");
        assert_eq!(
            hm.clone().into_par_iter().collect::<HashMap<_, _>>(),
            hm,
            "{at}"
        );
        let mut hm2 = hm.clone();
        hm2.par_iter_mut().for_each(|(k, x)| *x = k.wrapping_add(1));
        assert!(
            hm2.iter().all(|(k, x)| *x == k.wrapping_add(1)) && hm2.len() == hm.len(),
            "{at}"
        );

        assert_eq!(hs.par_iter().copied().collect::<HashSet<_>>(), hs, "{at}");
        assert_eq!(
            hs.clone().into_par_iter().collect::<HashSet<_>>(),
            hs,
            "{at}"
        );
        assert_eq!(
            hs.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(hs.iter()),
            "{at}"
        );

        // A BTreeMap's and BTreeSet's items come in key order.
        let got: Vec<(&u64, &u64)> = bm.par_iter().collect();
        assert_eq!(got, bm.iter().collect::<Vec<_>>(), "{at}");
        let got: Vec<(u64, u64)> = bm.clone().into_par_iter().collect();
        assert_eq!(got, bm.clone().into_iter().collect::<Vec<_>>(), "{at}");
        let mut bm2 = bm.clone();
        bm2.par_iter_mut().for_each(|(_, x)| *x += 1);
        assert_eq!(
            bm2.into_iter().collect::<Vec<_>>(),
            bm.iter().map(|(&k, &x)| (k, x + 1)).collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<&u64> = bs.par_iter().collect();
        assert_eq!(got, bs.iter().collect::<Vec<_>>(), "{at}");
        let got: Vec<u64> = bs.clone().into_par_iter().collect();
        assert_eq!(got, bs.iter().copied().collect::<Vec<_>>(), "{at}");
        assert_eq!(bs.par_iter().min(), bs.iter().next(), "{at}");
    });
}

#[test]
fn par_bridge_on_an_iterator_and_on_a_channel() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let mut sorted = v.to_vec();
        sorted.sort_unstable();
        let mut got: Vec<u64> = v.iter().copied().par_bridge().collect();
        got.sort_unstable();
        assert_eq!(got, sorted, "iterator, {at}");
        let s = v
            .iter()
            .par_bridge()
            .map(|&x| Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(s.0, wsum(v.iter()), "iterator, {at}");
        assert_eq!(
            v.iter().filter(|&&x| x % 3 == 0).par_bridge().count(),
            v.iter().filter(|&&x| x % 3 == 0).count(),
            "{at}"
        );

        let (tx, rx) = mpsc::channel();
        let sender = std::thread::spawn(move || {
            for &x in v {
                tx.send(x).unwrap();
            }
        });
        let mut got: Vec<u64> = rx.into_iter().par_bridge().map(|x| x ^ 5).collect();
        sender.join().unwrap();
        got.sort_unstable();
        let mut expected: Vec<u64> = v.iter().map(|x| x ^ 5).collect();
        expected.sort_unstable();
        assert_eq!(got, expected, "channel, {at}");
    });
}

// ---------------------------------------------------------------------------------------
// Adaptors
// ---------------------------------------------------------------------------------------

#[test]
fn map_filter_and_filter_map() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|&x| x.wrapping_mul(31)).collect();
        assert_eq!(
            got,
            v.iter().map(|&x| x.wrapping_mul(31)).collect::<Vec<_>>(),
            "map, {at}"
        );
        let got: Vec<&u64> = v.par_iter().filter(|&&x| x % 3 == 0).collect();
        assert_eq!(
            got,
            v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>(),
            "filter, {at}"
        );
        let f = |&x: &u64| (x % 5 != 0).then_some(x / 5);
        let got: Vec<u64> = v.par_iter().filter_map(f).collect();
        assert_eq!(
            got,
            v.iter().filter_map(f).collect::<Vec<_>>(),
            "filter_map, {at}"
        );
        assert_eq!(
            v.par_iter().filter(|&&x| x & 1 == 1).count(),
            v.iter().filter(|&&x| x & 1 == 1).count(),
            "{at}"
        );
        assert_eq!(v.par_iter().map(|&x| x).len(), n, "{at}");
    });
}

#[test]
fn map_with_and_map_init() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        // The state starts as a clone of `init` in every piece; the closure may change it.
        let got: Vec<u64> = v
            .par_iter()
            .map_with(vec![7u64], |state, &x| {
                assert_eq!(state[0], 7);
                state.push(x);
                x ^ state[0]
            })
            .collect();
        assert_eq!(
            got,
            v.iter().map(|x| x ^ 7).collect::<Vec<_>>(),
            "map_with, {at}"
        );
        let inits = AtomicUsize::new(0);
        let got: Vec<u64> = v
            .par_iter()
            .map_init(
                || {
                    inits.fetch_add(1, Relaxed);
                    String::new()
                },
                |buf, &x| {
                    buf.clear();
                    buf.push_str(&x.to_string());
                    buf.len() as u64 + x
                },
            )
            .collect();
        let expected: Vec<u64> = v.iter().map(|&x| x.to_string().len() as u64 + x).collect();
        assert_eq!(got, expected, "map_init, {at}");
        if n > 0 {
            assert!(
                inits.load(Relaxed) >= 1,
                "map_init never made its state, {at}"
            );
        }
        // On an unindexed iterator too.
        let got: Vec<u64> = v
            .par_iter()
            .filter(|&&x| x % 2 == 0)
            .map_with(3u64, |s, &x| x / *s)
            .collect();
        assert_eq!(
            got,
            v.iter()
                .filter(|&&x| x % 2 == 0)
                .map(|x| x / 3)
                .collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn flat_map_and_flat_map_iter() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v
            .par_iter()
            .flat_map(|&x| (0..x % 4).into_par_iter().map(move |k| x.wrapping_add(k)))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .flat_map(|&x| (0..x % 4).map(move |k| x.wrapping_add(k)))
            .collect();
        assert_eq!(got, expected, "flat_map, {at}");
        let got: Vec<u64> = v
            .par_iter()
            .flat_map_iter(|&x| std::iter::repeat_n(x, (x % 3) as usize))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .flat_map(|&x| std::iter::repeat_n(x, (x % 3) as usize))
            .collect();
        assert_eq!(got, expected, "flat_map_iter, {at}");
        // Into vectors, and through an unindexed inner iterator.
        let got: Vec<u64> = v.par_iter().flat_map(|&x| vec![x, !x]).collect();
        assert_eq!(
            got,
            v.iter().flat_map(|&x| [x, !x]).collect::<Vec<_>>(),
            "{at}"
        );
        let got: usize = v
            .par_iter()
            .flat_map(|&x| (0..x % 5).into_par_iter().filter(|k| k % 2 == 0))
            .count();
        assert_eq!(
            got,
            v.iter()
                .map(|&x| (0..x % 5).filter(|k| k % 2 == 0).count())
                .sum::<usize>(),
            "{at}"
        );
    });
}

#[test]
fn enumerate_zip_and_chain() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let w: Vec<u64> = v.iter().rev().copied().collect();
        let got: Vec<(usize, &u64)> = v.par_iter().enumerate().collect();
        assert_eq!(
            got,
            v.iter().enumerate().collect::<Vec<_>>(),
            "enumerate, {at}"
        );
        // zip: equal and unequal lengths, either side shorter.
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w).collect();
        assert_eq!(got, v.iter().zip(&w).collect::<Vec<_>>(), "zip, {at}");
        let got: Vec<(&u64, usize)> = v.par_iter().zip(0..n + 5).collect();
        assert_eq!(
            got,
            v.iter().zip(0..n + 5).collect::<Vec<_>>(),
            "zip longer, {at}"
        );
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w[..n / 2]).collect();
        assert_eq!(
            got,
            v.iter().zip(&w[..n / 2]).collect::<Vec<_>>(),
            "zip shorter, {at}"
        );
        assert_eq!(v.par_iter().zip(&w[..n / 3]).len(), n / 3, "{at}");
        let got: Vec<(u64, u64)> = w
            .clone()
            .into_par_iter()
            .zip(v.par_iter().copied())
            .rev()
            .collect();
        assert_eq!(
            got,
            w.iter()
                .copied()
                .zip(v.iter().copied())
                .rev()
                .collect::<Vec<_>>(),
            "zip rev, {at}"
        );
        // chain: indexed (both sides indexed), then unindexed.
        let got: Vec<(usize, &u64)> = v.par_iter().chain(&w[..n / 2]).enumerate().collect();
        assert_eq!(
            got,
            v.iter().chain(&w[..n / 2]).enumerate().collect::<Vec<_>>(),
            "chain indexed, {at}"
        );
        assert_eq!(v.par_iter().chain(&w).len(), 2 * n, "{at}");
        let got: Vec<&u64> = v.par_iter().chain(&w).rev().collect();
        assert_eq!(
            got,
            v.iter().chain(&w).rev().collect::<Vec<_>>(),
            "chain rev, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .filter(|x| x % 2 == 0)
            .chain(w.par_iter().filter_map(|&x| (x % 3 == 0).then_some(x / 3)))
            .collect();
        let expected: Vec<u64> = v
            .iter()
            .copied()
            .filter(|x| x % 2 == 0)
            .chain(w.iter().filter_map(|&x| (x % 3 == 0).then_some(x / 3)))
            .collect();
        assert_eq!(got, expected, "chain unindexed, {at}");
        let got: Vec<u64> = (0..n as u64)
            .into_par_iter()
            .chain(v.par_iter().copied())
            .chain(vec![1, 2, 3])
            .collect();
        let expected: Vec<u64> = (0..n as u64)
            .chain(v.iter().copied())
            .chain([1, 2, 3])
            .collect();
        assert_eq!(got, expected, "chain of three, {at}");
    });
}

#[test]
fn copied_cloned_and_inspect() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(
            v.par_iter().copied().collect::<Vec<u64>>(),
            v,
            "copied, {at}"
        );
        assert_eq!(
            v.par_iter().cloned().collect::<Vec<u64>>(),
            v,
            "cloned, {at}"
        );
        let seen = AtomicUsize::new(0);
        let xor = AtomicU64::new(0);
        let got: Vec<u64> = v
            .par_iter()
            .inspect(|&&x| {
                seen.fetch_add(1, Relaxed);
                xor.fetch_xor(x, Relaxed);
            })
            .copied()
            .collect();
        assert_eq!(got, v, "inspect, {at}");
        assert_eq!(seen.load(Relaxed), n, "inspect, {at}");
        assert_eq!(
            xor.load(Relaxed),
            v.iter().fold(0, |a, x| a ^ x),
            "inspect, {at}"
        );
        let seen = AtomicUsize::new(0);
        let evens = v.par_iter().filter(|&&x| x % 2 == 0).inspect(|_| {
            seen.fetch_add(1, Relaxed);
        });
        assert_eq!(
            evens.count(),
            v.iter().filter(|&&x| x % 2 == 0).count(),
            "{at}"
        );
        assert_eq!(
            seen.load(Relaxed),
            v.iter().filter(|&&x| x % 2 == 0).count(),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let strings: Vec<String> = input(n).iter().map(|x| format!("s{x}")).collect();
        assert_eq!(
            strings.par_iter().cloned().collect::<Vec<String>>(),
            strings,
            "cloned strings, {at}"
        );
        assert_eq!(
            strings.par_iter().cloned().rev().collect::<Vec<String>>(),
            strings.iter().rev().cloned().collect::<Vec<_>>(),
            "{at}"
        );
    });
}

#[test]
fn take_skip_rev_and_step_by() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [0, 1, 2, n / 2, n.saturating_sub(1), n, n + 1, usize::MAX] {
            let got: Vec<&u64> = v.par_iter().take(k).collect();
            assert_eq!(got, v.iter().take(k).collect::<Vec<_>>(), "take({k}), {at}");
            assert_eq!(v.par_iter().take(k).len(), n.min(k), "{at}");
            let got: Vec<&u64> = v.par_iter().skip(k).collect();
            assert_eq!(got, v.iter().skip(k).collect::<Vec<_>>(), "skip({k}), {at}");
            assert_eq!(v.par_iter().skip(k).len(), n.saturating_sub(k), "{at}");
        }
        let got: Vec<&u64> = v.par_iter().skip(n / 4).take(n / 2).rev().collect();
        assert_eq!(
            got,
            v.iter().skip(n / 4).take(n / 2).rev().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<&u64> = v.par_iter().rev().collect();
        assert_eq!(got, v.iter().rev().collect::<Vec<_>>(), "rev, {at}");
        let got: Vec<&u64> = v.par_iter().rev().rev().collect();
        assert_eq!(got, v.iter().collect::<Vec<_>>(), "rev rev, {at}");
        let got: Vec<(usize, &u64)> = v.par_iter().rev().enumerate().collect();
        assert_eq!(
            got,
            v.iter().rev().enumerate().collect::<Vec<_>>(),
            "rev enumerate, {at}"
        );
        let got: Vec<(usize, &u64)> = v.par_iter().enumerate().rev().collect();
        assert_eq!(
            got,
            v.iter().enumerate().rev().collect::<Vec<_>>(),
            "enumerate rev, {at}"
        );
        for s in [1, 2, 3, 1000, n.max(1), n + 1] {
            let got: Vec<&u64> = v.par_iter().step_by(s).collect();
            assert_eq!(
                got,
                v.iter().step_by(s).collect::<Vec<_>>(),
                "step_by({s}), {at}"
            );
            assert_eq!(
                v.par_iter().step_by(s).len(),
                v.iter().step_by(s).len(),
                "{at}"
            );
            let got: Vec<&u64> = v.par_iter().step_by(s).rev().collect();
            assert_eq!(
                got,
                v.iter().step_by(s).rev().collect::<Vec<_>>(),
                "step_by({s}).rev(), {at}"
            );
            let got: Vec<(usize, &u64)> = v.par_iter().skip(1).step_by(s).enumerate().collect();
            assert_eq!(
                got,
                v.iter().skip(1).step_by(s).enumerate().collect::<Vec<_>>(),
                "{at}"
            );
        }
    });
    assert_eq!(
        panic_message(|| drop((0..5).into_par_iter().step_by(0))),
        "step_by: the step must not be zero"
    );
}

#[test]
fn chunks_adaptor() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 1000, n.max(1), n + 1] {
            if n == BIG && k < 1000 {
                continue; // 10^6 little vectors: slow, and nothing new
            }
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(k).collect();
            let expected: Vec<Vec<u64>> = v.chunks(k).map(|c| c.to_vec()).collect();
            assert_eq!(got, expected, "chunks({k}), {at}");
            assert_eq!(v.par_iter().chunks(k).len(), expected.len(), "{at}");
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(k).rev().collect();
            assert_eq!(
                got,
                expected.iter().rev().cloned().collect::<Vec<_>>(),
                "chunks({k}).rev(), {at}"
            );
        }
    });
    assert_eq!(
        panic_message(|| drop((0..5).into_par_iter().chunks(0))),
        "chunk_size must not be zero"
    );
}

/// `fold` yields one accumulator per piece of work, so counting items per accumulator
/// shows how the work was split.
#[test]
fn with_max_len_and_with_min_len_bound_the_pieces() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 100, 4096] {
            if n == BIG && k < 100 {
                continue; // a million one-item pieces: slow, and nothing new
            }
            let pieces: Vec<usize> = v
                .par_iter()
                .with_max_len(k)
                .fold(|| 0usize, |c, _| c + 1)
                .collect();
            assert_eq!(pieces.iter().sum::<usize>(), n, "with_max_len({k}), {at}");
            assert!(
                pieces.iter().all(|&c| c <= k),
                "with_max_len({k}): a piece of {} items, {at}",
                pieces.iter().max().unwrap()
            );
            let nonempty = pieces.iter().filter(|&&c| c > 0).count();
            assert!(
                nonempty >= n.div_ceil(k),
                "with_max_len({k}): {nonempty} pieces, {at}"
            );
            // The values are still right, in order.
            let got: Vec<u64> = v.par_iter().with_max_len(k).map(|x| x >> 1).collect();
            assert_eq!(got, v.iter().map(|x| x >> 1).collect::<Vec<_>>(), "{at}");
        }
        // with_min_len(n) on n items: one piece.
        let pieces: Vec<usize> = v
            .par_iter()
            .with_min_len(n.max(1))
            .fold(|| 0usize, |c, _| c + 1)
            .collect();
        if n == 0 {
            assert_eq!(pieces.iter().sum::<usize>(), 0, "{at}");
            assert!(
                pieces.len() <= 1,
                "with_min_len on nothing: {pieces:?}, {at}"
            );
        } else {
            assert_eq!(pieces, [n], "with_min_len({n}), {at}");
        }
        // The same through map_init: one state for the whole run.
        let inits = AtomicUsize::new(0);
        let s = v
            .par_iter()
            .with_min_len(n.max(1))
            .map_init(|| inits.fetch_add(1, Relaxed), |_, &x| Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(s.0, wsum(v.iter()), "{at}");
        if n > 0 {
            assert_eq!(
                inits.load(Relaxed),
                1,
                "with_min_len({n}) made several states, {at}"
            );
        }
        // Both bounds: every piece between min and max (the last may be shorter only if
        // the whole is shorter than min).
        if n >= 1000 {
            let pieces: Vec<usize> = v
                .par_iter()
                .with_min_len(100)
                .with_max_len(400)
                .fold(|| 0usize, |c, _| c + 1)
                .filter(|&c| c > 0)
                .collect();
            assert_eq!(pieces.iter().sum::<usize>(), n, "{at}");
            assert!(
                pieces.iter().all(|&c| (100..=400).contains(&c)),
                "pieces {:?}.., {at}",
                &pieces[..pieces.len().min(20)]
            );
        }
    });
}

#[test]
fn while_some_adaptor() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|&x| Some(x)).while_some().collect();
        assert_eq!(got, v, "all Some, {at}");
        let bad = n / 3;
        let mapped: Vec<Option<u64>> = v
            .iter()
            .enumerate()
            .map(|(i, &x)| (i != bad).then_some(x))
            .collect();
        let got: Vec<u64> = mapped.par_iter().copied().while_some().collect();
        // Which Some items come through is unspecified once a None is met (rayon's doc),
        // but they are Some items, in order, and never all of them.
        assert!(got.len() < n || n == 0, "{at}");
        let mut rest = mapped.iter().flatten();
        assert!(
            got.iter().all(|g| rest.any(|x| x == g)),
            "not a subsequence of the Some items, {at}"
        );
        if at.ends_with(" 1 workers") {
            // One worker never splits: it stops at the None, having taken exactly the prefix.
            assert_eq!(got, &v[..bad.min(n)], "{at}");
        }
        let none_first: Vec<u64> = std::iter::once(None)
            .chain(v.iter().map(|&x| Some(x)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .while_some()
            .collect();
        if at.ends_with(" 1 workers") {
            assert_eq!(none_first, Vec::<u64>::new(), "{at}");
        }
    });
}

#[test]
fn chains_of_several_adaptors() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let par: Vec<(usize, u64)> = v
            .par_iter()
            .enumerate()
            .skip(1)
            .step_by(2)
            .map(|(i, &x)| (i, x >> 4))
            .rev()
            .zip((0..n).into_par_iter().map(|i| i as u64))
            .map(|((i, x), j)| (i, x ^ j))
            .filter(|&(i, _)| i % 3 != 0)
            .collect();
        let seq: Vec<(usize, u64)> = v
            .iter()
            .enumerate()
            .skip(1)
            .step_by(2)
            .map(|(i, &x)| (i, x >> 4))
            .rev()
            .zip((0..n).map(|i| i as u64))
            .map(|((i, x), j)| (i, x ^ j))
            .filter(|&(i, _)| i % 3 != 0)
            .collect();
        assert_eq!(par, seq, "{at}");
        let par: u64 = v
            .par_iter()
            .copied()
            .filter_map(|x| (x % 7 != 0).then_some(x % 1000))
            .flat_map_iter(|x| [x, x + 1])
            .map(|x| x * 3)
            .inspect(|x| assert!(x % 3 == 0))
            .sum();
        let seq: u64 = v
            .iter()
            .copied()
            .filter_map(|x| (x % 7 != 0).then_some(x % 1000))
            .flat_map(|x| [x, x + 1])
            .map(|x| x * 3)
            .sum();
        assert_eq!(par, seq, "{at}");
        let par: Vec<Vec<u64>> = v
            .par_iter()
            .rev()
            .take(n.saturating_sub(2))
            .with_max_len(7)
            .copied()
            .chunks(5)
            .map(|c| c.into_iter().rev().collect())
            .collect();
        let seq: Vec<Vec<u64>> = v
            .iter()
            .rev()
            .take(n.saturating_sub(2))
            .copied()
            .collect::<Vec<_>>()
            .chunks(5)
            .map(|c| c.iter().rev().copied().collect())
            .collect();
        assert_eq!(par, seq, "{at}");
    });
}

/// `with_max_len(k)` cuts the work into pieces of at most k items, so every composite
/// producer is split at every index (k = 1) or at many (k = 2, 3, 5): the values and their
/// order must not change (rayon's tests/producer_split_at.rs checks the same).
#[test]
fn composite_producers_split_at_any_index() {
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input(n);
        let w: Vec<u64> = v.iter().map(|x| x.rotate_left(9)).collect();
        for max in [1, 2, 3, 5] {
            macro_rules! same {
                ($what:expr, $par:expr, $seq:expr) => {{
                    let got: Vec<_> = $par.with_max_len(max).collect();
                    let expected: Vec<_> = $seq.collect();
                    assert_eq!(got, expected, "{} with_max_len({max}), {at}", $what);
                    let pieces: Vec<usize> = $par
                        .with_max_len(max)
                        .fold(|| 0usize, |c, _| c + 1)
                        .collect();
                    assert_eq!(
                        pieces.iter().sum::<usize>(),
                        expected.len(),
                        "{}, {at}",
                        $what
                    );
                    assert!(
                        pieces.iter().all(|&c| c <= max),
                        "{} with_max_len({max}): {pieces:?}, {at}",
                        $what
                    );
                }};
            }
            same!(
                "chain",
                v.par_iter().chain(&w[..n / 2]),
                v.iter().chain(&w[..n / 2])
            );
            same!(
                "chain rev",
                v.par_iter().chain(&w[n / 3..]).rev(),
                v.iter().chain(&w[n / 3..]).rev()
            );
            same!("step_by", v.par_iter().step_by(3), v.iter().step_by(3));
            same!(
                "skip step_by rev",
                v.par_iter().skip(1).step_by(2).rev(),
                v.iter().skip(1).step_by(2).rev()
            );
            same!(
                "chunks",
                v.par_iter().chunks(4),
                v.chunks(4).map(|c| c.iter().collect::<Vec<_>>())
            );
            same!("par_chunks", v.par_chunks(3), v.chunks(3));
            same!("par_windows", v.par_windows(3), v.windows(3));
            same!("rev", v.par_iter().rev(), v.iter().rev());
            same!(
                "zip",
                v.par_iter().zip(w.par_iter().rev()),
                v.iter().zip(w.iter().rev())
            );
            same!(
                "zip shorter",
                v.par_iter().zip(&w[..n / 2]),
                v.iter().zip(&w[..n / 2])
            );
            same!(
                "enumerate skip take",
                v.par_iter().enumerate().skip(2).take(n / 2),
                v.iter().enumerate().skip(2).take(n / 2)
            );
            same!(
                "map_with",
                v.par_iter().map_with(1u64, |a, &x| x ^ *a),
                v.iter().map(|&x| x ^ 1)
            );
            same!(
                "map_init",
                v.par_iter().map_init(|| 2u64, |a, &x| x ^ *a),
                v.iter().map(|&x| x ^ 2)
            );
            same!(
                "owned rev step_by",
                v.to_vec().into_par_iter().rev().step_by(2),
                v.iter().copied().rev().step_by(2)
            );
            same!(
                "inclusive u8",
                (0u8..=255).into_par_iter().step_by(7),
                (0u8..=255).step_by(7)
            );
            same!(
                "i8 rev",
                (-50i8..50).into_par_iter().rev(),
                (-50i8..50).rev()
            );
            same!(
                "chain zip chunks",
                v.par_iter()
                    .copied()
                    .chain(w.par_iter().copied())
                    .zip(0..2 * n)
                    .chunks(3),
                v.iter()
                    .copied()
                    .chain(w.iter().copied())
                    .zip(0..2 * n)
                    .collect::<Vec<_>>()
                    .chunks(3)
                    .map(|c| c.to_vec())
            );
            same!(
                "cloned inspect",
                v.par_iter().inspect(|_| ()).cloned(),
                v.iter().cloned()
            );
            same!(
                "option",
                Some(n).into_par_iter().chain(None).chain(Some(1)),
                Some(n).into_iter().chain(Some(1))
            );
            same!(
                "array",
                [1, 2, 3, 4, 5, 6, 7].into_par_iter().rev().skip(1),
                [1, 2, 3, 4, 5, 6, 7].into_iter().rev().skip(1)
            );
        }
    });
}

/// Where rayon knows the length in advance, so does forkjoin, and nowhere else: a wrong
/// `Some` would send `collect` down the in-place path with the wrong count.
#[test]
fn opt_len_is_known_exactly_where_rayon_knows_it() {
    let v = input(17);
    assert_eq!(v.par_iter().opt_len(), Some(17));
    assert_eq!(v.par_iter().map(|x| x + 1).opt_len(), Some(17));
    assert_eq!(v.par_iter().enumerate().opt_len(), Some(17));
    assert_eq!(v.par_iter().zip(0..5).opt_len(), Some(5));
    assert_eq!(v.par_iter().chain(&v[..3]).opt_len(), Some(20));
    assert_eq!(v.par_iter().rev().opt_len(), Some(17));
    assert_eq!(v.par_iter().step_by(5).opt_len(), Some(4));
    assert_eq!(v.par_iter().skip(20).opt_len(), Some(0));
    assert_eq!(v.par_iter().take(4).opt_len(), Some(4));
    assert_eq!(v.par_iter().chunks(5).opt_len(), Some(4));
    assert_eq!(v.par_iter().copied().opt_len(), Some(17));
    assert_eq!(v.par_iter().cloned().opt_len(), Some(17));
    assert_eq!(v.par_iter().inspect(|_| ()).opt_len(), Some(17));
    assert_eq!(v.par_iter().map_with(0, |_, x| x).opt_len(), Some(17));
    assert_eq!(v.par_iter().map_init(|| 0, |_, x| x).opt_len(), Some(17));
    assert_eq!(
        v.par_iter().with_min_len(4).with_max_len(8).opt_len(),
        Some(17)
    );
    assert_eq!(v.par_chunks(5).opt_len(), Some(4));
    assert_eq!(v.par_windows(5).opt_len(), Some(13));
    assert_eq!(v.par_iter().filter(|_| true).opt_len(), None);
    assert_eq!(v.par_iter().filter_map(Some).opt_len(), None);
    assert_eq!(v.par_iter().flat_map(|&x| Some(x)).opt_len(), None);
    assert_eq!(v.par_iter().flat_map_iter(|&x| Some(x)).opt_len(), None);
    assert_eq!(v.par_iter().map(Some).while_some().opt_len(), None);
    assert_eq!(v.par_iter().fold(|| 0, |a, _| a).opt_len(), None);
    assert_eq!(
        v.par_iter().filter(|_| true).chain(v.par_iter()).opt_len(),
        None
    );
    assert_eq!(v.iter().par_bridge().opt_len(), None);
}

/// Items a consumer or adaptor never passes on (skipped, cut off, filtered out, left
/// behind by an early stop) are dropped by the owning source, exactly once each.
#[test]
fn owning_sources_drop_what_is_not_passed_on() {
    on_pools_and_lens(&SMALL, |at, n| {
        macro_rules! case {
            ($what:expr, |$a:ident, $b:ident| $body:expr, $expected:expr) => {{
                let ledger = Ledger::new(n + n / 2);
                let $a: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
                let $b: Vec<Tracked> = (n..n + n / 2).map(|i| ledger.make(i)).collect();
                let kept: Vec<usize> = $body;
                let expected: Vec<usize> = $expected;
                assert_eq!(kept, expected, "{}, {at}", $what);
                ledger.assert_all_dropped_once(&format!("{}, {at}", $what));
            }};
        }
        fn ids(v: Vec<Tracked>) -> Vec<usize> {
            v.iter().map(|t| t.id).collect()
        }
        case!(
            "take",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().take(n / 3).collect())
            },
            (0..n / 3).collect()
        );
        case!(
            "skip",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().skip(n / 3).collect())
            },
            (n / 3..n).collect()
        );
        case!(
            "step_by",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().step_by(3).collect())
            },
            (0..n).step_by(3).collect()
        );
        case!(
            "rev take",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().rev().take(2).collect())
            },
            (0..n).rev().take(2).collect()
        );
        case!(
            "skip step_by rev",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().skip(1).step_by(2).rev().collect())
            },
            (0..n).skip(1).step_by(2).rev().collect()
        );
        case!(
            "zip unequal",
            |a, b| a
                .into_par_iter()
                .zip(b)
                .map(|(x, y)| x.id * 10_000 + y.id)
                .collect(),
            (0..n)
                .zip(n..n + n / 2)
                .map(|(x, y)| x * 10_000 + y)
                .collect()
        );
        case!(
            "chain take",
            |a, b| ids(a.into_par_iter().chain(b).take(n + n / 4).collect()),
            (0..n + n / 4).collect()
        );
        case!(
            "chain skip",
            |a, b| ids(a.into_par_iter().chain(b).skip(n / 2).collect()),
            (n / 2..n + n / 2).collect()
        );
        case!(
            "chunks",
            |a, b| {
                drop(b);
                a.into_par_iter().chunks(4).map(|c| c.len()).collect()
            },
            (0..n)
                .collect::<Vec<_>>()
                .chunks(4)
                .map(|c| c.len())
                .collect()
        );
        case!(
            "filter",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().filter(|t| t.id % 3 == 0).collect())
            },
            (0..n).filter(|i| i % 3 == 0).collect()
        );
        case!(
            "with_max_len skip",
            |a, b| {
                drop(b);
                ids(a.into_par_iter().with_max_len(1).skip(2).collect())
            },
            (2..n).collect()
        );
        case!(
            "find_first",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .find_first(|t| t.id == n / 2)
                    .map(|t| t.id)
                    .into_iter()
                    .collect()
            },
            (0..n).find(|&i| i == n / 2).into_iter().collect()
        );
        case!(
            "find_any",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .find_any(|t| t.id == 1)
                    .map(|t| t.id)
                    .into_iter()
                    .collect()
            },
            (n > 1).then_some(1).into_iter().collect()
        );
        case!(
            "any",
            |a, b| {
                drop(b);
                vec![a.into_par_iter().any(|t| t.id == 0) as usize]
            },
            vec![(n > 0) as usize]
        );
        case!(
            "try_for_each",
            |a, b| {
                drop(b);
                a.into_par_iter()
                    .try_for_each(|t| if t.id == 2 { Err(t.id) } else { Ok(()) })
                    .err()
                    .into_iter()
                    .collect()
            },
            (n > 2).then_some(2).into_iter().collect()
        );
        case!(
            "while_some",
            |a, b| {
                drop(b);
                let got = ids(a
                    .into_par_iter()
                    .map(|t| (t.id != n / 2).then_some(t))
                    .while_some()
                    .collect());
                assert!(got.iter().all(|&i| i != n / 2), "{at}");
                vec![]
            },
            vec![]
        );
        case!(
            "Result collect",
            |a, b| {
                drop(b);
                let r: Result<Vec<Tracked>, usize> = a
                    .into_par_iter()
                    .map(|t| if t.id == n / 3 { Err(t.id) } else { Ok(t) })
                    .collect();
                r.err().into_iter().collect()
            },
            (n > 0).then_some(n / 3).into_iter().collect()
        );
        case!(
            "flat_map_iter",
            |a, b| {
                drop(b);
                ids(a
                    .into_par_iter()
                    .flat_map_iter(|t| (t.id % 2 == 0).then_some(t))
                    .collect())
            },
            (0..n).filter(|i| i % 2 == 0).collect()
        );
    });
}

#[test]
fn par_bridge_nested_and_with_panics() {
    on_pools(|at| {
        // Bridges inside bridges, three levels.
        let got: u64 = (0..8u64)
            .par_bridge()
            .map(|i| {
                (0..9u64)
                    .par_bridge()
                    .map(|j| (0..10u64).par_bridge().map(|k| i * j * k + 1).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        let expected: u64 = (0..8u64)
            .map(|i| {
                (0..9u64)
                    .map(|j| (0..10u64).map(|k| i * j * k + 1).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(got, expected, "{at}");
        // A sequential iterator whose `next` itself runs a parallel iterator.
        let got: Vec<u64> = {
            let mut v: Vec<u64> = (0..50u64)
                .map(|i| (0..1000u64).into_par_iter().map(|k| k * i).sum::<u64>())
                .par_bridge()
                .collect();
            v.sort_unstable();
            v
        };
        let mut expected: Vec<u64> = (0..50u64)
            .map(|i| (0..1000u64).map(|k| k * i).sum::<u64>())
            .collect();
        expected.sort_unstable();
        assert_eq!(got, expected, "{at}");
        // A panic in the consumer, and one in the sequential iterator itself.
        let msg = panic_message(|| {
            let s: u64 = (0..10_000u64)
                .par_bridge()
                .map(|x| {
                    if x == 5000 {
                        panic!("bridge map {x}")
                    } else {
                        x
                    }
                })
                .sum();
            unreachable!("{s}");
        });
        assert_eq!(msg, "bridge map 5000", "{at}");
        let msg = panic_message(|| {
            let s: u64 = (0..10_000u64)
                .map(|x| {
                    if x == 7000 {
                        panic!("bridge next {x}")
                    } else {
                        x
                    }
                })
                .par_bridge()
                .sum();
            unreachable!("{s}");
        });
        assert_eq!(msg, "bridge next 7000", "{at}");
        assert_eq!(
            (0..10_000u64).par_bridge().sum::<u64>(),
            49_995_000,
            "after the panics, {at}"
        );
    });
}

/// `flat_map` whose inner iterators are long enough to be split themselves: the order of
/// the whole is kept.
#[test]
fn flat_map_over_long_inner_iterators_keeps_the_order() {
    on_pools(|at| {
        let got: Vec<u64> = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .collect();
        let expected: Vec<u64> = (0..4u64)
            .flat_map(|i| (0..250_000u64).map(move |k| i << 32 | k))
            .collect();
        assert_eq!(got, expected, "{at}");
        let got = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .find_first(|x| x & 0xffff_ffff == 200_000 && x >> 32 >= 1);
        assert_eq!(got, Some(1 << 32 | 200_000), "{at}");
        let got = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..250_000u64).into_par_iter().map(move |k| i << 32 | k))
            .find_last(|x| x & 0xffff_ffff == 3);
        assert_eq!(got, Some(3 << 32 | 3), "{at}");
        let (a, b): (Vec<u64>, Vec<u64>) = (0..3u64)
            .into_par_iter()
            .flat_map(|i| (0..300_000u64).into_par_iter().map(move |k| (i, k)))
            .unzip();
        assert_eq!(
            a,
            (0..3u64)
                .flat_map(|i| std::iter::repeat_n(i, 300_000))
                .collect::<Vec<_>>(),
            "{at}"
        );
        assert_eq!(
            b,
            (0..3u64).flat_map(|_| 0..300_000u64).collect::<Vec<_>>(),
            "{at}"
        );
    });
}

/// A consumer written for rayon: it does not implement `split_folder`, so the splitter
/// gives every chunk a folder of its own (the path none of forkjoin's own consumers takes).
/// It collects in order and records the size of every piece it folded.
mod rayon_style {
    use forkjoin::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
    use std::sync::Mutex;

    pub struct Collect<'a> {
        pub pieces: &'a Mutex<Vec<usize>>,
    }

    pub struct CollectFolder<'a, T> {
        items: Vec<T>,
        pieces: &'a Mutex<Vec<usize>>,
    }

    pub struct Concat;

    impl<T> Reducer<Vec<T>> for Concat {
        fn reduce(self, mut left: Vec<T>, mut right: Vec<T>) -> Vec<T> {
            left.append(&mut right);
            left
        }
    }

    impl<'a, T: Send> Consumer<T> for Collect<'a> {
        type Folder = CollectFolder<'a, T>;
        type Reducer = Concat;
        type Result = Vec<T>;
        fn split_at(self, _index: usize) -> (Self, Self, Concat) {
            (
                Collect {
                    pieces: self.pieces,
                },
                Collect {
                    pieces: self.pieces,
                },
                Concat,
            )
        }
        fn into_folder(self) -> Self::Folder {
            CollectFolder {
                items: Vec::new(),
                pieces: self.pieces,
            }
        }
        fn full(&self) -> bool {
            false
        }
    }

    impl<'a, T: Send> UnindexedConsumer<T> for Collect<'a> {
        fn split_off_left(&self) -> Self {
            Collect {
                pieces: self.pieces,
            }
        }
        fn to_reducer(&self) -> Concat {
            Concat
        }
    }

    impl<'a, T> Folder<T> for CollectFolder<'a, T> {
        type Result = Vec<T>;
        fn consume(mut self, item: T) -> Self {
            self.items.push(item);
            self
        }
        fn complete(self) -> Vec<T> {
            self.pieces.lock().unwrap().push(self.items.len());
            self.items
        }
        fn full(&self) -> bool {
            false
        }
    }
}

#[test]
fn consumers_written_for_rayon_work_unchanged() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let pieces = Mutex::new(Vec::new());
        let got: Vec<u64> = v
            .par_iter()
            .map(|x| x >> 3)
            .drive(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().map(|x| x >> 3).collect::<Vec<_>>(),
            "drive, {at}"
        );
        assert_eq!(pieces.lock().unwrap().iter().sum::<usize>(), n, "{at}");
        let got: Vec<&u64> = v
            .par_iter()
            .filter(|&&x| x % 3 == 0)
            .drive_unindexed(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>(),
            "drive_unindexed, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .flat_map_iter(|&x| [x, x + 1])
            .drive_unindexed(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().flat_map(|&x| [x, x + 1]).collect::<Vec<_>>(),
            "flat_map_iter, {at}"
        );
        // The bounds hold on this path too.
        for k in [1000, 4096] {
            let pieces = Mutex::new(Vec::new());
            let got: Vec<&u64> = v
                .par_iter()
                .with_max_len(k)
                .drive(rayon_style::Collect { pieces: &pieces });
            assert_eq!(got, v.iter().collect::<Vec<_>>(), "{at}");
            let pieces = pieces.into_inner().unwrap();
            assert!(
                pieces.iter().all(|&c| c <= k),
                "with_max_len({k}): {:?}, {at}",
                pieces.iter().max()
            );
        }
        let pieces = Mutex::new(Vec::new());
        let got: Vec<&u64> = v
            .par_iter()
            .with_min_len(n.max(1))
            .drive(rayon_style::Collect { pieces: &pieces });
        assert_eq!(got, v.iter().collect::<Vec<_>>(), "{at}");
        if n > 0 {
            assert_eq!(pieces.into_inner().unwrap(), [n], "with_min_len({n}), {at}");
        }
    });
}

/// A parallel iterator of our own over an unindexed producer (it can only halve itself):
/// the standard consumers keep its order.
mod halving {
    use forkjoin::iter::plumbing::{
        bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer,
    };
    use forkjoin::prelude::*;

    pub struct Halves(pub std::ops::Range<u64>);

    impl UnindexedProducer for Halves {
        type Item = u64;
        fn split(self) -> (Self, Option<Self>) {
            let r = self.0;
            if r.end - r.start < 2 {
                return (Halves(r), None);
            }
            let mid = r.start + (r.end - r.start) / 2;
            (Halves(r.start..mid), Some(Halves(mid..r.end)))
        }
        fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
            folder.consume_iter(self.0)
        }
    }

    impl ParallelIterator for Halves {
        type Item = u64;
        fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
            bridge_unindexed(self, consumer)
        }
    }
}

#[test]
fn an_unindexed_producer_of_our_own() {
    on_pools_and_lens(&LENS, |at, n| {
        let n = n as u64;
        let got: Vec<u64> = halving::Halves(0..n).collect();
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "collect, {at}");
        assert_eq!(
            halving::Halves(0..n).map(|x| x * x).sum::<u64>(),
            (0..n).map(|x| x * x).sum::<u64>(),
            "{at}"
        );
        assert_eq!(
            halving::Halves(0..n).find_first(|x| x % 7 == 3),
            (0..n).find(|x| x % 7 == 3),
            "{at}"
        );
        assert_eq!(
            halving::Halves(0..n).find_last(|x| x % 7 == 3),
            (0..n).rev().find(|x| x % 7 == 3),
            "{at}"
        );
        let (a, b): (Vec<u64>, Vec<u64>) = halving::Halves(0..n).partition(|x| x % 3 == 0);
        assert_eq!(
            (a, b),
            (0..n).partition::<Vec<u64>, _>(|x| x % 3 == 0),
            "{at}"
        );
        let m = halving::Halves(0..n).map(mat).reduce(|| ID, mul);
        assert_eq!(
            m,
            (0..n).fold(ID, |a, x| mul(a, mat(x))),
            "reduce keeps the order, {at}"
        );
    });
}

// ---------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------

#[test]
fn for_each_for_each_with_and_for_each_init() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let hits = Hits::new(n);
        v.par_iter().enumerate().for_each(|(i, _)| hits.hit(i));
        hits.assert_each_once(&format!("for_each, {at}"));
        let sum = AtomicU64::new(0);
        v.par_iter().for_each(|&x| {
            sum.fetch_add(x, Relaxed);
        });
        assert_eq!(sum.load(Relaxed), wsum(v.iter()), "for_each, {at}");

        let (tx, rx) = mpsc::channel();
        (0..n)
            .into_par_iter()
            .for_each_with(tx, |tx, i| tx.send(i).unwrap());
        let mut got: Vec<usize> = rx.into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "for_each_with, {at}");

        let hits = Hits::new(n);
        let inits = AtomicUsize::new(0);
        (0..n).into_par_iter().for_each_init(
            || {
                inits.fetch_add(1, Relaxed);
                Vec::new()
            },
            |seen: &mut Vec<usize>, i| {
                seen.push(i);
                hits.hit(i);
            },
        );
        hits.assert_each_once(&format!("for_each_init, {at}"));
        if n > 0 {
            assert!(inits.load(Relaxed) >= 1, "{at}");
        }
        // On an unindexed iterator.
        let hits = Hits::new(n);
        (0..n)
            .into_par_iter()
            .filter(|i| i % 2 == 1)
            .for_each(|i| hits.hit(i));
        for (i, h) in hits.0.iter().enumerate() {
            assert_eq!(h.load(Relaxed), (i % 2) as u32, "{at}");
        }
    });
}

#[test]
fn try_for_each_and_its_variants() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let hits = Hits::new(n);
        let r: Result<(), u64> = (0..n).into_par_iter().try_for_each(|i| {
            hits.hit(i);
            Ok(())
        });
        assert_eq!(r, Ok(()), "{at}");
        hits.assert_each_once(&format!("try_for_each Ok, {at}"));
        // One failing item: its error, exactly.
        if n > 0 {
            let bad = v[n / 2];
            let r = v
                .par_iter()
                .try_for_each(|&x| if x == bad { Err(x) } else { Ok(()) });
            assert_eq!(r, Err(bad), "{at}");
            let r = v.par_iter().try_for_each(|&x| (x != bad).then_some(()));
            assert_eq!(r, None, "{at}");
        }
        // Several failing items: one of their errors.
        let r = v
            .par_iter()
            .try_for_each(|&x| if x % 4 == 0 { Err(x) } else { Ok(()) });
        match r {
            Ok(()) => assert!(v.iter().all(|x| x % 4 != 0), "{at}"),
            Err(e) => assert!(e % 4 == 0 && v.contains(&e), "{at}"),
        }
        let r = v.par_iter().try_for_each(|&x| (x % 4 != 0).then_some(()));
        assert_eq!(r.is_some(), v.iter().all(|x| x % 4 != 0), "{at}");
        // _with and _init.
        let r: Result<(), String> = v.par_iter().try_for_each_with(5u64, |five, &x| {
            if x % 1009 == *five {
                Err(format!("{x}"))
            } else {
                Ok(())
            }
        });
        match v.iter().find(|&&x| x % 1009 == 5) {
            None => assert_eq!(r, Ok(()), "{at}"),
            Some(_) => {
                let e: u64 = r.unwrap_err().parse().unwrap();
                assert!(e % 1009 == 5 && v.contains(&e), "{at}");
            }
        }
        let r: Option<()> = v
            .par_iter()
            .try_for_each_init(|| 3u64, |three, &x| (x != *three).then_some(()));
        assert_eq!(r, Some(()), "{at}");
    });
}

#[test]
fn sum_product_and_count() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(
            v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(v.iter()),
            "{at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x as u128).sum::<u128>(),
            v.iter().map(|&x| x as u128).sum::<u128>(),
            "{at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x >> 44).sum::<u64>(),
            v.iter().map(|&x| x >> 44).sum::<u64>(),
            "{at}"
        );
        assert_eq!(
            v.par_iter()
                .map(|&x| Wrapping(x | 1))
                .product::<Wrapping<u64>>(),
            v.iter()
                .map(|&x| Wrapping(x | 1))
                .product::<Wrapping<u64>>(),
            "{at}"
        );
        // An exact product that does not overflow: signs and a few factors of 2 (about 63
        // of them in 1001 items; an i128 holds 2^126).
        let f = |&x: &u64| -> i128 {
            [1, -1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2][(x % 16) as usize]
        };
        let small = &v[..n.min(1001)];
        assert_eq!(
            small.par_iter().map(f).product::<i128>(),
            small.iter().map(f).product::<i128>(),
            "{at}"
        );
        let g = |x: &&u64| !(**x).is_multiple_of(16);
        assert_eq!(
            small.par_iter().filter(g).map(f).product::<i128>(),
            small.iter().filter(g).map(f).product::<i128>(),
            "{at}"
        );
        assert_eq!(v.par_iter().count(), n, "{at}");
        assert_eq!(
            v.par_iter().filter(|&&x| x % 3 == 1).count(),
            v.iter().filter(|&&x| x % 3 == 1).count(),
            "{at}"
        );
        // Empty sums and products are the identities.
        assert_eq!(v[..0].par_iter().sum::<u64>(), 0, "{at}");
        assert_eq!(v[..0].par_iter().product::<u64>(), 1, "{at}");
    });
}

#[test]
fn min_max_and_their_by_and_by_key_variants_with_ties() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(v.par_iter().min(), v.iter().min(), "{at}");
        assert_eq!(v.par_iter().max(), v.iter().max(), "{at}");
        // Many ties: key = x % 10, the position makes tied items distinguishable.
        let pairs: Vec<(u64, usize)> = keys(n).into_iter().zip(0..).collect();
        let by = |a: &&(u64, usize), b: &&(u64, usize)| a.0.cmp(&b.0);
        let key = |p: &&(u64, usize)| p.0;
        let checks = [
            (
                "min_by",
                pairs.par_iter().min_by(by),
                pairs.iter().min_by(by),
            ),
            (
                "max_by",
                pairs.par_iter().max_by(by),
                pairs.iter().max_by(by),
            ),
            (
                "min_by_key",
                pairs.par_iter().min_by_key(key),
                pairs.iter().min_by_key(key),
            ),
            (
                "max_by_key",
                pairs.par_iter().max_by_key(key),
                pairs.iter().max_by_key(key),
            ),
        ];
        for (name, got, expected) in checks {
            // One of the tied items...
            assert_eq!(got.map(|p| p.0), expected.map(|p| p.0), "{name}, {at}");
            // ...and the same one as std (the first least, the last greatest): rayon
            // reduces in order, and its own tests (iter/test.rs, min_max_by and
            // min_max_by_key) check exactly this.
            assert_eq!(
                got, expected,
                "{name} picked another of the tied items, {at}"
            );
        }
        // min and max of items that compare equal but differ.
        #[derive(Debug, Clone, Copy)]
        struct K(u64, usize);
        impl PartialEq for K {
            fn eq(&self, o: &K) -> bool {
                self.0 == o.0
            }
        }
        impl Eq for K {}
        impl PartialOrd for K {
            fn partial_cmp(&self, o: &K) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for K {
            fn cmp(&self, o: &K) -> std::cmp::Ordering {
                self.0.cmp(&o.0)
            }
        }
        let ks: Vec<K> = pairs.iter().map(|&(k, i)| K(k, i)).collect();
        let got = ks.par_iter().copied().min().map(|k| (k.0, k.1));
        let expected = ks.iter().copied().min().map(|k| (k.0, k.1));
        assert_eq!(got.map(|p| p.0), expected.map(|p| p.0), "min, {at}");
        assert_eq!(got, expected, "min picked another of the tied items, {at}");
        let got = ks.par_iter().copied().max().map(|k| (k.0, k.1));
        let expected = ks.iter().copied().max().map(|k| (k.0, k.1));
        assert_eq!(got, expected, "max picked another of the tied items, {at}");
        // Unindexed.
        let odd = |x: &&u64| *x % 2 == 1;
        assert_eq!(
            v.par_iter().filter(odd).min(),
            v.iter().filter(odd).min(),
            "{at}"
        );
        assert_eq!(
            v.par_iter().filter(odd).max_by_key(|x| **x % 1000),
            v.iter().filter(odd).max_by_key(|x| **x % 1000),
            "{at}"
        );
    });
}

#[test]
fn reduce_and_reduce_with_keep_the_order() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let seq = v.iter().fold(ID, |a, &x| mul(a, mat(x)));
        assert_eq!(
            v.par_iter().map(|&x| mat(x)).reduce(|| ID, mul),
            seq,
            "reduce, {at}"
        );
        let seq_with = v.iter().map(|&x| mat(x)).reduce(mul);
        assert_eq!(
            v.par_iter().map(|&x| mat(x)).reduce_with(mul),
            seq_with,
            "reduce_with, {at}"
        );
        // Unindexed.
        let f = |x: &&u64| !(*x).is_multiple_of(3);
        let seq = v.iter().filter(f).fold(ID, |a, &x| mul(a, mat(x)));
        assert_eq!(
            v.par_iter().filter(f).map(|&x| mat(x)).reduce(|| ID, mul),
            seq,
            "reduce unindexed, {at}"
        );
        assert_eq!(
            v.par_iter().map(|&x| x ^ 1).reduce(|| 0, |a, b| a ^ b),
            v.iter().fold(0, |a, x| a ^ x ^ 1),
            "{at}"
        );
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input(n);
        let s = v
            .par_iter()
            .map(|x| (x % 100).to_string())
            .reduce(String::new, |a, b| a + &b);
        assert_eq!(
            s,
            v.iter().map(|x| (x % 100).to_string()).collect::<String>(),
            "{at}"
        );
        let s = v
            .par_iter()
            .map(|x| (x % 100).to_string())
            .reduce_with(|a, b| a + "," + &b);
        let expected = (n > 0).then(|| {
            v.iter()
                .map(|x| (x % 100).to_string())
                .collect::<Vec<_>>()
                .join(",")
        });
        assert_eq!(s, expected, "{at}");
    });
}

#[test]
fn fold_fold_with_try_fold_and_try_fold_with() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        // fold then reduce: the accumulators come in order, so concatenating them gives the
        // input back.
        let got = v
            .par_iter()
            .fold(Vec::new, |mut acc, &x| {
                acc.push(x);
                acc
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        assert_eq!(got, v, "fold + reduce, {at}");
        let got: u64 = v
            .par_iter()
            .fold(|| 0u64, |a, &x| a.wrapping_add(x))
            .reduce(|| 0, u64::wrapping_add);
        assert_eq!(got, wsum(v.iter()), "{at}");
        let got: Vec<u64> = v
            .par_iter()
            .fold_with(Vec::new(), |mut acc, &x| {
                acc.push(x);
                acc
            })
            .collect::<Vec<Vec<u64>>>()
            .concat();
        assert_eq!(got, v, "fold_with, {at}");
        let got = v
            .par_iter()
            .fold_with(Wrapping(0u64), |a, &x| a + Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(got.0, wsum(v.iter()), "{at}");
        // try_fold: Some all the way, then a failure.
        let small: Vec<u64> = v.iter().map(|x| x >> 44).collect();
        let got = small
            .par_iter()
            .try_fold(|| 0u64, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(got, Some(small.iter().sum()), "try_fold, {at}");
        let mut with_max = small.clone();
        if n > 0 {
            with_max[n / 2] = u64::MAX;
            with_max.push(1);
        }
        let got = with_max
            .par_iter()
            .try_fold(|| 0u64, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(
            got,
            if n > 0 { None } else { Some(0) },
            "try_fold overflow, {at}"
        );
        let got: Result<u64, usize> = small
            .par_iter()
            .enumerate()
            .try_fold_with(
                0u64,
                |a, (i, &x)| if i == n / 2 { Err(i) } else { Ok(a + x) },
            )
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(
            got,
            if n > 0 { Err(n / 2) } else { Ok(0) },
            "try_fold_with, {at}"
        );
        // try_fold alone: every piece's result; their Ok values add up.
        let parts: Vec<Result<u64, ()>> = small
            .par_iter()
            .try_fold(|| 0u64, |a, &x| Ok(a + x))
            .collect();
        assert_eq!(
            parts.iter().map(|r| r.unwrap()).sum::<u64>(),
            small.iter().sum::<u64>(),
            "{at}"
        );
    });
}

#[test]
fn try_reduce_and_try_reduce_with() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let small: Vec<u64> = v.iter().map(|x| x >> 44).collect();
        let total: u64 = small.iter().sum();
        let r = small
            .par_iter()
            .map(|&x| Ok::<u64, u64>(x))
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(r, Ok(total), "{at}");
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce(|| 0, |a, b| Some(a + b));
        assert_eq!(r, Some(total), "{at}");
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce_with(|a, b| Some(a + b));
        assert_eq!(r, (n > 0).then_some(Some(total)), "{at}");
        // Non-commutative op: the order of the items is kept.
        let r = v
            .par_iter()
            .map(|&x| Ok::<Mat, ()>(mat(x)))
            .try_reduce(|| ID, |a, b| Ok(mul(a, b)));
        assert_eq!(r, Ok(v.iter().fold(ID, |a, &x| mul(a, mat(x)))), "{at}");
        // One failing item: exactly its error; several: one of them.
        if n > 0 {
            let r = (0..n)
                .into_par_iter()
                .map(|i| if i == n - 1 { Err(i) } else { Ok(i) })
                .try_reduce(|| 0, |a, b| Ok(a + b));
            assert_eq!(r, Err(n - 1), "{at}");
            let r = (0..n)
                .into_par_iter()
                .map(|i| if i == 0 { Err(i) } else { Ok(i) })
                .try_reduce_with(|a, b| Ok(a + b));
            assert_eq!(r, Some(Err(0)), "{at}");
        }
        let r = (0..n)
            .into_par_iter()
            .map(|i| if i % 5 == 2 { Err(i) } else { Ok(i) })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        match r {
            Ok(s) => assert!(n <= 2 && s == (0..n).sum::<usize>(), "{at}"),
            Err(e) => assert!(e % 5 == 2 && e < n, "{at}"),
        }
        // The op itself may fail.
        let r = small
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b).filter(|&s| s <= total / 2));
        assert_eq!(
            r,
            if total / 2 >= total {
                Some(total)
            } else {
                None
            },
            "{at}"
        );
        assert_eq!(
            v[..0]
                .par_iter()
                .map(|&x| Some(x))
                .try_reduce_with(|a, b| Some(a + b)),
            None,
            "{at}"
        );
    });
}

#[test]
fn any_and_all() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1, 2, 1000, u64::MAX] {
            let p = |&x: &u64| x % m == 0;
            assert_eq!(v.par_iter().any(p), v.iter().any(p), "any %{m}, {at}");
            assert_eq!(
                v.par_iter().all(|x| !p(x)),
                v.iter().all(|x| !p(x)),
                "all %{m}, {at}"
            );
        }
        if n > 0 {
            let last = v[n - 1];
            assert!(v.par_iter().any(|&x| x == last), "{at}");
            assert!(!v.par_iter().all(|&x| x != last), "{at}");
        }
        assert!(
            !v.par_iter().filter(|&&x| x % 2 == 0).any(|&x| x % 2 == 1),
            "{at}"
        );
        assert!(
            v.par_iter().filter(|&&x| x % 2 == 0).all(|&x| x % 2 == 0),
            "{at}"
        );
    });
}

#[test]
fn find_any_first_last_and_find_map() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1u64, 3, 97, 1 << 20, u64::MAX] {
            let p = |x: &&u64| **x % m == 7 % m;
            assert_eq!(
                v.par_iter().find_first(p),
                v.iter().find(p),
                "find_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().find_last(p),
                v.iter().rfind(p),
                "find_last %{m}, {at}"
            );
            match v.par_iter().find_any(p) {
                None => assert_eq!(v.iter().find(p), None, "find_any %{m}, {at}"),
                Some(x) => assert!(p(&x) && v.contains(x), "find_any %{m}, {at}"),
            }
            let f = |x: &u64| (x % m == 7 % m).then(|| x.wrapping_mul(3));
            assert_eq!(
                v.par_iter().find_map_first(f),
                v.iter().find_map(f),
                "find_map_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().find_map_last(f),
                v.iter().rev().find_map(f),
                "find_map_last %{m}, {at}"
            );
            match v.par_iter().find_map_any(f) {
                None => assert_eq!(v.iter().find_map(f), None, "{at}"),
                Some(y) => assert!(v.iter().any(|x| f(x) == Some(y)), "find_map_any %{m}, {at}"),
            }
        }
        // A single match: find_any must return it.
        if n > 0 {
            let target = v[n * 2 / 3];
            assert_eq!(
                v.par_iter().find_any(|&&x| x == target),
                Some(&target),
                "{at}"
            );
        }
        // Unindexed (after a filter) and reversed.
        let even = |x: &&u64| (**x).is_multiple_of(2);
        let p = |x: &&u64| **x % 5 == 1;
        assert_eq!(
            v.par_iter().filter(even).find_first(p),
            v.iter().filter(even).find(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter().filter(even).find_last(p),
            v.iter().filter(even).rfind(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter().rev().find_first(p),
            v.iter().rev().find(p),
            "{at}"
        );
        assert_eq!(
            v.par_iter()
                .flat_map_iter(|&x| [x, x / 2])
                .find_first(|y| y % 11 == 3),
            v.iter().flat_map(|&x| [x, x / 2]).find(|y| y % 11 == 3),
            "{at}"
        );
    });
}

/// `find_last` with two matches, one near the start and one further on: the answer is the
/// later one. With several workers the search is split while it runs, which is what this
/// needs (one worker never splits, so it always passes there). `find_first` with the
/// mirror-image input is the control.
#[test]
fn find_last_with_an_early_and_a_later_match() {
    const N: usize = 1_000_000;
    let mut wrong = Vec::new();
    for (w, pool) in pools() {
        for k in 1..16 {
            let target = N * k / 16 - 1;
            for _ in 0..3 {
                let (last, pos_last, map_last, first) = pool.install(|| {
                    (
                        (0..N).into_par_iter().find_last(|&x| x == 5 || x == target),
                        (0..N)
                            .into_par_iter()
                            .position_last(|x| x == 5 || x == target),
                        (0..N)
                            .into_par_iter()
                            .find_map_last(|x| (x == 5 || x == target).then_some(x)),
                        (0..N)
                            .into_par_iter()
                            .find_first(|&x| x == N - 5 || x == target),
                    )
                });
                for (what, got) in [
                    ("find_last", last),
                    ("position_last", pos_last),
                    ("find_map_last", map_last),
                    ("find_first", first),
                ] {
                    if got != Some(target) {
                        wrong.push(format!(
                            "{what}: {got:?} instead of Some({target}) at {w} workers"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers of {}:\n{}",
        wrong.len(),
        3 * 15 * 3 * 4,
        wrong.join("\n")
    );
}

#[test]
fn position_any_first_and_last() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for m in [1u64, 3, 97, 1 << 20, u64::MAX] {
            let p = |x: &u64| x % m == 5 % m;
            assert_eq!(
                v.par_iter().position_first(p),
                v.iter().position(p),
                "position_first %{m}, {at}"
            );
            assert_eq!(
                v.par_iter().position_last(p),
                v.iter().rposition(p),
                "position_last %{m}, {at}"
            );
            match v.par_iter().position_any(p) {
                None => assert_eq!(v.iter().position(p), None, "{at}"),
                Some(i) => assert!(p(&v[i]), "position_any %{m}: {i}, {at}"),
            }
        }
        assert_eq!(
            v.par_iter().rev().position_first(|&x| x % 3 == 0),
            v.iter().rev().position(|&x| x % 3 == 0),
            "{at}"
        );
        assert_eq!(
            v.par_iter().skip(5).position_last(|&x| x % 3 == 0),
            v.iter().skip(5).rposition(|&x| x % 3 == 0),
            "{at}"
        );
    });
}

#[test]
fn collect_into_every_kind_of_collection() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let got: Vec<u64> = v.par_iter().map(|x| x / 7).collect();
        assert_eq!(
            got,
            v.iter().map(|x| x / 7).collect::<Vec<_>>(),
            "Vec, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .filter(|&&x| x % 3 != 0)
            .map(|x| x / 7)
            .collect();
        assert_eq!(
            got,
            v.iter()
                .filter(|&&x| x % 3 != 0)
                .map(|x| x / 7)
                .collect::<Vec<_>>(),
            "Vec unindexed, {at}"
        );
        let c = |x: &u64| char::from(b'a' + (x % 26) as u8);
        let got: String = v.par_iter().map(c).collect();
        assert_eq!(
            got,
            v.iter().map(c).collect::<String>(),
            "String from chars, {at}"
        );
        let hm: HashMap<u64, usize> = v
            .par_iter()
            .enumerate()
            .map(|(i, &x)| (x % 1000, i))
            .collect();
        // Several items share a key: the map keeps one of their values.
        let key_set: HashSet<u64> = v.iter().map(|x| x % 1000).collect();
        assert_eq!(
            hm.keys().copied().collect::<HashSet<_>>(),
            key_set,
            "HashMap, {at}"
        );
        assert!(hm.iter().all(|(&k, &i)| v[i] % 1000 == k), "HashMap, {at}");
        let unique: HashMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
        assert_eq!(
            unique,
            v.iter()
                .enumerate()
                .map(|(i, &x)| (x, i))
                .collect::<HashMap<_, _>>(),
            "{at}"
        );
        let hs: HashSet<u64> = v.par_iter().map(|x| x % 1000).collect();
        assert_eq!(hs, key_set, "HashSet, {at}");
        let bm: BTreeMap<u64, u64> = v.par_iter().map(|&x| (x, !x)).collect();
        assert_eq!(
            bm,
            v.iter().map(|&x| (x, !x)).collect::<BTreeMap<_, _>>(),
            "BTreeMap, {at}"
        );
        let bs: BTreeSet<u64> = v.par_iter().map(|x| x % 1000).collect();
        assert_eq!(
            bs,
            v.iter().map(|x| x % 1000).collect::<BTreeSet<_>>(),
            "BTreeSet, {at}"
        );
        // Result and Option of a Vec: all Ok, or one failure.
        let got: Result<Vec<u64>, String> = v.par_iter().map(|&x| Ok(x >> 1)).collect();
        assert_eq!(
            got,
            Ok(v.iter().map(|x| x >> 1).collect::<Vec<_>>()),
            "Result Ok, {at}"
        );
        let got: Option<Vec<u64>> = v.par_iter().map(|&x| Some(x >> 1)).collect();
        assert_eq!(
            got,
            Some(v.iter().map(|x| x >> 1).collect::<Vec<_>>()),
            "Option Some, {at}"
        );
        if n > 0 {
            let bad = n - 1 - n / 3;
            let got: Result<Vec<u64>, String> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| {
                    if i == bad {
                        Err(format!("bad {i}"))
                    } else {
                        Ok(x)
                    }
                })
                .collect();
            assert_eq!(got, Err(format!("bad {bad}")), "Result Err, {at}");
            let got: Option<Vec<u64>> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| (i != bad).then_some(x))
                .collect();
            assert_eq!(got, None, "Option None, {at}");
        }
        let got: Result<Vec<u64>, u64> = v
            .par_iter()
            .map(|&x| if x % 4 == 1 { Err(x) } else { Ok(x) })
            .collect();
        match got {
            Ok(all) => {
                assert!(v.iter().all(|x| x % 4 != 1), "{at}");
                assert_eq!(all, v, "{at}");
            }
            Err(e) => assert!(e % 4 == 1 && v.contains(&e), "Result Err of several, {at}"),
        }
        // collect_into_vec replaces what the vector held.
        let mut target = vec![9u64; 5];
        v.par_iter().map(|x| x ^ 3).collect_into_vec(&mut target);
        assert_eq!(
            target,
            v.iter().map(|x| x ^ 3).collect::<Vec<_>>(),
            "collect_into_vec, {at}"
        );
        let mut target = Vec::with_capacity(2 * n);
        v.par_iter().rev().copied().collect_into_vec(&mut target);
        assert_eq!(target, v.iter().rev().copied().collect::<Vec<_>>(), "{at}");
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let words: Vec<String> = input(n).iter().map(|x| format!("{}-", x % 1000)).collect();
        let got: String = words.par_iter().map(String::as_str).collect();
        assert_eq!(got, words.concat(), "String from &str, {at}");
        let got: String = words.clone().into_par_iter().collect();
        assert_eq!(got, words.concat(), "String from String, {at}");
        let got: String = words
            .par_iter()
            .filter(|w| w.len() > 2)
            .map(String::as_str)
            .collect();
        assert_eq!(
            got,
            words
                .iter()
                .filter(|w| w.len() > 2)
                .map(String::as_str)
                .collect::<String>(),
            "{at}"
        );
    });
}

#[test]
fn unzip_partition_and_par_extend_keep_the_order() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let (a, b): (Vec<usize>, Vec<u64>) = v.par_iter().enumerate().map(|(i, &x)| (i, x)).unzip();
        assert_eq!(a, (0..n).collect::<Vec<_>>(), "unzip left, {at}");
        assert_eq!(b, v, "unzip right, {at}");
        let odd = |x: &u64| x % 2 == 1;
        let (a, b): (Vec<u64>, Vec<u64>) =
            v.par_iter().filter(|x| odd(x)).map(|&x| (x, x / 3)).unzip();
        let (ea, eb): (Vec<u64>, Vec<u64>) =
            v.iter().filter(|x| odd(x)).map(|&x| (x, x / 3)).unzip();
        assert_eq!((a, b), (ea, eb), "unzip unindexed, {at}");
        let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().copied().partition(|x| odd(x));
        let (ea, eb): (Vec<u64>, Vec<u64>) = v.iter().copied().partition(|x| odd(x));
        assert_eq!((a, b), (ea, eb), "partition, {at}");
        let (a, b): (Vec<u64>, Vec<u64>) = v
            .par_iter()
            .copied()
            .filter(|x| x % 3 != 0)
            .partition(|x| x % 5 < 2);
        let (ea, eb): (Vec<u64>, Vec<u64>) = v
            .iter()
            .copied()
            .filter(|x| x % 3 != 0)
            .partition(|x| x % 5 < 2);
        assert_eq!((a, b), (ea, eb), "partition unindexed, {at}");
        let (a, b): (HashSet<u64>, Vec<u64>) = v.par_iter().copied().partition(|x| odd(x));
        assert_eq!(
            a,
            v.iter().copied().filter(odd).collect::<HashSet<_>>(),
            "{at}"
        );
        assert_eq!(
            b,
            v.iter().copied().filter(|x| !odd(x)).collect::<Vec<_>>(),
            "{at}"
        );
        // par_extend: onto what is there, in order.
        let mut w = vec![1u64, 2, 3];
        w.par_extend(v.par_iter().copied());
        w.par_extend(v.par_iter().copied().filter(|x| odd(x)));
        w.par_extend(vec![7u64, 8]);
        let mut expected = vec![1u64, 2, 3];
        expected.extend(v.iter().copied());
        expected.extend(v.iter().copied().filter(odd));
        expected.extend([7, 8]);
        assert_eq!(w, expected, "par_extend Vec, {at}");
        let mut s = String::from(">");
        s.par_extend(v.par_iter().map(|x| char::from(b'A' + (x % 26) as u8)));
        assert_eq!(
            s,
            format!(
                ">{}",
                v.iter()
                    .map(|x| char::from(b'A' + (x % 26) as u8))
                    .collect::<String>()
            ),
            "{at}"
        );
        let mut hs: HashSet<u64> = HashSet::from([u64::MAX]);
        hs.par_extend(v.par_iter().map(|x| x % 100));
        let mut expected: HashSet<u64> = v.iter().map(|x| x % 100).collect();
        expected.insert(u64::MAX);
        assert_eq!(hs, expected, "par_extend HashSet, {at}");
    });
}

// ---------------------------------------------------------------------------------------
// Early stops
// ---------------------------------------------------------------------------------------

/// The searches and fallible loops stop soon after their answer is known. Each case runs
/// over 10^7 items (10^6 for the slice) whose answer is at position 2, and counts the items
/// visited after the answer's item was seen (0 or 1 today).
///
/// What is bounded is what the runtime controls: once the answer is found, every piece
/// stops at its next item or chunk boundary (a chunk lasts about 10 us), so at most one
/// chunk per worker follows it. How many items the other pieces visit *before* the answer
/// is found is up to the scheduler: the run holding position 2 can share its rest after its
/// second chunk (item 1), and if its thread then loses the CPU (on a 2-core machine the
/// worker it woke for the share may take its place for a time slice), the thief runs on
/// meanwhile. A bound on all visits failed 2 runs in 150 that way, with 300 thousand items
/// visited before the match and at most 1 after. The bound here, 50 thousand, is above
/// 8 workers' chunks and far below the millions a piece that ignored the stop would visit.
#[test]
fn searches_and_failures_stop_early() {
    const N: usize = 10_000_000;
    const AT: usize = 2;
    const BOUND: usize = 50_000;
    on_pools(|at| {
        // Set when the answer's item is visited; items visited after that are counted.
        let seen = AtomicBool::new(false);
        let visited = AtomicUsize::new(0);
        let count = |i: usize| {
            if seen.load(Relaxed) {
                visited.fetch_add(1, Relaxed);
            }
            if i == AT {
                seen.store(true, Relaxed);
            }
        };
        let check = |what: &str| {
            let n = visited.swap(0, Relaxed);
            assert!(
                seen.swap(false, Relaxed),
                "{what} never visited its answer, {at}"
            );
            assert!(n < BOUND, "{what} visited {n} items after its answer, {at}");
        };

        assert_eq!(
            (0..N)
                .into_par_iter()
                .inspect(|&i| count(i))
                .find_first(|&i| i >= AT),
            Some(AT),
            "{at}"
        );
        check("find_first");
        assert_eq!(
            (0..N)
                .into_par_iter()
                .inspect(|&i| count(i))
                .find_any(|&i| i == AT),
            Some(AT),
            "{at}"
        );
        check("find_any");
        assert!(
            (0..N).into_par_iter().any(|i| {
                count(i);
                i == AT
            }),
            "{at}"
        );
        check("any");
        assert!(
            !(0..N).into_par_iter().all(|i| {
                count(i);
                i < AT
            }),
            "{at}"
        );
        check("all");
        let r = (0..N).into_par_iter().try_for_each(|i| {
            count(i);
            if i == AT {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(AT), "{at}");
        check("try_for_each");
        let r = (0..N).into_par_iter().try_for_each(|i| {
            count(i);
            (i != AT).then_some(())
        });
        assert_eq!(r, None, "{at}");
        check("try_for_each Option");
        assert_eq!(
            (0..N).into_par_iter().position_first(|i| {
                count(i);
                i == AT
            }),
            Some(AT),
            "{at}"
        );
        check("position_first");
        assert_eq!(
            (0..N).into_par_iter().position_any(|i| {
                count(i);
                i == AT
            }),
            Some(AT),
            "{at}"
        );
        check("position_any");
        assert_eq!(
            (0..N).into_par_iter().find_map_first(|i| {
                count(i);
                (i == AT).then_some(i * 2)
            }),
            Some(2 * AT),
            "{at}"
        );
        check("find_map_first");
        let r: Result<Vec<usize>, usize> = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                if i == AT {
                    Err(i)
                } else {
                    Ok(i)
                }
            })
            .collect();
        assert_eq!(r, Err(AT), "{at}");
        check("collect Result<Vec<_>, _>");
        let r: Option<Vec<usize>> = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                (i != AT).then_some(i)
            })
            .collect();
        assert_eq!(r, None, "{at}");
        check("collect Option<Vec<_>>");
        let r = (0..N)
            .into_par_iter()
            .map(|i| {
                count(i);
                if i == AT {
                    Err(i)
                } else {
                    Ok(i)
                }
            })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(r, Err(AT), "{at}");
        check("try_reduce");
        // Over a slice, through adaptors.
        let data: Vec<u64> = (0..N as u64 / 10).collect();
        assert_eq!(
            data.par_iter()
                .enumerate()
                .inspect(|&(i, _)| count(i))
                .map(|(i, &x)| (i, x * 2))
                .find_first(|&(_, x)| x == 2 * AT as u64),
            Some((AT, 2 * AT as u64)),
            "{at}"
        );
        check("find_first on a slice");
    });
}

// ---------------------------------------------------------------------------------------
// Panics
// ---------------------------------------------------------------------------------------

/// A panic at one item among 10^5 reaches the caller with its message; the pool then still
/// computes exact answers.
#[test]
fn panics_reach_the_caller_and_the_pool_survives() {
    const N: u64 = 100_000;
    for bad in [0, 1, N / 2 + 7, N - 1] {
        on_pools(|at| {
            let msg = panic_message(|| {
                let s: u64 = (0..N)
                    .into_par_iter()
                    .map(|x| {
                        if x == bad {
                            panic!("map failed at {x}")
                        } else {
                            x
                        }
                    })
                    .sum();
                unreachable!("sum {s} despite the panic");
            });
            assert_eq!(msg, format!("map failed at {bad}"), "map, {at}");
            let msg = panic_message(|| {
                (0..N).into_par_iter().for_each(|x| {
                    if x == bad {
                        panic!("for_each: a bad item");
                    }
                })
            });
            assert_eq!(msg, "for_each: a bad item", "for_each, {at}");
            let msg = panic_message(|| {
                let c = (0..N)
                    .into_par_iter()
                    .filter(|&x| {
                        if x == bad {
                            panic!("filter: {}", x * 2)
                        } else {
                            x % 2 == 0
                        }
                    })
                    .count();
                unreachable!("count {c} despite the panic");
            });
            assert_eq!(msg, format!("filter: {}", bad * 2), "filter, {at}");
            let msg = panic_message(|| {
                let v: Vec<u64> = (0..N)
                    .into_par_iter()
                    .map(|x| if x == bad { panic!("collect") } else { x })
                    .collect();
                unreachable!("{} items despite the panic", v.len());
            });
            assert_eq!(msg, "collect", "collect, {at}");
            let msg = panic_message(|| {
                let v: Vec<u64> = (0..N)
                    .into_par_iter()
                    .flat_map_iter(|x| {
                        assert_ne!(x, bad, "flat_map_iter");
                        [x]
                    })
                    .collect();
                unreachable!("{} items despite the panic", v.len());
            });
            assert!(
                msg.starts_with("assertion `left != right` failed: flat_map_iter"),
                "flat_map_iter: {msg}, {at}"
            );
            // Still usable, and exact.
            assert_eq!(
                (0..N).into_par_iter().sum::<u64>(),
                N * (N - 1) / 2,
                "after the panics, {at}"
            );
            let v: Vec<u64> = (0..N).into_par_iter().map(|x| x * 3).collect();
            assert!(
                v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64),
                "after the panics, {at}"
            );
        });
    }
    // The pools themselves, as a whole, once more.
    for (w, pool) in pools() {
        let msg = panic_message(|| {
            pool.install(|| {
                (0..1000)
                    .into_par_iter()
                    .for_each(|x| assert!(x != 999, "install {w}"))
            })
        });
        assert_eq!(msg, format!("install {w}"));
        assert_eq!(
            pool.install(|| (1..=1000u64)
                .into_par_iter()
                .map(Wrapping)
                .product::<Wrapping<u64>>()),
            (1..=1000u64).map(Wrapping).product()
        );
    }
}

/// A panic in the middle of a collect: every item made is dropped exactly once (none leaks
/// in the half-written vector, none is dropped twice), also when the items come from an
/// owning source (`Vec::into_par_iter`).
#[test]
fn a_panic_while_collecting_drops_every_item_exactly_once() {
    const N: usize = 100_000;
    for bad in [0, 1, N / 3, N - 1] {
        on_pools(|at| {
            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .map(|i| {
                        if i == bad {
                            panic!("made {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("made {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("indexed collect, {at}"));

            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .filter(|i| i % 3 != 2 || *i == bad)
                    .map(|i| {
                        if i == bad {
                            panic!("made {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("made {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("unindexed collect, {at}"));

            // The item is made, then the next stage panics holding it.
            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .map(|i| ledger.make(i))
                    .map(|t| {
                        if t.id == bad {
                            panic!("held {}", t.id)
                        } else {
                            t
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("held {bad}"), "{at}");
            ledger.assert_all_dropped_once(&format!("panic holding an item, {at}"));

            // From an owning source: all N items exist before; all are dropped once after.
            let ledger = Ledger::new(N);
            let items: Vec<Tracked> = (0..N).map(|i| ledger.make(i)).collect();
            let msg = panic_message(|| {
                let v: Vec<Tracked> = items
                    .into_par_iter()
                    .map(|t| {
                        if t.id == bad {
                            panic!("owned {}", t.id)
                        } else {
                            t
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("owned {bad}"), "{at}");
            assert_eq!(ledger.created(), N, "{at}");
            ledger.assert_all_dropped_once(&format!("owned source, {at}"));

            // No panic, an error instead: the Ok items made are dropped with the vector.
            let ledger = Ledger::new(N);
            let r: Result<Vec<Tracked>, usize> = (0..N)
                .into_par_iter()
                .map(|i| if i == bad { Err(i) } else { Ok(ledger.make(i)) })
                .collect();
            assert_eq!(r.as_ref().err(), Some(&bad), "{at}");
            drop(r);
            ledger.assert_all_dropped_once(&format!("Result collect, {at}"));
        });
    }
}

// ---------------------------------------------------------------------------------------
// Nesting
// ---------------------------------------------------------------------------------------

#[test]
fn nested_parallel_iterators_three_levels_deep() {
    on_pools(|at| {
        let got: u64 = (0..30u64)
            .into_par_iter()
            .map(|i| {
                (0..40u64)
                    .into_par_iter()
                    .map(|j| (0..50u64).into_par_iter().map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        let expected: u64 = (0..30u64)
            .map(|i| {
                (0..40u64)
                    .map(|j| (0..50u64).map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(got, expected, "{at}");
        // Nested collects keep every level's order.
        let got: Vec<Vec<Vec<u32>>> = (0..7u32)
            .into_par_iter()
            .map(|i| {
                (0..i)
                    .into_par_iter()
                    .map(|j| {
                        (0..j)
                            .into_par_iter()
                            .map(|k| i * 100 + j * 10 + k)
                            .collect::<Vec<u32>>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let expected: Vec<Vec<Vec<u32>>> = (0..7u32)
            .map(|i| {
                (0..i)
                    .map(|j| (0..j).map(|k| i * 100 + j * 10 + k).collect::<Vec<u32>>())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(got, expected, "{at}");
        // Outer slice, inner filter and find_first.
        let v = input(1001);
        let got: Vec<Option<u64>> = v
            .par_chunks(100)
            .map(|c| {
                c.par_iter()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .find_first(|x| x % 3 == 0)
            })
            .collect();
        let expected: Vec<Option<u64>> = v
            .chunks(100)
            .map(|c| {
                c.iter()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .find(|x| x % 3 == 0)
            })
            .collect();
        assert_eq!(got, expected, "{at}");
    });
}

#[test]
fn parallel_iterators_inside_join_and_scope() {
    on_pools_and_lens(&[0, 17, 1001, BIG], |at, n| {
        let v = input(n);
        let (a, b) = join(
            || v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>(),
            || v.par_iter().map(|x| x >> 1).collect::<Vec<_>>(),
        );
        assert_eq!(a.0, wsum(v.iter()), "join, {at}");
        assert_eq!(
            b,
            v.iter().map(|x| x >> 1).collect::<Vec<_>>(),
            "join, {at}"
        );
        let ((c, d), e) = join(
            || {
                join(
                    || v.par_iter().max(),
                    || v.par_iter().position_first(|&x| x % 10 == 3),
                )
            },
            || v.par_iter().filter(|&&x| x % 2 == 0).count(),
        );
        assert_eq!(
            (c, d, e),
            (
                v.iter().max(),
                v.iter().position(|&x| x % 10 == 3),
                v.iter().filter(|&&x| x % 2 == 0).count()
            ),
            "{at}"
        );

        let mut slots = [0u64; 4];
        let mut sorted = Vec::new();
        scope(|s| {
            for (k, slot) in slots.iter_mut().enumerate() {
                s.spawn(move |_| {
                    *slot = v
                        .par_iter()
                        .filter(|&&x| x % 4 == k as u64)
                        .map(|x| x >> 24)
                        .sum()
                });
            }
            s.spawn(|s| {
                let mut w = v.to_vec();
                s.spawn(|_| assert_eq!(v.par_iter().count(), n));
                w.par_sort_unstable();
                sorted = w;
            });
        });
        for (k, slot) in slots.iter().enumerate() {
            assert_eq!(
                *slot,
                v.iter()
                    .filter(|&&x| x % 4 == k as u64)
                    .map(|x| x >> 24)
                    .sum::<u64>(),
                "scope, {at}"
            );
        }
        let mut expected = v.to_vec();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "scope, {at}");
    });
}

// ---------------------------------------------------------------------------------------
// Sorts
// ---------------------------------------------------------------------------------------

#[test]
fn sorts_give_std_answers() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let dup = keys(n);
        for data in [v.to_vec(), dup.clone()] {
            let mut expected = data.clone();
            expected.sort();
            let mut w = data.clone();
            w.par_sort();
            assert_eq!(w, expected, "par_sort, {at}");
            let mut w = data.clone();
            w.par_sort_unstable();
            assert_eq!(w, expected, "par_sort_unstable, {at}");
            let mut expected = data.clone();
            expected.sort_by(|a, b| b.cmp(a));
            let mut w = data.clone();
            w.par_sort_by(|a, b| b.cmp(a));
            assert_eq!(w, expected, "par_sort_by, {at}");
            let mut w = data.clone();
            w.par_sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(w, expected, "par_sort_unstable_by, {at}");
            let mut expected = data.clone();
            expected.sort_by_key(|x| (x % 1000, *x));
            let mut w = data.clone();
            w.par_sort_by_key(|x| (x % 1000, *x));
            assert_eq!(w, expected, "par_sort_by_key, {at}");
            let mut w = data.clone();
            w.par_sort_unstable_by_key(|x| (x % 1000, *x));
            assert_eq!(w, expected, "par_sort_unstable_by_key, {at}");
        }
        // Already sorted, reversed, all equal.
        for mut data in [
            (0..n as u64).collect::<Vec<_>>(),
            (0..n as u64).rev().collect(),
            vec![5; n],
        ] {
            let mut expected = data.clone();
            expected.sort_unstable();
            data.par_sort_unstable();
            assert_eq!(data, expected, "{at}");
        }
    });
    on_pools_and_lens(&SMALL, |at, n| {
        let strings: Vec<String> = input(n).iter().map(|x| (x % 5000).to_string()).collect();
        let mut expected = strings.clone();
        expected.sort();
        let mut w = strings.clone();
        w.par_sort();
        assert_eq!(w, expected, "strings, {at}");
        let floats: Vec<f64> = input(n).iter().map(|&x| (x as f64).sin() * 1e3).collect();
        let mut expected = floats.clone();
        expected.sort_by(f64::total_cmp);
        let mut w = floats.clone();
        w.par_sort_unstable_by(f64::total_cmp);
        assert_eq!(
            w.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            expected.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            "floats, {at}"
        );
    });
}

#[test]
fn stable_sorts_keep_equal_keys_in_order() {
    on_pools_and_lens(&LENS, |at, n| {
        let pairs: Vec<(u64, usize)> = keys(n).into_iter().zip(0..).collect();
        let check = |w: &[(u64, usize)], what: &str| {
            assert!(
                w.windows(2)
                    .all(|p| p[0].0 < p[1].0 || (p[0].0 == p[1].0 && p[0].1 < p[1].1)),
                "{what} is not stable, {at}"
            );
            let mut expected = pairs.clone();
            expected.sort_by_key(|p| p.0);
            assert_eq!(w, &expected[..], "{what}, {at}");
        };
        let mut w = pairs.clone();
        w.par_sort_by_key(|p| p.0);
        check(&w, "par_sort_by_key");
        let mut w = pairs.clone();
        w.par_sort_by(|a, b| a.0.cmp(&b.0));
        check(&w, "par_sort_by");
        // par_sort on items whose Ord sees only the key.
        #[derive(Debug, Clone, Copy)]
        struct K(u64, usize);
        impl PartialEq for K {
            fn eq(&self, o: &K) -> bool {
                self.0 == o.0
            }
        }
        impl Eq for K {}
        impl PartialOrd for K {
            fn partial_cmp(&self, o: &K) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for K {
            fn cmp(&self, o: &K) -> std::cmp::Ordering {
                self.0.cmp(&o.0)
            }
        }
        let mut w: Vec<K> = pairs.iter().map(|&(k, i)| K(k, i)).collect();
        w.par_sort();
        check(
            &w.iter().map(|k| (k.0, k.1)).collect::<Vec<_>>(),
            "par_sort",
        );
        // The unstable ones sort the keys, and keep every item.
        let mut w = pairs.clone();
        w.par_sort_unstable_by_key(|p| p.0);
        assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "{at}");
        w.sort_by_key(|p| p.1);
        assert_eq!(w, pairs, "par_sort_unstable_by_key lost items, {at}");
    });
}

// ---------------------------------------------------------------------------------------
// The first API, now built on the iterators
// ---------------------------------------------------------------------------------------

#[test]
fn the_loops_of_the_first_api_are_exact() {
    on_pools_and_lens(&LENS, |at, n| {
        let hits = Hits::new(n);
        forkjoin::for_each(0..n, |i| hits.hit(i));
        hits.assert_each_once(&format!("for_each, {at}"));
        let s = forkjoin::map_reduce(0..n, || 0u64, |i| (i as u64) * 3, |a, b| a + b);
        assert_eq!(
            s,
            3 * (n as u64) * (n as u64).saturating_sub(1) / 2,
            "map_reduce, {at}"
        );
        let m = forkjoin::map_reduce(0..n, || ID, |i| mat(input(n)[i]), mul);
        assert_eq!(
            m,
            input(n).iter().fold(ID, |a, &x| mul(a, mat(x))),
            "map_reduce keeps the order, {at}"
        );
        let mut v = input(n).to_vec();
        forkjoin::for_each_slice_mut(&mut v, |x| *x = x.rotate_left(7));
        assert_eq!(
            v,
            input(n)
                .iter()
                .map(|x| x.rotate_left(7))
                .collect::<Vec<_>>(),
            "for_each_slice_mut, {at}"
        );
        let hits = Hits::new(n);
        let idx: Vec<usize> = (0..n).collect();
        forkjoin::for_each_slice(&idx, |&i| hits.hit(i));
        hits.assert_each_once(&format!("for_each_slice, {at}"));
        let s = forkjoin::map_reduce_slice(&v, || 0u64, |&x| x >> 40, |a, b| a + b);
        assert_eq!(
            s,
            v.iter().map(|x| x >> 40).sum::<u64>(),
            "map_reduce_slice, {at}"
        );
        let m = forkjoin::map_reduce_slice_deterministic(&v, || ID, |&x| mat(x), mul);
        assert_eq!(
            m,
            v.iter().fold(ID, |a, &x| mul(a, mat(x))),
            "map_reduce_slice_deterministic, {at}"
        );
    });
}

/// The reduction tree `map_reduce_deterministic` documents: halve while longer than
/// `DETERMINISTIC_LEAF` (and the halves would hold `DETERMINISTIC_LEAF / 2` or more),
/// fold each leaf from the identity, left to right.
fn documented_tree(xs: &[f64]) -> f64 {
    let leaf = forkjoin::DETERMINISTIC_LEAF;
    let n = xs.len();
    if n > leaf && n / 2 >= leaf / 2 {
        let (l, r) = xs.split_at(n / 2);
        documented_tree(l) + documented_tree(r)
    } else {
        xs.iter().fold(0.0, |a, x| a + x)
    }
}

#[test]
fn deterministic_reductions_are_bit_identical_everywhere() {
    for n in [0, 1, 2, 3, 17, 511, 512, 513, 1001, 100_003, BIG] {
        let xs: Vec<f64> = random(n, 99)
            .iter()
            .map(|&x| (x as f64 / u64::MAX as f64 - 0.5) * 10f64.powi((x % 17) as i32 - 8))
            .collect();
        let expected = documented_tree(&xs).to_bits();
        let results = Mutex::new(Vec::new());
        on_pools(|at| {
            for _ in 0..3 {
                let a =
                    forkjoin::map_reduce_deterministic(0..n, || 0.0f64, |i| xs[i], |a, b| a + b);
                let b =
                    forkjoin::map_reduce_slice_deterministic(&xs, || 0.0f64, |&x| x, |a, b| a + b);
                results
                    .lock()
                    .unwrap()
                    .push((at.to_string(), a.to_bits(), b.to_bits()));
            }
        });
        let results = results.into_inner().unwrap();
        let first = results[0].1;
        for (at, a, b) in &results {
            assert_eq!(*a, first, "map_reduce_deterministic differs, n = {n}, {at}");
            assert_eq!(
                *b, first,
                "map_reduce_slice_deterministic differs, n = {n}, {at}"
            );
        }
        assert_eq!(first, expected, "not the documented tree, n = {n}");
    }
}
