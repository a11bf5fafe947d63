//! Parallel regions ending in a barrier, as in Lea's Jacobi: 100 regions, each a `join`
//! tree over 32 leaves of pure computation (no memory traffic, so only scheduling shows),
//! on 2 workers, against rayon and the sequential code in the same run. What it measures
//! is how fast idle workers get work again when a region starts, and how much the
//! heartbeat costs the busy ones.
//!
//! `cargo run --release -p forkjoin --example regions [-- LEAF_ITERATIONS]` (default 100000,
//! about 110 us per leaf on the development machine).

use std::hint::black_box;
use std::time::Instant;

const REGIONS: usize = 100;
const LEAVES: usize = 32;
const RUNS: usize = 7;

fn leaf(iterations: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

/// One region over leaves `lo..hi`; `join` is `forkjoin::join`, `rayon::join` or two plain
/// calls.
macro_rules! region {
    ($name:ident, $join:path) => {
        fn $name(lo: usize, hi: usize, iterations: u64) -> u64 {
            if hi - lo == 1 {
                return leaf(iterations);
            }
            let mid = (lo + hi) / 2;
            let (a, b) = $join(|| $name(lo, mid, iterations), || $name(mid, hi, iterations));
            a ^ b
        }
    };
}

fn plain<A: FnOnce() -> u64, B: FnOnce() -> u64>(a: A, b: B) -> (u64, u64) {
    (a(), b())
}

region!(region_seq, plain);
region!(region_fj, forkjoin::join);
region!(region_rayon, rayon::join);

fn main() {
    let iterations: u64 = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 100_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("regions: LEAF_ITERATIONS must be a positive integer");
            std::process::exit(2);
        }
    };
    let fj = forkjoin::Pool::new(2).unwrap();
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let expected = region_seq(0, LEAVES, iterations);
    let time = |f: &dyn Fn() -> u64| {
        let start = Instant::now();
        for _ in 0..REGIONS {
            assert_eq!(black_box(f()), expected);
        }
        start.elapsed().as_secs_f64()
    };
    // Fastest of RUNS interleaved runs each.
    let mut best = [f64::MAX; 3];
    for _ in 0..RUNS {
        best[0] = best[0].min(time(&|| region_seq(0, LEAVES, black_box(iterations))));
        best[1] = best[1].min(fj.install(|| time(&|| region_fj(0, LEAVES, black_box(iterations)))));
        best[2] =
            best[2].min(rayon.install(|| time(&|| region_rayon(0, LEAVES, black_box(iterations)))));
    }
    println!(
        "{REGIONS} regions of {LEAVES} leaves, 2 workers (fastest of {RUNS} runs): sequential {:.1} ms, \
         forkjoin {:.1} ms ({:.2}x), rayon {:.1} ms ({:.2}x)",
        best[0] * 1e3,
        best[1] * 1e3,
        best[0] / best[1],
        best[2] * 1e3,
        best[0] / best[2]
    );
}
