//! Parallel iterators over the `Ok` value of a `Result` (zero or one item),
//! `forkjoin::result`, as rayon's `result`. Collecting an iterator of `Result`s into a
//! `Result` is in `collect`.
//!
//! ```
//! use forkjoin::prelude::*;
//! let ok: Result<i32, String> = Ok(3);
//! assert_eq!(ok.par_iter().sum::<i32>(), 3);
//! let err: Result<i32, String> = Err("no".into());
//! assert_eq!(err.into_par_iter().count(), 0);
//! ```

use super::option;
use crate::iter::adaptors::delegate_indexed;
use crate::iter::IntoParallelIterator;

/// A parallel iterator over the `Ok` value of a `Result`, by value.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    inner: option::IntoIter<T>,
}

/// A parallel iterator over a reference to the `Ok` value of a `Result`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: option::IntoIter<&'a T>,
}

impl<T> Clone for Iter<'_, T> {
    #[inline]
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

/// A parallel iterator over a mutable reference to the `Ok` value of a `Result`.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: option::IntoIter<&'a mut T>,
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Item = T;
    type Iter = IntoIter<T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IntoIter {
            inner: self.ok().into_par_iter(),
        }
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        Iter {
            inner: self.as_ref().ok().into_par_iter(),
        }
    }
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;

    #[inline]
    fn into_par_iter(self) -> Self::Iter {
        IterMut {
            inner: self.as_mut().ok().into_par_iter(),
        }
    }
}

delegate_indexed!([T: Send] IntoIter<T> => T, []);
delegate_indexed!(['a, T: Sync] Iter<'a, T> => &'a T, []);
delegate_indexed!(['a, T: Send] IterMut<'a, T> => &'a mut T, []);
