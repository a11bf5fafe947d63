//! What a deterministic answer costs: a float sum over 10^7 items and 20,000 sixteen-item
//! sums inside a sequential loop, plain, `deterministic()` and `exact_sum`, at 1 and 2
//! workers. The variants take turns round by round; each figure is the mean of a variant's
//! 3 fastest rounds of 11 (the K-best method). Build it as users do:
//!
//! ```text
//! RUSTFLAGS="" cargo run --profile user --target-dir target/user -p forkjoin --example deterministic_cost
//! ```

use forkjoin::prelude::*;
use std::hint::black_box;
use std::time::Instant;

const ITEMS: usize = 10_000_000;
const SMALL_LOOPS: usize = 20_000;
const SMALL: usize = 16;
const ROUNDS: usize = 11;
const K: usize = 3;

type Variant<'a> = (&'static str, Box<dyn Fn() -> f64 + Sync + 'a>);

/// Each variant's K-best time in milliseconds, the variants taking turns.
fn k_best(pool: &forkjoin::Pool, variants: &[Variant<'_>]) -> Vec<f64> {
    let mut times = vec![Vec::new(); variants.len()];
    for _ in 0..ROUNDS {
        for (i, (_, run)) in variants.iter().enumerate() {
            let start = Instant::now();
            black_box(pool.install(run));
            times[i].push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[..K].iter().sum::<f64>() / K as f64
        })
        .collect()
}

fn report(what: &str, workers: usize, variants: &[Variant<'_>], times: &[f64]) {
    let line: Vec<String> = variants
        .iter()
        .zip(times)
        .map(|((name, _), t)| format!("{name} {t:.2} ms ({:.2}x)", t / times[0]))
        .collect();
    println!("{what}, {workers} workers: {}", line.join(", "));
}

fn main() {
    let xs: Vec<f64> = (0..ITEMS)
        .map(|i| (i as f64 * 0.618_033_988_7).fract() - 0.5)
        .collect();
    let xs = &xs;
    // The answers, checked once: the same bits at 1 and 2 workers, and the exact sum
    // within a rounding error per item of the plain one.
    let det = |w| {
        forkjoin::Pool::new(w)
            .unwrap()
            .install(|| xs.par_iter().deterministic().sum::<f64>())
    };
    assert_eq!(det(1).to_bits(), det(2).to_bits());
    let exact: f64 = xs.par_iter().exact_sum();
    assert!((exact - xs.iter().sum::<f64>()).abs() < 1e-6);

    for workers in [1, 2] {
        let pool = forkjoin::Pool::new(workers).unwrap();
        let big: [Variant; 3] = [
            ("plain", Box::new(move || xs.par_iter().sum())),
            (
                "deterministic",
                Box::new(move || xs.par_iter().deterministic().sum()),
            ),
            ("exact_sum", Box::new(move || xs.par_iter().exact_sum())),
        ];
        report("sum of 10^7 f64", workers, &big, &k_best(&pool, &big));

        let small = |sum: fn(&[f64]) -> f64| {
            move || {
                (0..SMALL_LOOPS)
                    .map(|i| sum(&xs[i * SMALL..(i + 1) * SMALL]))
                    .sum::<f64>()
            }
        };
        let tiny: [Variant; 3] = [
            ("plain", Box::new(small(|s| s.par_iter().sum()))),
            (
                "deterministic",
                Box::new(small(|s| s.par_iter().deterministic().sum())),
            ),
            ("exact_sum", Box::new(small(|s| s.par_iter().exact_sum()))),
        ];
        report(
            "20,000 sums of 16 f64",
            workers,
            &tiny,
            &k_best(&pool, &tiny),
        );
    }
}
