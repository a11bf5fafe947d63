//! Stand-ins for blocked threads (DESIGN.md, section 7, "Blocking without losing a core"): a
//! thread that blocks gives its index to a stand-in and takes it back when it returns, and the
//! slots of the spare threads that stand in are kept for reuse (`Spares`).

use super::compensation::{GivenTo, IndexToken};
use super::thread::{set_precise_timer, ThreadEvent};
use super::wait::Helps;
use super::worker::Worker;
use super::worker::{CURRENT, OUTSIDE};
use super::Registry;
use crate::job::JobRef;
use crate::sync::{fence, AtomicPtr, AtomicUsize};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A worker's thread inside `blocking` (owner-only, `OwnerState`).
pub(crate) struct Blocking {
    /// The thread running as this worker is inside `blocking` (a nested call starts
    /// nothing more).
    pub(crate) inside: Cell<bool>,
    /// Inside `blocking`, the thread has given its index's token up (`give_up_index`) and
    /// must claim it back before it runs pool work (`take_index_back`).
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
    /// Nobody yet, as nothing is queued (or no spare can be had now): the next job
    /// published, or the next spare counted out, starts one (`stand_in_for_published`,
    /// `after_spare_gone`).
    OnDemand,
}

impl Registry {
    /// A thread of this pool is about to block: wake a parked worker, else reserve a spare
    /// to stand in for it (`Compensation::enter`, `reserve_spare`; `give_up_index` starts
    /// it). One spare at most per blocked thread: two would run under one index. With
    /// nothing queued and no worker parked, nothing is started yet: the next job published
    /// starts the stand-in (DESIGN.md, section 7, "Blocking without losing a core").
    pub(crate) fn enter_blocking(&self, worker: &Worker) -> Cover {
        if self.compensation.enter() == 0 {
            return Cover::NoSpare;
        }
        // A parked worker is a thread ready to run: wake it rather than start another (the
        // JDK pool does the same). Not a parked spare: it stands in for another blocked
        // thread already. With nothing queued, leave it parked: the next job published
        // wakes it (`notify_work`), and woken now it would only spin on a core that others
        // may need, then park again. `wake` needs a fence after what the woken thread
        // should see; here that is nothing but the count, a SeqCst read-modify-write.
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
        // None to be had now (the bound, or a spare not yet counted out): one starts when
        // one can (`after_spare_gone`), as on demand.
        if self.compensation.reserve_spare() {
            Cover::Spare
        } else {
            Cover::OnDemand
        }
    }

