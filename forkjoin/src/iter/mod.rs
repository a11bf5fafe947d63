//! Parallel iterators, with rayon's names and semantics: a program written against
//! `rayon::prelude::*` moves here by using `forkjoin::prelude::*` instead.
//!
//! ```
//! use forkjoin::prelude::*;
//!
//! let squares: u64 = (0..1000u64).into_par_iter().map(|i| i * i).sum();
//! assert_eq!(squares, 332_833_500);
//!
//! let words = vec!["fork", "join", "pool"];
//! let upper: Vec<String> = words.par_iter().map(|w| w.to_uppercase()).collect();
//! assert_eq!(upper, ["FORK", "JOIN", "POOL"]);
//! ```
//!
//! What differs is underneath: nothing here takes a grain size. A loop runs on the current
//! worker in growing chunks and splits its remaining items in half only when an idle worker
//! asks for work and the rest is worth sharing (DESIGN.md, section 8). A sixteen-element loop
//! inside a sequential loop costs about what the sequential loop costs, and a loop of a few
//! long items spreads after its first item. `with_min_len` and `with_max_len` still bound the
//! pieces, for programs that need it, but speed never does.
//!
//! The layout follows rayon's `iter/`: the traits here; [`plumbing`], the interface for
//! writing new parallel iterators; `sources` (ranges, slices, `Vec`, ...), `adaptors`
//! (`map`, `zip`, ...), `consumers` (`for_each`, `sum`, `find_*`, ...), `collect` (into
//! collections) and `sort`; the splitter, which decides when to split.

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

pub mod plumbing;

mod adaptors;
mod collect;
mod consumers;
mod leaf;
pub(crate) mod loops;
mod sized_chunk;
pub(crate) mod sort;
pub(crate) mod sources;
mod splitter;
mod try_trait;

pub use adaptors::blocks::{ExponentialBlocks, UniformBlocks};
pub use adaptors::chain::Chain;
pub use adaptors::chunks::Chunks;
pub use adaptors::cloned::{Cloned, Copied};
pub use adaptors::deterministic::{default_block_len, Deterministic, FixedPositions};
pub use adaptors::enumerate::Enumerate;
pub use adaptors::filter::{Filter, FilterMap};
pub use adaptors::flat_map::{FlatMap, FlatMapIter};
pub use adaptors::flatten::{Flatten, FlattenIter};
pub use adaptors::fold::{Fold, FoldWith, TryFold, TryFoldWith};
pub use adaptors::fold_chunks::{FoldChunks, FoldChunksWith};
pub use adaptors::inspect::Inspect;
pub use adaptors::interleave::{Interleave, InterleaveShortest};
pub use adaptors::intersperse::Intersperse;
pub use adaptors::len::{MaxLen, MinLen};
pub use adaptors::map::{Map, MapInit, MapWith};
pub use adaptors::multizip::MultiZip;
pub use adaptors::panic_fuse::PanicFuse;
pub use adaptors::positions::Positions;
pub use adaptors::rev::Rev;
pub use adaptors::skip_take::{Skip, Take};
pub use adaptors::skip_take_any::{SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile};
pub use adaptors::step_by::StepBy;
pub use adaptors::update::Update;
pub use adaptors::while_some::WhileSome;
pub use adaptors::zip::Zip;
pub use adaptors::zip_eq::ZipEq;
pub use consumers::exact_sum::{ExactFloat, ExactSum};
/// The two-variant type of `partition_map`, re-exported from the `either` crate as rayon
/// does.
pub use either::Either;
pub use sources::empty::{empty, Empty};
pub use sources::once::{once, Once};
pub use sources::par_bridge::{IterBridge, ParallelBridge};
#[allow(deprecated)]
pub use sources::repeat::repeatn;
pub use sources::repeat::{repeat, repeat_n, Repeat, RepeatN};
pub use sources::split::{split, Split};
pub use sources::walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};

use plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use try_trait::Try;

/// Converts into a parallel iterator: `into_par_iter` on ranges, `Vec`, arrays, `Option`,
/// collections, and references to them (`(&v).into_par_iter()` is `v.par_iter()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let v = vec![1, 2, 3];
/// let doubled: Vec<i32> = v.into_par_iter().map(|x| 2 * x).collect();
/// assert_eq!(doubled, [2, 4, 6]);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Converts `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

/// Every parallel iterator converts into itself.
impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;

    #[inline]
    fn into_par_iter(self) -> T {
        self
    }
}

