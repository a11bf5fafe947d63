//! `repeat(x)` and `repeat_n(x, n)`: clones of one value, as rayon's `iter::repeat` and
//! `iter::repeat_n`.

use crate::iter::plumbing::{
    bridge, bridge_unindexed, Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer,
    UnindexedProducer,
};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, Zip};
use std::fmt;
use std::iter::FusedIterator;

/// A parallel iterator that repeats `element` (cloning it) without end. Shorten it with
/// [`take`](Repeat::take), [`zip`](Repeat::zip), or a consumer that stops (`find_any`,
/// `take_any`, ...); or use [`repeat_n`].
///
/// ```
/// use forkjoin::iter::repeat;
/// use forkjoin::prelude::*;
/// let v: Vec<(char, i32)> = repeat('x').zip(0..3).collect();
/// assert_eq!(v, [('x', 0), ('x', 1), ('x', 2)]);
/// assert_eq!(repeat(7).take(4).sum::<i32>(), 28);
/// ```
#[inline]
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// The iterator [`repeat()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// Only `n` repeats: an indexed iterator, as [`repeat_n`] makes.
    #[inline]
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs the repeats with the items of `zip_op`: as many as it has.
    #[inline]
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let other = zip_op.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        bridge_unindexed(
            RepeatProducer {
                element: self.element,
            },
            consumer,
        )
    }
}

/// The producer of [`Repeat`]: endless, so it splits into two endless halves.
struct RepeatProducer<T> {
    element: T,
}

impl<T: Clone + Send> UnindexedProducer for RepeatProducer<T> {
    type Item = T;

    #[inline]
    fn split(self) -> (Self, Option<Self>) {
        let left = RepeatProducer {
            element: self.element.clone(),
        };
        (left, Some(self))
    }

    #[inline]
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        // Ends only when the folder is full.
        folder.consume_iter(std::iter::repeat(self.element))
    }
}

/// A parallel iterator that produces `n` clones of `element` (the last is `element`
/// itself). Indexed.
///
/// ```
/// use forkjoin::iter::repeat_n;
/// use forkjoin::prelude::*;
/// let v: Vec<(i32, usize)> = repeat_n(22, 3).enumerate().map(|(i, x)| (x, i)).collect();
/// assert_eq!(v, [(22, 0), (22, 1), (22, 2)]);
/// assert_eq!(repeat_n(String::from("ab"), 1000).map(|s| s.len()).sum::<usize>(), 2000);
/// ```
#[inline]
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN {
        inner: RepeatNProducer::new(element, n),
    }
}

/// `repeat_n`, under the name rayon keeps for programs written against its first versions.
#[deprecated(note = "use `repeat_n`")]
#[inline]
pub fn repeatn<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    repeat_n(element, n)
}

/// The iterator [`repeat_n()`] and [`Repeat::take`] return.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct RepeatN<T> {
    inner: RepeatNProducer<T>,
}

impl<T: fmt::Debug> fmt::Debug for RepeatN<T> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("RepeatN");
        s.field("count", &self.inner.count);
        match &self.inner.element {
            Some(element) => s.field("element", element).finish(),
            None => s.finish_non_exhaustive(),
        }
    }
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<T>,
    {
        bridge(self, consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(self.inner.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    #[inline]
    fn len(&self) -> usize {
        self.inner.count
    }

    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self.inner)
    }
}

/// `count` clones of an element; the element is there exactly when `count > 0`, so that a
/// piece of no items holds nothing to clone or drop. Its own sequential iterator.
#[derive(Clone)]
struct RepeatNProducer<T> {
    element: Option<T>,
    count: usize,
}

impl<T> RepeatNProducer<T> {
    #[inline]
    fn new(element: T, count: usize) -> Self {
        RepeatNProducer {
            element: (count > 0).then_some(element),
            count,
        }
    }
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = Self;

    #[inline]
    fn into_iter(self) -> Self {
        self
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        assert!(index <= self.count);
        let rest = self.count - index;
        match self.element {
            // Clone only when both pieces have items.
            Some(element) if index > 0 && rest > 0 => (
                RepeatNProducer::new(element.clone(), index),
                RepeatNProducer::new(element, rest),
            ),
            element if index == 0 => (
                RepeatNProducer {
                    element: None,
                    count: 0,
                },
                RepeatNProducer {
                    element,
                    count: rest,
                },
            ),
            element => (
                RepeatNProducer {
                    element,
                    count: index,
                },
                RepeatNProducer {
                    element: None,
                    count: 0,
                },
            ),
        }
    }
}

impl<T: Clone> Iterator for RepeatNProducer<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.count {
            0 => None,
            1 => {
                // The last repeat is the element itself.
                self.count = 0;
                self.element.take()
            }
            _ => {
                self.count -= 1;
                self.element.clone()
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        // Skipped repeats need no clone.
        if n >= self.count {
            *self = RepeatNProducer {
                element: None,
                count: 0,
            };
            return None;
        }
        self.count -= n;
        self.next()
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNProducer<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        // All repeats are alike.
        self.next()
    }

    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNProducer<T> {}

impl<T: Clone> FusedIterator for RepeatNProducer<T> {}
