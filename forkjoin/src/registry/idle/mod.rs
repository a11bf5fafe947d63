//! The idle policy: a worker's rounds with nothing to do (spin, yield, park), the watcher that
//! keeps the heartbeat, and whom new work wakes; no other file parks or wakes (DESIGN.md,
//! sections 4 to 6).

pub(super) mod sleep;

use crate::counter::{add, unbump};
use crate::padded::CachePadded;
use crate::sync::{fence, AtomicBool, AtomicUsize};
use sleep::Sleep;
// std's, also under loom: loom's would hide the interleavings where this thread does not wait;
// and the parks counters are statistics (`crate::counter`), which order nothing.
use std::hint::spin_loop;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::thread::yield_now;
use std::time::Duration;

/// Rounds of exponential `spin_loop` back-off, then of `yield_now`, before an idle worker
/// parks; spin rounds after `PURE_SPIN_ROUNDS` also yield (DESIGN.md, section 5).
#[cfg(not(any(loom, miri)))]
const SPIN_ROUNDS: u32 = 24;
#[cfg(not(any(loom, miri)))]
const PURE_SPIN_ROUNDS: u32 = 6;
#[cfg(not(any(loom, miri)))]
const YIELD_ROUNDS: u32 = 8;
// One round of each under loom (a search is a branch point) and Miri (every idle spin runs
// on one thread); correctness does not depend on the count.
#[cfg(any(loom, miri))]
const SPIN_ROUNDS: u32 = 1;
#[cfg(any(loom, miri))]
const PURE_SPIN_ROUNDS: u32 = 0;
#[cfg(any(loom, miri))]
const YIELD_ROUNDS: u32 = 1;

/// The pool's idle state: who is looking for work or parked, who watches, the parking lot.
pub(crate) struct Idle {
    /// Workers looking for work or parked. Read (relaxed) by busy workers at heartbeats.
    count: CachePadded<AtomicUsize>,
    /// A parked worker keeps the heartbeat going (see `no_work_found`).
    watcher: CachePadded<AtomicBool>,
    /// Where idle threads park, and the lost-wake-up protocol (`sleep.rs`).
    sleep: Sleep,
}

/// The watcher's period doubles, up to this many times, while every request it made is still
/// pending: asking again would change nothing (DESIGN.md, section 4).
const WATCH_BACKOFF: u32 = 6;

/// A waiter in isolation parks for at most `IsolatedParking::period` times 2 to this power.
pub(crate) const ISOLATED_BACKOFF: u32 = 2;

/// How far a worker's idle phase has gone (`start_looking` to `work_found`).
#[derive(Default)]
pub(crate) struct Round {
    /// Search rounds since the phase started or the worker was woken.
    searches: u32,
    /// The watcher's period is `Parking::period` times 2 to this power.
    backoff: u32,
}

impl Round {
    /// Whether the next `no_work_found` parks (spinning and yielding are over).
    pub(crate) fn parks_next(&self) -> bool {
        self.searches >= SPIN_ROUNDS + YIELD_ROUNDS
    }

    /// Back to the first round's spinning (the worker did something other than park).
    pub(crate) fn start_over(&mut self) {
        *self = Round::default();
    }

    /// Search rounds that found nothing since the phase started (or the worker was woken).
    pub(crate) fn searches(&self) -> u32 {
        self.searches
    }
}

/// What `no_work_found` asks the worker it parks (`wait.rs`'s `OrdinaryWaiter`).
pub(crate) trait Parking {
    /// The worker's slot in `Sleep`.
    fn index(&self) -> usize;
    /// Whether the announced sleeper must stay awake (done, or work it may take).
    fn stay_awake(&self) -> bool;
    /// Read then too: whether someone is busy or a caller came lately (keep the heartbeat).
    fn wants_watcher(&self) -> bool;
    /// The worker is between jobs, so while it parks for good its slot may be lent.
    fn lendable(&self) -> bool;
    /// The worker's count of parks (statistics).
    fn parks(&self) -> &AtomicU64;
    /// The watcher's period.
    fn period(&self) -> Duration;
    /// Read when the watcher parks again: whether every request it made is still pending.
    fn requests_pending(&self) -> bool;
}