/// `par_iter()`: a parallel iterator over references to the items of a collection.
///
/// ```
/// use forkjoin::prelude::*;
/// let v: Vec<u32> = (0..100).collect();
/// assert_eq!(v.par_iter().filter(|&&x| x % 3 == 0).count(), 34);
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data T`).
    type Item: Send + 'data;

    /// A parallel iterator over `&self`'s items.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    #[inline]
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references to the items.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data mut T`).
    type Item: Send + 'data;

    /// A parallel iterator over `&mut self`'s items.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    #[inline]
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A parallel iterator: the items are produced and consumed on the pool's workers, in no
/// particular order unless a method says otherwise.
///
/// Outside any pool the work runs on the global pool, as `join` does; inside
/// [`Pool::install`](crate::Pool::install), on that pool. A panic in any closure reaches
/// the caller with its payload once the other pieces have finished; the pool survives it.
///
/// ```
/// use forkjoin::prelude::*;
/// let total: u64 = (1..=100u64).into_par_iter().filter(|n| n % 2 == 1).sum();
/// assert_eq!(total, 2500);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;

    /// Calls `op` on every item.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let n = AtomicUsize::new(0);
    /// (0..1000).into_par_iter().for_each(|_| { n.fetch_add(1, Ordering::Relaxed); });
    /// assert_eq!(n.into_inner(), 1000);
    /// ```
    #[inline]
    #[track_caller]
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::for_each::for_each(self, &op))
    }

    /// Calls `op` on every item with a clone of `init` per piece of work (`map_with`'s state).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// (0..5).into_par_iter().for_each_with(tx, |tx, x| tx.send(x).unwrap());
    /// let mut got: Vec<_> = rx.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    #[inline]
    #[track_caller]
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).for_each(drop)
    }

    /// Calls `op` on every item with a value `init()` makes once per piece of work.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = vec![0u8; 100];
    /// v.par_chunks_mut(10).for_each_init(|| 7u8, |seven, chunk| chunk.fill(*seven));
    /// assert!(v.iter().all(|&x| x == 7));
    /// ```
    #[inline]
    #[track_caller]
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).for_each(drop)
    }

    /// Calls a fallible `op` on every item; stops at the first failure (the rest of the
    /// items are not visited once one has failed) and returns one of the failures.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Result<(), String> = (0..100).into_par_iter()
    ///     .try_for_each(|x| if x == 42 { Err(format!("{x}")) } else { Ok(()) });
    /// assert_eq!(r, Err("42".to_string()));
    /// ```
    #[inline]
    #[track_caller]
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// `try_for_each` with `map_with`'s per-piece clone of `init`.
    #[inline]
    #[track_caller]
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// `try_for_each` with `map_init`'s per-piece value.
    #[inline]
    #[track_caller]
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// The number of items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().filter(|x| x % 7 == 0).count(), 143);
    /// ```
    #[inline]
    #[track_caller]
    fn count(self) -> usize {
        self.map(|_| 1usize).sum()
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<String> = (0..3).into_par_iter().map(|i: i32| i.to_string()).collect();
    /// assert_eq!(v, ["0", "1", "2"]);
    /// ```
    #[inline]
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Applies `map_op` to every item with a mutable state: a clone of `init` for each piece
    /// of work (one per piece a thief takes, not one per item).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..4u32).into_par_iter().map_with(10, |ten, x| *ten + x).collect();
    /// assert_eq!(v, [10, 11, 12, 13]);
    /// ```
    #[inline]
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` to every item with a state `init()` makes once per piece of work
    /// (a buffer, a random number generator).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lens: Vec<usize> = (0..4usize).into_par_iter()
    ///     .map_init(String::new, |buf, x| { buf.clear(); buf.push_str(&"ab".repeat(x)); buf.len() })
    ///     .collect();
    /// assert_eq!(lens, [0, 2, 4, 6]);
    /// ```
    #[inline]
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Clones every referenced item.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let names = vec!["a".to_string(), "b".to_string()];
    /// let copy: Vec<String> = names.par_iter().cloned().collect();
    /// assert_eq!(copy, names);
    /// ```
    #[inline]
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Copies every referenced item.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec![1u8, 2, 3];
    /// assert_eq!(v.par_iter().copied().map(u32::from).sum::<u32>(), 6);
    /// ```
    #[inline]
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Calls `inspect_op` on a reference to every item as it passes.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let sum: i32 = (1..=4).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((sum, seen.into_inner()), (10, 4));
    /// ```
    #[inline]
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Mutates each item of this iterator before yielding it.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let doubles: Vec<_> = (0..5).into_par_iter().update(|x| *x *= 2).collect();
    /// assert_eq!(doubles, [0, 2, 4, 6, 8]);
    /// ```
    #[inline]
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Keeps the items for which `filter_op` holds.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let odd: Vec<u32> = (0..10u32).into_par_iter().filter(|x| x % 2 == 1).collect();
    /// assert_eq!(odd, [1, 3, 5, 7, 9]);
    /// ```
    #[inline]
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps every item to an `Option` and keeps the `Some` values.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let parsed: Vec<i32> = vec!["1", "x", "3"].into_par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(parsed, [1, 3]);
    /// ```
    #[inline]
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps every item to a parallel iterator and flattens the results.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| (0..n).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    #[inline]
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps every item to a sequential iterator and flattens the results (cheaper than
    /// `flat_map` when the inner sequences are short).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<char> = vec!["ab", "c"].into_par_iter().flat_map_iter(|s| s.chars()).collect();
    /// assert_eq!(v, ['a', 'b', 'c']);
    /// ```
    #[inline]
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator<Item: Send>,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Flattens items that are themselves parallel iterables into one iterator.
    ///
    /// See also [`flatten_iter`](ParallelIterator::flatten_iter).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let x: Vec<Vec<_>> = vec![vec![1, 2], vec![3, 4]];
    /// let y: Vec<_> = x.into_par_iter().flatten().collect();
    /// assert_eq!(y, [1, 2, 3, 4]);
    /// ```
    #[inline]
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Flattens items that are sequential iterables into one iterator (cheaper than
    /// `flatten` when the inner sequences are short).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let x: Vec<Vec<_>> = vec![vec![1, 2], vec![3, 4]];
    /// let iters: Vec<_> = x.into_iter().map(Vec::into_iter).collect();
    /// let y: Vec<_> = iters.into_par_iter().flatten_iter().collect();
    /// assert_eq!(y, [1, 2, 3, 4]);
    /// ```
    #[inline]
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator<Item: Send>,
    {
        FlattenIter::new(self)
    }

    /// Reduces the items with `op`, an associative operation whose neutral element
    /// `identity()` makes (it may be called several times).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let product = (1..=10u64).into_par_iter().reduce(|| 1, |a, b| a * b);
    /// assert_eq!(product, 3_628_800);
    /// ```
    #[inline]
    #[track_caller]
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::reduce::reduce(self, identity, op))
    }

    /// Reduces the items with `op`; `None` if there are none.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((1..5).into_par_iter().reduce_with(|a: i32, b| a.max(b)), Some(4));
    /// assert_eq!((0..0).into_par_iter().reduce_with(|a: i32, b| a + b), None);
    /// ```
    #[inline]
    #[track_caller]
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::reduce::reduce_with(self, op))
    }

    /// Reduces fallible items: stops at the first failure (not visiting the rest) and
    /// returns it; else the reduction of the successes with `op`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let sum = (1..=4u32).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(10));
    /// let overflow = (1..=4u8).into_par_iter().map(|x| Some(x * 60)).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(overflow, None);
    /// ```
    #[inline]
    #[track_caller]
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        crate::program_profile::entry(move || consumers::reduce::try_reduce(self, identity, op))
    }

    /// `try_reduce` without an identity: `None` if there are no items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r = (1..=3i32).into_par_iter().map(Ok::<i32, String>).try_reduce_with(|a, b| Ok(a + b));
    /// assert_eq!(r, Some(Ok(6)));
    /// ```
    #[inline]
    #[track_caller]
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        crate::program_profile::entry(move || consumers::reduce::try_reduce_with(self, op))
    }

    /// Folds the items of every piece of work into an accumulator that `identity()` starts,
    /// and returns a parallel iterator over the accumulators (one per piece; how many
    /// depends on how the work was split). Usually followed by `reduce` or `sum`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = vec!["a", "bb", "ccc"];
    /// let total: usize = words.par_iter().fold(|| 0, |n, w| n + w.len()).sum();
    /// assert_eq!(total, 6);
    /// ```
    #[inline]
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// `fold` starting every piece from a clone of `init`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let n: u32 = (0..100).into_par_iter().fold_with(0u32, |n, _| n + 1).sum();
    /// assert_eq!(n, 100);
    /// ```
    #[inline]
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// A fallible `fold`: a piece stops at its first failure and yields it; the other
    /// pieces go on (follow with `try_reduce` to stop them all).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Option<u32> = (1..=4u32).into_par_iter()
    ///     .try_fold(|| 0u32, |a, x| a.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(10));
    /// ```
    #[inline]
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// `try_fold` starting every piece from a clone of `init`.
    #[inline]
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// From here on, every consumer's answer depends on the items alone, not on the number
    /// of workers or on who took what: the items are folded in fixed blocks of
    /// [`default_block_len`] consecutive positions, and the blocks' results are combined in
    /// a fixed tree (the left child of a node holds the first half of its blocks, rounded
    /// down). A float `sum`, `reduce`, `fold` + `reduce`, `min_by` or `collect` of folded
    /// results gives the same bits at 1 or 64 workers, on every run. The block length is
    /// part of the answer: another one may give other bits, the same one never does.
    ///
    /// Only an [`IndexedParallelIterator`] has the positions blocks are made of: call it
    /// after `zip`, `enumerate`, `chunks`, `rev`, ... and before `map`, `filter`, `fold`, ...
    /// (DESIGN.md, section 8, "Deterministic reductions").
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let xs: Vec<f64> = (0..100_000).map(|i| (i as f64).sin()).collect();
    /// let sum = |workers| forkjoin::Pool::new(workers).unwrap()
    ///     .install(|| xs.par_iter().deterministic().map(|x| x * x).sum::<f64>());
    /// assert_eq!(sum(1).to_bits(), sum(4).to_bits());
    /// ```
    ///
    /// An iterator without positions is refused when compiled:
    ///
    /// ```compile_fail,E0277
    /// use forkjoin::prelude::*;
    /// let sum: f64 = (0..100).map(|i| i as f64).par_bridge().deterministic().sum();
    /// ```
    #[inline]
    fn deterministic(self) -> Deterministic<Self>
    where
        Self: FixedPositions,
    {
        Deterministic::new(self, None)
    }

    /// [`deterministic`](ParallelIterator::deterministic) with blocks of `block_len`
    /// consecutive items (the last block may be shorter). One block per item gives the
    /// most parallelism, for loops of a few long items; a block as long as the input folds
    /// it as the sequential loop does.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total = (0..1000).into_par_iter().deterministic_blocks(100)
    ///     .fold(|| 0.0f64, |acc, i| acc + i as f64)
    ///     .collect::<Vec<f64>>();
    /// assert_eq!(total.len(), 10);
    /// assert_eq!(total[0], 4950.0);
    /// ```
    ///
    /// # Panics
    /// If `block_len` is 0.
    #[inline]
    #[track_caller]
    fn deterministic_blocks(self, block_len: usize) -> Deterministic<Self>
    where
        Self: FixedPositions,
    {
        assert!(block_len != 0, "block_len must not be zero");
        Deterministic::new(self, Some(block_len))
    }

    /// The exact sum of float items, rounded once to the nearest float (ties to even): the
    /// answer does not depend on the order of the items, the splits or the number of
    /// workers, and is the sequential sum's only where no addition of it rounded. Each
    /// piece adds its items into an [`ExactSum`] (a fixed-point accumulator wide enough for
    /// any finite float), and the pieces' accumulators are added exactly. Infinities and
    /// NaN give what IEEE addition gives.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let xs = vec![1e100, 1.0, -1e100, 1e-100];
    /// assert_eq!(xs.par_iter().exact_sum::<f64>(), 1.0);
    /// assert_eq!(xs.iter().sum::<f64>(), 1e-100); // the order-dependent sum
    /// ```
    #[inline]
    #[track_caller]
    fn exact_sum<F>(self) -> F
    where
        F: ExactFloat,
        Self::Item: std::borrow::Borrow<F>,
    {
        crate::program_profile::entry(move || consumers::exact_sum::exact_sum(self))
    }

    /// The sum of the items (`S::sum` over each piece, then over the pieces' sums).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((1..=100).into_par_iter().sum::<i32>(), 5050);
    /// ```
    #[inline]
    #[track_caller]
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        crate::program_profile::entry(move || consumers::sum::sum(self))
    }

    /// The product of the items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((1..=5).into_par_iter().product::<i32>(), 120);
    /// ```
    #[inline]
    #[track_caller]
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        crate::program_profile::entry(move || consumers::sum::product(self))
    }

    /// The smallest item; `None` if there are none. Of equal items, any may be returned.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!(vec![3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    #[inline]
    #[track_caller]
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(Ord::min)
    }

    /// The smallest item by `f`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec![-3i32, 1, 2];
    /// assert_eq!(v.par_iter().min_by(|a, b| a.abs().cmp(&b.abs())), Some(&1));
    /// ```
    #[inline]
    #[track_caller]
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        self.reduce_with(move |a, b| match f(&a, &b) {
            Ordering::Greater => b,
            _ => a,
        })
    }

    /// The item with the smallest key.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec!["ccc", "a", "bb"];
    /// assert_eq!(v.par_iter().min_by_key(|s| s.len()), Some(&"a"));
    /// ```
    #[inline]
    #[track_caller]
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        self.map(move |x| (f(&x), x))
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
    }

    /// The largest item; `None` if there are none. Of equal items, any may be returned.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().max(), Some(999));
    /// ```
    #[inline]
    #[track_caller]
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.max_by(Ord::cmp)
    }

    /// The largest item by `f`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec![-3i32, 1, 2];
    /// assert_eq!(v.par_iter().max_by(|a, b| a.abs().cmp(&b.abs())), Some(&-3));
    /// ```
    #[inline]
    #[track_caller]
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        self.reduce_with(move |a, b| match f(&a, &b) {
            Ordering::Greater => a,
            _ => b,
        })
    }

    /// The item with the largest key.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec!["ccc", "a", "bb"];
    /// assert_eq!(v.par_iter().max_by_key(|s| s.len()), Some(&"ccc"));
    /// ```
    #[inline]
    #[track_caller]
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        self.map(move |x| (f(&x), x))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
    }

    /// This iterator's items followed by `chain`'s.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = (0..2).into_par_iter().chain(vec![7, 8]).collect();
    /// assert_eq!(v, [0, 1, 7, 8]);
    /// ```
    #[inline]
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Some item for which `predicate` holds, not necessarily the first; the search stops
    /// as soon as one is found.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..1_000_000).into_par_iter().find_any(|&x| x == 777), Some(777));
    /// ```
    #[inline]
    #[track_caller]
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::find::find_any(self, predicate))
    }

    /// The first item (in the iterator's order) for which `predicate` holds. Items after
    /// a match already found are not visited.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().find_first(|x| x % 7 == 6), Some(6));
    /// ```
    #[inline]
    #[track_caller]
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::find::find_first(self, predicate))
    }

    /// The last item for which `predicate` holds.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().find_last(|x| x % 7 == 6), Some(993));
    /// ```
    #[inline]
    #[track_caller]
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        crate::program_profile::entry(move || consumers::find::find_last(self, predicate))
    }

    /// `find_any`, under the name rayon keeps for programs written against its first
    /// versions.
    #[doc(hidden)]
    #[deprecated(note = "parallel `find` does not search in order -- use `find_any`, \
                         `find_first`, or `find_last`")]
    #[inline]
    #[track_caller]
    fn find<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.find_any(predicate)
    }

    /// `filter_map` then `find_any`.
    #[inline]
    #[track_caller]
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_any(|_| true)
    }

    /// `filter_map` then `find_first`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec!["x", "2", "y", "4"];
    /// assert_eq!(v.par_iter().find_map_first(|s| s.parse::<i32>().ok()), Some(2));
    /// ```
    #[inline]
    #[track_caller]
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_first(|_| true)
    }

    /// `filter_map` then `find_last`.
    #[inline]
    #[track_caller]
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_last(|_| true)
    }

    /// Whether `predicate` holds for some item; stops at the first that does.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!((0..100).into_par_iter().any(|x| x == 99));
    /// ```
    #[inline]
    #[track_caller]
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&p| p).is_some()
    }

    /// Whether `predicate` holds for every item; stops at the first that does not.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!(!(0..100).into_par_iter().all(|x| x < 50));
    /// ```
    #[inline]
    #[track_caller]
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&p| !p).is_none()
    }

    /// The items up to the first `None`, unwrapped. Once any piece meets a `None`, every
    /// piece stops at its next item, so which `Some` items come before it is unspecified
    /// (items after it in the order may have been taken already).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(v.len(), 10);
    /// let some: Vec<u32> = (0..10u32).into_par_iter().map(|x| (x != 0).then_some(x)).while_some().collect();
    /// assert!(some.len() < 10);
    /// ```
    #[inline]
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// Wraps the iterator in a fuse against panics: once any item's closure panics, the
    /// other pieces of work stop at their next item instead of running to their end. The
    /// panic reaches the caller either way; the fuse costs a load per item and chunk.
    ///
    /// ```should_panic
    /// use forkjoin::prelude::*;
    /// use std::{thread, time::Duration};
    /// (0..1_000_000).into_par_iter().panic_fuse().for_each(|i| {
    ///     thread::sleep(Duration::from_millis(1));
    ///     assert!(i > 0); // stops every piece soon after the first item panics
    /// });
    /// ```
    #[inline]
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Collects the items into a collection: a `Vec` (in order for an ordered iterator),
    /// `String`, `HashMap`, `HashSet`, `BTreeMap`, a `Result` or `Option` of a collection
    /// (the first failure found stops the rest), and others.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::collections::HashMap;
    /// let m: HashMap<u32, u32> = (0..5u32).into_par_iter().map(|i| (i, i * i)).collect();
    /// assert_eq!(m[&3], 9);
    /// let all: Result<Vec<u8>, String> = vec!["1", "2"].par_iter().map(|s| s.parse().map_err(|_| s.to_string())).collect();
    /// assert_eq!(all, Ok(vec![1, 2]));
    /// ```
    #[inline]
    #[track_caller]
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        crate::program_profile::entry(move || C::from_par_iter(self))
    }

    /// Splits pairs into two collections, each in the items' order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let (a, b): (Vec<u32>, Vec<char>) = vec![(1, 'a'), (2, 'b')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['a', 'b']));
    /// ```
    #[inline]
    #[track_caller]
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        crate::program_profile::entry(move || collect::unzip::unzip(self))
    }

    /// Splits the items into those for which `predicate` holds and the others, each in the
    /// items' order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..6u32).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    #[inline]
    #[track_caller]
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        crate::program_profile::entry(move || collect::unzip::partition(self, predicate))
    }

    /// Partitions and maps the items into a pair of collections: `Either::Left` items go
    /// into the first, `Either::Right` items into the second, each in the items' order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use forkjoin::iter::Either;
    /// let (left, right): (Vec<_>, Vec<_>) = (0..8).into_par_iter()
    ///     .partition_map(|x| if x % 2 == 0 { Either::Left(x * 4) } else { Either::Right(x * 3) });
    /// assert_eq!(left, [0, 8, 16, 24]);
    /// assert_eq!(right, [3, 9, 15, 21]);
    /// ```
    ///
    /// Nested `Either`s split as well:
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use forkjoin::iter::Either::*;
    /// let ((fizzbuzz, fizz), (buzz, other)): ((Vec<_>, Vec<_>), (Vec<_>, Vec<_>)) = (1..20)
    ///     .into_par_iter()
    ///     .partition_map(|x| match (x % 3, x % 5) {
    ///         (0, 0) => Left(Left(x)),
    ///         (0, _) => Left(Right(x)),
    ///         (_, 0) => Right(Left(x)),
    ///         (_, _) => Right(Right(x)),
    ///     });
    /// assert_eq!(fizzbuzz, [15]);
    /// assert_eq!(fizz, [3, 6, 9, 12, 18]);
    /// assert_eq!(buzz, [5, 10]);
    /// assert_eq!(other, [1, 2, 4, 7, 8, 11, 13, 14, 16, 17, 19]);
    /// ```
    #[inline]
    #[track_caller]
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        crate::program_profile::entry(move || collect::unzip::partition_map(self, predicate))
    }

    /// Puts a clone of `element` between every two items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Vec<_> = vec![1, 2, 3].into_par_iter().intersperse(-1).collect();
    /// assert_eq!(r, [1, -1, 2, -1, 3]);
    /// ```
    #[inline]
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// `n` items from *anywhere* in the iterator: like
    /// [`take`](IndexedParallelIterator::take), without being held to the first `n`. The
    /// items taken keep their order where it shows (`collect`, `reduce`, ...).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let result: Vec<_> = (0..100).into_par_iter().filter(|&x| x % 2 == 0).take_any(5).collect();
    /// assert_eq!(result.len(), 5);
    /// assert!(result.is_sorted());
    /// ```
    #[inline]
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All but `n` items from *anywhere* in the iterator: like
    /// [`skip`](IndexedParallelIterator::skip), without being held to the first `n`. The
    /// items left keep their order where it shows.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let result: Vec<_> = (0..100).into_par_iter().filter(|&x| x % 2 == 0).skip_any(5).collect();
    /// assert_eq!(result.len(), 45);
    /// assert!(result.is_sorted());
    /// ```
    #[inline]
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Takes items from *anywhere* in the iterator until `predicate` returns `false`
    /// (for any item, anywhere; after that no item is taken). The predicate may check the
    /// item, a global condition, or both. If calls race and give different answers, the
    /// items it said `true` for are still taken. Like `Iterator::take_while`, without the
    /// order; the items taken keep their order where it shows.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let result: Vec<_> = (0..100).into_par_iter().take_any_while(|x| *x < 50).collect();
    /// assert!(result.len() <= 50);
    /// assert!(result.is_sorted());
    /// ```
    #[inline]
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items from *anywhere* in the iterator until `predicate` returns `false` (for
    /// any item, anywhere; after that every item passes). If calls race and give
    /// different answers, the items it said `true` for are still skipped. Like
    /// `Iterator::skip_while`, without the order; the items left keep their order where
    /// it shows.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let result: Vec<_> = (0..100).into_par_iter().skip_any_while(|x| *x < 50).collect();
    /// assert!(result.len() >= 50);
    /// assert!(result.is_sorted());
    /// ```
    #[inline]
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Collects the items into a linked list of vectors, in order: the cheapest way to
    /// gather an unindexed iterator when no particular collection is needed (every piece
    /// of work fills a vector of its own; an iterator of known length fills one).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let list = (0..=100).into_par_iter().filter(|x| x % 2 == 0).flat_map(|x| 0..x).collect_vec_list();
    /// assert_eq!(list.into_iter().flatten().count(), 2550);
    /// ```
    #[inline]
    #[track_caller]
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        crate::program_profile::entry(move || collect::collect_vec_list(self))
    }

    /// Feeds the items to `consumer`. The method every adaptor and consumer is built on
    /// (see [`plumbing`]).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The number of items, if known in advance.
    #[inline]
    fn opt_len(&self) -> Option<usize> {
        None
    }
}

