//! `unzip` and `partition`: one pass over the items feeding two collections.
//!
//! `ParallelExtend` takes a parallel iterator, so the two collections are extended one
//! inside the other: the first is extended with an iterator whose `drive` extends the
//! second with an iterator whose `drive` finally runs the base with a consumer holding
//! both collections' consumers. Each collection so gets its own kind of consumer (in
//! place for vectors when the length is known).

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::{ParallelExtend, ParallelIterator};

pub(crate) fn unzip<I, A, B, FromA, FromB>(pi: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
    A: Send,
    B: Send,
{
    execute(pi, Unzip)
}

pub(crate) fn partition<I, A, B, P>(pi: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    execute(pi, Partition(&predicate))
}

fn execute<I, OP, FromA, FromB>(pi: I, op: OP) -> (FromA, FromB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Default + Send + ParallelExtend<OP::Left>,
    FromB: Default + Send + ParallelExtend<OP::Right>,
{
    let mut a = FromA::default();
    let mut b = FromB::default();
    a.par_extend(UnzipLeft {
        base: pi,
        op,
        b: &mut b,
    });
    (a, b)
}

/// Where an item goes: its left part to one collection and its right part to the other
/// (`unzip`), or the whole item to one of them (`partition`).
trait UnzipOp<T>: Sync + Send {
    type Left: Send;
    type Right: Send;

    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<Self::Left>,
        FB: Folder<Self::Right>;

    /// Whether every item goes to both sides (so the lengths are the base's).
    fn indexable() -> bool {
        false
    }
}

#[derive(Clone, Copy)]
struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;

    fn consume<FA, FB>(&self, (a, b): (A, B), left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<A>,
        FB: Folder<B>,
    {
        (left.consume(a), right.consume(b))
    }

    fn indexable() -> bool {
        true
    }
}

struct Partition<'p, P>(&'p P);

impl<P> Clone for Partition<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Partition<'_, P> {}

impl<P, T> UnzipOp<T> for Partition<'_, P>
where
    P: Fn(&T) -> bool + Sync,
    T: Send,
{
    type Left = T;
    type Right = T;

    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<T>,
        FB: Folder<T>,
    {
        if (self.0)(&item) {
            (left.consume(item), right)
        } else {
            (left, right.consume(item))
        }
    }
}

/// The iterator the first collection is extended with.
struct UnzipLeft<'b, I, OP, FromB> {
    base: I,
    op: OP,
    b: &'b mut FromB,
}

impl<I, OP, FromB> ParallelIterator for UnzipLeft<'_, I, OP, FromB>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromB: Default + Send + ParallelExtend<OP::Right>,
{
    type Item = OP::Left;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let mut left = None;
        self.b.par_extend(UnzipRight {
            base: self.base,
            op: self.op,
            left_consumer: consumer,
            left_result: &mut left,
        });
        left.expect("unzip: the second collection was not extended")
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::indexable() {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// The iterator the second collection is extended with; its `drive` runs the base.
struct UnzipRight<'r, I, OP, CA, R> {
    base: I,
    op: OP,
    left_consumer: CA,
    left_result: &'r mut Option<R>,
}

impl<I, OP, CA> ParallelIterator for UnzipRight<'_, I, OP, CA, CA::Result>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left>,
{
    type Item = OP::Right;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let consumer = UnzipConsumer {
            op: &self.op,
            left: self.left_consumer,
            right: consumer,
        };
        let (left, right) = self.base.drive_unindexed(consumer);
        *self.left_result = Some(left);
        right
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::indexable() {
            self.base.opt_len()
        } else {
            None
        }
    }
}

struct UnzipConsumer<'o, OP, CA, CB> {
    op: &'o OP,
    left: CA,
    right: CB,
}

impl<'o, T, OP, CA, CB> Consumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: Consumer<OP::Left>,
    CB: Consumer<OP::Right>,
{
    type Folder = UnzipFolder<'o, OP, CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (left1, left2, left_reducer) = self.left.split_at(index);
        let (right1, right2, right_reducer) = self.right.split_at(index);
        (
            UnzipConsumer {
                op: self.op,
                left: left1,
                right: right1,
            },
            UnzipConsumer {
                op: self.op,
                left: left2,
                right: right2,
            },
            UnzipReducer {
                left: left_reducer,
                right: right_reducer,
            },
        )
    }

    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }

    fn full(&self) -> bool {
        // Both sides get items, so stop only when neither wants more.
        self.left.full() && self.right.full()
    }

    const SPLITS_FOLDER: bool = CA::SPLITS_FOLDER && CB::SPLITS_FOLDER;

    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, Self::Reducer) {
        let (left, left_reducer) = CA::split_folder(&mut folder.left, keep);
        let (right, right_reducer) = CB::split_folder(&mut folder.right, keep);
        let consumer = UnzipConsumer {
            op: folder.op,
            left,
            right,
        };
        let reducer = UnzipReducer {
            left: left_reducer,
            right: right_reducer,
        };
        (consumer, reducer)
    }
}

impl<'o, T, OP, CA, CB> UnindexedConsumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: UnindexedConsumer<OP::Left>,
    CB: UnindexedConsumer<OP::Right>,
{
    fn split_off_left(&self) -> Self {
        UnzipConsumer {
            op: self.op,
            left: self.left.split_off_left(),
            right: self.right.split_off_left(),
        }
    }

    fn to_reducer(&self) -> Self::Reducer {
        UnzipReducer {
            left: self.left.to_reducer(),
            right: self.right.to_reducer(),
        }
    }
}

struct UnzipFolder<'o, OP, FA, FB> {
    op: &'o OP,
    left: FA,
    right: FB,
}

impl<'o, T, OP, FA, FB> Folder<T> for UnzipFolder<'o, OP, FA, FB>
where
    OP: UnzipOp<T>,
    FA: Folder<OP::Left>,
    FB: Folder<OP::Right>,
{
    type Result = (FA::Result, FB::Result);

    fn consume(self, item: T) -> Self {
        let (left, right) = self.op.consume(item, self.left, self.right);
        UnzipFolder {
            op: self.op,
            left,
            right,
        }
    }

    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }

    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

struct UnzipReducer<RA, RB> {
    left: RA,
    right: RB,
}

impl<A, B, RA, RB> Reducer<(A, B)> for UnzipReducer<RA, RB>
where
    RA: Reducer<A>,
    RB: Reducer<B>,
{
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.left.reduce(left.0, right.0),
            self.right.reduce(left.1, right.1),
        )
    }
}
