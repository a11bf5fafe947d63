//! Coarse work and waits the pool cannot see, on forkjoin and on rayon in one run: what a
//! program of a few long or blocking items costs (DESIGN.md, section 4, "Claimed from a
//! stalled worker", and section 8, "The first item split off").
//!
//! `cargo run --release -p forkjoin --example coarse [-- ROUNDS]` (3 rounds by default), or
//! `-- --blocked RUNS` for the blocked halves only, RUNS times per worker count and depth,
//! each answer checked.
//!
//! 1. `(0..4).into_par_iter().for_each(item)` with items sleeping 150 ms, at 2, 4, 8 threads;
//! 2. the same items through `v.par_iter().map(item).collect()`;
//! 3. 8 leaves of 150 ms under three levels of `join`;
//! 4. P items of 50 ms of CPU on P threads;
//! 5. a join whose first half blocks in `recv` on its second half (or waits in another
//!    pool's `install` for it), below `depth` joins, as one item of a loop whose other items
//!    spin 3 ms (ms per run).

use std::sync::mpsc;
use std::time::{Duration, Instant};

macro_rules! programs {
    ($name:ident, $rt:ident) => {
        mod $name {
            use super::*;
            use $rt as rt;
            use $rt::prelude::*;

            fn item() {
                std::thread::sleep(Duration::from_millis(150));
            }

            fn leaves(depth: u32) {
                if depth == 0 {
                    return item();
                }
                rt::join(|| leaves(depth - 1), || leaves(depth - 1));
            }

            /// Milliseconds of one run of `program` on a pool of `threads`.
            pub(crate) fn time(program: &str, threads: usize) -> f64 {
                let pool = rt::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| rt::join(|| (), || ()));
                let start = Instant::now();
                match program {
                    "loop" => pool.install(|| (0..4).into_par_iter().for_each(|_| item())),
                    "collect" => {
                        let v: Vec<u32> = (0..4).collect();
                        let got: Vec<u32> = pool.install(|| {
                            v.par_iter()
                                .map(|&x| {
                                    item();
                                    x
                                })
                                .collect()
                        });
                        assert_eq!(got, v);
                    }
                    "joins" => pool.install(|| leaves(3)),
                    "cpu" => pool.install(|| {
                        (0..threads).into_par_iter().for_each(|_| spin(50));
                    }),
                    _ => unreachable!(),
                }
                start.elapsed().as_secs_f64() * 1e3
            }

            fn nest(depth: usize, handoff: &(dyn Fn(u64) -> u64 + Sync)) -> u64 {
                if depth > 0 {
                    return rt::join(|| nest(depth - 1, handoff), || ()).0;
                }
                handoff(20)
            }

            fn channels(v: u64) -> u64 {
                let (to_b, from_a) = mpsc::sync_channel::<u64>(0);
                let (to_a, from_b) = mpsc::sync_channel::<u64>(0);
                rt::join(
                    move || {
                        to_b.send(v).unwrap();
                        from_b.recv().unwrap()
                    },
                    move || to_a.send(from_a.recv().unwrap() * 2 + 2).unwrap(),
                )
                .0
            }

            /// Milliseconds per run of the blocked halves, `runs` runs, every answer checked.
            pub(crate) fn blocked(
                other_pool: bool,
                threads: usize,
                depth: usize,
                runs: usize,
            ) -> f64 {
                let other = rt::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
                let other = &other;
                let through_other = move |v: u64| {
                    let (tx, rx) = mpsc::channel::<u64>();
                    let recv = move || other.install(move || rx.recv().unwrap());
                    rt::join(recv, move || tx.send(v + 1).unwrap()).0
                };
                let handoff: &(dyn Fn(u64) -> u64 + Sync) = if other_pool {
                    &through_other
                } else {
                    &channels
                };
                let pool = rt::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let start = Instant::now();
                for _ in 0..runs {
                    let items = 2 * threads;
                    let got: u64 = pool.install(|| {
                        (0..items)
                            .into_par_iter()
                            .map(|i| {
                                if i == items / 2 {
                                    nest(depth, handoff)
                                } else {
                                    spin(3);
                                    0
                                }
                            })
                            .sum()
                    });
                    assert_eq!(got, if other_pool { 21 } else { 42 });
                }
                start.elapsed().as_secs_f64() * 1e3 / runs as f64
            }
        }
    };
}

programs!(on_forkjoin, forkjoin);
programs!(on_rayon, rayon);

/// Works `ms` milliseconds of CPU.
fn spin(ms: u64) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(ms) {
        std::hint::spin_loop();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--blocked") {
        let runs = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
        println!("the blocked halves, {runs} runs per cell, ms per run (forkjoin / rayon)");
        for other_pool in [false, true] {
            let kind = if other_pool {
                "another pool"
            } else {
                "channels"
            };
            for threads in [1, 2, 4, 8, 16] {
                if threads == 1 && !other_pool {
                    continue; // rayon needs two workers for the channels
                }
                for depth in [0, 1, 4] {
                    let fj = on_forkjoin::blocked(other_pool, threads, depth, runs);
                    let ry = on_rayon::blocked(other_pool, threads, depth, runs);
                    println!("{kind:>13} {threads:>2} workers, depth {depth}: {fj:7.2} / {ry:7.2}");
                }
            }
        }
        return;
    }
    let rounds: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(3);
    println!("coarse work, ms per run, {rounds} rounds interleaved (forkjoin / rayon)");
    for program in ["loop", "collect", "joins", "cpu"] {
        for threads in [2, 4, 8] {
            let mut cells = Vec::new();
            for _ in 0..rounds {
                cells.push(format!(
                    "{:.1}/{:.1}",
                    on_forkjoin::time(program, threads),
                    on_rayon::time(program, threads)
                ));
            }
            println!("{program:>8} {threads} threads: {}", cells.join("  "));
        }
    }
}
