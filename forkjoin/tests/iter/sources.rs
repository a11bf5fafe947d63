//! The sources that are not collections: the free functions of `forkjoin::iter` (`empty`,
//! `once`, `repeat`, `repeat_n`, `split`, the tree walks), tuples zipped into `MultiZip`,
//! `Either` of two iterators, and `par_bridge` over an iterator or a channel.

use crate::common::*;
use forkjoin::iter::{
    empty, once, repeat, repeat_n, split, walk_tree, walk_tree_postfix, walk_tree_prefix, Either,
    Empty, MultiZip, Once, Repeat, RepeatN,
};
use forkjoin::prelude::*;
use std::num::Wrapping;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;

// ---------------------------------------------------------------------------------------
// The free functions.

#[test]
fn empty_and_once() {
    on_pools(|at| {
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
    on_pools_and_lens(&SMALL, |at, n| {
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
        let v = input31(n);
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
    on_pools_and_lens(&SMALL, |at, n| {
        let pieces: Vec<Range<usize>> = split(0..n, halve).collect();
        assert!(!pieces.is_empty(), "{at}");
        assert_eq!(pieces[0].start, 0, "{at}");
        assert_eq!(pieces.last().unwrap().end, n, "{at}");
        assert!(pieces.windows(2).all(|w| w[0].end == w[1].start), "{at}");
        let v = input31(n);
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
    on_pools_and_lens(&SMALL, |at, n| {
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
    on_pools(|at| {
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
        // A folder of one word: recursion at the top, then the stack (the sum is exact, and
        // `find_first` sees the postfix order, the deepest node first).
        assert_eq!(
            walk_tree_postfix(0, next).map(|i| i as u64).sum::<u64>(),
            (deep as u64) * (deep as u64 - 1) / 2,
            "{at}"
        );
        assert_eq!(
            walk_tree_postfix(0, next).find_first(|&i| i < 3),
            Some(2),
            "{at}"
        );
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
    on_pools_and_lens(&SMALL, |at, n| {
        let a = input31(n);
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
    on_pools_and_lens(&SMALL, |at, n| {
        let v = input31(n);
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

#[test]
fn either_of_two_iterators_and_of_two_collections() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
        for left in [true, false] {
            let it = if left {
                Either::Left(v.par_iter().copied())
            } else {
                Either::Right(v.par_iter().rev().copied())
            };
            assert_eq!(it.len(), n, "{at}");
            let got: Vec<(usize, u64)> = it.enumerate().with_max_len(3).collect();
            let mut expected = v.clone();
            if !left {
                expected.reverse();
            }
            assert_eq!(
                got,
                expected.into_iter().enumerate().collect::<Vec<_>>(),
                "{at}"
            );
            let mut target: Either<Vec<u64>, Vec<u64>> = if left {
                Either::Left(vec![1])
            } else {
                Either::Right(vec![2])
            };
            target.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
            let mut expected = vec![if left { 1 } else { 2 }];
            expected.extend(v.iter().filter(|&&x| x % 2 == 0));
            assert_eq!(target.either(|l| l, |r| r), expected, "{at}");
        }
    });
}

#[test]
fn par_bridge_on_an_iterator_and_on_a_channel() {
    on_pools_and_lens(&LENS_FOR_COSTLY_ITEMS, |at, n| {
        let v = input(n);
        let mut sorted = v.to_vec();
        sorted.sort_unstable();
        let mut got: Vec<u64> = v.iter().copied().par_bridge().collect();
        got.sort_unstable();
        assert_eq!(got, sorted, "iterator, {at}");
        let s = v
            .iter()
            .par_bridge()
            .map(|&x| Wrapping(x))
            .sum::<Wrapping<u64>>();
        assert_eq!(s.0, wsum(v.iter()), "iterator, {at}");
        assert_eq!(
            v.iter().filter(|&&x| x % 3 == 0).par_bridge().count(),
            v.iter().filter(|&&x| x % 3 == 0).count(),
            "{at}"
        );

        let (tx, rx) = mpsc::channel();
        let sender = std::thread::spawn(move || {
            for &x in v {
                tx.send(x).unwrap();
            }
        });
        let mut got: Vec<u64> = rx.into_iter().par_bridge().map(|x| x ^ 5).collect();
        sender.join().unwrap();
        got.sort_unstable();
        let mut expected: Vec<u64> = v.iter().map(|x| x ^ 5).collect();
        expected.sort_unstable();
        assert_eq!(got, expected, "channel, {at}");
    });
}

#[test]
fn par_bridge_nested_and_with_panics() {
    on_pools(|at| {
        // Bridges inside bridges, three levels.
        let got: u64 = (0..8u64)
            .par_bridge()
            .map(|i| {
                (0..9u64)
                    .par_bridge()
                    .map(|j| (0..10u64).par_bridge().map(|k| i * j * k + 1).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        let expected: u64 = (0..8u64)
            .map(|i| {
                (0..9u64)
                    .map(|j| (0..10u64).map(|k| i * j * k + 1).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(got, expected, "{at}");
        // A sequential iterator whose `next` itself runs a parallel iterator.
        let got: Vec<u64> = {
            let mut v: Vec<u64> = (0..50u64)
                .map(|i| (0..1000u64).into_par_iter().map(|k| k * i).sum::<u64>())
                .par_bridge()
                .collect();
            v.sort_unstable();
            v
        };
        let mut expected: Vec<u64> = (0..50u64)
            .map(|i| (0..1000u64).map(|k| k * i).sum::<u64>())
            .collect();
        expected.sort_unstable();
        assert_eq!(got, expected, "{at}");
        // A panic in the consumer, and one in the sequential iterator itself.
        let msg = panic_message(|| {
            let s: u64 = (0..10_000u64)
                .par_bridge()
                .map(|x| {
                    if x == 5000 {
                        panic!("bridge map {x}")
                    } else {
                        x
                    }
                })
                .sum();
            unreachable!("{s}");
        });
        assert_eq!(msg, "bridge map 5000", "{at}");
        let msg = panic_message(|| {
            let s: u64 = (0..10_000u64)
                .map(|x| {
                    if x == 7000 {
                        panic!("bridge next {x}")
                    } else {
                        x
                    }
                })
                .par_bridge()
                .sum();
            unreachable!("{s}");
        });
        assert_eq!(msg, "bridge next 7000", "{at}");
        assert_eq!(
            (0..10_000u64).par_bridge().sum::<u64>(),
            49_995_000,
            "after the panics, {at}"
        );
    });
}
