//! `Task`: the handle of a job submitted with `Pool::submit`, job and result in one
//! allocation; also a `Future` (DESIGN.md, section 7).

use crate::job::{JobHeader, JobRef};
use crate::panic::{catch, Panic};
use crate::registry::isolation::{self, WaiterSlot};
use crate::registry::wait::Helps;
use crate::registry::{self, Registry, Worker};
use crate::sync::{fence, AtomicBool, AtomicU8, AtomicUsize, Condvar, Mutex};
use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

const NO_WAITER: usize = usize::MAX;

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
    /// The latest `Pending` poll's waker, touched only by the owner `wake_state` names.
    waker: UnsafeCell<Option<Waker>>,
    /// The pool's registry, for identity only.
    registry: usize,
    /// The task's region (no parent): its job is tagged with it, and `join` waits for it.
    region: usize,
}

impl<T> Shared<T> {
    /// The poll's side, never blocking: leaves `waker` for the job unless done; whether done.
    fn register(&self, waker: &Waker) -> bool {
        // Acquire: TAKEN pairs with the job's AcqRel CAS, after its `done` store, seen below.
        let state = self.wake_state.load(Acquire);
        // Success Relaxed: the cell was last written by a poll, never the job. Failure
        // Acquire: only TAKEN fails it, as above (an unwound poll's REGISTERING is taken over).
        if state == TAKEN
            || self
                .wake_state
                .compare_exchange(state, REGISTERING, Relaxed, Acquire)
                .is_err()
        {
            // Acquire: pairs with the job's Release store of `done`; it is true here.
            let done = self.done.load(Acquire);
            debug_assert!(done, "the waker was taken before the job was done");
            return done;
        }
        // SAFETY: REGISTERING is ours: the job waits for our WAITING store; `poll` is `&mut`.
        let slot = unsafe { &mut *self.waker.get() };
        match slot {
            // The same waker as last time (an executor re-polling): keep it, no clone.
            Some(old) if old.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
        // Release: the job's AcqRel CAS from WAITING acquires the cell's write.
        self.wake_state.store(WAITING, Release);
        // The poller's half of the Dekker pattern (the job's is in `execute`): we see `done`,
        // or the job sees this WAITING and wakes the waker just stored.
        fence(SeqCst);
        // Acquire: pairs with the job's Release store of `done`, for the result.
        self.done.load(Acquire)
    }

    /// The job's side, after its `done` store and fence: wakes the latest pending poll's waker.
    fn wake(&self) {
        // Relaxed: ordered after our `done` by `execute`'s fence (Dekker with `register`); it
        // only decides whether to take the waker, the CAS below acquires.
        if self.wake_state.load(Relaxed) != WAITING {
            // EMPTY or REGISTERING: any poll will see `done` after its fence.
            return;
        }
        // AcqRel: Acquire pairs with the poller's Release of WAITING (the waker is visible);
        // Release passes our `done` to a poll that reads TAKEN. Failure Relaxed: a poll took
        // WAITING back and will see `done` after its fence.
        if self
            .wake_state
            .compare_exchange(WAITING, TAKEN, AcqRel, Relaxed)
            .is_ok()
        {
            // SAFETY: TAKEN is final and ours: no poll touches the cell again.
            let waker = unsafe { (*self.waker.get()).take() };
            if let Some(waker) = waker {
                // The executor's code must not unwind a worker: its reported panic is dropped.
                let _ = catch(|| waker.wake());
            }
        }
    }

    /// Not done, nobody waiting; `registry` is the pool's identity, `region` the task's.
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
    /// Set by whoever runs `func`: the queued job's executor, or a joiner of the same pool
    /// (DESIGN.md, section 7); a queued job that finds it set only drops its reference.
    claimed: AtomicBool,
    func: UnsafeCell<Option<F>>,
    shared: Shared<T>,
}

// SAFETY: `func` is taken once, by the claimant; `result` written before `done` is released,
// read after it is acquired; `waker` only by the owner `wake_state` names; `Waker`: `Send + Sync`.
unsafe impl<F: Send, T: Send> Sync for TaskJob<F, T> {}
// SAFETY: as above; `F` and `T` are `Send`.
unsafe impl<F: Send, T: Send> Send for TaskJob<F, T> {}

trait Handle<T>: Send + Sync {
    fn shared(&self) -> &Shared<T>;
    /// Runs the task on `worker`, this thread's (its job's executor or a joiner of its pool),
    /// if nobody started it; whether it did.
    fn run_if_unclaimed(&self, worker: &Worker) -> bool;
}

impl<F: FnOnce() -> T + Send, T: Send> Handle<T> for TaskJob<F, T> {
    fn shared(&self) -> &Shared<T> {
        &self.shared
    }

