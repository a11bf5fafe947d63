//! Parallel iterators over the standard collections, `forkjoin::collections`, as rayon's
//! `collections`. The entries of a hash map or set, a B-tree or a linked list (or
//! references to them) are first gathered into a vector, sequentially, as rayon does: they
//! have no cheap way to split in half. A `VecDeque` or a `BinaryHeap` is a vector
//! underneath and is iterated as one (indexed).
//!
//! The drains remove what they yield and keep the collection's capacity:
//! `VecDeque::par_drain(range)` ([`ParallelDrainRange`]), `HashMap`, `HashSet` and
//! `BinaryHeap`'s `par_drain()` ([`ParallelDrainFull`]).
//!
//! ```
//! use forkjoin::prelude::*;
//! use std::collections::{BTreeMap, HashSet};
//! let m: BTreeMap<u32, &str> = [(1, "a"), (2, "b")].into_iter().collect();
//! let keys: Vec<u32> = m.par_iter().map(|(k, _)| *k).collect();
//! assert_eq!(keys, [1, 2]);
//! let s: HashSet<u32> = (0..100).collect();
//! assert_eq!(s.into_par_iter().sum::<u32>(), 4950);
//! ```

use super::slice::indexed_via_producer;
use super::vec;
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelDrainFull, ParallelDrainRange,
    ParallelIterator,
};
use std::mem;

/// A parallel iterator type that is another one underneath, its field `inner`, made from
/// the collection `$c` by `$inner`: the struct, a `Clone` where the inner one is, and
/// `IntoParallelIterator` for the collection. Its iterator traits forward to `inner`.
macro_rules! wrapper {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($t:ident),*>($inner_ty:ty) => $item:ty
        where [$($bounds:tt)*]
        from [$($impl:tt)*] $coll:ty, |$c:ident| $inner:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$($lt,)? $($t),*> {
            inner: $inner_ty,
        }

        /// A copy of the rest of the items (references are copied, values cloned).
        impl<$($lt,)? $($t),*> Clone for $name<$($lt,)? $($t),*>
        where
            $inner_ty: Clone,
        {
            #[inline]
            fn clone(&self) -> Self {
                $name { inner: self.inner.clone() }
            }
        }

        impl<$($impl)*> IntoParallelIterator for $coll
        where
            $($bounds)*
        {
            type Item = $item;
            type Iter = $name<$($lt,)? $($t),*>;

            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                let $c = self;
                $name { inner: $inner }
            }
        }
    };
}

/// `ParallelIterator` for a type that is a vector's `IntoIter` underneath, its field
/// `inner`. Not `IndexedParallelIterator`, as rayon's: its items were gathered from a
/// collection that has no cheap way to split.
macro_rules! delegate_unindexed {
    ([$($g:tt)*] $name:ty => $item:ty) => {
        impl<$($g)*> ParallelIterator for $name
        where
            $item: Send,
        {
            type Item = $item;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                self.inner.drive_unindexed(consumer)
            }

            #[inline]
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }
    };
}

/// A parallel iterator type that is a vector's `IntoIter` underneath, the vector gathered
/// from the collection `$c` by `$gather`.
macro_rules! over_vec {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($t:ident),*> => $item:ty
        where [$($bounds:tt)*]
        from [$($impl:tt)*] $coll:ty, |$c:ident| $gather:expr) => {
        wrapper!(
            $(#[$doc])* $name<$($lt,)? $($t),*>(vec::IntoIter<$item>) => $item
            where [$($bounds)*]
            from [$($impl)*] $coll, |$c| {
                let items: Vec<$item> = $gather;
                items.into_par_iter()
            }
        );
        delegate_unindexed!([$($lt,)? $($t),*] $name<$($lt,)? $($t),*> => $item);
    };
}

/// A draining iterator that empties its collection at once (std's `drain`, sequential) into
/// a vector and yields the vector's items: a hash table has no cheap way to split in half.
macro_rules! drain_via_vec {
    ($(#[$doc:meta])* $name:ident<$lt:lifetime, $($t:ident),*> => $item:ty
        where [$($bounds:tt)*]
        from [$($impl:tt)*] $coll:ty) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$lt, $($t),*> {
            inner: vec::IntoIter<$item>,
            _borrow: std::marker::PhantomData<&$lt mut $item>,
        }

        impl<$($impl)*> ParallelDrainFull for &$lt mut $coll
        where
            $($bounds)*
        {
            type Item = $item;
            type Iter = $name<$lt, $($t),*>;

            #[inline]
            fn par_drain(self) -> Self::Iter {
                let items: Vec<$item> = self.drain().collect();
                $name { inner: items.into_par_iter(), _borrow: std::marker::PhantomData }
            }
        }

        delegate_unindexed!([$lt, $($t),*] $name<$lt, $($t),*> => $item);
    };
}

