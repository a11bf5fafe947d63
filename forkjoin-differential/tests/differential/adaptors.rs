//! How many times the closures before an adaptor run, also on the items the adaptor
//! discards: rayon runs `skip`'s skipped items (for their side effects), never `take`'s
//! dropped ones, and every item before a `step_by`, `chunks` or `skip_any`.

// A program returns its observations as one value: tuples of what it saw, per pool.
#![allow(clippy::type_complexity)]

use crate::common::{on_each_pool, Cloned, Counter};

same_on_both! {
    /// `skip` runs the closures on the items it skips, at either end and at any count.
    fn skip_runs_the_skipped_items() -> Vec<Vec<(usize, usize)>> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!(vec![
            ((0..1000).into_par_iter().map(m).skip(900).count(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(0).count(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(1000).count(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(5000).count(), c.take()),
            ((0..1000).into_par_iter().map(m).rev().skip(900).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(900).rev().sum(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(900).take(50).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).take(50).skip(10).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(10).skip(20).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).skip(990).map(m).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).with_max_len(7).skip(900).count(), c.take()),
            ((0..1000).into_par_iter().inspect(|_| c.hit()).skip(900).count(), c.take()),
            ((0..1000).into_par_iter().update(|_| c.hit()).skip(900).count(), c.take()),
        ])
    }
}

same_on_both! {
    /// `chain` under `skip` and `take`, and `zip` over chained, char or small inclusive
    /// ranges, forward and reversed: the same closures run on both sides as in rayon.
    fn chain_counts() -> Vec<Vec<(usize, usize, usize)>> {
        let a = Counter::default();
        let b = Counter::default();
        let ma = |x: usize| {
            a.hit();
            x
        };
        let mb = |x: usize| {
            b.hit();
            x
        };
        let ca = |ch: char| {
            a.hit();
            ch as usize
        };
        on_each_pool!(vec![
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).skip(150).sum(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).skip(50).sum(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).take(50).sum(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).take(150).sum(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).rev().take(150).sum(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).zip(0..150).count(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).zip(0..50).count(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).chain((0..100).into_par_iter().map(mb)).zip(0..150).rev().count(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).with_min_len(30).skip(70).count(), a.take(), b.take()),
            ((0..100).into_par_iter().map(ma).with_max_len(3).zip(0..50).count(), a.take(), b.take()),
            (('a'..'q').into_par_iter().map(ca).zip(0..5).rev().count(), a.take(), b.take()),
            (('a'..'q').into_par_iter().map(ca).zip(0..5).count(), a.take(), b.take()),
            (('a'..='q').into_par_iter().map(ca).zip(0..5).count(), a.take(), b.take()),
            ((0..=20u8).into_par_iter().map(|x| ma(x as usize)).zip(0..5).count(), a.take(), b.take()),
            ((-10..=10i16).into_par_iter().map(|x| ma(x as usize)).zip(0..5).count(), a.take(), b.take()),
            ((0..=u8::MAX).into_par_iter().map(|x| ma(x as usize)).zip(0..5).rev().count(), a.take(), b.take()),
            (('a'..='z').into_par_iter().map(ca).skip(20).count(), a.take(), b.take()),
        ])
    }
}

same_on_both! {
    /// `skip` runs its skipped items also when the consumer after it stops early.
    fn skip_before_a_search() -> Vec<(Option<usize>, bool, Option<usize>, bool)> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!((
            (0..1000).into_par_iter().map(m).skip(900).find_first(|&x| x == 950),
            c.within(951, 1000),
            (0..1000).into_par_iter().map(m).skip(900).find_any(|_| true).map(|_| 0),
            c.within(901, 1000),
        ))
    }
}

same_on_both! {
    /// `cloned` clones the items `skip` skips (it runs them) and not those `take` drops.
    fn cloned_counts() -> Vec<Vec<(usize, usize)>> {
        let c = Counter::default();
        let v: Vec<Cloned<'_>> = (0..100).map(|i| Cloned(i, &c)).collect();
        on_each_pool!(vec![
            (v.par_iter().cloned().skip(90).map(|x| x.0).sum(), c.take()),
            (v.par_iter().cloned().take(10).map(|x| x.0).sum(), c.take()),
            (v.par_iter().cloned().step_by(10).map(|x| x.0).sum(), c.take()),
            (v.par_iter().cloned().rev().skip(95).map(|x| x.0).sum(), c.take()),
            (v.par_iter().cloned().zip(0..50).map(|(x, _)| x.0).sum(), c.take()),
            (v.par_iter().cloned().zip(0..50).rev().map(|(x, _)| x.0).sum(), c.take()),
            (v.par_iter().cloned().chunks(30).map(|x| x.len()).sum(), c.take()),
            (v.par_iter().cloned().filter(|x| x.0 % 2 == 0).count(), c.take()),
        ])
    }
}

