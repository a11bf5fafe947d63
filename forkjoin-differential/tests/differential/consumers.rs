//! The consumers: their answers, and how many times the closures run where rayon fixes it
//! (everything, when nothing stops a search early; within bounds when a search stops).

// A program returns its observations as one value: tuples of what it saw, per pool.
#![allow(clippy::type_complexity)]

use crate::common::{on_each_pool, Counter};
use std::collections::{BTreeMap, BTreeSet, HashSet, LinkedList, VecDeque};

same_on_both! {
    /// Searches: the answer, and that a search ran at least the items its answer needs
    /// (everything before the first match for `find_first`) and at most all of them; a
    /// search that matches nothing runs every item.
    fn searches() -> Vec<(Vec<(Option<usize>, bool)>, Vec<(bool, bool)>, usize)> {
        let c = Counter::default();
        let p = |x: &usize| {
            c.hit();
            *x == 500 || *x == 700
        };
        on_each_pool!({
            let found = vec![
                ((0..1000).into_par_iter().find_first(p), c.within(501, 1000)),
                ((0..1000).into_par_iter().find_last(p), c.within(300, 1000)),
                ((0..1000).into_par_iter().position_first(|x| p(&x)), c.within(501, 1000)),
                ((0..1000).into_par_iter().position_last(|x| p(&x)), c.within(300, 1000)),
                (
                    (0..1000).into_par_iter().find_map_first(|x| p(&x).then_some(x * 2)),
                    c.within(501, 1000),
                ),
                (
                    (0..1000).into_par_iter().find_map_last(|x| p(&x).then_some(x * 2)),
                    c.within(300, 1000),
                ),
                ((0..1000).into_par_iter().find_any(p).map(|x| x % 200), c.within(1, 1000)),
                (
                    (0..1000).into_par_iter().position_any(|x| p(&x)).map(|x| x % 200),
                    c.within(1, 1000),
                ),
                (
                    (0..1000).into_par_iter().find_map_any(|x| p(&x).then_some(0)),
                    c.within(1, 1000),
                ),
                ((0..1000).into_par_iter().rev().find_first(p), c.within(300, 1000)),
                ((0..1000).into_par_iter().rev().position_first(|x| p(&x)), c.within(300, 1000)),
                ((0..1000).into_par_iter().find_first(|x| p(&(x + 5000))), c.within(1000, 1000)),
                ((0..1000).into_par_iter().find_last(|x| p(&(x + 5000))), c.within(1000, 1000)),
                ((0..1000).into_par_iter().find_any(|x| p(&(x + 5000))), c.within(1000, 1000)),
                (
                    (0..1000).into_par_iter().position_any(|x| p(&(x + 5000))),
                    c.within(1000, 1000),
                ),
            ];
            let anys = vec![
                ((0..1000).into_par_iter().any(|x| p(&x)), c.within(1, 1000)),
                ((0..1000).into_par_iter().all(|x| !p(&x)), c.within(1, 1000)),
                ((0..1000).into_par_iter().any(|x| p(&(x + 5000))), c.within(1000, 1000)),
                ((0..1000).into_par_iter().all(|x| !p(&(x + 5000))), c.within(1000, 1000)),
            ];
            let filtered = (0..1000).into_par_iter().filter(p).count();
            (found, anys, filtered + c.take())
        })
    }
}

same_on_both! {
    /// `try_for_each` and friends: the error, and bounds on the runs; all runs when no item
    /// fails.
    fn try_consumers() -> Vec<(Vec<Result<usize, usize>>, Vec<bool>)> {
        let c = Counter::default();
        let f = |x: usize| {
            c.hit();
            if x == 500 {
                Err(x)
            } else {
                Ok(x)
            }
        };
        on_each_pool!({
            let mut within = Vec::new();
            let mut bounded = |r, least: usize| {
                within.push(c.within(least, 1000));
                r
            };
            let rs = vec![
                bounded((0..1000).into_par_iter().try_for_each(|x| f(x).map(drop)).map(|_| 0), 1),
                bounded(
                    (0..1000).into_par_iter().try_for_each_with(0, |_, x| f(x).map(drop)).map(|_| 0),
                    1,
                ),
                bounded(
                    (0..1000).into_par_iter().try_for_each_init(|| 0, |_, x| f(x).map(drop)).map(|_| 0),
                    1,
                ),
                bounded((0..1000).into_par_iter().map(f).try_reduce(|| 0, |a, b| Ok(a + b)), 1),
                bounded(
                    (0..1000).into_par_iter().map(f).try_reduce_with(|a, b| Ok(a + b)).unwrap(),
                    1,
                ),
                bounded(
                    (0..1000)
                        .into_par_iter()
                        .try_fold(|| 0, |a, x| f(x).map(|x| a + x))
                        .try_reduce(|| 0, |a, b| Ok(a + b)),
                    1,
                ),
                bounded(
                    (0..1000)
                        .into_par_iter()
                        .try_fold_with(0, |a, x| f(x).map(|x| a + x))
                        .try_reduce(|| 0, |a, b| Ok(a + b)),
                    1,
                ),
                bounded((0..500).into_par_iter().map(f).try_reduce(|| 0, |a, b| Ok(a + b)), 500),
                bounded(
                    (0..500).into_par_iter().try_for_each(|x| f(x).map(drop)).map(|_| 0),
                    500,
                ),
            ];
            (rs, within)
        })
    }
}

