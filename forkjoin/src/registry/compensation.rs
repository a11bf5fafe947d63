//! The counts behind `blocking`'s compensation (a resting spare is not counted) and
//! `IndexToken` (DESIGN.md, section 7, "Blocking without losing a core").

use crate::sync::{lock, AtomicUsize, Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};

/// Bits of `counts` for each count: blocked threads low, spares high.
const HALF: u32 = usize::BITS / 2;
const LOW: usize = (1 << HALF) - 1;

/// The compensation decision's state (see the module docs).
pub(crate) struct Compensation {
    /// `blocked | spares << HALF`. SeqCst: every change is an RMW, so all agree on the order.
    counts: AtomicUsize,
    /// The most spares alive at once.
    max_spares: usize,
}

impl Compensation {
    pub(crate) fn new(max_spares: usize) -> Self {
        Compensation {
            counts: AtomicUsize::new(0),
            max_spares: max_spares.min(LOW),
        }
    }

    /// (threads inside `blocking`, spares alive), a snapshot.
    pub(crate) fn counts(&self) -> (usize, usize) {
        // Relaxed: a snapshot for heuristics; decisions are the RMWs below.
        split(self.counts.load(Relaxed))
    }

    /// A thread is about to block: returns how many spares short of the blocked threads it is.
    pub(crate) fn enter(&self) -> usize {
        // One spare per blocked thread at most: this is at least 1 (the caller has none yet).
        let (blocked, spares) = split(self.counts.fetch_add(1, SeqCst) + 1);
        blocked.saturating_sub(spares)
    }

    /// The blocked thread is back (its stand-in, if it had one, already counted out).
    pub(crate) fn leave(&self) {
        self.counts.fetch_sub(1, SeqCst);
    }

    /// Counts one more spare for the caller to start, if fewer than blocked and below the bound.
    pub(crate) fn reserve_spare(&self) -> bool {
        let reserve = |counts| {
            let (blocked, spares) = split(counts);
            (spares < blocked && spares < self.max_spares).then(|| blocked | (spares + 1) << HALF)
        };
        self.counts.fetch_update(SeqCst, SeqCst, reserve).is_ok()
    }

    /// A spare is counted out: it handed its index back (or is about to), or failed to start.
    pub(crate) fn spare_gone(&self) {
        self.counts.fetch_sub(1 << HALF, SeqCst);
    }
}

fn split(counts: usize) -> (usize, usize) {
    (counts & LOW, counts >> HALF)
}

/// The right to run pool work under one worker index, held by one thread or none (point 3).
pub(crate) struct IndexToken {
    /// Threads waiting in `claim`. SeqCst: Dekker with a parking holder, which reads it after
    /// announcing itself; the claimant raises it, fences and wakes (`Sleep::fence_and_wake`).
    claims: AtomicUsize,
    state: Mutex<TokenState>,
    /// Signalled when the token passes to a claimant.
    passed: Condvar,
}

struct TokenState {
    /// The slot whose thread holds the token, or `None`.
    holder: Option<usize>,
    /// The slots of the threads in `claim`, first come first served.
    queue: VecDeque<usize>,
}

/// What `IndexToken::give_up` did with the token.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum GivenTo {
    /// A thread that was waiting for it.
    Claimant,
    /// The spare `start` returned.
    Spare,
    /// Nobody (`start` found none): the first claim takes it.
    Nobody,
}

impl IndexToken {
    /// A token held by the worker in slot `holder`.
    pub(crate) fn new(holder: usize) -> Self {
        IndexToken {
            claims: AtomicUsize::new(0),
            state: Mutex::new(TokenState {
                holder: Some(holder),
                queue: VecDeque::new(),
            }),
            passed: Condvar::new(),
        }
    }

    /// The holder (`me`) goes into `blocking` or ends: the token passes to the first claimant,
    /// else to the spare `start` starts under the lock, else to nobody (counted in `free`).
    pub(crate) fn give_up(
        &self,
        me: usize,
        free: &AtomicUsize,
        start: impl FnOnce() -> Option<usize>,
    ) -> GivenTo {
        let mut state = lock(&self.state);
        debug_assert_eq!(state.holder, Some(me), "the token given up by its holder");
        if self.pass_locked(&mut state) {
            return GivenTo::Claimant;
        }
        state.holder = start();
        if state.holder.is_some() {
            return GivenTo::Spare;
        }
        // SeqCst: the Dekker pattern of `Registry::give_up_index`.
        free.fetch_add(1, SeqCst);
        GivenTo::Nobody
    }