same_on_both! {
    /// `enumerate().skip().take()` and `skip` under `zip`: the skipped items run, the ones
    /// `take` drops do not.
    fn skip_under_other_adaptors() -> Vec<Vec<(Vec<(usize, usize)>, usize)>> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!(vec![
            (
                (0..1000).into_par_iter().map(m).enumerate().skip(100).take(5).collect(),
                c.take()
            ),
            (
                (0..100).into_par_iter().map(m).skip(95).zip((0..10).into_par_iter()).collect(),
                c.take()
            ),
            (
                (0..100).into_par_iter().zip((0..100).into_par_iter().map(m).skip(97)).collect(),
                c.take()
            ),
            (
                (0..100).into_par_iter().map(m).skip(50).step_by(20).map(|x| (x, x)).collect(),
                c.take()
            ),
        ])
    }
}

same_on_both! {
    /// `take` never runs the items it drops.
    fn take_runs_only_the_taken_items() -> Vec<Vec<(usize, usize)>> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!(vec![
            ((0..1000).into_par_iter().map(m).take(10).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).take(0).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).take(5000).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).rev().take(10).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).take(100).rev().take(10).sum(), c.take()),
            ((0..1000).into_par_iter().map(m).take(100).collect::<Vec<_>>().len(), c.take()),
        ])
    }
}

same_on_both! {
    /// `step_by` runs the closures before it on every item, also the ones it steps over.
    fn step_by_runs_every_item() -> Vec<Vec<(Vec<usize>, usize)>> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!(vec![
            ((0..1000).into_par_iter().map(m).step_by(3).collect(), c.take()),
            ((0..1001).into_par_iter().map(m).step_by(7).rev().collect(), c.take()),
            ((0..10).into_par_iter().map(m).step_by(100).collect(), c.take()),
            ((0..1000).into_par_iter().map(m).step_by(1).take(3).collect(), c.take()),
            ((0..1000).into_par_iter().map(m).step_by(10).take(3).collect(), c.take()),
            ((0..1000).into_par_iter().map(m).step_by(10).skip(98).collect(), c.take()),
            (vec![(0..1000).into_par_iter().map(m).step_by(4).sum()], c.take()),
        ])
    }
}

same_on_both! {
    /// `skip_any` runs every item, and skips exactly as many as asked; `take_any` keeps
    /// exactly as many, running at least those.
    fn skip_any_and_take_any() -> Vec<(usize, usize, usize, bool, bool)> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!({
            let skipped = (0..1000).into_par_iter().map(m).skip_any(900).count();
            let skip_runs = c.take();
            let taken = (0..1000).into_par_iter().map(m).take_any(10).count();
            let take_runs = c.take();
            let all = (0..1000).into_par_iter().map(m).take_any(5000).count() == 1000
                && c.take() == 1000
                && (0..100).into_par_iter().map(m).skip_any(5000).count() == 0;
            (skipped, skip_runs, taken, (10..=1000).contains(&take_runs), all)
        })
    }
}

same_on_both! {
    /// `skip_any_while` runs every item and skips only items the predicate holds for;
    /// `take_any_while` keeps only such items. How many depends on the schedule.
    fn skip_any_while_and_take_any_while() -> Vec<(usize, usize, bool, bool)> {
        let c = Counter::default();
        let p = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!({
            let kept: Vec<usize> = (0..1000)
                .into_par_iter()
                .map(m)
                .skip_any_while(|&x| {
                    p.hit();
                    x < 500
                })
                .collect();
            let skip_runs = c.take();
            let skip_preds = p.take();
            // Whatever was skipped satisfied the predicate, and kept items stay in order.
            let skip_ok = kept.windows(2).all(|w| w[0] < w[1])
                && kept.iter().all(|&x| x >= 500 || x >= kept[0])
                && kept.contains(&500);
            let taken: Vec<usize> = (0..1000)
                .into_par_iter()
                .map(m)
                .take_any_while(|&x| x < 500)
                .collect();
            let take_runs = c.take();
            let take_ok = taken.iter().all(|&x| x < 500)
                && taken.windows(2).all(|w| w[0] < w[1])
                && (taken.len() + 1..=1000).contains(&take_runs);
            (skip_runs, skip_preds.min(1), skip_ok, take_ok)
        })
    }
}

