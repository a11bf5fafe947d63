//! `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`: parallel iterators over the
//! nodes of a tree given by its root and a function returning a node's children, as
//! rayon's.
//!
//! A walk is an unindexed producer: before it runs it is split into pieces (up to one per
//! worker, more when idle workers ask), each a run of whole subtrees. Splitting a piece
//! visits its nodes down to the first one with two children or more and halves the list
//! of subtrees there, so a balanced tree divides evenly; a chain of single children is
//! walked through once and then divided as a list. Each piece walks its subtrees with a
//! stack of its own, however deep the tree: no recursion.

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::fmt;
use std::mem;

/// The nodes of a tree, each before its children, children in the order `children_of`
/// gives them (a prefix, or pre-order, walk).
///
/// ```text
///       a
///      / \
///     b   c        prefix: a b d e c f g
///    / \ / \
///   d  e f  g
/// ```
///
/// ```
/// use forkjoin::iter::walk_tree_prefix;
/// use forkjoin::prelude::*;
///
/// // 4 has children 2 and 3; 3 has 1 and 2.
/// let children = |&n: &u32| if n <= 2 { vec![] } else { vec![n / 2, n / 2 + 1] };
/// let v: Vec<u32> = walk_tree_prefix(4, children).collect();
/// assert_eq!(v, [4, 2, 3, 1, 2]);
/// assert_eq!(walk_tree_prefix(4, children).sum::<u32>(), 12);
/// ```
///
/// The nodes may be references into a structure:
///
/// ```
/// use forkjoin::iter::walk_tree_prefix;
/// use forkjoin::prelude::*;
///
/// struct Node {
///     value: u32,
///     children: Vec<Node>,
/// }
/// let leaf = |value| Node { value, children: vec![] };
/// let tree = Node { value: 1, children: vec![leaf(2), Node { value: 3, children: vec![leaf(4)] }] };
/// let v: Vec<u32> = walk_tree_prefix(&tree, |n| n.children.iter()).map(|n| n.value).collect();
/// assert_eq!(v, [1, 2, 3, 4]);
/// ```
#[inline]
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of a tree, each after its children, children in the order `children_of` gives
/// them (a postfix, or post-order, walk).
///
/// ```text
///       a
///      / \
///     b   c        postfix: d e b f g c a
///    / \ / \
///   d  e f  g
/// ```
///
/// ```
/// use forkjoin::iter::walk_tree_postfix;
/// use forkjoin::prelude::*;
///
/// // 4 has children 2 and 3; 3 has 1 and 2.
/// let children = |&n: &u32| if n <= 2 { vec![] } else { vec![n / 2, n / 2 + 1] };
/// let v: Vec<u32> = walk_tree_postfix(4, children).collect();
/// assert_eq!(v, [2, 1, 2, 3, 4]);
/// ```
#[inline]
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of a tree, in no particular order (whichever walk is cheapest; today the
/// prefix one).
///
/// ```
/// use forkjoin::iter::walk_tree;
/// use forkjoin::prelude::*;
///
/// // 4 has children 2 and 3; 3 has 1 and 2.
/// let children = |&n: &u32| if n <= 2 { vec![] } else { vec![n / 2, n / 2 + 1] };
/// let mut v: Vec<u32> = walk_tree(4, children).collect();
/// v.sort();
/// assert_eq!(v, [1, 2, 2, 3, 4]);
/// ```
#[inline]
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTree(WalkTreePrefix { root, children_of })
}

/// Declares the iterator of a walk in `$order`; `$bounds` bound the children as the walk's
/// function does.
macro_rules! walk_iter {
    ($(#[$doc:meta])* $name:ident, $order:ident, $($bounds:tt)*) => {
        $(#[$doc])*
        #[must_use = "iterators are lazy and do nothing unless consumed"]
        #[derive(Clone)]
        pub struct $name<S, B> {
            root: S,
            children_of: B,
        }

        impl<S: fmt::Debug, B> fmt::Debug for $name<S, B> {
            #[inline]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("root", &self.root)
                    .finish_non_exhaustive()
            }
        }

        impl<S, B, I> ParallelIterator for $name<S, B>
        where
            S: Send,
            B: Fn(&S) -> I + Send + Sync,
            I: $($bounds)*,
        {
            type Item = S;

            #[inline]
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<S>,
            {
                let walk = Walk::<_, _, $order>::new(self.root, &self.children_of);
                bridge_unindexed(walk, consumer)
            }
        }
    };
}

walk_iter!(
    /// The iterator [`walk_tree_prefix()`] returns.
    WalkTreePrefix, PREFIX, IntoIterator<Item = S, IntoIter: DoubleEndedIterator>
);
walk_iter!(
    /// The iterator [`walk_tree_postfix()`] returns.
    WalkTreePostfix, POSTFIX, IntoIterator<Item = S>
);

/// The iterator [`walk_tree()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTree<S, B>(WalkTreePrefix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTree")
            .field("root", &self.0.root)
            .finish_non_exhaustive()
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator> + Send,
{
    type Item = S;

    #[inline]
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<S>,
    {
        self.0.drive_unindexed(consumer)
    }
}

/// Half of `v`'s items, from the middle on (`None` if it has fewer than two).
#[inline]
fn second_half<T>(v: &mut Vec<T>) -> Option<Vec<T>> {
    (v.len() >= 2).then(|| v.split_off(v.len() / 2))
}

/// The order of a `Walk`: each node before its children ...
const PREFIX: bool = false;
/// ... or after them.
const POSTFIX: bool = true;

/// A piece of a walk: the subtrees of `roots` in order, and the nodes set `aside` on the way
/// down to them while splitting. In a prefix walk those come before the subtrees, in order
/// (the nodes visited); in a postfix walk they come after them, from last to first (the
/// ancestors: the deepest comes first).
struct Walk<'b, S, B, const ORDER: bool> {
    roots: Vec<S>,
    aside: Vec<S>,
    children_of: &'b B,
}

