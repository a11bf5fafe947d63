//! The consumer of every item-by-item adaptor (`map`, `filter`, `while_some`, ...): one
//! type, [`ItemWise`], whose `Consumer` implementation is written once, here.
//!
//! Such an adaptor wraps the consumer below it and changes only the items, so it must pass
//! on what its base tells the splitter: `SPLITS_FOLDER` with `split_folder` (one folder per
//! run, not one per chunk) and `RIGHT_FIRST` (a `find_last` searches from the right). The
//! trait's defaults compile without them and silently lose both, so an adaptor does not
//! implement `Consumer` itself: it implements [`ItemOp`], its own part (a closure, a flag, a
//! state), and its consumer is `ItemWise<C, Op>`, which forwards the three for it.
//! rayon keeps the same discipline for iterators in `delegate.rs`, with macros.
//!
//! Adaptors whose consumer does more than wrap its base's are not item-by-item: they keep a
//! `Consumer` of their own and decide by hand what to pass on. `flat_map` (its folder holds
//! the base consumer, to drive the inner iterators), `fold` (its folder hands on one item),
//! `intersperse` (its own reducer and result) and `unzip` (two bases).

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};

/// What an item-by-item adaptor adds to the consumer it wraps: the adaptor's part of its
/// consumer, and the folder it puts around its base's folder.
pub(crate) trait ItemOp<In>: Send + Sized {
    /// The items the base consumer takes.
    type Out;

    /// The adaptor's folder around the base's folder `F`.
    type Folder<F: Folder<Self::Out>>: Folder<In, Result = F::Result>;

    /// The part for the piece split off to the left (`split_at`, `split_off_left`); `self`
    /// goes on with the right.
    fn split_left(&self) -> Self;

    /// Wraps the base's folder.
    fn into_folder<F: Folder<Self::Out>>(self, base: F) -> Self::Folder<F>;

    /// The base's folder inside the adaptor's.
    fn base_folder<F: Folder<Self::Out>>(folder: &mut Self::Folder<F>) -> &mut F;

    /// The part for a consumer that takes over what a running folder has not folded yet
    /// (`split_folder`, after the base's folder has been split).
    fn split_folder<F: Folder<Self::Out>>(folder: &Self::Folder<F>) -> Self;

    /// Whether the adaptor wants no more items, whatever its base wants.
    #[inline]
    fn stopped(&self) -> bool {
        false
    }
}

/// The consumer of an item-by-item adaptor: its base consumer and its part.
pub(crate) struct ItemWise<C, Op> {
    base: C,
    op: Op,
}

impl<C, Op> ItemWise<C, Op> {
    #[inline]
    pub(crate) fn new(base: C, op: Op) -> Self {
        ItemWise { base, op }
    }
}

impl<In, C, Op> Consumer<In> for ItemWise<C, Op>
where
    Op: ItemOp<In>,
    C: Consumer<Op::Out>,
{
    type Folder = Op::Folder<C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left = ItemWise::new(left, self.op.split_left());
        (left, ItemWise::new(right, self.op), reducer)
    }

    #[inline]
    fn into_folder(self) -> Self::Folder {
        self.op.into_folder(self.base.into_folder())
    }

    #[inline]
    fn full(&self) -> bool {
        self.op.stopped() || self.base.full()
    }

    // What this type exists for: the base's choices, passed on.
    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;
    const RIGHT_FIRST: bool = C::RIGHT_FIRST;

    #[inline]
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, C::Reducer) {
        let (base, reducer) = C::split_folder(Op::base_folder(folder), keep);
        (ItemWise::new(base, Op::split_folder(folder)), reducer)
    }
}

