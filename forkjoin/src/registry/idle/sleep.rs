//! Parking idle workers without losing a wake-up: each worker parks on its slot's condition
//! variable; sleeper and waker follow the Dekker pattern, one SeqCst fence each, and the
//! sleeper holds its slot's mutex from announcing itself to the wait (DESIGN.md, section 6).

use crate::padded::CachePadded;
use crate::sync::{fence, AtomicBool, AtomicUsize, Condvar, Mutex};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::time::Duration;

struct Slot {
    /// Set by the sleeper, cleared by its waker, under `state`'s mutex (outside it a hint).
    is_sleeping: AtomicBool,
    /// The sleeper waits in isolation (`sleep_isolated`), so `wake_any` passes it over.
    /// Written before the sleeper takes the mutex, read by wakers under it.
    isolated: AtomicBool,
    state: Mutex<SlotState>,
    /// The worker thread parks here.
    condvar: Condvar,
    /// A borrower of the slot (`lend`) parks here: its wake-ups never reach the worker.
    borrower: Condvar,
}

/// What a slot's mutex guards.
#[derive(Default)]
struct SlotState {
    /// A wake-up for the worker thread was delivered and not yet consumed.
    woken: bool,
    /// A wake-up for the borrower (see `Slot::borrower`).
    borrower_woken: bool,
    /// The worker is parked for good between jobs, holding nothing: its slot may be lent.
    lendable: bool,
    /// The slot is lent to a thread outside the pool; its worker stays parked until then.
    lent: bool,
}

pub(crate) struct Sleep {
    /// Number of workers whose `is_sleeping` is set.
    sleepers: CachePadded<AtomicUsize>,
    slots: Box<[CachePadded<Slot>]>,
    /// The pool's own workers: `slots[..workers]`; spares' slots follow, never lent.
    workers: usize,
    /// Slots in use (workers', spares' started so far), which wake-ups scan. SeqCst: raised
    /// before a spare's thread starts, so whoever sees that spare asleep sees it here.
    active: AtomicUsize,
}

impl Sleep {
    #[cfg(test)]
    pub(crate) fn new(workers: usize) -> Self {
        Sleep::with_spares(workers, 0)
    }

    /// Slots for `workers` workers and up to `spares` spare threads.
    pub(crate) fn with_spares(workers: usize, spares: usize) -> Self {
        let slots = (0..workers + spares)
            .map(|_| {
                CachePadded(Slot {
                    is_sleeping: AtomicBool::new(false),
                    isolated: AtomicBool::new(false),
                    state: Mutex::new(SlotState::default()),
                    condvar: Condvar::new(),
                    borrower: Condvar::new(),
                })
            })
            .collect();
        Sleep {
            sleepers: CachePadded(AtomicUsize::new(0)),
            slots,
            workers,
            active: AtomicUsize::new(workers),
        }
    }

    /// Slot `index` (a spare's) is about to be used: wake-ups scan it from now on.
    pub(crate) fn activate(&self, index: usize) {
        debug_assert!(index < self.slots.len());
        self.active.fetch_max(index + 1, SeqCst);
    }

    fn active(&self) -> usize {
        self.active.load(SeqCst)
    }

    /// Number of parked workers (a snapshot).
    pub(crate) fn sleepers(&self) -> usize {
        self.sleepers.load(Relaxed)
    }

