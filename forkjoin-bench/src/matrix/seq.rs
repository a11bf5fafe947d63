//! std's iterators under rayon's names, the sequential baseline of `fj matrix`
//! (`matrix/prelude.rs`) and of `fj loops`, whose generated crate includes this file as it
//! is. Every source returns [`Seq`], a std iterator in a wrapper whose inherent methods
//! (which win over `Iterator`'s) are rayon's, each the plain sequential loop; `min`, `max`,
//! `min_by` and `max_by` are `Iterator`'s, which have rayon's signatures.
#![allow(dead_code)]

/// `join(a, b)`: `(a(), b())`.
#[inline(always)]
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    (a(), b())
}

/// `into_par_iter()`: `into_iter()`.
pub(crate) trait IntoParallelIterator: IntoIterator + Sized {
    #[inline(always)]
    fn into_par_iter(self) -> Seq<Self::IntoIter> {
        Seq(self.into_iter())
    }
}
impl<I: IntoIterator> IntoParallelIterator for I {}

/// `par_iter()` and `par_chunks()` on a slice.
pub(crate) trait ParallelSlice<T> {
    fn par_iter(&self) -> Seq<std::slice::Iter<'_, T>>;
    fn par_chunks(&self, size: usize) -> Seq<std::slice::Chunks<'_, T>>;
}
impl<T> ParallelSlice<T> for [T] {
    #[inline(always)]
    fn par_iter(&self) -> Seq<std::slice::Iter<'_, T>> {
        Seq(self.iter())
    }
    #[inline(always)]
    fn par_chunks(&self, size: usize) -> Seq<std::slice::Chunks<'_, T>> {
        Seq(self.chunks(size))
    }
}

/// `par_iter_mut()` and `par_chunks_mut()` on a slice.
pub(crate) trait ParallelSliceMut<T> {
    fn par_iter_mut(&mut self) -> Seq<std::slice::IterMut<'_, T>>;
    fn par_chunks_mut(&mut self, size: usize) -> Seq<std::slice::ChunksMut<'_, T>>;
}
impl<T> ParallelSliceMut<T> for [T] {
    #[inline(always)]
    fn par_iter_mut(&mut self) -> Seq<std::slice::IterMut<'_, T>> {
        Seq(self.iter_mut())
    }
    #[inline(always)]
    fn par_chunks_mut(&mut self, size: usize) -> Seq<std::slice::ChunksMut<'_, T>> {
        Seq(self.chunks_mut(size))
    }
}

/// `par_chars()` on a string.
pub(crate) trait ParallelString {
    fn par_chars(&self) -> Seq<std::str::Chars<'_>>;
}
impl ParallelString for str {
    #[inline(always)]
    fn par_chars(&self) -> Seq<std::str::Chars<'_>> {
        Seq(self.chars())
    }
}

/// `par_bridge()`: the iterator itself.
pub(crate) trait ParallelBridge: Iterator + Sized {
    #[inline(always)]
    fn par_bridge(self) -> Seq<Self> {
        Seq(self)
    }
}
impl<I: Iterator> ParallelBridge for I {}

/// A std iterator with rayon's methods (inherent, so they win over `Iterator`'s of the
/// same name). It is an `Iterator` too, so that it can be zipped or chained onto
/// another.
pub(crate) struct Seq<I>(I);

