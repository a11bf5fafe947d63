//! Which region descends from which, so that a waiting worker can help its thieves' thieves:
//! each worker's links, a sequence lock with one writer (DESIGN.md, section 5, "Lineage").

use crate::sync::{fence, AtomicUsize};
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// Links a worker publishes at most; deeper ones go unpublished (less help, never unsafe).
pub(crate) const MAX_LINKS: usize = 32;

/// Reads of a lineage being written before it is passed over (less help, never wrong).
const READ_ATTEMPTS: usize = 4;

/// A region's id where one may be absent (a root's parent): never 0, the id of no region, so
/// an `Option` of it is one word; elsewhere a region is its `usize` id, its jobs' tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RegionId(NonZeroUsize);

impl RegionId {
    /// Region `region`, or `None` for 0 (outside any region).
    #[inline]
    pub(crate) const fn new(region: usize) -> Option<RegionId> {
        match NonZeroUsize::new(region) {
            Some(id) => Some(RegionId(id)),
            None => None,
        }
    }

    /// The region's id, the tag of its jobs.
    #[inline]
    pub(crate) const fn get(self) -> usize {
        self.0.get()
    }
}

/// One worker's published links, innermost last. Written only by its worker.
pub(crate) struct Lineage {
    /// Odd while a link is being written; bumped by two for every link written.
    seq: AtomicUsize,
    /// How many of `links` are published.
    len: AtomicUsize,
    links: [Link; MAX_LINKS],
}

struct Link {
    region: AtomicUsize,
    parent: AtomicUsize,
}

impl Lineage {
    pub(crate) fn new() -> Lineage {
        Lineage {
            seq: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            links: std::array::from_fn(|_| Link {
                region: AtomicUsize::new(0),
                parent: AtomicUsize::new(0),
            }),
        }
    }

    /// Publishes that `region` descends from `parent` (the lineage's worker only); false if
    /// the lineage is full (nothing published, nothing to pop).
    pub(crate) fn push(&self, region: usize, parent: usize) -> bool {
        // Relaxed: only this thread writes `len` and `seq`.
        let n = self.len.load(Relaxed);
        if n == MAX_LINKS {
            return false;
        }
        let seq = self.seq.load(Relaxed);
        // Relaxed, then the Release fence: a reader that reads any of the link's new words
        // also sees the odd `seq` when it reads it again after its Acquire fence.
        self.seq.store(seq + 1, Relaxed);
        fence(Release);
        self.links[n].region.store(region, Relaxed);
        self.links[n].parent.store(parent, Relaxed);
        self.len.store(n + 1, Relaxed);
        // Release: a reader that acquires the even `seq` sees the whole link and `len`.
        self.seq.store(seq + 2, Release);
        true
    }

    /// Withdraws the innermost link (its worker, once per `push` that returned true).
    pub(crate) fn pop(&self) {
        // Relaxed: a reader that still sees the popped link reads a link that is still true
        // (ids are never reused); only overwriting it, in `push`, needs the sequence lock.
        let n = self.len.load(Relaxed);
        self.len.store(n - 1, Relaxed);
    }

    /// Appends the published links, each read whole; none if `READ_ATTEMPTS` reads were torn.
    pub(crate) fn read_into(&self, out: &mut Vec<(usize, usize)>) {
        let start = out.len();
        for _ in 0..READ_ATTEMPTS {
            // Acquire: pairs with the Release that ended the last write (its links and `len`).
            let seq = self.seq.load(Acquire);
            if seq & 1 == 0 {
                let n = self.len.load(Relaxed).min(MAX_LINKS);
                for link in &self.links[..n] {
                    out.push((link.region.load(Relaxed), link.parent.load(Relaxed)));
                }
                // Acquire: if any word read above was written by a later `push`, the odd
                // `seq` that push stored first is visible to the load below.
                fence(Acquire);
                if self.seq.load(Relaxed) == seq {
                    return;
                }
                out.truncate(start);
            }
            crate::sync::yield_now();
        }
    }
}

/// The regions descending from one region by the links read: what a waiter takes tagged jobs
/// from, kept for the whole wait so its buffers are allocated once.
pub(crate) struct Closure {
    root: usize,
    links: Vec<(usize, usize)>,
    /// The root's descendants found.
    below: Vec<usize>,
}

impl Closure {
    pub(crate) const fn new() -> Closure {
        Closure {
            root: 0,
            links: Vec::new(),
            below: Vec::new(),
        }
    }

    /// `root` and every region that descends from it through the links of `lineages`.
    pub(crate) fn close<'a>(&mut self, root: usize, lineages: impl Iterator<Item = &'a Lineage>) {
        self.root = root;
        self.links.clear();
        for lineage in lineages {
            lineage.read_into(&mut self.links);
        }
        self.below.clear();
        // Links come in any order: repeat until no region is added (a handful in practice).
        loop {
            let before = self.below.len();
            for i in 0..self.links.len() {
                let (region, parent) = self.links[i];
                if self.contains(parent) && !self.contains(region) {
                    self.below.push(region);
                }
            }
            if self.below.len() == before {
                return;
            }
        }
    }

    /// Whether the links read named no region below the root.
    #[inline]
    pub(crate) fn is_root_only(&self) -> bool {
        self.below.is_empty()
    }

    /// Whether a job tagged `tag` descends from the root (or is the root's).
    #[inline]
    pub(crate) fn contains(&self, tag: usize) -> bool {
        tag == self.root || self.below.contains(&tag)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_closure_follows_links_in_any_order_and_only_down() {
        let a = Lineage::new();
        let b = Lineage::new();
        // 10 -> 20 -> 30 -> 40, published out of order across two workers; 50 under 99.
        assert!(a.push(30, 20));
        assert!(a.push(50, 99));
        assert!(b.push(40, 30));
        assert!(b.push(20, 10));
        let mut c = Closure::new();
        c.close(10, [&a, &b].into_iter());
        assert_eq!(
            [10, 20, 30, 40, 50, 99].map(|r| c.contains(r)),
            [true, true, true, true, false, false]
        );
        c.close(30, [&a, &b].into_iter());
        assert_eq!(
            [10, 20, 30, 40].map(|r| c.contains(r)),
            [false, false, true, true]
        );
        b.pop();
        c.close(10, [&a, &b].into_iter());
        assert_eq!([20, 30, 40].map(|r| c.contains(r)), [false, false, false]);
    }

    #[test]
    fn a_full_lineage_publishes_nothing_more() {
        let a = Lineage::new();
        for r in 0..MAX_LINKS {
            assert!(a.push(r + 1, r));
        }
        assert!(!a.push(1000, MAX_LINKS));
        let mut c = Closure::new();
        c.close(0, [&a].into_iter());
        assert!(c.contains(MAX_LINKS) && !c.contains(1000));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::Arc;
    use loom::thread;

    /// A link popped and replaced while a waiter reads: it sees (1, 100) or (2, 200), never torn.
    #[test]
    fn a_reader_never_sees_half_of_a_link() {
        model(|| {
            let lineage = Arc::new(Lineage::new());
            assert!(lineage.push(1, 100));
            let reader = {
                let lineage = Arc::clone(&lineage);
                thread::spawn(move || {
                    let mut links = Vec::new();
                    lineage.read_into(&mut links);
                    links
                })
            };
            lineage.pop();
            assert!(lineage.push(2, 200));
            let links = reader.join().unwrap();
            assert!(links.len() <= 1);
            for link in links {
                assert!(link == (1, 100) || link == (2, 200), "torn link {link:?}");
            }
        });
    }
}
