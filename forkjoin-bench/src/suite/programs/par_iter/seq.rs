//! std's iterators and sorts under rayon's method names, for the sequential versions of the
//! parallel-iterator programs (see [`on_each_prelude!`](super::on_each_prelude)): each
//! method only forwards to std's (`into_par_iter` to `into_iter`, `par_iter` to `iter`,
//! `par_sort_unstable` to `sort_unstable`...), and what follows it (`map`, `filter`, `zip`,
//! `copied`, `sum`, `collect`) is std's `Iterator` itself, which has the same names.

pub(crate) mod prelude {
    /// `into_par_iter()`: `into_iter()`.
    pub(crate) trait IntoParallelIterator: IntoIterator + Sized {
        #[inline(always)]
        fn into_par_iter(self) -> Self::IntoIter {
            self.into_iter()
        }
    }

    impl<I: IntoIterator> IntoParallelIterator for I {}

    /// `par_iter()` on a slice: `iter()`.
    pub(crate) trait ParallelSlice<T> {
        fn par_iter(&self) -> std::slice::Iter<'_, T>;
    }

    impl<T> ParallelSlice<T> for [T] {
        #[inline(always)]
        fn par_iter(&self) -> std::slice::Iter<'_, T> {
            self.iter()
        }
    }

    /// `par_sort()` and `par_sort_unstable()` on a slice: std's `sort()` and
    /// `sort_unstable()`.
    pub(crate) trait ParallelSliceMut<T> {
        fn par_sort(&mut self)
        where
            T: Ord;
        fn par_sort_unstable(&mut self)
        where
            T: Ord;
    }

    impl<T> ParallelSliceMut<T> for [T] {
        #[inline(always)]
        fn par_sort(&mut self)
        where
            T: Ord,
        {
            self.sort()
        }
        #[inline(always)]
        fn par_sort_unstable(&mut self)
        where
            T: Ord,
        {
            self.sort_unstable()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::prelude::*;

    #[test]
    fn forwards_to_std() {
        let v: Vec<u64> = (0..10u64).into_par_iter().map(|i| 9 - i).collect();
        assert_eq!(v.par_iter().copied().sum::<u64>(), 45);
        let mut w = v.clone();
        w.par_sort_unstable();
        assert_eq!(w, (0..10).collect::<Vec<u64>>());
        let mut w: Vec<u64> = v.par_iter().map(|x| x % 3).collect();
        w.par_sort();
        assert_eq!(w, [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    }
}
