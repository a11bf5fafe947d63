//! `Task`: the handle of a job submitted with `Pool::submit` (the JDK pool's
//! external submission). The job and its result share one allocation, and joining a finished task
//! takes no lock.
//!
//! A `Task` is also a `Future`, for async code that must not block its executor's thread.
//! The waker handshake (`Shared::register` on the polling side, `Shared::wake` on the job's)
//! is a small state machine in `wake_state` that says who owns the waker cell:
//!
//! ```text
//!   EMPTY ──poll──▶ REGISTERING ──poll──▶ WAITING ──job──▶ TAKEN (final)
//!                        ▲                   │
//!                        └───────poll────────┘
//! ```
//!
//! The poller (one at a time: `poll` takes `&mut Task`) moves EMPTY or WAITING to
//! REGISTERING by CAS, writes the cell, stores WAITING, and then, after a SeqCst fence, looks
//! at `done` once more. The job stores `done`, fences (the fence `join`'s handshake already
//! has) and, only if it then sees WAITING, takes the cell by CAS to TAKEN and wakes what it
//! holds. The two fences make this Dekker's pattern on (`wake_state`, `done`): either the
//! job sees the poller's last WAITING (and wakes that waker), or the poller sees `done`
//! (and returns `Ready` itself), so no wake-up is lost. A job that finds REGISTERING is in
//! the second case. A task nobody polls pays one relaxed load.

use crate::job::{JobHeader, JobRef};
use crate::panic::{catch, Panic};
use crate::registry::isolation::{self, NO_OWNER, NO_PARENT};
use crate::registry::wait::Helps;
use crate::registry::{Registry, Worker};
use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{fence, AtomicBool, AtomicU8, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};

const NO_WAITER: usize = usize::MAX;

// The states of `Shared::wake_state` (see the module's doc).
/// No waker stored: the task was never polled while pending.
const EMPTY: u8 = 0;
/// A poll owns the waker cell and is writing it.
const REGISTERING: u8 = 1;
/// The cell holds the latest poll's waker; whoever moves the state away from WAITING owns it.
const WAITING: u8 = 2;
/// The job took the waker to wake it; the cell is the job's and the state never changes again.
const TAKEN: u8 = 3;

/// What the handle sees of a submitted job, whatever its closure type.
struct Shared<T> {
    /// Set (Release) once `result` is written.
    done: AtomicBool,
    /// Written once by the job before `done`; read by `join` after `done` (Acquire).
    result: UnsafeCell<Option<Result<T, Panic>>>,
    /// The index of a worker of the task's pool waiting in `join`, or `NO_WAITER`.
    waiter: AtomicUsize,
    /// A thread outside the pool is blocked (or about to block) on `condvar`.
    blocked: AtomicBool,
    lock: Mutex<()>,
    condvar: Condvar,
    /// Who owns `waker`: `EMPTY`, `REGISTERING`, `WAITING` or `TAKEN`.
    wake_state: AtomicU8,
    /// The waker of the latest poll that returned `Pending`. Touched only by the owner that
    /// `wake_state` names: the poller from EMPTY/WAITING to its store of WAITING, the job
    /// after its CAS from WAITING to TAKEN.
    waker: UnsafeCell<Option<Waker>>,
    /// The pool's registry, for identity only.
    registry: usize,
    /// The task's region (`registry/isolation.rs`): its job is tagged with it, and `join`
    /// waits for it. It starts a tree of its own (no parent).
    region: usize,
}

