//! Parking idle workers without losing a wake-up.
//!
//! Seed 000 (section 2.3) lets idle workers yield and then sleep; the JDK pool parks them.
//! An idle pool must use no CPU, so a worker that has searched in vain parks on its own
//! condition variable. The danger is the lost wake-up: work published just after the worker
//! last looked, and the publisher deciding nobody needs waking just before the worker
//! announced itself. Both sides follow the Dekker pattern, with one SeqCst fence each:
//!
//! ```text
//!   sleeper                               waker
//!   is_sleeping = true; sleepers += 1     publish the work (or set the latch)
//!   fence(SeqCst)                         fence(SeqCst)
//!   look for work / the latch             read sleepers (or is_sleeping)
//! ```
//!
//! In the single total order of SeqCst fences one fence comes first, so either the sleeper
//! sees the work or the waker sees the sleeper. The sleeper holds its slot's mutex from
//! announcing itself until `Condvar::wait` releases it, and a waker takes the mutex before
//! waking, so a wake-up cannot fall between the sleeper's last look and its wait.

use crate::padded::CachePadded;
use crate::sync::{fence, AtomicBool, AtomicUsize, Condvar, Mutex};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::time::Duration;

struct Slot {
    /// Set by the sleeper under `woken`'s mutex, cleared by whoever wakes it (also under the
    /// mutex). Read outside the mutex only as a hint that is re-checked under it.
    is_sleeping: AtomicBool,
    /// A wake-up was delivered and not yet consumed.
    woken: Mutex<bool>,
    condvar: Condvar,
}

pub(crate) struct Sleep {
    /// Number of workers whose `is_sleeping` is set.
    sleepers: CachePadded<AtomicUsize>,
    slots: Box<[CachePadded<Slot>]>,
}

impl Sleep {
    pub(crate) fn new(workers: usize) -> Self {
        let slots = (0..workers)
            .map(|_| {
                CachePadded(Slot {
                    is_sleeping: AtomicBool::new(false),
                    woken: Mutex::new(false),
                    condvar: Condvar::new(),
                })
            })
            .collect();
        Sleep {
            sleepers: CachePadded(AtomicUsize::new(0)),
            slots,
        }
    }

