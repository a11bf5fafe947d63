//! `map`, `map_with` and `map_init`.
//!
//! Each adaptor wraps the producer (for indexed iterators) and the consumer (for every
//! iterator) of the iterator below it, so a chain like `par_iter().map(f).sum()` becomes
//! one producer folded into one folder, and a chunk of items runs as one sequential
//! `iter.map(f).sum()`: no call per item through the splitter.

use super::item_wise::{ItemOp, ItemWise};
use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// `map`: applies a function to every item. See [`ParallelIterator::map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Map<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Map<I, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map").field("base", &self.base).finish()
    }
}

impl<I, F> Map<I, F> {
    #[inline]
    pub(crate) fn new(base: I, map_op: F) -> Self {
        Map { base, map_op }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        self.base
            .drive_unindexed(ItemWise::new(consumer, MapOp(&self.map_op)))
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    #[inline]
    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        self.base
            .drive(ItemWise::new(consumer, MapOp(&self.map_op)))
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        struct Callback<CB, F> {
            callback: CB,
            map_op: F,
        }

        impl<T, F, R, CB> ProducerCallback<T> for Callback<CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> R + Sync,
        {
            type Output = CB::Output;
            #[inline]
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(MapProducer {
                    base,
                    map_op: &self.map_op,
                })
            }
        }

        self.base.with_producer(Callback {
            callback,
            map_op: self.map_op,
        })
    }
}

struct MapProducer<'f, P, F> {
    base: P,
    map_op: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.map_op)
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapProducer { base: left, map_op },
            MapProducer {
                base: right,
                map_op,
            },
        )
    }

    #[inline]
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let folder = MapFolder {
            base: folder,
            map_op: self.map_op,
        };
        self.base.fold_with(folder).base
    }
}

/// The part of `map`'s consumer: the function.
struct MapOp<'f, F>(&'f F);

impl<'f, T, R, F> ItemOp<T> for MapOp<'f, F>
where
    F: Fn(T) -> R + Sync,
{
    type Out = R;
    type Folder<C: Folder<R>> = MapFolder<'f, C, F>;

    #[inline]
    fn split_left(&self) -> Self {
        MapOp(self.0)
    }

    #[inline]
    fn into_folder<C: Folder<R>>(self, base: C) -> Self::Folder<C> {
        MapFolder {
            base,
            map_op: self.0,
        }
    }

    #[inline]
    fn base_folder<C: Folder<R>>(folder: &mut Self::Folder<C>) -> &mut C {
        &mut folder.base
    }

    #[inline]
    fn split_folder<C: Folder<R>>(folder: &Self::Folder<C>) -> Self {
        MapOp(folder.map_op)
    }
}

pub(crate) struct MapFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, R, C, F> Folder<T> for MapFolder<'f, C, F>
where
    C: Folder<R>,
    F: Fn(T) -> R,
{
    type Result = C::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        MapFolder {
            base: self.base.consume((self.map_op)(item)),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        MapFolder {
            base: self.base.consume_iter(iter.into_iter().map(self.map_op)),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn complete(self) -> C::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// `map_with`: a function with a mutable state cloned per piece of work. See
/// [`ParallelIterator::map_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    map_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    #[inline]
    pub(crate) fn new(base: I, item: T, map_op: F) -> Self {
        MapWith { base, item, map_op }
    }
}

/// `map_init`: a function with a mutable state made once per piece of work. See
/// [`ParallelIterator::map_init`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

impl<I: fmt::Debug, INIT, F> fmt::Debug for MapInit<I, INIT, F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    #[inline]
    pub(crate) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

/// Where a piece of work gets its state: `map_with` clones a value, `map_init` calls a
/// function. The two adaptors share everything else.
pub(crate) trait StateSource: Send {
    type State;
    /// The state of a new piece.
    fn fresh(&self) -> Self::State;
    /// A source for another piece.
    fn split(&self) -> Self;
}

/// `map_with`'s source: clones of the value given.
pub(crate) struct CloneOf<T>(pub(crate) T);

impl<T: Clone + Send> StateSource for CloneOf<T> {
    type State = T;
    #[inline]
    fn fresh(&self) -> T {
        self.0.clone()
    }
    #[inline]
    fn split(&self) -> Self {
        CloneOf(self.0.clone())
    }
}

/// `map_init`'s source: calls of the function given.
pub(crate) struct MadeBy<'f, INIT>(pub(crate) &'f INIT);

impl<T, INIT: Fn() -> T + Sync> StateSource for MadeBy<'_, INIT> {
    type State = T;
    #[inline]
    fn fresh(&self) -> T {
        (self.0)()
    }
    #[inline]
    fn split(&self) -> Self {
        MadeBy(self.0)
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let source = CloneOf(self.item);
        self.base.drive_unindexed(ItemWise::new(
            consumer,
            MapStateOp::new(source, &self.map_op),
        ))
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    #[inline]
    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let source = CloneOf(self.item);
        self.base.drive(ItemWise::new(
            consumer,
            MapStateOp::new(source, &self.map_op),
        ))
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(StateCallback {
            callback,
            source: CloneOf(self.item),
            map_op: &self.map_op,
        })
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        let source = MadeBy(&self.init);
        self.base.drive_unindexed(ItemWise::new(
            consumer,
            MapStateOp::new(source, &self.map_op),
        ))
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    #[inline]
    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let source = MadeBy(&self.init);
        self.base.drive(ItemWise::new(
            consumer,
            MapStateOp::new(source, &self.map_op),
        ))
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(StateCallback {
            callback,
            source: MadeBy(&self.init),
            map_op: &self.map_op,
        })
    }
}

