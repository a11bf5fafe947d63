//! What isolation rests on: a worker that waits for a join, a scope, a task or a job in
//! another pool runs only work that descends from what it waits for, so that stealing can
//! never put an unrelated task on its stack (DESIGN.md, section 5, gives the rule, its
//! reasons and the guarantee). The wait itself, its rounds and its park, is `wait.rs`'s;
//! this file has the regions, their links and the search for a waiter's descendants.
//!
//! - **Regions.** Every job a worker pushes carries a tag in its deque slot: the *region*
//!   the worker was running in, the id of the promoted join frame, scope or task whose work
//!   it is doing (0 outside any). Running a promoted frame, a scope's task or a task enters
//!   its region (`enter_region`); what it pushes is tagged with it. Ids are never reused
//!   (`new_region`).
//! - **Lineage.** A region descends from the one it was made in: a join frame from the
//!   region its owner ran in when it shared it, a scope from its creator's. A worker that
//!   enters a region with a parent publishes the link in its `Lineage` while it runs there,
//!   so that the waiter of an ancestor can find the region (`crate::lineage`).
//! - **What a waiter takes** (`Helps::Descendants`): the jobs it pushed itself since it
//!   began to wait (its deque above `floor`), the jobs tagged with the region it waits for
//!   or with any region that descends from it by the links published, wherever they are
//!   (`Deque::steal_tagged`: the tag is read before the CAS, so a job of another region is
//!   never taken), and its broadcast shares (which only it can run). Never another region's
//!   job. Submission queues are searched with the links (work sent back from another pool,
//!   a spare's leftovers).
//! - **Across pools** (`enter_handed_over`, `wait_in_region`): a worker that hands work to
//!   another pool makes a region for it below its own, publishes the link and waits in it;
//!   work sent back comes through a submission queue tagged with a region whose link its
//!   sender publishes (`Registry::inject_in`). Such a waiter reads the links of every pool
//!   (`Pools`).
//! - **Frames below a wait** stay private until it ends (`hide_frames_below`): shared
//!   meanwhile, the oldest would land above the waiter's floor, for it to take.

use super::wait::Helps;
use super::worker::{JobSource, Worker};
use super::Registry;
use crate::deque::Steal;
use crate::job::JobRef;
use crate::lineage::{Closure, Lineage};
use crate::sync::AtomicUsize;
use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// A region nobody waits on as a worker of this pool (no one to wake when its work is pushed).
pub(crate) const NO_OWNER: usize = usize::MAX;

/// The parent of a region that starts a tree of its own (a task, a broadcast), and the
/// region of a worker outside any: no waiter helps there for an ancestor.
pub(crate) const NO_PARENT: usize = 0;

/// The region a worker runs in (owner-only, `OwnerState`, but for `current`).
pub(crate) struct Regions {
    /// The region this worker runs in, the tag of what it pushes: 0 outside any. Atomic for
    /// a thief that claims a private frame, made in this region.
    pub(super) current: AtomicUsize,
    /// The slot of the worker that waits for `current`, woken when its work is pushed, or
    /// `NO_OWNER`.
    pub(super) waiter: Cell<usize>,
    /// The ids this worker has taken for regions it makes and not yet used (`new_region`):
    /// `next..end`.
    pub(super) next_id: Cell<usize>,
    pub(super) end_id: Cell<usize>,
}

impl Regions {
    pub(super) const fn new() -> Regions {
        Regions {
            current: AtomicUsize::new(0),
            waiter: Cell::new(NO_OWNER),
            next_id: Cell::new(0),
            end_id: Cell::new(0),
        }
    }
}

/// The next block of region ids. Ids come from this one counter, a block at a time per
/// worker, so no two regions ever share an id (a 64-bit count does not wrap): a job's tag
/// and a published link name one region for good. 0 is `NO_PARENT`.
static NEXT_REGIONS: AtomicUsize = AtomicUsize::new(1);

/// How many ids a worker takes from `NEXT_REGIONS` at a time.
const REGION_BLOCK: usize = 1024;

/// A fresh region id, on any thread.
pub(crate) fn new_region() -> usize {
    let current = Worker::current();
    if current.is_null() {
        // Relaxed: the read-modify-write alone makes every id unique; nothing is published.
        NEXT_REGIONS.fetch_add(1, Relaxed)
    } else {
        // SAFETY: a non-null `current` is this thread's worker.
        unsafe { (*current).new_region() }
    }
}

/// Every pool started and not yet dropped, for the waiters across pools: the work a job
/// sent to another pool sends back may pass through any pool, and so may the links from
/// the region waited for to that work's.
static POOLS: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Pools registered so far: a waiter's copy of `POOLS` is stale when this has moved.
static POOLS_MADE: AtomicUsize = AtomicUsize::new(0);

/// Adds a new pool to `POOLS` (and forgets the dropped ones).
pub(super) fn register_pool(registry: &Arc<Registry>) {
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    pools.retain(|p| p.strong_count() > 0);
    pools.push(Arc::downgrade(registry));
    // Relaxed: a hint to re-read `POOLS`, whose mutex orders the list itself; a waiter that
    // sees the count late reads a new pool's links late (helps less meanwhile, never
    // wrongly).
    POOLS_MADE.fetch_add(1, Relaxed);
}

/// A waiter's copy of `POOLS`, taken again when a pool has been started since. It keeps
/// the pools alive until the wait ends (their memory, not their threads).
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

