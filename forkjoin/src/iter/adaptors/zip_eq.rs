//! `zip_eq`: `zip` of two iterators of the same length (checked when it is made).

use super::delegate_indexed;
use super::zip::Zip;
use crate::iter::IndexedParallelIterator;

/// `zip_eq`. See [`IndexedParallelIterator::zip_eq`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ZipEq<A, B> {
    inner: Zip<A, B>,
}

impl<A, B> ZipEq<A, B> {
    #[inline]
    pub(crate) fn new(a: A, b: B) -> Self {
        ZipEq {
            inner: Zip::new(a, b),
        }
    }
}

delegate_indexed!([A, B] ZipEq<A, B> => (A::Item, B::Item),
    [A: IndexedParallelIterator, B: IndexedParallelIterator]);
