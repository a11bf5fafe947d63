//! Cases small enough for Miri (about a thousand times slower), aimed at the iterators'
//! unsafe code: the in-place collect (`collect/mod.rs`), the owning producers of `Vec` and
//! arrays (`sources/vec.rs`), the folder the splitter keeps on its thread (`splitter.rs`,
//! `StaysHere`), and the drains (`Vec::par_drain`'s unsafe code, and the drains built on it or
//! beside it). Every case runs on a pool of 2 workers and forces splits (`with_max_len`), so
//! that pieces really run on both threads (Miri checks the data races between them); every
//! drained element owns heap memory, so that a double drop or a leak is a memory error Miri
//! reports.
//!
//! ```text
//! MIRIFLAGS="-Zmiri-ignore-leaks -Zmiri-num-cpus=2" \
//!     cargo +nightly miri test -p forkjoin --test iter -- miri::
//! ```
//!
//! They pass natively too, as ordinary tests.

// Every drained element owns heap memory on purpose (see above).
#![allow(clippy::vec_box)]

use forkjoin::prelude::*;
use forkjoin::Pool;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::OnceLock;

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(2).unwrap())
}

/// Counts creations and drops per id.
struct Ledger {
    created: Vec<AtomicU32>,
    dropped: Vec<AtomicU32>,
}

struct Tracked<'a> {
    id: usize,
    /// Heap memory, so that a double drop or a leak is also a memory error Miri reports.
    _payload: Box<usize>,
    ledger: &'a Ledger,
}

impl Ledger {
    fn new(n: usize) -> Ledger {
        Ledger {
            created: (0..n).map(|_| AtomicU32::new(0)).collect(),
            dropped: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }
    fn make(&self, id: usize) -> Tracked<'_> {
        self.created[id].fetch_add(1, Relaxed);
        Tracked {
            id,
            _payload: Box::new(id),
            ledger: self,
        }
    }
    #[track_caller]
    fn assert_all_dropped_once(&self) {
        for i in 0..self.created.len() {
            let (c, d) = (self.created[i].load(Relaxed), self.dropped[i].load(Relaxed));
            assert!(c <= 1, "item {i} created {c} times");
            assert_eq!(d, c, "item {i} created {c} times, dropped {d} times");
        }
    }
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.ledger.dropped[self.id].fetch_add(1, Relaxed);
    }
}

fn panic_message(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap()
}

#[test]
fn collect_in_place_in_order() {
    pool().install(|| {
        for n in [0usize, 1, 2, 3, 17, 40] {
            for max in [1, 3, usize::MAX] {
                let got: Vec<String> = (0..n)
                    .into_par_iter()
                    .with_max_len(max)
                    .map(|i| i.to_string())
                    .collect();
                assert_eq!(got, (0..n).map(|i| i.to_string()).collect::<Vec<_>>());
                let mut target = vec![String::from("old"); 3];
                (0..n)
                    .into_par_iter()
                    .rev()
                    .with_max_len(max)
                    .map(|i| format!("{i}"))
                    .collect_into_vec(&mut target);
                assert_eq!(
                    target,
                    (0..n).rev().map(|i| i.to_string()).collect::<Vec<_>>()
                );
                let (a, b): (Vec<usize>, Vec<String>) = (0..n)
                    .into_par_iter()
                    .with_max_len(max)
                    .map(|i| (i, i.to_string()))
                    .unzip();
                assert_eq!(a, (0..n).collect::<Vec<_>>());
                assert_eq!(b, (0..n).map(|i| i.to_string()).collect::<Vec<_>>());
                let mut v = vec![String::from("x")];
                v.par_extend(
                    (0..n)
                        .into_par_iter()
                        .with_max_len(max)
                        .map(|i| i.to_string()),
                );
                assert_eq!(v.len(), n + 1);
                assert_eq!(
                    v[n],
                    if n == 0 {
                        "x".to_string()
                    } else {
                        (n - 1).to_string()
                    }
                );
            }
        }
    });
}