/// Parallel iterators over `HashMap`.
pub mod hash_map {
    use super::*;
    use std::collections::HashMap;
    use std::hash::{BuildHasher, Hash};

    over_vec!(
        /// The entries of a `HashMap`, by value.
        IntoIter<K, V> => (K, V)
        where [K: Hash + Eq + Send, V: Send, S: BuildHasher]
        from [K, V, S] HashMap<K, V, S>, |m| m.into_iter().collect()
    );
    over_vec!(
        /// References to the entries of a `HashMap`.
        Iter<'a, K, V> => (&'a K, &'a V)
        where [K: Hash + Eq + Sync, V: Sync, S: BuildHasher]
        from ['a, K, V, S] &'a HashMap<K, V, S>, |m| m.iter().collect()
    );
    over_vec!(
        /// The entries of a `HashMap`, with mutable references to the values.
        IterMut<'a, K, V> => (&'a K, &'a mut V)
        where [K: Hash + Eq + Sync, V: Send, S: BuildHasher]
        from ['a, K, V, S] &'a mut HashMap<K, V, S>, |m| m.iter_mut().collect()
    );

    drain_via_vec!(
        /// The entries of a `HashMap`, moved out by `map.par_drain()`. The map is empty
        /// (with its capacity) from the call on; entries the iterator does not yield are
        /// dropped with it.
        Drain<'a, K, V> => (K, V)
        where [K: Send, V: Send]
        from ['a, K, V, S] HashMap<K, V, S>
    );
}

/// Parallel iterators over `HashSet`.
pub mod hash_set {
    use super::*;
    use std::collections::HashSet;
    use std::hash::{BuildHasher, Hash};

    over_vec!(
        /// The elements of a `HashSet`, by value.
        IntoIter<T> => T
        where [T: Hash + Eq + Send, S: BuildHasher]
        from [T, S] HashSet<T, S>, |s| s.into_iter().collect()
    );
    over_vec!(
        /// References to the elements of a `HashSet`.
        Iter<'a, T> => &'a T
        where [T: Hash + Eq + Sync, S: BuildHasher]
        from ['a, T, S] &'a HashSet<T, S>, |s| s.iter().collect()
    );

    drain_via_vec!(
        /// The elements of a `HashSet`, moved out by `set.par_drain()`. The set is empty
        /// (with its capacity) from the call on; elements the iterator does not yield are
        /// dropped with it.
        Drain<'a, T> => T
        where [T: Send]
        from ['a, T, S] HashSet<T, S>
    );
}

/// Parallel iterators over `BTreeMap`, in key order where the consumer keeps order.
pub mod btree_map {
    use super::*;
    use std::collections::BTreeMap;

    over_vec!(
        /// The entries of a `BTreeMap`, by value.
        IntoIter<K, V> => (K, V)
        where [K: Ord + Send, V: Send]
        from [K, V] BTreeMap<K, V>, |m| m.into_iter().collect()
    );
    over_vec!(
        /// References to the entries of a `BTreeMap`.
        Iter<'a, K, V> => (&'a K, &'a V)
        where [K: Ord + Sync, V: Sync]
        from ['a, K, V] &'a BTreeMap<K, V>, |m| m.iter().collect()
    );
    over_vec!(
        /// The entries of a `BTreeMap`, with mutable references to the values.
        IterMut<'a, K, V> => (&'a K, &'a mut V)
        where [K: Ord + Sync, V: Send]
        from ['a, K, V] &'a mut BTreeMap<K, V>, |m| m.iter_mut().collect()
    );
}

/// Parallel iterators over `BTreeSet`, in order where the consumer keeps order.
pub mod btree_set {
    use super::*;
    use std::collections::BTreeSet;

    over_vec!(
        /// The elements of a `BTreeSet`, by value.
        IntoIter<T> => T
        where [T: Ord + Send]
        from [T] BTreeSet<T>, |s| s.into_iter().collect()
    );
    over_vec!(
        /// References to the elements of a `BTreeSet`.
        Iter<'a, T> => &'a T
        where [T: Ord + Sync]
        from ['a, T] &'a BTreeSet<T>, |s| s.iter().collect()
    );
}

/// Parallel iterators over `LinkedList`.
pub mod linked_list {
    use super::*;
    use std::collections::LinkedList;

    over_vec!(
        /// The elements of a `LinkedList`, by value.
        IntoIter<T> => T
        where [T: Send]
        from [T] LinkedList<T>, |l| l.into_iter().collect()
    );
    over_vec!(
        /// References to the elements of a `LinkedList`.
        Iter<'a, T> => &'a T
        where [T: Sync]
        from ['a, T] &'a LinkedList<T>, |l| l.iter().collect()
    );
    over_vec!(
        /// Mutable references to the elements of a `LinkedList`.
        IterMut<'a, T> => &'a mut T
        where [T: Send]
        from ['a, T] &'a mut LinkedList<T>, |l| l.iter_mut().collect()
    );
}

/// A collection's buffer lent out as a `Vec`, to drain it with `Vec`'s drain (whose unsafe
/// code is checked once); given back when the loan drops, also while a panic unwinds. A
/// `VecDeque` and a `BinaryHeap` convert to and from a `Vec` without allocating (a deque
/// moves its items to the front of its buffer; a heap rebuilt from a drained vector has
/// nothing to reorder).
struct VecLoan<'a, T, C: From<Vec<T>>> {
    collection: &'a mut C,
    vec: Vec<T>,
}

impl<'a, T, C> VecLoan<'a, T, C>
where
    C: From<Vec<T>> + Default,
    Vec<T>: From<C>,
{
    #[inline]
    fn new(collection: &'a mut C) -> Self {
        VecLoan {
            vec: Vec::from(mem::take(collection)),
            collection,
        }
    }
}

impl<T, C: From<Vec<T>>> Drop for VecLoan<'_, T, C> {
    #[inline]
    fn drop(&mut self) {
        *self.collection = C::from(mem::take(&mut self.vec));
    }
}

/// The iterator traits of a drain of a collection lent out as a vector (`VecLoan`): the
/// vector's drain does the work, and the loan gives the buffer back after it.
macro_rules! drain_via_loan {
    ([$($g:tt)*] $name:ty, |$this:ident| len $len:expr, collection $coll:expr, range $range:expr) => {
        indexed_via_producer!([$($g)*] $name => T, |$this| len $len,
            #[inline]
            fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
                let $this = &mut self;
                let range = $range;
                let mut loan = VecLoan::new(&mut *$coll);
                // Drops in this order, also on a panic: the vector's drain (which closes
                // the gap), the loan (which gives the buffer back), `self` (which sees the
                // range gone).
                loan.vec.par_drain(range).with_producer(callback)
            }
        );
    };
}

/// Parallel iterators over `VecDeque`: indexed, as a vector is.
pub mod vec_deque {
    use super::*;
    use crate::iter::adaptors::delegate_indexed;
    use crate::iter::sources::slice;
    use crate::iter::sources::vec::resolve_range;
    use crate::iter::Chain;
    use std::collections::VecDeque;
    use std::ops::{Range, RangeBounds};

    wrapper!(
        /// The elements of a `VecDeque`, by value.
        IntoIter<T>(vec::IntoIter<T>) => T
        where [T: Send]
        // Moves the items to the front of the buffer if they wrap around its end.
        from [T] VecDeque<T>, |d| Vec::from(d).into_par_iter()
    );
    wrapper!(
        /// References to the elements of a `VecDeque`: its two slices, chained.
        Iter<'a, T>(Chain<slice::Iter<'a, T>, slice::Iter<'a, T>>) => &'a T
        where [T: Sync]
        from ['a, T] &'a VecDeque<T>, |d| {
            let (front, back) = d.as_slices();
            front.into_par_iter().chain(back)
        }
    );

    /// Mutable references to the elements of a `VecDeque`: its two slices, chained.
    #[derive(Debug)]
    pub struct IterMut<'a, T> {
        inner: Chain<slice::IterMut<'a, T>, slice::IterMut<'a, T>>,
    }

    impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
        type Item = &'a mut T;
        type Iter = IterMut<'a, T>;

        #[inline]
        fn into_par_iter(self) -> Self::Iter {
            let (front, back) = self.as_mut_slices();
            IterMut {
                inner: front.into_par_iter().chain(back),
            }
        }
    }

    delegate_indexed!([T: Send] IntoIter<T> => T, []);
    delegate_indexed!(['a, T: Sync] Iter<'a, T> => &'a T, []);
    delegate_indexed!(['a, T: Send] IterMut<'a, T> => &'a mut T, []);

    /// The elements of a range of a `VecDeque`, moved out by `deque.par_drain(range)`.
    /// Whatever happens to the iterator (consumed, stopped early, a panic in a consumer,
    /// dropped without being driven), the range is gone from the deque when it drops, and
    /// the deque keeps its capacity; the elements it did not yield are dropped. If it is
    /// leaked (`mem::forget`) without being driven, the deque is unchanged.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::collections::VecDeque;
    /// let mut d: VecDeque<i32> = (0..10).collect();
    /// let middle: Vec<i32> = d.par_drain(3..7).collect();
    /// assert_eq!(middle, [3, 4, 5, 6]);
    /// assert!(d.iter().eq(&[0, 1, 2, 7, 8, 9]));
    /// ```
    #[derive(Debug)]
    pub struct Drain<'a, T> {
        deque: &'a mut VecDeque<T>,
        range: Range<usize>,
        orig_len: usize,
    }

    impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
        type Iter = Drain<'a, T>;
        type Item = T;

        /// # Panics
        /// If the range is out of bounds, as `VecDeque::drain`.
        #[track_caller]
        #[inline]
        fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
            let orig_len = self.len();
            Drain {
                range: resolve_range(range, orig_len),
                deque: self,
                orig_len,
            }
        }
    }

    drain_via_loan!(['a, T: Send] Drain<'a, T>,
        |this| len this.range.len(),
        collection this.deque, range this.range.clone());

    impl<T> Drop for Drain<'_, T> {
        #[inline]
        fn drop(&mut self) {
            // Driven, the range is gone already; never driven, std removes it.
            if self.deque.len() == self.orig_len {
                self.deque.drain(self.range.clone());
            }
        }
    }
}

/// Parallel iterators over `BinaryHeap`, in no particular order: indexed, as the vector
/// underneath is.
pub mod binary_heap {
    use super::*;
    use crate::iter::adaptors::delegate_indexed;
    use crate::iter::sources::slice;
    use std::collections::BinaryHeap;

    wrapper!(
        /// The elements of a `BinaryHeap`, by value, in no particular order.
        IntoIter<T>(vec::IntoIter<T>) => T
        where [T: Send]
        from [T] BinaryHeap<T>, |h| h.into_vec().into_par_iter()
    );
    wrapper!(
        /// References to the elements of a `BinaryHeap`, in no particular order.
        Iter<'a, T>(slice::Iter<'a, T>) => &'a T
        where [T: Sync]
        from ['a, T] &'a BinaryHeap<T>, |h| h.as_slice().into_par_iter()
    );

    delegate_indexed!([T: Send] IntoIter<T> => T, []);
    delegate_indexed!(['a, T: Sync] Iter<'a, T> => &'a T, []);

    /// The elements of a `BinaryHeap`, moved out by `heap.par_drain()` in no particular
    /// order. Whatever happens to the iterator (consumed, stopped early, a panic in a
    /// consumer, dropped without being driven), the heap is empty when it drops, and keeps
    /// its capacity; the elements it did not yield are dropped. If it is leaked
    /// (`mem::forget`) without being driven, the heap is unchanged.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::collections::BinaryHeap;
    /// let mut heap: BinaryHeap<u32> = (1..=100).collect();
    /// assert_eq!(heap.par_drain().sum::<u32>(), 5050);
    /// assert!(heap.is_empty() && heap.capacity() >= 100);
    /// ```
    #[derive(Debug)]
    pub struct Drain<'a, T> {
        heap: &'a mut BinaryHeap<T>,
    }

    impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
        type Iter = Drain<'a, T>;
        type Item = T;

        #[inline]
        fn par_drain(self) -> Drain<'a, T> {
            Drain { heap: self }
        }
    }

    drain_via_loan!(['a, T: Ord + Send] Drain<'a, T>,
        |this| len this.heap.len(),
        collection this.heap, range ..);

    impl<T> Drop for Drain<'_, T> {
        #[inline]
        fn drop(&mut self) {
            // Driven, the heap is empty already; never driven, std empties it.
            self.heap.clear();
        }
    }
}
