//! Waiting in isolation: a worker that waits for a join, a scope, a task or a job in
//! another pool runs only work that descends from what it waits for, so that stealing can
//! never put an unrelated task on its stack (DESIGN.md, section 5, gives the rule, its
//! reasons and the guarantee).
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
//! - **Frames below a wait** stay private until it ends (`wait_isolated`): shared meanwhile,
//!   the oldest would land above the waiter's floor, for it to take.
//! - **Its core.** A waiter with nothing of its own passes unrelated work on (wakes a parked
//!   worker, which may take it) and parks, with a timeout; the thread that pushes work of its
//!   region wakes it (`Worker::push_in`), and it looks again for deeper descendants when the
//!   timeout ends. No spare stands in for it: its only index would be a waiter's, whose
//!   stack may hold what the spare's task takes (DESIGN.md, section 5, "No spare stands in
//!   for it"; the simulator's `Waits` gives what the idle core costs).

use super::heartbeat::HEARTBEAT;
use super::idle::{IsolatedParking, Round};
use super::worker::{JobSource, Worker};
use super::Registry;
use crate::deque::Steal;
use crate::job::JobRef;
use crate::lineage::{Closure, Lineage};
use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// What a waiting worker may run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Helps {
    /// Anything: a worker between jobs, a spare.
    Anything,
    /// Only what descends from what it waits for: the jobs of its own deque pushed since
    /// `bottom` was `floor`, and the jobs tagged `region` (or a region below it) on any
    /// deque; `across_pools` for a wait for another pool, whose work may come back through
    /// a submission queue by way of any pool (`Worker::wait_in_region`).
    Descendants {
        floor: isize,
        region: usize,
        across_pools: bool,
    },
}

/// A waiter within one pool reads the links (looks below its own region) once in this many
/// search rounds while it spins, and at every round once it parks; a waiter across pools at
/// every round.
const DEEP_SEARCH_EVERY: u32 = 8;

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
    pub(super) waiter: usize,
    /// The ids this worker has taken for regions it makes and not yet used (`new_region`).
    pub(super) ids: Range<usize>,
}

