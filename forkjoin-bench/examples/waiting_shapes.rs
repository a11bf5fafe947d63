//! Loop shapes in which a waiting worker has nothing of its own to run: forkjoin, whose
//! waiters run only what descends from what they wait for, against rayon, whose waiters steal
//! anything (DESIGN.md, section 5). The same code on both, in one process, answers compared;
//! each time is the best of 5 runs, forkjoin measured before and after rayon and its best
//! kept; the ratio is forkjoin's time over rayon's.
//!
//! ```text
//! cargo run --release -p forkjoin-bench --example waiting_shapes -- [WORKERS]
//! ```

use std::hint::black_box;
use std::time::Instant;

/// `n` steps of a dependent multiply-add: work the optimiser cannot remove.
fn spin(n: u64) -> u64 {
    let mut x = n;
    for i in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// The shapes, written once against either runtime's rayon-compatible API.
macro_rules! shapes {
    ($name:ident, $rt:ident) => {
        mod $name {
            use super::spin;
            use $rt::prelude::*;

            /// Each iteration of a parallel loop joins a short and a long branch: the short
            /// one's worker waits while the long one runs elsewhere.
            pub(crate) fn lopsided(n: u64) -> u64 {
                (0..n)
                    .into_par_iter()
                    .map(|i| {
                        let (a, b) = $rt::join(|| spin(1_000 + i), || spin(200_000 + i));
                        a ^ b
                    })
                    .reduce(|| 0, |a, b| a ^ b)
            }

            /// Inner parallel loops of very different lengths (one in 8 is 100 times longer).
            pub(crate) fn ragged(n: u64) -> u64 {
                (0..n)
                    .into_par_iter()
                    .map(|i| {
                        let len = if i % 8 == 0 { 4_000 } else { 40 };
                        (0..len)
                            .into_par_iter()
                            .map(|j| spin(500 + j))
                            .reduce(|| 0, |a, b| a ^ b)
                    })
                    .reduce(|| 0, |a, b| a ^ b)
            }

            /// A skewed tree: every node joins a light leaf with two heavier subtrees.
            pub(crate) fn skewed(depth: u64) -> u64 {
                if depth == 0 {
                    return spin(20_000);
                }
                let (a, b) = $rt::join(
                    || spin(2_000 * depth),
                    || skewed(depth - 1) ^ skewed(depth / 2),
                );
                a ^ b
            }

            /// Tasks spawned in a scope, each joining a short and a long half.
            pub(crate) fn scoped(n: u64) -> u64 {
                use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
                let out: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
                $rt::scope(|s| {
                    for (i, o) in (0u64..).zip(&out) {
                        s.spawn(move |_| {
                            let (a, b) = $rt::join(|| spin(2_000), || spin(100_000 + i));
                            o.store(a ^ b, Relaxed);
                        });
                    }
                });
                out.iter().fold(0, |a, o| a ^ o.load(Relaxed))
            }

            /// Jobs submitted from outside the pool, each joining a short and a long half:
            /// the short half's worker waits while other submitted jobs are queued.
            pub(crate) fn submitted(pool: &$rt::ThreadPool, n: u64) -> u64 {
                let (tx, rx) = std::sync::mpsc::channel();
                for i in 0..n {
                    let tx = tx.clone();
                    pool.spawn(move || {
                        let (a, b) = $rt::join(|| spin(2_000), || spin(100_000 + i));
                        tx.send(a ^ b)
                            .expect("the receiver lives until all are sent");
                    });
                }
                drop(tx);
                rx.iter().fold(0, |a, b| a ^ b)
            }
        }
    };
}
shapes!(on_forkjoin, forkjoin);
shapes!(on_rayon, rayon);

/// The best of 5 runs of `f`, in milliseconds, and its answer.
fn best_ms(f: &dyn Fn() -> u64) -> (f64, u64) {
    let mut best = f64::MAX;
    let mut answer = 0;
    for _ in 0..5 {
        let t = Instant::now();
        answer = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, answer)
}

fn main() {
    let workers: usize = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 2,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("waiting_shapes: WORKERS must be a positive number");
            std::process::exit(2);
        }
    };
    let fj = forkjoin::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("a forkjoin pool starts");
    let ry = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("a rayon pool starts");
    type Shape<'a> = (
        &'a str,
        Box<dyn Fn() -> u64 + 'a>,
        Box<dyn Fn() -> u64 + 'a>,
    );
    let shapes: [Shape; 5] = [
        (
            "lopsided",
            Box::new(|| fj.install(|| on_forkjoin::lopsided(64))),
            Box::new(|| ry.install(|| on_rayon::lopsided(64))),
        ),
        (
            "ragged",
            Box::new(|| fj.install(|| on_forkjoin::ragged(64))),
            Box::new(|| ry.install(|| on_rayon::ragged(64))),
        ),
        (
            "skewed",
            Box::new(|| fj.install(|| on_forkjoin::skewed(14))),
            Box::new(|| ry.install(|| on_rayon::skewed(14))),
        ),
        (
            "scoped",
            Box::new(|| fj.install(|| on_forkjoin::scoped(64))),
            Box::new(|| ry.install(|| on_rayon::scoped(64))),
        ),
        (
            "submitted",
            Box::new(|| on_forkjoin::submitted(&fj, 64)),
            Box::new(|| on_rayon::submitted(&ry, 64)),
        ),
    ];
    println!("{workers} workers: best of 5, ms");
    for (name, on_fj, on_ry) in &shapes {
        let (before, answer) = best_ms(on_fj);
        let (rayon, expected) = best_ms(on_ry);
        let (after, again) = best_ms(on_fj);
        assert_eq!(
            (answer, again),
            (expected, expected),
            "{name}: the answers differ"
        );
        let forkjoin = before.min(after);
        println!(
            "{name:10} forkjoin {forkjoin:8.2}  rayon {rayon:8.2}  forkjoin/rayon {:.2}",
            forkjoin / rayon
        );
    }
}