/// What `no_work_found_isolated` asks a waiter in isolation it parks (`wait.rs`'s
/// `IsolatedWaiter`): never the watcher, never lent, passed over by `new_work`.
pub(crate) trait IsolatedParking {
    /// The worker's slot in `Sleep`.
    fn index(&self) -> usize;
    /// As `Parking::stay_awake`: what it waits for is done, or its region has work.
    fn stay_awake(&self) -> bool;
    /// The worker's count of parks (statistics).
    fn parks(&self) -> &AtomicU64;
    /// Its count of parks in isolation (statistics).
    fn sleeps(&self) -> &AtomicU64;
    /// The first park's timeout.
    fn period(&self) -> Duration;
}

impl Idle {
    /// The idle state of threads parking in `sleep`, `counted` of them idle.
    pub(crate) fn new(sleep: Sleep, counted: usize) -> Idle {
        Idle {
            count: CachePadded(AtomicUsize::new(counted)),
            watcher: CachePadded(AtomicBool::new(false)),
            sleep,
        }
    }

    /// Workers looking for work or parked (a snapshot).
    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        // Relaxed: a hint; deciders that need more pair it with a fence (`new_work`).
        self.count.load(Relaxed)
    }

    /// A thread enters the idle count: a spare about to start, a borrowed slot given back.
    pub(crate) fn enter(&self) {
        // SeqCst: `new_work` skips the wake-up for a searching worker, which looks at the
        // queues after this increment (Dekker with the publisher's push and fence).
        self.count.fetch_add(1, SeqCst);
    }

    /// A thread leaves the idle count: a worker starting, a slot being borrowed.
    pub(crate) fn leave(&self) {
        // SeqCst: as in `enter`.
        self.count.fetch_sub(1, SeqCst);
    }

    /// A worker found nothing and starts searching.
    pub(crate) fn start_looking(&self) -> Round {
        self.enter();
        Self::looking_from_start()
    }

    /// A worker starting with nothing to run begins to search, counted idle from `Idle::new`.
    pub(crate) fn looking_from_start() -> Round {
        Round::default()
    }

    /// The worker found work or is done: wakes a parked one if none watches (DESIGN.md, section 4).
    pub(crate) fn work_found(&self) {
        self.leave();
        // Dekker with a parking worker (announce, fence, read the count): one sees the other.
        fence(SeqCst);
        // Relaxed: ordered by the fences; a stale `watcher` only costs a needless wake-up.
        if self.sleep.sleepers() > 0 && !self.watcher.load(Relaxed) {
            self.sleep.wake_any();
        }
    }

    /// Work any worker may take was published: wakes a parked worker unless one searches.
    pub(crate) fn new_work(&self) {
        let sleep = &self.sleep;
        sleep.notify_work(|| self.count().saturating_sub(sleep.sleepers()));
    }

    /// What worker `index` waits for is done: the setter's fence, then a wake-up if parked.
    pub(crate) fn latch_set(&self, index: usize) {
        self.sleep.fence_and_wake(index);
    }

    /// Work only worker `index` may take was published (a share, its region's job, a task's
    /// end) and the caller has fenced: wakes it if parked. Whether it did.
    pub(crate) fn published_for(&self, index: usize) -> bool {
        self.sleep.wake(index)
    }

    /// A waiter in isolation parks beside work it may not take: wakes a worker that may.
    pub(crate) fn idle_beside_work(&self) {
        self.sleep.wake_any();
    }

    /// A thread from outside wants a parked worker's slot: the index lent, if any.
    pub(crate) fn lend_parked_slot(&self) -> Option<usize> {
        self.sleep.lend()
    }

    /// The borrower gives slot `index` back; its worker parks on unless `stay_awake`.
    pub(crate) fn slot_given_back(&self, index: usize, stay_awake: impl Fn() -> bool) {
        self.sleep.give_back(index, stay_awake)
    }

    /// Whether worker `index` is parked (a hint: it may be waking up).
    pub(crate) fn parked(&self, index: usize) -> bool {
        self.sleep.is_parked(index)
    }

    /// A thread blocks: wakes worker `index` to take its place if it is parked and not
    /// waiting in isolation. Whether it did. The caller has fenced after what it published.
    pub(crate) fn cover_blocked(&self, index: usize) -> bool {
        self.sleep.wake_unisolated(index)
    }

    /// Spare slot `index` starts a thread: `new_work` and `cover_blocked` may wake it.
    pub(crate) fn spare_started(&self, index: usize) {
        self.sleep.activate(index)
    }

    /// The pool terminates: wakes every parked thread (after the flag `stay_awake` reads).
    pub(crate) fn shutdown(&self) {
        self.sleep.wake_all();
    }

    /// Threads parked now (a snapshot, for tests).
    #[cfg(test)]
    pub(crate) fn sleepers(&self) -> usize {
        self.sleep.sleepers()
    }

    /// A search round found nothing: spin, yield, then park (DESIGN.md, section 4).
    pub(crate) fn no_work_found(&self, round: &mut Round, waiter: &impl Parking) {
        let Some(first_park) = Self::spin_or_yield(round, waiter.parks()) else {
            return;
        };
        let mut watch = false;
        let sleep = &self.sleep;
        let slept = sleep.sleep(
            waiter.index(),
            || waiter.stay_awake(),
            || {
                // After the announcement and fence: it sees a worker turned busy, or that one
                // sees it asleep (`work_found`). Relaxed: the fences order it.
                watch = waiter.wants_watcher() && !self.watcher.swap(true, Relaxed);
                // A watcher parking again (its round kept, below) backs off while its
                // requests are unanswered; any other park starts at one period.
                round.backoff = if watch && !first_park && waiter.requests_pending() {
                    (round.backoff + 1).min(WATCH_BACKOFF)
                } else {
                    0
                };
                watch.then_some(waiter.period() * (1 << round.backoff))
            },
            waiter.lendable(),
        );
        if watch {
            // Relaxed: the next watcher's swap needs no data from this one.
            self.watcher.store(false, Relaxed);
        }
        if !slept && first_park {
            unbump(waiter.parks());
        }
        // A watcher that timed out parks again at once; any other worker starts over.
        if !(watch && slept) {
            round.searches = 0;
        }
    }

    /// `no_work_found` for a waiter in isolation, whose timeout only bounds a missed wake-up.
    pub(crate) fn no_work_found_isolated(&self, round: &mut Round, waiter: &impl IsolatedParking) {
        let Some(first_park) = Self::spin_or_yield(round, waiter.parks()) else {
            return;
        };
        let timeout = waiter.period() * (1 << round.backoff);
        round.backoff = (round.backoff + 1).min(ISOLATED_BACKOFF);
        if self
            .sleep
            .sleep_isolated(waiter.index(), || waiter.stay_awake(), timeout)
        {
            add(waiter.sleeps(), 1);
        } else if first_park {
            unbump(waiter.parks());
        }
    }

    /// The rounds before a park: `None` while spinning and yielding, then `Some(first)`.
    #[inline]
    fn spin_or_yield(round: &mut Round, parks: &AtomicU64) -> Option<bool> {
        round.searches += 1;
        let r = round.searches;
        if r <= SPIN_ROUNDS {
            for _ in 0..(1u32 << r.min(6)) {
                spin_loop();
            }
            if r > PURE_SPIN_ROUNDS {
                yield_now();
            }
            return None;
        }
        if r <= SPIN_ROUNDS + YIELD_ROUNDS {
            yield_now();
            return None;
        }
        let first_park = r == SPIN_ROUNDS + YIELD_ROUNDS + 1;
        if first_park {
            add(parks, 1);
        }
        Some(first_park)
    }

    /// Whether a parked worker is on watch (see `no_work_found`).
    pub(crate) fn watched(&self) -> bool {
        // Relaxed: a hint; a watcher that has just left costs a tick's wait.
        self.watcher.load(Relaxed)
    }
}

