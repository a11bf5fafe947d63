//! What a waiting worker may run (`Helps`), and when it parks: `wait_until`, `idle_until` and
//! `wait_isolated` (DESIGN.md, section 5).

use super::heartbeat::HEARTBEAT;
use super::idle::{IsolatedParking, Parking, Round};
use super::isolation::{HiddenFrames, Scratch};
use super::worker::Worker;
use crate::job::JobRef;
use std::cell::RefCell;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// What a waiting worker may run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Helps {
    /// Anything: a worker between jobs, a spare.
    Anything,
    /// Only descendants: its own jobs pushed since `bottom` was `floor`, and jobs tagged
    /// `region` or below on any deque; `across_pools` for a wait for another pool.
    Descendants {
        floor: isize,
        region: usize,
        across_pools: bool,
    },
}

impl Helps {
    /// The descendants of `region`, and whatever `worker` pushes from now on.
    pub(crate) fn descendants_of(worker: &Worker, region: usize) -> Helps {
        Helps::descendants_from(worker.deque.bottom_index(), region)
    }

    /// The descendants of `region` and the waiter's own jobs pushed since `floor`, in this pool.
    pub(crate) fn descendants_from(floor: isize, region: usize) -> Helps {
        Helps::Descendants {
            floor,
            region,
            across_pools: false,
        }
    }
}

/// A waiter within one pool reads the links once in this many rounds while it spins.
const DEEP_SEARCH_EVERY: u32 = 8;

/// An isolated wait's state, passed to each round by reference (DESIGN.md, section 5).
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

/// A worker in an ordinary wait (`idle_until`), as the idle policy asks it when it parks.
struct OrdinaryWaiter<'a> {
    worker: &'a Worker,
    done: &'a dyn Fn() -> bool,
}

impl Parking for OrdinaryWaiter<'_> {
    fn index(&self) -> usize {
        self.worker.index
    }

    fn stay_awake(&self) -> bool {
        let (worker, registry) = (self.worker, self.worker.registry());
        (self.done)()
            || registry.has_work_for(worker.shown_index())
            || registry.index_claimed(worker)
    }

    fn wants_watcher(&self) -> bool {
        let registry = self.worker.registry();
        registry.some_busy() || registry.called_lately()
    }

    fn lendable(&self) -> bool {
        // Only between jobs may its slot be lent (`run_borrowed`).
        !self.worker.owner().running.get()
    }

    fn parks(&self) -> &AtomicU64 {
        &self.worker.counters.parks
    }

    fn period(&self) -> Duration {
        HEARTBEAT
    }

    fn requests_pending(&self) -> bool {
        // Not while calls from outside come: they share quietly, for the watcher.
        !self.worker.registry().called_lately() && self.worker.requests_pending()
    }
}

/// A worker in an isolated wait (`isolated_round`), as the idle policy asks it when it parks.
struct IsolatedWaiter<'a> {
    worker: &'a Worker,
    done: &'a dyn Fn() -> bool,
    floor: isize,
    region: usize,
    across_pools: bool,
    scratch: &'a RefCell<Scratch>,
}

impl IsolatedParking for IsolatedWaiter<'_> {
    fn index(&self) -> usize {
        self.worker.index
    }

    fn stay_awake(&self) -> bool {
        let worker = self.worker;
        (self.done)()
            || worker.registry().index_claimed(worker)
            || worker.sees_descendant(
                self.floor,
                self.region,
                (&mut self.scratch.borrow_mut(), self.across_pools),
            )
    }

    fn parks(&self) -> &AtomicU64 {
        &self.worker.counters.parks
    }

    fn sleeps(&self) -> &AtomicU64 {
        &self.worker.counters.isolated_sleeps
    }

    fn period(&self) -> Duration {
        HEARTBEAT
    }
}

