//! Drops: every item of an owning source (`Vec::into_par_iter`, `par_drain`) is dropped
//! exactly once, whatever part of it an adaptor discards, when a consumer stops early, and
//! when a closure panics. (rayon drops each exactly once; what is compared is the answer
//! and the list of items not dropped exactly once, which must be empty.)

// A program returns its observations as one value: tuples of what it saw, per pool.
#![allow(clippy::type_complexity)]

use crate::common::{caught, on_each_pool, DropLog, Tracked};

/// The values of tracked items.
fn values(v: Vec<Tracked<'_>>) -> Vec<usize> {
    v.iter().map(|t| t.0).collect()
}

same_on_both! {
    /// Adaptors that discard items of a `Vec` they own.
    fn drops_of_discarded_items() -> Vec<Vec<(Vec<usize>, Vec<(usize, usize)>)>> {
        let log = DropLog::new(100);
        let short = DropLog::new(60);
        on_each_pool!(vec![
            (vec![log.items().into_par_iter().skip(90).count()], log.wrong()),
            (values(log.items().into_par_iter().skip(95).collect()), log.wrong()),
            (values(log.items().into_par_iter().take(3).collect()), log.wrong()),
            (values(log.items().into_par_iter().skip(10).take(3).collect()), log.wrong()),
            (values(log.items().into_par_iter().rev().skip(10).take(3).collect()), log.wrong()),
            (values(log.items().into_par_iter().step_by(30).collect()), log.wrong()),
            (values(log.items().into_par_iter().step_by(30).skip(1).take(2).collect()), log.wrong()),
            (vec![log.items().into_par_iter().chunks(7).skip(3).take(2).count()], log.wrong()),
            (
                log.items().into_par_iter().enumerate().skip(50).take(2).map(|(i, t)| i + t.0).collect(),
                log.wrong(),
            ),
            (
                log.items().into_par_iter().zip(short.items()).map(|(a, b)| a.0 + b.0).skip(57).collect(),
                [log.wrong(), short.wrong()].concat(),
            ),
            (
                short.items().into_par_iter().zip(log.items()).rev().take(2).map(|(a, b)| a.0 * b.0).collect(),
                [log.wrong(), short.wrong()].concat(),
            ),
            (
                log.items().into_par_iter().zip_eq(log.items()).take(1).map(|(a, b)| a.0 + b.0).collect(),
                // Two sets of the same values: each dropped twice.
                log.wrong().into_iter().filter(|&(_, d)| d != 2).collect(),
            ),
            (
                values(log.items().into_par_iter().interleave(short.items()).skip(150).collect()),
                [log.wrong(), short.wrong()].concat(),
            ),
            (
                values(log.items().into_par_iter().interleave_shortest(short.items()).take(5).collect()),
                [log.wrong(), short.wrong()].concat(),
            ),
            (
                log.items().into_par_iter().fold_chunks(9, || 0, |a, t| a + t.0).skip(10).collect(),
                log.wrong(),
            ),
            (vec![log.items().into_par_iter().skip_any(90).count()], log.wrong()),
            (vec![log.items().into_par_iter().take_any(10).count()], log.wrong()),
            (vec![log.items().into_par_iter().skip_any_while(|t| t.0 != 7).count().min(1)], log.wrong()),
            (vec![log.items().into_par_iter().take_any_while(|t| t.0 < 200).count()], log.wrong()),
            (vec![log.items().into_par_iter().filter(|t| t.0 % 3 == 0).count()], log.wrong()),
        ])
    }
}