    /// Parks worker `index` until woken unless `stay_awake()` (DESIGN.md, section 6), at most
    /// `timeout()` (then exactly one of sleeper and waker withdraws the announcement); whether
    /// it slept. `lendable`: its slot may be lent (`lend`); if lent, the borrower parks here.
    pub(crate) fn sleep(
        &self,
        index: usize,
        stay_awake: impl Fn() -> bool,
        timeout: impl FnOnce() -> Option<Duration>,
        lendable: bool,
    ) -> bool {
        let slot = &self.slots[index];
        let mut state = slot.state.lock().unwrap();
        let borrower = state.lent;
        // Relaxed: read by wakers only as a hint, re-checked under the mutex we hold.
        slot.is_sleeping.store(true, Relaxed);
        // Release: a waker that reads the new count with Acquire also sees `is_sleeping`.
        self.sleepers.fetch_add(1, Release);
        // The sleeper's half of the Dekker pattern (module docs).
        fence(SeqCst);
        if stay_awake() {
            slot.is_sleeping.store(false, Relaxed);
            self.sleepers.fetch_sub(1, Relaxed);
            return false;
        }
        let timeout = timeout();
        state.lendable = lendable && !borrower && timeout.is_none();
        let condvar = if borrower {
            &slot.borrower
        } else {
            &slot.condvar
        };
        // The waker withdraws the announcement; a lent slot's worker waits for `give_back`.
        while !woken(&mut state, borrower) {
            match timeout {
                None => state = condvar.wait(state).unwrap(),
                Some(timeout) => {
                    let (guard, result) = condvar.wait_timeout(state, timeout).unwrap();
                    state = guard;
                    if result.timed_out() {
                        if !woken(&mut state, borrower) {
                            slot.is_sleeping.store(false, Relaxed);
                            self.sleepers.fetch_sub(1, Relaxed);
                        }
                        return true;
                    }
                }
            }
        }
        true
    }

    /// Lends the calling thread the slot of a worker parked between jobs: its index, or `None`.
    pub(crate) fn lend(&self) -> Option<usize> {
        // Acquire: as in `notify_work`.
        if self.sleepers.load(Acquire) == 0 {
            return None;
        }
        let n = self.workers;
        let start = next_start(n);
        for k in 0..n {
            let index = (start + k) % n;
            let slot = &self.slots[index];
            // Relaxed hint; re-checked under the mutex, which orders it with the sleeper.
            if !slot.is_sleeping.load(Relaxed) {
                continue;
            }
            let Ok(mut state) = slot.state.try_lock() else {
                continue;
            };
            if !slot.is_sleeping.load(Relaxed) || !state.lendable {
                continue;
            }
            // Withdrawn as a waker would: it waits for `give_back` alone. Relaxed: the mutex
            // hands its owner state to the borrower.
            slot.is_sleeping.store(false, Relaxed);
            self.sleepers.fetch_sub(1, Relaxed);
            state.lendable = false;
            state.lent = true;
            return Some(index);
        }
        None
    }

    /// Gives a lent slot back: its worker sleeps again, or wakes if `stay_awake()`.
    pub(crate) fn give_back(&self, index: usize, stay_awake: impl Fn() -> bool) {
        let slot = &self.slots[index];
        {
            let mut state = slot.state.lock().unwrap();
            debug_assert!(state.lent && !slot.is_sleeping.load(Relaxed));
            state.lent = false;
            state.lendable = true;
            // Relaxed: the mutex hands the borrower's writes to the worker when it wakes.
            slot.is_sleeping.store(true, Relaxed);
            // Release: as in `sleep`.
            self.sleepers.fetch_add(1, Release);
        }
        // The sleeper's fence, for the worker: a waker during the lend did not count it.
        fence(SeqCst);
        if stay_awake() {
            self.wake(index);
        }
    }

    /// After publishing work any worker may take: wakes a parked worker, unless `searching()`.
    pub(crate) fn notify_work(&self, searching: impl Fn() -> usize) {
        // The waker's half of the Dekker pattern.
        fence(SeqCst);
        // Acquire: pairs with `sleep`'s Release increment: the counted `is_sleeping` is seen.
        if self.sleepers.load(Acquire) == 0 || searching() > 0 {
            return;
        }
        self.wake_any();
    }

    /// Wakes one parked worker or spare not in isolation; whether it did (after a fence).
    pub(crate) fn wake_any(&self) -> bool {
        let n = self.active();
        let start = next_start(n);
        (0..n).any(|k| self.wake_unisolated((start + k) % n))
    }

