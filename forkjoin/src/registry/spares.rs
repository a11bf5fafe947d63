//! Stand-ins for blocked threads, and the slots of the spare threads that stand in, kept for
//! reuse (`Spares`): DESIGN.md, section 7, "Blocking without losing a core".

use super::compensation::{GivenTo, IndexToken};
use super::thread::set_precise_timer;
use super::wait::Helps;
use super::worker::Worker;
use super::worker::{outside, CURRENT};
use super::Registry;
use crate::job::JobRef;
use crate::sync::Instant;
use crate::sync::{fence, lock, AtomicPtr, AtomicUsize, Condvar, Mutex, SpawnBuilder};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

/// A worker's thread inside `blocking` (owner-only, `OwnerState`).
pub(crate) struct Blocking {
    /// The thread running as this worker is inside `blocking` (a nested call starts nothing).
    pub(crate) inside: Cell<bool>,
    /// It gave its index's token up and claims it back before running pool work.
    pub(crate) gave_up_index: Cell<bool>,
}

impl Blocking {
    pub(super) const fn new() -> Blocking {
        Blocking {
            inside: Cell::new(false),
            gave_up_index: Cell::new(false),
        }
    }
}

/// Who runs in a blocked thread's place (`Registry::enter_blocking`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cover {
    /// A spare, reserved: `give_up_index` starts it.
    Spare,
    /// No spare: a parked worker was woken, or spares cover the blocked threads already.
    NoSpare,
    /// Nobody yet: a job published or a spare counted out starts one (DESIGN.md's point 5).
    OnDemand,
}

impl Registry {
    /// A thread of this pool is about to block: wake a parked worker, else reserve a spare
    /// (`give_up_index` starts it), or, with nothing queued, start nothing yet.
    pub(crate) fn enter_blocking(&self, worker: &Worker) -> Cover {
        if self.compensation.enter() == 0 {
            return Cover::NoSpare;
        }
        // DESIGN.md's point 1 (section 7); `wake`'s fence is the count's SeqCst read-modify-write.
        let n = self.num_threads();
        let mut others = (1..n).map(|k| (worker.shown_index() + k) % n);
        if !self.has_work() {
            return if others.any(|i| self.idle.parked(i)) {
                Cover::NoSpare
            } else {
                Cover::OnDemand
            };
        }
        if others.any(|i| self.idle.cover_blocked(i)) {
            return Cover::NoSpare;
        }
        // None to be had now: one starts when one can (`after_spare_gone`), as on demand.
        if self.compensation.reserve_spare() {
            Cover::Spare
        } else {
            Cover::OnDemand
        }
    }

    /// The calling thread, inside `blocking`, gives up its index's token (DESIGN.md's points 3, 5).
    pub(crate) fn give_up_index(&self, blocked: &Worker, cover: Cover) {
        let shown = blocked.shown_index();
        let reserved = cover == Cover::Spare;
        let given =
            self.spares.tokens[shown].give_up(blocked.index, &self.spares.free_tokens, || {
                // A failed start counts the reserved spare out itself.
                reserved.then(|| self.start_spare(shown)).flatten()
            });
        blocked.owner().blocking.gave_up_index.set(true);
        match given {
            GivenTo::Claimant if reserved => {
                self.compensation.spare_gone();
                self.after_spare_gone();
            }
            GivenTo::Claimant | GivenTo::Spare => {}
            GivenTo::Nobody => {
                // The blocked thread's half of the Dekker pattern on `free_tokens` (point 5).
                fence(SeqCst);
                let on_demand = cover == Cover::OnDemand;
                if !self.slot(shown).inbox.is_empty() || (on_demand && self.has_work()) {
                    let _ = self.stand_in_if_free(shown);
                } else if on_demand {
                    // Private work is asked for: a free index counts as idle (`someone_idle`).
                    blocked.request_sharing();
                }
            }
        }
    }

