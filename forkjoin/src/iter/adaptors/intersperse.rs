//! `intersperse`: a clone of a separator between every two items.
//!
//! Indexed iterators go through a producer: a piece of the output knows its length and
//! whether it starts with a separator, and from those which base items it holds and
//! whether it ends with one, so it splits at any index.
//!
//! Other iterators go through a consumer. A piece cannot know whether anything comes
//! before it (a `filter` may leave everything to its left empty), so a piece puts
//! separators only between its own items and reports whether it had any; the separator
//! between two pieces is folded, when both had items, into a third consumer split off
//! between them.

use crate::iter::plumbing::{
    bridge, Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::iter;

/// `intersperse`. See [`ParallelIterator::intersperse`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    item: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    #[inline]
    pub(crate) fn new(base: I, item: I::Item) -> Self {
        Intersperse { base, item }
    }
}

/// `n` items and the `n - 1` separators between them.
#[inline]
fn with_separators(n: usize) -> usize {
    (2 * n).saturating_sub(1)
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item: Clone>,
{
    type Item = I::Item;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        let consumer = IntersperseConsumer {
            base: consumer,
            item: self.item,
        };
        self.base.drive_unindexed(consumer).0
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len().map(with_separators)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator<Item: Clone>,
{
    #[inline]
    fn len(&self) -> usize {
        with_separators(self.base.len())
    }

    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB, T> {
            callback: CB,
            item: T,
            len: usize,
        }

        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
            type Output = CB::Output;
            #[inline]
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(IntersperseProducer {
                    base,
                    item: self.item,
                    len: self.len,
                    separator_first: false,
                })
            }
        }

        let len = self.len();
        self.base.with_producer(Callback {
            callback,
            item: self.item,
            len,
        })
    }
}

/// `len` items of the output, starting with a separator or not. In the whole output,
/// item `2j` is base item `j` and item `2j - 1` the separator before it, so a piece's
/// start parity is all it needs to know where its base items are.
struct IntersperseProducer<P, T> {
    base: P,
    item: T,
    len: usize,
    separator_first: bool,
}

impl<P, T> Producer for IntersperseProducer<P, T>
where
    P: Producer<Item = T>,
    T: Clone + Send,
{
    type Item = T;
    type IntoIter = IntersperseIter<P::IntoIter, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        let start = usize::from(self.separator_first);
        IntersperseIter {
            base: self.base.into_iter(),
            item: self.item,
            remaining: self.len,
            separator_front: self.separator_first,
            // The piece ends with a separator if its end (exclusive) is even.
            separator_back: self.len > 0 && (start + self.len).is_multiple_of(2),
        }
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let start = usize::from(self.separator_first);
        // Base items at even positions of `start..start + index`, counted from the first.
        let base_index = (start + index).div_ceil(2) - start;
        let (left, right) = self.base.split_at(base_index);
        (
            IntersperseProducer {
                base: left,
                item: self.item.clone(),
                len: index,
                separator_first: self.separator_first,
            },
            IntersperseProducer {
                base: right,
                item: self.item,
                len: self.len - index,
                separator_first: (start + index) % 2 == 1,
            },
        )
    }
}

/// The sequential output of a piece: base items with separators between them, and one
/// at either end if the piece starts or ends with one.
struct IntersperseIter<I, T> {
    base: I,
    item: T,
    remaining: usize,
    separator_front: bool,
    separator_back: bool,
}

impl<I: Iterator<Item = T>, T: Clone> Iterator for IntersperseIter<I, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.remaining = self.remaining.checked_sub(1)?;
        let separator = std::mem::replace(&mut self.separator_front, true);
        if separator {
            self.separator_front = false;
            Some(self.item.clone())
        } else {
            self.base.next()
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> DoubleEndedIterator for IntersperseIter<I, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.remaining = self.remaining.checked_sub(1)?;
        let separator = std::mem::replace(&mut self.separator_back, true);
        if separator {
            self.separator_back = false;
            Some(self.item.clone())
        } else {
            self.base.next_back()
        }
    }
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> ExactSizeIterator for IntersperseIter<I, T> {}

/// The consumer of an unindexed `intersperse`: its result says whether the piece had items.
struct IntersperseConsumer<C, T> {
    base: C,
    item: T,
}

