//! `deterministic()` and `exact_sum`: answers that depend on the input alone. Each
//! deterministic answer is compared bit for bit with the documented fold computed
//! sequentially (blocks of consecutive positions, combined in the fixed tree), at 1, 2, 3,
//! 4, 8, 16 and 64 workers (oversubscribed), a hundred runs each, and after a panic; each
//! exact sum with the correctly rounded sum of values whose exact sum an `i128` holds.

use crate::common::{random, splitmix64};
use forkjoin::iter::{default_block_len, ExactSum};
use forkjoin::prelude::*;
use forkjoin::Pool;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};

const WORKERS: [usize; 7] = [1, 2, 3, 4, 8, 16, 64];
const RUNS: usize = 100;

/// The documented fold: `leaf` of each block of `block` positions, combined by `combine`
/// in the tree whose left child holds the first half of a node's blocks (rounded down).
fn tree<T>(
    range: Range<usize>,
    block: usize,
    leaf: &dyn Fn(Range<usize>) -> T,
    combine: &dyn Fn(T, T) -> T,
) -> T {
    let n = range.len();
    if n <= block {
        return leaf(range);
    }
    let mid = range.start + n.div_ceil(block) / 2 * block;
    let l = tree(range.start..mid, block, leaf, combine);
    let r = tree(mid..range.end, block, leaf, combine);
    combine(l, r)
}

/// Floats of mixed signs over 16 binary orders of magnitude: every grouping of their sum
/// rounds differently.
fn floats(n: usize, seed: u64) -> Vec<f64> {
    random(n, seed)
        .iter()
        .map(|&x| (x as f64 / u64::MAX as f64 - 0.5) * 2f64.powi((x % 16) as i32 - 8))
        .collect()
}

/// Keys with ties compared by their first field; the second is the position.
fn by_key(a: &&(u8, usize), b: &&(u8, usize)) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
}

/// A found key and its position as bits.
fn key_bits(m: Option<&(u8, usize)>) -> Vec<u64> {
    m.map_or(vec![], |&(k, i)| vec![k as u64, i as u64])
}

type Acc = [f64; 6];

/// A 48-byte accumulator whose fold does not commute with regrouping.
fn step(mut acc: Acc, x: f64) -> Acc {
    for (k, a) in acc.iter_mut().enumerate() {
        *a = *a * 0.999 + x * (k + 1) as f64;
    }
    acc
}

fn add(a: Acc, b: Acc) -> Acc {
    std::array::from_fn(|k| a[k] + b[k])
}

/// Each case's answer as bits, from the parallel code and from the documented fold.
struct Case {
    name: &'static str,
    parallel: Box<dyn Fn() -> Vec<u64> + Sync>,
    expected: Vec<u64>,
}

