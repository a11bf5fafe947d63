//! `reduce`, `reduce_with`, `try_reduce` and `try_reduce_with`.
//!
//! Every piece folds its items left to right into one accumulator (`op(acc, item)`), and
//! the pieces' accumulators are combined in the order of the items, so `op` need only be
//! associative. The `try_` forms share a flag: once any piece meets a failure, every piece
//! stops at its next item.

use crate::iter::leaf::fold_moving;
use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::try_trait::Try;
use crate::iter::ParallelIterator;
use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

#[inline]
pub(crate) fn reduce<PI, R, ID, T>(pi: PI, identity: ID, op: R) -> T
where
    PI: ParallelIterator<Item = T>,
    R: Fn(T, T) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    pi.drive_unindexed(Reduce(Plain {
        identity: &identity,
        op: &op,
    }))
}

#[inline]
pub(crate) fn reduce_with<PI, R, T>(pi: PI, op: R) -> Option<T>
where
    PI: ParallelIterator<Item = T>,
    R: Fn(T, T) -> T + Sync,
    T: Send,
{
    pi.drive_unindexed(Reduce(WithoutIdentity { op: &op }))
}

#[inline]
pub(crate) fn try_reduce<PI, R, ID, T>(pi: PI, identity: ID, op: R) -> PI::Item
where
    PI: ParallelIterator,
    PI::Item: Try<Output = T>,
    R: Fn(T, T) -> PI::Item + Sync,
    ID: Fn() -> T + Sync,
{
    let failed = AtomicBool::new(false);
    pi.drive_unindexed(Reduce(Fallible {
        identity: &identity,
        op: &op,
        failed: &failed,
    }))
}

#[inline]
pub(crate) fn try_reduce_with<PI, R, T>(pi: PI, op: R) -> Option<PI::Item>
where
    PI: ParallelIterator,
    PI::Item: Try<Output = T>,
    R: Fn(T, T) -> PI::Item + Sync,
{
    let failed = AtomicBool::new(false);
    pi.drive_unindexed(Reduce(FallibleWithoutIdentity {
        op: &op,
        failed: &failed,
    }))
}

/// One kind of reduction: what a piece starts from, how it takes an item, how two results
/// combine, and whether the whole reduction is already decided.
pub(crate) trait Reduction<T>: Copy + Send {
    /// A piece's accumulator.
    type Acc;
    /// What the reduction returns.
    type Result: Send;

    fn start(self) -> Self::Acc;
    fn add(self, acc: Self::Acc, item: T) -> Self::Acc;
    /// Folds a run of items (the plain forms fold without looking at the flag).
    #[inline]
    fn add_all<I: Iterator<Item = T>>(self, acc: Self::Acc, iter: I) -> Self::Acc {
        let mut acc = acc;
        for item in iter {
            acc = self.add(acc, item);
            if self.is_done(&acc) {
                break;
            }
        }
        acc
    }
    fn finish(self, acc: Self::Acc) -> Self::Result;
    /// Nothing more is wanted (a failure was met here or elsewhere).
    fn is_done(self, acc: &Self::Acc) -> bool;
    fn stopped(self) -> bool;
}

/// `reduce(identity, op)`.
struct Plain<'r, R, ID> {
    identity: &'r ID,
    op: &'r R,
}

/// `reduce_with(op)`.
struct WithoutIdentity<'r, R> {
    op: &'r R,
}

/// `try_reduce(identity, op)`.
struct Fallible<'r, R, ID> {
    identity: &'r ID,
    op: &'r R,
    failed: &'r AtomicBool,
}

/// `try_reduce_with(op)`.
struct FallibleWithoutIdentity<'r, R> {
    op: &'r R,
    failed: &'r AtomicBool,
}

macro_rules! copy {
    ($($name:ident<$($p:ident),*>),*) => {$(
        impl<$($p),*> Clone for $name<'_, $($p),*> {
            #[inline]
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),*> Copy for $name<'_, $($p),*> {}
    )*};
}

copy!(Plain<R, ID>, WithoutIdentity<R>, Fallible<R, ID>, FallibleWithoutIdentity<R>);

