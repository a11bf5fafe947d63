//! `ParallelExtend` for the standard collections.
//!
//! Vectors are extended in place when the length is known (see `extend_vec`). Everything
//! else is gathered as a list of vectors, one per piece, and inserted sequentially: a hash
//! map or tree cannot take inserts from several threads, and the insertion order then
//! follows the items' order.

use super::{collect_vec_list, extend_vec};
use crate::iter::{IntoParallelIterator, ParallelExtend, ParallelIterator};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};

impl<T: Send> ParallelExtend<T> for Vec<T> {
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        extend_vec(self, par_iter.into_par_iter());
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = &'a T>,
    {
        extend_vec(self, par_iter.into_par_iter().copied());
    }
}

/// Extends a collection sequentially with the items of every piece, in order, after making
/// room for all of them at once: a hash table extended piece by piece grew (and rehashed) at
/// each piece. A loop of known length is collected into one vector, in place.
#[inline]
fn extend_by_pieces<C, T, I>(collection: &mut C, par_iter: I)
where
    C: Extend<T> + Room,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    let pieces = collect_vec_list(par_iter.into_par_iter());
    collection.make_room(pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        collection.extend(piece);
    }
}

/// Collections that can make room for the items to come (as rayon's extensions reserve).
trait Room {
    /// Room for `additional` more items, where the collection can keep any.
    #[inline]
    fn make_room(&mut self, _additional: usize) {}
}

impl<K: Eq + Hash, V, S: BuildHasher> Room for HashMap<K, V, S> {
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl<T: Eq + Hash, S: BuildHasher> Room for HashSet<T, S> {
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl<T: Ord> Room for BinaryHeap<T> {
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl<T> Room for VecDeque<T> {
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

/// Trees and lists allocate per item: nothing to reserve.
impl<K, V> Room for BTreeMap<K, V> {}
impl<T> Room for BTreeSet<T> {}
impl<T> Room for LinkedList<T> {}

macro_rules! extend_by_pieces {
    ($([$($g:tt)*] $coll:ty, $item:ty, where [$($w:tt)*];)*) => {$(
        impl<$($g)*> ParallelExtend<$item> for $coll
        where
            $($w)*
        {
            #[inline]
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

/// The two growable string types, `String` and `OsString`, as `extend_text` uses them.
trait Text: Default + Send {
    fn byte_len(&self) -> usize;
    fn make_room(&mut self, additional: usize);
    fn append(&mut self, piece: &Self);
}

impl Text for String {
    #[inline]
    fn byte_len(&self) -> usize {
        self.len()
    }
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
    #[inline]
    fn append(&mut self, piece: &Self) {
        self.push_str(piece);
    }
}

impl Text for OsString {
    #[inline]
    fn byte_len(&self) -> usize {
        self.len()
    }
    #[inline]
    fn make_room(&mut self, additional: usize) {
        self.reserve(additional);
    }
    #[inline]
    fn append(&mut self, piece: &Self) {
        self.push(piece);
    }
}

/// Strings: every piece builds a string of its own, and the pieces are appended in order.
#[inline]
fn extend_text<S, I, F>(s: &mut S, par_iter: I, push: F)
where
    S: Text,
    I: ParallelIterator,
    F: Fn(&mut S, I::Item) + Sync + Send,
{
    let pieces = par_iter
        .fold(S::default, |mut piece, item| {
            push(&mut piece, item);
            piece
        })
        .drive_unindexed(super::ListVecConsumer);
    s.make_room(pieces.iter().flatten().map(S::byte_len).sum());
    for piece in pieces.iter().flatten() {
        s.append(piece);
    }
}

macro_rules! extend_text {
    ($($text:ty { $([$($g:tt)*] $item:ty, |$s:ident, $x:ident| $push:expr;)* })*) => {$($(
        impl<$($g)*> ParallelExtend<$item> for $text {
            #[inline]
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                extend_text(self, par_iter.into_par_iter(), |$s: &mut $text, $x: $item| $push);
            }
        }
    )*)*};
}

extend_text! {
    String {
        [] char, |s, c| s.push(c);
        ['a] &'a char, |s, c| s.push(*c);
        ['a] &'a str, |s, x| s.push_str(x);
        [] String, |s, x| s.push_str(&x);
        [] Box<str>, |s, x| s.push_str(&x);
        ['a] Cow<'a, str>, |s, x| s.push_str(&x);
    }
    OsString {
        ['a] &'a OsStr, |s, x| s.push(x);
        [] OsString, |s, x| s.push(&x);
        ['a] Cow<'a, OsStr>, |s, x| s.push(&x);
    }
}

impl ParallelExtend<()> for () {
    #[inline]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(drop)
    }
}
