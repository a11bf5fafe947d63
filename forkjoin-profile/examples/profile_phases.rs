//! Profiles a loop of 200 short parallel phases (512 leaves of about a microsecond each,
//! joined in a balanced tree) on one worker, the shape on which a strand the host preempts
//! skews a single profile most: each profile is the combination of five
//! (`Profile::combine`), as `fj profile` takes them. Prints each single profile's work and
//! span, and the combined one's; run it three times beside a CPU hog
//! (`yes > /dev/null &`) to see whether the combined figures agree (DESIGN.md, section 12).
//!
//! `cargo run --release -p forkjoin --features profile --example profile_phases`

use forkjoin_profile::{self as profile, Profile};
use std::hint::black_box;
use std::time::Duration;

const PHASES: usize = 200;
const LEAVES: usize = 512;
const PROFILES: usize = 5;

/// About a microsecond of arithmetic.
fn leaf(i: usize) -> u64 {
    let mut x = i as u64 | 1;
    for _ in 0..900 {
        x = black_box(
            x.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        );
    }
    x >> 60
}

/// A balanced join tree over the leaves `lo..hi`.
fn phase(lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return leaf(lo);
    }
    let mid = (lo + hi) / 2;
    let (a, b) = forkjoin::join(|| phase(lo, mid), || phase(mid, hi));
    a + b
}

fn phases() -> u64 {
    (0..PHASES).map(|_| phase(0, LEAVES)).sum()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let pool = forkjoin::Pool::new(1).expect("a pool of one worker");
    let expected: u64 = (0..LEAVES).map(leaf).sum::<u64>() * PHASES as u64;
    let t = std::time::Instant::now();
    let plain = pool.install(phases);
    println!("unprofiled run: {:.3} ms ({plain})", ms(t.elapsed()));
    let runs: Vec<Profile> = (0..PROFILES)
        .map(|_| {
            let (sum, p) = profile::run(&pool, phases);
            assert_eq!(sum, expected, "the phases' checksum");
            p
        })
        .collect();
    for (i, p) in runs.iter().enumerate() {
        println!(
            "profile {}: work {:8.3} ms  span {:7.3} ms",
            i + 1,
            ms(p.work()),
            ms(p.span())
        );
    }
    let c = Profile::combine(&runs);
    println!(
        "combined ({}): work {:8.3} ms  span {:7.3} ms",
        c.combined(),
        ms(c.work()),
        ms(c.span())
    );
}
