//! What isolation rests on (a waiter runs only what descends from what it waits for;
//! DESIGN.md, section 5): regions and their links, the search for a waiter's descendants,
//! regions across pools (`Pools`) and the frames hidden below a wait. The wait is `wait.rs`'s.

use super::wait::Helps;
use super::worker::{JobSource, Worker};
use super::Registry;
use crate::deque::Steal;
use crate::job::JobRef;
use crate::lineage::{Closure, Lineage, RegionId};
use crate::sync::AtomicUsize;
use std::cell::Cell;
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering::Relaxed;
// std's `Arc` and `Weak` (see `crate::sync`); std's `Mutex` for a `static`, locked with no
// atomic of the models inside (nothing loom could interleave).
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// Who waits for a region as a worker of this pool, woken when its work is pushed: a slot
/// plus one, or `None` for nobody (one word, held on the join path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaiterSlot(Option<NonZeroUsize>);

impl WaiterSlot {
    /// No worker of this pool waits for the region (a task's, a broadcast's from outside).
    pub(crate) const NOBODY: WaiterSlot = WaiterSlot(None);

    /// Worker `index` waits for the region.
    #[inline]
    pub(crate) const fn worker(index: usize) -> WaiterSlot {
        WaiterSlot(NonZeroUsize::new(index + 1))
    }

    /// The waiting worker's slot, if a worker waits.
    #[inline]
    pub(crate) fn index(self) -> Option<usize> {
        self.0.map(|n| n.get() - 1)
    }
}

/// The region a worker runs in (owner-only, `OwnerState`, but for `current`).
pub(crate) struct Regions {
    /// The region it runs in, the tag of its pushes (0: none). Atomic for a claiming thief.
    pub(super) current: AtomicUsize,
    /// Who waits for `current`, woken when its work is pushed.
    pub(super) waiter: Cell<WaiterSlot>,
    /// The ids this worker took and has not used yet: `next..end`.
    pub(super) next_id: Cell<usize>,
    pub(super) end_id: Cell<usize>,
}

impl Regions {
    crate::sync::const_fn! {
        pub(super) const fn new() -> Regions {
            Regions {
                current: AtomicUsize::new(0),
                waiter: Cell::new(WaiterSlot::NOBODY),
                next_id: Cell::new(0),
                end_id: Cell::new(0),
            }
        }
    }
}

/// The next block of region ids, never reused (DESIGN.md, section 5, "Regions"). std's, also
/// under loom (a `static`): an id counter, it orders nothing.
static NEXT_REGIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// How many ids a worker takes from `NEXT_REGIONS` at a time.
const REGION_BLOCK: usize = 1024;

/// A fresh region id, on any thread.
pub(crate) fn new_region() -> usize {
    match Worker::current_ref() {
        Some(worker) => worker.new_region(),
        // Relaxed: the read-modify-write alone makes every id unique; nothing is published.
        None => NEXT_REGIONS.fetch_add(1, Relaxed),
    }
}

/// Every live pool, for waiters across pools.
static POOLS: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Pools registered so far: a waiter's copy of `POOLS` is stale when this has moved. std's,
/// also under loom (a `static`): a hint, ordered by `POOLS`'s mutex.
static POOLS_MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Adds a new pool to `POOLS` (and forgets the dropped ones).
pub(super) fn register_pool(registry: &Arc<Registry>) {
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    pools.retain(|p| p.strong_count() > 0);
    pools.push(Arc::downgrade(registry));
    // Relaxed: a hint to re-read `POOLS`, whose mutex orders the list; seen late, a new
    // pool's links are read late (less help, never wrong).
    POOLS_MADE.fetch_add(1, Relaxed);
}

/// A waiter's copy of `POOLS`, renewed when a pool started since; keeps their memory alive.
#[derive(Default)]
struct Pools {
    made: usize,
    live: Vec<Arc<Registry>>,
}

impl Pools {
    fn current(&mut self) -> &[Arc<Registry>] {
        // Relaxed: see `register_pool`.
        if self.live.is_empty() || POOLS_MADE.load(Relaxed) != self.made {
            let pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
            // Relaxed: read under the lock, which every increment is made under.
            self.made = POOLS_MADE.load(Relaxed);
            self.live = pools.iter().filter_map(Weak::upgrade).collect();
        }
        &self.live
    }
}

/// What a waiter reads links into: its region's closure, and across pools its `Pools`.
pub(super) struct Looking {
    closure: Closure,
    pools: Option<Pools>,
}

/// A waiter's `Looking`, boxed on first use (DESIGN.md, section 5, "The stack under a wait").
#[derive(Default)]
pub(super) struct Scratch(Option<Box<Looking>>);