    fn run_if_unclaimed(&self, worker: &Worker) -> bool {
        // Relaxed: only decides who runs `func`, written before the job was queued.
        if self.claimed.swap(true, Relaxed) {
            return false;
        }
        // SAFETY: claimed by us, on `worker`'s thread: nobody else takes `func` or writes `result`.
        unsafe {
            let func = (*self.func.get()).take().expect("a task executed twice");
            let region = worker.enter_region(self.shared.region, WaiterSlot::NOBODY, None);
            let result = catch(func);
            drop(region);
            let shared = &self.shared;
            *shared.result.get() = Some(result);
            // Release: `join` acquires it before reading the result.
            shared.done.store(true, Release);
            // The setter's half of the Dekker pattern with a waiter announced in `waiter` (a
            // worker), `blocked` (another thread) or `wake_state` (a poll).
            fence(SeqCst);
            if shared.blocked.load(Relaxed) {
                // The lock orders us after the waiter's check of `done`: no notify before its wait.
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
        true
    }
}

/// Makes the task and its job, each holding one reference to the allocation, and submits the
/// job to `registry`'s pool (`Pool::submit`).
pub(crate) fn submit<T, F>(func: F, registry: &Arc<Registry>) -> Task<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let region = isolation::new_region();
    let job = Arc::new(TaskJob {
        header: JobHeader {
            execute: TaskJob::<F, T>::execute,
        },
        claimed: AtomicBool::new(false),
        func: UnsafeCell::new(Some(func)),
        shared: Shared::new(Arc::as_ptr(registry) as usize, region),
    });
    let queued = Arc::into_raw(Arc::clone(&job));
    // SAFETY: `Arc::into_raw` is never null; the header is the first field (`repr(C)`).
    let job_ref = JobRef(unsafe { NonNull::new_unchecked(queued as *mut JobHeader) });
    // The task's own region: `Task::join` waits for it.
    registry::submit_job_in(registry, job_ref, region, WaiterSlot::NOBODY);
    Task { handle: job }
}

impl<F: FnOnce() -> T + Send, T: Send> TaskJob<F, T> {
    /// The header's `execute` for a submitted task.
    ///
    /// # Safety
    /// `this` came from `submit` (the queue's `Arc` reference) and is executed once.
    unsafe fn execute(this: *const JobHeader) {
        unsafe {
            // SAFETY: a job executes on a worker's thread (our contract).
            let worker = Worker::executing();
            // SAFETY: from `Arc::into_raw` in `submit`; run once, giving back the queue's reference.
            Arc::from_raw(this as *const Self).run_if_unclaimed(worker);
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
            match Worker::current_ref() {
                Some(w) if w.registry() as *const Registry as usize == shared.registry => {
                    // Not started: run it here, wherever its job lies; else wait for it.
                    if !self.handle.run_if_unclaimed(w) {
                        shared.waiter.store(w.index, Relaxed);
                        // The waiter's half: announce, fence, then look (`wait_until`).
                        fence(SeqCst);
                        // The task's region: its job (tagged with it) and what it pushes.
                        let helps = Helps::descendants_of(w, shared.region);
                        w.wait_until(&|| shared.done.load(Acquire), None, helps);
                    }
                }
                // Outside any pool, or a worker of another pool, whose pool compensates.
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
        // SAFETY: `done` was acquired (or the job ran here); this task is its only reader.
        unsafe { (*shared.result.get()).take() }
            .expect("`Task::join` after the task's result was taken by polling it to completion")
    }
}

/// Awaiting a task: see [`Task`]. The result, or the job's panic as `Err`.
impl<T> Future for Task<T> {
    type Output = Result<T, Panic>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let shared = self.handle.shared();
        // Acquire: pairs with the job's Release of `done`, for the result.
        if !shared.done.load(Acquire) && !shared.register(cx.waker()) {
            return Poll::Pending;
        }
        // SAFETY: `done` was acquired (here or in `register`); `&mut self` is its only reader.
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

#[cfg(all(test, not(loom)))]
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
        // Dropping the pool does not wait for its thread, which may still hold the waker.
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

    /// The handshake alone, without a pool (so Miri checks the waker and result cells for
    /// races): a thread completes the job as `execute` does while this one registers a waker
    /// once or twice; a `Pending` poll is woken exactly once, through its latest waker.
    #[test]
    fn registration_racing_completion_loses_no_wake_up() {
        let rounds = if cfg!(miri) { 60 } else { 20_000 };
        for round in 0..rounds {
            /// The shared part alone, shareable as `TaskJob` makes it.
            struct Job(Shared<u64>);
            // SAFETY: as `TaskJob`'s impls: the result is written once before `done`, read
            // after it; the waker cell is touched by the owner `wake_state` names only.
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
            // Wait for the wake-up or the completer's end (a lost wake-up is caught below).
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