    /// The holder (`me`), at a task boundary or about to park, passes to a claimant, if any.
    pub(crate) fn pass(&self, me: usize) -> bool {
        let mut state = lock(&self.state);
        debug_assert_eq!(state.holder, Some(me), "the token passed by its holder");
        self.pass_locked(&mut state)
    }

    fn pass_locked(&self, state: &mut TokenState) -> bool {
        let Some(next) = state.queue.pop_front() else {
            return false;
        };
        state.holder = Some(next);
        // SeqCst: see `claims`.
        self.claims.fetch_sub(1, SeqCst);
        self.passed.notify_all();
        true
    }

    /// Whether a thread waits for the token (a holder's cue to `pass` it).
    pub(crate) fn claimed(&self) -> bool {
        // SeqCst: see `claims`.
        self.claims.load(SeqCst) > 0
    }

    /// Slot `me` takes the token if nobody holds it, else waits until the holder, woken by
    /// `wake` after the claim is counted, passes it. Whether it had to wait.
    pub(crate) fn claim(&self, me: usize, free: &AtomicUsize, wake: impl FnOnce(usize)) -> bool {
        let mut state = lock(&self.state);
        let Some(holder) = state.holder else {
            state.holder = Some(me);
            // SeqCst: as in `give_up`.
            free.fetch_sub(1, SeqCst);
            return false;
        };
        debug_assert_ne!(holder, me, "a claim by the token's holder");
        state.queue.push_back(me);
        // SeqCst: see `claims`.
        self.claims.fetch_add(1, SeqCst);
        drop(state);
        wake(holder);
        let mut state = lock(&self.state);
        while state.holder != Some(me) {
            state = self
                .passed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        true
    }

    /// The slot whose thread holds the token (tests).
    #[cfg(test)]
    pub(crate) fn holder(&self) -> Option<usize> {
        lock(&self.state).holder
    }

    /// If nobody holds the token, gives it to the spare `start` starts, out of `free`.
    pub(crate) fn fill(&self, free: &AtomicUsize, start: impl FnOnce() -> Option<usize>) -> bool {
        let mut state = lock(&self.state);
        if state.holder.is_none() {
            state.holder = start();
            if state.holder.is_some() {
                // SeqCst: as in `give_up`.
                free.fetch_sub(1, SeqCst);
                return true;
            }
        }
        false
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The compensation protocol with the sleep protocol under it: run with
    //! `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib loom_tests`.

    use super::*;
    use crate::registry::idle::sleep::Sleep;
    use crate::sync::{fence, model};
    use loom::sync::Arc;
    use loom::thread;
    use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

    /// A spare's life (`spare_main`) reduced to the protocol: run work, park, leave when
    /// claimed, count out, pass the token on. Returns how many items it ran.
    fn spare(
        sleep: &Sleep,
        comp: &Compensation,
        token: &IndexToken,
        index: usize,
        work: &AtomicUsize,
    ) -> usize {
        let mut ran = 0;
        while !token.claimed() {
            let n = work.load(Acquire);
            if n > 0 {
                if work.compare_exchange(n, n - 1, SeqCst, SeqCst).is_ok() {
                    ran += 1;
                }
                continue;
            }
            sleep.sleep(
                index,
                || work.load(Relaxed) > 0 || token.claimed(),
                || None,
                false,
            );
        }
        comp.spare_gone();
        // Claimed: passed on, never counted free.
        assert_eq!(
            token.give_up(index, &AtomicUsize::new(0), || None),
            GivenTo::Claimant
        );
        ran
    }

    /// A one-worker pool's worker blocks with work queued: a spare takes the token; back,
    /// the worker claims it and the spare (busy or parked) passes it. The claim's wake-up is
    /// never lost, and the counts end at zero.
    #[test]
    fn a_spare_stands_in_and_passes_the_token_back() {
        model(|| {
            let sleep = Arc::new(Sleep::with_spares(1, 1));
            let comp = Arc::new(Compensation::new(4));
            let token = Arc::new(IndexToken::new(0));
            let free = AtomicUsize::new(0);
            let work = Arc::new(AtomicUsize::new(1));
            // The worker (slot 0) blocks: nobody is parked, so it starts a spare (slot 1).
            assert_eq!(comp.enter(), 1);
            assert!(comp.reserve_spare());
            sleep.activate(1);
            assert_eq!(token.give_up(0, &free, || Some(1)), GivenTo::Spare);
            let spare = {
                let (sleep, comp, token, work) =
                    (sleep.clone(), comp.clone(), token.clone(), work.clone());
                thread::spawn(move || spare(&sleep, &comp, &token, 1, &work))
            };
            // The worker is back: it claims the token and waits for it.
            assert!(token.claim(0, &free, |holder| sleep.fence_and_wake(holder)));
            comp.leave();
            assert_eq!(comp.counts(), (0, 0));
            assert_eq!(token.holder(), Some(0));
            assert_eq!(free.load(SeqCst), 0);
            // The worker runs whatever the spare left.
            assert_eq!(spare.join().unwrap(), 1 - work.load(SeqCst));
        });
    }

    /// A stand-in blocks mid-task (on a reply its original sends): the original, back, takes
    /// the token at once; the stand-in later claims it and the original, about to park,
    /// lends it. Never do two threads hold it.
    #[test]
    fn a_stand_in_that_blocks_holds_nothing_its_original_waits_for() {
        model(|| {
            let sleep = Arc::new(Sleep::with_spares(1, 1));
            let token = Arc::new(IndexToken::new(0));
            let free = Arc::new(AtomicUsize::new(0));
            let running = Arc::new(AtomicUsize::new(0));
            let reply = Arc::new(AtomicUsize::new(0));
            let finished = Arc::new(AtomicUsize::new(0));
            let run = |running: &AtomicUsize| {
                assert_eq!(
                    running.fetch_add(1, SeqCst),
                    0,
                    "two threads hold the token"
                );
                running.fetch_sub(1, SeqCst);
            };
            // The original (slot 0) blocks: the token goes to the spare (slot 1).
            sleep.activate(1);
            assert_eq!(token.give_up(0, &free, || Some(1)), GivenTo::Spare);
            let stand_in = {
                let (sleep, token, free, running, reply, finished) = (
                    sleep.clone(),
                    token.clone(),
                    free.clone(),
                    running.clone(),
                    reply.clone(),
                    finished.clone(),
                );
                thread::spawn(move || {
                    run(&running);
                    // Its task blocks until the original's reply; nobody else stands in. (The
                    // original may be waiting for the token already, or not yet back.)
                    assert_ne!(token.give_up(1, &free, || None), GivenTo::Spare);
                    while reply.load(Acquire) == 0 {
                        thread::yield_now();
                    }
                    // Back: it finishes its task under the index, then ends.
                    token.claim(1, &free, |holder| sleep.fence_and_wake(holder));
                    run(&running);
                    // To the original, waiting or about to claim it again.
                    token.give_up(1, &free, || None);
                    finished.store(1, SeqCst);
                })
            };
            // The original is back: it claims the token (it may find it free at once, or
            // wait while the stand-in still runs its task) and replies.
            token.claim(0, &free, |holder| sleep.fence_and_wake(holder));
            run(&running);
            reply.store(1, Release);
            // It waits for nothing else: about to park, it lends the token while claimed,
            // until the stand-in has given it back.
            while finished.load(SeqCst) == 0 {
                if token.holder() == Some(0) && token.claimed() {
                    assert!(token.pass(0));
                    token.claim(0, &free, |holder| sleep.fence_and_wake(holder));
                }
                thread::yield_now();
            }
            stand_in.join().unwrap();
            assert_eq!(token.holder(), Some(0));
            assert!(!token.claimed());
            // Counted free while nobody held it, and out again when claimed.
            assert_eq!(free.load(SeqCst), 0);
        });
    }

    /// A thread blocks without a spare as a broadcast queues its share: each side changes
    /// its own count, fences, reads the other's (`stand_in_for_waiting`); exactly one
    /// starts the spare (without the fence, loom finds a run where neither does).
    #[test]
    fn a_share_queued_beside_a_block_without_a_spare_gets_one() {
        const WAITING: u8 = 1;
        const LENT: u8 = 2;
        fn start(lending: &mut u8, waiting: &AtomicUsize, starts: &AtomicUsize) {
            *lending = LENT;
            waiting.fetch_sub(1, SeqCst);
            starts.fetch_add(1, SeqCst);
        }
        model(|| {
            let waiting = Arc::new(AtomicUsize::new(0));
            let inbox = Arc::new(AtomicUsize::new(0));
            let lending = Arc::new(Mutex::new(0u8));
            let starts = Arc::new(AtomicUsize::new(0));
            let blocked = {
                let (waiting, inbox, lending, starts) = (
                    waiting.clone(),
                    inbox.clone(),
                    lending.clone(),
                    starts.clone(),
                );
                thread::spawn(move || {
                    let mut lending = lending.lock().unwrap();
                    *lending = WAITING;
                    waiting.fetch_add(1, SeqCst);
                    fence(SeqCst);
                    if inbox.load(Relaxed) != 0 {
                        start(&mut lending, &waiting, &starts);
                    }
                })
            };
            inbox.store(1, Relaxed);
            fence(SeqCst);
            if waiting.load(SeqCst) != 0 {
                let mut lending = lending.lock().unwrap();
                if *lending == WAITING {
                    start(&mut lending, &waiting, &starts);
                }
            }
            blocked.join().unwrap();
            assert_eq!(*lending.lock().unwrap(), LENT);
            assert_eq!(starts.load(SeqCst), 1);
            assert_eq!(waiting.load(SeqCst), 0);
        });
    }

    /// A thread blocks on demand (`Cover::OnDemand`, token to nobody) as a job is published:
    /// each side fences after its write (`give_up_index`, `stand_in_for_published`);
    /// exactly one spare starts and holds the token (without the fences, loom finds none).
    #[test]
    fn work_published_beside_a_block_on_demand_gets_one_stand_in() {
        model(|| {
            let token = Arc::new(IndexToken::new(0));
            let free = Arc::new(AtomicUsize::new(0));
            let work = Arc::new(AtomicUsize::new(0));
            let starts = Arc::new(AtomicUsize::new(0));
            let start = |starts: &AtomicUsize| {
                starts.fetch_add(1, SeqCst);
                Some(1)
            };
            let blocked = {
                let (token, free, work, starts) =
                    (token.clone(), free.clone(), work.clone(), starts.clone());
                thread::spawn(move || {
                    assert_eq!(token.give_up(0, &free, || None), GivenTo::Nobody);
                    fence(SeqCst);
                    if work.load(Relaxed) != 0 {
                        token.fill(&free, || start(&starts));
                    }
                })
            };
            work.store(1, Relaxed);
            fence(SeqCst);
            if free.load(SeqCst) > 0 && work.load(Relaxed) != 0 {
                token.fill(&free, || start(&starts));
            }
            blocked.join().unwrap();
            assert_eq!(starts.load(SeqCst), 1);
            assert_eq!(token.holder(), Some(1));
            assert_eq!(free.load(SeqCst), 0);
        });
    }

    /// Two threads block at once, each starts its one spare (as `blocking` does), and
    /// each takes its index back: the counts agree at every step and end at zero.
    #[test]
    fn two_blocked_threads_each_get_a_spare() {
        model(|| {
            let comp = Arc::new(Compensation::new(4));
            let block = |comp: &Compensation| {
                assert!(comp.enter() >= 1);
                assert!(comp.reserve_spare());
                let (blocked, spares) = comp.counts();
                assert!(spares <= blocked);
                // Back: its spare counts itself out, then the thread.
                comp.spare_gone();
                comp.leave();
            };
            let other = {
                let comp = comp.clone();
                thread::spawn(move || block(&comp))
            };
            block(&comp);
            other.join().unwrap();
            assert_eq!(comp.counts(), (0, 0));
        });
    }
}
