//! `lazyset` ("lazySet: hidden pages of the JMM"): an SPSC ring buffer publishing its cursors
//! with SeqCst against release stores, each with adjacent against padded cursors (two
//! outcomes).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};

use super::cells::{Adjacent, Padded, Pair};
use super::timing::{side_by_side, time_pair};
use super::{interleaved, Outcome, Plan};
use crate::suite::kbest::Sample;

const LAZYSET_RELEASE_CLAIM: &str =
    "publishing a ring buffer's cursor with a release store (lazySet) is faster \
     than with a SeqCst (volatile) store, which needs a StoreLoad barrier (held if release is \
     at least 1.1x faster, padded cursors)";
const LAZYSET_PADDING_CLAIM: &str =
    "padding the producer's and the consumer's cursors onto separate cache lines \
     removes their false sharing and is faster (held if padded is at least 1.1x faster, \
     release stores)";

/// Slots of the ring buffer: a power of two, so a cursor maps to a slot with a mask.
const RING_SLOTS: u64 = 1024;

/// Spins before a waiting side yields its core: on a shared two-core machine the other side
/// may be descheduled, and spinning through its whole time slice would only delay it.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// The item the producer puts at position `i`: an odd multiplier makes it a bijection, so
/// equality with `item(i)` at the consumer's `i`-th read proves order and no loss.
fn item(i: u64) -> u64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Waits politely: a spin hint, then, after many, a yield.
fn backoff(spins: &mut u32) {
    *spins += 1;
    if *spins < SPINS_BEFORE_YIELD {
        std::hint::spin_loop();
    } else {
        *spins = 0;
        std::thread::yield_now();
    }
}

/// A single-producer single-consumer ring buffer passes `n` items from one thread to the
/// other. `first` of the `P` is the producer's cursor (items published), `second` the
/// consumer's (items consumed). Both sides store their cursor after every item, with a
/// SeqCst store when `SEQCST`, else a release store (Java's `lazySet`). Returns the time
/// taken, or an error if an item arrived out of order or the consumer's wrapping sum of the
/// items is wrong.
fn ring_transfer<P: Pair, const SEQCST: bool>(n: u64) -> Result<Sample, String> {
    let slots: Box<[AtomicU64]> = (0..RING_SLOTS).map(|_| AtomicU64::new(0)).collect();
    let mask = RING_SLOTS - 1;
    let publish = if SEQCST { SeqCst } else { Release };
    let cursors = P::default();
    let (published, consumed) = (cursors.first(), cursors.second());

    let producer = || {
        // The first position the producer may not write yet: the consumer's cursor (as last
        // read) plus the ring size. Reading the consumer's cursor only when this is reached
        // keeps the producer off the consumer's line while there is room.
        let mut limit = RING_SLOTS;
        let mut spins = 0;
        for i in 0..n {
            while i >= limit {
                // Acquire: pairs with the consumer's (release or SeqCst) store of its cursor,
                // so its reads of the slots below the cursor happen before we overwrite them.
                limit = consumed.load(Acquire) + RING_SLOTS;
                if i >= limit {
                    backoff(&mut spins);
                }
            }
            // Relaxed: the slot is published by the cursor store below, whose release
            // half orders this store before it.
            slots[(i & mask) as usize].store(item(i), Relaxed);
            // SeqCst or Release, the variable under test. Either way its release half is
            // what the consumer's Acquire load synchronises with (the edge that makes the
            // slot visible); SeqCst adds the StoreLoad barrier that 004 says is not needed.
            published.store(i + 1, publish);
        }
    };

    let consumer = || {
        let (mut read, mut available, mut sum, mut spins) = (0u64, 0u64, 0u64, 0u32);
        let mut first_wrong = None;
        while read < n {
            if read == available {
                // Acquire: pairs with the producer's cursor store, so the slots below the
                // cursor are read after (happen after) the producer wrote them.
                available = published.load(Acquire);
                if read == available {
                    backoff(&mut spins);
                    continue;
                }
            }
            // Relaxed: made visible by the Acquire load of the producer's cursor above.
            let v = slots[(read & mask) as usize].load(Relaxed);
            if v != item(read) && first_wrong.is_none() {
                first_wrong = Some((read, v));
            }
            sum = sum.wrapping_add(v);
            read += 1;
            // SeqCst or Release as above: its release half orders the slot read before the
            // producer's Acquire load of this cursor, so the slot is not overwritten early.
            consumed.store(read, publish);
        }
        (sum, first_wrong)
    };

    let (sample, (), (sum, first_wrong)) = time_pair(producer, consumer);
    let variant = format!(
        "{}, {}",
        if SEQCST { "SeqCst" } else { "release" },
        P::LAYOUT
    );
    if let Some((i, v)) = first_wrong {
        return Err(format!(
            "lazyset ({variant}): item {i} arrived as {v:#x}, expected {:#x}",
            item(i)
        ));
    }
    let expected = (0..n).fold(0u64, |s, i| s.wrapping_add(item(i)));
    if sum != expected {
        return Err(format!(
            "lazyset ({variant}): checksum {sum:#x}, expected {expected:#x}"
        ));
    }
    Ok(sample)
}