impl<T> Shared<T> {
    /// The polling side of the waker handshake: leaves `waker` for the job to wake, unless
    /// the job is done. Returns whether it is (then `done` has been acquired and the result
    /// can be read). Never blocks: the CAS fails only if the job took the cell.
    fn register(&self, waker: &Waker) -> bool {
        // Acquire: if this reads TAKEN, it pairs with the job's AcqRel CAS to TAKEN, which
        // comes after its store of `done`, so the `done` load below sees it.
        let state = self.wake_state.load(Acquire);
        // Success ordering Relaxed: from EMPTY or WAITING the cell was last written by a poll
        // (ours, or one on a thread that handed us the task, which synchronised), never by
        // the job, so there is nothing to acquire. Failure ordering Acquire: the only value
        // that can make it fail is TAKEN, acquired as above. (A REGISTERING left by a poll
        // that unwound while cloning or dropping a waker is simply taken over.)
        if state == TAKEN
            || self
                .wake_state
                .compare_exchange(state, REGISTERING, Relaxed, Acquire)
                .is_err()
        {
            // Acquire: pairs with the job's Release store of `done` (also reached through
            // TAKEN, above); it is true here.
            let done = self.done.load(Acquire);
            debug_assert!(done, "the waker was taken before the job was done");
            return done;
        }
        // SAFETY: REGISTERING is ours: the job touches the cell only after moving the state
        // from WAITING to TAKEN, which it cannot do until we store WAITING below, and no other
        // poll runs (`poll` takes `&mut Task`).
        let slot = unsafe { &mut *self.waker.get() };
        match slot {
            // The same waker as last time (the common case: an executor re-polling its own
            // task): keep it rather than clone it.
            Some(old) if old.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
        // Release: the job's AcqRel CAS from WAITING acquires it, so the write of the cell
        // above happens before the job takes the waker out.
        self.wake_state.store(WAITING, Release);
        // The poller's half of the Dekker pattern (the job's is in `execute`): announce
        // (WAITING), fence, then look at `done`. If the job's fence came first in the SeqCst
        // order, we see `done` here; otherwise the job's load of `wake_state` sees this
        // WAITING (or a later value) and wakes the waker we just stored.
        fence(SeqCst);
        // Acquire: pairs with the job's Release store of `done`, for the result.
        self.done.load(Acquire)
    }

    /// The job's side of the handshake, after it stored `done` and fenced: wakes the waker of
    /// the latest pending poll, if any. Costs one relaxed load when nobody polled.
    fn wake(&self) {
        // Relaxed: ordered after our store of `done` by the SeqCst fence in `execute`, which
        // pairs with the poller's fence in `register` (see there); this load only decides
        // whether there is a waker to take, the CAS below does the acquiring.
        if self.wake_state.load(Relaxed) != WAITING {
            // EMPTY: nobody polled, or the poll will see `done`. REGISTERING: a poll is
            // replacing the waker and will see `done` after its fence (our fence preceded
            // its fence in the SeqCst order, or we would have read its WAITING).
            return;
        }
        // AcqRel: Acquire pairs with the poller's Release store of WAITING (the waker written
        // into the cell is visible); Release makes our earlier store of `done` visible to a
        // poll that reads TAKEN. Failure (Relaxed, nothing read): a poll moved WAITING to
        // REGISTERING after our load and will see `done` after its fence, as above.
        if self
            .wake_state
            .compare_exchange(WAITING, TAKEN, AcqRel, Relaxed)
            .is_ok()
        {
            // SAFETY: TAKEN is final and ours: no poll touches the cell again.
            let waker = unsafe { (*self.waker.get()).take() };
            if let Some(waker) = waker {
                // The waker is the executor's code, run on a worker: if it panics, the panic
                // must not unwind through the worker (jobs never unwind). The panic hook has
                // reported it already and the result is delivered, so it is dropped here.
                let _ = catch(|| waker.wake());
            }
        }
    }
}

impl<T> Shared<T> {
    /// Not done, no result, nobody waiting, no waker; `registry` is the pool's identity,
    /// `region` the task's.
    fn new(registry: usize, region: usize) -> Self {
        Shared {
            done: AtomicBool::new(false),
            result: UnsafeCell::new(None),
            waiter: AtomicUsize::new(NO_WAITER),
            blocked: AtomicBool::new(false),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
            wake_state: AtomicU8::new(EMPTY),
            waker: UnsafeCell::new(None),
            registry,
            region,
        }
    }
}

/// The job: its header first (it is queued as a `JobHeader`), the closure, the shared part.
#[repr(C)]
struct TaskJob<F, T> {
    header: JobHeader,
    /// Set by whoever runs `func`: the thread that executes the queued job, or a joiner of
    /// the same pool that finds the job not started (the JDK's `tryRemoveAndExec`: the job
    /// may lie under others on a deque, where no wait can reach it). The queued job that
    /// finds it set only gives back the queue's reference.
    claimed: AtomicBool,
    func: UnsafeCell<Option<F>>,
    shared: Shared<T>,
}

// SAFETY: `func` is taken once, by the single thread that claims the job; `result` is
// written once before `done` is released and read only after it is acquired; `waker` is
// touched only by the owner that `wake_state` names (see `Shared::register`), and `Waker` is
// `Send + Sync`.
unsafe impl<F: Send, T: Send> Sync for TaskJob<F, T> {}
// SAFETY: as above; `F` and `T` are `Send`.
unsafe impl<F: Send, T: Send> Send for TaskJob<F, T> {}

trait Handle<T>: Send + Sync {
    fn shared(&self) -> &Shared<T>;
    /// Runs the task on `worker` (a worker of its pool joining it) if nobody has started it;
    /// whether it did.
    fn run_if_unclaimed(&self, worker: &Worker) -> bool;
}

impl<F: FnOnce() -> T + Send, T: Send> Handle<T> for TaskJob<F, T> {
    fn shared(&self) -> &Shared<T> {
        &self.shared
    }