    /// Shares were queued in every inbox (after a fence): each free token gets a spare now.
    pub(crate) fn stand_in_for_waiting(&self) {
        // SeqCst, after the caller's fence: see `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 {
            return;
        }
        for shown in 0..self.workers.len() {
            let _ = self.stand_in_if_free(shown);
        }
    }

    /// Work was published (after a fence): a free token gets a spare if it is still queued.
    pub(super) fn stand_in_for_published(&self) {
        // SeqCst, after the caller's fence: see `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 || !self.has_work() {
            return;
        }
        let _ = (0..self.workers.len()).any(|shown| self.stand_in_if_free(shown));
    }

    /// Starts a spare holding index `shown`'s token if nobody holds it and the bound allows.
    fn stand_in_if_free(&self, shown: usize) -> bool {
        self.spares.tokens[shown].fill(&self.spares.free_tokens, || {
            if !self.compensation.reserve_spare() {
                return None;
            }
            self.start_spare(shown)
        })
    }

    /// The calling thread, inside `blocking`, claims its index's token back if it gave it up.
    pub(crate) fn take_index_back(&self, blocked: &Worker) {
        if blocked.owner().blocking.gave_up_index.replace(false) {
            self.claim_index(blocked);
        }
    }

    /// Claims the token of `worker`'s index for it, waiting until its holder passes it.
    fn claim_index(&self, worker: &Worker) {
        let token = &self.spares.tokens[worker.shown_index()];
        token.claim(worker.index, &self.spares.free_tokens, |holder| {
            // The fence pairs with a parking holder's (see `IndexToken::claims`).
            self.idle.latch_set(holder);
        });
    }

    /// `worker`'s thread exits (the pool terminates): it gives its index's token up for good.
    pub(crate) fn leave_index(&self, worker: &Worker) {
        let token = &self.spares.tokens[worker.shown_index()];
        token.give_up(worker.index, &self.spares.free_tokens, || None);
    }

    /// Whether a thread waits for the token of `worker`'s index.
    pub(crate) fn index_claimed(&self, worker: &Worker) -> bool {
        self.spares.tokens[worker.shown_index()].claimed()
    }

    /// Before parking in a wait, `worker` lends its claimed token and claims it back (not
    /// counted idle meanwhile); whether it did (it then looks for work again).
    pub(crate) fn lend_index_before_parking(&self, worker: &Worker) -> bool {
        if worker.owner().blocking.gave_up_index.get() || !self.index_claimed(worker) {
            return false;
        }
        self.idle.leave();
        let passed = self.spares.tokens[worker.shown_index()].pass(worker.index);
        if passed {
            self.claim_index(worker);
        }
        self.idle.enter();
        passed
    }
}

/// A done spare's keep-alive, as the JDK pool's (point 4; docs/measurements.md, section 7).
pub(crate) const SPARE_KEEP_ALIVE: Duration = Duration::from_secs(1);

/// The slots of spare threads, made on first use and kept until the pool is dropped.
pub(crate) struct Spares {
    /// `slots[..made]` point to live workers; the rest are null.
    pub(super) slots: Box<[AtomicPtr<Worker>]>,
    /// Slots made so far. SeqCst: raised after the slot is stored, read before scanning.
    pub(super) made: AtomicUsize,
    /// Free slots, oldest first, with the index their resting thread shows (a hint), if any.
    pub(super) free: Mutex<Vec<(usize, Option<usize>)>>,
    /// Per slot: its thread's state (`SlotThread`).
    rest: Box<[Rest]>,
    /// Per worker index, its `IndexToken`; locked before `free` and a slot's `rest`.
    pub(super) tokens: Box<[IndexToken]>,
    /// Tokens nobody holds, counted under their locks. SeqCst: the Dekker pattern of
    /// `give_up_index` and `stand_in_for_waiting`.
    pub(super) free_tokens: AtomicUsize,
    /// The keep-alive, in nanoseconds, shortened by unit tests.
    #[cfg(test)]
    pub(super) keep_alive_nanos: crate::sync::AtomicU64,
    /// Spare threads started and exited so far, for unit tests.
    #[cfg(test)]
    pub(super) threads_started: AtomicUsize,
    #[cfg(test)]
    pub(super) threads_exited: AtomicUsize,
}

/// A spare slot's thread, changed only under the slot's lock (DESIGN.md's point 4).
#[derive(Default)]
struct Rest {
    state: Mutex<SlotState>,
    /// Signalled on an assignment, and when the pool terminates.
    wake: Condvar,
}

#[derive(Default)]
struct SlotState {
    thread: SlotThread,
    /// Raised when a resting thread is dismissed: a thread that sees another one leaves.
    generation: u64,
}

