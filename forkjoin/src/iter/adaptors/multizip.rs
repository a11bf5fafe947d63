//! `MultiZip`: a tuple of up to 12 indexed parallel iterators zipped into one iterator of
//! tuples, as rayon's. Made by `into_par_iter()` on a tuple of things that convert into
//! indexed parallel iterators, `par_iter()` on a tuple of things iterable by reference, or
//! `par_iter_mut()` on one iterable by mutable reference.
//!
//! Underneath it is `a.zip(b.zip(c.zip(...)))` with the nested pairs flattened into a
//! tuple: one producer, split at the same index in every part, so the tuples pair the
//! items exactly as the sequential `zip` would.

use crate::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// The parallel iterator over a tuple of indexed parallel iterators, yielding a tuple of
/// their items at each position; as long as the shortest of them.
///
/// ```
/// use forkjoin::prelude::*;
///
/// // `r` by mutable reference (as `par_iter_mut()`), the ranges by value.
/// let mut r = vec![0; 3];
/// (&mut r, 1..10, 10..100, 100..1000)
///     .into_par_iter()
///     .for_each(|(r, x, y, z)| *r = x * y + z);
/// assert_eq!(r, [1 * 10 + 100, 2 * 11 + 101, 3 * 12 + 102]);
///
/// // A tuple of vectors by reference, all together.
/// let xs: Vec<i32> = (1..10).collect();
/// let ys: Vec<i32> = (10..100).collect();
/// let both = (xs, ys);
/// let products: Vec<i32> = both.par_iter().map(|(x, y)| x * y).collect();
/// assert_eq!(products[..3], [10, 22, 36]);
///
/// // And by mutable reference.
/// let mut pair = (vec![1, 2], vec![3, 4]);
/// pair.par_iter_mut().for_each(|(a, b)| std::mem::swap(a, b));
/// assert_eq!(pair, (vec![3, 4], vec![1, 2]));
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MultiZip<T> {
    tuple: T,
}

/// `a.zip(b.zip(c.zip(...)))`.
macro_rules! nested_zip {
    ($x:expr) => { $x };
    ($x:expr, $($rest:expr),+) => { $x.zip(nested_zip!($($rest),+)) };
}

/// The pattern of `nested_zip!`'s items: `(a, (b, (c, ...)))`.
macro_rules! nested_pattern {
    ($x:ident) => { $x };
    ($x:ident, $($rest:ident),+) => { ($x, nested_pattern!($($rest),+)) };
}

/// The impls for each tuple length: type parameter, variable and field index of each part.
macro_rules! multizip {
    ($( ($($T:ident $v:ident $i:tt),+) )+) => {$(
        impl<$($T),+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator<Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: ($(self.$i.into_par_iter(),)+),
                }
            }
        }

        impl<'a, $($T),+> IntoParallelIterator for &'a ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: ($(self.$i.par_iter(),)+),
                }
            }
        }

        impl<'a, $($T),+> IntoParallelIterator for &'a mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: ($(self.$i.par_iter_mut(),)+),
                }
            }
        }

        impl<$($T),+> ParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);

            // `Cons`, not `C`: the third part's type is `C`.
            #[inline]
            fn drive_unindexed<Cons>(self, consumer: Cons) -> Cons::Result
            where
                Cons: UnindexedConsumer<Self::Item>,
            {
                self.drive(consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T),+> IndexedParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            #[inline]
            fn len(&self) -> usize {
                let lens = [$(self.tuple.$i.len()),+];
                lens.into_iter().min().unwrap_or(0)
            }

            #[inline]
            fn drive<Cons: Consumer<Self::Item>>(self, consumer: Cons) -> Cons::Result {
                let ($($v,)+) = self.tuple;
                nested_zip!($($v),+)
                    .map(|nested_pattern!($($v),+)| ($($v,)+))
                    .drive(consumer)
            }

            #[inline]
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<Self::Item>,
            {
                let ($($v,)+) = self.tuple;
                nested_zip!($($v),+)
                    .map(|nested_pattern!($($v),+)| ($($v,)+))
                    .with_producer(callback)
            }
        }
    )+};
}

multizip! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11)
}
