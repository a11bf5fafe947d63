//! `unzip`, `partition` and `partition_map`: one pass over the items feeding two
//! collections; and the pairs of collections that collect pairs or `Either`s.
//!
//! `ParallelExtend` takes a parallel iterator, so the two collections are extended one
//! inside the other: the first is extended with an iterator whose `drive` extends the
//! second with an iterator whose `drive` finally runs the base with a consumer holding
//! both collections' consumers. Each collection so gets its own kind of consumer (in
//! place for vectors when the length is known).

use super::{collect_with_consumer, CollectConsumer, CollectResult};
use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::{
    Either, FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, ParallelExtend,
    ParallelIterator,
};

#[inline]
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

#[inline]
pub(crate) fn partition<I, A, B, P>(pi: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    execute(pi, Partition(&predicate))
}

#[inline]
pub(crate) fn partition_map<I, A, B, P, L, R>(pi: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
    P: Fn(I::Item) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    execute(pi, PartitionMap(&predicate))
}

/// `unzip_into_vecs`: both vectors are written in place, by one pass over the items.
#[inline]
pub(crate) fn unzip_into_vecs<I, A, B>(pi: I, left: &mut Vec<A>, right: &mut Vec<B>)
where
    I: IndexedParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
{
    left.truncate(0);
    right.truncate(0);
    let len = pi.len();
    collect_with_consumer(right, len, |right_consumer: CollectConsumer<'_, B>| {
        let mut right_result: Option<CollectResult<'_, B>> = None;
        collect_with_consumer(left, len, |left_consumer| {
            let consumer = UnzipConsumer {
                op: &Unzip,
                left: left_consumer,
                right: right_consumer,
            };
            let (left, right) = pi.drive(consumer);
            right_result = Some(right);
            left
        });
        right_result.expect("unzip_into_vecs: the left vector was not collected")
    });
}

#[inline]
fn execute<I, OP, FromA, FromB>(pi: I, op: OP) -> (FromA, FromB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Default + Send + ParallelExtend<OP::Left>,
    FromB: Default + Send + ParallelExtend<OP::Right>,
{
    let mut a = FromA::default();
    let mut b = FromB::default();
    execute_into(&mut a, &mut b, pi, op);
    (a, b)
}

#[inline]
fn execute_into<I, OP, FromA, FromB>(a: &mut FromA, b: &mut FromB, pi: I, op: OP)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Send + ParallelExtend<OP::Left>,
    FromB: Send + ParallelExtend<OP::Right>,
{
    a.par_extend(UnzipLeft { base: pi, op, b });
}

/// Extends both collections of a pair, with the pairs' left and right parts.
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = (A, B)>,
    {
        execute_into(&mut self.0, &mut self.1, par_iter.into_par_iter(), Unzip);
    }
}

/// Extends the first collection of a pair with the `Left` items, the second with the
/// `Right` ones.
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = Either<L, R>>,
    {
        let split = PartitionMap(&std::convert::identity::<Either<L, R>>);
        execute_into(&mut self.0, &mut self.1, par_iter.into_par_iter(), split);
    }
}

/// Collects pairs into a pair of collections (`unzip`).
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + Default + ParallelExtend<A>,
    FromB: Send + Default + ParallelExtend<B>,
{
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = (A, B)>,
    {
        execute(par_iter.into_par_iter(), Unzip)
    }
}

/// Collects `Either`s into a pair of collections (`partition_map` by the variant).
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + Default + ParallelExtend<L>,
    B: Send + Default + ParallelExtend<R>,
{
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Either<L, R>>,
    {
        let mut pair = (A::default(), B::default());
        pair.par_extend(par_iter);
        pair
    }
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
    #[inline]
    fn indexable() -> bool {
        false
    }
}

#[derive(Clone, Copy)]
struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;

    #[inline]
    fn consume<FA, FB>(&self, (a, b): (A, B), left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<A>,
        FB: Folder<B>,
    {
        (left.consume(a), right.consume(b))
    }

    #[inline]
    fn indexable() -> bool {
        true
    }
}

struct Partition<'p, P>(&'p P);

impl<P> Clone for Partition<'_, P> {
    #[inline]
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

    #[inline]
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

struct PartitionMap<'p, P>(&'p P);

impl<P, L, R, T> UnzipOp<T> for PartitionMap<'_, P>
where
    P: Fn(T) -> Either<L, R> + Sync,
    L: Send,
    R: Send,
{
    type Left = L;
    type Right = R;

    #[inline]
    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<L>,
        FB: Folder<R>,
    {
        match (self.0)(item) {
            Either::Left(l) => (left.consume(l), right),
            Either::Right(r) => (left, right.consume(r)),
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
    FromB: Send + ParallelExtend<OP::Right>,
{
    type Item = OP::Left;

    #[inline]
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

    #[inline]
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

    #[inline]
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

    #[inline]
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

    #[inline]
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

    #[inline]
    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }

    #[inline]
    fn full(&self) -> bool {
        // Both sides get items, so stop only when neither wants more.
        self.left.full() && self.right.full()
    }

    const SPLITS_FOLDER: bool = CA::SPLITS_FOLDER && CB::SPLITS_FOLDER;

    #[inline]
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
    #[inline]
    fn split_off_left(&self) -> Self {
        UnzipConsumer {
            op: self.op,
            left: self.left.split_off_left(),
            right: self.right.split_off_left(),
        }
    }

    #[inline]
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

    #[inline]
    fn consume(self, item: T) -> Self {
        let (left, right) = self.op.consume(item, self.left, self.right);
        UnzipFolder {
            op: self.op,
            left,
            right,
        }
    }

    #[inline]
    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }

    #[inline]
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
    #[inline]
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.left.reduce(left.0, right.0),
            self.right.reduce(left.1, right.1),
        )
    }
}
