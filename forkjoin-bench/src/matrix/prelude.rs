//! The three preludes the matrix's cells are compiled with (see
//! [`on_each_prelude!`](crate::suite::programs::par_iter::on_each_prelude)): forkjoin's and
//! rayon's, each with its `join`, and [`seq`], std's iterators under rayon's names.
//!
//! `par_iter::seq::prelude` hands back std's iterators themselves, which is enough for
//! `map`/`filter`/`sum`, but rayon's `fold`, `reduce`, `map_init` or `find_first` have no
//! std namesake of the same shape (std's `reduce` takes one argument, its `fold` two
//! different ones, and a trait method of the same name as std's would be ambiguous). So
//! here every source returns [`seq::Seq`], a std iterator in a wrapper whose inherent
//! methods (which win over `Iterator`'s) are rayon's, each the plain sequential loop.

/// forkjoin's prelude and `join`.
pub(crate) mod fj {
    pub(crate) use forkjoin::join;
    pub(crate) use forkjoin::prelude::*;
}

/// rayon's prelude and `join`.
pub(crate) mod ry {
    pub(crate) use rayon::join;
    pub(crate) use rayon::prelude::*;
}

/// std's iterators under rayon's names; `join` runs its two closures one after the other.
#[path = "seq.rs"]
pub(crate) mod seq;

#[cfg(test)]
mod tests {
    use super::seq::*;

    #[test]
    fn rayon_names_do_what_rayons_do() {
        let v: Vec<u64> = (0..10u64).collect();
        assert_eq!(v.par_iter().copied().sum::<u64>(), 45);
        assert_eq!((0..10u64).into_par_iter().reduce(|| 0, |a, b| a + b), 45);
        assert_eq!(
            (0..10u64).into_par_iter().reduce_with(|a, b| a.max(b)),
            Some(9)
        );
        let folded: Vec<u64> = (0..10u64)
            .into_par_iter()
            .fold(|| 1, |a, b| a + b)
            .collect();
        assert_eq!(folded, [46]);
        assert_eq!(
            (0..4u64)
                .into_par_iter()
                .map_init(
                    || 10,
                    |s, x| {
                        *s += 1;
                        *s + x
                    }
                )
                .sum::<u64>(),
            (11 + 12 + 13 + 14) + 6
        );
        assert_eq!(
            (0..10u64).into_par_iter().find_first(|x| x % 4 == 3),
            Some(3)
        );
        assert_eq!("héllo".par_chars().count(), 5);
        assert_eq!(
            (0..5u64)
                .par_bridge()
                .rev()
                .skip(1)
                .take(2)
                .collect::<Vec<_>>(),
            [3, 2]
        );
        let mut w = v.clone();
        w.par_iter_mut().zip(&v).for_each(|(a, b)| *a += *b);
        assert_eq!(w[9], 18);
        assert_eq!(
            v.par_chunks(4).map(|c| c.len()).collect::<Vec<_>>(),
            [4, 4, 2]
        );
        assert_eq!(join(|| 1, || 2), (1, 2));
    }
}