    /// Wakes worker `index` if it is parked and not in isolation; as `wake` otherwise.
    pub(crate) fn wake_unisolated(&self, index: usize) -> bool {
        self.wake_if(index, |slot| !slot.isolated.load(Relaxed))
    }

    /// `sleep` for a waiter in isolation, at most `timeout`, which `wake_any` passes over.
    pub(crate) fn sleep_isolated(
        &self,
        index: usize,
        stay_awake: impl Fn() -> bool,
        timeout: Duration,
    ) -> bool {
        let isolated = &self.slots[index].isolated;
        // Relaxed: wakers read it under the slot's mutex, which `sleep` takes after this store.
        isolated.store(true, Relaxed);
        let slept = self.sleep(index, stay_awake, || Some(timeout), false);
        // Relaxed: as above; the next `sleep` takes the mutex after it.
        isolated.store(false, Relaxed);
        slept
    }

    /// Whether worker `index` is parked (a hint: it may be waking up).
    pub(crate) fn is_parked(&self, index: usize) -> bool {
        // Relaxed: a hint for a heuristic (`enter_blocking`); nothing is read after it.
        self.slots[index].is_sleeping.load(Relaxed)
    }

    /// Wakes worker `index` if parked; whether it did. The caller published and fenced (SeqCst).
    pub(crate) fn wake(&self, index: usize) -> bool {
        self.wake_if(index, |_| true)
    }

    /// Wakes worker `index` if it is parked and `wanted` holds for its slot, under its mutex.
    fn wake_if(&self, index: usize, wanted: impl Fn(&Slot) -> bool) -> bool {
        let slot = &self.slots[index];
        // Relaxed hint; re-checked under the mutex, which orders it with the sleeper.
        if !slot.is_sleeping.load(Relaxed) {
            return false;
        }
        let mut state = slot.state.lock().unwrap();
        if !slot.is_sleeping.load(Relaxed) || !wanted(slot) {
            return false;
        }
        slot.is_sleeping.store(false, Relaxed);
        self.sleepers.fetch_sub(1, Relaxed);
        state.lendable = false;
        // While the slot is lent, the sleeper is its borrower.
        if state.lent {
            state.borrower_woken = true;
            slot.borrower.notify_one();
        } else {
            state.woken = true;
            slot.condvar.notify_one();
        }
        true
    }

    /// The latch setter's path: fence, then wake `index` if it is parked.
    pub(crate) fn fence_and_wake(&self, index: usize) {
        fence(SeqCst);
        self.wake(index);
    }

    /// Wakes every parked worker (shutdown); the caller has set the flag `stay_awake` reads.
    pub(crate) fn wake_all(&self) {
        fence(SeqCst);
        for i in 0..self.active() {
            self.wake(i);
        }
    }
}

/// Consumes the wake-up of the worker thread or, if `borrower`, of the slot's borrower.
fn woken(state: &mut SlotState, borrower: bool) -> bool {
    let flag = if borrower {
        &mut state.borrower_woken
    } else {
        &mut state.woken
    };
    std::mem::take(flag)
}