impl<I: Iterator> Iterator for Seq<I> {
    type Item = I::Item;
    #[inline(always)]
    fn next(&mut self) -> Option<I::Item> {
        self.0.next()
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
    #[inline(always)]
    fn fold<B, F: FnMut(B, I::Item) -> B>(self, init: B, f: F) -> B {
        self.0.fold(init, f)
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for Seq<I> {
    #[inline(always)]
    fn next_back(&mut self) -> Option<I::Item> {
        self.0.next_back()
    }
}

#[allow(dead_code)]
impl<I: Iterator> Seq<I> {
    // Adaptors.
    #[inline(always)]
    pub(crate) fn map<R, F: FnMut(I::Item) -> R>(self, f: F) -> Seq<std::iter::Map<I, F>> {
        Seq(self.0.map(f))
    }
    #[inline(always)]
    pub(crate) fn filter<P: FnMut(&I::Item) -> bool>(self, p: P) -> Seq<std::iter::Filter<I, P>> {
        Seq(self.0.filter(p))
    }
    #[inline(always)]
    pub(crate) fn filter_map<R, F: FnMut(I::Item) -> Option<R>>(
        self,
        f: F,
    ) -> Seq<std::iter::FilterMap<I, F>> {
        Seq(self.0.filter_map(f))
    }
    #[inline(always)]
    pub(crate) fn enumerate(self) -> Seq<std::iter::Enumerate<I>> {
        Seq(self.0.enumerate())
    }
    #[inline(always)]
    pub(crate) fn zip<Z: IntoIterator>(self, z: Z) -> Seq<std::iter::Zip<I, Z::IntoIter>> {
        Seq(self.0.zip(z))
    }
    #[inline(always)]
    pub(crate) fn chain<C: IntoIterator<Item = I::Item>>(
        self,
        c: C,
    ) -> Seq<std::iter::Chain<I, C::IntoIter>> {
        Seq(self.0.chain(c))
    }
    /// `flat_map_iter`: std's `flat_map`.
    #[inline(always)]
    pub(crate) fn flat_map_iter<U: IntoIterator, F: FnMut(I::Item) -> U>(
        self,
        f: F,
    ) -> Seq<std::iter::FlatMap<I, U, F>> {
        Seq(self.0.flat_map(f))
    }
    #[inline(always)]
    pub(crate) fn skip(self, n: usize) -> Seq<std::iter::Skip<I>> {
        Seq(self.0.skip(n))
    }
    #[inline(always)]
    pub(crate) fn take(self, n: usize) -> Seq<std::iter::Take<I>> {
        Seq(self.0.take(n))
    }
    #[inline(always)]
    pub(crate) fn rev(self) -> Seq<std::iter::Rev<I>>
    where
        I: DoubleEndedIterator,
    {
        Seq(self.0.rev())
    }
    #[inline(always)]
    pub(crate) fn copied<'a, T: 'a + Copy>(self) -> Seq<std::iter::Copied<I>>
    where
        I: Iterator<Item = &'a T>,
    {
        Seq(self.0.copied())
    }
    #[inline(always)]
    pub(crate) fn cloned<'a, T: 'a + Clone>(self) -> Seq<std::iter::Cloned<I>>
    where
        I: Iterator<Item = &'a T>,
    {
        Seq(self.0.cloned())
    }
    /// `map_init(init, f)`: one state from `init` for the whole loop.
    #[inline(always)]
    pub(crate) fn map_init<S, R, INIT, F>(
        self,
        init: INIT,
        mut f: F,
    ) -> Seq<impl Iterator<Item = R>>
    where
        INIT: FnOnce() -> S,
        F: FnMut(&mut S, I::Item) -> R,
    {
        let mut state = init();
        Seq(self.0.map(move |x| f(&mut state, x)))
    }
    /// `fold(identity, op)`: one accumulator, folded over every item.
    #[inline(always)]
    pub(crate) fn fold<T, ID, F>(self, identity: ID, op: F) -> Seq<std::iter::Once<T>>
    where
        ID: FnOnce() -> T,
        F: FnMut(T, I::Item) -> T,
    {
        Seq(std::iter::once(self.0.fold(identity(), op)))
    }
    /// `fold_with(init, op)`: `fold` from `init`.
    #[inline(always)]
    pub(crate) fn fold_with<T, F>(self, init: T, op: F) -> Seq<std::iter::Once<T>>
    where
        F: FnMut(T, I::Item) -> T,
    {
        Seq(std::iter::once(self.0.fold(init, op)))
    }
    /// No splitting to bound.
    #[inline(always)]
    pub(crate) fn with_min_len(self, _min: usize) -> Self {
        self
    }
    #[inline(always)]
    pub(crate) fn with_max_len(self, _max: usize) -> Self {
        self
    }

    // Consumers.
    /// `reduce(identity, op)`: std's `fold` from `identity()`.
    #[inline(always)]
    pub(crate) fn reduce<ID, F>(self, identity: ID, op: F) -> I::Item
    where
        ID: FnOnce() -> I::Item,
        F: FnMut(I::Item, I::Item) -> I::Item,
    {
        self.0.fold(identity(), op)
    }
    /// `reduce_with(op)`: std's `reduce`.
    #[inline(always)]
    pub(crate) fn reduce_with<F>(self, op: F) -> Option<I::Item>
    where
        F: FnMut(I::Item, I::Item) -> I::Item,
    {
        self.0.reduce(op)
    }
    /// `find_first(p)`: std's `find`.
    #[inline(always)]
    pub(crate) fn find_first<P: FnMut(&I::Item) -> bool>(mut self, p: P) -> Option<I::Item> {
        self.0.find(p)
    }
    #[inline(always)]
    pub(crate) fn any<P: FnMut(I::Item) -> bool>(mut self, p: P) -> bool {
        self.0.any(p)
    }
    #[inline(always)]
    pub(crate) fn all<P: FnMut(I::Item) -> bool>(mut self, p: P) -> bool {
        self.0.all(p)
    }
    #[inline(always)]
    pub(crate) fn for_each<F: FnMut(I::Item)>(self, f: F) {
        self.0.for_each(f)
    }
    #[inline(always)]
    pub(crate) fn sum<S: std::iter::Sum<I::Item>>(self) -> S {
        self.0.sum()
    }
    #[inline(always)]
    pub(crate) fn count(self) -> usize {
        self.0.count()
    }
    #[inline(always)]
    pub(crate) fn min_by_key<K: Ord, F: FnMut(&I::Item) -> K>(self, f: F) -> Option<I::Item> {
        self.0.min_by_key(f)
    }
    #[inline(always)]
    pub(crate) fn collect<C: FromIterator<I::Item>>(self) -> C {
        self.0.collect()
    }
    /// `for_each_init(init, f)`: one state from `init` for the whole loop.
    #[inline(always)]
    pub(crate) fn for_each_init<S, INIT, F>(self, init: INIT, mut f: F)
    where
        INIT: FnOnce() -> S,
        F: FnMut(&mut S, I::Item),
    {
        let mut state = init();
        self.0.for_each(|x| f(&mut state, x))
    }
    /// `position_first(p)`: std's `position`.
    #[inline(always)]
    pub(crate) fn position_first<P: FnMut(I::Item) -> bool>(mut self, p: P) -> Option<usize> {
        self.0.position(p)
    }
}