same_on_both! {
    /// `collect` into `Result` and `Option`: the error or `None`, bounds on the runs, and
    /// the collection when nothing fails.
    fn collect_into_result_and_option() -> Vec<(Vec<Result<Vec<usize>, usize>>, Vec<Option<usize>>, Vec<bool>)> {
        let c = Counter::default();
        on_each_pool!({
            let mut within = Vec::new();
            let mut bounded = |least: usize, most: usize| within.push(c.within(least, most));
            let f = |x: usize| {
                c.hit();
                if x == 500 {
                    Err(x)
                } else {
                    Ok(x)
                }
            };
            let results = vec![
                (0..1000).into_par_iter().map(f).collect::<Result<Vec<_>, _>>(),
                (0..500).into_par_iter().map(f).collect::<Result<Vec<_>, _>>(),
                (0..1000)
                    .into_par_iter()
                    .map(f)
                    .collect::<Result<VecDeque<_>, _>>()
                    .map(Vec::from),
                (0..1000)
                    .into_par_iter()
                    .map(f)
                    .collect::<Result<BTreeSet<_>, _>>()
                    .map(|s| s.into_iter().collect()),
            ];
            bounded(1, 3500);
            let options: Vec<Option<usize>> = vec![
                (0..1000).into_par_iter().map(|x| f(x).ok()).collect::<Option<Vec<_>>>().map(|v| v.len()),
                (0..500).into_par_iter().map(|x| f(x).ok()).collect::<Option<Vec<_>>>().map(|v| v.len()),
                (0..1000).into_par_iter().map(|x| f(x).ok()).sum::<Option<usize>>(),
                (0..500).into_par_iter().map(|x| f(x).ok()).sum::<Option<usize>>(),
                (0..40).into_par_iter().map(|x| f(x).ok().map(|x| x % 2 + 1)).product::<Option<usize>>(),
                (0..1000).into_par_iter().map(f).sum::<Result<usize, _>>().err(),
            ];
            bounded(1 + 500 + 1 + 500 + 40 + 1, 1000 + 500 + 1000 + 500 + 40 + 1000);
            (results, options, within)
        })
    }
}

same_on_both! {
    /// `unzip`, `partition` and `partition_map` run every item once, into the same
    /// collections.
    fn unzip_and_partition() -> Vec<(Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>, Vec<String>, BTreeSet<usize>, usize)> {
        let c = Counter::default();
        on_each_pool!({
            let (a, b): (Vec<usize>, Vec<usize>) = (0..1000)
                .into_par_iter()
                .map(|x| {
                    c.hit();
                    (x, x * 2)
                })
                .unzip();
            let (evens, odds): (Vec<usize>, Vec<usize>) = (0..1000).into_par_iter().partition(|x| {
                c.hit();
                x % 2 == 0
            });
            let (left, right): (Vec<usize>, Vec<String>) =
                (0..100).into_par_iter().partition_map(|x| {
                    c.hit();
                    if x % 3 == 0 {
                        rt::iter::Either::Left(x)
                    } else {
                        rt::iter::Either::Right(x.to_string())
                    }
                });
            let (set, list): (BTreeSet<usize>, LinkedList<usize>) = (0..100)
                .into_par_iter()
                .map(|x| {
                    c.hit();
                    (x / 2, x)
                })
                .unzip();
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            (0..100)
                .into_par_iter()
                .map(|x| {
                    c.hit();
                    (x, x + 1)
                })
                .unzip_into_vecs(&mut xs, &mut ys);
            let b: Vec<usize> = b.into_iter().chain(odds).chain(list).chain(ys).collect();
            let a: Vec<usize> = a.into_iter().chain(evens).chain(xs).collect();
            (a, b, left.clone(), left, right, set, c.take())
        })
    }
}

