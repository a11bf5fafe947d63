//! The binary tree the `overhead` and `icount` examples sum (included with `#[path]`).

pub(crate) struct Node {
    pub value: u64,
    pub children: Option<Box<(Node, Node)>>,
}

/// A complete binary tree of `2^depth - 1` nodes, numbered from `*next + 1` in preorder.
pub(crate) fn tree(depth: u32, next: &mut u64) -> Node {
    *next += 1;
    let value = *next;
    let children = (depth > 1).then(|| Box::new((tree(depth - 1, next), tree(depth - 1, next))));
    Node { value, children }
}