impl Scratch {
    pub(super) fn get(&mut self, across_pools: bool) -> &mut Looking {
        self.0.get_or_insert_with(|| {
            Box::new(Looking {
                closure: Closure::new(),
                pools: across_pools.then(Pools::default),
            })
        })
    }
}

/// Restores the region a worker ran in when dropped (unwinding too), its link withdrawn.
pub(crate) struct InRegion<'w> {
    worker: &'w Worker,
    left: LeftRegion,
}

/// What entering a region replaced (region, waiter) and whether it published a link.
pub(crate) struct LeftRegion {
    outer: (usize, WaiterSlot),
    linked: bool,
}

impl Drop for InRegion<'_> {
    #[inline]
    fn drop(&mut self) {
        self.worker.leave_region(&self.left)
    }
}

impl Worker {
    /// Enters `region`, below the current one, for work about to be handed over.
    pub(crate) fn enter_handed_over(&self, region: usize) -> InRegion<'_> {
        InRegion {
            worker: self,
            left: self.enter_handed_over_unguarded(region),
        }
    }

    /// `enter_handed_over` without the guard, as `enter_region_unguarded`.
    pub(crate) fn enter_handed_over_unguarded(&self, region: usize) -> LeftRegion {
        self.enter_region_unguarded(
            region,
            WaiterSlot::worker(self.index),
            RegionId::new(self.current_region()),
        )
    }

    /// Waits until `done()` for the work handed over in `region`, running its descendants.
    pub(crate) fn wait_in_region(
        &self,
        done: &dyn Fn() -> bool,
        region: usize,
        across_pools: bool,
    ) {
        let helps = Helps::Descendants {
            floor: self.deque.bottom_index(),
            region,
            across_pools,
        };
        self.wait_until(done, None, helps);
    }

    /// A fresh region id (see `NEXT_REGIONS`).
    pub(crate) fn new_region(&self) -> usize {
        let regions = &self.owner().regions;
        let mut id = regions.next_id.get();
        if id == regions.end_id.get() {
            // Relaxed: the counter only hands out distinct blocks; nothing is published.
            id = NEXT_REGIONS.fetch_add(REGION_BLOCK, Relaxed);
            regions.end_id.set(id + REGION_BLOCK);
        }
        regions.next_id.set(id + 1);
        id
    }

    /// The region this worker runs in (0 outside any).
    pub(crate) fn current_region(&self) -> usize {
        // Relaxed: the owner reads its own store.
        self.owner().regions.current.load(Relaxed)
    }

    /// Runs in `region` (child of `parent`, if any) until the guard drops: pushes are tagged
    /// with it and wake `waiter`; the link to `parent` is published meanwhile.
    #[inline]
    pub(crate) fn enter_region(
        &self,
        region: usize,
        waiter: WaiterSlot,
        parent: Option<RegionId>,
    ) -> InRegion<'_> {
        InRegion {
            worker: self,
            left: self.enter_region_unguarded(region, waiter, parent),
        }
    }

    /// `enter_region` without the guard: the caller passes the result to `leave_region`.
    #[inline]
    pub(crate) fn enter_region_unguarded(
        &self,
        region: usize,
        waiter: WaiterSlot,
        parent: Option<RegionId>,
    ) -> LeftRegion {
        let regions = &self.owner().regions;
        // Private frames below, made in the region left, are offered now (DESIGN.md, section 5).
        self.share_private_frames();
        // Relaxed: a claiming thief reads it after an Acquire load of `len`, which the frames
        // made in this region are recorded with (`registry/claim.rs`).
        let outer = (
            regions.current.swap(region, Relaxed),
            regions.waiter.replace(waiter),
        );
        LeftRegion {
            outer,
            linked: parent.is_some_and(|parent| self.lineage.push(region, parent.get())),
        }
    }

    /// Leaves the region `left` came from entering, its link withdrawn.
    #[inline]
    pub(crate) fn leave_region(&self, left: &LeftRegion) {
        let regions = &self.owner().regions;
        // Relaxed: as in `enter_region_unguarded`.
        regions.current.store(left.outer.0, Relaxed);
        regions.waiter.set(left.outer.1);
        if left.linked {
            self.lineage.pop();
        }
    }

    /// `region` and its descendants by the links published now (every pool's if `pools`).
    pub(super) fn close<'c>(&self, looking: &'c mut Looking, region: usize) -> &'c Closure {
        fn lineages(registry: &Registry) -> impl Iterator<Item = &Lineage> {
            (0..registry.slot_count()).map(|i| &*registry.slot(i).lineage)
        }
        let Looking { closure, pools } = looking;
        match pools {
            None => closure.close(region, lineages(self.registry())),
            Some(pools) => closure.close(region, pools.current().iter().flat_map(|r| lineages(r))),
        }
        closure
    }

    /// The oldest `wanted` job on any deque, `first`'s first; then, if `queues`, the queues'.
    fn steal_descendant(
        &self,
        first: usize,
        queues: bool,
        wanted: impl Fn(usize) -> bool,
    ) -> Option<JobRef> {
        let registry = self.registry();
        let workers = registry.slot_count();
        let places = workers + if queues { registry.queues.len() } else { 0 };
        loop {
            let mut contended = false;
            for k in 0..places {
                let (deque, source) = if k < workers {
                    let i = (first + k) % workers;
                    // Our own deque too: a task waited for may lie at its top.
                    let source = if i == self.index {
                        JobSource::Own
                    } else {
                        JobSource::Slot(i)
                    };
                    (&registry.slot(i).deque, source)
                } else {
                    let q = k - workers;
                    (&registry.queues[q].deque, JobSource::Queue(q))
                };
                match deque.steal_tagged(&wanted) {
                    Steal::Success(job) => {
                        super::worker::bump(&self.counters.stolen);
                        // Where it came from, as `find_work` records it (`OwnerState::source`).
                        self.owner().source.set(source);
                        return Some(JobRef(job));
                    }
                    Steal::Retry => contended = true,
                    Steal::Empty => {}
                }
            }
            if !contended {
                return None;
            }
        }
    }

    /// A job that descends from `region` (below it only if `deep`), or one pushed since `floor`.
    pub(super) fn find_descendant(
        &self,
        hint: Option<usize>,
        floor: isize,
        region: usize,
        (scratch, across_pools): (&mut Scratch, bool),
        deep: bool,
    ) -> Option<JobRef> {
        if let Some(job) = self.take_own_for_wait(floor) {
            return Some(job);
        }
        let registry = self.registry();
        if let Some(job) = registry.slot(self.shown_index()).inbox.take() {
            return Some(job);
        }
        let first = hint
            .filter(|&v| v < registry.slot_count())
            .unwrap_or(self.index);
        // Within one pool, the region's own jobs first, without links; then the regions
        // below, queues included. Across pools the region's jobs are in the other pool.
        if !across_pools {
            if let Some(job) = self.steal_descendant(first, false, |tag| tag == region) {
                return Some(job);
            }
        }
        if !deep {
            return None;
        }
        let closure = self.close(scratch.get(across_pools), region);
        self.steal_descendant(first, true, |tag| closure.contains(tag))
    }

    /// Whether a job this waiter may take is in sight (a snapshot, for parking).
    pub(super) fn sees_descendant(
        &self,
        floor: isize,
        region: usize,
        (scratch, across_pools): (&mut Scratch, bool),
    ) -> bool {
        let registry = self.registry();
        if (self.deque.bottom_index() > floor && !self.deque.is_empty())
            || !registry.slot(self.shown_index()).inbox.is_empty()
        {
            return true;
        }
        let tops = || {
            (0..registry.slot_count())
                .map(|i| &registry.slot(i).deque)
                .chain(registry.queues.iter().map(|q| &q.deque))
                .filter_map(|deque| deque.top_tag())
        };
        if tops().any(|t| t == region) {
            return true;
        }
        let closure = self.close(scratch.get(across_pools), region);
        !closure.is_root_only() && tops().any(|t| closure.contains(t))
    }

    /// Counts every private frame on this stack as shared until the guard drops, on the
    /// worker's own thread (DESIGN.md, section 5, "Frames below a wait stay private").
    pub(crate) fn hide_frames_below(&self) -> HiddenFrames<'_> {
        HiddenFrames {
            worker: self,
            shared: self.hide_frames_unguarded(),
        }
    }

    /// `hide_frames_below` without the guard: the caller passes the result to `unhide_frames`.
    #[inline(never)]
    pub(crate) fn hide_frames_unguarded(&self) -> usize {
        let counts = &self.owner().counts;
        let shared = counts.set_shared(&self.frames_lock, counts.len());
        self.refresh_limit();
        shared
    }

    /// Ends `hide_frames_unguarded`: `shared` is what it returned.
    #[inline(never)]
    pub(crate) fn unhide_frames(&self, shared: usize) {
        self.owner().counts.set_shared(&self.frames_lock, shared);
        self.refresh_limit();
    }
}

/// Keeps the frames below it private (`hide_frames_below`); its drop restores their count.
pub(crate) struct HiddenFrames<'a> {
    worker: &'a Worker,
    shared: usize,
}

impl Drop for HiddenFrames<'_> {
    fn drop(&mut self) {
        self.worker.unhide_frames(self.shared);
    }
}
