//! The sources of issue 26, part 2, against std: the free functions of `forkjoin::iter`
//! (`empty`, `once`, `repeat`, `repeat_n`, `split`, the tree walks), tuples zipped into
//! `MultiZip`, `char` and 128-bit ranges, the collections `BinaryHeap`, `BTreeSet`,
//! `LinkedList`, `VecDeque`, `Result` and `Option` by value and by reference, and the
//! drains of `VecDeque`, `String`, `HashMap`, `HashSet` and `BinaryHeap`. Exact answers on
//! inputs of 0, 1, 2, 17 and 1001 items, inside pools of 1, 2 and 8 workers and on the
//! global pool; splits are forced at every index with `with_max_len(1)` where a producer
//! does index arithmetic. Drains are checked whatever happens to them: consumed, consumed
//! in part, stopped early (`find_any`), dropped without being driven, a panic in the
//! consumer; the collection then holds exactly what rayon documents, and every item was
//! dropped exactly once.

// `Counted` is a key of hash maps and sets: it hashes and compares its value only, never
// the drop counter it points to.
#![allow(clippy::mutable_key_type)]

mod common;

use common::{input, panic_message, pools, Counted, LENS};
use forkjoin::iter::{
    empty, once, repeat, repeat_n, split, walk_tree, walk_tree_postfix, walk_tree_prefix, Empty,
    MultiZip, Once, Repeat, RepeatN,
};
use forkjoin::prelude::*;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// `f(label, n)` in every pool (and the global pool) for every length.
fn each(f: impl Fn(&str, usize) + Sync) {
    let all = |at: &str| {
        for n in LENS {
            f(&format!("n = {n}, {at}"), n);
        }
    };
    for (w, pool) in pools() {
        pool.install(|| all(&format!("{w} workers")));
    }
    all("the global pool");
}

