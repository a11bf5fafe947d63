//! Helpers shared by the integration test crates (`iter`, `runtime`, `blocking`): each
//! includes this module and uses what it needs of it.

// A crate that leaves a helper unused is not a dead helper.
#![allow(dead_code, unused_imports)]

pub(crate) mod child;
pub(crate) mod drops;
pub(crate) mod waker;

pub(crate) use drops::{Counted, Hits, Ledger, Tracked};

use forkjoin::Pool;
use std::any::Any;
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Where the tests run
// ---------------------------------------------------------------------------------------

/// Pools of 1, 2 and `OVERSUBSCRIBED` workers (more than a 2-core machine's, on purpose),
/// shared by the tests of a crate.
pub(crate) fn pools() -> &'static [(usize, Pool)] {
    static POOLS: OnceLock<Vec<(usize, Pool)>> = OnceLock::new();
    POOLS.get_or_init(|| Vec::from([1, 2, OVERSUBSCRIBED].map(|w| (w, Pool::new(w).unwrap()))))
}

/// Runs `f` inside pools of 1, 2 and 8 workers, then outside any pool (on the global pool).
/// `f` gets a label naming where it runs, for the assertion messages.
pub(crate) fn on_pools(f: impl Fn(&str) + Sync) {
    for (w, pool) in pools() {
        let at = format!("{w} workers");
        pool.install(|| f(&at));
    }
    f("the global pool");
}

/// `f(label, n)` once per (pool, input length) pair.
pub(crate) fn on_pools_and_lens(lens: &[usize], f: impl Fn(&str, usize) + Sync) {
    on_pools_and_lens_with_workers(lens, |at, _, n| f(at, n));
}

/// `f(label, workers, n)` once per (pool, input length) pair; `workers` is 0 on the global
/// pool, so that a test can check what only one worker guarantees (it never splits).
pub(crate) fn on_pools_and_lens_with_workers(
    lens: &[usize],
    f: impl Fn(&str, usize, usize) + Sync,
) {
    let all = |at: &str, w: usize| {
        for &n in lens {
            f(&format!("n = {n}, {at}"), w, n);
        }
    };
    for (w, pool) in pools() {
        pool.install(|| all(&format!("{w} workers"), *w));
    }
    all("the global pool", 0);
}

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

pub(crate) const BIG: usize = 1_000_000;
pub(crate) const MID: usize = 100_003;
/// Every input length the iterator tests use; `input(n)` has them cached.
pub(crate) const LENS: [usize; 7] = [0, 1, 2, 3, 17, 1001, BIG];
/// The lengths without 10^6, for the costlier checks.
pub(crate) const SMALL: [usize; 6] = [0, 1, 2, 3, 17, 1001];
/// The lengths for checks that build a collection or sort per input, which this unoptimised
/// build runs tens of times slower than a plain loop (at 10^6 they took a third of the test
/// command's iterator tests): 100,003 items still split into hundreds of pieces at 8 workers.
pub(crate) const LENS_FOR_COSTLY_ITEMS: [usize; 7] = [0, 1, 2, 3, 17, 1001, MID];

pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` random 64-bit values, the same for the same `n` and `seed`.
pub(crate) fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n).map(|_| splitmix64(&mut s)).collect()
}

/// Random 64-bit values, `n` of them, made once per length.
pub(crate) fn input(n: usize) -> &'static [u64] {
    static CACHE: Mutex<BTreeMap<usize, &'static [u64]>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap();
    cache
        .entry(n)
        .or_insert_with(|| random(n, n as u64 + 1).leak())
}

/// `n` pseudo-random values below 2^31 (so that sums of many fit in a `u64`), the same for
/// the same `n`.
pub(crate) fn input31(n: usize) -> Vec<u64> {
    let mut s = n as u64 + 7;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 33
        })
        .collect()
}

/// Another input of the same length as `input(n)`, with many repeated values (keys 0..10).
pub(crate) fn keys(n: usize) -> Vec<u64> {
    input(n).iter().map(|x| x % 10).collect()
}

/// The wrapping sum.
pub(crate) fn wsum<'a>(it: impl Iterator<Item = &'a u64>) -> u64 {
    it.fold(0u64, |a, &x| a.wrapping_add(x))
}

pub(crate) fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// A deque holding `v` whose items wrap around the end of its buffer (when `v` has two
/// items or more).
pub(crate) fn deque_of<T: Clone>(v: &[T]) -> VecDeque<T> {
    let mut d = VecDeque::with_capacity(v.len() + 3);
    let mid = v.len() / 2;
    for x in &v[mid..] {
        d.push_back(x.clone());
    }
    for x in v[..mid].iter().rev() {
        d.push_front(x.clone());
    }
    if v.len() >= 2 {
        assert!(!d.as_slices().1.is_empty(), "the deque wraps around");
    }
    d
}

/// Pools under Miri have at most this many workers (DESIGN.md, "Miri's cases"); the larger,
/// oversubscribed pools run in the native builds.
pub(crate) const MIRI_MAX_WORKERS: usize = 3;

/// A pool larger than this 2-core machine: 8 workers, `MIRI_MAX_WORKERS` under Miri.
pub(crate) const OVERSUBSCRIBED: usize = if cfg!(miri) { MIRI_MAX_WORKERS } else { 8 };

/// The worker counts a test tries in turn: one, two, three, and oversubscribed (under Miri,
/// three is the largest).
pub(crate) const WORKER_COUNTS: &[usize] = if cfg!(miri) {
    &[1, 2, MIRI_MAX_WORKERS]
} else {
    &[1, 2, 3, 8, 16]
};

/// Heavier sizes natively; small ones under Miri, which is ~1000x slower.
pub(crate) const fn size(native: u64, miri: u64) -> u64 {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

/// A 2x2 matrix of wrapping u64: multiplication is associative but not commutative, so a
/// reduction that regroups is fine and one that reorders is caught.
pub(crate) type Mat = [u64; 4];
pub(crate) const ID: Mat = [1, 0, 0, 1];
pub(crate) fn mat(x: u64) -> Mat {
    [x | 1, x >> 7, x >> 13, 3]
}
pub(crate) fn mul(a: Mat, b: Mat) -> Mat {
    let m = |x: u64, y: u64| x.wrapping_mul(y);
    [
        m(a[0], b[0]).wrapping_add(m(a[1], b[2])),
        m(a[0], b[1]).wrapping_add(m(a[1], b[3])),
        m(a[2], b[0]).wrapping_add(m(a[3], b[2])),
        m(a[2], b[1]).wrapping_add(m(a[3], b[3])),
    ]
}

// ---------------------------------------------------------------------------------------
// Work
// ---------------------------------------------------------------------------------------

/// Fibonacci by `join`, in whatever pool the caller is in (the global pool outside one).
pub(crate) fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Fibonacci, sequentially.
pub(crate) fn fib_exact(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

// ---------------------------------------------------------------------------------------
// Panics and waiting
// ---------------------------------------------------------------------------------------

/// A panic payload's message.
pub(crate) fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(not a string)".into()
    }
}

/// The message of the panic `f` raises (it must raise one).
pub(crate) fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    message(&*payload)
}

/// How long a test waits for something the code must bring about before it fails: a
/// bound that only a hang reaches, never a claim about speed.
pub(crate) const PATIENCE: Duration = Duration::from_secs(60);

/// Polls `cond` until it holds; fails the test after `PATIENCE` instead of hanging it (on a
/// lost wake-up, say).
#[track_caller]
pub(crate) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Gives the workers of a pool that has done nothing for a while time to park, so that
/// the next call exercises the paths of a parked pool. Only a chance: on a loaded machine
/// they may not have parked yet, so no test may assert that they have (see
/// `until_on_the_caller` in `entry.rs` for a test that needs it).
pub(crate) fn settle() {
    std::thread::sleep(Duration::from_millis(20));
}

// ---------------------------------------------------------------------------------------
// A dropped pool's threads
// ---------------------------------------------------------------------------------------

/// Counts a pool's exit handlers, to wait for its threads after the drop: dropping a pool
/// returns at once (as rayon's does), and its threads end on their own once they have run
/// the queued work, each running its exit handler last.
#[derive(Clone, Default)]
pub(crate) struct Exits(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Exits {
    /// A builder of `threads` workers whose exit handler counts here.
    pub(crate) fn builder(&self, threads: usize) -> forkjoin::PoolBuilder {
        let count = self.clone();
        Pool::builder().threads(threads).exit_handler(move |_| {
            count.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
    }

    /// Exit handlers run so far.
    pub(crate) fn count(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits (at most `PATIENCE`) until `n` exit handlers have run.
    #[track_caller]
    pub(crate) fn wait_for(&self, n: usize) {
        wait_for("the workers' exit handlers", || self.count() >= n);
        assert_eq!(self.count(), n, "each worker exits once");
    }
}