#[derive(Default)]
enum SlotThread {
    /// No thread (new slot, or its thread exited): the next spare starts one.
    #[default]
    NoThread,
    /// The thread stands in for a blocked thread (or is about to).
    Busy,
    /// The thread, showing `shown`, has handed its index back (or is about to) and waits.
    Resting { shown: usize },
    /// A new stand-in for the resting thread, not yet taken (`start_spare` set it up).
    Assigned,
}

impl Spares {
    pub(super) fn new(workers: usize, max: usize) -> Spares {
        Spares {
            tokens: (0..workers).map(IndexToken::new).collect(),
            free_tokens: AtomicUsize::new(0),
            slots: (0..max).map(|_| AtomicPtr::new(ptr::null_mut())).collect(),
            made: AtomicUsize::new(0),
            free: Mutex::new(Vec::new()),
            rest: (0..max).map(|_| Rest::default()).collect(),
            #[cfg(test)]
            keep_alive_nanos: crate::sync::AtomicU64::new(SPARE_KEEP_ALIVE.as_nanos() as u64),
            #[cfg(test)]
            threads_started: AtomicUsize::new(0),
            #[cfg(test)]
            threads_exited: AtomicUsize::new(0),
        }
    }

    fn keep_alive(&self) -> Duration {
        // Relaxed: a setting; nothing is published through it.
        #[cfg(test)]
        return Duration::from_nanos(self.keep_alive_nanos.load(Relaxed));
        #[cfg(not(test))]
        SPARE_KEEP_ALIVE
    }

    /// The pool terminates (its flag set first, read under a slot's lock): resting threads exit.
    pub(super) fn wake_resting(&self) {
        for rest in self.rest.iter() {
            let _state = lock(&rest.state);
            rest.wake.notify_all();
        }
    }
}

impl Registry {
    /// Starts a reserved spare under `shown_index` (DESIGN.md's point 4), or counts it out if
    /// none can be had. Returns the spare's slot.
    pub(crate) fn start_spare(&self, shown_index: usize) -> Option<usize> {
        let mut free = lock(&self.spares.free);
        // Stored only under `free`'s lock.
        let made = self.spares.made.load(SeqCst);
        let all_made = made == self.spares.slots.len();
        // The latest freed resting with this index (the least used expire), as point 4 says.
        let pick = free
            .iter()
            .rposition(|&(_, shown)| shown == Some(shown_index))
            .or_else(|| free.iter().rposition(|&(_, shown)| shown.is_none()))
            .or_else(|| (all_made && !free.is_empty()).then_some(0));
        let k = match pick {
            Some(at) => free.remove(at).0,
            None if all_made => {
                // Every slot held, one by a spare counted out but not yet resting: none.
                drop(free);
                self.compensation.spare_gone();
                return None;
            }
            None => {
                let worker = Box::new(Worker::new(self.workers.len() + made, self));
                self.spares.slots[made].store(Box::into_raw(worker), SeqCst);
                self.idle.spare_started(self.workers.len() + made);
                self.spares.made.store(made + 1, SeqCst);
                made
            }
        };
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        let rest = &self.spares.rest[k];
        // Held until the slot's state says who runs the stand-in.
        let mut state = lock(&rest.state);
        // Relaxed: the slot's lock or the thread start orders it before the spare reads it;
        // the previous stand-in's last read came before it marked the slot resting.
        worker.shown_index.store(shown_index, Relaxed);
        // Counted idle from now, as a worker from the start: a job published meanwhile sees it.
        self.idle.enter();
        match state.thread {
            SlotThread::Resting { shown } if shown == shown_index => {
                state.thread = SlotThread::Assigned;
                rest.wake.notify_all();
                // Unlocks the slot, then `free`.
                return Some(index);
            }
            SlotThread::Resting { .. } => {
                // Dismissed: it leaves on its next look (`rest`); a new thread takes the slot.
                state.generation += 1;
                rest.wake.notify_all();
            }
            SlotThread::NoThread => {}
            // A freed slot's thread rests there or has exited.
            SlotThread::Busy | SlotThread::Assigned => {
                unreachable!("a free spare slot whose thread stands in")
            }
        }
        // From the worker's registry pointer, which covers the whole `Arc` allocation
        // (Stacked Borrows rejects reaching the counts through a `&Registry`).
        let me = self.slot(shown_index).registry_arc();
        let mut builder = SpawnBuilder::new().name(format!("forkjoin-spare-{k}"));
        if self.config.stack_size > 0 {
            builder = builder.stack_size(self.config.stack_size);
        }
        let generation = state.generation;
        // Busy before the thread runs (its later `Resting` must not be overwritten).
        state.thread = SlotThread::Busy;
        // Detached: the blocked thread waits for the token, not for the thread.
        match builder.spawn(move || me.spare_main(k, generation)) {
            Ok(_) => Some(index),
            Err(_) => {
                // No thread: the blocked thread waits without compensation, as before.
                state.thread = SlotThread::NoThread;
                free.push((k, None));
                self.idle.leave();
                self.compensation.spare_gone();
                None
            }
        }
    }