    /// The calling thread (`blocked`, its worker), counted inside `blocking`, gives up its
    /// index's token (`IndexToken`): to a thread waiting for it, else to the spare `cover`
    /// reserved (started now), else to nobody. Then, with nobody holding it, if a share for
    /// the index was queued already (or, on demand, any job) it starts a spare for it now:
    /// the publisher looks only after its push (`stand_in_for_waiting`,
    /// `stand_in_for_published`), and either it sees the token free or this thread sees
    /// its job.
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
                // Counted in `free_tokens` (under the token's lock). The blocked thread's
                // half of the Dekker pattern with a publisher's push, fence and look at
                // that count (`notify_work`, `stand_in_for_waiting`).
                fence(SeqCst);
                let on_demand = cover == Cover::OnDemand;
                if !self.slot(shown).inbox.is_empty() || (on_demand && self.has_work()) {
                    let _ = self.stand_in_if_free(shown);
                } else if on_demand {
                    // Work still private to a busy worker is asked for as an idle worker
                    // asks: a free index counts as someone idle (`someone_idle`).
                    blocked.request_sharing();
                }
            }
        }
    }

    /// Shares were queued in every slot's inbox and the sleepers woken (`run_broadcast`,
    /// after its fence): each index whose token nobody holds (every thread of it inside
    /// `blocking`, none with a spare) gets a spare now, or the share for it would wait until
    /// one of them returns, which may be never (it may wait for the broadcast's caller).
    pub(crate) fn stand_in_for_waiting(&self) {
        // SeqCst, after the caller's fence: see `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 {
            return;
        }
        for shown in 0..self.workers.len() {
            let _ = self.stand_in_if_free(shown);
        }
    }

    /// Work was published (after the publisher's fence, `notify_work`): an index whose
    /// threads are all inside `blocking` with no stand-in gets one now, if the work is still
    /// queued, which takes it or passes the signal on as any worker does.
    pub(super) fn stand_in_for_published(&self) {
        // SeqCst, after the caller's fence: see `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 || !self.has_work() {
            return;
        }
        for shown in 0..self.workers.len() {
            if self.stand_in_if_free(shown) {
                return;
            }
        }
    }

    /// Starts a spare holding index `shown`'s token if nobody holds it (and the bound allows
    /// one: else it stays free). Returns whether it started one.
    fn stand_in_if_free(&self, shown: usize) -> bool {
        self.spares.tokens[shown].fill(&self.spares.free_tokens, || {
            if !self.compensation.reserve_spare() {
                return None;
            }
            self.start_spare(shown)
        })
    }

    /// The calling thread, inside `blocking`, runs pool code under its index again (its
    /// closure has returned, or it is about to take a task: `Worker::find_work`): if it gave
    /// the index's token up, it claims it back, waiting until the holder passes it (a spare
    /// finishes the task it is running first; nobody waits for a thread inside `blocking`).
    pub(crate) fn take_index_back(&self, blocked: &Worker) {
        if !blocked.owner().blocking.gave_up_index.replace(false) {
            return;
        }
        self.claim_index(blocked);
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

    /// Whether a thread waits for the token of `worker`'s index (a holder about to park
    /// passes it first: `lend_index_before_parking`; a spare between tasks ends).
    pub(crate) fn index_claimed(&self, worker: &Worker) -> bool {
        self.spares.tokens[worker.shown_index()].claimed()
    }

    /// `worker`, holding its index's token, is about to park in a wait: if a
    /// thread waits for the token (a stand-in whose `blocking` has returned, in the middle
    /// of a task that what this worker waits for may need), passes it and claims it back,
    /// waiting until that thread is done with it. Returns whether it did (it then looks for
    /// work again rather than park). Not counted idle (`Idle`) while it waits: it can take
    /// no work meanwhile.
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

/// How long a spare's thread rests in its slot after handing its index back, waiting for the
/// next stand-in, before it exits (the JDK pool keeps a compensation thread for a keep-alive
/// too, 60 s by default). One second: a program that blocks often (a worker joining a task
/// of another pool, a loop of reads) blocks again within micro- to milliseconds and pays no
/// thread start and exit per block, while a pool that stops blocking is back to its own
/// workers, with no thread left behind, a second later (a resting thread costs its stack's
/// address space and a kernel thread, nothing else: it waits on a condvar, off every scan).
pub(crate) const SPARE_KEEP_ALIVE: Duration = Duration::from_secs(1);

/// The slots of spare threads (see `blocking`), made on first use and kept for reuse until
/// the pool is dropped: a spare is a full worker (frames, deque, counters), too large to
/// make for every pool up front. A spare's thread stands in for one blocked thread at a
/// time; after handing the index back it *rests* in its slot (`Rest`) for up to
/// `SPARE_KEEP_ALIVE`, and the next spare started for a thread of the same index is that
/// thread, given a new stand-in, rather than a new thread. Only of the same index: a
/// thread's index never changes (rayon's rule, which `current_thread_index` keeps), so a
/// spare's thread shows one index all its life. A slot whose thread has exited, or whose
/// resting thread is dismissed (its index is not wanted and no other slot is free), gets a
/// new thread.
pub(crate) struct Spares {
    /// `slots[..made]` point to live workers; the rest are null.
    pub(super) slots: Box<[AtomicPtr<Worker>]>,
    /// Slots made so far. SeqCst: raised after the slot is stored, read before scanning.
    pub(super) made: AtomicUsize,
    /// Slots whose stand-in has ended, free for the next spare, oldest first, each with the
    /// index its thread shows if it rests there (a hint, for the choice of a slot: the slot's
    /// state under its lock decides), `None` if it has no thread. Starting a spare takes a
    /// thread start or a wake-up, far costlier than this lock. Nobody joins the threads (a
    /// spare's blocked thread waits for the token instead, and dropping the pool waits
    /// for no thread).
    pub(super) free: Mutex<Vec<(usize, Option<usize>)>>,
    /// Per slot: its thread's state, which decides between a resting thread and
    /// `start_spare` (see `SlotThread`).
    rest: Box<[Rest]>,
    /// Per worker index, the right to run pool work under it (`IndexToken`). Its lock is
    /// taken before `free` and a slot's `rest` (a spare is started under it), never while
    /// waiting for the token.
    pub(super) tokens: Box<[IndexToken]>,
    /// How many tokens nobody holds, counted by the tokens under their locks: a broadcast
    /// with none looks no further. SeqCst: the Dekker pattern of `give_up_index` and
    /// `stand_in_for_waiting`.
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

/// A spare slot's thread, as `start_spare` and the thread itself see it under the slot's
/// lock: every change of state is made under it, so a resting thread whose keep-alive runs
/// out as a spare is started in its slot either takes the assignment or has left (and a new
/// thread is started), never neither.
struct Rest {
    state: Mutex<SlotState>,
    /// Signalled on an assignment, and when the pool terminates.
    wake: Condvar,
}

struct SlotState {
    thread: SlotThread,
    /// Raised when a resting thread is dismissed and a new one started in its place: a
    /// thread leaves its slot as soon as it sees a generation other than its own (it may
    /// wake after its successor has rested there already).
    generation: u64,
}

enum SlotThread {
    /// No thread: the slot is new, or its thread has exited (keep-alive out, or the pool
    /// terminates). The next spare in the slot starts a thread.
    NoThread,
    /// The thread stands in for a blocked thread (or is about to).
    Busy,
    /// The thread, which shows `shown`, has handed its index back (or is about to: the slot
    /// is marked resting before it is freed) and waits for an assignment.
    Resting { shown: usize },
    /// A new stand-in for the resting thread, not yet taken (`start_spare` has set the
    /// slot's `shown_index` and given it the index's token).
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
            rest: (0..max)
                .map(|_| Rest {
                    state: Mutex::new(SlotState {
                        thread: SlotThread::NoThread,
                        generation: 0,
                    }),
                    wake: Condvar::new(),
                })
                .collect(),
            #[cfg(test)]
            keep_alive_nanos: crate::sync::AtomicU64::new(SPARE_KEEP_ALIVE.as_nanos() as u64),
            #[cfg(test)]
            threads_started: AtomicUsize::new(0),
            #[cfg(test)]
            threads_exited: AtomicUsize::new(0),
        }
    }

    fn keep_alive(&self) -> Duration {
        #[cfg(test)]
        {
            // Relaxed: a setting; nothing is published through it.
            Duration::from_nanos(self.keep_alive_nanos.load(Relaxed))
        }
        #[cfg(not(test))]
        {
            SPARE_KEEP_ALIVE
        }
    }

    /// The pool terminates (its flag is set): every resting thread wakes and exits. Each
    /// slot's lock is taken after the flag was set, and a resting thread reads the flag
    /// under that lock before it waits, so it sees the flag or is waiting when signalled.
    pub(super) fn wake_resting(&self) {
        for rest in self.rest.iter() {
            let _state = rest.state.lock().unwrap_or_else(PoisonError::into_inner);
            rest.wake.notify_all();
        }
    }
}