same_on_both! {
    /// `while_some` keeps only items before a `None`, stops somewhere after the first
    /// `None` it meets; with no `None`, runs everything.
    fn while_some_counts() -> Vec<(usize, usize, bool)> {
        let c = Counter::default();
        on_each_pool!({
            let all = (0..1000)
                .into_par_iter()
                .map(|x| {
                    c.hit();
                    Some(x)
                })
                .while_some()
                .count();
            let all_runs = c.take();
            let some: Vec<usize> = (0..1000)
                .into_par_iter()
                .map(|x| {
                    c.hit();
                    (x != 500).then_some(x)
                })
                .while_some()
                .collect();
            let runs = c.take();
            let ok = !some.contains(&500)
                && some.windows(2).all(|w| w[0] < w[1])
                && (some.len() + 1..=1000).contains(&runs);
            (all, all_runs, ok)
        })
    }
}

same_on_both! {
    /// `zip` of unequal lengths: how many items of each side run.
    fn zip_of_unequal_lengths() -> Vec<Vec<(usize, usize, usize)>> {
        let a = Counter::default();
        let b = Counter::default();
        let ma = |x: usize| {
            a.hit();
            x
        };
        let mb = |x: usize| {
            b.hit();
            x
        };
        on_each_pool!(vec![
            (
                (0..1000).into_par_iter().map(ma).zip((0..600).into_par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                (0..600).into_par_iter().map(ma).zip((0..1000).into_par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                (0..1000)
                    .into_par_iter()
                    .map(ma)
                    .zip((0..600).into_par_iter().map(mb))
                    .map(|(x, y)| x + y)
                    .collect::<Vec<_>>()
                    .len(),
                a.take(),
                b.take()
            ),
            (
                (0..1000)
                    .into_par_iter()
                    .map(ma)
                    .zip((0..600).into_par_iter().map(mb))
                    .map(|(x, y)| x + y)
                    .sum(),
                a.take(),
                b.take()
            ),
            (
                (0..1000)
                    .into_par_iter()
                    .map(ma)
                    .zip((0..600).into_par_iter().map(mb))
                    .rev()
                    .map(|(x, y)| x + y)
                    .sum(),
                a.take(),
                b.take()
            ),
            (
                (0..600)
                    .into_par_iter()
                    .map(ma)
                    .zip_eq((0..600).into_par_iter().map(mb))
                    .count(),
                a.take(),
                b.take()
            ),
            (
                (0..600).into_par_iter().map(ma).zip((0..1000).into_par_iter().map(mb)).rev().count(),
                a.take(),
                b.take()
            ),
            (
                (0..1000)
                    .into_par_iter()
                    .map(ma)
                    .zip((0..600).into_par_iter().map(mb))
                    .rev()
                    .skip(590)
                    .count(),
                a.take(),
                b.take()
            ),
        ])
    }
}

same_on_both! {
    /// `zip` of unequal lengths over owning and borrowing sources, whose sequential
    /// iterators `std::iter::Zip` treats differently: how many items of each side run.
    fn zip_of_unequal_vecs_and_slices() -> Vec<Vec<(usize, usize, usize)>> {
        let a = Counter::default();
        let b = Counter::default();
        let ma = |x: usize| {
            a.hit();
            x
        };
        let mb = |x: &usize| {
            b.hit();
            *x
        };
        let long: Vec<usize> = (0..1000).collect();
        let short: Vec<usize> = (0..600).collect();
        on_each_pool!(vec![
            (
                long.clone().into_par_iter().map(ma).zip(short.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                short.clone().into_par_iter().map(ma).zip(long.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                long.clone()
                    .into_par_iter()
                    .map(ma)
                    .zip(short.par_iter().map(mb))
                    .map(|(x, y)| x + y)
                    .sum(),
                a.take(),
                b.take()
            ),
            (
                long.clone()
                    .into_par_iter()
                    .map(ma)
                    .zip(short.par_iter().map(mb))
                    .map(|(x, y)| x * y)
                    .collect::<Vec<_>>()
                    .len(),
                a.take(),
                b.take()
            ),
            (
                long.clone()
                    .into_par_iter()
                    .map(ma)
                    .zip(short.par_iter().map(mb))
                    .rev()
                    .count(),
                a.take(),
                b.take()
            ),
            (
                long.par_iter()
                    .map(mb)
                    .zip(short.clone().into_par_iter().map(ma))
                    .rev()
                    .count(),
                a.take(),
                b.take()
            ),
            (
                long.par_iter().copied().map(ma).zip(short.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                long.par_iter().cloned().map(ma).zip(short.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                long.par_iter().copied().inspect(|_| a.hit()).zip(short.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                long.par_iter().map(|&x| ma(x)).enumerate().zip(short.par_iter().map(mb)).count(),
                a.take(),
                b.take()
            ),
            (
                (long.clone(), short.clone(), long.clone())
                    .into_par_iter()
                    .map(|(x, y, z)| ma(x) + ma(y) + ma(z))
                    .count(),
                a.take(),
                b.take()
            ),
            (
                (long.clone(), long.clone(), short.clone())
                    .into_par_iter()
                    .rev()
                    .map(|(x, y, z)| ma(x) + ma(y) + ma(z))
                    .count(),
                a.take(),
                b.take()
            ),
        ])
    }
}

same_on_both! {
    /// `chunks`, `fold_chunks` and `fold_chunks_with` run every item, the short last chunk's
    /// too.
    fn chunks_run_every_item() -> Vec<Vec<(Vec<usize>, usize)>> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!(vec![
            ((0..1000).into_par_iter().map(m).chunks(7).map(|v| v.len()).collect(), c.take()),
            (
                (0..1000).into_par_iter().map(m).fold_chunks(7, || 0, |a, x| a + x).collect(),
                c.take()
            ),
            (
                (0..1000).into_par_iter().map(m).fold_chunks_with(7, 0, |a, x| a + x).collect(),
                c.take()
            ),
            ((0..1000).into_par_iter().map(m).chunks(7).take(3).flatten().collect(), c.take()),
            ((0..1000).into_par_iter().map(m).chunks(7).skip(140).flatten().collect(), c.take()),
            ((0..1000).into_par_iter().map(m).chunks(7000).map(|v| v.len()).collect(), c.take()),
        ])
    }
}

same_on_both! {
    /// `interleave` runs every item of both sides; `interleave_shortest` only the items it
    /// yields.
    fn interleave_counts() -> Vec<Vec<(Vec<usize>, usize, usize)>> {
        let a = Counter::default();
        let b = Counter::default();
        let ma = |x: usize| {
            a.hit();
            x
        };
        let mb = |x: usize| {
            b.hit();
            x + 1000
        };
        on_each_pool!(vec![
            (
                (0..10).into_par_iter().map(ma).interleave((0..5).into_par_iter().map(mb)).collect(),
                a.take(),
                b.take()
            ),
            (
                (0..10)
                    .into_par_iter()
                    .map(ma)
                    .interleave_shortest((0..5).into_par_iter().map(mb))
                    .collect(),
                a.take(),
                b.take()
            ),
            (
                (0..5)
                    .into_par_iter()
                    .map(ma)
                    .interleave_shortest((0..10).into_par_iter().map(mb))
                    .collect(),
                a.take(),
                b.take()
            ),
            (
                (0..500)
                    .into_par_iter()
                    .map(ma)
                    .interleave_shortest((0..300).into_par_iter().map(mb))
                    .skip(10)
                    .take(20)
                    .collect(),
                a.take(),
                b.take()
            ),
            (
                (0..500)
                    .into_par_iter()
                    .map(ma)
                    .interleave((0..300).into_par_iter().map(mb))
                    .take(700)
                    .rev()
                    .take(5)
                    .collect(),
                a.take(),
                b.take()
            ),
        ])
    }
}

same_on_both! {
    /// `fold`, `fold_with`, `map_init` and `map_with`: every item runs once, and the
    /// identity or `init` runs at least once per piece (how often is the schedule's).
    fn fold_and_init_counts() -> Vec<(usize, usize, usize, usize, bool)> {
        let c = Counter::default();
        let init = Counter::default();
        on_each_pool!({
            let sums: Vec<usize> = (0..1000)
                .into_par_iter()
                .fold(
                    || {
                        init.hit();
                        0
                    },
                    |a, x| {
                        c.hit();
                        a + x
                    },
                )
                .collect();
            let ok = init.take() == sums.len();
            let fold_runs = c.take();
            let with: usize = (0..1000)
                .into_par_iter()
                .fold_with(0, |a, x| {
                    c.hit();
                    a + x
                })
                .sum();
            let with_runs = c.take();
            let mapped: usize = (0..1000)
                .into_par_iter()
                .map_init(
                    || init.hit(),
                    |_, x| {
                        c.hit();
                        x
                    },
                )
                .sum::<usize>()
                + (0..1000)
                    .into_par_iter()
                    .map_with(0, |_, x| {
                        c.hit();
                        x
                    })
                    .sum::<usize>();
            let inits = init.take();
            (
                sums.iter().sum::<usize>() + with,
                fold_runs,
                with_runs,
                c.take() + mapped,
                ok && (1..=1000).contains(&inits),
            )
        })
    }
}

/// `fold`'s identity (and `map_init`'s and `for_each_init`'s `init`) at one worker: rayon
/// splits a loop before it runs, into two pieces even on one worker, and runs the identity
/// once per piece; forkjoin splits only when an idle worker asks (DESIGN.md, section 8), so
/// on one worker it runs it once. rayon leaves the number open ("any number of times"); the
/// difference is forkjoin's on purpose, and is checked here as each runtime's own.
#[test]
fn fold_identity_at_one_worker_runs_once_per_piece() {
    let init = Counter::default();
    let on_rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let pieces = on_rayon.install(|| {
        use rayon::prelude::*;
        (0..1000)
            .into_par_iter()
            .fold(|| init.hit(), |_, _| ())
            .count()
    });
    assert_eq!((pieces, init.take()), (2, 2));
    let on_forkjoin = forkjoin::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let runs = on_forkjoin.install(|| {
        use forkjoin::prelude::*;
        let pieces = (0..1000)
            .into_par_iter()
            .fold(|| init.hit(), |_, _| ())
            .count();
        let folds = init.take();
        let mapped = (0..1000)
            .into_par_iter()
            .map_init(|| init.hit(), |_, x| x)
            .count();
        let maps = init.take();
        (0..1000)
            .into_par_iter()
            .for_each_init(|| init.hit(), |_, _| ());
        (pieces, folds, mapped, maps, init.take())
    });
    assert_eq!(runs, (1, 1, 1000, 1, 1));
}

same_on_both! {
    /// The adaptors and consumers the other programs do not use: `positions` (its predicate
    /// runs on every item), `intersperse`, the block adaptors before a search, `product`, the
    /// parallel sorts and `walk_tree_prefix`: the same answers, and the same closure counts
    /// where rayon fixes them.
    #[allow(clippy::type_complexity)]
    fn the_remaining_adaptors() -> Vec<(Vec<usize>, usize, Vec<u32>, Option<usize>, Option<usize>, u64, Vec<u32>, Vec<u32>)> {
        let c = Counter::default();
        on_each_pool!({
            let positions = (0..100usize)
                .into_par_iter()
                .positions(|x| {
                    c.hit();
                    x % 7 == 0
                })
                .collect();
            let interspersed = (0..10u32).into_par_iter().intersperse(99).collect();
            let exponential = (0..10_000usize).into_par_iter().by_exponential_blocks().find_first(|&x| x > 5_000);
            let uniform = (0..10_000usize).into_par_iter().by_uniform_blocks(100).find_first(|&x| x == 777);
            let product = (1..=20u64).into_par_iter().product::<u64>();
            let mut v: Vec<u32> = (0..5_000u32).map(|i| i.wrapping_mul(2_654_435_761) % 1_000).collect();
            let mut w = v.clone();
            v.par_sort();
            w.par_sort_unstable_by_key(|&x| std::cmp::Reverse(x));
            w.truncate(10);
            v.truncate(10);
            let tree: Vec<u32> = rt::iter::walk_tree_prefix(1u32, |&x| if x < 40 { vec![2 * x, 2 * x + 1] } else { vec![] })
                .collect();
            let mut seen = tree;
            seen.truncate(12);
            (positions, c.take(), interspersed, exponential, uniform, product, v, [w, seen].concat())
        })
    }
}