    /// A spare thread's life in slot `k`: stand-ins under one index and rests (point 4).
    fn spare_main(self: Arc<Registry>, k: usize, generation: u64) {
        set_precise_timer();
        // Relaxed: tests read it after a token's passing orders it, or poll it.
        #[cfg(test)]
        self.spares.threads_started.fetch_add(1, Relaxed);
        self.stand_in(k);
        while self.rest(k, generation) {
            self.stand_in(k);
        }
        // Relaxed: as `threads_started`.
        #[cfg(test)]
        self.spares.threads_exited.fetch_add(1, Relaxed);
        // Last: dropping the registry, which may free it (and the slot).
    }

    /// One stand-in of spare slot `k`'s thread, until its token is claimed and passed on.
    fn stand_in(&self, k: usize) {
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle.leave();
        self.run_thread_handler(index, &self.config.start_handler, "start");
        let claimed = || self.index_claimed(worker);
        let done = || claimed() || self.is_terminating();
        // Between tasks only: claimed while running one, it finishes it first.
        worker.wait_until(&done, None, Helps::Anything);
        // Terminating with the index's threads away: drain until claimed, as workers do.
        while !claimed() {
            let Some(job) = worker.find_work(None) else {
                break;
            };
            // SAFETY: on this slot's thread; the job was taken from a queue.
            unsafe { worker.execute(job) };
        }
        // Untaken jobs go to the submission queues, with their tags (a waiter may take them).
        // SAFETY: `bottom_tag` and `pop` on the slot's own thread.
        while let Some((job, tag)) = unsafe {
            let tag = worker.deque.bottom_tag();
            worker.deque.pop().map(|job| (job, tag))
        } {
            self.reinject(JobRef(job), tag);
        }
        // Under the index still: the blocked thread has not resumed.
        self.run_thread_handler(index, &self.config.exit_handler, "exit");
        CURRENT.with(|c| c.set(outside()));
        self.compensation.spare_gone();
        // Resting before free; an assignment from now is taken after the token is passed on.
        let shown = worker.shown_index();
        lock(&self.spares.rest[k].state).thread = SlotThread::Resting { shown };
        lock(&self.spares.free).push((k, Some(shown)));
        // Last: from here the claimant runs under the index.
        self.spares.tokens[shown].give_up(index, &self.spares.free_tokens, || None);
        self.after_spare_gone();
    }

    /// A spare was counted out: a free token with work queued gets it (point 5's Dekker pattern).
    fn after_spare_gone(&self) {
        fence(SeqCst);
        // SeqCst: as in `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 {
            return;
        }
        for shown in (0..self.workers.len()).filter(|&s| !self.slot(s).inbox.is_empty()) {
            let _ = self.stand_in_if_free(shown);
        }
        self.stand_in_for_published();
    }

    /// Slot `k`'s thread awaits a stand-in: false (it exits) on timeout, termination or dismissal.
    fn rest(&self, k: usize, generation: u64) -> bool {
        let rest = &self.spares.rest[k];
        let deadline = Instant::now() + self.spares.keep_alive();
        let mut state = lock(&rest.state);
        loop {
            if state.generation != generation {
                // Dismissed: the slot is another thread's now.
                return false;
            }
            // An assignment is taken even when terminating: it holds the token (and drains).
            match std::mem::replace(&mut state.thread, SlotThread::Busy) {
                SlotThread::Assigned => return true,
                other => state.thread = other,
            }
            let now = Instant::now();
            // The flag is read under the slot's lock (see `Spares::wake_resting`).
            if self.is_terminating() || now >= deadline {
                state.thread = SlotThread::NoThread;
                drop(state);
                // The hint too, after the slot's lock (harmlessly wrong if another rests there).
                if let Some(entry) = lock(&self.spares.free).iter_mut().find(|e| e.0 == k) {
                    entry.1 = None;
                }
                return false;
            }
            state = rest
                .wake
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