    fn run_if_unclaimed(&self, worker: &Worker) -> bool {
        // Relaxed: the claim only decides who takes `func`; `func` was written before the
        // job was shared, which the joiner's handle (made with it) already saw.
        if self.claimed.swap(true, Relaxed) {
            return false;
        }
        // SAFETY: claimed by us, on the calling worker's thread.
        unsafe { self.run(worker) };
        true
    }
}

/// Makes the task and its job. The job holds one reference to the allocation, the task
/// the other.
pub(crate) fn new<T, F>(func: F, registry: &Arc<Registry>) -> (Task<T>, JobRef)
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let job = Arc::new(TaskJob {
        header: JobHeader {
            execute: TaskJob::<F, T>::execute,
        },
        claimed: AtomicBool::new(false),
        func: UnsafeCell::new(Some(func)),
        shared: Shared::new(Arc::as_ptr(registry) as usize, isolation::new_region()),
    });
    let queued = Arc::into_raw(Arc::clone(&job));
    // SAFETY: `Arc::into_raw` is never null; the header is the first field (`repr(C)`).
    let job_ref = JobRef(unsafe { NonNull::new_unchecked(queued as *mut JobHeader) });
    (Task { handle: job }, job_ref)
}

impl<F: FnOnce() -> T + Send, T: Send> TaskJob<F, T> {
    /// The header's `execute` for a submitted task.
    ///
    /// # Safety
    /// `this` came from `new` (the queue's `Arc` reference) and is executed once.
    unsafe fn execute(this: *const JobHeader) {
        unsafe {
            // SAFETY: a job executes on a worker's thread (our contract).
            let worker = Worker::executing();
            // SAFETY: made by `new` from `Arc::into_raw`; executed once, which gives back the
            // queue's reference.
            let job = Arc::from_raw(this as *const Self);
            // Relaxed: as in `run_if_unclaimed`.
            if !job.claimed.swap(true, Relaxed) {
                job.run(worker);
            }
        }
    }

    /// Runs `func` on `worker` and delivers the result.
    ///
    /// # Safety
    /// The caller claimed the job (`claimed`), on `worker`'s thread.
    unsafe fn run(&self, worker: &Worker) {
        // SAFETY: claimed by the caller (our contract), so no other thread takes `func` or
        // writes `result`; `worker` is this thread's.
        unsafe {
            let func = (*self.func.get()).take().expect("a task executed twice");
            let region = worker.enter_region(self.shared.region, NO_OWNER, NO_PARENT);
            let result = catch(func);
            drop(region);
            let shared = &self.shared;
            *shared.result.get() = Some(result);
            // Release: `join` acquires it before reading the result.
            shared.done.store(true, Release);
            // The setter's half of the Dekker pattern with a waiter that announces itself in
            // `waiter` (a worker), `blocked` (another thread) or `wake_state` (a poll) and then
            // checks `done`.
            fence(SeqCst);
            if shared.blocked.load(Relaxed) {
                // Taking the lock orders us after the waiter's check of `done`, so the notify
                // cannot fall before its wait.
                let _guard = shared.lock.lock().unwrap();
                shared.condvar.notify_all();
            }
            let waiter = shared.waiter.load(Relaxed);
            if waiter != NO_WAITER {
                worker.registry().idle.published_for(waiter);
            }
            // A poll's waker, if one is waiting (after the fence above); one relaxed load if not.
            shared.wake();
        }
    }
}