impl<In, C, Op> UnindexedConsumer<In> for ItemWise<C, Op>
where
    Op: ItemOp<In>,
    C: UnindexedConsumer<Op::Out>,
{
    #[inline]
    fn split_off_left(&self) -> Self {
        ItemWise::new(self.base.split_off_left(), self.op.split_left())
    }

    #[inline]
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::plumbing::Reducer;
    use crate::prelude::*;
    use crate::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::Mutex;

    /// A base consumer that collects its items in order and counts the folders made and
    /// the `keep` of every `split_folder` asked of it; the splitter's two choices are its
    /// parameters.
    struct Probe<'a, const SPLITS: bool, const RIGHT: bool> {
        folders: &'a AtomicUsize,
        keeps: &'a Mutex<Vec<usize>>,
    }

    struct ProbeFolder<'a, T> {
        probe: Probe<'a, true, false>,
        items: Vec<T>,
    }

    struct Concat;

    impl<T> Reducer<Vec<T>> for Concat {
        fn reduce(self, mut left: Vec<T>, right: Vec<T>) -> Vec<T> {
            left.extend(right);
            left
        }
    }

    impl<'a, const SPLITS: bool, const RIGHT: bool> Probe<'a, SPLITS, RIGHT> {
        fn new(folders: &'a AtomicUsize, keeps: &'a Mutex<Vec<usize>>) -> Self {
            Probe { folders, keeps }
        }

        fn again<const S: bool, const R: bool>(&self) -> Probe<'a, S, R> {
            Probe::new(self.folders, self.keeps)
        }
    }

    impl<'a, T: Send, const SPLITS: bool, const RIGHT: bool> Consumer<T> for Probe<'a, SPLITS, RIGHT> {
        type Folder = ProbeFolder<'a, T>;
        type Reducer = Concat;
        type Result = Vec<T>;

        fn split_at(self, _index: usize) -> (Self, Self, Concat) {
            (self.again(), self, Concat)
        }

        fn into_folder(self) -> ProbeFolder<'a, T> {
            self.folders.fetch_add(1, Relaxed);
            let probe = self.again();
            ProbeFolder {
                probe,
                items: Vec::new(),
            }
        }

        fn full(&self) -> bool {
            false
        }

        const SPLITS_FOLDER: bool = SPLITS;
        const RIGHT_FIRST: bool = RIGHT;

        fn split_folder(folder: &mut ProbeFolder<'a, T>, keep: usize) -> (Self, Concat) {
            folder.probe.keeps.lock().unwrap().push(keep);
            (folder.probe.again(), Concat)
        }
    }

    impl<T: Send, const SPLITS: bool, const RIGHT: bool> UnindexedConsumer<T>
        for Probe<'_, SPLITS, RIGHT>
    {
        fn split_off_left(&self) -> Self {
            self.again()
        }

        fn to_reducer(&self) -> Concat {
            Concat
        }
    }

    impl<T> Folder<T> for ProbeFolder<'_, T> {
        type Result = Vec<T>;

        fn consume(mut self, item: T) -> Self {
            self.items.push(item);
            self
        }

        fn complete(self) -> Vec<T> {
            self.items
        }

        fn full(&self) -> bool {
            false
        }
    }

    /// An adaptor of the test's own: adds one to every item.
    struct AddOne;

    struct AddOneFolder<F>(F);

    impl ItemOp<u32> for AddOne {
        type Out = u32;
        type Folder<F: Folder<u32>> = AddOneFolder<F>;

        fn split_left(&self) -> Self {
            AddOne
        }

        fn into_folder<F: Folder<u32>>(self, base: F) -> AddOneFolder<F> {
            AddOneFolder(base)
        }

        fn base_folder<F: Folder<u32>>(folder: &mut AddOneFolder<F>) -> &mut F {
            &mut folder.0
        }

        fn split_folder<F: Folder<u32>>(_folder: &AddOneFolder<F>) -> Self {
            AddOne
        }
    }

    impl<F: Folder<u32>> Folder<u32> for AddOneFolder<F> {
        type Result = F::Result;

        fn consume(self, item: u32) -> Self {
            AddOneFolder(self.0.consume(item + 1))
        }

        fn complete(self) -> F::Result {
            self.0.complete()
        }

        fn full(&self) -> bool {
            self.0.full()
        }
    }

    fn choices<C: Consumer<u32>>() -> (bool, bool) {
        (C::SPLITS_FOLDER, C::RIGHT_FIRST)
    }

    #[test]
    fn passes_the_base_choices_on() {
        assert_eq!(
            choices::<ItemWise<Probe<false, false>, AddOne>>(),
            (false, false)
        );
        assert_eq!(
            choices::<ItemWise<Probe<true, false>, AddOne>>(),
            (true, false)
        );
        assert_eq!(
            choices::<ItemWise<Probe<false, true>, AddOne>>(),
            (false, true)
        );
        assert_eq!(
            choices::<ItemWise<Probe<true, true>, AddOne>>(),
            (true, true)
        );
    }

    /// A running folder split as the splitter splits it: the base's folder is split with
    /// the same `keep`, and the consumer returned feeds the base's through the adaptor.
    #[test]
    fn splits_a_running_folder_through_the_base() {
        let (folders, keeps) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let consumer = ItemWise::new(Probe::<true, false>::new(&folders, &keeps), AddOne);
        let mut folder = Consumer::<u32>::into_folder(consumer).consume(1).consume(2);
        let (rest, reducer) = ItemWise::<Probe<true, false>, AddOne>::split_folder(&mut folder, 7);
        let left = folder.consume(3).complete();
        let right = rest.into_folder().consume(10).consume(11).complete();
        assert_eq!(reducer.reduce(left, right), [2, 3, 4, 11, 12]);
        assert_eq!(*keeps.lock().unwrap(), [7]);
        assert_eq!(folders.load(Relaxed), 2);
    }

    /// Runs `make()`'s iterator into a probe that splits its folders, in a pool of two
    /// workers: returns the items and the number of folders made. On 100 items in pieces of
    /// at least 50 (`with_min_len`) a run never shares its rest (half of it is under 50),
    /// so a chain that passes `SPLITS_FOLDER` on folds everything into one folder; one that
    /// drops it gets a folder per chunk, two.
    fn fold_into_probe<I, T>(pool: &Pool, make: impl FnOnce() -> I + Send) -> (Vec<T>, usize)
    where
        I: ParallelIterator<Item = T>,
        T: Send,
    {
        let (folders, keeps) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let items =
            pool.install(|| make().drive_unindexed(Probe::<true, false>::new(&folders, &keeps)));
        assert_eq!(*keeps.lock().unwrap(), Vec::<usize>::new());
        (items, folders.load(Relaxed))
    }

    #[test]
    fn every_item_by_item_adaptor_folds_a_run_into_one_folder() {
        let pool = Pool::new(2).unwrap();
        let all: Vec<u32> = (0..100).collect();
        let source = || all.clone().into_par_iter().with_min_len(50);
        let evens: Vec<u32> = (0..100).step_by(2).collect();
        let doubled: Vec<u32> = (0..100).map(|x| 2 * x).collect();
        let expect = |name: &str, got: (Vec<u32>, usize), items: &[u32]| {
            assert_eq!(got, (items.to_vec(), 1), "{name}");
        };

        expect(
            "map",
            fold_into_probe(&pool, || source().map(|x| 2 * x)),
            &doubled,
        );
        expect(
            "map_with",
            fold_into_probe(&pool, || source().map_with(2, |k, x| *k * x)),
            &doubled,
        );
        expect(
            "map_init",
            fold_into_probe(&pool, || source().map_init(|| 2, |k, x| *k * x)),
            &doubled,
        );
        expect(
            "filter",
            fold_into_probe(&pool, || source().filter(|x| x % 2 == 0)),
            &evens,
        );
        expect(
            "filter_map",
            fold_into_probe(&pool, || source().filter_map(|x| (x % 2 == 0).then_some(x))),
            &evens,
        );
        expect(
            "take_any",
            fold_into_probe(&pool, || source().take_any(10)),
            &all[..10],
        );
        expect(
            "skip_any",
            fold_into_probe(&pool, || source().skip_any(10)),
            &all[10..],
        );
        expect(
            "take_any_while",
            fold_into_probe(&pool, || source().take_any_while(|&x| x < 30)),
            &all[..30],
        );
        expect(
            "skip_any_while",
            fold_into_probe(&pool, || source().skip_any_while(|&x| x < 30)),
            &all[30..],
        );
        expect(
            "cloned",
            fold_into_probe(&pool, || all.par_iter().with_min_len(50).cloned()),
            &all,
        );
        expect(
            "copied",
            fold_into_probe(&pool, || all.par_iter().with_min_len(50).copied()),
            &all,
        );
        expect(
            "inspect",
            fold_into_probe(&pool, || source().inspect(|_| {})),
            &all,
        );
        expect(
            "update",
            fold_into_probe(&pool, || source().update(|x| *x *= 2)),
            &doubled,
        );
        let options: Vec<Option<u32>> = (0..100).map(|x| (x != 60).then_some(x)).collect();
        expect(
            "while_some",
            fold_into_probe(&pool, || {
                options
                    .clone()
                    .into_par_iter()
                    .with_min_len(50)
                    .while_some()
            }),
            &all[..60],
        );
        expect(
            "panic_fuse",
            fold_into_probe(&pool, || source().panic_fuse()),
            &all,
        );
        expect(
            "flat_map_iter",
            fold_into_probe(&pool, || source().flat_map_iter(|x| [x, x + 100])),
            &(0..100).flat_map(|x| [x, x + 100]).collect::<Vec<_>>(),
        );
        // Not item by item, but `fold` passes `SPLITS_FOLDER` on too: one accumulator.
        expect(
            "fold",
            fold_into_probe(&pool, || source().fold(|| 0, |a, x| a + x)),
            &[4950],
        );
    }

    /// Runs `make()`'s iterator into `find_last` on one worker: returns the answer and the
    /// items the predicate saw. A chain that passes `RIGHT_FIRST` on folds the last item
    /// first, and the search then ends at the first match; one that drops it searches
    /// every item from the first.
    fn find_last<I, T>(pool: &Pool, make: impl FnOnce() -> I + Send) -> (Option<T>, Vec<T>)
    where
        I: ParallelIterator<Item = T>,
        T: Send + Clone,
    {
        let seen = Mutex::new(Vec::new());
        let last = pool.install(|| {
            make().find_last(|x| {
                seen.lock().unwrap().push(x.clone());
                true
            })
        });
        (last, seen.into_inner().unwrap())
    }

    #[test]
    fn every_item_by_item_adaptor_searches_from_the_right() {
        let pool = Pool::new(1).unwrap();
        let all: Vec<u32> = (0..1000).collect();
        let somes: Vec<Option<u32>> = (0..1000).map(Some).collect();
        let source = || (0..1000u32).into_par_iter();
        let expect = |name: &str, got: (Option<u32>, Vec<u32>), item: u32| {
            assert_eq!(got, (Some(item), vec![item]), "{name}");
        };

        expect("map", find_last(&pool, || source().map(|x| 2 * x)), 1998);
        expect(
            "map_with",
            find_last(&pool, || source().map_with(2, |k, x| *k * x)),
            1998,
        );
        expect(
            "map_init",
            find_last(&pool, || source().map_init(|| 2, |k, x| *k * x)),
            1998,
        );
        // The first piece, 999, is filtered out; the next, 998, is the last match.
        expect(
            "filter",
            find_last(&pool, || source().filter(|x| x % 2 == 0)),
            998,
        );
        expect(
            "filter_map",
            find_last(&pool, || source().filter_map(|x| (x % 2 == 0).then_some(x))),
            998,
        );
        expect("take_any", find_last(&pool, || source().take_any(1)), 999);
        expect("skip_any", find_last(&pool, || source().skip_any(1)), 998);
        expect(
            "take_any_while",
            find_last(&pool, || source().take_any_while(|_| true)),
            999,
        );
        expect(
            "skip_any_while",
            find_last(&pool, || source().skip_any_while(|&x| x == 999)),
            998,
        );
        expect("cloned", find_last(&pool, || all.par_iter().cloned()), 999);
        expect("copied", find_last(&pool, || all.par_iter().copied()), 999);
        expect(
            "inspect",
            find_last(&pool, || source().inspect(|_| {})),
            999,
        );
        expect(
            "update",
            find_last(&pool, || source().update(|x| *x *= 2)),
            1998,
        );
        expect(
            "while_some",
            find_last(&pool, || somes.clone().into_par_iter().while_some()),
            999,
        );
        expect(
            "panic_fuse",
            find_last(&pool, || source().panic_fuse()),
            999,
        );
        // The last item's inner items are folded front to back.
        assert_eq!(
            find_last(&pool, || source().flat_map_iter(|x| [2 * x, 2 * x + 1])),
            (Some(1999), vec![1998, 1999]),
            "flat_map_iter"
        );
        // Not item by item, but `flat_map` passes `RIGHT_FIRST` on too, to the inner
        // iterators as well: the last inner item is the first searched.
        expect(
            "flat_map",
            find_last(&pool, || {
                source().flat_map(|x| (2 * x..2 * x + 2).into_par_iter())
            }),
            1999,
        );
    }
}