impl<R, ID, T> Reduction<T> for Plain<'_, R, ID>
where
    R: Fn(T, T) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    type Acc = T;
    type Result = T;

    #[inline]
    fn start(self) -> T {
        (self.identity)()
    }
    #[inline]
    fn add(self, acc: T, item: T) -> T {
        (self.op)(acc, item)
    }
    #[inline]
    fn add_all<I: Iterator<Item = T>>(self, acc: T, iter: I) -> T {
        fold_moving(iter, acc, self.op)
    }
    #[inline]
    fn finish(self, acc: T) -> T {
        acc
    }
    #[inline]
    fn is_done(self, _: &T) -> bool {
        false
    }
    #[inline]
    fn stopped(self) -> bool {
        false
    }
}

impl<R, T> Reduction<T> for WithoutIdentity<'_, R>
where
    R: Fn(T, T) -> T + Sync,
    T: Send,
{
    type Acc = Option<T>;
    type Result = Option<T>;

    #[inline]
    fn start(self) -> Option<T> {
        None
    }
    #[inline]
    fn add(self, acc: Option<T>, item: T) -> Option<T> {
        Some(match acc {
            Some(a) => (self.op)(a, item),
            None => item,
        })
    }
    #[inline]
    fn add_all<I: Iterator<Item = T>>(self, acc: Option<T>, mut iter: I) -> Option<T> {
        match iter.size_hint() {
            // A counted loop (a slice's, a range's, a `map` of one): std's `reduce`, the
            // first item by `next` and a bare accumulator after it.
            (len, Some(upper)) if len == upper => {
                let first = match acc {
                    Some(a) => a,
                    None => iter.next()?,
                };
                Some(fold_moving(iter, first, self.op))
            }
            // Any other: the `Option` is the accumulator of every item (`add`), as in rayon's
            // fold; a `max` behind a `flat_map` compiled to a slower loop with the first item
            // by `next` (docs/measurements.md, section 8).
            _ => fold_moving(iter, acc, move |acc, item| self.add(acc, item)),
        }
    }
    #[inline]
    fn finish(self, acc: Option<T>) -> Option<T> {
        acc
    }
    #[inline]
    fn is_done(self, _: &Option<T>) -> bool {
        false
    }
    #[inline]
    fn stopped(self) -> bool {
        false
    }
}

/// `op(a, b)` as a decision: go on with its output, or stop with its failure.
#[inline]
fn apply<R, T, Item>(op: &R, a: T, b: T) -> ControlFlow<Item::Residual, T>
where
    R: Fn(T, T) -> Item,
    Item: Try<Output = T>,
{
    op(a, b).branch()
}

impl<R, ID, T, Item> Reduction<Item> for Fallible<'_, R, ID>
where
    R: Fn(T, T) -> Item + Sync,
    ID: Fn() -> T + Sync,
    Item: Try<Output = T> + Send,
{
    type Acc = ControlFlow<Item::Residual, T>;
    type Result = Item;

    #[inline]
    fn start(self) -> Self::Acc {
        Continue((self.identity)())
    }
    #[inline]
    fn add(self, acc: Self::Acc, item: Item) -> Self::Acc {
        let Continue(a) = acc else { return acc };
        let result = match item.branch() {
            Continue(b) => apply(self.op, a, b),
            Break(r) => Break(r),
        };
        if result.is_break() {
            // Relaxed: a hint for the other pieces to stop; the failure itself travels
            // through the results.
            self.failed.store(true, Relaxed);
        }
        result
    }
    #[inline]
    fn finish(self, acc: Self::Acc) -> Item {
        match acc {
            Continue(t) => Item::from_output(t),
            Break(r) => Item::from_residual(r),
        }
    }
    #[inline]
    fn is_done(self, acc: &Self::Acc) -> bool {
        acc.is_break() || self.stopped()
    }
    #[inline]
    fn stopped(self) -> bool {
        // Relaxed: see `add`.
        self.failed.load(Relaxed)
    }
}

impl<R, T, Item> Reduction<Item> for FallibleWithoutIdentity<'_, R>
where
    R: Fn(T, T) -> Item + Sync,
    Item: Try<Output = T> + Send,
{
    type Acc = Option<ControlFlow<Item::Residual, T>>;
    type Result = Option<Item>;

    #[inline]
    fn start(self) -> Self::Acc {
        None
    }
    #[inline]
    fn add(self, acc: Self::Acc, item: Item) -> Self::Acc {
        let result = match (acc, item.branch()) {
            (Some(Break(r)), _) => Break(r),
            (None, b) => b,
            (Some(Continue(a)), Continue(b)) => apply(self.op, a, b),
            (Some(Continue(_)), Break(r)) => Break(r),
        };
        if result.is_break() {
            // Relaxed: as in `Fallible::add`.
            self.failed.store(true, Relaxed);
        }
        Some(result)
    }
    #[inline]
    fn finish(self, acc: Self::Acc) -> Option<Item> {
        acc.map(|acc| match acc {
            Continue(t) => Item::from_output(t),
            Break(r) => Item::from_residual(r),
        })
    }
    #[inline]
    fn is_done(self, acc: &Self::Acc) -> bool {
        matches!(acc, Some(Break(_))) || self.stopped()
    }
    #[inline]
    fn stopped(self) -> bool {
        // Relaxed: see `Fallible::add`.
        self.failed.load(Relaxed)
    }
}

