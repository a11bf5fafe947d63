//! Sources: strings, slices, collections, `par_bridge`, and the items they hand out; how
//! many times the closures after them run, and drops of the items they own.

// A program returns its observations as one value: tuples of what it saw, per pool.
#![allow(clippy::type_complexity)]

use crate::common::{on_each_pool, Counter, DropLog};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, LinkedList, VecDeque};

/// A text with multi-byte characters, empty lines and runs of separators.
fn text() -> String {
    let mut s = String::new();
    for i in 0..300 {
        s.push_str(match i % 7 {
            0 => "fork join, ",
            1 => "\u{e9}t\u{e9}\n",
            2 => "\n\n",
            3 => "  a,,b  \t",
            4 => "\u{1f980},\r\n",
            5 => "x",
            _ => "\u{3b1}\u{3b2}\u{3b3} ",
        });
    }
    s
}

same_on_both! {
    /// The string methods: the same pieces, in order, each run once through a `map`.
    fn strings() -> Vec<(Vec<Vec<String>>, Vec<usize>, usize)> {
        let s = text();
        let c = Counter::default();
        let m = |x: &str| {
            c.hit();
            x.to_string()
        };
        on_each_pool!({
            let pieces = vec![
                s.par_split(',').map(m).collect(),
                s.par_split(|ch: char| ch == ',' || ch == '\u{e9}').map(m).collect(),
                s.par_split_terminator('\n').map(m).collect(),
                s.par_split_inclusive('\n').map(m).collect(),
                s.par_lines().map(m).collect(),
                s.par_split_whitespace().map(m).collect(),
                s.par_split_ascii_whitespace().map(m).collect(),
                s.par_matches('j').map(m).collect(),
                s.par_match_indices('\u{3b2}').map(|(i, x)| format!("{i}{}", m(x))).collect(),
                "".par_split(',').map(m).collect(),
                ",".par_split(',').map(m).collect(),
                "a\n".par_lines().map(m).collect(),
            ];
            let runs = c.take();
            let counts = vec![
                s.par_chars().map(|ch| { c.hit(); ch }).count(),
                s.par_char_indices().filter(|&(i, ch)| { c.hit(); i % 3 == 0 || ch == ',' }).count(),
                s.par_bytes().map(|b| { c.hit(); usize::from(b) }).sum(),
                s.par_encode_utf16().map(|u| { c.hit(); usize::from(u) }).sum(),
                s.par_chars().skip_any(10).take_any(5).map(|ch| { c.hit(); ch as usize }).count(),
                s.par_chars().filter(|ch| ch.is_alphabetic()).count(),
            ];
            (pieces, counts, runs + c.take())
        })
    }
}

same_on_both! {
    /// The split closures of a pattern run on every character at least once (how often
    /// more is the schedule's), and a `par_split` by a closure finds the same pieces.
    fn string_pattern_closures() -> Vec<(usize, bool)> {
        let s = text();
        let c = Counter::default();
        on_each_pool!({
            let n = s
                .par_split(|ch: char| {
                    c.hit();
                    ch == ','
                })
                .count();
            (n, c.take() >= s.chars().count())
        })
    }
}

same_on_both! {
    /// Slices: chunks, windows and splits, forward and backward, skipped and taken.
    fn slices() -> Vec<(Vec<Vec<Vec<u32>>>, usize)> {
        let v: Vec<u32> = (0..103).collect();
        let c = Counter::default();
        let m = |x: &[u32]| {
            c.hit();
            x.to_vec()
        };
        on_each_pool!({
            let pieces = vec![
                v.par_chunks(10).map(m).collect(),
                v.par_chunks_exact(10).map(m).collect(),
                v.par_rchunks(10).map(m).collect(),
                v.par_rchunks_exact(10).map(m).collect(),
                v.par_windows(40).map(m).skip(50).collect(),
                v.par_split(|x| x % 17 == 0).map(m).collect(),
                v.par_split_inclusive(|x| x % 17 == 0).map(m).collect(),
                v.par_chunk_by(|a, b| a / 10 == b / 10).map(m).collect(),
                v.par_chunks(7).skip(3).take(4).map(m).collect(),
                v.par_chunks(7).rev().step_by(3).map(m).collect(),
                vec![v.par_chunks_exact(10).remainder().to_vec()],
                v.par_iter().copied().chunks(9).skip(10).collect(),
            ];
            (pieces, c.take())
        })
    }
}

