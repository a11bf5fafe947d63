//! `take_any`, `skip_any`, `take_any_while` and `skip_any_while`: filters whose choice is a
//! state shared by every piece of work (a count, or whether a predicate has failed yet), so
//! the items kept come from anywhere in the iterator, in their order.

use super::filter::{copy_ref_wrapper, FilterOp, Selection};
use super::item_wise::ItemWise;
use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::ParallelIterator;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// An adaptor whose items are chosen by a count shared by every piece of work.
macro_rules! count_adaptor {
    ($(#[$doc:meta])* $name:ident, $choice:ident) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Debug, Clone)]
        pub struct $name<I> {
            base: I,
            count: usize,
        }

        impl<I> $name<I> {
            #[inline]
            pub(crate) fn new(base: I, count: usize) -> Self {
                $name { base, count }
            }
        }

        impl<I: ParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                let count = AtomicUsize::new(self.count);
                self.base
                    .drive_unindexed(ItemWise::new(consumer, FilterOp($choice(&count))))
            }
        }
    };
}

/// An adaptor whose items are chosen by a predicate and a flag shared by every piece of
/// work, set once the predicate has failed anywhere.
macro_rules! while_adaptor {
    ($(#[$doc:meta])* $name:ident, $choice:ident) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Clone)]
        pub struct $name<I, P> {
            base: I,
            predicate: P,
        }

        impl<I: fmt::Debug, P> fmt::Debug for $name<I, P> {
            #[inline]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("base", &self.base)
                    .finish()
            }
        }

        impl<I, P> $name<I, P> {
            #[inline]
            pub(crate) fn new(base: I, predicate: P) -> Self {
                $name { base, predicate }
            }
        }

        impl<I, P> ParallelIterator for $name<I, P>
        where
            I: ParallelIterator,
            P: Fn(&I::Item) -> bool + Sync + Send,
        {
            type Item = I::Item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                let before_failure = AtomicBool::new(true);
                let choice = $choice {
                    predicate: &self.predicate,
                    before_failure: &before_failure,
                };
                self.base
                    .drive_unindexed(ItemWise::new(consumer, FilterOp(choice)))
            }
        }
    };
}

count_adaptor!(
    /// `take_any`. See [`ParallelIterator::take_any`].
    TakeAny,
    TakeCount
);
count_adaptor!(
    /// `skip_any`. See [`ParallelIterator::skip_any`].
    SkipAny,
    SkipCount
);
while_adaptor!(
    /// `take_any_while`. See [`ParallelIterator::take_any_while`].
    TakeAnyWhile,
    TakeWhile
);
while_adaptor!(
    /// `skip_any_while`. See [`ParallelIterator::skip_any_while`].
    SkipAnyWhile,
    SkipWhile
);

/// Takes one from `count` if it is not zero yet.
#[inline]
fn take_one(count: &AtomicUsize) -> bool {
    // Relaxed: the count only decides which items pass; nothing is published through it.
    count
        .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1))
        .is_ok()
}

/// `take_any`'s choice: an item passes while the shared count of items left to take is
/// not zero.
#[derive(Clone, Copy)]
struct TakeCount<'a>(&'a AtomicUsize);

impl<T> Selection<T> for TakeCount<'_> {
    type Out = T;
    #[inline]
    fn select(self, item: T) -> Option<T> {
        take_one(self.0).then_some(item)
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.map_while(move |item| self.select(item))
    }
    #[inline]
    fn done(self) -> bool {
        // Relaxed: see `take_one`.
        self.0.load(Relaxed) == 0
    }
}

/// `skip_any`'s choice: an item is dropped while the shared count of items left to skip
/// is not zero.
#[derive(Clone, Copy)]
struct SkipCount<'a>(&'a AtomicUsize);

impl<T> Selection<T> for SkipCount<'_> {
    type Out = T;
    #[inline]
    fn select(self, item: T) -> Option<T> {
        (!take_one(self.0)).then_some(item)
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.filter_map(move |item| self.select(item))
    }
}

/// `take_any_while`'s choice: an item passes if the predicate holds for it and has not
/// failed anywhere yet.
struct TakeWhile<'a, P> {
    predicate: &'a P,
    before_failure: &'a AtomicBool,
}

/// `skip_any_while`'s choice: an item is dropped if the predicate holds for it and has not
/// failed anywhere yet.
struct SkipWhile<'a, P> {
    predicate: &'a P,
    before_failure: &'a AtomicBool,
}

copy_ref_wrapper!(TakeWhile, SkipWhile);

impl<T, P: Fn(&T) -> bool + Sync> Selection<T> for TakeWhile<'_, P> {
    type Out = T;
    #[inline]
    fn select(self, item: T) -> Option<T> {
        // Relaxed: a flag deciding which items pass; nothing is published through it.
        if self.before_failure.load(Relaxed) && (self.predicate)(&item) {
            Some(item)
        } else {
            self.before_failure.store(false, Relaxed);
            None
        }
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.map_while(move |item| self.select(item))
    }
    #[inline]
    fn done(self) -> bool {
        // Relaxed: see `select`.
        !self.before_failure.load(Relaxed)
    }
}

impl<T, P: Fn(&T) -> bool + Sync> Selection<T> for SkipWhile<'_, P> {
    type Out = T;
    #[inline]
    fn select(self, item: T) -> Option<T> {
        // Relaxed: a flag deciding which items pass; nothing is published through it.
        if self.before_failure.load(Relaxed) && (self.predicate)(&item) {
            None
        } else {
            self.before_failure.store(false, Relaxed);
            Some(item)
        }
    }
    #[inline]
    fn select_all<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.filter_map(move |item| self.select(item))
    }
}