struct IntersperseFolder<F, T> {
    base: F,
    item: T,
    started: bool,
}

/// Joins two pieces, with a separator folded into `joint` between them if both had items.
struct IntersperseReducer<C: Consumer<T>, T> {
    /// Joins the left piece to the joint and the right piece.
    left: C::Reducer,
    /// Joins the joint to the right piece.
    right: C::Reducer,
    joint: C,
    item: T,
}

impl<C: Consumer<T>, T> IntersperseReducer<C, T> {
    /// Splits `rest` into a joint of `joint_len` items and the consumer after it.
    #[inline]
    fn new(left: C::Reducer, rest: C, joint_len: usize, item: T) -> (C, Self) {
        let (joint, after, right) = rest.split_at(joint_len);
        let reducer = IntersperseReducer {
            left,
            right,
            joint,
            item,
        };
        (after, reducer)
    }
}

impl<C: Consumer<T>, T> Reducer<(C::Result, bool)> for IntersperseReducer<C, T> {
    #[inline]
    fn reduce(
        self,
        (left, left_items): (C::Result, bool),
        (right, right_items): (C::Result, bool),
    ) -> (C::Result, bool) {
        let mut joint = self.joint.into_folder();
        if left_items && right_items {
            joint = joint.consume(self.item);
        }
        let right = self.right.reduce(joint.complete(), right);
        (self.left.reduce(left, right), left_items || right_items)
    }
}

impl<C, T> Consumer<T> for IntersperseConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = IntersperseReducer<C, T>;
    type Result = (C::Result, bool);

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        // The left piece takes `index` items and the separators between them; the joint
        // the separator after them, if there are any.
        let (left, rest, reducer) = self.base.split_at(with_separators(index));
        let joint_len = usize::from(index > 0);
        let (right, reducer) = IntersperseReducer::new(reducer, rest, joint_len, self.item.clone());
        let left = IntersperseConsumer {
            base: left,
            item: self.item.clone(),
        };
        let right = IntersperseConsumer {
            base: right,
            item: self.item,
        };
        (left, right, reducer)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            item: self.item,
            started: false,
        }
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }

    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, Self::Reducer) {
        // Each item the folder still takes comes with a separator before it, except the
        // first if it has none yet.
        let base_keep = if folder.started {
            2 * keep
        } else {
            with_separators(keep)
        };
        let (rest, reducer) = C::split_folder(&mut folder.base, base_keep);
        let joint_len = usize::from(folder.started || keep > 0);
        let item = folder.item.clone();
        let (right, reducer) = IntersperseReducer::new(reducer, rest, joint_len, item.clone());
        (IntersperseConsumer { base: right, item }, reducer)
    }
}

impl<C, T> UnindexedConsumer<T> for IntersperseConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        IntersperseConsumer {
            base: self.base.split_off_left(),
            item: self.item.clone(),
        }
    }

    #[inline]
    fn to_reducer(&self) -> Self::Reducer {
        // The joint sits between the part split off on the left and this consumer.
        IntersperseReducer {
            left: self.base.to_reducer(),
            joint: self.base.split_off_left(),
            right: self.base.to_reducer(),
            item: self.item.clone(),
        }
    }
}

impl<F, T> Folder<T> for IntersperseFolder<F, T>
where
    F: Folder<T>,
    T: Clone,
{
    type Result = (F::Result, bool);

    #[inline]
    fn consume(mut self, item: T) -> Self {
        if self.started {
            self.base = self.base.consume(self.item.clone());
            if self.base.full() {
                return self;
            }
        }
        self.started = true;
        self.base = self.base.consume(item);
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let IntersperseFolder {
            base,
            item,
            mut started,
        } = self;
        let separator = &item;
        let items = iter.into_iter().flat_map(|x| {
            let before = started.then(|| separator.clone());
            started = true;
            before.into_iter().chain(iter::once(x))
        });
        let base = base.consume_iter(items);
        IntersperseFolder {
            base,
            item,
            started,
        }
    }

    #[inline]
    fn complete(self) -> (F::Result, bool) {
        (self.base.complete(), self.started)
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}
