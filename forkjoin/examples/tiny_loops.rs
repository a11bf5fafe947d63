//! Sixteen-item parallel loops inside a sequential loop of 20,000, against the same loops
//! sequential, on forkjoin and rayon at 1 and 2 workers: what a loop too small to share
//! costs. Two item kinds: an `f64` sum (an item is one addition) and an integer hash of
//! about 2 ns an item. Each figure is the mean of the 3 fastest of 41 rounds, the variants
//! taking turns (the K-best method). Build it as users do:
//!
//! ```text
//! RUSTFLAGS="" cargo run --profile user --target-dir target/user -p forkjoin --example tiny_loops
//! ```

use std::hint::black_box;
use std::time::Instant;

const LOOPS: usize = 20_000;
const ITEMS: usize = 16;
const ROUNDS: usize = 41;
const K: usize = 3;

/// A variant's name and its run, which returns the checksum.
type Variant<'a, T> = (&'static str, Box<dyn Fn() -> T + 'a>);

#[inline(never)]
fn hash(i: usize, j: usize) -> u64 {
    let mut x = (i * ITEMS + j) as u64 ^ 0x9E37_79B9_7F4A_7C15;
    for _ in 0..4 {
        x = (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
    x
}

fn k_best(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[..K].iter().sum::<f64>() / K as f64
}

fn main() {
    let xs: Vec<f64> = (0..LOOPS * ITEMS)
        .map(|i| (i as f64 * 0.618).fract())
        .collect();
    let xs = &xs;
    let block = |i: usize| &xs[i * ITEMS..(i + 1) * ITEMS];
    let expected_sum: f64 = (0..LOOPS).map(|i| block(i).iter().sum::<f64>()).sum();
    let expected_hash: u64 = (0..LOOPS)
        .map(|i| (0..ITEMS).map(|j| hash(i, j)).sum::<u64>())
        .sum();
    for workers in [1, 2] {
        let fj = forkjoin::Pool::new(workers).unwrap();
        let ry = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let sums: [Variant<'_, f64>; 3] = [
            (
                "sequential",
                Box::new(|| fj.install(|| (0..LOOPS).map(|i| block(i).iter().sum::<f64>()).sum())),
            ),
            (
                "forkjoin",
                Box::new(|| {
                    use forkjoin::prelude::*;
                    fj.install(|| (0..LOOPS).map(|i| block(i).par_iter().sum::<f64>()).sum())
                }),
            ),
            (
                "rayon",
                Box::new(|| {
                    use rayon::prelude::*;
                    ry.install(|| (0..LOOPS).map(|i| block(i).par_iter().sum::<f64>()).sum())
                }),
            ),
        ];
        let hashes: [Variant<'_, u64>; 3] = [
            (
                "sequential",
                Box::new(|| {
                    fj.install(|| {
                        (0..LOOPS)
                            .map(|i| (0..ITEMS).map(|j| hash(i, j)).sum::<u64>())
                            .sum()
                    })
                }),
            ),
            (
                "forkjoin",
                Box::new(|| {
                    use forkjoin::prelude::*;
                    fj.install(|| {
                        (0..LOOPS)
                            .map(|i| (0..ITEMS).into_par_iter().map(|j| hash(i, j)).sum::<u64>())
                            .sum()
                    })
                }),
            ),
            (
                "rayon",
                Box::new(|| {
                    use rayon::prelude::*;
                    ry.install(|| {
                        (0..LOOPS)
                            .map(|i| (0..ITEMS).into_par_iter().map(|j| hash(i, j)).sum::<u64>())
                            .sum()
                    })
                }),
            ),
        ];
        let mut t = vec![Vec::new(); 6];
        for _ in 0..ROUNDS {
            for (k, (_, run)) in sums.iter().enumerate() {
                let start = Instant::now();
                let s = black_box(run());
                t[k].push(start.elapsed().as_secs_f64());
                // Split loops add in another order.
                assert!((s - expected_sum).abs() < 1e-6);
            }
            for (k, (_, run)) in hashes.iter().enumerate() {
                let start = Instant::now();
                let s = black_box(run());
                t[3 + k].push(start.elapsed().as_secs_f64());
                assert_eq!(s, expected_hash);
            }
        }
        let ns: Vec<f64> = t
            .into_iter()
            .map(|t| k_best(t) / LOOPS as f64 * 1e9)
            .collect();
        for (kind, at) in [("f64 sum", 0), ("2 ns hash", 3)] {
            println!(
                "{workers} workers, {kind}: ns a loop: sequential {:.1}, forkjoin {:.1} ({:.2}x), rayon {:.1} ({:.2}x)",
                ns[at],
                ns[at + 1],
                ns[at + 1] / ns[at],
                ns[at + 2],
                ns[at + 2] / ns[at]
            );
        }
    }
}