#[test]
fn owned_vectors_and_arrays_move_each_item_once() {
    pool().install(|| {
        for n in [0usize, 1, 2, 3, 17] {
            for max in [1, 4, usize::MAX] {
                let strings: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
                let got: Vec<String> = strings.clone().into_par_iter().with_max_len(max).collect();
                assert_eq!(got, strings);
                let got: Vec<String> = strings
                    .clone()
                    .into_par_iter()
                    .with_max_len(max)
                    .skip(1)
                    .step_by(2)
                    .rev()
                    .collect();
                let expected: Vec<String> =
                    strings.iter().skip(1).step_by(2).rev().cloned().collect();
                assert_eq!(got, expected);
                let ledger = Ledger::new(2 * n);
                let a: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
                let b: Vec<Tracked> = (n..n + n / 2).map(|i| ledger.make(i)).collect();
                let pairs: Vec<(usize, usize)> = a
                    .into_par_iter()
                    .zip(b)
                    .with_max_len(max)
                    .map(|(x, y)| (x.id, y.id))
                    .collect();
                assert_eq!(pairs, (0..n / 2).zip(n..n + n / 2).collect::<Vec<_>>());
                ledger.assert_all_dropped_once();
                let ledger = Ledger::new(n);
                let a: Vec<Tracked> = (0..n).map(|i| ledger.make(i)).collect();
                let found = a
                    .into_par_iter()
                    .with_max_len(max)
                    .find_first(|t| t.id == n / 2);
                assert_eq!(found.as_ref().map(|t| t.id), (n > 0).then_some(n / 2));
                drop(found);
                ledger.assert_all_dropped_once();
            }
        }
        let words = [
            String::from("fork"),
            String::from("join"),
            String::from("pool"),
        ];
        let got: Vec<String> = words
            .clone()
            .into_par_iter()
            .with_max_len(1)
            .rev()
            .collect();
        assert_eq!(got, ["pool", "join", "fork"]);
        let got: Vec<String> = words.into_par_iter().with_max_len(1).take(1).collect();
        assert_eq!(got, ["fork"]);
    });
}