fn cases(n: usize) -> Vec<Case> {
    let xs: &'static [f64] = floats(n, 7).leak();
    let ys: &'static [f64] = floats(n, 8).leak();
    let b = default_block_len(n);
    let sum_of = |f: &dyn Fn(Range<usize>) -> f64| tree(0..n, b, f, &|l, r| l + r).to_bits();
    let one = |x: f64| vec![x.to_bits()];
    // Keys with many ties: the first of the equal minima, by position.
    let keys: &'static [(u8, usize)] = xs
        .iter()
        .enumerate()
        .map(|(i, x)| ((x.abs() * 4.0) as u8, i))
        .collect::<Vec<_>>()
        .leak();
    let chunk = 7;
    let chunks = n.div_ceil(chunk);
    // As every fold, one accumulator for an empty input.
    let folds = |block: usize| {
        let mut out = Vec::new();
        if n == 0 {
            out.push(0f64.to_bits());
        }
        let mut at = 0;
        while at < n {
            let end = (at + block).min(n);
            out.push(xs[at..end].iter().fold(0.0, |a, x| a + x * x).to_bits());
            at = end;
        }
        out
    };
    vec![
        Case {
            name: "range map sum",
            parallel: Box::new(move || {
                one((0..n).into_par_iter().deterministic().map(|i| xs[i]).sum())
            }),
            expected: vec![sum_of(&move |r| xs[r].iter().sum())],
        },
        Case {
            name: "slice sum",
            parallel: Box::new(move || one(xs.par_iter().deterministic().sum())),
            expected: vec![sum_of(&move |r| xs[r].iter().sum())],
        },
        Case {
            name: "Vec sum",
            parallel: Box::new(move || one(xs.to_vec().into_par_iter().deterministic().sum())),
            expected: vec![sum_of(&move |r| xs[r].iter().sum())],
        },
        Case {
            name: "zip map sum",
            parallel: Box::new(move || {
                one(xs
                    .par_iter()
                    .zip(ys)
                    .deterministic()
                    .map(|(x, y)| x * y)
                    .sum())
            }),
            expected: vec![sum_of(&move |r| {
                xs[r.clone()].iter().zip(&ys[r]).map(|(x, y)| x * y).sum()
            })],
        },
        Case {
            name: "chunks sum",
            parallel: Box::new(move || {
                one(xs
                    .par_chunks(chunk)
                    .deterministic()
                    .map(|c| c.iter().sum::<f64>())
                    .sum())
            }),
            expected: vec![tree(
                0..chunks,
                default_block_len(chunks),
                &move |r| {
                    xs.chunks(chunk)
                        .skip(r.start)
                        .take(r.len())
                        .map(|c| c.iter().sum::<f64>())
                        .sum()
                },
                &|l: f64, r| l + r,
            )
            .to_bits()],
        },
        Case {
            name: "filter sum",
            parallel: Box::new(move || {
                one(xs.par_iter().deterministic().filter(|x| **x > -0.1).sum())
            }),
            expected: vec![sum_of(&move |r| xs[r].iter().filter(|x| **x > -0.1).sum())],
        },
        Case {
            name: "flat_map_iter sum",
            parallel: Box::new(move || {
                one(xs
                    .par_iter()
                    .deterministic()
                    .flat_map_iter(|x| [*x, x * 0.3])
                    .sum())
            }),
            expected: vec![sum_of(&move |r| {
                xs[r].iter().flat_map(|x| [*x, x * 0.3]).sum()
            })],
        },
        Case {
            name: "product",
            parallel: Box::new(move || {
                one(xs
                    .par_iter()
                    .deterministic()
                    .map(|x| 1.0 + x * 1e-3)
                    .product())
            }),
            expected: vec![tree(
                0..n,
                b,
                &move |r| xs[r].iter().map(|x| 1.0 + x * 1e-3).product(),
                &|l: f64, r| l * r,
            )
            .to_bits()],
        },
        Case {
            name: "48-byte fold + reduce",
            parallel: Box::new(move || {
                xs.par_iter()
                    .deterministic()
                    .map(|x| x.abs())
                    .fold(|| [0.0; 6], step)
                    .reduce(|| [0.0; 6], add)
                    .map(f64::to_bits)
                    .to_vec()
            }),
            expected: tree(
                0..n,
                b,
                &move |r| xs[r].iter().map(|x| x.abs()).fold([0.0; 6], step),
                &add,
            )
            .map(f64::to_bits)
            .to_vec(),
        },
        Case {
            name: "min_by with ties",
            parallel: Box::new(move || key_bits(keys.par_iter().deterministic().min_by(by_key))),
            expected: key_bits(keys.iter().min_by(by_key)),
        },
        Case {
            name: "max_by with ties",
            parallel: Box::new(move || key_bits(keys.par_iter().deterministic().max_by(by_key))),
            // As std's: the last of the equal maxima, by position.
            expected: key_bits(keys.iter().max_by(by_key)),
        },
        Case {
            name: "reduce_with",
            parallel: Box::new(move || {
                let r = xs
                    .par_iter()
                    .deterministic()
                    .map(|x| x * 0.7)
                    .reduce_with(|a, b| a + b);
                r.map_or(vec![], |x| vec![x.to_bits()])
            }),
            expected: tree(
                0..n,
                b,
                &move |r| xs[r].iter().map(|x| x * 0.7).reduce(|a, b| a + b),
                &|l: Option<f64>, r| match (l, r) {
                    (Some(l), Some(r)) => Some(l + r),
                    (l, r) => l.or(r),
                },
            )
            .map_or(vec![], |x| vec![x.to_bits()]),
        },
        Case {
            name: "collect of folds",
            parallel: Box::new(move || {
                xs.par_iter()
                    .deterministic_blocks(300)
                    .fold(|| 0.0, |a, x| a + x * x)
                    .map(f64::to_bits)
                    .collect()
            }),
            expected: folds(300),
        },
        Case {
            name: "unzip of folds",
            parallel: Box::new(move || {
                let (sums, counts): (Vec<u64>, Vec<usize>) = xs
                    .par_iter()
                    .deterministic_blocks(250)
                    .fold(|| (0.0, 0), |(a, c), x| (a + x * x, c + 1))
                    .map(|(a, c): (f64, usize)| (a.to_bits(), c))
                    .unzip();
                assert_eq!(counts.iter().sum::<usize>(), n);
                sums
            }),
            expected: folds(250),
        },
        Case {
            name: "partition of folds",
            parallel: Box::new(move || {
                let (small, large): (Vec<u64>, Vec<u64>) = xs
                    .par_iter()
                    .deterministic_blocks(250)
                    .fold(|| 0.0, |a, x| a + x * x)
                    .map(f64::to_bits)
                    .partition(|&s| f64::from_bits(s) < 0.5);
                [small, vec![u64::MAX], large].concat()
            }),
            expected: {
                let (small, large): (Vec<u64>, Vec<u64>) = folds(250)
                    .into_iter()
                    .partition(|&s| f64::from_bits(s) < 0.5);
                [small, vec![u64::MAX], large].concat()
            },
        },
    ]
}