same_on_both! {
    /// Consumers that stop early: the items they never reach are dropped too.
    fn drops_when_consumers_stop_early() -> Vec<Vec<(Vec<usize>, Vec<(usize, usize)>)>> {
        let log = DropLog::new(1000);
        on_each_pool!(vec![
            (log.items().into_par_iter().find_first(|t| t.0 == 500).map(|t| t.0).into_iter().collect(), log.wrong()),
            (log.items().into_par_iter().find_last(|t| t.0 == 500).map(|t| t.0).into_iter().collect(), log.wrong()),
            (log.items().into_par_iter().find_any(|t| t.0 == 500).map(|t| t.0).into_iter().collect(), log.wrong()),
            (log.items().into_par_iter().position_any(|t| t.0 == 500).into_iter().collect(), log.wrong()),
            (vec![usize::from(log.items().into_par_iter().any(|t| t.0 == 500))], log.wrong()),
            (vec![usize::from(log.items().into_par_iter().all(|t| t.0 != 500))], log.wrong()),
            (
                // How many items pass before the stop is the schedule's: only the drops count.
                log.items()
                    .into_par_iter()
                    .map(|t| if t.0 == 500 { None } else { Some(t) })
                    .while_some()
                    .filter(|t| t.0 == 500)
                    .map(|t| t.0)
                    .collect(),
                log.wrong(),
            ),
            (
                log.items()
                    .into_par_iter()
                    .map(|t| if t.0 == 500 { Err(t.0) } else { Ok(t) })
                    .collect::<Result<Vec<_>, _>>()
                    .err()
                    .into_iter()
                    .collect(),
                log.wrong(),
            ),
            (
                log.items()
                    .into_par_iter()
                    .map(|t| if t.0 == 500 { None } else { Some(t) })
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.len())
                    .into_iter()
                    .collect(),
                log.wrong(),
            ),
            (
                log.items()
                    .into_par_iter()
                    .try_for_each(|t| if t.0 == 500 { Err(t.0) } else { Ok(()) })
                    .err()
                    .into_iter()
                    .collect(),
                log.wrong(),
            ),
            (
                log.items().into_iter().par_bridge().find_any(|t| t.0 == 500).map(|t| t.0).into_iter().collect(),
                log.wrong(),
            ),
            (
                vec![log.items().into_par_iter().take_any(3).map(|t| t.0).collect::<Vec<_>>().len()],
                log.wrong(),
            ),
        ])
    }
}

same_on_both! {
    /// A closure that panics: every item is still dropped once, those it had taken, those
    /// it had made and those never reached.
    fn drops_when_a_closure_panics() -> Vec<Vec<(Result<usize, String>, Vec<(usize, usize)>)>> {
        let log = DropLog::new(1000);
        let boom = |t: &Tracked<'_>| {
            if t.0 == 500 {
                panic!("boom");
            }
        };
        on_each_pool!(vec![
            (caught(|| log.items().into_par_iter().map(|t| boom(&t)).count()), log.wrong()),
            (caught(|| log.items().into_par_iter().for_each(|t| boom(&t))).map(|()| 0), log.wrong()),
            (
                caught(|| log.items().into_par_iter().map(|t| { boom(&t); t }).collect::<Vec<_>>().len()),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().inspect(|t| boom(t)).skip(900).count()),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().inspect(|t| boom(t)).skip(400).count()),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().inspect(|t| boom(t)).rev().skip(10).take(5).count()),
                log.wrong(),
            ),
            (
                caught(|| {
                    let (a, b): (Vec<_>, Vec<_>) =
                        log.items().into_par_iter().map(|t| { boom(&t); (t, ()) }).unzip();
                    a.len() + b.len()
                }),
                log.wrong(),
            ),
            (
                caught(|| {
                    let (a, b): (Vec<_>, Vec<_>) =
                        log.items().into_par_iter().partition(|t| { boom(t); t.0 % 2 == 0 });
                    a.len() + b.len()
                }),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().chunks(7).map(|c| { c.iter().for_each(boom); c.len() }).sum()),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().fold(Vec::new, |mut v, t| { boom(&t); v.push(t); v }).count()),
                log.wrong(),
            ),
            (
                caught(|| log.items().into_par_iter().zip(log.items()).map(|(a, _)| boom(&a)).count()),
                log.wrong().into_iter().filter(|&(_, d)| d != 2).collect(),
            ),
        ])
    }
}

same_on_both! {
    /// `par_drain` of part of a `Vec`: the drained items are dropped once, also those a
    /// consumer stops before or skips, and the rest stays in the `Vec`, in order.
    fn drops_of_par_drain() -> Vec<Vec<(usize, Vec<usize>, Vec<(usize, usize)>)>> {
        let log = DropLog::new(100);
        let drain = |f: &dyn Fn(&mut Vec<Tracked<'_>>) -> usize| {
            let mut v = log.items();
            let n = f(&mut v);
            let rest = values(v);
            (n, rest, log.wrong())
        };
        on_each_pool!(vec![
            drain(&|v| v.par_drain(10..20).count()),
            drain(&|v| v.par_drain(10..20).take(3).count()),
            drain(&|v| v.par_drain(10..20).skip(3).count()),
            drain(&|v| v.par_drain(90..).rev().take(3).map(|t| t.0).sum()),
            drain(&|v| v.par_drain(..).find_first(|t| t.0 == 50).map_or(0, |t| t.0)),
            drain(&|v| v.par_drain(..).find_any(|t| t.0 == 50).map_or(0, |t| t.0)),
            drain(&|v| v.par_drain(5..95).step_by(10).count()),
            drain(&|v| v.par_drain(5..5).count()),
            drain(&|v| caught(|| v.par_drain(20..80).map(|t| assert!(t.0 != 30)).count()).unwrap_or(7)),
            drain(&|v| v.par_drain(20..80).zip(0..10).count()),
        ])
    }
}
