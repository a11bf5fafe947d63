//! The plumbing traits from a user's side: consumers written for rayon (`Consumer`,
//! `Folder`, `Reducer`, `UnindexedConsumer`) work unchanged, and a user's own unindexed
//! producer drives the adaptors and consumers.

use crate::common::*;
use forkjoin::prelude::*;
use std::sync::Mutex;

/// A consumer written for rayon: it does not implement `split_folder`, so the splitter
/// gives every chunk a folder of its own (the path none of forkjoin's own consumers takes).
/// It collects in order and records the size of every piece it folded.
mod rayon_style {
    use forkjoin::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
    use std::sync::Mutex;

    pub(super) struct Collect<'a> {
        pub pieces: &'a Mutex<Vec<usize>>,
    }

    pub(super) struct CollectFolder<'a, T> {
        items: Vec<T>,
        pieces: &'a Mutex<Vec<usize>>,
    }

    pub(super) struct Concat;

    impl<T> Reducer<Vec<T>> for Concat {
        fn reduce(self, mut left: Vec<T>, mut right: Vec<T>) -> Vec<T> {
            left.append(&mut right);
            left
        }
    }

    impl<'a, T: Send> Consumer<T> for Collect<'a> {
        type Folder = CollectFolder<'a, T>;
        type Reducer = Concat;
        type Result = Vec<T>;
        fn split_at(self, _index: usize) -> (Self, Self, Concat) {
            (
                Collect {
                    pieces: self.pieces,
                },
                Collect {
                    pieces: self.pieces,
                },
                Concat,
            )
        }
        fn into_folder(self) -> Self::Folder {
            CollectFolder {
                items: Vec::new(),
                pieces: self.pieces,
            }
        }
        fn full(&self) -> bool {
            false
        }
    }

    impl<'a, T: Send> UnindexedConsumer<T> for Collect<'a> {
        fn split_off_left(&self) -> Self {
            Collect {
                pieces: self.pieces,
            }
        }
        fn to_reducer(&self) -> Concat {
            Concat
        }
    }

    impl<'a, T> Folder<T> for CollectFolder<'a, T> {
        type Result = Vec<T>;
        fn consume(mut self, item: T) -> Self {
            self.items.push(item);
            self
        }
        fn complete(self) -> Vec<T> {
            self.pieces.lock().unwrap().push(self.items.len());
            self.items
        }
        fn full(&self) -> bool {
            false
        }
    }
}

#[test]
fn consumers_written_for_rayon_work_unchanged() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        let pieces = Mutex::new(Vec::new());
        let got: Vec<u64> = v
            .par_iter()
            .map(|x| x >> 3)
            .drive(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().map(|x| x >> 3).collect::<Vec<_>>(),
            "drive, {at}"
        );
        assert_eq!(pieces.lock().unwrap().iter().sum::<usize>(), n, "{at}");
        let got: Vec<&u64> = v
            .par_iter()
            .filter(|&&x| x % 3 == 0)
            .drive_unindexed(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>(),
            "drive_unindexed, {at}"
        );
        let got: Vec<u64> = v
            .par_iter()
            .flat_map_iter(|&x| [x, x + 1])
            .drive_unindexed(rayon_style::Collect { pieces: &pieces });
        assert_eq!(
            got,
            v.iter().flat_map(|&x| [x, x + 1]).collect::<Vec<_>>(),
            "flat_map_iter, {at}"
        );
        // The bounds hold on this path too.
        for k in [1000, 4096] {
            let pieces = Mutex::new(Vec::new());
            let got: Vec<&u64> = v
                .par_iter()
                .with_max_len(k)
                .drive(rayon_style::Collect { pieces: &pieces });
            assert_eq!(got, v.iter().collect::<Vec<_>>(), "{at}");
            let pieces = pieces.into_inner().unwrap();
            assert!(
                pieces.iter().all(|&c| c <= k),
                "with_max_len({k}): {:?}, {at}",
                pieces.iter().max()
            );
        }
        let pieces = Mutex::new(Vec::new());
        let got: Vec<&u64> = v
            .par_iter()
            .with_min_len(n.max(1))
            .drive(rayon_style::Collect { pieces: &pieces });
        assert_eq!(got, v.iter().collect::<Vec<_>>(), "{at}");
        if n > 0 {
            assert_eq!(pieces.into_inner().unwrap(), [n], "with_min_len({n}), {at}");
        }
    });
}

