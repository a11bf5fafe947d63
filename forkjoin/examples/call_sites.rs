//! The README's profiling walkthrough: a loop worth running in parallel, and the tiny-loop
//! pattern (a parallel loop of 16 items inside a sequential loop). Built with the `profile`
//! feature, `fj profile` shows each line's work, span and parallelism:
//!
//! ```text
//! cargo build --release -p forkjoin --features profile --example call_sites
//! fj profile -- target/release/examples/call_sites
//! ```
//!
//! Without `FORKJOIN_PROFILE` set (as `fj profile` sets it), it runs as any program. With the
//! argument `fixed`, the tiny loops are fixed as the profile suggests: the outer loop is the
//! parallel one, the 16 items of each sequential.

use forkjoin::prelude::*;

fn main() {
    let fixed = std::env::args().nth(1).as_deref() == Some("fixed");
    let v: Vec<f64> = (0..2_000_000).map(|i| i as f64).collect();
    // A loop worth running in parallel.
    let total: f64 = v.par_iter().map(|x| x.sqrt()).sum();
    let acc = if fixed {
        // The fix: one parallel loop of 20,000 items, each a sequential loop of 16.
        (0..20_000u64)
            .into_par_iter()
            .map(|i| (0..16u64).map(|k| (i * k) % 7).sum::<u64>())
            .sum::<u64>()
    } else {
        // The tiny-loop pattern: a parallel loop of 16 items inside a sequential loop.
        let mut acc = 0u64;
        for i in 0..20_000u64 {
            acc += (0..16u64).into_par_iter().map(|k| (i * k) % 7).sum::<u64>();
        }
        acc
    };
    assert_eq!(acc, 779_961);
    println!("{total:.0} {acc}");
}