pub(super) fn run(plan: &Plan) -> Result<Vec<Outcome>, String> {
    let n = plan.ring_items;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| ring_transfer::<Adjacent, true>(n)),
            Box::new(|| ring_transfer::<Adjacent, false>(n)),
            Box::new(|| ring_transfer::<Padded, true>(n)),
            Box::new(|| ring_transfer::<Padded, false>(n)),
        ],
    )?;
    // Throughput in items per microsecond: K-best, and of the slowest run.
    let rate = |secs: f64| n as f64 / (secs * 1e6);
    let [seq_adj, rel_adj, seq_pad, rel_pad] = [0, 1, 2, 3].map(|i| rate(t[i].secs));
    let figures: Vec<String> = [
        "SeqCst adjacent",
        "release adjacent",
        "SeqCst padded",
        "release padded",
    ]
    .iter()
    .zip(&t)
    .map(|(v, b)| {
        format!(
            "{v} {:.1} (slowest run {:.1})",
            rate(b.secs),
            rate(b.slowest)
        )
    })
    .collect();
    let table = format!(
        "{n} items through {RING_SLOTS} slots, items/us: {}{}",
        figures.join(", "),
        side_by_side(&t, &[true; 4])
    );
    let release = rel_pad / seq_pad;
    let padding = rel_pad / rel_adj;
    Ok(vec![
        Outcome {
            name: "lazyset",
            claim: LAZYSET_RELEASE_CLAIM,
            source: "lazySet",
            measured: format!(
                "{table}: release/SeqCst {release:.2}x padded ({:.2}x adjacent)",
                rel_adj / seq_adj
            ),
            ratio: release,
            held: release >= 1.1,
        },
        Outcome {
            name: "lazyset",
            claim: LAZYSET_PADDING_CLAIM,
            source: "lazySet",
            measured: format!(
                "{table}: padded/adjacent {padding:.2}x with release ({:.2}x with SeqCst)",
                seq_pad / seq_adj
            ),
            ratio: padding,
            held: padding >= 1.1,
        },
    ])
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_buffer_delivers_every_item_in_order_in_all_variants() {
        // More items than slots many times over, so the ring wraps and both sides wait.
        let n = 50 * RING_SLOTS + 7;
        for result in [
            ring_transfer::<Adjacent, true>(n),
            ring_transfer::<Adjacent, false>(n),
            ring_transfer::<Padded, true>(n),
            ring_transfer::<Padded, false>(n),
        ] {
            let sample = result.unwrap();
            assert!(sample.seconds.is_finite() && sample.seconds > 0.0);
        }
    }
}
