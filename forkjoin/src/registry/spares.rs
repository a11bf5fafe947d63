use super::compensation::StandIn;
use super::isolation::Helps;
use super::thread::{set_precise_timer, ThreadEvent};
use super::worker::Worker;
use super::worker::{CURRENT, OUTSIDE};
use super::Registry;
use crate::job::JobRef;
use std::ptr;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{fence, AtomicPtr, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// What the thread running in a slot has lent while it is inside `blocking` (see
/// `crate::blocking`), per slot: the workers' then the spares'.
pub(crate) enum Lending {
    /// Nothing: the thread is not inside `blocking`, or has taken its index back.
    Nothing,
    /// Inside `blocking` without a stand-in: a parked worker was left to take its core. Its
    /// index may still get work only a thread under that index may run (a broadcast share
    /// in its inbox): whoever queues it starts a stand-in then (`stand_in_for_waiting`).
    Waiting,
    /// Lent to the spare in slot `.1`, which stands in through the hand-over `.0`.
    To(Arc<StandIn>, usize),
}

impl Registry {
    /// The calling thread (`blocked`, its worker) is inside `blocking`, counted there:
    /// starts the spare it `reserved`, else (or if none could start) marks it `Waiting`,
    /// and if a share for its index was queued already, starts one for it now: the
    /// broadcaster looks only after its push (`stand_in_for_waiting`), and either it sees
    /// this thread waiting or this thread sees its share.
    pub(crate) fn lend_index(&self, blocked: &Worker, reserved: bool) {
        let mut lending = self.spares.lending(blocked.index);
        if reserved {
            if let Some((stand_in, slot)) = self.start_spare(blocked) {
                *lending = Lending::To(stand_in, slot);
                return;
            }
        }
        *lending = Lending::Waiting;
        self.spares.waiting.fetch_add(1, SeqCst);
        // The blocked thread's half of the Dekker pattern with the broadcaster's push,
        // fence and look at `waiting` (`stand_in_for_waiting`).
        fence(SeqCst);
        if !self.slot(blocked.shown_index()).inbox.is_empty() {
            self.stand_in_if_waiting(blocked, &mut lending);
        }
    }

    /// Shares were queued in every slot's inbox and the sleepers woken (`run_broadcast`,
    /// after its fence): each thread inside `blocking` without a stand-in gets one now, or
    /// the share for its index would wait until it returns, which may be never (it may wait
    /// for the broadcast's caller).
    pub(crate) fn stand_in_for_waiting(&self) {
        // SeqCst, after the caller's fence: see `lend_index`.
        if self.spares.waiting.load(SeqCst) == 0 {
            return;
        }
        for index in 0..self.slot_count() {
            let blocked = self.slot(index);
            let mut lending = self.spares.lending(index);
            self.stand_in_if_waiting(blocked, &mut lending);
        }
    }

    /// Starts a spare for the thread in `blocked`'s slot if it waits without one (and the
    /// bound allows it: else it stays waiting).
    fn stand_in_if_waiting(&self, blocked: &Worker, lending: &mut Lending) {
        if !matches!(lending, Lending::Waiting) || !self.compensation.reserve_spare() {
            return;
        }
        if let Some((stand_in, slot)) = self.start_spare(blocked) {
            *lending = Lending::To(stand_in, slot);
            self.spares.waiting.fetch_sub(1, SeqCst);
        }
    }

    /// The calling thread, inside `blocking`, runs pool code under its own index again (its
    /// closure has returned, or it is about to take a task: `Worker::find_work`): if a spare
    /// stands in for it, it asks for its index back and waits until the spare has finished
    /// its task and handed it back.
    pub(crate) fn take_index_back(&self, blocked: &Worker) {
        let lent = std::mem::replace(&mut *self.spares.lending(blocked.index), Lending::Nothing);
        let (stand_in, slot) = match lent {
            Lending::Nothing => return,
            Lending::Waiting => {
                self.spares.waiting.fetch_sub(1, SeqCst);
                return;
            }
            Lending::To(stand_in, slot) => (stand_in, slot),
        };
        stand_in.ask_back();
        // The fence pairs with the parking spare's (`StandIn::ask_back`).
        self.sleep.fence_and_wake(slot);
        stand_in.wait_until_handed_back();
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
    /// spare's blocked thread waits for its hand-back instead, and dropping the pool waits
    /// for no thread).
    pub(super) free: Mutex<Vec<(usize, Option<usize>)>>,
    /// Per slot: its thread's state, which decides between a resting thread and
    /// `start_spare` (see `SlotThread`).
    rest: Box<[Rest]>,
    /// Per slot, the workers' then the spares': what its thread lent inside `blocking`.
    /// Taken before `free` and a slot's `rest` (`stand_in_if_waiting` starts a spare under
    /// it), never while waiting for a hand-back.
    lending: Box<[Mutex<Lending>]>,
    /// How many slots are `Lending::Waiting`: a broadcast with none looks no further.
    /// SeqCst: the Dekker pattern of `lend_index` and `stand_in_for_waiting`.
    pub(super) waiting: AtomicUsize,
    /// The keep-alive, in nanoseconds, shortened by unit tests.
    #[cfg(test)]
    pub(super) keep_alive_nanos: std::sync::atomic::AtomicU64,
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
    /// A new stand-in for the resting thread, not yet taken: the blocked thread's hand-over
    /// (`start_spare` has set the slot's `shown_index` to the blocked thread's index).
    Assigned(Arc<StandIn>),
}

impl Spares {
    pub(super) fn new(workers: usize, max: usize) -> Spares {
        Spares {
            lending: (0..workers + max)
                .map(|_| Mutex::new(Lending::Nothing))
                .collect(),
            waiting: AtomicUsize::new(0),
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
            keep_alive_nanos: std::sync::atomic::AtomicU64::new(SPARE_KEEP_ALIVE.as_nanos() as u64),
            #[cfg(test)]
            threads_started: AtomicUsize::new(0),
            #[cfg(test)]
            threads_exited: AtomicUsize::new(0),
        }
    }

    pub(super) fn lending(&self, slot: usize) -> MutexGuard<'_, Lending> {
        // Nothing panics while the lock is held, but a poisoned lock must not stop a pool.
        self.lending[slot]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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
    /// spare slot or a new one, standing in for the thread in `blocked`'s slot (the caller
    /// of `blocking`, or one waiting there without a spare: `stand_in_for_waiting`) under its
    /// shown index until it asks for it back (`take_index_back`): the slot's
    /// resting thread if it has one (no thread start), else a new thread. If no slot or
    /// thread can be had, the spare is counted out again and the caller blocks without one.
    /// Returns the hand-over and the spare's slot, for the blocked thread's `Lending`.
    pub(crate) fn start_spare(&self, blocked: &Worker) -> Option<(Arc<StandIn>, usize)> {
        let shown_index = blocked.shown_index();
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
                self.sleep.activate(self.workers.len() + k);
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
        let stand_in = Arc::new(StandIn::new());
        match state.thread {
            SlotThread::Resting { shown } if shown == shown_index => {
                state.thread = SlotThread::Assigned(Arc::clone(&stand_in));
                rest.wake.notify_all();
                drop(state);
                drop(free);
                return Some((stand_in, index));
            }
            SlotThread::Resting { .. } => {
                // Dismissed: it leaves on its next look (`rest`), touching nothing, and a
                // new thread takes the slot.
                state.generation += 1;
                rest.wake.notify_all();
            }
            SlotThread::NoThread => {}
            // A freed slot's thread rests there or has exited.
            SlotThread::Busy | SlotThread::Assigned(..) => {
                unreachable!("a free spare slot whose thread stands in")
            }
        }
        // From the worker's pointer to its registry, which covers the whole `Arc`
        // allocation (a `&Registry` covers only the registry: Miri's Stacked Borrows rejects
        // reaching the counts through it).
        let me = blocked.registry_arc();
        let mut builder = std::thread::Builder::new().name(format!("forkjoin-spare-{k}"));
        if self.config.stack_size > 0 {
            builder = builder.stack_size(self.config.stack_size);
        }
        let spare_side = Arc::clone(&stand_in);
        let generation = state.generation;
        // Busy before the thread runs: it marks the slot resting at the end of its stand-in,
        // which must not be overwritten. The slot's lock is held across the start.
        state.thread = SlotThread::Busy;
        // Detached: the blocked thread waits for the hand-back, not for the thread.
        match builder.spawn(move || me.spare_main(k, generation, spare_side)) {
            Ok(_) => Some((stand_in, index)),
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
    /// (`first`, then those `start_spare` assigns), each under the index of the blocked
    /// thread it stands in for, always the same, with rests in between (`rest`), until a
    /// rest runs out of keep-alive, the thread is dismissed, or the pool terminates.
    fn spare_main(self: Arc<Registry>, k: usize, generation: u64, first: Arc<StandIn>) {
        set_precise_timer();
        // Relaxed: a count the tests read after the blocks they wait for (whose hand-backs
        // order it) or poll; nothing is published through it.
        #[cfg(test)]
        self.spares.threads_started.fetch_add(1, Relaxed);
        let mut stand_in = first;
        loop {
            self.stand_in(k, &stand_in);
            match self.rest(k, generation) {
                Some(next) => stand_in = next,
                None => break,
            }
        }
        // Relaxed: as `threads_started`.
        #[cfg(test)]
        self.spares.threads_exited.fetch_add(1, Relaxed);
        // Last: dropping the registry, which may free it (and the slot).
    }

    /// One stand-in of the thread of spare slot `k`: a worker's life, under the index of the
    /// blocked thread it stands in for (`shown_index`), until that thread asks for its index
    /// back (see `blocking`). Ends with the slot marked resting and freed, and the index
    /// handed back.
    fn stand_in(&self, k: usize, stand_in: &StandIn) {
        let index = self.workers.len() + k;
        let worker = self.slot(index);
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle.leave();
        self.run_thread_handler(index, ThreadEvent::Start);
        // Between tasks only: asked while running one, it finishes it first.
        worker.wait_until(
            &|| stand_in.asked_back() || self.is_terminating(),
            None,
            Helps::Anything,
        );
        if !stand_in.asked_back() {
            // The pool terminates while the blocked thread is still away: run what is left,
            // as the workers do (they may have finished before this spare's last jobs
            // spawned more), until asked back (then the thread, alive, drains instead).
            while !stand_in.asked_back() {
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
        // thread. Whatever it assigns from now is taken after the hand-back below, by this
        // thread, in `rest`.
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
        // Last: from here the blocked thread runs under the index again.
        stand_in.hand_back();
    }

    /// The thread of spare slot `k`, its index handed back, waits for a new stand-in
    /// (`start_spare` assigns it) for up to the keep-alive. Returns it, or `None` when the
    /// keep-alive has run out or the pool terminates first (the slot then has no thread,
    /// decided under its lock, so `start_spare` starts a new one), or when `start_spare` has
    /// dismissed it (the slot's `generation` is no longer this thread's): this one exits.
    fn rest(&self, k: usize, generation: u64) -> Option<Arc<StandIn>> {
        let rest = &self.spares.rest[k];
        let deadline = Instant::now() + self.spares.keep_alive();
        let mut state = rest.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if state.generation != generation {
                // Dismissed: the slot is another thread's now.
                return None;
            }
            // An assignment is taken even if the pool terminates meanwhile: its blocked
            // thread counts on it (the stand-in then drains, as a spare started now would).
            match std::mem::replace(&mut state.thread, SlotThread::Busy) {
                SlotThread::Assigned(stand_in) => return Some(stand_in),
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
                return None;
            }
            state = rest
                .wake
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
