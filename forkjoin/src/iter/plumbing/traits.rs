//! The traits of the plumbing: producers, consumers, folders and reducers (see the parent
//! module). Apart from the bridge, so that the splitter, which drives them, and the bridge,
//! which calls the splitter, import in one direction only.

/// Receives the producer of an indexed parallel iterator
/// ([`IndexedParallelIterator::with_producer`](crate::iter::IndexedParallelIterator::with_producer)).
/// The callback is generic over the producer's type, which the iterator does not name.
pub trait ProducerCallback<T> {
    /// What `callback` returns.
    type Output;

    /// Called with the iterator's producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// The source of an indexed parallel iterator's items: it knows how many it holds, can split
/// in two at any index, and turns into a sequential iterator over its part.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;

    /// The sequential iterator this producer becomes.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// Turns the producer into a sequential iterator over its items.
    fn into_iter(self) -> Self::IntoIter;

    /// The fewest items a piece split from this producer may hold (`with_min_len`). A bound
    /// the splitter honours; it never needs one for speed.
    #[inline]
    fn min_len(&self) -> usize {
        1
    }

    /// The most items a piece folded sequentially may hold (`with_max_len`): longer pieces
    /// are split before they run.
    #[inline]
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and those from `index` on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds every item to `folder`, stopping early once it is full.
    #[inline]
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// Where the items of a parallel iterator go: a consumer can be split like its producer, and
/// becomes a [`Folder`] that takes a run of items sequentially; the results of the pieces
/// are combined by its [`Reducer`].
pub trait Consumer<Item>: Send + Sized {
    /// The sequential part.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Combines the results of two adjacent pieces.
    type Reducer: Reducer<Self::Result>;
    /// What the consumer produces.
    type Result: Send;

    /// Splits into a consumer for the items before `index`, one for the rest, and the reducer
    /// that combines their results (left first).
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// Turns the consumer into its sequential folder.
    fn into_folder(self) -> Self::Folder;

    /// Whether no more items are wanted (an answer is known): the splitter stops feeding.
    fn full(&self) -> bool;

    // The crate's item-by-item adaptors pass `SPLITS_FOLDER`, `split_folder` and
    // `RIGHT_FIRST` on through one consumer type (`adaptors::item_wise::ItemWise`): the
    // defaults below would compile in an adaptor that forgot them.

    /// Whether [`split_folder`](Consumer::split_folder) is implemented. *forkjoin's addition
    /// to rayon's interface*, which consumers written for rayon need not know: they keep the
    /// default, and the splitter then gives every chunk a folder of its own.
    const SPLITS_FOLDER: bool = false;

    /// *forkjoin's addition to rayon's interface.* Splits a folder that is already running:
    /// `folder` will take at most `keep` more items (an indexed consumer counts them; others
    /// may ignore the number), and the returned consumer takes everything after those,
    /// its result joined to the folder's by the returned reducer (folder's result left).
    ///
    /// The splitter folds a run of items in chunks into one folder and decides to share the
    /// rest only between two chunks, so the folder must be able to hand off its future. With
    /// it, a `fold` or `map_init` gets one accumulator per piece a thief actually took, not
    /// one per chunk. Called only if [`SPLITS_FOLDER`](Consumer::SPLITS_FOLDER) is true.
    #[inline]
    fn split_folder(folder: &mut Self::Folder, keep: usize) -> (Self, Self::Reducer) {
        let _ = (folder, keep);
        panic!("Consumer::split_folder called on a consumer whose SPLITS_FOLDER is false")
    }

    /// *forkjoin's addition to rayon's interface.* Whether the consumer wants the last items
    /// first: once it has a result from the right end, everything to its left is useless
    /// (`find_last`, `position_last`). The splitter then runs the rightmost pieces first,
    /// and a running piece halves its rest and goes on with the right half, down to its
    /// chunk length, instead of folding from the left; so the right end of a huge (or
    /// endless-looking) iterator is reached at once and `full` stops the rest.
    ///
    /// Only the order in which pieces run changes: each piece is still folded front to
    /// back by a folder of its own and the results are reduced left before right, so any
    /// consumer stays correct with either value. Adaptors that wrap a consumer item by item
    /// (`map`, `filter`, `flat_map`, ...) pass their base's value on.
    const RIGHT_FIRST: bool = false;
}

/// The sequential part of a consumer: takes items one at a time (or an iterator of them)
/// and gives a result when done.
pub trait Folder<Item>: Sized {
    /// What the folder produces.
    type Result;

    /// Takes one item.
    fn consume(self, item: Item) -> Self;

    /// Takes items from `iter` until it ends or the folder is full.
    #[inline]
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// The result of everything taken.
    fn complete(self) -> Self::Result;

    /// Whether no more items are wanted.
    fn full(&self) -> bool;
}

/// Combines the results of two adjacent pieces (left, then right).
pub trait Reducer<Result> {
    /// The combined result.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A consumer that can also be split without an index, for items whose count is not known
/// in advance (after `filter`, `flat_map`, or from an [`UnindexedProducer`]).
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// Returns a consumer for a left part of the items; `self` then takes the part to its
    /// right. (The consumer as it was before this call takes all of them.)
    fn split_off_left(&self) -> Self;

    /// The reducer combining the left part's result with the right's.
    fn to_reducer(&self) -> Self::Reducer;
}

/// The source of a parallel iterator that cannot split at an index, only in two parts of
/// whatever sizes it can manage (a tree walk, a shared sequential iterator).
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;

    /// Splits in two if it can; `None` for the second part if not.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item to `folder`.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}
