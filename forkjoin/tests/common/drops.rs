//! Values that count what happens to them: their drops (`Counted`, `Ledger`), or the visits
//! to each index (`Hits`), to check that every item was dropped or visited exactly once.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// A value that counts its drops, compared by value. (Relaxed counts: they are read after
/// the parallel work has joined, and the join orders every drop before the read.)
#[derive(Debug)]
pub(crate) struct Counted<'a>(pub u64, pub &'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Relaxed);
    }
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        Counted(self.0, self.1)
    }
}

impl PartialEq for Counted<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Counted<'_> {}

impl Hash for Counted<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for Counted<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Counted<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}

/// Counts how many times each index was visited.
pub(crate) struct Hits(pub Vec<AtomicU32>);

impl Hits {
    pub(crate) fn new(n: usize) -> Hits {
        Hits((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    pub(crate) fn hit(&self, i: usize) {
        self.0[i].fetch_add(1, Relaxed);
    }
    #[track_caller]
    pub(crate) fn assert_each_once(&self, what: &str) {
        for (i, h) in self.0.iter().enumerate() {
            assert_eq!(h.load(Relaxed), 1, "index {i} visited wrongly: {what}");
        }
    }
}

/// Counts creations and drops per id: every item must be dropped exactly once.
pub(crate) struct Ledger {
    created: Vec<AtomicU32>,
    dropped: Vec<AtomicU32>,
}

pub(crate) struct Tracked<'a> {
    pub id: usize,
    ledger: &'a Ledger,
}

impl Ledger {
    pub(crate) fn new(n: usize) -> Ledger {
        Ledger {
            created: (0..n).map(|_| AtomicU32::new(0)).collect(),
            dropped: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }
    pub(crate) fn make(&self, id: usize) -> Tracked<'_> {
        self.created[id].fetch_add(1, Relaxed);
        Tracked { id, ledger: self }
    }
    pub(crate) fn created(&self) -> usize {
        self.created.iter().map(|c| c.load(Relaxed) as usize).sum()
    }
    #[track_caller]
    pub(crate) fn assert_all_dropped_once(&self, what: &str) {
        for i in 0..self.created.len() {
            let (c, d) = (self.created[i].load(Relaxed), self.dropped[i].load(Relaxed));
            assert!(c <= 1, "item {i} created {c} times: {what}");
            assert_eq!(
                d, c,
                "item {i} created {c} times, dropped {d} times: {what}"
            );
        }
    }
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.ledger.dropped[self.id].fetch_add(1, Relaxed);
    }
}