    /// Number of parked workers (a snapshot).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn sleepers(&self) -> usize {
        self.sleepers.load(Relaxed)
    }

    /// Parks worker `index` until woken, unless `stay_awake()` is true once the worker has
    /// announced itself (then it returns at once). `stay_awake` must read, after the fence,
    /// everything a waker publishes before calling `notify_work` or `wake`: the queues, the
    /// latch being waited for, the pool's termination flag. Parks for at most the time
    /// `timeout()` returns, if any. `timeout` is called once
    /// the worker has announced itself and `stay_awake()` was false, so it too reads what
    /// others published before their fence. A sleeper that times out withdraws its
    /// announcement under its slot's mutex, which a waker holds from its check of
    /// `is_sleeping` to its wake-up: either the waker cleared the announcement first (then
    /// the wake-up is delivered and consumed here) or the sleeper withdraws it and the waker
    /// finds nobody to wake (and the sleeper, awake, looks for work again). (loom does not
    /// model timeouts; the withdrawal is the same as the `stay_awake` path's.) Returns
    /// whether it really slept.
    pub(crate) fn sleep(
        &self,
        index: usize,
        stay_awake: impl Fn() -> bool,
        timeout: impl FnOnce() -> Option<Duration>,
    ) -> bool {
        let slot = &self.slots[index];
        let mut woken = slot.woken.lock().unwrap();
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
        // The waker clears `is_sleeping` and decrements `sleepers` for us.
        while !*woken {
            match timeout {
                None => woken = slot.condvar.wait(woken).unwrap(),
                Some(timeout) => {
                    let (guard, result) = slot.condvar.wait_timeout(woken, timeout).unwrap();
                    woken = guard;
                    if result.timed_out() && !*woken {
                        slot.is_sleeping.store(false, Relaxed);
                        self.sleepers.fetch_sub(1, Relaxed);
                        return true;
                    }
                }
            }
        }
        *woken = false;
        true
    }

    /// Called after publishing work that any worker may take: wakes one parked worker if
    /// there is one. `skip_if_searching` is the number of workers known to be awake and
    /// looking for work; if it is positive, one of them will find the work (it checks the
    /// queues after announcing itself, before it could park), so no syscall is spent.
    pub(crate) fn notify_work(&self, searching: impl Fn() -> usize) {
        // The waker's half of the Dekker pattern.
        fence(SeqCst);
        // Acquire: pairs with the Release increment in `sleep`, so `is_sleeping` of the
        // sleeper we count is visible when we scan.
        if self.sleepers.load(Acquire) == 0 || searching() > 0 {
            return;
        }
        self.wake_any();
    }

    /// Wakes one parked worker, if there is one. The caller has issued a SeqCst fence after
    /// publishing what the worker should see.
    pub(crate) fn wake_any(&self) {
        let n = self.slots.len();
        let start = next_start(n);
        for k in 0..n {
            if self.wake((start + k) % n) {
                return;
            }
        }
    }

    /// Wakes worker `index` if it is parked. The caller has published what the worker waits
    /// for (e.g. set its latch) and issued a SeqCst fence after it. Returns whether it woke.
    pub(crate) fn wake(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        // Relaxed hint; re-checked under the mutex, which orders it with the sleeper.
        if !slot.is_sleeping.load(Relaxed) {
            return false;
        }
        let mut woken = slot.woken.lock().unwrap();
        if !slot.is_sleeping.load(Relaxed) {
            return false;
        }
        slot.is_sleeping.store(false, Relaxed);
        self.sleepers.fetch_sub(1, Relaxed);
        *woken = true;
        slot.condvar.notify_one();
        true
    }

    /// The latch setter's path: fence, then wake `index` if it is parked.
    pub(crate) fn fence_and_wake(&self, index: usize) {
        fence(SeqCst);
        self.wake(index);
    }

    /// Wakes every parked worker (pool shutdown). The caller has set the flag that
    /// `stay_awake` reads.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn wake_all(&self) {
        fence(SeqCst);
        for i in 0..self.slots.len() {
            self.wake(i);
        }
    }
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
        assert!(s.sleep(0, || false, || Some(Duration::from_millis(5))));
        assert!(start.elapsed() >= Duration::from_millis(5));
        assert_eq!(s.sleepers(), 0);
        // Nobody is asleep any more: a later wake-up finds no one.
        assert!(!s.wake(0));
    }

    #[test]
    fn stay_awake_short_circuits() {
        let s = Sleep::new(1);
        assert!(!s.sleep(0, || true, || None));
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
                    s.sleep(1, || flag.load(Relaxed), || None);
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
                        sleep.sleep(0, || work.load(Relaxed), || None);
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
                        sleep.sleep(1, || latch.load(Relaxed), || None);
                    }
                })
            };
            latch.store(true, Release);
            sleep.fence_and_wake(1);
            waiter.join().unwrap();
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
                        sleep.sleep(i, || items.load(Relaxed) > 0, || None);
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

    /// The watcher protocol (`Registry::leave_idle` and the parking worker of
    /// `Worker::idle_until`): a worker parks while another stops being idle. The parking
    /// worker decides after announcing itself: if it sees the other busy it becomes the
    /// watcher (a timed park, which loom cannot time out: the model's main thread plays the
    /// timeout by waking it once the other is done); if not, it parks for good, and then the
    /// other must have seen it asleep and woken it. A lost wake-up is a deadlock here.
    #[test]
    fn a_worker_that_parks_for_good_is_woken_by_one_that_becomes_busy() {
        model(|| {
            let sleep = Arc::new(Sleep::new(2));
            // The pool's `idle` count: both idle at first.
            let idle = Arc::new(AtomicUsize::new(2));
            let watching = Arc::new(AtomicBool::new(false));
            let decided = Arc::new(AtomicBool::new(false));
            let parker = {
                let (sleep, idle) = (sleep.clone(), idle.clone());
                let (watching, decided) = (watching.clone(), decided.clone());
                thread::spawn(move || {
                    sleep.sleep(
                        1,
                        || false,
                        || {
                            let busy = idle.load(Relaxed) < 2;
                            watching.store(busy, Relaxed);
                            // Release: the main thread reads `watching` after this.
                            decided.store(true, Release);
                            busy.then_some(std::time::Duration::from_micros(50))
                        },
                    );
                })
            };
            // Worker 0 leaves the idle state, as `leave_idle` does.
            idle.fetch_sub(1, SeqCst);
            fence(SeqCst);
            if sleep.sleepers() > 0 {
                sleep.wake_any();
            }
            // The watcher's timeout, once worker 0 is done and the parker has decided: wake
            // it if it watches (a real one would time out).
            while !decided.load(Acquire) {
                thread::yield_now();
            }
            if watching.load(Relaxed) {
                sleep.fence_and_wake(1);
            }
            parker.join().unwrap();
        });
    }
    use std::sync::atomic::Ordering::AcqRel;
}
