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
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTree(WalkTreePrefix { root, children_of })
}

/// The iterator [`walk_tree_prefix()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator [`walk_tree_postfix()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator [`walk_tree()`] returns.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTree<S, B>(WalkTreePrefix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePrefix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePrefix")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePostfix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePostfix")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTree")
            .field("root", &self.0.root)
            .finish_non_exhaustive()
    }
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<S>,
    {
        let producer = PrefixProducer {
            visited: Vec::new(),
            roots: vec![self.root],
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<S>,
    {
        let producer = PostfixProducer {
            roots: vec![self.root],
            ancestors: Vec::new(),
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator> + Send,
{
    type Item = S;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<S>,
    {
        self.0.drive_unindexed(consumer)
    }
}

/// Half of `v`'s items, from the middle on (`None` if it has fewer than two).
fn second_half<T>(v: &mut Vec<T>) -> Option<Vec<T>> {
    (v.len() >= 2).then(|| v.split_off(v.len() / 2))
}

/// A piece of a prefix walk: the nodes `visited` in order, then the subtrees of `roots` in
/// order.
struct PrefixProducer<'b, S, B> {
    visited: Vec<S>,
    roots: Vec<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PrefixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        // One subtree cannot be halved: visit its root (it comes before its children) and
        // look at the children instead.
        while self.roots.len() == 1 {
            let root = self.roots.pop().unwrap();
            self.roots.extend((self.children_of)(&root));
            self.visited.push(root);
        }
        let children_of = self.children_of;
        let right = match second_half(&mut self.roots) {
            // The later subtrees; the visited nodes come before all of them.
            Some(roots) => Some(PrefixProducer {
                visited: Vec::new(),
                roots,
                children_of,
            }),
            // No subtree left (all leaves): halve the visited nodes.
            None => second_half(&mut self.visited).map(|visited| PrefixProducer {
                visited,
                roots: Vec::new(),
                children_of,
            }),
        };
        (self, right)
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        folder = folder.consume_iter(self.visited);
        for root in self.roots {
            if folder.full() {
                break;
            }
            folder = walk_prefix(self.children_of, root, folder);
        }
        folder
    }
}

/// Feeds the subtree of `root` to `folder` in prefix order, with a stack of the children
/// still to visit at each level.
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

/// A piece of a postfix walk: the subtrees of `roots` in order, then the nodes of
/// `ancestors` from last to first (the deepest comes first).
struct PostfixProducer<'b, S, B> {
    roots: Vec<S>,
    ancestors: Vec<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PostfixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        // One subtree cannot be halved: set its root aside (it comes after its children)
        // and look at the children instead.
        while self.roots.len() == 1 {
            let root = self.roots.pop().unwrap();
            self.roots.extend((self.children_of)(&root));
            self.ancestors.push(root);
        }
        let children_of = self.children_of;
        let right = match second_half(&mut self.roots) {
            // The later subtrees, and after them the ancestors, which come after all.
            Some(roots) => Some(PostfixProducer {
                roots,
                ancestors: mem::take(&mut self.ancestors),
                children_of,
            }),
            // No subtree left (all leaves): halve the ancestors. The left piece keeps the
            // ones produced first, at the end of the stack.
            None => second_half(&mut self.ancestors).map(|first| PostfixProducer {
                roots: Vec::new(),
                ancestors: mem::replace(&mut self.ancestors, first),
                children_of,
            }),
        };
        (self, right)
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        for root in self.roots {
            folder = walk_postfix(self.children_of, root, folder);
            if folder.full() {
                return folder;
            }
        }
        folder.consume_iter(self.ancestors.into_iter().rev())
    }
}

/// Feeds the subtree of `root` to `folder` in postfix order, with a stack of the nodes on
/// the path down and the children each has left.
fn walk_postfix<S, B, I, F>(children_of: &B, root: S, mut folder: F) -> F
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