struct StateCallback<'f, CB, S, F> {
    callback: CB,
    source: S,
    map_op: &'f F,
}

impl<'f, In, R, CB, S, F> ProducerCallback<In> for StateCallback<'f, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: StateSource,
    F: Fn(&mut S::State, In) -> R + Sync,
    R: Send,
{
    type Output = CB::Output;

    #[inline]
    fn callback<P: Producer<Item = In>>(self, base: P) -> CB::Output {
        self.callback.callback(MapStateProducer {
            base,
            source: self.source,
            map_op: self.map_op,
        })
    }
}

struct MapStateProducer<'f, P, S, F> {
    base: P,
    source: S,
    map_op: &'f F,
}

impl<'f, P, S, F, R> Producer for MapStateProducer<'f, P, S, F>
where
    P: Producer,
    S: StateSource,
    F: Fn(&mut S::State, P::Item) -> R + Sync,
    R: Send,
{
    type Item = R;
    type IntoIter = MapStateIter<'f, P::IntoIter, S::State, F>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        MapStateIter {
            base: self.base.into_iter(),
            state: self.source.fresh(),
            map_op: self.map_op,
        }
    }

    #[inline]
    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    #[inline]
    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapStateProducer {
                base: left,
                source: self.source.split(),
                map_op,
            },
            MapStateProducer {
                base: right,
                source: self.source,
                map_op,
            },
        )
    }

    #[inline]
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let folder = MapStateFolder {
            base: folder,
            state: self.source.fresh(),
            source: self.source,
            map_op: self.map_op,
        };
        self.base.fold_with(folder).base
    }
}

/// The sequential iterator of `map_with`/`map_init` over a producer.
pub(crate) struct MapStateIter<'f, I, T, F> {
    base: I,
    state: T,
    map_op: &'f F,
}

impl<I, T, F, R> Iterator for MapStateIter<'_, I, T, F>
where
    I: Iterator,
    F: Fn(&mut T, I::Item) -> R,
{
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.map_op)(&mut self.state, item))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I, T, F, R> DoubleEndedIterator for MapStateIter<'_, I, T, F>
where
    I: DoubleEndedIterator,
    F: Fn(&mut T, I::Item) -> R,
{
    #[inline]
    fn next_back(&mut self) -> Option<R> {
        let item = self.base.next_back()?;
        Some((self.map_op)(&mut self.state, item))
    }
}

impl<I, T, F, R> ExactSizeIterator for MapStateIter<'_, I, T, F>
where
    I: ExactSizeIterator,
    F: Fn(&mut T, I::Item) -> R,
{
}

/// The part of `map_with`'s and `map_init`'s consumer: the source of the states and the
/// function.
struct MapStateOp<'f, S, F> {
    source: S,
    map_op: &'f F,
}

impl<'f, S, F> MapStateOp<'f, S, F> {
    #[inline]
    fn new(source: S, map_op: &'f F) -> Self {
        MapStateOp { source, map_op }
    }
}

impl<'f, In, R, S, F> ItemOp<In> for MapStateOp<'f, S, F>
where
    S: StateSource,
    F: Fn(&mut S::State, In) -> R + Sync,
{
    type Out = R;
    type Folder<C: Folder<R>> = MapStateFolder<'f, C, S, F>;

    #[inline]
    fn split_left(&self) -> Self {
        MapStateOp::new(self.source.split(), self.map_op)
    }

    #[inline]
    fn into_folder<C: Folder<R>>(self, base: C) -> Self::Folder<C> {
        MapStateFolder {
            base,
            state: self.source.fresh(),
            source: self.source,
            map_op: self.map_op,
        }
    }

    #[inline]
    fn base_folder<C: Folder<R>>(folder: &mut Self::Folder<C>) -> &mut C {
        &mut folder.base
    }

    #[inline]
    fn split_folder<C: Folder<R>>(folder: &Self::Folder<C>) -> Self {
        MapStateOp::new(folder.source.split(), folder.map_op)
    }
}

/// A piece's folder: its own state, and the source it came from (to start the state of a
/// piece split off it, fresh as in rayon rather than a copy of this one's).
pub(crate) struct MapStateFolder<'f, C, S: StateSource, F> {
    base: C,
    state: S::State,
    source: S,
    map_op: &'f F,
}

impl<'f, In, R, C, S, F> Folder<In> for MapStateFolder<'f, C, S, F>
where
    C: Folder<R>,
    S: StateSource,
    F: Fn(&mut S::State, In) -> R,
{
    type Result = C::Result;

    #[inline]
    fn consume(mut self, item: In) -> Self {
        let mapped = (self.map_op)(&mut self.state, item);
        self.base = self.base.consume(mapped);
        self
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = In>>(self, iter: I) -> Self {
        let MapStateFolder {
            base,
            mut state,
            source,
            map_op,
        } = self;
        let base = base.consume_iter(iter.into_iter().map(|item| map_op(&mut state, item)));
        MapStateFolder {
            base,
            state,
            source,
            map_op,
        }
    }

    #[inline]
    fn complete(self) -> C::Result {
        self.base.complete()
    }

    #[inline]
    fn full(&self) -> bool {
        self.base.full()
    }
}