/// `f(label)` in every pool and the global pool.
fn each_pool(f: impl Fn(&str) + Sync) {
    for (w, pool) in pools() {
        pool.install(|| f(&format!("{w} workers")));
    }
    f("the global pool");
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------
// The free functions.

#[test]
fn empty_and_once() {
    each_pool(|at| {
        assert_eq!(empty::<u32>().count(), 0, "{at}");
        assert_eq!(empty::<u32>().len(), 0, "{at}");
        assert_eq!(empty::<u32>().opt_len(), Some(0), "{at}");
        assert_eq!(
            empty::<u32>().collect::<Vec<_>>(),
            Vec::<u32>::new(),
            "{at}"
        );
        assert_eq!(empty::<u32>().sum::<u32>(), 0, "{at}");
        assert_eq!(empty::<u32>().zip(0..10).count(), 0, "{at}");
        assert_eq!(empty::<u32>().rev().with_max_len(1).count(), 0, "{at}");
        let chained: Vec<i32> = (0..5).into_par_iter().chain(empty()).chain(5..10).collect();
        assert_eq!(chained, (0..10).collect::<Vec<_>>(), "{at}");

        assert_eq!(once(7).collect::<Vec<_>>(), [7], "{at}");
        assert_eq!(once(7).len(), 1, "{at}");
        assert_eq!(once(7).opt_len(), Some(1), "{at}");
        assert_eq!(once("x".to_string()).collect::<String>(), "x", "{at}");
        assert_eq!(once(3).zip(10..20).collect::<Vec<_>>(), [(3, 10)], "{at}");
        assert_eq!(
            once(3).enumerate().rev().collect::<Vec<_>>(),
            [(0, 3)],
            "{at}"
        );
        assert_eq!(
            once(3).with_max_len(1).map(|x| x * 2).sum::<i32>(),
            6,
            "{at}"
        );
        let all: Vec<i32> = (0..1000)
            .into_par_iter()
            .chain(once(-1))
            .chain(1000..2000)
            .collect();
        let expected: Vec<i32> = (0..1000).chain([-1]).chain(1000..2000).collect();
        assert_eq!(all, expected, "{at}");
        assert_eq!(
            (0..1000)
                .into_par_iter()
                .chain(once(-1))
                .chain(1000..2000)
                .position_any(|x| x < 0),
            Some(1000),
            "{at}"
        );
        assert_eq!(once(5).filter(|&x| x > 5).count(), 0, "{at}");
    });
    // Clone and Debug.
    let e: Empty<String> = empty();
    assert_eq!(format!("{:?}", e.clone()), "Empty");
    let o: Once<i32> = once(4);
    assert_eq!(o.clone().sum::<i32>(), 4);
    assert_eq!(format!("{o:?}"), "Once { item: 4 }");
}

#[test]
fn repeat_and_repeat_n() {
    each(|at, n| {
        let word = String::from("fork");
        let expected = vec![word.clone(); n];
        let got: Vec<String> = repeat_n(word.clone(), n).collect();
        assert_eq!(got, expected, "repeat_n, {at}");
        let got: Vec<String> = repeat_n(word.clone(), n).with_max_len(1).collect();
        assert_eq!(got, expected, "repeat_n split everywhere, {at}");
        let got: Vec<String> = repeat(word.clone()).take(n).with_max_len(3).collect();
        assert_eq!(got, expected, "repeat().take(), {at}");
        assert_eq!(repeat_n(1u64, n).len(), n, "{at}");
        assert_eq!(repeat_n(1u64, n).opt_len(), Some(n), "{at}");
        assert_eq!(repeat(1u64).take(n).rev().sum::<u64>(), n as u64, "{at}");
        let got: Vec<(usize, u8)> = repeat_n(9u8, n).enumerate().map(|(i, x)| (i, x)).collect();
        assert_eq!(got, (0..n).map(|i| (i, 9)).collect::<Vec<_>>(), "{at}");
        let v = input(n);
        let zipped: Vec<(char, u64)> = repeat('z').zip(v.clone()).collect();
        assert_eq!(
            zipped,
            v.iter().map(|&x| ('z', x)).collect::<Vec<_>>(),
            "repeat().zip(), {at}"
        );
        // Unbounded, stopped by the consumer.
        assert_eq!(repeat(3u8).take_any(n).count(), n, "take_any, {at}");
        assert_eq!(
            repeat(3u8).map(|x| x as usize).take_any(n).sum::<usize>(),
            3 * n,
            "{at}"
        );
        assert_eq!(repeat(3u8).find_any(|&x| x == 3), Some(3), "{at}");
        assert!(repeat(3u8).any(|x| x == 3), "{at}");
        let seen = AtomicUsize::new(0);
        let found = repeat(1u8).find_first(|_| seen.fetch_add(1, Relaxed) >= n);
        assert_eq!(found, Some(1), "{at}");
        // Every repeat is the element once: clones, and the element itself last.
        let drops = AtomicUsize::new(0);
        let got: Vec<Counted> = repeat_n(Counted(5, &drops), n).with_max_len(1).collect();
        assert_eq!(got.len(), n, "{at}");
        assert!(got.iter().all(|c| c.0 == 5), "{at}");
        drop(got);
        assert_eq!(drops.load(Relaxed), n.max(1), "repeat_n's drops, {at}");
        drops.store(0, Relaxed);
        drop(repeat_n(Counted(5, &drops), n));
        assert_eq!(drops.load(Relaxed), 1, "repeat_n never driven, {at}");
    });
    // Clone and Debug.
    let r: Repeat<i32> = repeat(2);
    assert_eq!(r.clone().take(3).sum::<i32>(), 6);
    assert_eq!(format!("{r:?}"), "Repeat { element: 2 }");
    let r: RepeatN<i32> = repeat_n(2, 3);
    assert_eq!(r.clone().sum::<i32>(), 6);
    assert_eq!(format!("{r:?}"), "RepeatN { count: 3, element: 2 }");
    assert_eq!(format!("{:?}", repeat_n(2, 0)), "RepeatN { count: 0, .. }");
    #[allow(deprecated)]
    let old = forkjoin::iter::repeatn(1, 4);
    assert_eq!(old.count(), 4);
}

/// Halves a range, down to single items.
fn halve(r: Range<usize>) -> (Range<usize>, Option<Range<usize>>) {
    if r.len() <= 1 {
        return (r, None);
    }
    let mid = r.start + r.len() / 2;
    (r.start..mid, Some(mid..r.end))
}

#[test]
fn split_covers_the_data_once_in_order() {
    each(|at, n| {
        let pieces: Vec<Range<usize>> = split(0..n, halve).collect();
        assert!(!pieces.is_empty(), "{at}");
        assert_eq!(pieces[0].start, 0, "{at}");
        assert_eq!(pieces.last().unwrap().end, n, "{at}");
        assert!(pieces.windows(2).all(|w| w[0].end == w[1].start), "{at}");
        let v = input(n);
        let sum: u64 = split(0..n, halve).map(|r| v[r].iter().sum::<u64>()).sum();
        assert_eq!(sum, v.iter().sum::<u64>(), "{at}");
        // A splitter that never splits: one item, the data.
        let whole: Vec<Range<usize>> = split(0..n, |r| (r, None)).collect();
        assert_eq!((whole.len(), &whole[0]), (1, &(0..n)), "{at}");
        // Early stop.
        if n > 0 {
            let hit = split(0..n, halve).find_any(|r| r.contains(&(n / 2)));
            assert!(hit.unwrap().contains(&(n / 2)), "{at}");
        }
    });
    let s = split(0..4, halve);
    assert_eq!(s.clone().count(), split(0..4, halve).count());
    assert_eq!(format!("{s:?}"), "Split { data: 0..4, .. }");
}

/// The children of node `i` of a heap-shaped binary tree of `n` nodes.
fn heap_children(n: usize) -> impl Fn(&usize) -> Vec<usize> + Send + Sync + Clone {
    move |&i| {
        [2 * i + 1, 2 * i + 2]
            .into_iter()
            .filter(|&c| c < n)
            .collect()
    }
}

fn prefix_seq<F: Fn(&usize) -> Vec<usize>>(root: usize, children: &F, out: &mut Vec<usize>) {
    out.push(root);
    for c in children(&root) {
        prefix_seq(c, children, out);
    }
}

fn postfix_seq<F: Fn(&usize) -> Vec<usize>>(root: usize, children: &F, out: &mut Vec<usize>) {
    for c in children(&root) {
        postfix_seq(c, children, out);
    }
    out.push(root);
}

/// A node's children.
type Children = Box<dyn Fn(&usize) -> Vec<usize> + Send + Sync>;

/// The trees walked: heap-shaped (balanced), a chain, a root with many leaves, and an
/// irregular one (node `i`'s children are the next `i % 4` numbers after the nodes so
/// far, up to `n`). `None` for the tree of 0 nodes, which has no root.
fn trees(n: usize) -> Vec<(&'static str, Children)> {
    if n == 0 {
        return Vec::new();
    }
    // The irregular tree: breadth-first numbering with `i % 4` children each.
    let mut irregular = vec![Vec::new(); n];
    let mut next = 1;
    for (i, children) in irregular.iter_mut().enumerate() {
        for _ in 0..i % 4 + usize::from(i == 0) {
            if next < n {
                children.push(next);
                next += 1;
            }
        }
    }
    // Nodes never reached (the numbering ran out of parents) hang under the root.
    irregular[0].extend(next..n);
    vec![
        ("heap", Box::new(heap_children(n))),
        (
            "chain",
            Box::new(move |&i: &usize| if i + 1 < n { vec![i + 1] } else { vec![] }),
        ),
        (
            "star",
            Box::new(move |&i: &usize| if i == 0 { (1..n).collect() } else { vec![] }),
        ),
        (
            "irregular",
            Box::new(move |&i: &usize| irregular[i].clone()),
        ),
    ]
}

#[test]
fn tree_walks_give_the_orders_std_recursion_gives() {
    each(|at, n| {
        for (shape, children) in trees(n) {
            let mut prefix = Vec::new();
            prefix_seq(0, &children, &mut prefix);
            let mut postfix = Vec::new();
            postfix_seq(0, &children, &mut postfix);
            assert_eq!(
                sorted(prefix.clone()),
                (0..n).collect::<Vec<_>>(),
                "{shape}"
            );
            let got: Vec<usize> = walk_tree_prefix(0, &children).collect();
            assert_eq!(got, prefix, "prefix, {shape}, {at}");
            let got: Vec<usize> = walk_tree_postfix(0, &children).collect();
            assert_eq!(got, postfix, "postfix, {shape}, {at}");
            let got: Vec<usize> = walk_tree(0, &children).collect();
            assert_eq!(
                sorted(got),
                sorted(prefix.clone()),
                "walk_tree, {shape}, {at}"
            );
            let sum: usize = walk_tree_prefix(0, &children).map(|i| i * 3).sum();
            assert_eq!(sum, 3 * n * (n - 1) / 2, "{shape}, {at}");
            assert_eq!(walk_tree_postfix(0, &children).count(), n, "{shape}, {at}");
            assert_eq!(walk_tree(0, &children).count(), n, "{shape}, {at}");
            // Early stops.
            let target = n / 2;
            assert_eq!(
                walk_tree_prefix(0, &children).find_any(|&i| i == target),
                Some(target),
                "{shape}, {at}"
            );
            assert_eq!(
                walk_tree_postfix(0, &children).find_first(|&i| i % 3 == 0),
                postfix.iter().copied().find(|&i| i % 3 == 0),
                "{shape}, {at}"
            );
            assert_eq!(
                walk_tree_prefix(0, &children).find_last(|&i| i % 3 == 1),
                prefix.iter().copied().rfind(|&i| i % 3 == 1),
                "{shape}, {at}"
            );
            assert_eq!(
                walk_tree(0, &children).find_any(|&i| i == n - 1),
                Some(n - 1),
                "{shape}, {at}"
            );
        }
    });
}

#[test]
fn tree_walks_over_references_and_deep_chains() {
    struct Node {
        value: u32,
        children: Vec<Node>,
    }
    fn build(depth: u32, value: u32) -> Node {
        Node {
            value,
            children: if depth == 0 {
                vec![]
            } else {
                (0..3)
                    .map(|k| build(depth - 1, value * 3 + k + 1))
                    .collect()
            },
        }
    }
    fn prefix(n: &Node, out: &mut Vec<u32>) {
        out.push(n.value);
        n.children.iter().for_each(|c| prefix(c, out));
    }
    fn postfix(n: &Node, out: &mut Vec<u32>) {
        n.children.iter().for_each(|c| postfix(c, out));
        out.push(n.value);
    }
    let tree = build(6, 0);
    let (mut pre, mut post) = (Vec::new(), Vec::new());
    prefix(&tree, &mut pre);
    postfix(&tree, &mut post);
    let deep = 200_000usize;
    each_pool(|at| {
        let got: Vec<u32> = walk_tree_prefix(&tree, |n| n.children.iter())
            .map(|n| n.value)
            .collect();
        assert_eq!(got, pre, "{at}");
        let got: Vec<u32> = walk_tree_postfix(&tree, |n| n.children.iter())
            .map(|n| n.value)
            .collect();
        assert_eq!(got, post, "{at}");
        let total: u64 = walk_tree(&tree, |n| n.children.iter())
            .map(|n| u64::from(n.value))
            .sum();
        assert_eq!(
            total,
            pre.iter().map(|&v| u64::from(v)).sum::<u64>(),
            "{at}"
        );
        // A chain far deeper than a recursive walk could go on a worker's stack.
        let next = |&i: &usize| (i + 1 < deep).then_some(i + 1);
        let got: Vec<usize> = walk_tree_prefix(0, next).collect();
        assert!(got.iter().copied().eq(0..deep), "{at}");
        let got: Vec<usize> = walk_tree_postfix(0, next).collect();
        assert!(got.iter().copied().eq((0..deep).rev()), "{at}");
        assert_eq!(walk_tree(0, next).count(), deep, "{at}");
    });
    // Clone and Debug.
    let w = walk_tree_prefix(1u32, |&x| if x < 4 { vec![x + 1] } else { vec![] });
    assert_eq!(w.clone().count(), 4);
    assert_eq!(format!("{w:?}"), "WalkTreePrefix { root: 1, .. }");
    let w = walk_tree_postfix(1u32, |&x| if x < 4 { vec![x + 1] } else { vec![] });
    assert_eq!(w.clone().collect::<Vec<_>>(), [4, 3, 2, 1]);
    assert_eq!(format!("{w:?}"), "WalkTreePostfix { root: 1, .. }");
    let w = walk_tree(1u32, |&x| if x < 4 { vec![x + 1] } else { vec![] });
    assert_eq!(w.clone().sum::<u32>(), 10);
    assert_eq!(format!("{w:?}"), "WalkTree { root: 1, .. }");
}

// ---------------------------------------------------------------------------------------
// Tuples: MultiZip.

#[test]
fn tuples_zip_like_std() {
    each(|at, n| {
        let a = input(n);
        let b: Vec<String> = a.iter().map(|x| x.to_string()).collect();
        let c: Vec<u64> = a.iter().map(|x| x % 10).collect();
        // Pairs.
        let got: Vec<(u64, String)> = (a.clone(), b.clone()).into_par_iter().collect();
        let expected: Vec<(u64, String)> = a.iter().copied().zip(b.iter().cloned()).collect();
        assert_eq!(got, expected, "pair by value, {at}");
        let got: Vec<(&u64, &String)> = (&a, &b).into_par_iter().with_max_len(1).collect();
        assert!(
            got.iter()
                .map(|(x, s)| (**x, (*s).clone()))
                .eq(expected.clone()),
            "{at}"
        );
        let pair = (a.clone(), b.clone());
        let got: Vec<(&u64, &String)> = pair.par_iter().collect();
        assert!(
            got.iter()
                .map(|(x, s)| (**x, (*s).clone()))
                .eq(expected.clone()),
            "{at}"
        );
        // Triples, one of them shorter: as long as the shortest.
        let m = n / 2;
        let got: Vec<(u64, &String, u64)> = (a.par_iter().copied(), &b, c[..m].to_vec())
            .into_par_iter()
            .rev()
            .collect();
        let expected: Vec<(u64, &String, u64)> = a
            .iter()
            .zip(&b)
            .zip(&c[..m])
            .map(|((&x, s), &y)| (x, s, y))
            .rev()
            .collect();
        assert_eq!(got, expected, "triple, {at}");
        let triple = (0..n, a.clone(), 0..n as u32);
        assert_eq!(triple.clone().into_par_iter().len(), n, "{at}");
        assert_eq!(triple.clone().into_par_iter().opt_len(), Some(n), "{at}");
        let sum: u64 = triple
            .into_par_iter()
            .with_max_len(2)
            .map(|(i, x, j)| i as u64 * x + u64::from(j))
            .sum();
        let expected: u64 = a
            .iter()
            .enumerate()
            .map(|(i, x)| i as u64 * x + i as u64)
            .sum();
        assert_eq!(sum, expected, "{at}");
        // By mutable reference: each part separately, and the tuple as a whole.
        let (mut x, mut y, mut z) = (a.clone(), c.clone(), vec![0u64; n]);
        (&mut x, &mut y, &mut z)
            .into_par_iter()
            .with_max_len(1)
            .for_each(|(x, y, z)| {
                *z = *x + *y;
                std::mem::swap(x, y);
            });
        assert_eq!((&x, &y), (&c, &a), "{at}");
        let sums: Vec<u64> = a.iter().zip(&c).map(|(p, q)| p + q).collect();
        assert_eq!(z, sums, "{at}");
        let mut whole = (x, y);
        whole.par_iter_mut().for_each(|(x, y)| std::mem::swap(x, y));
        assert_eq!(whole, (a.clone(), c.clone()), "{at}");
        // A 1-tuple.
        let got: Vec<(u64,)> = (a.clone(),).into_par_iter().collect();
        assert!(got.iter().map(|t| t.0).eq(a.iter().copied()), "{at}");
        // Indexed: zipped and enumerated again, searched from both ends.
        let e: Vec<(usize, (u64, u64))> =
            (a.clone(), c.clone()).into_par_iter().enumerate().collect();
        assert!(
            e.iter().map(|&(i, (p, q))| (i, p, q)).eq(a
                .iter()
                .zip(&c)
                .enumerate()
                .map(|(i, (&p, &q))| (i, p, q))),
            "{at}"
        );
        assert_eq!(
            (&a, &c)
                .into_par_iter()
                .position_last(|(p, q)| p % 10 == *q),
            if n == 0 { None } else { Some(n - 1) },
            "{at}"
        );
    });
}

#[test]
fn tuples_of_twelve() {
    each(|at, n| {
        let v = input(n);
        let t = (
            0..n,
            v.clone(),
            &v,
            v.par_iter().map(|x| x + 1),
            1..=n as u16 + 1,
            vec![(); n + 3],
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
            (0..n as u32).into_par_iter().rev(),
            repeat_n('c', n),
            v.par_iter().enumerate(),
            (0..2 * n).into_par_iter().step_by(2),
            v.clone().into_par_iter().zip(0..n),
        );
        let zip: MultiZip<_> = t.into_par_iter();
        assert_eq!(zip.len(), n, "{at}");
        let got: Vec<_> = zip.with_max_len(3).collect();
        assert_eq!(got.len(), n, "{at}");
        for (i, item) in got.into_iter().enumerate() {
            let (a, b, c, d, e, f, g, h, k, l, m, o) = item;
            assert_eq!((a, b, *c, d), (i, v[i], v[i], v[i] + 1), "{at}");
            assert_eq!((e, f, g), (i as u16 + 1, (), v[i].to_string()), "{at}");
            assert_eq!(
                (h, k, l, m, o),
                ((n - 1 - i) as u32, 'c', (i, &v[i]), 2 * i, (v[i], i)),
                "{at}"
            );
        }
        // Twelve parts of different lengths: the shortest wins.
        let lens = [
            n,
            n + 1,
            n + 2,
            n / 2,
            n + 4,
            n + 5,
            n + 6,
            n + 7,
            n + 8,
            n + 9,
            n + 10,
            n + 11,
        ];
        let t = (
            0..lens[0],
            0..lens[1],
            0..lens[2],
            0..lens[3],
            0..lens[4],
            0..lens[5],
            0..lens[6],
            0..lens[7],
            0..lens[8],
            0..lens[9],
            0..lens[10],
            0..lens[11],
        );
        let count = t.clone().into_par_iter().with_max_len(1).count();
        assert_eq!(count, n / 2, "{at}");
        let sum: usize = t
            .into_par_iter()
            .map(|(a, b, c, d, e, f, g, h, i, j, k, l)| {
                a + b + c + d + e + f + g + h + i + j + k + l
            })
            .sum();
        assert_eq!(sum, 12 * (0..n / 2).sum::<usize>(), "{at}");
    });
    let z = (0..2, vec![1, 2]).into_par_iter();
    assert_eq!(z.clone().count(), 2);
    assert!(format!("{z:?}").starts_with("MultiZip"));
}

// ---------------------------------------------------------------------------------------
// Ranges.

#[test]
fn char_ranges_skip_the_surrogates() {
    let cases: Vec<(char, char)> = vec![
        ('a', 'z'),
        ('\u{D7FE}', '\u{E002}'),
        ('\u{D7FF}', '\u{E000}'),
        ('\u{D000}', '\u{F000}'),
        ('\0', char::MAX),
        ('z', 'a'),
        ('x', 'x'),
        ('\u{10FFF0}', char::MAX),
    ];
    each_pool(|at| {
        for &(s, e) in &cases {
            let expected: Vec<char> = (s..e).collect();
            let got: Vec<char> = (s..e).into_par_iter().collect();
            assert_eq!(got, expected, "{s:?}..{e:?}, {at}");
            assert_eq!((s..e).into_par_iter().len(), expected.len(), "{at}");
            let expected: Vec<char> = (s..=e).collect();
            let got: Vec<char> = (s..=e).into_par_iter().collect();
            assert_eq!(got, expected, "{s:?}..={e:?}, {at}");
            assert_eq!((s..=e).into_par_iter().len(), expected.len(), "{at}");
            assert_eq!(
                (s..=e).into_par_iter().opt_len(),
                Some(expected.len()),
                "{at}"
            );
            if expected.len() < 10_000 {
                let got: Vec<char> = (s..=e).into_par_iter().with_max_len(1).rev().collect();
                assert!(got.iter().eq(expected.iter().rev()), "{at}");
                let got: Vec<(usize, char)> =
                    (s..e).into_par_iter().enumerate().with_max_len(1).collect();
                assert!(got.into_iter().eq((s..e).enumerate()), "{at}");
            }
        }
        assert_eq!(('\u{D7FF}'..='\u{E000}').into_par_iter().count(), 2, "{at}");
        assert_eq!(
            ('\u{D7FF}'..='\u{E000}')
                .into_par_iter()
                .collect::<Vec<_>>(),
            ['\u{D7FF}', '\u{E000}'],
            "{at}"
        );
        assert_eq!(('\u{D7FF}'..'\u{E000}').into_par_iter().count(), 1, "{at}");
        assert_eq!(
            ('\0'..=char::MAX).into_par_iter().count(),
            1_112_064,
            "{at}"
        );
        let sum: u64 = ('\0'..=char::MAX)
            .into_par_iter()
            .map(|c| u64::from(c as u32))
            .sum();
        assert_eq!(
            sum,
            ('\0'..=char::MAX).map(|c| u64::from(c as u32)).sum::<u64>(),
            "{at}"
        );
        // Zipped with another indexed iterator: the positions agree across the gap.
        let z: Vec<(char, u32)> = ('\u{D7F0}'..'\u{E010}')
            .into_par_iter()
            .zip(0..40u32)
            .collect();
        assert!(
            z.into_iter().eq(('\u{D7F0}'..'\u{E010}').zip(0..40u32)),
            "{at}"
        );
        // An exhausted inclusive range is empty.
        let mut r = 'a'..='a';
        r.next();
        assert_eq!(r.into_par_iter().count(), 0, "{at}");
    });
}

#[test]
fn ranges_of_128_bits() {
    let big = u128::from(u64::MAX);
    each_pool(|at| {
        for (s, e) in [
            (big - 5, big + 5),
            (0, 1000),
            (big * 3, big * 3 + 17),
            (7, 7),
            (9, 2),
        ] {
            let expected: Vec<u128> = (s..e).collect();
            let got: Vec<u128> = (s..e).into_par_iter().collect();
            assert_eq!(got, expected, "{s}..{e}, {at}");
            assert_eq!(
                (s..e).into_par_iter().opt_len(),
                Some(expected.len()),
                "{at}"
            );
            let got: Vec<u128> = (s..=e).into_par_iter().collect();
            assert_eq!(got, (s..=e).collect::<Vec<_>>(), "{s}..={e}, {at}");
            let sum: u128 = (s..=e).into_par_iter().sum();
            assert_eq!(sum, (s..=e).sum::<u128>(), "{at}");
        }
        let ibig = i128::from(i64::MAX);
        for (s, e) in [(-ibig - 7, -ibig + 3), (ibig - 3, ibig + 9), (-5, 5)] {
            let got: Vec<i128> = (s..e).into_par_iter().collect();
            assert_eq!(got, (s..e).collect::<Vec<_>>(), "{s}..{e}, {at}");
            let got: Vec<i128> = (s..=e).into_par_iter().collect();
            assert_eq!(got, (s..=e).collect::<Vec<_>>(), "{s}..={e}, {at}");
        }
        // Lengths beyond `usize` (and beyond `u128` for the whole inclusive ranges): not
        // known, but the items are there, in order.
        assert_eq!((0..u128::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!((0..=u128::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (i128::MIN..=i128::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!((0..=big).into_par_iter().opt_len(), None, "{at}");
        assert_eq!((0..big).into_par_iter().opt_len(), Some(usize::MAX), "{at}");
        assert_eq!(
            (0..u128::MAX).into_par_iter().find_first(|&x| x >= 1000),
            Some(1000),
            "{at}"
        );
        assert_eq!(
            (0..=u128::MAX).into_par_iter().find_first(|&x| x >= 5),
            Some(5),
            "{at}"
        );
        assert_eq!(
            (i128::MIN..=i128::MAX).into_par_iter().find_first(|_| true),
            Some(i128::MIN),
            "{at}"
        );
        assert_eq!(
            (u128::MAX - 5000..=u128::MAX)
                .into_par_iter()
                .find_last(|&x| x % 1000 == 7),
            Some(u128::MAX - u128::MAX % 1000 + 7),
            "{at}"
        );
        assert!(
            (big..u128::MAX).into_par_iter().any(|x| x == big + 12345),
            "{at}"
        );
        assert_eq!(
            (0..u128::MAX).into_par_iter().take_any(100).count(),
            100,
            "{at}"
        );
        let got: Vec<u128> = (u128::MAX - 3..=u128::MAX).into_par_iter().collect();
        assert_eq!(
            got,
            [u128::MAX - 3, u128::MAX - 2, u128::MAX - 1, u128::MAX],
            "{at}"
        );
        let got: Vec<i128> = (i128::MAX - 1..=i128::MAX).into_par_iter().collect();
        assert_eq!(got, [i128::MAX - 1, i128::MAX], "{at}");
    });
}

#[test]
fn inclusive_ranges_are_indexed_where_rayons_are() {
    // `u8`, `u16`, `i8`, `i16` and `char` inclusive ranges zip (indexed); the others only
    // run (checked by the compile-fail examples in `forkjoin::range_inclusive`).
    each_pool(|at| {
        let z: Vec<(u8, i8, u16, i16, char)> =
            (0..=u8::MAX, -128..=127i8, 0..=1000u16, -5..=5i16, 'a'..='z')
                .into_par_iter()
                .collect();
        assert_eq!(z.len(), 11, "{at}");
        assert_eq!(z[10], (10, -118, 10, 5, 'k'), "{at}");
        assert_eq!((0..=u8::MAX).into_par_iter().len(), 256, "{at}");
        assert_eq!((i16::MIN..=i16::MAX).into_par_iter().len(), 65536, "{at}");
        assert_eq!((0..=10i32).into_par_iter().sum::<i32>(), 55, "{at}");
        assert_eq!((0..=10i32).into_par_iter().opt_len(), Some(11), "{at}");
    });
}

// ---------------------------------------------------------------------------------------
// Collections, results and options.

#[test]
fn collections_by_value_and_by_reference() {
    each(|at, n| {
        let v = input(n);
        // BinaryHeap: indexed, in no particular order.
        let heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            sorted(heap.par_iter().copied().collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert_eq!(heap.par_iter().len(), n, "{at}");
        assert_eq!(
            heap.par_iter().with_max_len(1).max(),
            v.iter().max(),
            "{at}"
        );
        assert_eq!(
            sorted(heap.clone().into_par_iter().collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert_eq!(heap.clone().into_par_iter().len(), n, "{at}");
        // BTreeSet: in order.
        let set: BTreeSet<u64> = v.iter().copied().collect();
        let expected: Vec<u64> = set.iter().copied().collect();
        assert_eq!(
            set.par_iter().copied().collect::<Vec<_>>(),
            expected,
            "{at}"
        );
        assert_eq!(
            set.clone().into_par_iter().collect::<Vec<_>>(),
            expected,
            "{at}"
        );
        // LinkedList: in order, and mutably.
        let mut list: LinkedList<u64> = v.iter().copied().collect();
        assert_eq!(list.par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        list.par_iter_mut().for_each(|x| *x += 1);
        assert!(list.iter().copied().eq(v.iter().map(|x| x + 1)), "{at}");
        assert_eq!(
            list.clone().into_par_iter().collect::<Vec<_>>(),
            v.iter().map(|x| x + 1).collect::<Vec<_>>(),
            "{at}"
        );
        assert_eq!(list.par_iter().opt_len(), Some(n), "{at}");
        // VecDeque: indexed, also when its items wrap around the end of its buffer.
        for mut deque in [deque_of(&v), v.iter().copied().collect()] {
            assert!(deque.iter().eq(&v), "{at}");
            let got: Vec<u64> = deque.par_iter().with_max_len(1).copied().collect();
            assert_eq!(got, v, "{at}");
            assert_eq!(deque.par_iter().len(), n, "{at}");
            let got: Vec<(usize, u64)> = deque.par_iter().copied().enumerate().rev().collect();
            assert!(
                got.into_iter().eq(v.iter().copied().enumerate().rev()),
                "{at}"
            );
            deque.par_iter_mut().with_max_len(1).for_each(|x| *x *= 2);
            assert!(deque.iter().copied().eq(v.iter().map(|x| x * 2)), "{at}");
            let got: Vec<u64> = deque.clone().into_par_iter().with_max_len(1).collect();
            assert!(got.iter().copied().eq(v.iter().map(|x| x * 2)), "{at}");
            assert_eq!(deque.into_par_iter().len(), n, "{at}");
        }
        // Owned items are all dropped, also when a consumer stops early.
        let drops = AtomicUsize::new(0);
        let deque: VecDeque<Counted> = deque_of(&v)
            .into_iter()
            .map(|x| Counted(x, &drops))
            .collect();
        assert_eq!(
            deque.into_par_iter().with_max_len(1).take(n / 2).count(),
            n / 2,
            "{at}"
        );
        assert_eq!(drops.load(Relaxed), n, "{at}");
        drops.store(0, Relaxed);
        let list: LinkedList<Counted> = v.iter().map(|&x| Counted(x, &drops)).collect();
        assert_eq!(list.into_par_iter().take_any(n / 2).count(), n / 2, "{at}");
        assert_eq!(drops.load(Relaxed), n, "{at}");
    });
}

/// A deque holding `v` whose items wrap around the end of its buffer (when `v` has two
/// items or more).
fn deque_of<T: Clone>(v: &[T]) -> VecDeque<T> {
    let mut d = VecDeque::with_capacity(v.len() + 3);
    let mid = v.len() / 2;
    for x in &v[mid..] {
        d.push_back(x.clone());
    }
    for x in v[..mid].iter().rev() {
        d.push_front(x.clone());
    }
    if v.len() >= 2 {
        assert!(!d.as_slices().1.is_empty(), "the deque wraps around");
    }
    d
}

#[test]
fn results_and_options() {
    each_pool(|at| {
        let mut ok: Result<String, i32> = Ok("x".into());
        let mut err: Result<String, i32> = Err(3);
        assert_eq!(ok.par_iter().cloned().collect::<Vec<_>>(), ["x"], "{at}");
        assert_eq!(err.par_iter().count(), 0, "{at}");
        assert_eq!(ok.par_iter().len(), 1, "{at}");
        ok.par_iter_mut().for_each(|s| s.push('y'));
        err.par_iter_mut().for_each(|s| s.push('y'));
        assert_eq!((&ok, &err), (&Ok("xy".into()), &Err(3)), "{at}");
        assert_eq!(
            ok.clone().into_par_iter().collect::<Vec<_>>(),
            ["xy"],
            "{at}"
        );
        assert_eq!(err.clone().into_par_iter().len(), 0, "{at}");
        let z: Vec<(&String, i32)> = ok.par_iter().zip(5..10).collect();
        assert_eq!(z, [(&"xy".to_string(), 5)], "{at}");
        let mut some = Some(4);
        let none: Option<i32> = None;
        assert_eq!(some.par_iter().sum::<i32>(), 4, "{at}");
        assert_eq!(none.par_iter().count(), 0, "{at}");
        some.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(some, Some(5), "{at}");
        // Collecting `Result`s.
        let all: Result<Vec<i32>, String> = (0..100).into_par_iter().map(Ok).collect();
        assert_eq!(all, Ok((0..100).collect()), "{at}");
        let bad: Result<Vec<i32>, i32> = (0..100)
            .into_par_iter()
            .map(|x| if x == 42 { Err(x) } else { Ok(x) })
            .collect();
        assert_eq!(bad, Err(42), "{at}");
    });
    let r: Result<i32, ()> = Ok(1);
    let it: forkjoin::result::Iter<'_, i32> = r.par_iter();
    assert_eq!(it.clone().count(), 1);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::result::IntoIter<i32> = r.into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 1);
}

#[test]
fn collection_iterators_are_clone_and_debug() {
    let heap: BinaryHeap<i32> = [3, 1, 2].into();
    let it: forkjoin::collections::binary_heap::Iter<'_, i32> = heap.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 6);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::collections::binary_heap::IntoIter<i32> = heap.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 6);
    let list: LinkedList<i32> = [1, 2].into();
    let it: forkjoin::collections::linked_list::Iter<'_, i32> = list.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let it: forkjoin::collections::linked_list::IntoIter<i32> = list.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    assert!(format!("{it:?}").starts_with("IntoIter"));
    let deque: VecDeque<i32> = [1, 2].into();
    let it: forkjoin::collections::vec_deque::Iter<'_, i32> = deque.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    assert!(format!("{it:?}").starts_with("Iter"));
    let it: forkjoin::collections::vec_deque::IntoIter<i32> = deque.clone().into_par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let set: BTreeSet<i32> = [1, 2].into();
    let it: forkjoin::collections::btree_set::Iter<'_, i32> = set.par_iter();
    assert_eq!(it.clone().sum::<i32>(), 3);
    let map: HashMap<i32, i32> = [(1, 2)].into();
    let it: forkjoin::collections::hash_map::Iter<'_, i32, i32> = map.par_iter();
    assert_eq!(it.clone().count(), 1);
}

// ---------------------------------------------------------------------------------------
// Drains.

/// The ranges drained from a collection of `n` items.
fn ranges(n: usize) -> [(usize, usize); 5] {
    [
        (0, n),
        (0, n / 2),
        (n / 3, n),
        (n / 3, n / 3 + n / 4),
        (n, n),
    ]
}

#[test]
fn vec_deque_par_drain_removes_the_range_whatever_happens() {
    each(|at, n| {
        let v = input(n);
        for (s, e) in ranges(n) {
            let at = &format!("{s}..{e}, {at}");
            let outside: Vec<u64> = v[..s].iter().chain(&v[e..]).copied().collect();
            // Consumed.
            let mut d = deque_of(&v);
            let cap = d.capacity();
            let got: Vec<u64> = d.par_drain(s..e).with_max_len(3).collect();
            assert_eq!(got, v[s..e], "{at}");
            assert!(d.iter().eq(&outside), "{at}");
            assert_eq!(d.capacity(), cap, "keeps its capacity, {at}");
            let mut d = deque_of(&v);
            assert_eq!(d.par_drain(s..e).len(), e - s, "{at}");
            assert!(d.iter().eq(&outside), "{at}");
            let mut d = deque_of(&v);
            let got: Vec<u64> = d.par_drain(s..).rev().collect();
            assert!(got.iter().eq(v[s..].iter().rev()), "{at}");
            assert!(d.iter().eq(&v[..s]), "{at}");
            let mut d = deque_of(&v);
            let sum: u64 = d.par_drain(..e).with_max_len(1).sum();
            assert_eq!(sum, v[..e].iter().sum::<u64>(), "{at}");
            assert!(d.iter().eq(&v[e..]), "{at}");
            if e > s {
                let mut d = deque_of(&v);
                let got: Vec<u64> = d.par_drain(s..=e - 1).collect();
                assert_eq!(got, v[s..e], "{at}");
                assert!(d.iter().eq(&outside), "{at}");
            }
            // The items of the range are dropped once each, whatever happens.
            let drops = AtomicUsize::new(0);
            let fresh = || deque_of(&v.iter().map(|&x| Counted(x, &drops)).collect::<Vec<_>>());
            let values = |d: &VecDeque<Counted>| d.iter().map(|c| c.0).collect::<Vec<_>>();
            let check = |d: VecDeque<Counted>, what: &str| {
                assert_eq!(drops.load(Relaxed), e - s, "{what}, {at}");
                assert_eq!(values(&d), outside, "{what}, {at}");
                drop(d);
                drops.store(0, Relaxed);
            };
            // Consumed in part.
            let mut d = fresh();
            drops.store(0, Relaxed);
            let taken: Vec<Counted> = d
                .par_drain(s..e)
                .with_max_len(2)
                .take((e - s) / 2)
                .collect();
            assert_eq!(taken.len(), (e - s) / 2, "{at}");
            drop(taken);
            check(d, "take");
            // An early stop.
            let mut d = fresh();
            drops.store(0, Relaxed);
            if e > s {
                let target = v[(s + e) / 2];
                let found = d
                    .par_drain(s..e)
                    .with_max_len(1)
                    .find_any(|c| c.0 == target);
                assert_eq!(found.as_ref().map(|c| c.0), Some(target), "{at}");
            }
            check(d, "find_any");
            // A panic in the consumer.
            let mut d = fresh();
            drops.store(0, Relaxed);
            if e > s {
                let middle = v[(s + e) / 2];
                let msg = panic_message(|| {
                    d.par_drain(s..e).with_max_len(2).for_each(|c| {
                        assert!(c.0 != middle, "found the middle");
                    })
                });
                assert_eq!(msg, "found the middle", "{at}");
            }
            check(d, "panic");
            // Never driven.
            let mut d = fresh();
            drops.store(0, Relaxed);
            drop(d.par_drain(s..e));
            check(d, "never driven");
        }
    });
    let mut d: VecDeque<i32> = [1, 2, 3].into();
    let msg = panic_message(|| drop(d.par_drain(2..5)));
    assert_eq!(msg, "range end index 5 out of range for slice of length 3");
    assert!(d.iter().eq(&[1, 2, 3]));
}

/// A string of `n` characters of 1 to 4 bytes.
fn text(n: usize) -> String {
    ['a', 'é', '→', '😀', 'b', 'ü']
        .into_iter()
        .cycle()
        .take(n)
        .collect()
}

#[test]
fn string_par_drain_removes_the_range_whatever_happens() {
    each(|at, n| {
        let t = text(n);
        // Byte offsets of the char boundaries, by char index.
        let at_char: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
        for (cs, ce) in ranges(n) {
            let (s, e) = (at_char[cs], at_char[ce]);
            let at = &format!("{s}..{e}, {at}");
            let outside = format!("{}{}", &t[..s], &t[e..]);
            let mut w = t.clone();
            let cap = w.capacity();
            let got: String = w.par_drain(s..e).collect();
            assert_eq!(got, t[s..e], "{at}");
            assert_eq!(w, outside, "{at}");
            assert_eq!(w.capacity(), cap, "keeps its capacity, {at}");
            let mut w = t.clone();
            let got: Vec<char> = w.par_drain(s..).collect();
            assert!(got.into_iter().eq(t[s..].chars()), "{at}");
            assert_eq!(w, t[..s], "{at}");
            let mut w = t.clone();
            assert_eq!(w.par_drain(..e).count(), ce, "{at}");
            assert_eq!(w, t[e..], "{at}");
            // Consumed in part, stopped early, a panic, never driven.
            let mut w = t.clone();
            assert_eq!(
                w.par_drain(s..e).take_any((ce - cs) / 2).count(),
                (ce - cs) / 2,
                "{at}"
            );
            assert_eq!(w, outside, "take_any, {at}");
            let mut w = t.clone();
            if e > s {
                let c = t[s..e].chars().nth((ce - cs) / 2).unwrap();
                assert_eq!(w.par_drain(s..e).find_any(|&x| x == c), Some(c), "{at}");
            }
            assert_eq!(w, outside, "find_any, {at}");
            let mut w = t.clone();
            let r = catch_unwind(AssertUnwindSafe(|| {
                w.par_drain(s..e)
                    .for_each(|c| assert!(c != '→', "an arrow"));
            }));
            assert_eq!(r.is_err(), t[s..e].contains('→'), "{at}");
            assert_eq!(w, outside, "panic, {at}");
            let mut w = t.clone();
            drop(w.par_drain(s..e));
            assert_eq!(w, outside, "never driven, {at}");
        }
    });
    // Not on a char boundary, or out of range: std's panics, and the string is unchanged.
    let mut s = String::from("aé→");
    let ours = panic_message(|| drop(s.par_drain(2..)));
    let std = panic_message(|| drop(s.clone().drain(2..)));
    assert_eq!(ours, std);
    assert_eq!(ours, "assertion failed: self.is_char_boundary(start)");
    let ours = panic_message(|| drop(s.par_drain(..4)));
    assert_eq!(ours, "assertion failed: self.is_char_boundary(end)");
    let ours = panic_message(|| drop(s.par_drain(..10)));
    let std = panic_message(|| drop(s.clone().drain(..10)));
    assert_eq!(ours, std);
    assert_eq!(s, "aé→");
    assert_eq!(s.par_drain(1..3).collect::<String>(), "é");
    assert_eq!(s, "a→");
}

#[test]
fn par_drain_full_of_hash_map_hash_set_and_binary_heap() {
    each(|at, n| {
        let v = input(n);
        let distinct: Vec<u64> = sorted(
            v.iter()
                .copied()
                .collect::<HashSet<_>>()
                .into_iter()
                .collect(),
        );
        // Consumed.
        let mut map: HashMap<u64, usize> = v.iter().map(|&x| (x, x as usize % 7)).collect();
        let cap = map.capacity();
        let got: Vec<(u64, usize)> = map.par_drain().collect();
        assert_eq!(sorted(got.iter().map(|p| p.0).collect()), distinct, "{at}");
        assert!(got.iter().all(|&(k, x)| x == k as usize % 7), "{at}");
        assert!(map.is_empty() && map.capacity() == cap, "{at}");
        let mut set: HashSet<u64> = v.iter().copied().collect();
        let cap = set.capacity();
        assert_eq!(sorted(set.par_drain().collect()), distinct, "{at}");
        assert!(set.is_empty() && set.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        let cap = heap.capacity();
        assert_eq!(heap.par_drain().len(), n, "{at}");
        assert!(heap.is_empty() && heap.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            sorted(heap.par_drain().with_max_len(1).collect()),
            sorted(v.clone()),
            "{at}"
        );
        assert!(heap.is_empty() && heap.capacity() == cap, "{at}");
        let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
        assert_eq!(
            heap.par_drain().rev().sum::<u64>(),
            v.iter().sum::<u64>(),
            "{at}"
        );
        // Dropped once each, whatever happens; the collection is empty after.
        let drops = AtomicUsize::new(0);
        let k = distinct.len();
        let target = v.get(n / 2).copied();
        macro_rules! whatever_happens {
            ($fresh:expr, $len:expr, $what:literal) => {{
                let check = |what: &str, empty: bool| {
                    assert!(empty, "{} {what}: not empty, {at}", $what);
                    assert_eq!(drops.load(Relaxed), $len, "{} {what}, {at}", $what);
                    drops.store(0, Relaxed);
                };
                let mut c = $fresh;
                let taken = c.par_drain().take_any($len / 2).count();
                assert_eq!(taken, $len / 2, "{at}");
                check("take_any", c.is_empty());
                let mut c = $fresh;
                let found = c.par_drain().find_any(|x| Some(key(x)) == target);
                assert_eq!(found.as_ref().map(key), target, "{at}");
                drop(found);
                check("find_any", c.is_empty());
                let mut c = $fresh;
                if let Some(t) = target {
                    let msg = panic_message(|| {
                        c.par_drain().for_each(|x| {
                            assert!(key(&x) != t, "found it");
                        })
                    });
                    assert_eq!(msg, "found it", "{at}");
                }
                check("panic", c.is_empty());
                let mut c = $fresh;
                drop(c.par_drain());
                check("never driven", c.is_empty());
            }};
        }
        trait Key {
            fn key(&self) -> u64;
        }
        impl Key for Counted<'_> {
            fn key(&self) -> u64 {
                self.0
            }
        }
        impl Key for (Counted<'_>, u8) {
            fn key(&self) -> u64 {
                self.0 .0
            }
        }
        fn key<T: Key>(x: &T) -> u64 {
            x.key()
        }
        let fresh_map = || -> HashMap<Counted, u8> {
            let m = distinct.iter().map(|&x| (Counted(x, &drops), 1)).collect();
            drops.store(0, Relaxed);
            m
        };
        let fresh_set = || -> HashSet<Counted> {
            let s = distinct.iter().map(|&x| Counted(x, &drops)).collect();
            drops.store(0, Relaxed);
            s
        };
        let fresh_heap = || -> BinaryHeap<Counted> {
            let h = v.iter().map(|&x| Counted(x, &drops)).collect();
            drops.store(0, Relaxed);
            h
        };
        whatever_happens!(fresh_map(), k, "HashMap");
        whatever_happens!(fresh_set(), k, "HashSet");
        whatever_happens!(fresh_heap(), n, "BinaryHeap");
    });
    // Debug.
    let mut heap: BinaryHeap<i32> = [1, 2].into();
    let d: forkjoin::collections::binary_heap::Drain<'_, i32> = heap.par_drain();
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut map: HashMap<i32, i32> = [(1, 2)].into();
    let d: forkjoin::collections::hash_map::Drain<'_, i32, i32> = map.par_drain();
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut set: HashSet<i32> = [1].into();
    let d: forkjoin::collections::hash_set::Drain<'_, i32> = set.par_drain();
    assert_eq!(d.count(), 1);
    let mut deque: VecDeque<i32> = [1].into();
    let d: forkjoin::collections::vec_deque::Drain<'_, i32> = deque.par_drain(..);
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    let mut s = String::from("ab");
    let d: forkjoin::string::Drain<'_> = s.par_drain(..1);
    assert!(format!("{d:?}").starts_with("Drain"));
    drop(d);
    assert_eq!(s, "b");
}