impl Worker {
    /// Runs other work as `helps` allows until `done()` holds; with nothing to do it spins,
    /// yields, then parks, and whoever makes `done()` true wakes it.
    pub(crate) fn wait_until(&self, done: &dyn Fn() -> bool, hint: Option<usize>, helps: Helps) {
        if let Helps::Descendants {
            floor,
            region,
            across_pools,
        } = helps
        {
            return self.wait_isolated(done, hint, floor, region, across_pools);
        }
        while !done() {
            match self.find_work(hint) {
                // SAFETY: on this worker's thread; the job was taken from a queue.
                Some(job) => unsafe { self.execute(job) },
                None => {
                    if self.idle_until(done, hint, self.registry().idle.start_looking()) {
                        return;
                    }
                }
            }
        }
    }

    /// The idle phase, driven by the idle policy's events (`Idle`): true once `done()`,
    /// false after running a job. Out of line: `wait_until`'s frame lies under every job.
    #[inline(never)]
    pub(super) fn idle_until(
        &self,
        done: &dyn Fn() -> bool,
        hint: Option<usize>,
        mut round: Round,
    ) -> bool {
        let registry = self.registry();
        loop {
            if done() {
                registry.idle.work_found();
                return true;
            }
            if let Some(job) = self.find_work(hint) {
                registry.idle.work_found();
                // Pass the signal on (the JDK pool's signalWork): a wake-up may have been
                // spared because we were searching, and we are about to be busy.
                if registry.has_work() {
                    registry.notify_work();
                }
                // SAFETY: on this worker's thread; the job was taken from a queue.
                unsafe { self.execute(job) };
                return false;
            }
            if registry.some_busy() {
                self.request_sharing();
                if let Some(job) = self.claim_from_stalled(&|_| true) {
                    registry.idle.work_found();
                    // SAFETY: on this worker's thread; the frame was claimed for it alone.
                    unsafe { self.execute(job) };
                    return false;
                }
            }
            // A stand-in waiting for this worker's index gets it while this one would sleep.
            if round.parks_next() && registry.lend_index_before_parking(self) {
                round.start_over();
                continue;
            }
            let waiter = OrdinaryWaiter { worker: self, done };
            registry.idle.no_work_found(&mut round, &waiter);
        }
    }

    /// Runs descendants of `region` (and jobs pushed since `floor`) until `done()`, else
    /// spins, yields and parks as the idle policy says.
    #[inline(never)]
    pub(crate) fn wait_isolated(
        &self,
        done: &dyn Fn() -> bool,
        hint: Option<usize>,
        floor: isize,
        region: usize,
        across_pools: bool,
    ) {
        // The frames below stay private until the wait ends (DESIGN.md, section 5).
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
        // Each round out of line: its locals are gone before the job it found runs.
        while !(wait.done)() {
            if let Some(job) = self.isolated_round(&mut wait) {
                // SAFETY: on this worker's thread; the job was taken for it alone.
                unsafe { self.execute(job) };
            }
        }
        if wait.round.is_some() {
            self.registry().idle.work_found();
        }
        // Every job run meanwhile has returned: `wait` drops with `len` restored.
    }

    /// Runs the waiter's own jobs pushed since `floor` in the caller's frame; whether `done()`.
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

    /// What a waiter takes first: a job of its own pushed since `floor` (index taken back).
    #[inline]
    pub(super) fn take_own_for_wait(&self, floor: isize) -> Option<JobRef> {
        self.reclaim_index();
        self.take_own_above(floor).map(JobRef)
    }

    /// One round of `wait_isolated`: a job it may run (the idle count left), or `None` after
    /// spinning, yielding or parking as the idle policy says.
    #[inline(never)]
    fn isolated_round(&self, wait: &mut IsolatedWait<'_>) -> Option<JobRef> {
        let registry = self.registry();
        let (done, hint, floor) = (wait.done, wait.hint, wait.floor);
        let (region, across_pools) = (wait.region, wait.across_pools);
        let (round, scratch) = (&mut wait.round, &wait.scratch);
        // Links every few rounds, and every round once parking or across pools
        // (docs/measurements.md, section 5, "Calls into another pool").
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
            // A stalled worker's frame, if in a region this waiter helps (links read lazily).
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
        let waiter = IsolatedWaiter {
            worker: self,
            done,
            floor,
            region,
            across_pools,
            scratch,
        };
        if !round.parks_next() {
            registry.idle.no_work_found_isolated(round, &waiter);
            return None;
        }
        // Alone in its pool, waiting for another: it runs what it pushed before the wait, as
        // nobody else can (DESIGN.md, section 5, "The guarantee").
        if across_pools && registry.num_threads() == 1 {
            if let Some(job) = self.take_own_above(isize::MIN) {
                registry.idle.work_found();
                *round = registry.idle.start_looking();
                return Some(JobRef(job));
            }
        }
        // A stand-in waiting for this worker's index gets it now.
        if registry.lend_index_before_parking(self) {
            round.start_over();
            return None;
        }
        // About to park beside work it may not take: wake a thread that may.
        if registry.has_work() {
            registry.idle.idle_beside_work();
        }
        registry.idle.no_work_found_isolated(round, &waiter);
        None
    }
}