/// A parallel iterator whose length is known and whose items have positions, so it can be
/// zipped, enumerated, reversed, or collected in order straight into place.
///
/// ```
/// use forkjoin::prelude::*;
/// let a = vec![1.0, 2.0, 3.0];
/// let b = vec![4.0, 5.0, 6.0];
/// let dot: f64 = a.par_iter().zip(&b).map(|(x, y)| x * y).sum();
/// assert_eq!(dot, 32.0);
/// ```
// rayon's trait has `len` and no `is_empty`; a method of ours would shadow a user's
// extension trait of the same name.
#[allow(clippy::len_without_is_empty)]
pub trait IndexedParallelIterator: ParallelIterator {
    /// Collects into `target`, replacing what it held, writing every item straight into
    /// place (no intermediate vectors).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = vec![9, 9];
    /// (0..4).into_par_iter().map(|x| x * x).collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 4, 9]);
    /// ```
    #[inline]
    #[track_caller]
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        crate::program_profile::entry(move || collect::collect_into_vec(self, target))
    }

    /// Unzips pairs into `left` and `right`, replacing what they held, writing every item
    /// straight into place.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut left = vec![42; 10];
    /// let mut right = vec![-1; 10];
    /// (10..15).into_par_iter().enumerate().unzip_into_vecs(&mut left, &mut right);
    /// assert_eq!(left, [0, 1, 2, 3, 4]);
    /// assert_eq!(right, [10, 11, 12, 13, 14]);
    /// ```
    #[inline]
    #[track_caller]
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        crate::program_profile::entry(move || collect::unzip::unzip_into_vecs(self, left, right))
    }

    /// Divides the iterator into a *sequence* of blocks of growing length (the pool's
    /// size, then twice that each time), each block a parallel loop of its own started once
    /// the previous one is done. A search stops at the first block that answers:
    /// `find_first` pays for at most about twice the items before its match, and
    /// `find_any` for a predictable amount.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..10_000).into_par_iter().by_exponential_blocks().find_first(|&e| e == 4_999), Some(4_999));
    /// ```
    #[inline]
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Divides the iterator into a *sequence* of blocks of `block_size` items, each block a
    /// parallel loop of its own started once the previous one is done (for memory
    /// locality, when a reduction reuses what it folded).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = (0u32..100_000).into_par_iter().by_uniform_blocks(10_000)
    ///     .fold(Vec::new, |mut v, e| { v.push(e); v })
    ///     .reduce(Vec::new, |mut v1, mut v2| { v1.append(&mut v2); v1 });
    /// assert_eq!(v, (0u32..100_000).collect::<Vec<u32>>());
    /// ```
    ///
    /// # Panics
    /// If `block_size` is 0.
    #[track_caller]
    #[inline]
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        assert!(block_size != 0, "block_size must not be zero");
        UniformBlocks::new(self, block_size)
    }

    /// Pairs every item with the item at the same position of `zip_op`; as long as the
    /// shorter of the two. As in rayon, the closures before the longer side run on its
    /// unpaired items only where `std::iter::Zip` takes them: when iterated backward (all
    /// of them), or one more item at the end of a side that is not random-access (a `Vec`'s
    /// items, unlike a range or slice).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pairs: Vec<(i32, char)> = (0..3).into_par_iter().zip(vec!['a', 'b', 'c', 'd']).collect();
    /// assert_eq!(pairs, [(0, 'a'), (1, 'b'), (2, 'c')]);
    /// ```
    #[inline]
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// `zip` of two iterators of the same length.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(u8, char)> = vec![1, 2].into_par_iter().zip_eq(vec!['a', 'b']).collect();
    /// assert_eq!(v, [(1, 'a'), (2, 'b')]);
    /// ```
    ///
    /// # Panics
    /// If the lengths differ.
    ///
    /// ```should_panic
    /// use forkjoin::prelude::*;
    /// let zipped: Vec<(&u8, &u8)> = [1u8].par_iter().zip_eq(&[2u8, 2]).collect();
    /// ```
    #[track_caller]
    #[inline]
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let other = zip_op.into_par_iter();
        assert_eq!(
            self.len(),
            other.len(),
            "iterators must have the same length"
        );
        ZipEq::new(self, other)
    }

    /// The items of this iterator and `other` in turn, starting with this one's; once one
    /// runs out, the rest of the other.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Vec<i32> = vec![1, 2].into_par_iter().interleave(vec![3, 4, 5, 6]).collect();
    /// assert_eq!(r, [1, 3, 2, 4, 5, 6]);
    /// ```
    #[inline]
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// The items of this iterator and `other` in turn, until one runs out.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Vec<i32> = vec![1, 2, 3, 4].into_par_iter().interleave_shortest(vec![5, 6]).collect();
    /// assert_eq!(r, [1, 5, 2, 6, 3]);
    /// ```
    #[inline]
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// Groups the items into vectors of `chunk_size` (the last may be shorter).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let c: Vec<Vec<i32>> = (0..5).into_par_iter().chunks(2).collect();
    /// assert_eq!(c, [vec![0, 1], vec![2, 3], vec![4]]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[inline]
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks::new(self, chunk_size)
    }

    /// Splits the items into chunks of `chunk_size` (the last may be shorter) and folds
    /// each chunk sequentially from `identity()`: `chunks(chunk_size)` followed by
    /// `map(|c| c.into_iter().fold(identity(), fold_op))`, without a vector per chunk.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let nums = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    /// let sums: Vec<i32> = nums.into_par_iter().fold_chunks(2, || 0, |a, n| a + n).collect();
    /// assert_eq!(sums, [3, 7, 11, 15, 19]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    #[inline]
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// `fold_chunks` starting every chunk from a clone of `init` (which need not be
    /// `Sync`).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let nums = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    /// let sums: Vec<i32> = nums.into_par_iter().fold_chunks_with(2, 0, |a, n| a + n).collect();
    /// assert_eq!(sums, [3, 7, 11, 15, 19]);
    /// ```
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    #[inline]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Compares the items with `other`'s lexicographically, as `Iterator::cmp` does.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::cmp::Ordering::*;
    /// let x = vec![1, 2, 3];
    /// assert_eq!(x.par_iter().cmp(&vec![1, 3, 0]), Less);
    /// assert_eq!(x.par_iter().cmp(&vec![1, 2, 3]), Equal);
    /// assert_eq!(x.par_iter().cmp(&vec![1, 2]), Greater);
    /// ```
    #[inline]
    #[track_caller]
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| Ord::cmp(&x, &y))
            .find_first(|&o| o != Ordering::Equal)
            .unwrap_or(by_len)
    }

    /// Compares the items with `other`'s lexicographically, as `Iterator::partial_cmp`
    /// does: `None` at the first pair that does not compare.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::cmp::Ordering::*;
    /// let x = vec![1.0, 2.0, 3.0];
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, 3.0, 0.0]), Some(Less));
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, 2.0, 3.0]), Some(Equal));
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, 2.0]), Some(Greater));
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, f64::NAN]), None);
    /// ```
    #[inline]
    #[track_caller]
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
            .find_first(|&o| o != Some(Ordering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// Whether the items equal `other`'s (same length, equal pairs).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// assert!(!(0..3).into_par_iter().eq(vec![0, 1]));
    /// ```
    #[inline]
    #[track_caller]
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x == y)
    }

    /// Whether the items differ from `other`'s.
    #[inline]
    #[track_caller]
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether the items are lexicographically less than `other`'s.
    #[inline]
    #[track_caller]
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Whether the items are lexicographically less than or equal to `other`'s.
    #[inline]
    #[track_caller]
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Whether the items are lexicographically greater than `other`'s.
    #[inline]
    #[track_caller]
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Whether the items are lexicographically greater than or equal to `other`'s.
    #[inline]
    #[track_caller]
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Pairs every item with its position.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(usize, char)> = vec!['a', 'b'].into_par_iter().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    #[inline]
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Every `step`-th item, starting with the first.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = (0..10).into_par_iter().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    ///
    /// # Panics
    /// If `step` is 0.
    #[inline]
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// All but the first `n` items. As in rayon, the skipped items are still produced and
    /// dropped: the closures before `skip` run on them too (in parallel, after the items
    /// kept), and a panic in one reaches the caller.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let v: Vec<i32> = (0..5).into_par_iter().skip(3).collect();
    /// assert_eq!(v, [3, 4]);
    ///
    /// let runs = AtomicUsize::new(0);
    /// let kept = (0..100)
    ///     .into_par_iter()
    ///     .inspect(|_| {
    ///         runs.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .skip(90)
    ///     .count();
    /// assert_eq!((kept, runs.into_inner()), (10, 100));
    /// ```
    #[inline]
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items. The rest are never produced (an owning iterator drops them),
    /// so the closures before `take` do not run on them, as in rayon.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().take(2).collect();
    /// assert_eq!(v, [0, 1]);
    /// ```
    #[inline]
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The position of some item for which `predicate` holds, not necessarily the first.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((10..20).into_par_iter().position_any(|x| x == 15), Some(5));
    /// ```
    #[inline]
    #[track_caller]
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_any(|&(_, p)| p)?;
        Some(i)
    }

    /// The position of the first item for which `predicate` holds.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..100).into_par_iter().position_first(|x| x % 10 == 9), Some(9));
    /// ```
    #[inline]
    #[track_caller]
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_first(|&(_, p)| p)?;
        Some(i)
    }

    /// The position of the last item for which `predicate` holds.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..100).into_par_iter().position_last(|x| x % 10 == 9), Some(99));
    /// ```
    #[inline]
    #[track_caller]
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_last(|&(_, p)| p)?;
        Some(i)
    }

    /// `position_any`, under the name rayon keeps for programs written against its first
    /// versions.
    #[doc(hidden)]
    #[deprecated(note = "parallel `position` does not search in order -- use \
                         `position_any`, `position_first`, or `position_last`")]
    #[inline]
    #[track_caller]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The positions of the items for which `predicate` holds, in order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let primes = vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29];
    /// let p1mod6: Vec<_> = primes.par_iter().positions(|&p| p % 6 == 1).collect();
    /// assert_eq!(p1mod6, [3, 5, 7]); // 7, 13 and 19
    /// ```
    #[inline]
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().rev().collect();
    /// assert_eq!(v, [3, 2, 1, 0]);
    /// ```
    #[inline]
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Never splits the work into pieces of fewer than `min` items. A bound for programs
    /// that need one (e.g. per-piece set-up cost in `map_init`); forkjoin never needs it
    /// for speed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pieces: usize = (0..1000).into_par_iter().with_min_len(1000).fold(|| 0, |n, _| n).count();
    /// assert_eq!(pieces, 1);
    /// ```
    #[inline]
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Always splits the work into pieces of at most `max` items, eagerly.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pieces: Vec<usize> = (0..8).into_par_iter().with_max_len(2).fold(|| 0, |n, _| n + 1).collect();
    /// assert!(pieces.len() >= 4 && pieces.iter().all(|&n| n <= 2));
    /// ```
    #[inline]
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// The number of items.
    fn len(&self) -> usize;

    /// Feeds the items to an indexed `consumer` (see [`plumbing`]).
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// Calls `callback` with this iterator's producer (see [`plumbing`]).
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;
}

