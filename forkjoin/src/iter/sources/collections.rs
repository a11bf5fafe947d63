//! Parallel iterators over the standard collections, `forkjoin::collections`, as rayon's
//! `collections`. The entries (or references to them) are first gathered into a vector,
//! sequentially, as rayon does: a hash map or a tree has no cheap way to split in half.
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

use super::vec;
use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// A parallel iterator type that is a vector's `IntoIter` underneath.
macro_rules! over_vec {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($t:ident),*> => $item:ty
        where [$($bounds:tt)*]
        from [$($impl:tt)*] $coll:ty, |$c:ident| $gather:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$($lt,)? $($t),*> {
            inner: vec::IntoIter<$item>,
        }

        impl<$($impl)*> IntoParallelIterator for $coll
        where
            $($bounds)*
        {
            type Item = $item;
            type Iter = $name<$($lt,)? $($t),*>;

            fn into_par_iter(self) -> Self::Iter {
                let $c = self;
                let items: Vec<$item> = $gather;
                $name { inner: items.into_par_iter() }
            }
        }

        impl<$($lt,)? $($t),*> ParallelIterator for $name<$($lt,)? $($t),*>
        where
            $item: Send,
        {
            type Item = $item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                self.inner.drive_unindexed(consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }
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
