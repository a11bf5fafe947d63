//! `ParallelExtend` for the standard collections.
//!
//! Vectors are extended in place when the length is known (see `extend_vec`). Everything
//! else is gathered as a list of vectors, one per piece, and inserted sequentially: a hash
//! map or tree cannot take inserts from several threads, and the insertion order then
//! follows the items' order.

use super::{collect_list, extend_vec};
use crate::iter::{IntoParallelIterator, ParallelExtend, ParallelIterator};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        extend_vec(self, par_iter.into_par_iter());
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = &'a T>,
    {
        extend_vec(self, par_iter.into_par_iter().copied());
    }
}

/// Extends a collection sequentially with the items of every piece, in order.
fn extend_by_pieces<C, T, I>(collection: &mut C, par_iter: I)
where
    C: Extend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    for piece in collect_list(par_iter.into_par_iter()) {
        collection.extend(piece);
    }
}

macro_rules! extend_by_pieces {
    ($([$($g:tt)*] $coll:ty, $item:ty, where [$($w:tt)*];)*) => {$(
        impl<$($g)*> ParallelExtend<$item> for $coll
        where
            $($w)*
        {
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                extend_by_pieces(self, par_iter);
            }
        }
    )*};
}

extend_by_pieces! {
    [K, V, S] HashMap<K, V, S>, (K, V), where [K: Eq + Hash + Send, V: Send, S: BuildHasher + Send];
    ['a, K, V, S] HashMap<K, V, S>, (&'a K, &'a V),
        where [K: 'a + Copy + Eq + Hash + Send + Sync, V: 'a + Copy + Send + Sync, S: BuildHasher + Send];
    [T, S] HashSet<T, S>, T, where [T: Eq + Hash + Send, S: BuildHasher + Send];
    ['a, T, S] HashSet<T, S>, &'a T, where [T: 'a + Copy + Eq + Hash + Send + Sync, S: BuildHasher + Send];
    [K, V] BTreeMap<K, V>, (K, V), where [K: Ord + Send, V: Send];
    ['a, K, V] BTreeMap<K, V>, (&'a K, &'a V), where [K: 'a + Copy + Ord + Send + Sync, V: 'a + Copy + Send + Sync];
    [T] BTreeSet<T>, T, where [T: Ord + Send];
    ['a, T] BTreeSet<T>, &'a T, where [T: 'a + Copy + Ord + Send + Sync];
    [T] BinaryHeap<T>, T, where [T: Ord + Send];
    ['a, T] BinaryHeap<T>, &'a T, where [T: 'a + Copy + Ord + Send + Sync];
    [T] VecDeque<T>, T, where [T: Send];
    ['a, T] VecDeque<T>, &'a T, where [T: 'a + Copy + Send + Sync];
    [T] LinkedList<T>, T, where [T: Send];
    ['a, T] LinkedList<T>, &'a T, where [T: 'a + Copy + Send + Sync];
}

/// Strings: every piece builds a `String`, and the pieces are appended in order.
fn extend_string<I, F>(s: &mut String, par_iter: I, push: F)
where
    I: ParallelIterator,
    F: Fn(&mut String, I::Item) + Sync + Send,
{
    let pieces = par_iter
        .fold(String::new, |mut piece, item| {
            push(&mut piece, item);
            piece
        })
        .drive_unindexed(super::ListVecConsumer);
    s.reserve(pieces.iter().flatten().map(String::len).sum());
    for piece in pieces.iter().flatten() {
        s.push_str(piece);
    }
}

macro_rules! extend_string {
    ($([$($g:tt)*] $item:ty, |$s:ident, $x:ident| $push:expr;)*) => {$(
        impl<$($g)*> ParallelExtend<$item> for String {
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                extend_string(self, par_iter.into_par_iter(), |$s: &mut String, $x: $item| $push);
            }
        }
    )*};
}

extend_string! {
    [] char, |s, c| s.push(c);
    ['a] &'a char, |s, c| s.push(*c);
    ['a] &'a str, |s, x| s.push_str(x);
    [] String, |s, x| s.push_str(&x);
    [] Box<str>, |s, x| s.push_str(&x);
    ['a] Cow<'a, str>, |s, x| s.push_str(&x);
}

impl ParallelExtend<()> for () {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(drop)
    }
}