/// A parallel iterator that moves a range of items out of a collection, which keeps its
/// capacity (`vec.par_drain(1..3)`; also a `VecDeque`'s items and a `String`'s chars, its
/// range in bytes). Collections that cannot be drained by index implement
/// [`ParallelDrainFull`] instead.
///
/// When the iterator is dropped, every item in the range has been removed, even if the
/// iterator was not consumed to the end (the rest are dropped). If the iterator is leaked
/// (`std::mem::forget`), how many items are removed is unspecified.
///
/// ```
/// use forkjoin::prelude::*;
/// let squares: Vec<i32> = (0..10).map(|x| x * x).collect();
/// let mut vec = squares.clone();
/// assert!(vec.par_drain(3..7).eq(squares[3..7].par_iter().copied()));
/// assert_eq!(vec, [0, 1, 4, 49, 64, 81]);
/// assert!(vec.capacity() >= squares.len());
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// A parallel iterator that removes the items of `range`.
    fn par_drain<R: std::ops::RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// A parallel iterator that moves every item out of a collection, which keeps its capacity
/// (`map.par_drain()`): for collections that cannot be drained by index (`HashMap`,
/// `HashSet`, `BinaryHeap`); those that can implement [`ParallelDrainRange`] instead.
///
/// When the iterator is dropped, every item has been removed, even if the iterator was not
/// consumed to the end (the rest are dropped). If the iterator is leaked
/// (`std::mem::forget`), how many items are removed is unspecified.
///
/// ```
/// use forkjoin::prelude::*;
/// use std::collections::{BinaryHeap, HashSet};
/// let squares: HashSet<i32> = (0..10).map(|x| x * x).collect();
/// let mut heap: BinaryHeap<i32> = squares.iter().copied().collect();
/// // A heap drains in no particular order.
/// assert_eq!(heap.par_drain().inspect(|x| assert!(squares.contains(x))).count(), 10);
/// assert!(heap.is_empty() && heap.capacity() >= 10);
/// ```
pub trait ParallelDrainFull {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// A parallel iterator that removes every item.
    fn par_drain(self) -> Self::Iter;
}

/// Builds a collection from a parallel iterator (what `collect` makes).
///
/// ```
/// use forkjoin::prelude::*;
/// let s: String = vec!["fork", "join"].into_par_iter().collect();
/// assert_eq!(s, "forkjoin");
/// ```
pub trait FromParallelIterator<T>
where
    T: Send,
{
    /// Builds `Self` from the items of `par_iter`.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// Extends a collection with the items of a parallel iterator.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![0];
/// v.par_extend(1..4);
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T>
where
    T: Send,
{
    /// Adds the items of `par_iter`, in order for an ordered iterator and collection.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}
