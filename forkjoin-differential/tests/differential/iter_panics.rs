//! Panics in the closures of a parallel iterator: one in an item rayon always runs reaches
//! the caller (also an item an adaptor discards, as `skip` runs its skipped items), one in
//! an item rayon never runs (past a `take`) does not happen; the pool works on after it.

// A program returns its observations as one value: tuples of what it saw, per pool.
#![allow(clippy::type_complexity)]

use crate::common::{caught, on_each_pool};

/// The item whose closure panics.
fn boom(x: usize, at: usize) -> usize {
    if x == at {
        panic!("boom at {x}");
    }
    x
}

same_on_both! {
    /// Panics on the items `skip` skips, `step_by` steps over and `chunks` leaves in its
    /// last chunk; none on those `take` drops.
    fn panics_in_discarded_items() -> Vec<Vec<Result<usize, String>>> {
        on_each_pool!(vec![
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 5)).skip(900).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 999)).rev().skip(900).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 5)).skip(1000).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 5)).skip(5000).sum()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 5)).enumerate().skip(100).take(5).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 950)).skip(900).take(5).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 500)).take(10).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 500)).rev().take(10).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 1)).step_by(3).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 999)).step_by(7).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 999)).chunks(7).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 999)).fold_chunks(7, || 0, |a, x| a + x).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 3)).skip_any(900).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 3)).skip_any_while(|_| true).count()),
            caught(|| (0..10).into_par_iter().map(|x| boom(x, 9)).interleave((0..3).into_par_iter()).count()),
            caught(|| (0..10).into_par_iter().map(|x| boom(x, 9)).interleave_shortest((0..3).into_par_iter()).count()),
            Ok((0..1000).into_par_iter().map(|x| x * 2).skip(10).take(3).sum::<usize>()),
        ])
    }
}

same_on_both! {
    /// Panics in the items `zip` pairs, and in the longer side's extra items where
    /// `std::iter::Zip` runs them: all of them backward, one more forward over a source
    /// that is not random-access (a `Vec`), none forward over a range.
    fn panics_in_zips() -> Vec<Vec<Result<usize, String>>> {
        let long: Vec<usize> = (0..1000).collect();
        on_each_pool!(vec![
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 599)).zip(0..600).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 600)).zip(0..600).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 999)).zip(0..600).rev().count()),
            caught(|| (0..600).into_par_iter().zip((0..1000).into_par_iter().map(|x| boom(x, 700))).rev().count()),
            caught(|| long.clone().into_par_iter().map(|x| boom(x, 600)).zip(0..600).count()),
            caught(|| long.clone().into_par_iter().map(|x| boom(x, 601)).zip(0..600).count()),
            caught(|| long.clone().into_par_iter().map(|x| boom(x, 601)).zip(0..600).collect::<Vec<_>>().len()),
            caught(|| (0..600).into_par_iter().zip(long.clone().into_par_iter().map(|x| boom(x, 600))).count()),
            caught(|| (0..600).into_par_iter().zip_eq((0..600).into_par_iter().map(|x| boom(x, 599))).count()),
        ])
    }
}

same_on_both! {
    /// Panics in consumers: in an item every answer needs, in a fold's identity and
    /// operation, in `unzip`, `partition` and `collect`; the pool is fine afterwards.
    fn panics_in_consumers() -> Vec<Vec<Result<usize, String>>> {
        on_each_pool!(vec![
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 100)).find_first(|&x| x == 500).unwrap()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 900)).find_last(|&x| x == 500).unwrap()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 900)).position_first(|x| x == 5000).unwrap_or(1)),
            caught(|| usize::from((0..1000).into_par_iter().map(|x| boom(x, 900)).all(|x| x < 5000))),
            caught(|| (0..1000).into_par_iter().for_each(|x| {
                boom(x, 700);
            })).map(|()| 0),
            caught(|| (0..1000).into_par_iter().fold(|| boom(0, 0), |a, x| a + x).sum()),
            caught(|| (0..1000).into_par_iter().fold(|| 0, |a, x| a + boom(x, 10)).sum()),
            caught(|| (0..1000).into_par_iter().map_init(|| boom(0, 0), |_, x| x).sum()),
            caught(|| (0..1000).into_par_iter().reduce(|| 0, |a, b| a + boom(b, 7))),
            caught(|| (0..1000).into_par_iter().map(|x| (boom(x, 400), x)).unzip::<_, _, Vec<_>, Vec<_>>().0.len()),
            caught(|| (0..1000).into_par_iter().partition::<Vec<_>, Vec<_>, _>(|&x| boom(x, 400) > 3).0.len()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 400)).collect::<Vec<_>>().len()),
            caught(|| (0..1000).into_par_iter().map(|x| Ok::<_, ()>(boom(x, 400))).collect::<Result<Vec<_>, _>>().unwrap().len()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 400)).try_for_each(|_| Ok::<_, ()>(())).map_or(1, |_| 0)),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 400)).min_by_key(|&x| x).unwrap()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 400)).sum()),
            caught(|| (0..1000).into_par_iter().flat_map(|x| (0..x % 3).into_par_iter().map(move |y| boom(x + y, 401))).count()),
            caught(|| (0..1000).into_par_iter().filter_map(|x| Some(boom(x, 401))).count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 401)).panic_fuse().count()),
            caught(|| (0..1000).into_par_iter().map(|x| boom(x, 950)).skip(900).count()),
            caught(|| (0..1000u16).into_par_iter().map(|x| x as usize).map(|x| boom(x, 401)).max().unwrap()),
            Ok((0..1000).into_par_iter().map(|x| x % 7).sum::<usize>()),
        ])
    }
}

same_on_both! {
    /// Panics in the sources: in a `par_bridge`'s iterator, after `repeat_n` and `par_split`.
    fn panics_in_sources() -> Vec<Vec<Result<usize, String>>> {
        on_each_pool!(vec![
            caught(|| (0..1000).map(|x| boom(x, 300)).par_bridge().count()),
            caught(|| (0..1000).par_bridge().map(|x| boom(x, 300)).count()),
            caught(|| rt::iter::repeat_n(5, 100).map(|x| boom(x, 5)).count()),
            caught(|| "a,b,c,d".par_split(',').map(|s| boom(s.len() + 1, 2)).count()),
        ])
    }
}