/// The consumer of every reduction.
pub(crate) struct Reduce<K>(K);

impl<K: Copy> Clone for Reduce<K> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Copy> Copy for Reduce<K> {}

impl<T, K: Reduction<T> + ReduceResults<K::Result>> Consumer<T> for Reduce<K> {
    type Folder = ReduceFolder<K, K::Acc>;
    type Reducer = Self;
    type Result = K::Result;

    #[inline]
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        ReduceFolder {
            kind: self.0,
            acc: self.0.start(),
        }
    }

    #[inline]
    fn full(&self) -> bool {
        self.0.stopped()
    }

    const SPLITS_FOLDER: bool = true;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, _keep: usize) -> (Self, Self) {
        (Reduce(folder.kind), Reduce(folder.kind))
    }
}

impl<T, K: Reduction<T> + ReduceResults<K::Result>> UnindexedConsumer<T> for Reduce<K> {
    #[inline]
    fn split_off_left(&self) -> Self {
        *self
    }

    #[inline]
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<K: Copy, R> Reducer<R> for Reduce<K>
where
    K: ReduceResults<R>,
{
    #[inline]
    fn reduce(self, left: R, right: R) -> R {
        self.0.combine_results(left, right)
    }
}

/// How two pieces' results combine, in order (a `Reducer` knows only the result type).
pub(crate) trait ReduceResults<R> {
    fn combine_results(self, left: R, right: R) -> R;
}

impl<R, ID, T> ReduceResults<T> for Plain<'_, R, ID>
where
    R: Fn(T, T) -> T,
{
    #[inline]
    fn combine_results(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

impl<R, T> ReduceResults<Option<T>> for WithoutIdentity<'_, R>
where
    R: Fn(T, T) -> T,
{
    #[inline]
    fn combine_results(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(a), Some(b)) => Some((self.op)(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// Two fallible results: the left failure if any, else the right's, else `op`.
#[inline]
fn combine_fallible<R, T, Item>(op: &R, left: Item, right: Item) -> Item
where
    R: Fn(T, T) -> Item,
    Item: Try<Output = T>,
{
    match (left.branch(), right.branch()) {
        (Continue(a), Continue(b)) => op(a, b),
        (Break(r), _) | (_, Break(r)) => Item::from_residual(r),
    }
}

impl<R, ID, T, Item> ReduceResults<Item> for Fallible<'_, R, ID>
where
    R: Fn(T, T) -> Item,
    Item: Try<Output = T>,
{
    #[inline]
    fn combine_results(self, left: Item, right: Item) -> Item {
        combine_fallible(self.op, left, right)
    }
}

impl<R, T, Item> ReduceResults<Option<Item>> for FallibleWithoutIdentity<'_, R>
where
    R: Fn(T, T) -> Item,
    Item: Try<Output = T>,
{
    #[inline]
    fn combine_results(self, left: Option<Item>, right: Option<Item>) -> Option<Item> {
        match (left, right) {
            (Some(a), Some(b)) => Some(combine_fallible(self.op, a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

pub(crate) struct ReduceFolder<K, A> {
    kind: K,
    acc: A,
}

impl<T, K: Reduction<T>> Folder<T> for ReduceFolder<K, K::Acc> {
    type Result = K::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        ReduceFolder {
            kind: self.kind,
            acc: self.kind.add(self.acc, item),
        }
    }

    #[inline]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        ReduceFolder {
            kind: self.kind,
            acc: self.kind.add_all(self.acc, iter.into_iter()),
        }
    }

    #[inline]
    fn complete(self) -> K::Result {
        self.kind.finish(self.acc)
    }

    #[inline]
    fn full(&self) -> bool {
        self.kind.is_done(&self.acc)
    }
}