/// Model checks of the idle policy over the real `Idle` and `Sleep`: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`. A lost wake-up leaves
/// a worker parked forever, which loom reports as a deadlock.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::Arc;
    use loom::thread;
    use std::sync::atomic::Ordering::{Acquire, Release};

    /// A worker of the models, as `no_work_found` asks it: it stays awake for `work` (the
    /// queues), if it has any to look at, and watches while `busy()`.
    struct ModelWorker<'a> {
        index: usize,
        work: Option<&'a AtomicBool>,
        busy: &'a dyn Fn() -> bool,
        lendable: bool,
        parks: AtomicU64,
    }

    impl Parking for ModelWorker<'_> {
        fn index(&self) -> usize {
            self.index
        }

        fn stay_awake(&self) -> bool {
            self.work.is_some_and(|work| work.load(Relaxed))
        }

        fn wants_watcher(&self) -> bool {
            (self.busy)()
        }

        fn lendable(&self) -> bool {
            self.lendable
        }

        fn parks(&self) -> &AtomicU64 {
            &self.parks
        }

        fn period(&self) -> Duration {
            Duration::from_micros(50)
        }

        fn requests_pending(&self) -> bool {
            false
        }
    }

    /// `Worker::idle_until`'s idle phase, `work` standing for the queues; returns after
    /// `work_found`.
    fn idle_phase(idle: &Idle, index: usize, work: &AtomicBool, busy: &dyn Fn() -> bool) {
        let worker = ModelWorker {
            index,
            work: Some(work),
            busy,
            lendable: false,
            parks: AtomicU64::new(0),
        };
        let mut round = idle.start_looking();
        loop {
            if work.load(Acquire) {
                idle.work_found();
                return;
            }
            idle.no_work_found(&mut round, &worker);
        }
    }

    /// A worker goes idle as another thread publishes and calls `new_work`: the wake-up is
    /// skipped only for a searching worker, and a parked one is always woken.
    #[test]
    fn new_work_reaches_a_worker_that_goes_idle() {
        model(|| {
            // The worker is busy at first (as after `worker_main`'s `leave`).
            let idle = Arc::new(Idle::new(Sleep::new(1), 0));
            let work = Arc::new(AtomicBool::new(false));
            let worker = {
                let (idle, work) = (idle.clone(), work.clone());
                thread::spawn(move || idle_phase(&idle, 0, &work, &|| false))
            };
            // Release: the worker that sees the flag sees what it guards.
            work.store(true, Release);
            idle.new_work();
            worker.join().unwrap();
            assert_eq!(idle.count(), 0);
        });
    }

    /// A call from outside (`entry::in_worker`) queues its job without a wake-up and calls
    /// `new_work` only if no worker started it, as the worker goes idle: never is the
    /// worker left parked with the job queued.
    #[test]
    fn a_call_queued_without_a_wake_up_reaches_a_worker_that_goes_idle() {
        model(|| {
            let idle = Arc::new(Idle::new(Sleep::new(1), 0));
            let work = Arc::new(AtomicBool::new(false));
            let started = Arc::new(AtomicBool::new(false));
            let worker = {
                let idle = idle.clone();
                let (work, started) = (work.clone(), started.clone());
                thread::spawn(move || {
                    idle_phase(&idle, 0, &work, &|| false);
                    // Relaxed: a hint, as the job's `started` is.
                    started.store(true, Relaxed);
                })
            };
            // Release: the worker that sees the flag sees what it guards.
            work.store(true, Release);
            // One look stands for the caller's short spin (`started_within`).
            if !started.load(Relaxed) {
                idle.new_work();
            }
            worker.join().unwrap();
            assert_eq!(idle.count(), 0);
        });
    }

    /// One worker becomes busy while the other parks: seeing it busy, the parker watches
    /// (the main thread plays the timeout); else it parks for good, and `work_found` must
    /// wake it. A lost wake-up is a deadlock here.
    #[test]
    fn a_worker_that_parks_for_good_is_woken_by_one_that_becomes_busy() {
        model(|| {
            let idle = Arc::new(Idle::new(Sleep::new(2), 0));
            let watching = Arc::new(AtomicBool::new(false));
            let decided = Arc::new(AtomicBool::new(false));
            let busy_one = {
                let idle = idle.clone();
                thread::spawn(move || {
                    let found = AtomicBool::new(true);
                    idle_phase(&idle, 0, &found, &|| false);
                })
            };
            let parker = {
                let idle = idle.clone();
                let (watching, decided) = (watching.clone(), decided.clone());
                thread::spawn(move || {
                    let busy = || {
                        let busy = idle.count() < 2;
                        watching.store(busy, Relaxed);
                        // Release: the main thread reads `watching` after this.
                        decided.store(true, Release);
                        busy
                    };
                    // Nothing to stay awake for.
                    let worker = ModelWorker {
                        index: 1,
                        work: None,
                        busy: &busy,
                        lendable: true,
                        parks: AtomicU64::new(0),
                    };
                    let mut round = idle.start_looking();
                    // The search rounds, then one park.
                    for _ in 0..=SPIN_ROUNDS + YIELD_ROUNDS {
                        idle.no_work_found(&mut round, &worker);
                    }
                    idle.work_found();
                })
            };
            busy_one.join().unwrap();
            // The watcher's timeout, once the other is done and the parker has decided.
            while !decided.load(Acquire) {
                thread::yield_now();
            }
            if watching.load(Relaxed) {
                idle.latch_set(1);
            }
            parker.join().unwrap();
            assert_eq!(idle.count(), 0);
        });
    }
}