/// A job submitted with [`Pool::submit`](crate::Pool::submit): wait for its result with
/// [`join`](Task::join), or `.await` it.
///
/// A `Task<T>` is a [`Future`] with output `Result<T, Panic>` (and [`Unpin`]), so async code
/// can wait for pool work without blocking its executor's threads. A poll never blocks and
/// never runs pool work on the polling thread: if the job is not done it keeps the poll's
/// waker (only the latest one: a poll with another waker replaces it), and the worker that
/// finishes the job wakes it. The job runs whether or not the task is ever polled or
/// joined; dropping the task drops the result. Polling again after `Ready` was returned
/// panics, as std's futures do, and so does `join` then: the result was taken.
///
/// ```
/// use forkjoin::prelude::*;
///
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let (sum, fib) = runtime.block_on(async {
///     let sum = pool.submit(|| (1..=1000u64).into_par_iter().sum::<u64>());
///     let fib = pool.submit(|| {
///         fn fib(n: u64) -> u64 {
///             if n < 2 { return n; }
///             let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
///             a + b
///         }
///         fib(20)
///     });
///     (sum.await.unwrap(), fib.await.unwrap())
/// });
/// assert_eq!((sum, fib), (500_500, 6765));
/// ```
pub struct Task<T> {
    handle: Arc<dyn Handle<T>>,
}

impl<T> Task<T> {
    /// The task's region, which its job is submitted with (`registry/isolation.rs`).
    pub(crate) fn region(&self) -> usize {
        self.handle.shared().region
    }

    /// Whether the job has finished (its result is ready).
    pub fn is_done(&self) -> bool {
        // Acquire: pairs with the job's Release.
        self.handle.shared().done.load(Acquire)
    }

    /// Waits for the job and returns its result, or its panic. A worker of the same pool
    /// runs other work while it waits; any other thread blocks without spinning (a worker
    /// of another pool inside [`blocking`](crate::blocking), so that its pool keeps its
    /// threads running).
    pub fn join(self) -> Result<T, Panic> {
        let shared = self.handle.shared();
        if !self.is_done() {
            let current = Worker::current();
            // SAFETY: this thread's worker, if any.
            let worker = (!current.is_null()).then(|| unsafe { &*current });
            match worker {
                Some(w) if w.registry() as *const Registry as usize == shared.registry => {
                    // Not started: run it here, wherever its job lies.
                    if self.handle.run_if_unclaimed(w) {
                        return self.take_result();
                    }
                    shared.waiter.store(w.index, Relaxed);
                    // The waiter's half: announce, fence, then look (in `wait_until`, and
                    // again under the sleep protocol's own fence before parking).
                    fence(SeqCst);
                    // The task's region: its job (tagged with it) and what it pushes.
                    let helps = Helps::descendants_of(w, shared.region);
                    w.wait_until(&|| shared.done.load(Acquire), None, helps);
                }
                // A thread outside any pool, or a worker of another pool: that worker's
                // pool compensates while it waits (`blocking`; outside, it just runs).
                _ => crate::blocking(|| {
                    let mut guard = shared.lock.lock().unwrap();
                    shared.blocked.store(true, Relaxed);
                    fence(SeqCst);
                    while !shared.done.load(Acquire) {
                        guard = shared.condvar.wait(guard).unwrap();
                    }
                }),
            }
        }
        self.take_result()
    }

    /// The result, once `done` was acquired (or the task ran on this thread).
    fn take_result(&self) -> Result<T, Panic> {
        // SAFETY: `done` was acquired (or the job ran on this thread), so the job's write of
        // the result is visible and no one writes it again; this task is the only reader
        // (`join` consumes it, `poll` borrows it mutably).
        unsafe { (*self.handle.shared().result.get()).take() }
            .expect("`Task::join` after the task's result was taken by polling it to completion")
    }
}

/// Awaiting a task: see [`Task`]. The result, or the job's panic as `Err`.
impl<T> Future for Task<T> {
    type Output = Result<T, Panic>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let shared = self.handle.shared();
        // Acquire: pairs with the job's Release store of `done`, for the result. (A done task
        // needs no waker: `register` is skipped.)
        if !shared.done.load(Acquire) && !shared.register(cx.waker()) {
            return Poll::Pending;
        }
        // SAFETY: `done` was acquired (here or in `register`), so the job's write of the
        // result is visible and no one writes it again; `&mut self` excludes any other reader.
        match unsafe { (*shared.result.get()).take() } {
            Some(result) => Poll::Ready(result),
            None => panic!("`Task` polled after completion"),
        }
    }
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("done", &self.is_done())
            .finish()
    }
}

/// The integration tests' counting wakers.
#[cfg(test)]
#[path = "../tests/common/waker.rs"]
mod test_waker;

#[cfg(test)]
mod tests {
    use super::test_waker::{counter, poll, wakes};
    use super::*;
    use std::sync::mpsc;

