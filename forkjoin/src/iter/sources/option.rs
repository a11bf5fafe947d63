//! Parallel iterators over an `Option` (zero or one item), `forkjoin::option`, as rayon's
//! `option`.
//!
//! ```
//! use forkjoin::prelude::*;
//! assert_eq!(Some(3).into_par_iter().sum::<i32>(), 3);
//! assert_eq!(None::<i32>.par_iter().count(), 0);
//! ```

use super::slice::indexed_via_producer;
use crate::iter::adaptors::delegate_indexed;
use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over the value of an `Option`, by value.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    opt: Option<T>,
}

/// A parallel iterator over a reference to the value of an `Option`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: IntoIter<&'a T>,
}

impl<T> Clone for Iter<'_, T> {
    #[inline]
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

/// A parallel iterator over a mutable reference to the value of an `Option`.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: IntoIter<&'a mut T>,
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IntoIter { opt: self }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        Iter {
            inner: self.as_ref().into_par_iter(),
        }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IterMut {
            inner: self.as_mut().into_par_iter(),
        }
    }
}

indexed_via_producer!([T: Send] IntoIter<T> => T,
    |this| len usize::from(this.opt.is_some()), producer OptionProducer { opt: this.opt });

delegate_indexed!(['a, T: Sync] Iter<'a, T> => &'a T, []);
delegate_indexed!(['a, T: Send] IterMut<'a, T> => &'a mut T, []);

struct OptionProducer<T: Send> {
    opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let none = OptionProducer { opt: None };
        if index == 0 {
            (none, self)
        } else {
            (self, none)
        }
    }
}