impl Regions {
    pub(super) const fn new() -> Regions {
        Regions {
            current: AtomicUsize::new(0),
            waiter: NO_OWNER,
            ids: 0..0,
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

impl Helps {
    /// The descendants of `region`, and whatever `worker` pushes from now on.
    pub(crate) fn descendants_of(worker: &Worker, region: usize) -> Helps {
        Helps::descendants_from(worker.deque.bottom_index(), region)
    }

    /// The descendants of `region`, and the jobs of the waiter's own deque pushed since its
    /// bottom was `floor`, in this pool.
    pub(crate) fn descendants_from(floor: isize, region: usize) -> Helps {
        Helps::Descendants {
            floor,
            region,
            across_pools: false,
        }
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
struct Looking {
    closure: Closure,
    pools: Option<Pools>,
}

/// A waiter's `Looking`, made the first time it reads the links: a wait that finds its work
/// without them keeps one pointer in its frame, under every job it runs meanwhile (a scope
/// nested through its tasks stacks one wait per level).
#[derive(Default)]
struct Scratch(Option<Box<Looking>>);

impl Scratch {
    fn get(&mut self, across_pools: bool) -> &mut Looking {
        self.0.get_or_insert_with(|| {
            Box::new(Looking {
                closure: Closure::new(),
                pools: across_pools.then(Pools::default),
            })
        })
    }
}

/// An isolated wait (`wait_isolated`): what it waits for and may run, and what it keeps from
/// one round to the next. One value, passed to each round by reference: the wait's frame,
/// under every job it runs, holds it and little else.
struct IsolatedWait<'a> {
    done: &'a dyn Fn() -> bool,
    hint: Option<usize>,
    floor: isize,
    region: usize,
    across_pools: bool,
    /// Counted idle while it looks, so that the thief of its frame shares on request.
    round: Option<Round>,
    scratch: RefCell<Scratch>,
    /// The join frames below the wait, private until it ends (dropped last).
    _hidden: HiddenFrames<'a>,
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
        // SAFETY: made by `enter_region` on this worker's thread, which still runs it.
        unsafe { self.worker.leave_region(&self.left) }
    }
}

impl Worker {
    /// Enters `region`, a region this worker made for work it is about to hand over (a
    /// broadcast's shares, a job or a scope's tasks in another pool), below the one it runs
    /// in, until the guard drops: the link is published before the work can send anything
    /// back, so that its waiter (`wait_in_region`) finds that at once.
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn enter_handed_over(&self, region: usize) -> InRegion<'_> {
        InRegion {
            worker: self,
            // SAFETY: on this worker's thread (our contract).
            left: unsafe { self.enter_handed_over_unguarded(region) },
        }
    }

    /// `enter_handed_over` without the guard, as `enter_region_unguarded`.
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn enter_handed_over_unguarded(&self, region: usize) -> LeftRegion {
        // SAFETY: on this worker's thread (our contract).
        unsafe { self.enter_region_unguarded(region, self.index, self.current_region()) }
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
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn new_region(&self) -> usize {
        // SAFETY: owner-only state, on the owner's thread (our contract).
        unsafe {
            let st = self.owner_state();
            if (*st).regions.ids.start == (*st).regions.ids.end {
                // Relaxed: as in `new_region`.
                let first = NEXT_REGIONS.fetch_add(REGION_BLOCK, Relaxed);
                (*st).regions.ids = first..first + REGION_BLOCK;
            }
            (*st).regions.ids.start += 1;
            (*st).regions.ids.start - 1
        }
    }

    /// The region this worker runs in (0 outside any).
    ///
    /// # Safety
    /// On this worker's thread.
    pub(crate) unsafe fn current_region(&self) -> usize {
        // SAFETY: owner-only state, on the owner's thread (our contract).
        unsafe { (*self.owner_state()).regions.current.load(Relaxed) }
    }

    /// Runs in `region`, which descends from `parent` (or `NO_PARENT`), until the guard
    /// drops: what this worker pushes meanwhile is tagged with it, `owner` (the slot of the
    /// worker waiting for the region, or `NO_OWNER`) is woken when it is pushed, and the
    /// link is published for the waiters of `parent`'s ancestors.
    ///
    /// # Safety
    /// On this worker's thread.
    #[inline]
    pub(crate) unsafe fn enter_region(
        &self,
        region: usize,
        owner: usize,
        parent: usize,
    ) -> InRegion<'_> {
        InRegion {
            worker: self,
            // SAFETY: on this worker's thread (our contract).
            left: unsafe { self.enter_region_unguarded(region, owner, parent) },
        }
    }

    /// `enter_region` without the guard: the caller passes what it returns to
    /// `leave_region`, on this thread, once the work done in the region has returned.
    ///
    /// # Safety
    /// On this worker's thread.
    #[inline]
    pub(crate) unsafe fn enter_region_unguarded(
        &self,
        region: usize,
        owner: usize,
        parent: usize,
    ) -> LeftRegion {
        // SAFETY: owner-only state, on the owner's thread (our contract).
        let outer = unsafe {
            let st = self.owner_state();
            // A frame is tagged, when promoted or claimed, with the region its worker runs
            // in then: the private frames below, made in the region left, are offered now,
            // tagged with it (DESIGN.md, section 5, "Regions").
            self.share_private_frames();
            // Relaxed: a claiming thief reads it after an Acquire load of `len`, which the
            // frames made in this region are recorded with (`registry/claim.rs`).
            let outer = (
                (*st).regions.current.swap(region, Relaxed),
                (*st).regions.waiter,
            );
            (*st).regions.waiter = owner;
            outer
        };
        LeftRegion {
            outer,
            linked: parent != NO_PARENT && self.lineage.push(region, parent),
        }
    }

    /// Leaves the region `left` came from entering: the region and owner before it back,
    /// its link withdrawn.
    ///
    /// # Safety
    /// On this worker's thread, with the `LeftRegion` of the innermost region entered.
    #[inline]
    pub(crate) unsafe fn leave_region(&self, left: &LeftRegion) {
        // SAFETY: owner-only state, on the owner's thread (our contract).
        unsafe {
            let st = self.owner_state();
            // Relaxed: as in `enter_region_unguarded`.
            (*st).regions.current.store(left.outer.0, Relaxed);
            (*st).regions.waiter = left.outer.1;
        }
        if left.linked {
            self.lineage.pop();
        }
    }

    /// `region` and what descends from it, by the links published now: by this pool's
    /// workers, or by every pool's if `pools` (a wait across pools).
    fn close<'c>(&self, looking: &'c mut Looking, region: usize) -> &'c Closure {
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
                        // SAFETY: owner-only state, on the owner's thread.
                        unsafe { (*self.owner_state()).source = source };
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
    fn find_descendant(
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
    fn sees_descendant(
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

    /// Runs descendants of `region` (and jobs pushed since `floor`) until `done()`; with
    /// none in sight, spins, yields and parks as the idle policy says (`Idle`), in
    /// isolation (see the module's docs).
    #[inline(never)]
    pub(crate) fn wait_isolated(
        &self,
        done: &dyn Fn() -> bool,
        hint: Option<usize>,
        floor: isize,
        region: usize,
        across_pools: bool,
    ) {
        // The join frames below the wait stay private until it ends: the heartbeat of a job
        // run meanwhile shares the oldest private frame, which would land on this deque
        // above `floor`, tagged with the region running then, for this waiter to take: an
        // unrelated job (the rest of an outer loop). (Below a join frame's wait every
        // frame is shared already, and this changes nothing.)
        let mut wait = IsolatedWait {
            done,
            hint,
            floor,
            region,
            across_pools,
            round: None,
            scratch: RefCell::new(Scratch::default()),
            _hidden: self.hide_frames_below(),
        };
        // Each round out of line: its locals are gone before the job it found runs, so a
        // wait costs the stack of a few words under the jobs it runs.
        while !(wait.done)() {
            if let Some(job) = self.isolated_round(&mut wait) {
                // SAFETY: on this worker's thread; the job was taken for it alone (from a
                // queue, or a claimed frame).
                unsafe { self.execute(job) };
            }
        }
        if wait.round.is_some() {
            self.registry().idle.work_found();
        }
        // Every job run meanwhile has returned, with its frames: `len` is back where it was
        // when `wait` drops, and the frames hidden with it are shown again.
    }

    /// The first rounds of `wait_isolated`, while each finds a job of the waiter's own
    /// (pushed since `floor`): run in the caller's frame, without the wait's. Whether `done()`
    /// holds at the end. For a scope's owner, whose frames below are hidden already (a wait
    /// would hide them again, which changes nothing): the tasks it spawned last are run
    /// under a level of stack that holds little more than the scope.
    #[inline]
    pub(crate) fn run_own_above(&self, done: &dyn Fn() -> bool, floor: isize) -> bool {
        while !done() {
            let Some(job) = self.take_own_for_wait(floor) else {
                return false;
            };
            // SAFETY: on this worker's thread; the job was taken from its own deque.
            unsafe { self.execute(job) };
        }
        true
    }

    /// What a waiter takes first: a job of its own pushed since `floor`, with its index
    /// taken back first if a stand-in held it.
    #[inline]
    fn take_own_for_wait(&self, floor: isize) -> Option<JobRef> {
        self.reclaim_index();
        self.take_own_above(floor).map(JobRef)
    }

    /// One round of `wait_isolated`: a job it may run (the idle count left, if it had
    /// entered it), or `None` after spinning, yielding or parking as the idle policy says.
    #[inline(never)]
    fn isolated_round(&self, wait: &mut IsolatedWait<'_>) -> Option<JobRef> {
        let registry = self.registry();
        let IsolatedWait {
            done,
            hint,
            floor,
            region,
            across_pools,
            round,
            scratch,
            ..
        } = wait;
        let (done, hint, floor, region, across_pools) =
            (*done, *hint, *floor, *region, *across_pools);
        // Links are read every few rounds and at every round once it parks: each read pulls
        // in the lines the thieves write at every region they enter. Across pools, at every
        // round: what comes back lies in a submission queue under a region only the links
        // name, and a waiter that looked for it every eighth round left it to a parked
        // worker's wake-up (a round trip took 6 times as long).
        let deep = across_pools
            || round.as_ref().is_some_and(|r: &Round| {
                r.parks_next() || r.searches() % DEEP_SEARCH_EVERY == DEEP_SEARCH_EVERY - 1
            });
        let found = self.find_descendant(
            hint,
            floor,
            region,
            (&mut scratch.borrow_mut(), across_pools),
            deep,
        );
        if let Some(job) = found {
            if round.take().is_some() {
                registry.idle.work_found();
            }
            return Some(job);
        }
        // Counted idle before it asks (the thief of its frame shares on request).
        round.get_or_insert_with(|| registry.idle.start_looking());
        if registry.some_busy() {
            self.request_sharing();
            // A stalled worker's private frame, if it runs in a region this waiter helps
            // with (the links are read only for a claim).
            let wanted = |r: usize| {
                r == region
                    || self
                        .close(scratch.borrow_mut().get(across_pools), region)
                        .contains(r)
            };
            if let Some(job) = self.claim_from_stalled(&wanted) {
                if round.take().is_some() {
                    registry.idle.work_found();
                }
                return Some(job);
            }
        }
        let round = round.get_or_insert_with(|| registry.idle.start_looking());
        let parking = IsolatedParking {
            index: self.index,
            stay_awake: &|| {
                done()
                    || registry.index_claimed(self)
                    || self.sees_descendant(
                        floor,
                        region,
                        (&mut scratch.borrow_mut(), across_pools),
                    )
            },
            parks: &self.counters.parks,
            sleeps: &self.counters.isolated_sleeps,
            period: HEARTBEAT,
        };
        if !round.parks_next() {
            registry.idle.no_work_found_isolated(round, parking);
            return None;
        }
        // The only worker of its pool, waiting for another pool: nobody else can run what it
        // pushed before the wait (the other halves of the joins it is in, which the other
        // pool's work may wait for), so it runs them itself, as rayon's waits do (DESIGN.md,
        // section 5, "The guarantee").
        if across_pools && registry.num_threads() == 1 {
            if let Some(job) = self.take_own() {
                registry.idle.work_found();
                *round = registry.idle.start_looking();
                return Some(JobRef(job));
            }
        }
        // A thread waiting for this worker's index (a stand-in whose `blocking` returned in
        // the middle of a task, which what this waiter waits for may need) gets it now.
        if registry.lend_index_before_parking(self) {
            round.start_over();
            return None;
        }
        // About to park. Work this waiter may not take: make sure a thread that may is awake
        // (counted idle, this waiter may have made its publisher skip the wake-up). No spare
        // stands in for it (see the module's docs).
        if registry.has_work() {
            registry.idle.idle_beside_work();
        }
        registry.idle.no_work_found_isolated(round, parking);
        None
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
        // SAFETY: owner-only state, on the owner's thread (the caller's).
        let shared = unsafe {
            let counts = &(*self.owner_state()).counts;
            counts.set_shared(&self.frames_lock, counts.len())
        };
        self.refresh_limit();
        shared
    }

    /// Ends `hide_frames_unguarded`: `shared` is what it returned.
    #[inline(never)]
    pub(crate) fn unhide_frames(&self, shared: usize) {
        // SAFETY: owner-only state, on the owner's thread (see `hide_frames_below`).
        unsafe {
            (*self.owner_state())
                .counts
                .set_shared(&self.frames_lock, shared)
        };
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