#[test]
fn a_panic_while_collecting_drops_every_item_once() {
    const N: usize = 24;
    for bad in [0, N / 2, N - 1] {
        pool().install(|| {
            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .with_max_len(3)
                    .map(|i| {
                        if i == bad {
                            panic!("made {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("made {bad}"));
            ledger.assert_all_dropped_once();

            let ledger = Ledger::new(N);
            let items: Vec<Tracked> = (0..N).map(|i| ledger.make(i)).collect();
            let msg = panic_message(|| {
                let v: Vec<Tracked> = items
                    .into_par_iter()
                    .with_max_len(3)
                    .map(|t| {
                        if t.id == bad {
                            panic!("owned {}", t.id)
                        } else {
                            t
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("owned {bad}"));
            ledger.assert_all_dropped_once();

            let ledger = Ledger::new(N);
            let msg = panic_message(|| {
                let v: Vec<Tracked> = (0..N)
                    .into_par_iter()
                    .filter(|i| i % 3 != 1)
                    .map(|i| {
                        if i == bad {
                            panic!("unindexed {i}")
                        } else {
                            ledger.make(i)
                        }
                    })
                    .collect();
                unreachable!("{}", v.len());
            });
            assert_eq!(msg, format!("unindexed {bad}"));
            ledger.assert_all_dropped_once();
            // The pool is still exact.
            assert_eq!(
                (0..N).into_par_iter().with_max_len(2).sum::<usize>(),
                N * (N - 1) / 2
            );
        });
    }
}

#[test]
fn mutable_slices_chunks_and_windows() {
    pool().install(|| {
        for n in [0usize, 1, 2, 3, 17] {
            let mut v: Vec<u64> = (0..n as u64).collect();
            v.par_iter_mut()
                .with_max_len(2)
                .for_each(|x| *x = *x * 3 + 1);
            assert_eq!(v, (0..n as u64).map(|x| x * 3 + 1).collect::<Vec<_>>());
            v.par_chunks_mut(3)
                .with_max_len(1)
                .enumerate()
                .for_each(|(c, chunk)| chunk.fill(c as u64));
            assert_eq!(v, (0..n as u64).map(|i| i / 3).collect::<Vec<_>>());
            let w: Vec<u64> = v
                .par_windows(2)
                .with_max_len(1)
                .map(|w| w[0] + w[1])
                .collect();
            assert_eq!(w, v.windows(2).map(|w| w[0] + w[1]).collect::<Vec<_>>());
            let c: Vec<&[u64]> = v.par_chunks(4).with_max_len(1).collect();
            assert_eq!(c, v.chunks(4).collect::<Vec<_>>());
        }
    });
}

#[test]
fn unindexed_pipelines_and_par_bridge() {
    pool().install(|| {
        for n in [0u64, 1, 2, 17, 40] {
            let got: Vec<u64> = (0..n)
                .into_par_iter()
                .filter(|x| x % 3 != 0)
                .flat_map_iter(|x| [x, x * 10])
                .collect();
            let expected: Vec<u64> = (0..n)
                .filter(|x| x % 3 != 0)
                .flat_map(|x| [x, x * 10])
                .collect();
            assert_eq!(got, expected);
            let got: Vec<u64> = (0..n)
                .into_par_iter()
                .flat_map(|x| (0..x % 4).into_par_iter().map(move |k| x * 100 + k))
                .collect();
            let expected: Vec<u64> = (0..n)
                .flat_map(|x| (0..x % 4).map(move |k| x * 100 + k))
                .collect();
            assert_eq!(got, expected);
            let mut got: Vec<u64> = (0..n).par_bridge().map(|x| x * 2).collect();
            got.sort_unstable();
            assert_eq!(got, (0..n).map(|x| x * 2).collect::<Vec<_>>());
            let (even, odd): (Vec<u64>, Vec<u64>) =
                (0..n).into_par_iter().partition(|x| x % 2 == 0);
            assert_eq!(even, (0..n).filter(|x| x % 2 == 0).collect::<Vec<_>>());
            assert_eq!(odd, (0..n).filter(|x| x % 2 == 1).collect::<Vec<_>>());
        }
    });
}

#[test]
fn searches_folds_and_reductions() {
    pool().install(|| {
        for n in [0usize, 1, 2, 3, 17, 40] {
            let v: Vec<usize> = (0..n).map(|i| (i * 7) % 11).collect();
            for max in [1, usize::MAX] {
                let p = |x: &&usize| **x % 3 == 1;
                assert_eq!(
                    v.par_iter().with_max_len(max).find_first(p),
                    v.iter().find(p)
                );
                assert_eq!(
                    v.par_iter().with_max_len(max).find_last(p),
                    v.iter().rfind(p)
                );
                assert_eq!(
                    v.par_iter().with_max_len(max).position_first(|&x| x == 5),
                    v.iter().position(|&x| x == 5)
                );
                assert_eq!(
                    v.par_iter().with_max_len(max).any(|&x| x == 10),
                    v.contains(&10)
                );
                let folded: Vec<usize> = v
                    .par_iter()
                    .with_max_len(max)
                    .fold(Vec::new, |mut acc, &x| {
                        acc.push(x);
                        acc
                    })
                    .reduce(Vec::new, |mut a, mut b| {
                        a.append(&mut b);
                        a
                    });
                assert_eq!(folded, v);
                let s = v
                    .par_iter()
                    .with_max_len(max)
                    .map(|x| x.to_string())
                    .reduce(String::new, |a, b| a + &b);
                assert_eq!(s, v.iter().map(|x| x.to_string()).collect::<String>());
                let r: Result<Vec<usize>, usize> = v
                    .par_iter()
                    .with_max_len(max)
                    .map(|&x| if x == 9 { Err(x) } else { Ok(x) })
                    .collect();
                assert_eq!(
                    r,
                    if v.contains(&9) {
                        Err(9)
                    } else {
                        Ok(v.clone())
                    }
                );
                assert_eq!(
                    v.par_iter()
                        .with_max_len(max)
                        .map(|&x| Some(x))
                        .try_reduce(|| 0, |a, b| a.checked_add(b)),
                    Some(v.iter().sum())
                );
            }
        }
    });
}

#[test]
fn nested_loops_join_and_scope() {
    pool().install(|| {
        let got: u64 = (0..4u64)
            .into_par_iter()
            .map(|i| {
                (0..5u64)
                    .into_par_iter()
                    .map(|j| (0..6u64).into_par_iter().map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        let expected: u64 = (0..4u64)
            .map(|i| {
                (0..5u64)
                    .map(|j| (0..6u64).map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(got, expected);
        let v: Vec<u64> = (0..20).collect();
        let (a, b) = forkjoin::join(
            || v.par_iter().with_max_len(2).sum::<u64>(),
            || {
                v.par_iter()
                    .with_max_len(2)
                    .map(|x| x * 2)
                    .collect::<Vec<_>>()
            },
        );
        assert_eq!(a, 190);
        assert_eq!(b, (0..20).map(|x| x * 2).collect::<Vec<_>>());
        let mut slots = [0u64; 2];
        forkjoin::scope(|s| {
            for (k, slot) in slots.iter_mut().enumerate() {
                let v = &v;
                s.spawn(move |_| {
                    *slot = v
                        .par_iter()
                        .with_max_len(3)
                        .filter(|&&x| x % 2 == k as u64)
                        .sum()
                });
            }
        });
        assert_eq!(slots, [90, 100]);
        let mut sorted: Vec<u64> = (0..30).map(|i| (i * 17) % 31).collect();
        sorted.par_sort();
        assert_eq!(sorted, {
            let mut s: Vec<u64> = (0..30).map(|i| (i * 17) % 31).collect();
            s.sort();
            s
        });
    });
}

fn boxed(n: usize) -> Vec<Box<usize>> {
    (0..n).map(Box::new).collect()
}

fn values(v: &[Box<usize>]) -> Vec<usize> {
    v.iter().map(|b| **b).collect()
}

#[test]
fn par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let outside: Vec<usize> = (0..2).chain(5..n).collect();
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(2..5).with_max_len(1).collect();
        assert_eq!((values(&got), values(&v)), (vec![2, 3, 4], outside.clone()));
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(2..5).with_max_len(1).take(1).collect();
        assert_eq!((values(&got), values(&v)), (vec![2], outside.clone()));
        let mut v = boxed(n);
        let r = catch_unwind(AssertUnwindSafe(|| {
            v.par_drain(2..5)
                .with_max_len(1)
                .for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert_eq!(values(&v), outside);
        let mut v = boxed(n);
        drop(v.par_drain(2..5));
        assert_eq!(values(&v), outside);
        let mut v = boxed(n);
        let got: Vec<Box<usize>> = v.par_drain(..).with_max_len(1).collect();
        assert_eq!((got.len(), v.len()), (n, 0));
    });
}

/// A deque of `n` boxes whose items wrap around the end of its buffer.
fn boxed_deque(n: usize) -> VecDeque<Box<usize>> {
    let mut d = VecDeque::with_capacity(n + 1);
    for i in (0..n / 2).rev() {
        d.push_front(Box::new(i));
    }
    for i in n / 2..n {
        d.push_back(Box::new(i));
    }
    d
}

fn deque_values(d: &VecDeque<Box<usize>>) -> Vec<usize> {
    d.iter().map(|b| **b).collect()
}

#[test]
fn vec_deque_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let outside: Vec<usize> = (0..2).chain(5..n).collect();
        let mut d = boxed_deque(n);
        assert!(!d.as_slices().1.is_empty(), "the deque wraps around");
        let got: Vec<Box<usize>> = d.par_drain(2..5).with_max_len(1).collect();
        assert_eq!(
            (values(&got), deque_values(&d)),
            (vec![2, 3, 4], outside.clone())
        );
        let mut d = boxed_deque(n);
        let got: Vec<Box<usize>> = d.par_drain(2..5).with_max_len(1).take(1).collect();
        assert_eq!((values(&got), deque_values(&d)), (vec![2], outside.clone()));
        let mut d = boxed_deque(n);
        let found = d.par_drain(2..5).with_max_len(1).find_any(|b| **b == 3);
        assert_eq!(
            (found.map(|b| *b), deque_values(&d)),
            (Some(3), outside.clone())
        );
        let mut d = boxed_deque(n);
        let r = catch_unwind(AssertUnwindSafe(|| {
            d.par_drain(2..5)
                .with_max_len(1)
                .for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert_eq!(deque_values(&d), outside);
        let mut d = boxed_deque(n);
        drop(d.par_drain(2..5));
        assert_eq!(deque_values(&d), outside);
        let mut d = boxed_deque(n);
        let got: Vec<Box<usize>> = d.par_drain(..).with_max_len(1).collect();
        assert_eq!((got.len(), d.len()), (n, 0));
    });
}

#[test]
fn binary_heap_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 7;
        let fresh = || -> BinaryHeap<Box<usize>> { boxed(n).into_iter().collect() };
        let mut h = fresh();
        let mut got: Vec<usize> = h.par_drain().with_max_len(1).map(|b| *b).collect();
        got.sort();
        assert_eq!((got, h.len()), ((0..n).collect(), 0));
        let mut h = fresh();
        assert_eq!(h.par_drain().with_max_len(1).take(2).count(), 2);
        assert!(h.is_empty());
        let mut h = fresh();
        let found = h.par_drain().with_max_len(1).find_any(|b| **b == 3);
        assert_eq!((found.map(|b| *b), h.len()), (Some(3), 0));
        let mut h = fresh();
        let r = catch_unwind(AssertUnwindSafe(|| {
            h.par_drain().with_max_len(1).for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err());
        assert!(h.is_empty());
        let mut h = fresh();
        drop(h.par_drain());
        assert!(h.is_empty());
        // The heap works on after a drain.
        h.push(Box::new(9));
        h.push(Box::new(11));
        assert_eq!(h.pop().map(|b| *b), Some(11));
    });
}

#[test]
fn hash_map_and_hash_set_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let n = 5;
        let map = || -> HashMap<Box<usize>, Box<usize>> {
            (0..n).map(|i| (Box::new(i), Box::new(i * 10))).collect()
        };
        let set = || -> HashSet<Box<usize>> { boxed(n).into_iter().collect() };
        let mut m = map();
        let mut got: Vec<(usize, usize)> = m.par_drain().map(|(k, v)| (*k, *v)).collect();
        got.sort();
        assert_eq!(got, (0..n).map(|i| (i, i * 10)).collect::<Vec<_>>());
        assert!(m.is_empty());
        let mut m = map();
        let found = m.par_drain().find_any(|(k, _)| **k == 3);
        assert_eq!((found.map(|(k, v)| (*k, *v)), m.len()), (Some((3, 30)), 0));
        let mut m = map();
        let r = catch_unwind(AssertUnwindSafe(|| {
            m.par_drain().for_each(|(k, _)| assert!(*k != 3))
        }));
        assert!(r.is_err() && m.is_empty());
        let mut m = map();
        drop(m.par_drain());
        assert!(m.is_empty());
        let mut s = set();
        assert_eq!(s.par_drain().map(|b| *b).sum::<usize>(), n * (n - 1) / 2);
        assert!(s.is_empty());
        let mut s = set();
        assert_eq!(s.par_drain().take_any(2).count(), 2);
        assert!(s.is_empty());
        let mut s = set();
        let r = catch_unwind(AssertUnwindSafe(|| {
            s.par_drain().for_each(|b| assert!(*b != 3))
        }));
        assert!(r.is_err() && s.is_empty());
        let mut s = set();
        drop(s.par_drain());
        assert!(s.is_empty());
    });
}

#[test]
fn string_par_drain_under_miri() {
    let pool = Pool::new(2).unwrap();
    pool.install(|| {
        let text = "aé→😀bü→c";
        // Byte offsets of the characters `→😀b`.
        let (s, e) = (3, 11);
        let outside = "aéü→c";
        let mut w = text.to_string();
        let got: String = w.par_drain(s..e).collect();
        assert_eq!((got.as_str(), w.as_str()), ("→😀b", outside));
        let mut w = text.to_string();
        assert_eq!(w.par_drain(s..e).find_any(|&c| c == '😀'), Some('😀'));
        assert_eq!(w, outside);
        let mut w = text.to_string();
        let r = catch_unwind(AssertUnwindSafe(|| {
            w.par_drain(s..e).for_each(|c| assert!(c != '😀'))
        }));
        assert!(r.is_err());
        assert_eq!(w, outside);
        let mut w = text.to_string();
        drop(w.par_drain(s..e));
        assert_eq!(w, outside);
        let mut w = text.to_string();
        assert_eq!(w.par_drain(..).count(), text.chars().count());
        assert!(w.is_empty());
    });
}