/// What a waiter reads links into: the closure of its region, and for a wait across pools
/// its copy of the pools whose links it reads.
pub(super) struct Looking {
    closure: Closure,
    pools: Option<Pools>,
}

/// A waiter's `Looking`, made the first time it reads the links: a wait that finds its work
/// without them keeps one pointer in its frame, under every job it runs meanwhile (a scope
/// nested through its tasks stacks one wait per level).
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

/// The region a worker runs in, restored when dropped (also when the job unwinds), and its
/// link withdrawn.
pub(crate) struct InRegion<'w> {
    worker: &'w Worker,
    left: LeftRegion,
}

/// What entering a region replaced, for `Worker::leave_region` to put back: the region and
/// its owner, and whether a link was published.
pub(crate) struct LeftRegion {
    outer: (usize, usize),
    linked: bool,
}

impl Drop for InRegion<'_> {
    #[inline]
    fn drop(&mut self) {
        self.worker.leave_region(&self.left)
    }
}

impl Worker {
    /// Enters `region`, a region this worker made for work it is about to hand over (a
    /// broadcast's shares, a job or a scope's tasks in another pool), below the one it runs
    /// in, until the guard drops: the link is published before the work can send anything
    /// back, so that its waiter (`wait_in_region`) finds that at once.
    pub(crate) fn enter_handed_over(&self, region: usize) -> InRegion<'_> {
        InRegion {
            worker: self,
            left: self.enter_handed_over_unguarded(region),
        }
    }

    /// `enter_handed_over` without the guard, as `enter_region_unguarded`.
    pub(crate) fn enter_handed_over_unguarded(&self, region: usize) -> LeftRegion {
        self.enter_region_unguarded(region, self.index, self.current_region())
    }

    /// Waits until `done()` for the work handed over in `region` (entered with
    /// `enter_handed_over`; in another pool if `across_pools`), running only what descends
    /// from it.
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

    /// Runs in `region`, which descends from `parent` (or `NO_PARENT`), until the guard
    /// drops: what this worker pushes meanwhile is tagged with it, `owner` (the slot of the
    /// worker waiting for the region, or `NO_OWNER`) is woken when it is pushed, and the
    /// link is published for the waiters of `parent`'s ancestors.
    #[inline]
    pub(crate) fn enter_region(&self, region: usize, owner: usize, parent: usize) -> InRegion<'_> {
        InRegion {
            worker: self,
            left: self.enter_region_unguarded(region, owner, parent),
        }
    }

    /// `enter_region` without the guard: the caller passes what it returns to
    /// `leave_region`, on this thread, once the work done in the region has returned.
    #[inline]
    pub(crate) fn enter_region_unguarded(
        &self,
        region: usize,
        owner: usize,
        parent: usize,
    ) -> LeftRegion {
        let regions = &self.owner().regions;
        // A frame is tagged, when promoted or claimed, with the region its worker runs in
        // then: the private frames below, made in the region left, are offered now, tagged
        // with it (DESIGN.md, section 5, "Regions").
        self.share_private_frames();
        // Relaxed: a claiming thief reads it after an Acquire load of `len`, which the frames
        // made in this region are recorded with (`registry/claim.rs`).
        let outer = (
            regions.current.swap(region, Relaxed),
            regions.waiter.replace(owner),
        );
        LeftRegion {
            outer,
            linked: parent != NO_PARENT && self.lineage.push(region, parent),
        }
    }

    /// Leaves the region `left` came from entering: the region and owner before it back,
    /// its link withdrawn.
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

    /// `region` and what descends from it, by the links published now: by this pool's
    /// workers, or by every pool's if `pools` (a wait across pools).
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

    /// The oldest job on any deque whose tag is `wanted`, the deque of `first` (the thief of
    /// the frame waited for) first; then, if `queues`, on the submission queues.
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

    /// A job that descends from `region`, or one this worker pushed since `floor`; of the
    /// regions below `region`, only when `deep` (then the links are read into `looking`).
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
        // Within one pool, the region's own jobs first (its thief pushes them), without
        // reading any links; then those of the regions below it, and on the submission queues
        // too: work sent back from another pool, a spare's leftovers. Across pools the
        // region's jobs are in the other pool, and every round reads the links.
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

    /// Counts every private join frame on this stack as shared, so that nothing promotes
    /// them (the heartbeat, `share_private_frames`) until the guard drops: a wait, or a
    /// scope from its start, keeps the frames of the joins below it off its deque, where it
    /// would take them above its floor. On the worker's own thread; the guard drops there
    /// once every frame recorded since has completed.
    pub(crate) fn hide_frames_below(&self) -> HiddenFrames<'_> {
        HiddenFrames {
            worker: self,
            shared: self.hide_frames_unguarded(),
        }
    }

    /// `hide_frames_below` without the guard: the caller passes what it returns to
    /// `unhide_frames` on this thread, once every frame recorded since has completed.
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

/// While it lives, the join frames below it on its worker's stack stay private
/// (`Worker::hide_frames_below`); dropping it, unwinding included, restores their count.
pub(crate) struct HiddenFrames<'a> {
    worker: &'a Worker,
    shared: usize,
}

impl Drop for HiddenFrames<'_> {
    fn drop(&mut self) {
        self.worker.unhide_frames(self.shared);
    }
}