/// Every case gives the documented answer at every worker count, a hundred times, and the
/// same after a panic in the middle of a deterministic loop was caught.
#[test]
fn deterministic_answers_are_the_documented_fold_at_every_worker_count() {
    for n in [0, 1, 17, 1_000, 20_000] {
        let cases = cases(n);
        for workers in WORKERS {
            let pool = Pool::new(workers).unwrap();
            pool.install(|| {
                for run in 0..RUNS {
                    for case in &cases {
                        assert_eq!(
                            (case.parallel)(),
                            case.expected,
                            "{}, n = {n}, {workers} workers, run {run}",
                            case.name
                        );
                    }
                }
                let xs = floats(n, 7);
                let panicked = catch_unwind(AssertUnwindSafe(|| {
                    xs.par_iter()
                        .deterministic()
                        .map(|x| {
                            if *x > 0.49 {
                                panic!("an item panics")
                            } else {
                                *x
                            }
                        })
                        .sum::<f64>()
                }));
                assert_eq!(panicked.is_err(), xs.iter().any(|x| *x > 0.49));
                for case in &cases {
                    assert_eq!(
                        (case.parallel)(),
                        case.expected,
                        "{} after a panic",
                        case.name
                    );
                }
            });
        }
        // And outside any pool.
        for case in &cases {
            assert_eq!(
                (case.parallel)(),
                case.expected,
                "{}, n = {n}, outside",
                case.name
            );
        }
    }
}

/// On generated lengths and block lengths, `deterministic_blocks` gives the documented sum.
#[test]
fn any_block_length_gives_the_documented_sum() {
    let pools = [2, 8].map(|w| Pool::new(w).unwrap());
    let mut seed = 11;
    for _ in 0..200 {
        let n = (splitmix64(&mut seed) % 5_000) as usize;
        let block = 1 + (splitmix64(&mut seed) % 300) as usize;
        let xs = floats(n, seed);
        let expected = tree(0..n, block, &|r| xs[r].iter().sum::<f64>(), &|l, r| l + r);
        for pool in &pools {
            let got: f64 = pool.install(|| xs.par_iter().deterministic_blocks(block).sum());
            assert_eq!(got.to_bits(), expected.to_bits(), "n = {n}, block {block}");
        }
    }
}

/// `m * 2^-scale` for random `m` below `2^bits`, with the exact sum of the `m` as an
/// `i128`.
fn fixed_point(n: usize, seed: u64, bits: u32) -> (Vec<i64>, i128) {
    let ms: Vec<i64> = random(n, seed)
        .iter()
        .map(|&x| (x >> (64 - bits)) as i64 * if x & 1 == 1 { -1 } else { 1 })
        .collect();
    let sum = ms.iter().map(|&m| m as i128).sum();
    (ms, sum)
}

/// The exact sum is the correctly rounded one (an integer cast rounds to nearest, ties to
/// even), in any order and at any worker count, for `f64` and `f32`.
#[test]
fn exact_sum_is_the_correctly_rounded_sum_in_any_order() {
    let pools = [1, 3, 16].map(|w| Pool::new(w).unwrap());
    for (n, seed) in [(0, 1), (1, 2), (2, 3), (1_000, 4), (100_000, 5)] {
        let (ms, s) = fixed_point(n, seed, 53);
        let scale = 2f64.powi(-60);
        let xs: Vec<f64> = ms.iter().map(|&m| m as f64 * scale).collect();
        assert!(ms.iter().zip(&xs).all(|(&m, &x)| (x / scale) as i64 == m));
        let expected = if n == 0 { -0.0 } else { s as f64 * scale };
        let mut reversed = xs.clone();
        reversed.reverse();
        let (ms32, s32) = fixed_point(n, seed, 24);
        let xs32: Vec<f32> = ms32.iter().map(|&m| m as f32 * 2f32.powi(-30)).collect();
        let expected32 = if n == 0 {
            -0.0
        } else {
            s32 as f32 * 2f32.powi(-30)
        };
        for pool in &pools {
            pool.install(|| {
                for input in [&xs, &reversed] {
                    let got: f64 = input.par_iter().exact_sum();
                    assert_eq!(got.to_bits(), expected.to_bits(), "n = {n}");
                }
                let got: f32 = xs32.par_iter().exact_sum();
                assert_eq!(got.to_bits(), expected32.to_bits(), "f32, n = {n}");
            });
        }
    }
}

