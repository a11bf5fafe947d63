//! `interleave` and `interleave_shortest`: the items of two indexed iterators in turn
//! (producer-side: a piece knows how many items of each side it holds and which side it
//! starts with, so it splits at any index).

use super::delegate_indexed;
use super::skip_take::Take;
use super::zip::{with_producers, PairCallback};
use crate::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `interleave`. See [`IndexedParallelIterator::interleave`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Interleave<I, J> {
    i: I,
    j: J,
}

impl<I, J> Interleave<I, J> {
    #[inline]
    pub(crate) fn new(i: I, j: J) -> Self {
        Interleave { i, j }
    }
}

impl<I, J> ParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        bridge(self, consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, J> IndexedParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    #[inline]
    fn len(&self) -> usize {
        self.i.len().checked_add(self.j.len()).expect("overflow")
    }

    #[inline]
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB> {
            callback: CB,
            i_len: usize,
            j_len: usize,
        }

        impl<T, CB: ProducerCallback<T>> PairCallback<T, T> for Callback<CB> {
            type Output = CB::Output;
            #[inline]
            fn callback<PI, PJ>(self, i: PI, j: PJ) -> CB::Output
            where
                PI: Producer<Item = T>,
                PJ: Producer<Item = T>,
            {
                self.callback.callback(InterleaveProducer {
                    i,
                    j,
                    i_len: self.i_len,
                    j_len: self.j_len,
                    j_first: false,
                })
            }
        }

        let (i_len, j_len) = (self.i.len(), self.j.len());
        with_producers(
            self.i,
            self.j,
            Callback {
                callback,
                i_len,
                j_len,
            },
        )
    }
}

struct InterleaveProducer<PI, PJ> {
    i: PI,
    j: PJ,
    i_len: usize,
    j_len: usize,
    /// Whether the piece starts with an item of `j`.
    j_first: bool,
}

/// How many items of the first and of the second side are among the first `index` items
/// of an interleaving that starts with a side of `first` items.
#[inline]
fn taken(index: usize, first: usize, second: usize) -> (usize, usize) {
    let (x, y) = (index.div_ceil(2), index / 2);
    if x > first {
        (first, index - first)
    } else if y > second {
        (index - second, second)
    } else {
        (x, y)
    }
}

impl<PI, PJ> Producer for InterleaveProducer<PI, PJ>
where
    PI: Producer,
    PJ: Producer<Item = PI::Item>,
{
    type Item = PI::Item;
    type IntoIter = InterleaveIter<PI::IntoIter, PJ::IntoIter>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            i: self.i.into_iter(),
            j: self.j.into_iter(),
            j_front: self.j_first,
        }
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.i.min_len().max(self.j.min_len())
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (i_index, j_index) = if self.j_first {
            let (j, i) = taken(index, self.j_len, self.i_len);
            (i, j)
        } else {
            taken(index, self.i_len, self.j_len)
        };
        let (i_left, i_right) = self.i.split_at(i_index);
        let (j_left, j_right) = self.j.split_at(j_index);
        (
            InterleaveProducer {
                i: i_left,
                j: j_left,
                i_len: i_index,
                j_len: j_index,
                j_first: self.j_first,
            },
            InterleaveProducer {
                i: i_right,
                j: j_right,
                i_len: self.i_len - i_index,
                j_len: self.j_len - j_index,
                // After an odd number of items, the other side's turn.
                j_first: self.j_first ^ (index % 2 == 1),
            },
        )
    }
}

/// The sequential interleaving of a piece.
struct InterleaveIter<I, J> {
    i: I,
    j: J,
    /// Whether the next item from the front is `j`'s turn.
    j_front: bool,
}

impl<I, J> Iterator for InterleaveIter<I, J>
where
    I: ExactSizeIterator,
    J: ExactSizeIterator<Item = I::Item>,
{
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.j_front {
            match self.j.next() {
                Some(item) => {
                    self.j_front = false;
                    Some(item)
                }
                None => self.i.next(),
            }
        } else {
            match self.i.next() {
                Some(item) => {
                    self.j_front = true;
                    Some(item)
                }
                None => self.j.next(),
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.i.len() + self.j.len();
        (n, Some(n))
    }
}

impl<I, J> DoubleEndedIterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator<Item = I::Item> + ExactSizeIterator,
{
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        // The side that starts has the last item only if it is the longer one.
        let (i, j) = (self.i.len(), self.j.len());
        let last_is_j = if self.j_front { j > i } else { j >= i };
        if last_is_j {
            self.j.next_back()
        } else {
            self.i.next_back()
        }
    }
}

impl<I, J> ExactSizeIterator for InterleaveIter<I, J>
where
    I: ExactSizeIterator,
    J: ExactSizeIterator<Item = I::Item>,
{
}

/// `interleave_shortest`: `interleave` of the two iterators cut where the shorter one runs
/// out. See [`IndexedParallelIterator::interleave_shortest`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct InterleaveShortest<I, J> {
    inner: Interleave<Take<I>, Take<J>>,
}

impl<I, J> InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    #[inline]
    pub(crate) fn new(i: I, j: J) -> Self {
        // `i` goes first, so it gives one item more than `j` if it is the longer.
        let (i_len, j_len) = (i.len(), j.len());
        let i_take = if i_len <= j_len { i_len } else { j_len + 1 };
        let j_take = i_len.min(j_len);
        InterleaveShortest {
            inner: Interleave::new(i.take(i_take), j.take(j_take)),
        }
    }
}

delegate_indexed!([I, J] InterleaveShortest<I, J> => I::Item,
    [I: IndexedParallelIterator, J: IndexedParallelIterator<Item = I::Item>]);