/// A parallel iterator of our own over an unindexed producer (it can only halve itself):
/// the standard consumers keep its order.
mod halving {
    use forkjoin::iter::plumbing::{
        bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer,
    };
    use forkjoin::prelude::*;

    pub(super) struct Halves(pub std::ops::Range<u64>);

    impl UnindexedProducer for Halves {
        type Item = u64;
        fn split(self) -> (Self, Option<Self>) {
            let r = self.0;
            if r.end - r.start < 2 {
                return (Halves(r), None);
            }
            let mid = r.start + (r.end - r.start) / 2;
            (Halves(r.start..mid), Some(Halves(mid..r.end)))
        }
        fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
            folder.consume_iter(self.0)
        }
    }

    impl ParallelIterator for Halves {
        type Item = u64;
        fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
            bridge_unindexed(self, consumer)
        }
    }
}

#[test]
fn an_unindexed_producer_of_our_own() {
    on_pools_and_lens(&LENS, |at, n| {
        let n = n as u64;
        let got: Vec<u64> = halving::Halves(0..n).collect();
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "collect, {at}");
        assert_eq!(
            halving::Halves(0..n).map(|x| x * x).sum::<u64>(),
            (0..n).map(|x| x * x).sum::<u64>(),
            "{at}"
        );
        assert_eq!(
            halving::Halves(0..n).find_first(|x| x % 7 == 3),
            (0..n).find(|x| x % 7 == 3),
            "{at}"
        );
        assert_eq!(
            halving::Halves(0..n).find_last(|x| x % 7 == 3),
            (0..n).rev().find(|x| x % 7 == 3),
            "{at}"
        );
        let (a, b): (Vec<u64>, Vec<u64>) = halving::Halves(0..n).partition(|x| x % 3 == 0);
        assert_eq!(
            (a, b),
            (0..n).partition::<Vec<u64>, _>(|x| x % 3 == 0),
            "{at}"
        );
        let m = halving::Halves(0..n).map(mat).reduce(|| ID, mul);
        assert_eq!(
            m,
            (0..n).fold(ID, |a, x| mul(a, mat(x))),
            "reduce keeps the order, {at}"
        );
    });
}

/// Where a loop runs, as on rayon: one that can never be split (`with_min_len` at least half
/// its length, or a single item) runs on the calling thread when called from outside any
/// pool; one that can be split runs on the pool's workers; inside a pool, on its workers.
#[test]
fn a_loop_that_cannot_split_runs_on_its_caller_outside_a_pool() {
    let workers_seen = |v: &mut Vec<u64>, min: usize| {
        let seen = Mutex::new(Vec::new());
        v.par_iter_mut().with_min_len(min).for_each_init(
            || seen.lock().unwrap().push(forkjoin::current_thread_index()),
            |_, x| *x += 1,
        );
        seen.into_inner().unwrap()
    };
    let mut v = vec![0u64; 10_000];
    assert_eq!(workers_seen(&mut v, usize::MAX), [None]);
    assert_eq!(workers_seen(&mut v, 5_001), [None]);
    let one: Vec<Option<usize>> = (0..1u32)
        .into_par_iter()
        .map(|_| forkjoin::current_thread_index())
        .collect();
    assert_eq!(one, [None]);
    // Splittable from outside: in the global pool.
    assert!(workers_seen(&mut v, 1).iter().all(Option::is_some));
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let inside = pool.install(|| workers_seen(&mut v, usize::MAX));
    assert_eq!(inside.len(), 1);
    assert!(inside[0].is_some());
    assert!(v.iter().all(|&x| x == 4));
}
