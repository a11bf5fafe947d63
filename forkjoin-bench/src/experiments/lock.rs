//! `lock` ("Multithreaded multicore optimisation"): one shared counter under a `Mutex` against
//! a counter each.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

use super::cells::{Padded, Pair};
use super::timing::{side_by_side, time_pair};
use super::{interleaved, ms, Outcome, Plan};
use crate::suite::kbest::Sample;

const LOCK_CLAIM: &str =
    "a lock around a counter shared by two threads serialises them: a counter each \
     with no lock is much faster (held if the no-lock version is at least 1.5x faster)";

/// Two threads each add 1 to one shared counter `n` times, taking the `Mutex` per increment.
fn locked(n: u64) -> Result<Sample, String> {
    let counter = Mutex::new(0u64);
    let work = || {
        for _ in 0..n {
            *counter.lock().expect("lock experiment: mutex poisoned") += 1;
        }
    };
    let (sample, (), ()) = time_pair(work, work);
    let total = counter
        .into_inner()
        .expect("lock experiment: mutex poisoned");
    if total != 2 * n {
        return Err(format!(
            "lock: the shared counter ended at {total}, expected {}",
            2 * n
        ));
    }
    Ok(sample)
}

/// Two threads each add 1 to its own counter `n` times, no lock; the counters are padded
/// apart so that false sharing (the other experiment) does not mix into this one.
fn unlocked(n: u64) -> Result<Sample, String> {
    let cells = Padded::default();
    let bump = |c: &AtomicU64| {
        for _ in 0..n {
            // Relaxed, and a plain load and store rather than a read-modify-write, as the
            // locked version's `+= 1` is: one writer, read after the join (the join is the
            // happens-before edge).
            c.store(c.load(Relaxed) + 1, Relaxed);
        }
    };
    let (sample, (), ()) = time_pair(|| bump(cells.first()), || bump(cells.second()));
    // Relaxed: ordered after both threads' stores by the scope's joins.
    let total = cells.first().load(Relaxed) + cells.second().load(Relaxed);
    if total != 2 * n {
        return Err(format!(
            "lock: the two counters sum to {total}, expected {}",
            2 * n
        ));
    }
    Ok(sample)
}

pub(super) fn run(plan: &Plan) -> Result<Outcome, String> {
    let n = plan.lock_increments;
    let t = interleaved(
        plan,
        &mut [Box::new(|| locked(n)), Box::new(|| unlocked(n))],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "lock",
        claim: LOCK_CLAIM,
        source: "Multicore",
        measured: format!(
            "2 threads x {n} increments: one shared counter, Mutex taken per increment {}; \
             a padded counter each, no lock {}: no-lock {ratio:.2}x faster{}; with the lock, \
             a thread that finds it taken sleeps, so near 1 of 2 there is the serialisation",
            ms(t[0].secs),
            ms(t[1].secs),
            side_by_side(&t, &[false, true])
        ),
        ratio,
        held: ratio >= 1.5,
    })
}