/// Exact answers where plain addition rounds, overflows or loses the sign of zero.
#[test]
fn exact_sum_rounds_once() {
    let two53 = 2f64.powi(53);
    let exact = |xs: &[f64]| -> f64 { xs.par_iter().exact_sum() };
    let bits = |x: f64| x.to_bits();
    // Ties to even, and a sticky bit that breaks the tie.
    assert_eq!(exact(&[two53, 1.0]), two53);
    assert_eq!(exact(&[two53 + 2.0, 1.0]), two53 + 4.0);
    assert_eq!(exact(&[two53, 1.0, 2f64.powi(-1000)]), two53 + 2.0);
    // Cancellation.
    assert_eq!(exact(&[1e100, 1.0, -1e100]), 1.0);
    assert_eq!(exact(&[0.1, 0.2, -0.3]), 2.7755575615628914e-17);
    // No overflow in between, and an overflow at the end.
    assert_eq!(exact(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
    assert_eq!(exact(&[f64::MAX, f64::MAX]), f64::INFINITY);
    assert_eq!(exact(&[-f64::MAX, -f64::MAX]), f64::NEG_INFINITY);
    assert_eq!(exact(&[f64::MAX, f64::MAX * 2f64.powi(-53)]), f64::INFINITY);
    assert_eq!(exact(&[f64::MAX, f64::MAX * 2f64.powi(-54)]), f64::MAX);
    // Subnormals, exactly, and into the normal range.
    let tiny = f64::from_bits(1);
    assert_eq!(bits(exact(&[tiny, tiny, tiny])), 3);
    assert_eq!(exact(&[f64::MIN_POSITIVE, -tiny, tiny]), f64::MIN_POSITIVE);
    assert_eq!(
        bits(exact(&[f64::from_bits((1 << 52) - 1), tiny])),
        bits(f64::MIN_POSITIVE)
    );
    // Zeros, infinities and NaN as IEEE addition gives them.
    assert_eq!(bits(exact(&[])), bits(-0.0));
    assert_eq!(bits(exact(&[-0.0, -0.0])), bits(-0.0));
    assert_eq!(bits(exact(&[0.0, -0.0])), bits(0.0));
    assert_eq!(bits(exact(&[1.5, -1.5])), bits(0.0));
    assert_eq!(exact(&[f64::INFINITY, -1e300]), f64::INFINITY);
    assert!(exact(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
    assert!(exact(&[1.0, f64::NAN]).is_nan());
    // f32: rounded once from the exact sum, not through an f64.
    let e: f32 = [1.0f32, 2f32.powi(-24), 2f32.powi(-60)]
        .par_iter()
        .exact_sum();
    assert_eq!(e, 1.0 + 2f32.powi(-23));
    let mut a = ExactSum::new();
    a.add(f64::MAX);
    assert_eq!(a.value::<f32>(), f32::INFINITY);
    // Negative results round by magnitude.
    assert_eq!(exact(&[-two53, -1.0]), -two53);
    assert_eq!(exact(&[-two53 - 2.0, -1.0]), -two53 - 4.0);
}

/// Wide exponents: the same bits whatever the order, the split and the workers.
#[test]
fn exact_sum_of_wide_exponents_is_order_free() {
    let mut seed = 3;
    let xs: Vec<f64> = (0..50_000)
        .map(|_| {
            let r = splitmix64(&mut seed);
            let m = (r >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            m * 2f64.powi((r % 600) as i32 - 300)
        })
        .collect();
    let mut sorted = xs.clone();
    sorted.sort_by(f64::total_cmp);
    let expected: f64 = {
        let mut s = ExactSum::new();
        xs.iter().rev().for_each(|&x| s.add(x));
        s.value()
    };
    for workers in [1, 2, 8] {
        let pool = Pool::new(workers).unwrap();
        for input in [&xs, &sorted] {
            for _ in 0..10 {
                let got: f64 = pool.install(|| input.par_iter().exact_sum());
                assert_eq!(got.to_bits(), expected.to_bits(), "{workers} workers");
            }
        }
    }
}
