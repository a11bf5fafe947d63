//! `FromParallelIterator`: what `collect` can build.

use super::collect_vec;
use crate::iter::adaptors::while_some::WhileSome;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        collect_vec(par_iter.into_par_iter())
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        collect_vec(par_iter.into_par_iter()).into_boxed_slice()
    }
}

impl<T: Send> FromParallelIterator<T> for Rc<[T]> {
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        collect_vec(par_iter.into_par_iter()).into()
    }
}

impl<T: Send> FromParallelIterator<T> for Arc<[T]> {
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        collect_vec(par_iter.into_par_iter()).into()
    }
}

/// `Box<str>` from whatever a `String` collects from.
macro_rules! boxed_str {
    ($([$($g:tt)*] $item:ty;)*) => {$(
        impl<$($g)*> FromParallelIterator<$item> for Box<str> {
            #[inline]
            fn from_par_iter<I>(par_iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                String::from_par_iter(par_iter).into_boxed_str()
            }
        }
    )*};
}

boxed_str! {
    [] char;
    ['a] &'a char;
    ['a] &'a str;
    [] String;
    [] Box<str>;
    ['a] Cow<'a, str>;
}

impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned<Owned: FromParallelIterator<T>> + ?Sized,
    T: Send,
{
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// Collections built as `Default` and extended.
macro_rules! by_extending {
    ($([$($g:tt)*] $coll:ty, $item:ty, where [$($w:tt)*];)*) => {$(
        impl<$($g)*> FromParallelIterator<$item> for $coll
        where
            $($w)*
        {
            #[inline]
            fn from_par_iter<I>(par_iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                let mut collection = <$coll>::default();
                collection.par_extend(par_iter);
                collection
            }
        }
    )*};
}

by_extending! {
    [K, V, S] HashMap<K, V, S>, (K, V), where [K: Eq + Hash + Send, V: Send, S: BuildHasher + Default + Send];
    [T, S] HashSet<T, S>, T, where [T: Eq + Hash + Send, S: BuildHasher + Default + Send];
    [K, V] BTreeMap<K, V>, (K, V), where [K: Ord + Send, V: Send];
    [T] BTreeSet<T>, T, where [T: Ord + Send];
    [T] BinaryHeap<T>, T, where [T: Ord + Send];
    [T] VecDeque<T>, T, where [T: Send];
    [T] LinkedList<T>, T, where [T: Send];
    [] String, char, where [];
    ['a] String, &'a char, where [];
    ['a] String, &'a str, where [];
    [] String, String, where [];
    [] String, Box<str>, where [];
    ['a] String, Cow<'a, str>, where [];
    ['a] OsString, &'a OsStr, where [];
    [] OsString, OsString, where [];
    ['a] OsString, Cow<'a, OsStr>, where [];
}

impl FromParallelIterator<()> for () {
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(drop)
    }
}

/// `Option<C>`: `None` if any item is `None` (the rest is then not visited), else the
/// collection of the values.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Option<T>>,
    {
        let failed = std::sync::atomic::AtomicBool::new(false);
        let collection = C::from_par_iter(WhileSome::new(par_iter.into_par_iter().map(|x| {
            if x.is_none() {
                // Relaxed: read after the parallel part has joined.
                failed.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            x
        })));
        (!failed.into_inner()).then_some(collection)
    }
}

/// `Result<C, E>`: an error if any item is one (the rest is then not visited; which error,
/// if several, is unspecified), else the collection of the values.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    #[inline]
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Result<T, E>>,
    {
        let error = Mutex::new(None);
        let collection = C::from_par_iter(WhileSome::new(par_iter.into_par_iter().map(|x| {
            x.map_err(|e| {
                let mut slot = error
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                slot.get_or_insert(e);
            })
            .ok()
        })));
        match error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(collection),
        }
    }
}
