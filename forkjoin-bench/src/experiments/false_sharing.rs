//! `false-sharing` ("Multithreaded multicore optimisation"): two counters on one cache line
//! against on separate lines.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use super::cells::{Adjacent, Padded, Pair};
use super::timing::{side_by_side, time_pair};
use super::{interleaved, ms, Outcome, Plan};
use crate::suite::kbest::Sample;

const FALSE_SHARING_CLAIM: &str =
    "two threads each incrementing its own counter run faster when the counters \
     sit on separate cache lines than when they share one (held if padded is at least 1.3x faster)";

/// Adds 1 to `counter` `n` times.
fn count(counter: &AtomicU64, n: u64) {
    for _ in 0..n {
        // Relaxed: the counter has one writer and is read only after the thread is joined,
        // and the join is the happens-before edge for that read. The atomic read-modify-write
        // is there so the compiler cannot fold the loop into one add; like 003's `a += sum`,
        // every increment writes the line.
        counter.fetch_add(1, Relaxed);
    }
}

/// Two threads count to `n` each on the cells of a `P`; checks both counts.
fn count_pair<P: Pair>(n: u64) -> Result<Sample, String> {
    let cells = P::default();
    let (sample, (), ()) = time_pair(|| count(cells.first(), n), || count(cells.second(), n));
    // Relaxed: the scope's joins ordered both threads' increments before these loads.
    let (a, b) = (cells.first().load(Relaxed), cells.second().load(Relaxed));
    if (a, b) != (n, n) {
        return Err(format!(
            "false-sharing: counters ended at {a} and {b}, expected {n} each"
        ));
    }
    Ok(sample)
}

pub(super) fn run(plan: &Plan) -> Result<Outcome, String> {
    let n = plan.counter_increments;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| count_pair::<Adjacent>(n)),
            Box::new(|| count_pair::<Padded>(n)),
        ],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "false-sharing",
        claim: FALSE_SHARING_CLAIM,
        source: "Multicore",
        measured: format!(
            "2 threads x {n} atomic increments: adjacent (one 64-byte line) {}, \
             padded (128 bytes apart) {}: padded {ratio:.2}x faster{}",
            ms(t[0].secs),
            ms(t[1].secs),
            side_by_side(&t, &[true, true])
        ),
        ratio,
        held: ratio >= 1.3,
    })
}
