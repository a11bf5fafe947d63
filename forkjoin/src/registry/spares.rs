use super::thread::{set_precise_timer, ThreadEvent};
use super::worker::Worker;
use super::worker::{CURRENT, OUTSIDE};
use super::Registry;
use crate::job::JobRef;
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicPtr, AtomicUsize};
use std::sync::{Arc, Mutex, PoisonError};

/// The slots of spare threads (see `blocking`), made on first use and kept for reuse until
/// the pool is dropped: a spare is a full worker (frames, deque, counters), too large to
/// make for every pool up front.
pub(crate) struct Spares {
    /// `slots[..made]` point to live workers; the rest are null.
    pub(super) slots: Box<[AtomicPtr<Worker>]>,
    /// Slots made so far. SeqCst: raised after the slot is stored, read before scanning.
    pub(super) made: AtomicUsize,
    /// Slots whose spare retired, free for the next one, and the spares' threads (those
    /// still running; dropped, so detached, with the registry). Starting a spare takes a
    /// thread start, far costlier than this lock.
    pub(super) free: Mutex<SpareThreads>,
}

#[derive(Default)]
pub(super) struct SpareThreads {
    free: Vec<usize>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Spares {
    pub(super) fn new(max: usize) -> Spares {
        Spares {
            slots: (0..max).map(|_| AtomicPtr::new(ptr::null_mut())).collect(),
            made: AtomicUsize::new(0),
            free: Mutex::new(SpareThreads::default()),
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        for slot in self.slots.iter() {
            let worker = slot.load(SeqCst);
            if !worker.is_null() {
                // SAFETY: made by `Box::into_raw` in `start_spare`; the registry is being
                // dropped, so no thread runs in the slot or steals from it any more.
                drop(unsafe { Box::from_raw(worker) });
            }
        }
    }
}

impl Registry {
    /// Starts a spare thread (its count was reserved by `Compensation::reserve_spare`), in a
    /// free spare slot or a new one, reporting `shown_index` as its index.
    pub(crate) fn start_spare(&self, shown_index: usize) {
        // Nothing panics while the lock is held, but a poisoned lock must not stop a pool.
        let mut threads = self
            .spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        threads.handles.retain(|h| !h.is_finished());
        let k = match threads.free.pop() {
            Some(k) => k,
            None => {
                let k = self.spares.made.load(SeqCst);
                if k == self.spares.slots.len() {
                    // Every slot is held, one of them by a spare that has retired (counted
                    // out) but not yet left it: start none, as when no thread can be started.
                    drop(threads);
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
        // Relaxed: the thread start below orders it before the spare reads it.
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
        let spawned = builder.spawn(move || me.spare_main(index));
        match spawned {
            Ok(h) => threads.handles.push(h),
            Err(_) => {
                // No thread: the blocked thread waits without compensation, as before.
                threads.free.push(k);
                self.idle.leave();
                self.compensation.spare_gone();
            }
        }
    }

    /// A spare thread's life: a worker's, until it retires (see `blocking`).
    pub(super) fn spare_main(self: Arc<Registry>, index: usize) {
        let worker = self.slot(index);
        set_precise_timer();
        CURRENT.with(|c| c.set((worker as *const Worker).cast()));
        self.idle.leave();
        self.run_thread_handler(index, ThreadEvent::Start);
        let retired = Cell::new(false);
        worker.wait_until(
            &|| {
                retired.get()
                    || self.is_terminating()
                    || (self.compensation.try_retire() && {
                        retired.set(true);
                        true
                    })
            },
            None,
        );
        if !retired.get() {
            // The pool terminates: run what is left, as the workers do (they may have
            // finished before this spare's last jobs spawned more).
            while let Some(job) = worker.find_work(None) {
                // SAFETY: on this slot's thread; the job was taken from a queue.
                unsafe { worker.execute(job) };
            }
            self.compensation.spare_gone();
        }
        // Jobs it spawned and nobody took: to the submission queues, where the others
        // find them (the slot waits for the next spare).
        // SAFETY: `pop` on the slot's own thread.
        while let Some(job) = unsafe { worker.deque.pop() } {
            self.inject(JobRef(job));
        }
        self.run_thread_handler(index, ThreadEvent::Exit);
        CURRENT.with(|c| c.set(&OUTSIDE));
        self.spares
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .free
            .push(index - self.workers.len());
    }

}