impl<'b, S, B, const ORDER: bool> Walk<'b, S, B, ORDER> {
    #[inline]
    fn new(root: S, children_of: &'b B) -> Self {
        Walk {
            roots: vec![root],
            aside: Vec::new(),
            children_of,
        }
    }
}

impl<S, B, I, const ORDER: bool> UnindexedProducer for Walk<'_, S, B, ORDER>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    #[inline]
    fn split(mut self) -> (Self, Option<Self>) {
        // One subtree cannot be halved: set its root aside (it comes before all its
        // children, or after them) and look at the children instead.
        while self.roots.len() == 1 {
            let root = self.roots.pop().unwrap();
            self.roots.extend((self.children_of)(&root));
            self.aside.push(root);
        }
        let children_of = self.children_of;
        let right = match second_half(&mut self.roots) {
            // The later subtrees. The nodes visited come before all of them and stay on
            // the left; the ancestors come after all of them and go right.
            Some(roots) => Some(Walk {
                roots,
                aside: match ORDER {
                    PREFIX => Vec::new(),
                    POSTFIX => mem::take(&mut self.aside),
                },
                children_of,
            }),
            // No subtree left (all leaves): halve the nodes set aside. The left piece keeps
            // the ones produced first: the first visited, the last ancestors (at the end of
            // the stack).
            None => second_half(&mut self.aside).map(|half| Walk {
                roots: Vec::new(),
                aside: match ORDER {
                    PREFIX => half,
                    POSTFIX => mem::replace(&mut self.aside, half),
                },
                children_of,
            }),
        };
        (self, right)
    }

    #[inline]
    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        match ORDER {
            PREFIX => {
                folder = folder.consume_iter(self.aside);
                for root in self.roots {
                    if folder.full() {
                        break;
                    }
                    folder = walk_prefix(self.children_of, root, folder);
                }
                folder
            }
            POSTFIX => {
                for root in self.roots {
                    folder = walk_postfix(self.children_of, root, folder);
                    if folder.full() {
                        return folder;
                    }
                }
                folder.consume_iter(self.aside.into_iter().rev())
            }
        }
    }
}

/// Feeds the subtree of `root` to `folder` in prefix order, with a stack of the children
/// still to visit at each level.
#[inline]
fn walk_prefix<S, B, I, F>(children_of: &B, root: S, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let mut stack = Vec::new();
    let mut node = root;
    loop {
        stack.push(children_of(&node).into_iter());
        folder = folder.consume(node);
        if folder.full() {
            return folder;
        }
        // The next node: the next child at the deepest level that has one.
        node = loop {
            let Some(children) = stack.last_mut() else {
                return folder;
            };
            match children.next() {
                Some(child) => break child,
                None => {
                    stack.pop();
                }
            }
        };
    }
}

/// How deep a postfix walk recurses before it goes on with a stack of its own: a recursion
/// keeps each node and its children's iterator in registers and frames (a `Vec` of them took
/// twice rayon's time on a balanced tree of sums), the stack takes trees of any depth (a list
/// of a million nodes) on any thread's stack.
const POSTFIX_RECURSION: u32 = 128;

/// Feeds the subtree of `root` to `folder` in postfix order. A folder of up to two words
/// goes down and back up the recursion in registers; a larger one would be passed and
/// returned through memory at every level (a `collect`'s took two and a half times as long
/// so), and keeps to the stack's loop, where it is a local (DESIGN.md, section 8, "What a
/// run carries from chunk to chunk").
#[inline]
fn walk_postfix<S, B, I, F>(children_of: &B, root: S, folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    if std::mem::size_of::<F>() <= 2 * std::mem::size_of::<usize>() {
        walk_postfix_recursive(children_of, root, folder, POSTFIX_RECURSION)
    } else {
        walk_postfix_with_stack(children_of, root, folder)
    }
}

fn walk_postfix_recursive<S, B, I, F>(children_of: &B, node: S, mut folder: F, depth: u32) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    if depth == 0 {
        return walk_postfix_with_stack(children_of, node, folder);
    }
    for child in children_of(&node) {
        folder = walk_postfix_recursive(children_of, child, folder, depth - 1);
        if folder.full() {
            return folder;
        }
    }
    folder.consume(node)
}

/// The postfix walk below `POSTFIX_RECURSION` levels, with a stack of the nodes on the path
/// down and the children each has left.
#[inline]
fn walk_postfix_with_stack<S, B, I, F>(children_of: &B, root: S, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let children = children_of(&root).into_iter();
    let mut stack = vec![(root, children)];
    while let Some((_, children)) = stack.last_mut() {
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                stack.push((child, grandchildren));
            }
            None => {
                let (node, _) = stack.pop().unwrap();
                folder = folder.consume(node);
                if folder.full() {
                    return folder;
                }
            }
        }
    }
    folder
}