    /// Re-polling with the same waker keeps the stored one (no clone); another waker replaces
    /// it; the job takes and wakes the latest one, then drops it.
    #[test]
    fn the_latest_waker_is_kept_and_woken() {
        let pool = crate::Pool::new(1).unwrap();
        let (go, wait) = mpsc::channel::<()>();
        let mut task = pool.submit(move || {
            wait.recv().unwrap();
            7u32
        });
        let (first, first_waker) = counter();
        assert!(poll(&mut task, &first_waker).is_pending());
        assert!(poll(&mut task, &first_waker).is_pending());
        // Ours, our waker's and the stored one: the second poll did not clone.
        assert_eq!(Arc::strong_count(&first), 3);
        let (second, second_waker) = counter();
        assert!(poll(&mut task, &second_waker).is_pending());
        assert_eq!(
            Arc::strong_count(&first),
            2,
            "the replaced waker is dropped"
        );
        assert_eq!(Arc::strong_count(&second), 3);
        assert_eq!(task.handle.shared().wake_state.load(SeqCst), WAITING);

        go.send(()).unwrap();
        while wakes(&second) == 0 {
            std::thread::yield_now();
        }
        assert_eq!(task.handle.shared().wake_state.load(SeqCst), TAKEN);
        assert!(task.is_done());
        let (third, third_waker) = counter();
        assert!(matches!(poll(&mut task, &third_waker), Poll::Ready(Ok(7))));
        // Dropping the pool does not wait for its thread, which may still hold the waker
        // it is waking by value: wait for that.
        drop(pool);
        while Arc::strong_count(&second) > 2 {
            std::thread::yield_now();
        }
        assert_eq!((wakes(&first), wakes(&second), wakes(&third)), (0, 1, 0));
        // The job woke the waker by value: only ours and our waker remain.
        assert_eq!(Arc::strong_count(&second), 2);
        assert_eq!(Arc::strong_count(&third), 2, "a done task keeps no waker");
    }

    /// A task never polled while pending stores no waker; its job pays one load.
    #[test]
    fn a_task_polled_only_when_done_stores_no_waker() {
        let pool = crate::Pool::new(1).unwrap();
        let mut task = pool.submit(|| 5u8);
        while !task.is_done() {
            std::thread::yield_now();
        }
        let (count, waker) = counter();
        assert!(matches!(poll(&mut task, &waker), Poll::Ready(Ok(5))));
        assert_eq!(task.handle.shared().wake_state.load(SeqCst), EMPTY);
        assert_eq!((wakes(&count), Arc::strong_count(&count)), (0, 2));
    }

    /// The handshake alone, without a pool (so that Miri can check it for data races on the
    /// waker and result cells): a thread completes the job as `execute` does while this one
    /// registers a waker, once or twice. A poll that returns `Pending` is woken exactly
    /// once, through the waker it registered last.
    #[test]
    fn registration_racing_completion_loses_no_wake_up() {
        let rounds = if cfg!(miri) { 60 } else { 20_000 };
        for round in 0..rounds {
            /// The shared part alone, shareable as `TaskJob` makes it.
            struct Job(Shared<u64>);
            // SAFETY: the test follows the protocol of `TaskJob`'s impls: the result is
            // written once before `done` and read after it, the waker cell is touched by the
            // owner `wake_state` names only.
            unsafe impl Sync for Job {}
            let job = Arc::new(Job(Shared::new(0, 1)));
            let completer = {
                let job = Arc::clone(&job);
                std::thread::spawn(move || {
                    let shared = &job.0;
                    for _ in 0..round % 8 {
                        std::hint::spin_loop();
                    }
                    // SAFETY: the only write of the result, before `done` (as `execute`).
                    unsafe { *shared.result.get() = Some(Ok(round)) };
                    shared.done.store(true, Release);
                    fence(SeqCst);
                    shared.wake();
                })
            };
            let shared = &job.0;
            let (first, first_waker) = counter();
            let (second, second_waker) = counter();
            let mut pending = !shared.register(&first_waker);
            let mut latest = &first;
            if pending && round % 2 == 1 {
                pending = !shared.register(&second_waker);
                latest = &second;
            }
            // Wait for the wake-up, or for the completer to be gone without it (a lost
            // wake-up, caught below instead of hanging here).
            while pending && wakes(latest) == 0 && !completer.is_finished() {
                std::thread::yield_now();
            }
            if pending && wakes(latest) > 0 {
                // Acquire: the wake-up came after `done` (and the SeqCst count publishes it).
                assert!(
                    shared.done.load(Acquire),
                    "round {round}: woken before done"
                );
            }
            completer.join().unwrap();
            // SAFETY: the completer has finished.
            let result = unsafe { (*shared.result.get()).take() };
            assert!(matches!(result, Some(Ok(v)) if v == round));
            let total = wakes(&first) + wakes(&second);
            if pending {
                assert_eq!(
                    (wakes(latest), total),
                    (1, 1),
                    "round {round}: lost or stale wake-up"
                );
            } else {
                // Found done: the job may still have woken the waker it found.
                assert!(total <= 1, "round {round}");
            }
        }
    }
}