/// Model checks of the real isolated wait on a real pool (`thread::model_pool`): run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`. A waiter left parked is
/// a deadlock to loom.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::super::isolation::WaiterSlot;
    use super::super::thread::model_pool;
    use super::super::worker::Worker;
    use super::super::CrossLatch;
    use crate::latch::Latch;
    use crate::sync::{model_of_pool, Condvar, Mutex};
    use std::sync::Arc;

    /// What the waiter and the thief share.
    struct Shared {
        /// What the waiter waits for, set by the thief.
        latch: CrossLatch,
        /// The index of the worker that ran the region's job, plus one (0: not run yet).
        ran_on: Mutex<usize>,
        /// The thief's wait for the region's job.
        ran: Condvar,
    }

    /// Worker 0 (a thread of the model, adopted as `use_current_thread` adopts it) pushes a job
    /// it may not run (of the region outside its wait) and waits in isolation in a region of
    /// its own. Worker 1 steals the job, which pushes a job of the waiter's region and blocks
    /// until it has run, then sets the waiter's latch. Only the waiter can run the region's
    /// job: the push must wake it if it parked, and the latch must wake it again.
    #[test]
    fn an_isolated_waiter_runs_its_regions_job_pushed_by_a_blocked_thief_and_returns() {
        // No preemption, only the choices at blocking points: a lost wake-up of the push
        // deadlocks the first schedule; one preemption costs the test command's loom stage
        // 17 s quiet, two take minutes. `Sleep::notify_work`'s fence, which a preemption
        // would need, is checked by the call from outside's model at three.
        model_of_pool(0, || {
            model_pool::on_large_stack(a_waiter_and_a_blocked_thief)
        });
    }

    fn a_waiter_and_a_blocked_thief() {
        let (registry, handles) = model_pool::start(2, true, None);
        let waiter = Worker::current_of(&registry).expect("this thread is worker 0");
        let shared = Arc::new(Shared {
            latch: CrossLatch::new(Arc::clone(&registry), waiter.index),
            ran_on: Mutex::new(0),
            ran: Condvar::new(),
        });
        let region = waiter.new_region();
        let stolen = Arc::clone(&shared);
        let job = Worker::heap_job(move |thief| {
            let ran = Arc::clone(&stolen);
            let region_job = Worker::heap_job(move |worker| {
                *ran.ran_on.lock().unwrap() = worker.index + 1;
                ran.ran.notify_all();
            });
            // SAFETY: a job runs on its worker's thread.
            unsafe { thief.push_in(region_job, region, WaiterSlot::worker(0)) };
            let mut ran_on = stolen.ran_on.lock().unwrap();
            while *ran_on == 0 {
                ran_on = stolen.ran.wait(ran_on).unwrap();
            }
            drop(ran_on);
            // SAFETY: `stolen` keeps the latch alive through the set.
            unsafe { CrossLatch::set(&stolen.latch) };
        });
        // SAFETY: on worker 0's thread.
        unsafe { waiter.push_in(job, waiter.current_region(), WaiterSlot::NOBODY) };
        {
            let _in = waiter.enter_handed_over(region);
            waiter.wait_in_region(&|| shared.latch.core.probe(), region, false);
        }
        assert_eq!(
            *shared.ran_on.lock().unwrap(),
            1,
            "the waiter ran its region's job"
        );
        drop(shared);
        model_pool::stop(registry, handles);
    }
}
