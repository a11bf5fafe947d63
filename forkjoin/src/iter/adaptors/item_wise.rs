//! The consumer of every item-by-item adaptor (`map`, `filter`, `while_some`, ...): one
//! type, [`ItemWise`], whose `Consumer` implementation is written once, here.
//!
//! Such an adaptor wraps the consumer below it and changes only the items, so it must pass
//! on what its base tells the splitter: `SPLITS_FOLDER` with `split_folder` (one folder per
//! run, not one per chunk) and `RIGHT_FIRST` (a `find_last` searches from the right). The
//! trait's defaults compile without them and silently lose both, so an adaptor does not
//! implement `Consumer` itself: it implements [`ItemOp`], its own part (a closure, a flag, a
//! state), and its consumer is `ItemWise<C, ItOp>`, which forwards these items for it.
//! rayon keeps the same discipline for iterators in `delegate.rs`, with macros.
//!
//! Adaptors whose consumer does more than wrap its base's are not item-by-item and keep a
//! `Consumer` of their own: `flat_map` (its folder holds the base consumer, to drive the
//! inner iterators), `fold` (its folder hands on one item), `intersperse` (its own reducer
//! and result) and `unzip` (two bases).

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

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left = ItemWise::new(left, self.op.split_left());
        (left, ItemWise::new(right, self.op), reducer)
    }

    fn into_folder(self) -> Self::Folder {
        self.op.into_folder(self.base.into_folder())
    }

    fn full(&self) -> bool {
        self.op.stopped() || self.base.full()
    }

    // What this type exists for: the base's choices, passed on.
    const SPLITS_FOLDER: bool = C::SPLITS_FOLDER;
    const RIGHT_FIRST: bool = C::RIGHT_FIRST;

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
    fn split_off_left(&self) -> Self {
        ItemWise::new(self.base.split_off_left(), self.op.split_left())
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}