same_on_both! {
    /// Collections: the items each hands out (sorted where the order is the collection's),
    /// and each run once.
    fn collections() -> Vec<(Vec<Vec<u32>>, usize)> {
        let v: Vec<u32> = (0..100).collect();
        let c = Counter::default();
        let m = |x: u32| {
            c.hit();
            x
        };
        let sorted = |mut v: Vec<u32>| {
            v.sort();
            v
        };
        on_each_pool!({
            let deque: VecDeque<u32> = v.iter().copied().collect();
            let list: LinkedList<u32> = v.iter().copied().collect();
            let heap: BinaryHeap<u32> = v.iter().copied().collect();
            let map: HashMap<u32, u32> = v.iter().map(|&x| (x, x * 2)).collect();
            let bmap: BTreeMap<u32, u32> = v.iter().map(|&x| (x, x * 3)).collect();
            let set: BTreeSet<u32> = v.iter().copied().collect();
            let mut drained = deque.clone();
            let mut hmap = map.clone();
            let mut string = String::from("forkjoin");
            let items = vec![
                deque.par_iter().copied().map(m).collect(),
                deque.clone().into_par_iter().map(m).rev().skip(3).collect(),
                list.par_iter().copied().map(m).collect(),
                list.clone().into_par_iter().map(m).filter(|x| x % 7 == 0).collect(),
                sorted(heap.par_iter().copied().map(m).collect()),
                sorted(heap.clone().into_par_iter().map(m).collect()),
                sorted(map.par_iter().map(|(&k, &v)| m(k) + v).collect()),
                bmap.par_iter().map(|(&k, &v)| m(k) * v).collect(),
                set.par_iter().copied().map(m).skip_any(90).count().to_string().bytes().map(u32::from).collect(),
                drained.par_drain(10..20).map(m).collect(),
                drained.into_iter().collect(),
                sorted(hmap.par_drain().map(|(k, _)| m(k)).collect()),
                vec![hmap.len() as u32],
                string.par_drain(4..).map(|ch| m(ch as u32)).collect(),
                string.chars().map(|ch| ch as u32).collect(),
                Some(5).into_par_iter().map(m).collect(),
                None.into_par_iter().map(m).collect(),
                Ok::<u32, ()>(6).into_par_iter().map(m).collect(),
                [1u32, 2, 3].into_par_iter().map(m).skip(1).collect(),
                rt::iter::once(9).map(m).collect(),
                rt::iter::empty().map(m).collect(),
                rt::iter::repeat_n(4, 5).map(m).collect(),
                rt::iter::repeat(4).take_any(5).map(m).collect(),
                (0..=10u16).into_par_iter().map(|x| m(u32::from(x))).rev().skip(2).collect(),
                ('a'..='e').into_par_iter().map(|ch| m(ch as u32)).collect(),
                (0..100u128).into_par_iter().map(|x| m(x as u32)).filter(|x| x % 9 == 0).collect(),
            ];
            (items, c.take())
        })
    }
}

same_on_both! {
    /// `par_bridge`: the sequential iterator's items are each taken once (`next` runs once
    /// per item and once more at the end, on each piece that reaches it), and every item
    /// reaches the consumer.
    fn par_bridge_counts() -> Vec<(usize, Vec<u32>, bool, bool)> {
        let c = Counter::default();
        let nexts = Counter::default();
        on_each_pool!({
            let count = (0..1000)
                .inspect(|_| nexts.hit())
                .par_bridge()
                .map(|x| {
                    c.hit();
                    x
                })
                .count();
            let all_taken = nexts.take() == 1000 && c.take() == 1000;
            let mut sorted: Vec<u32> = (0..100u32).par_bridge().collect();
            sorted.sort();
            let found = (0..1000u32).inspect(|_| nexts.hit()).par_bridge().find_any(|&x| x == 500);
            let bounded = found == Some(500) && nexts.within(501, 1000);
            (count, sorted, all_taken, bounded)
        })
    }
}

same_on_both! {
    /// Owning collections other than `Vec`: their items are dropped once, the ones taken
    /// and the ones an adaptor or a consumer leaves.
    fn drops_of_owning_sources() -> Vec<Vec<(usize, Vec<(usize, usize)>)>> {
        let log = DropLog::new(50);
        on_each_pool!(vec![
            (log.items().into_iter().collect::<VecDeque<_>>().into_par_iter().skip(45).count(), log.wrong()),
            (log.items().into_iter().collect::<VecDeque<_>>().into_par_iter().take(3).count(), log.wrong()),
            (
                {
                    let mut d: VecDeque<_> = log.items().into_iter().collect();
                    let n = d.par_drain(10..20).take(2).count();
                    n + d.len()
                },
                log.wrong(),
            ),
            (log.items().into_iter().collect::<LinkedList<_>>().into_par_iter().take_any(3).count(), log.wrong()),
            (
                log.items().into_iter().map(Some).collect::<Vec<_>>().into_par_iter().flatten().skip_any(40).count(),
                log.wrong(),
            ),
            (
                log.items().into_par_iter().map(|t| vec![t]).flatten().find_first(|t| t.0 == 20).map_or(0, |t| t.0),
                log.wrong(),
            ),
            (
                log.items().into_par_iter().map(|t| vec![t]).flatten_iter().take_any(3).count(),
                log.wrong(),
            ),
            (log.items().into_iter().par_bridge().skip_any(5).count(), log.wrong()),
            (
                log.items().into_iter().par_bridge().take_any_while(|t| t.0 < 200).count(),
                log.wrong(),
            ),
        ])
    }
}