/// A cheap per-call starting point so that wake-ups spread over the workers.
fn next_start(n: usize) -> usize {
    #[cfg(not(loom))]
    {
        use std::cell::Cell;
        thread_local!(static SEED: Cell<u32> = const { Cell::new(0x9E37_79B9) });
        SEED.with(|s| {
            let mut x = s.get();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            s.set(x);
            x as usize % n
        })
    }
    #[cfg(loom)]
    {
        let _ = n;
        0
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_timed_sleep_times_out_and_withdraws() {
        let s = Sleep::new(1);
        let start = std::time::Instant::now();
        assert!(s.sleep(0, || false, || Some(Duration::from_millis(5)), false));
        assert!(start.elapsed() >= Duration::from_millis(5));
        assert_eq!(s.sleepers(), 0);
        // Nobody is asleep any more: a later wake-up finds no one.
        assert!(!s.wake(0));
    }

    #[test]
    fn stay_awake_short_circuits() {
        let s = Sleep::new(1);
        assert!(!s.sleep(0, || true, || None, false));
        assert_eq!(s.sleepers(), 0);
    }

    #[test]
    fn wake_specific_worker() {
        let s = Arc::new(Sleep::new(2));
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let t = {
            let (s, flag) = (s.clone(), flag.clone());
            std::thread::spawn(move || {
                while !flag.load(SeqCst) {
                    s.sleep(1, || flag.load(Relaxed), || None, false);
                }
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        flag.store(true, Release);
        s.fence_and_wake(1);
        t.join().unwrap();
        assert_eq!(s.sleepers(), 0);
    }
}

/// Model checks of the protocol: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --release --lib sleep::loom_tests`.
/// A lost wake-up leaves the sleeper blocked forever, which loom reports as a deadlock.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;
    use loom::thread;

    /// A worker going to sleep while another publishes work and notifies.
    #[test]
    fn no_lost_wakeup_for_work() {
        model(|| {
            let sleep = Arc::new(Sleep::new(1));
            let work = Arc::new(AtomicBool::new(false));
            let worker = {
                let (sleep, work) = (sleep.clone(), work.clone());
                thread::spawn(move || {
                    while !work.load(Acquire) {
                        sleep.sleep(0, || work.load(Relaxed), || None, false);
                    }
                })
            };
            // Release: the worker that sees the flag sees what it guards.
            work.store(true, Release);
            sleep.notify_work(|| 0);
            worker.join().unwrap();
        });
    }

    /// A worker waiting for its latch, and the thread that sets it.
    #[test]
    fn no_lost_wakeup_for_latch() {
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let latch = Arc::new(AtomicBool::new(false));
            let waiter = {
                let (sleep, latch) = (sleep.clone(), latch.clone());
                thread::spawn(move || {
                    while !latch.load(Acquire) {
                        sleep.sleep(1, || latch.load(Relaxed), || None, false);
                    }
                })
            };
            latch.store(true, Release);
            sleep.fence_and_wake(1);
            waiter.join().unwrap();
        });
    }

    /// A waiter in isolation (slot 0) takes only its region's items, parked meanwhile; the
    /// thief pushes one and wakes it (`Worker::push_in`), pops the rest, sets its latch and
    /// wakes it. Neither wake-up is lost (loom has no timeout); the item is taken once.
    #[test]
    fn an_isolated_waiter_is_woken_by_its_region_and_its_latch() {
        use crate::deque::{Deque, Steal};
        use std::ptr::NonNull;
        const REGION: usize = 0x40;
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let deque = Arc::new(Deque::<usize>::with_capacity(2));
            let latch = Arc::new(AtomicBool::new(false));
            let waiter = {
                let (sleep, deque, latch) = (sleep.clone(), deque.clone(), latch.clone());
                thread::spawn(move || {
                    let mut taken = 0;
                    while !latch.load(Acquire) {
                        match deque.steal_tagged(|tag| tag == REGION) {
                            Steal::Success(p) => {
                                // SAFETY: made by `Box::into_raw` below, taken once.
                                drop(unsafe { Box::from_raw(p.as_ptr()) });
                                taken += 1;
                            }
                            Steal::Retry => thread::yield_now(),
                            Steal::Empty => {
                                sleep.sleep_isolated(
                                    0,
                                    || latch.load(Relaxed) || deque.top_tag() == Some(REGION),
                                    Duration::from_micros(50),
                                );
                            }
                        }
                    }
                    taken
                })
            };
            let item = NonNull::new(Box::into_raw(Box::new(7usize))).unwrap();
            // SAFETY: this thread owns the deque.
            unsafe { deque.push_tagged(item, REGION) };
            sleep.notify_work(|| 0);
            sleep.wake(0);
            // SAFETY: owner.
            let mine = unsafe { deque.pop() }.map(|p| unsafe { *Box::from_raw(p.as_ptr()) });
            latch.store(true, Release);
            sleep.fence_and_wake(0);
            let theirs = waiter.join().unwrap();
            assert_eq!(mine.is_some() as usize + theirs, 1);
        });
    }

    /// Work any worker may take wakes a worker parked for it (slot 1), never one parked in
    /// isolation (slot 0), which could not take it: had the wake-up gone to slot 0, slot 1
    /// would sleep forever (a deadlock to loom).
    #[test]
    fn wake_any_passes_over_an_isolated_sleeper() {
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let latch = Arc::new(AtomicBool::new(false));
            let work = Arc::new(AtomicBool::new(false));
            let isolated = {
                let (sleep, latch) = (sleep.clone(), latch.clone());
                thread::spawn(move || {
                    while !latch.load(Acquire) {
                        sleep.sleep_isolated(0, || latch.load(Relaxed), Duration::from_micros(50));
                    }
                })
            };
            let worker = {
                let (sleep, work) = (sleep.clone(), work.clone());
                thread::spawn(move || park_until(&sleep, 1, &work, false))
            };
            work.store(true, Release);
            sleep.notify_work(|| 0);
            worker.join().unwrap();
            latch.store(true, Release);
            sleep.fence_and_wake(0);
            isolated.join().unwrap();
        });
    }

    /// Two sleepers, two pieces of work, two notifications: both wake.
    #[test]
    fn two_sleepers_two_items() {
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let items = Arc::new(AtomicUsize::new(0));
            let workers: Vec<_> = (0..2)
                .map(|i| {
                    let (sleep, items) = (sleep.clone(), items.clone());
                    thread::spawn(move || loop {
                        let n = items.load(Acquire);
                        if n > 0 {
                            if items.compare_exchange(n, n - 1, AcqRel, Acquire).is_ok() {
                                return;
                            }
                            continue;
                        }
                        sleep.sleep(i, || items.load(Relaxed) > 0, || None, false);
                    })
                })
                .collect();
            for _ in 0..2 {
                items.fetch_add(1, Release);
                sleep.notify_work(|| 0);
            }
            for w in workers {
                w.join().unwrap();
            }
        });
    }

    /// Parks as worker `index` until `flag` is set.
    fn park_until(sleep: &Sleep, index: usize, flag: &AtomicBool, lendable: bool) {
        while !flag.load(Acquire) {
            sleep.sleep(index, || flag.load(Relaxed), || None, lendable);
        }
    }

    /// Worker `index`, parked for good between jobs (lendable) until `stop`: it must never
    /// wake while `lent` says its slot is lent.
    fn parked_worker(
        sleep: &Arc<Sleep>,
        index: usize,
        stop: &Arc<AtomicBool>,
        lent: &Arc<AtomicBool>,
    ) -> thread::JoinHandle<()> {
        let (sleep, stop, lent) = (sleep.clone(), stop.clone(), lent.clone());
        thread::spawn(move || {
            while !stop.load(Acquire) {
                sleep.sleep(index, || stop.load(Relaxed), || None, true);
                assert!(
                    !lent.load(SeqCst),
                    "worker {index} woke while its slot was lent"
                );
            }
        })
    }

    /// Borrows a slot, waiting for a worker to park.
    fn borrow(sleep: &Sleep) -> usize {
        loop {
            if let Some(index) = sleep.lend() {
                return index;
            }
            thread::yield_now();
        }
    }

    /// A thread outside the pool borrows the slot of a parked worker and gives it back while
    /// work is published: work published while the slot was lent (when nobody counted the
    /// worker as a sleeper) still wakes it.
    #[test]
    fn work_published_while_a_slot_is_lent_wakes_its_worker() {
        model(|| {
            let sleep = Arc::new(Sleep::new(1));
            let work = Arc::new(AtomicBool::new(false));
            let worker = {
                let (sleep, work) = (sleep.clone(), work.clone());
                thread::spawn(move || park_until(&sleep, 0, &work, true))
            };
            let borrower = {
                let (sleep, work) = (sleep.clone(), work.clone());
                thread::spawn(move || {
                    if let Some(index) = sleep.lend() {
                        sleep.give_back(index, || work.load(Relaxed));
                    }
                })
            };
            work.store(true, Release);
            sleep.notify_work(|| 0);
            borrower.join().unwrap();
            worker.join().unwrap();
        });
    }

    /// A borrower waits in its slot for a latch while the slot's worker is parked under it:
    /// the latch's wake-up reaches the borrower, never the worker, which sleeps on until the
    /// slot is given back and then wakes for the work published meanwhile.
    #[test]
    fn a_latch_wakes_the_borrower_not_the_worker_under_it() {
        model(|| {
            let sleep = Arc::new(Sleep::new(1));
            let (work, latch, lent) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
            );
            let worker = parked_worker(&sleep, 0, &work, &lent);
            let borrower = {
                let (sleep, work, latch, lent) =
                    (sleep.clone(), work.clone(), latch.clone(), lent.clone());
                thread::spawn(move || {
                    let index = borrow(&sleep);
                    lent.store(true, SeqCst);
                    park_until(&sleep, index, &latch, false);
                    // Work for the worker, published while its slot is lent.
                    work.store(true, Release);
                    sleep.notify_work(|| 0);
                    lent.store(false, SeqCst);
                    sleep.give_back(index, || work.load(Relaxed));
                })
            };
            // The thief of the borrower's join frame sets its latch and wakes slot 0.
            latch.store(true, Release);
            sleep.fence_and_wake(0);
            borrower.join().unwrap();
            worker.join().unwrap();
        });
    }

    /// A call from outside (`registry::run_borrowed`) on the real deque and sleep slots: the
    /// caller borrows parked worker 0's slot, promotes a frame, wakes worker 1 and pops the
    /// frame back as worker 1 tries to steal it; a thief's run sets the latch the caller
    /// waits on, parked as borrower. Checked: the frame runs once, no wake-up is lost,
    /// worker 0 never wakes while lent, and on stop both workers wake and finish.
    #[test]
    fn a_borrowed_slot_shares_a_frame_that_a_thief_steals_or_the_caller_pops() {
        use crate::deque::{Deque, Steal};
        use std::ptr::NonNull;
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let deque = Arc::new(Deque::<u8>::with_capacity(2));
            let stop = Arc::new(AtomicBool::new(false));
            let latch = Arc::new(AtomicBool::new(false));
            let lent = Arc::new(AtomicBool::new(false));
            let runs = Arc::new(AtomicUsize::new(0));
            let worker0 = parked_worker(&sleep, 0, &stop, &lent);
            let thief = {
                let (sleep, deque, stop) = (sleep.clone(), deque.clone(), stop.clone());
                let (latch, runs) = (latch.clone(), runs.clone());
                thread::spawn(move || loop {
                    match deque.steal() {
                        Steal::Success(_) => {
                            runs.fetch_add(1, Relaxed);
                            // The frame's latch, then the owner's wake-up (`FrameLatch`).
                            latch.store(true, Release);
                            sleep.fence_and_wake(0);
                        }
                        Steal::Retry => thread::yield_now(),
                        Steal::Empty => {
                            if stop.load(Acquire) {
                                return;
                            }
                            sleep.sleep(
                                1,
                                || stop.load(Relaxed) || !deque.is_empty(),
                                || None,
                                false,
                            );
                        }
                    }
                })
            };
            // The caller, outside the pool: borrow worker 0's slot once it has parked.
            let index = borrow(&sleep);
            // Worker 1 parks as not lendable (as a worker inside a job does).
            assert_eq!(index, 0);
            lent.store(true, SeqCst);
            let mut frame = 1u8;
            // SAFETY: the caller owns the slot's deque while it is lent.
            unsafe { deque.push(NonNull::from(&mut frame)) };
            sleep.notify_work(|| 0);
            // SAFETY: as above.
            match unsafe { deque.pop() } {
                Some(_) => {
                    runs.fetch_add(1, Relaxed);
                }
                None => park_until(&sleep, 0, &latch, false),
            }
            assert!(deque.is_empty());
            lent.store(false, SeqCst);
            sleep.give_back(0, || stop.load(Relaxed));
            stop.store(true, Release);
            sleep.wake_all();
            thief.join().unwrap();
            worker0.join().unwrap();
            assert_eq!(runs.load(Relaxed), 1);
        });
    }

    /// A steal-back (`join::wait_for_shared` with `wait_until`'s hint) on the real deques and
    /// sleep slots: worker 0 finds its promoted frame stolen and steals back the thief's
    /// subtask or parks; the thief pops the subtask or waits for its latch, then completes
    /// the frame and wakes worker 0. Checked: frame and subtask each run once, and no
    /// wake-up is lost on either side.
    #[test]
    fn an_owner_helps_the_thief_of_its_frame_by_stealing_back() {
        use crate::deque::{Deque, Steal};
        use std::ptr::NonNull;
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            let deques = Arc::new([Deque::<u8>::with_capacity(2), Deque::with_capacity(2)]);
            // [frame, subtask] latches and run counts.
            let latches = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
            let runs = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
            let thief = {
                let (sleep, deques) = (sleep.clone(), deques.clone());
                let (latches, runs) = (latches.clone(), runs.clone());
                thread::spawn(move || {
                    // Take the frame (worker 0 may pop it first: then there is nothing to do).
                    loop {
                        match deques[0].steal() {
                            Steal::Success(_) => break,
                            Steal::Retry => thread::yield_now(),
                            Steal::Empty => return,
                        }
                    }
                    runs[0].fetch_add(1, Relaxed);
                    // The frame's body joins: its second half is promoted at once.
                    let mut sub = 2u8;
                    // SAFETY: worker 1 owns deque 1.
                    unsafe { deques[1].push(NonNull::from(&mut sub)) };
                    sleep.notify_work(|| 0);
                    // SAFETY: as above.
                    if unsafe { deques[1].pop() }.is_some() {
                        runs[1].fetch_add(1, Relaxed);
                    } else {
                        park_until(&sleep, 1, &latches[1], false);
                    }
                    latches[0].store(true, Release);
                    sleep.fence_and_wake(0);
                })
            };
            let mut frame = 1u8;
            // SAFETY: the main thread is worker 0 and owns deque 0.
            unsafe { deques[0].push(NonNull::from(&mut frame)) };
            sleep.notify_work(|| 0);
            // SAFETY: as above.
            if unsafe { deques[0].pop() }.is_some() {
                runs[0].fetch_add(1, Relaxed);
            } else {
                // Stolen: help the thief until the frame's latch is set.
                while !latches[0].load(Acquire) {
                    match deques[1].steal() {
                        Steal::Success(_) => {
                            runs[1].fetch_add(1, Relaxed);
                            latches[1].store(true, Release);
                            sleep.fence_and_wake(1);
                        }
                        Steal::Retry => thread::yield_now(),
                        Steal::Empty => {
                            sleep.sleep(
                                0,
                                || latches[0].load(Relaxed) || !deques[1].is_empty(),
                                || None,
                                false,
                            );
                        }
                    }
                }
            }
            thief.join().unwrap();
            assert_eq!(runs[0].load(Relaxed), 1);
            // The subtask exists only if the thief took the frame.
            let stolen = latches[0].load(Relaxed);
            assert_eq!(runs[1].load(Relaxed), stolen as usize);
        });
    }

    use std::sync::atomic::Ordering::AcqRel;
}
