use super::compensation::StandIn;
use super::thread::{set_precise_timer, ThreadEvent};
use super::worker::Worker;
use super::worker::{CURRENT, OUTSIDE};
use super::Registry;
use crate::job::JobRef;
use std::cell::RefCell;
use std::ptr;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicPtr, AtomicUsize};
use std::sync::{Arc, Mutex, PoisonError};

thread_local! {
    /// The spare standing in for this thread, which is inside `blocking`, and the spare's
    /// slot: set when `blocking` starts one, taken when the thread takes its index back.
    static STAND_IN: RefCell<Option<(Arc<StandIn>, usize)>> = const { RefCell::new(None) };
}

impl Registry {
    /// The calling thread, inside `blocking`, runs pool code under its own index again (its
    /// closure has returned, or it is about to take a task: `Worker::find_work`): if a spare
    /// stands in for it, it asks for its index back and waits until the spare has finished
    /// its task and handed it back.
    pub(crate) fn take_index_back(&self) {
        let Some((stand_in, slot)) = STAND_IN.with(|s| s.borrow_mut().take()) else {
            return;
        };
        stand_in.ask_back();
        // The fence pairs with the parking spare's (`StandIn::ask_back`).
        self.sleep.fence_and_wake(slot);
        stand_in.wait_until_handed_back();
    }
}

/// The slots of spare threads (see `blocking`), made on first use and kept for reuse until
/// the pool is dropped: a spare is a full worker (frames, deque, counters), too large to
/// make for every pool up front. A spare's thread lives for one stand-in (one index); the
/// next spare reuses its slot with a thread of its own.
pub(crate) struct Spares {
    /// `slots[..made]` point to live workers; the rest are null.
    pub(super) slots: Box<[AtomicPtr<Worker>]>,
    /// Slots made so far. SeqCst: raised after the slot is stored, read before scanning.
    pub(super) made: AtomicUsize,
    /// Slots whose spare has ended, free for the next one. Starting a spare takes a thread
    /// start, far costlier than this lock. The threads are not kept: nobody joins them (a
    /// spare's blocked thread waits for its hand-back instead, and dropping the pool waits
    /// for no thread).
    pub(super) free: Mutex<Vec<usize>>,
}

impl Spares {
    pub(super) fn new(max: usize) -> Spares {
        Spares {
            slots: (0..max).map(|_| AtomicPtr::new(ptr::null_mut())).collect(),
            made: AtomicUsize::new(0),
            free: Mutex::new(Vec::new()),
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        for slot in self.slots.iter() {
            let worker = slot.load(SeqCst);
            if !worker.is_null() {
                // SAFETY: made by `Box::into_raw` in `start_spare`; the registry is being
                // dropped, so no thread runs in the slot or steals from it any more (each
                // spare thread holds the registry until it has left its slot).
                drop(unsafe { Box::from_raw(worker) });
            }
        }
    }
}

impl Registry {
    /// Starts a spare thread (its count was reserved by `Compensation::reserve_spare`) in a
    /// free spare slot or a new one, standing in for the calling thread, which is blocked
    /// and whose index is `shown_index`, until it asks for it back (`take_index_back`). If
    /// no slot or thread can be had, the spare is counted out again and the caller blocks
    /// without one.
    pub(crate) fn start_spare(&self, shown_index: usize) {
        // Nothing panics while the lock is held, but a poisoned lock must not stop a pool.
        let mut free = self
            .spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let k = match free.pop() {
            Some(k) => k,
            None => {
                let k = self.spares.made.load(SeqCst);
                if k == self.spares.slots.len() {
                    // Every slot is held, one of them by a spare that has handed its index
                    // back (counted out) but not yet left its slot: start none, as when no
                    // thread can be started.
                    drop(free);
                    self.compensation.spare_gone();
                    return;
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
        // Relaxed: the thread start below orders it before the spare reads it, and the spare
        // hands work to others only after that.
        worker.shown_index.store(shown_index, Relaxed);
        // The spare counts as idle (searching) from now, as a worker does from the pool's
        // start: a job published before its thread runs sees it and need not wake anyone.
        self.idle.enter();
        // SAFETY: `self` is inside an `Arc<Registry>`: the calling thread runs one of its
        // workers, and worker threads each hold an `Arc`.
        let me = unsafe {
            Arc::increment_strong_count(self);
            Arc::from_raw(self)
        };
        let mut builder = std::thread::Builder::new().name(format!("forkjoin-spare-{k}"));
        if self.config.stack_size > 0 {
            builder = builder.stack_size(self.config.stack_size);
        }
        let stand_in = Arc::new(StandIn::new());
        let spare_side = Arc::clone(&stand_in);
        // Detached: the blocked thread waits for the hand-back, not for the thread.
        match builder.spawn(move || me.spare_main(index, &spare_side)) {
            Ok(_) => STAND_IN.with(|s| *s.borrow_mut() = Some((stand_in, index))),
            Err(_) => {
                // No thread: the blocked thread waits without compensation, as before.
                free.push(k);
                self.idle.leave();
                self.compensation.spare_gone();
            }
        }
    }

    /// A spare thread's life: a worker's, under the index of the blocked thread it stands
    /// in for, until that thread asks for its index back (see `blocking`).
    pub(super) fn spare_main(self: Arc<Registry>, index: usize, stand_in: &StandIn) {
        let worker = self.slot(index);
        set_precise_timer();
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle.leave();
        self.run_thread_handler(index, ThreadEvent::Start);
        // Between tasks only: asked while running one, it finishes it first.
        worker.wait_until(&|| stand_in.asked_back() || self.is_terminating(), None);
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
        // find them (the slot waits for the next spare).
        // SAFETY: `pop` on the slot's own thread.
        while let Some(job) = unsafe { worker.deque.pop() } {
            self.inject(JobRef(job));
        }
        // Under the index still: the blocked thread has not resumed.
        self.run_thread_handler(index, ThreadEvent::Exit);
        CURRENT.with(|c| c.set(&OUTSIDE));
        self.compensation.spare_gone();
        self.spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(index - self.workers.len());
        // Last: from here the blocked thread runs under the index again.
        stand_in.hand_back();
    }
}