same_on_both! {
    /// Reductions: the answer, and exact closure counts where every tree gives the same
    /// (`reduce_with` combines `n` items in `n - 1` calls; a key runs once per item).
    fn reductions() -> Vec<(Vec<Option<usize>>, Vec<usize>)> {
        let c = Counter::default();
        let key = |x: &usize| {
            c.hit();
            (x * 7919) % 1000
        };
        on_each_pool!({
            let answers = vec![
                (0..1000).into_par_iter().min_by_key(key),
                (0..1000).into_par_iter().max_by_key(key),
                (0..1000).into_par_iter().min_by(|a, b| key(a).cmp(&key(b))),
                (0..1000).into_par_iter().max_by(|a, b| key(a).cmp(&key(b))),
                (0..1000).into_par_iter().reduce_with(|a, b| {
                    c.hit();
                    a.max(b)
                }),
                Some((0..1000).into_par_iter().map(|x| key(&x)).sum()),
                Some((0..1000).into_par_iter().map(|x| key(&x)).count()),
                Some((0..1000).into_par_iter().map(|x| key(&x)).max().unwrap()),
                (0..0).into_par_iter().min_by_key(key),
                (0..1).into_par_iter().reduce_with(|a, b| {
                    c.hit();
                    a + b
                }),
            ];
            let by_key = c.take();
            let mut counts = vec![by_key];
            let r = (0..1000).into_par_iter().reduce(|| 0, |a, b| {
                c.hit();
                a + b
            });
            counts.push(r);
            counts.push(usize::from(c.take() >= 999));
            (answers, counts)
        })
    }
}

same_on_both! {
    /// Comparisons: unequal lengths decide `eq` before anything runs; `cmp` compares up to
    /// the first difference.
    fn comparisons() -> Vec<Vec<(String, usize, usize)>> {
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
                format!("{}", (0..100).into_par_iter().map(ma).eq((0..99).into_par_iter().map(mb))),
                a.take(),
                b.take()
            ),
            (
                format!("{}", (0..100).into_par_iter().map(ma).eq((0..100).into_par_iter().map(mb))),
                a.take(),
                b.take()
            ),
            (
                format!("{}", (0..100).into_par_iter().map(ma).ne((0..100).into_par_iter().map(mb))),
                a.take(),
                b.take()
            ),
            (
                format!("{:?}", (0..100).into_par_iter().map(ma).cmp((0..90).into_par_iter().map(mb))),
                a.take(),
                b.take()
            ),
            (
                format!(
                    "{:?}",
                    (0..100).into_par_iter().map(ma).partial_cmp((0..150).into_par_iter().map(mb))
                ),
                a.take(),
                b.take()
            ),
            (
                format!("{}", (0..100).into_par_iter().map(ma).lt((0..150).into_par_iter().map(mb))),
                a.take(),
                b.take()
            ),
            (
                format!(
                    "{}",
                    (0..100).into_par_iter().map(ma).ge((0..100).into_par_iter().map(mb))
                ),
                a.take(),
                b.take()
            ),
        ])
    }
}

same_on_both! {
    /// Collections: the same contents, every item run once.
    fn collections() -> Vec<(Vec<usize>, VecDeque<usize>, LinkedList<usize>, BTreeMap<usize, usize>, Vec<usize>, String, Vec<usize>, usize)> {
        let c = Counter::default();
        let m = |x: usize| {
            c.hit();
            x
        };
        on_each_pool!({
            let v: Vec<usize> = (0..1000).into_par_iter().map(m).collect();
            let d: VecDeque<usize> = (0..100).into_par_iter().map(m).collect();
            let l: LinkedList<usize> = (0..100).into_par_iter().map(m).collect();
            let b: BTreeMap<usize, usize> = (0..100).into_par_iter().map(|x| (m(x) % 10, x)).collect();
            let h: HashSet<usize> = (0..100).into_par_iter().map(|x| m(x) % 13).collect();
            let mut h: Vec<usize> = h.into_iter().collect();
            h.sort();
            let s: String = (0..100).into_par_iter().map(|x| char::from(b'a' + (m(x) % 26) as u8)).collect();
            let mut into = vec![7; 3];
            (0..100).into_par_iter().map(m).collect_into_vec(&mut into);
            let mut extended = vec![1, 2];
            extended.par_extend((0..100).into_par_iter().map(m).filter(|x| x % 9 == 0));
            into.extend(extended);
            (v, d, l, b, h, s, into, c.take())
        })
    }
}

same_on_both! {
    /// `for_each` and its variants run every item once, and `init` at least once.
    fn for_each_counts() -> Vec<(usize, bool)> {
        let c = Counter::default();
        let i = Counter::default();
        on_each_pool!({
            (0..1000).into_par_iter().for_each(|_| c.hit());
            (0..1000).into_par_iter().for_each_with(0, |_, _| c.hit());
            (0..1000).into_par_iter().for_each_init(|| i.hit(), |_, _| c.hit());
            (0..1000).into_par_iter().filter(|x| x % 2 == 0).for_each(|_| c.hit());
            (0..1000).into_par_iter().flat_map(|x| vec![x; x % 3]).for_each(|_| c.hit());
            (0..1000).into_par_iter().flat_map_iter(|x| 0..x % 3).for_each(|_| c.hit());
            (c.take(), (1..=1000).contains(&i.take()))
        })
    }
}