impl Registry {
    /// Starts a spare (its count was reserved by `Compensation::reserve_spare`) in a free
    /// spare slot or a new one, standing in under index `shown_index`, whose token the
    /// caller gives it under the token's lock (`IndexToken::give_up`, `fill`), until a
    /// thread of that index claims it back (`take_index_back`): the slot's resting thread if
    /// it has one (no thread start), else a new thread. If no slot or thread can be had, the
    /// spare is counted out again and the token stays with nobody. Returns the spare's slot.
    pub(crate) fn start_spare(&self, shown_index: usize) -> Option<usize> {
        // Nothing panics while the lock is held, but a poisoned lock must not stop a pool.
        let mut free = self
            .spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // A slot whose thread rests with this index, the most recently freed (the threads of
        // the slots used least run out of keep-alive and exit); else one without a thread;
        // else a new one; else the oldest freed, whose resting thread shows another index and
        // is dismissed.
        let pick = free
            .iter()
            .rposition(|&(_, shown)| shown == Some(shown_index))
            .or_else(|| free.iter().rposition(|&(_, shown)| shown.is_none()))
            .or_else(|| {
                let made = self.spares.made.load(SeqCst);
                (made == self.spares.slots.len() && !free.is_empty()).then_some(0)
            });
        let k = match pick {
            Some(at) => free.remove(at).0,
            None => {
                let k = self.spares.made.load(SeqCst);
                if k == self.spares.slots.len() {
                    // Every slot is held, one of them by a spare that has handed its index
                    // back (counted out) but not yet left its slot: start none, as when no
                    // thread can be started.
                    drop(free);
                    self.compensation.spare_gone();
                    return None;
                }
                let worker = Box::new(Worker::new(self.workers.len() + k, self));
                self.spares.slots[k].store(Box::into_raw(worker), SeqCst);
                self.idle.spare_started(self.workers.len() + k);
                self.spares.made.store(k + 1, SeqCst);
                k
            }
        };
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        let rest = &self.spares.rest[k];
        // Held until the slot's state says who runs the stand-in: a resting thread whose
        // keep-alive runs out meanwhile decides under it too.
        let mut state = rest.state.lock().unwrap_or_else(PoisonError::into_inner);
        // Relaxed: the slot's lock (a resting thread takes its assignment under it) or the
        // thread start orders it before the spare reads it, and the spare hands work to
        // others only after that; the slot's previous stand-in read it last before it
        // marked the slot resting, under the same lock. A resting thread's is this already.
        worker.shown_index.store(shown_index, Relaxed);
        // The spare counts as idle (searching) from now, as a worker does from the pool's
        // start: a job published before its thread runs sees it and need not wake anyone.
        self.idle.enter();
        match state.thread {
            SlotThread::Resting { shown } if shown == shown_index => {
                state.thread = SlotThread::Assigned;
                rest.wake.notify_all();
                drop(state);
                drop(free);
                return Some(index);
            }
            SlotThread::Resting { .. } => {
                // Dismissed: it leaves on its next look (`rest`), touching nothing, and a
                // new thread takes the slot.
                state.generation += 1;
                rest.wake.notify_all();
            }
            SlotThread::NoThread => {}
            // A freed slot's thread rests there or has exited.
            SlotThread::Busy | SlotThread::Assigned => {
                unreachable!("a free spare slot whose thread stands in")
            }
        }
        // From the worker's pointer to its registry, which covers the whole `Arc`
        // allocation (a `&Registry` covers only the registry: Miri's Stacked Borrows rejects
        // reaching the counts through it).
        let me = self.slot(shown_index).registry_arc();
        let mut builder = std::thread::Builder::new().name(format!("forkjoin-spare-{k}"));
        if self.config.stack_size > 0 {
            builder = builder.stack_size(self.config.stack_size);
        }
        let generation = state.generation;
        // Busy before the thread runs: it marks the slot resting at the end of its stand-in,
        // which must not be overwritten. The slot's lock is held across the start.
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

    /// A spare thread's life, in spare slot `k` (as its `generation`-th thread): stand-ins
    /// (the first, then those `start_spare` assigns), each under the same index, holding its
    /// token, with rests in between (`rest`), until a rest runs out of keep-alive, the
    /// thread is dismissed, or the pool terminates.
    fn spare_main(self: Arc<Registry>, k: usize, generation: u64) {
        set_precise_timer();
        // Relaxed: a count the tests read after the blocks they wait for (whose tokens' passing
        // order it) or poll; nothing is published through it.
        #[cfg(test)]
        self.spares.threads_started.fetch_add(1, Relaxed);
        loop {
            self.stand_in(k);
            if !self.rest(k, generation) {
                break;
            }
        }
        // Relaxed: as `threads_started`.
        #[cfg(test)]
        self.spares.threads_exited.fetch_add(1, Relaxed);
        // Last: dropping the registry, which may free it (and the slot).
    }

    /// One stand-in of the thread of spare slot `k`: a worker's life, under the index whose
    /// token it was given (`shown_index`), until a thread of that index claims the token
    /// (see `blocking`). Ends with the slot marked resting and freed, and the token passed
    /// on.
    fn stand_in(&self, k: usize) {
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle.leave();
        self.run_thread_handler(index, ThreadEvent::Start);
        let claimed = || self.index_claimed(worker);
        // Between tasks only: claimed while running one, it finishes it first.
        worker.wait_until(
            &|| claimed() || self.is_terminating(),
            None,
            Helps::Anything,
        );
        if !claimed() {
            // The pool terminates while the index's threads are still away: run what is
            // left, as the workers do (they may have finished before this spare's last jobs
            // spawned more), until claimed (then the claimant, alive, drains instead).
            while !claimed() {
                let Some(job) = worker.find_work(None) else {
                    break;
                };
                // SAFETY: on this slot's thread; the job was taken from a queue.
                unsafe { worker.execute(job) };
            }
        }
        // Jobs it spawned and nobody took: to the submission queues, where the others
        // find them (the slot waits for the next stand-in), with their tags (a scope's
        // waiting owner may take its task there).
        // SAFETY: `bottom_tag` and `pop` on the slot's own thread.
        while let Some((job, tag)) = unsafe {
            let tag = worker.deque.bottom_tag();
            worker.deque.pop().map(|job| (job, tag))
        } {
            self.reinject(JobRef(job), tag);
        }
        // Under the index still: the blocked thread has not resumed.
        self.run_thread_handler(index, ThreadEvent::Exit);
        CURRENT.with(|c| c.set(&OUTSIDE));
        self.compensation.spare_gone();
        // Resting before free: `start_spare` finds every free slot resting or without a
        // thread. Whatever it assigns from now is taken after the token is passed on below,
        // by this thread, in `rest`.
        let shown = worker.shown_index();
        self.spares.rest[k]
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .thread = SlotThread::Resting { shown };
        self.spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((k, Some(shown)));
        // Last: from here the claimant runs under the index (nobody, only when the pool
        // terminates).
        self.spares.tokens[shown].give_up(index, &self.spares.free_tokens, || None);
        self.after_spare_gone();
    }

    /// A spare was counted out (`Compensation::spare_gone`). A thread that blocked just
    /// before may have found the count full, this spare not yet gone, and left its token
    /// free with a share in its inbox or a job queued, for which nobody else would start
    /// one: it gets it now (DESIGN.md, section 7, "Blocking without losing a core", point
    /// 5). The Dekker pattern of the count against that thread's `free_tokens`: each side
    /// changes its own, fences, and reads the other's.
    fn after_spare_gone(&self) {
        fence(SeqCst);
        // SeqCst: as in `give_up_index`.
        if self.spares.free_tokens.load(SeqCst) == 0 {
            return;
        }
        for shown in 0..self.workers.len() {
            if !self.slot(shown).inbox.is_empty() {
                let _ = self.stand_in_if_free(shown);
            }
        }
        self.stand_in_for_published();
    }

    /// The thread of spare slot `k`, its token passed on, waits for a new stand-in
    /// (`start_spare` assigns it) for up to the keep-alive. Returns true when it has one,
    /// false when the keep-alive has run out or the pool terminates first (the slot then has
    /// no thread, decided under its lock, so `start_spare` starts a new one), or when
    /// `start_spare` has dismissed it (the slot's `generation` is no longer this thread's):
    /// this one exits.
    fn rest(&self, k: usize, generation: u64) -> bool {
        let rest = &self.spares.rest[k];
        let deadline = Instant::now() + self.spares.keep_alive();
        let mut state = rest.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if state.generation != generation {
                // Dismissed: the slot is another thread's now.
                return false;
            }
            // An assignment is taken even if the pool terminates meanwhile: it holds its
            // index's token (the stand-in then drains, as a spare started now would).
            match std::mem::replace(&mut state.thread, SlotThread::Busy) {
                SlotThread::Assigned => return true,
                other => state.thread = other,
            }
            let now = Instant::now();
            // The flag is read under the slot's lock (see `Spares::wake_resting`).
            if self.is_terminating() || now >= deadline {
                state.thread = SlotThread::NoThread;
                drop(state);
                // The hint too, if the slot is still free (after the slot's lock: the
                // other order is `start_spare`'s). Should another thread have taken the
                // slot and rested there since, the hint is wrong but harmless.
                let mut free = self
                    .spares
                    .free
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                if let Some(entry) = free.iter_mut().find(|(slot, _)| *slot == k) {
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
