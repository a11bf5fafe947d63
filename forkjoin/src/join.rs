//! `join`: fork two closures, potentially in parallel. The second is recorded in a frame on
//! the worker's stack, promoted onto the deque only when an idle worker asks (DESIGN.md,
//! sections 2 and 4).

use crate::job::FrameHead;
use crate::job::{JobHeader, JobRef};
use crate::latch::CoreLatch;
use crate::panic::{catch, Panic};
use crate::profile_hooks;
use crate::registry::isolation::WaiterSlot;
use crate::registry::wait::Helps;
use crate::registry::{self, JoinState, Worker, FRAMES, PRIVATE_FRAMES, SHARE_REQUEST};
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::{self, ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;
use std::sync::atomic::Ordering::Relaxed;

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// Inside a pool it uses that pool; outside any pool it uses the global pool (one worker per
/// core, created on first use). If either closure panics, the panic is re-raised here after
/// both have finished (the other one's result is dropped; if both panic, `a`'s is raised).
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (x, y) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
///     x + y
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[inline(always)]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Decided at compile time: the branch folds away in each instance.
    if mem::size_of::<A>() + mem::size_of::<B>() > SMALL_CLOSURES {
        return join_large(a, b);
    }
    join_small(a, b)
}

/// What a closure run by [`join_context`] learns about where it runs (rayon's `FnContext`).
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on another thread than the one that called
    /// `join_context`: the second closure when a thief took it, the first when
    /// `join_context` was called from outside the pool and handed to a worker.
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// `join`, with each closure told whether it was moved to another thread (rayon's
/// `join_context`): for example, to split a job further only when it was stolen.
///
/// ```
/// let pool = forkjoin::Pool::new(1).unwrap();
/// // One worker: nothing can be stolen.
/// let (a, b) = pool.install(|| forkjoin::join_context(|a| a.migrated(), |b| b.migrated()));
/// assert!(!a && !b);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let caller = thread_tag();
    join(
        move || {
            a(FnContext {
                migrated: thread_tag() != caller,
            })
        },
        move || {
            b(FnContext {
                migrated: thread_tag() != caller,
            })
        },
    )
}

/// A closure a join runs: sent to another worker if its frame is shared.
pub(crate) trait JoinFn<R>: FnOnce() -> R + Send {}

impl<F: FnOnce() -> R + Send, R> JoinFn<R> for F {}

/// A number that tells live threads apart: the address of a thread-local.
fn thread_tag() -> usize {
    crate::sync::thread_local!(static TAG: u8 = const { 0 });
    TAG.with(|t| t as *const u8 as usize)
}

/// A join of small closures, never inlined: for a recursive caller such as fib it is then
/// the recursive function, the caller's base case tested before each call, so a leaf costs
/// no call; the inliner did this only with LTO (docs/measurements.md has the figures).
#[inline(never)]
fn join_small<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(a: A, b: B) -> (RA, RB) {
    join_in_current(a, b)
}

/// `join` on the current thread's worker, or on the global pool; also for a caller that has
/// just built its closures (`split_first`), sparing them `join_large`'s `black_box` copies
/// (docs/measurements.md, section 8, "The first item's join").
#[inline(always)]
pub(crate) fn join_in_current<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(
    a: A,
    b: B,
) -> (RA, RB) {
    // SAFETY: the current join state (a worker's, or `OUTSIDE`) lives while the thread runs as it.
    unsafe { join_on(JoinState::current(), a, b) }
}

/// Closures up to this many bytes together (a few references or numbers) are cheap to copy
/// into a frame and to keep anywhere: their joins take the path of `join_on`, all inline.
const SMALL_CLOSURES: usize = 32;

/// How many fewer private frames a join of large closures records than `PRIVATE_FRAMES`:
/// recording them costs about a small task (Lea's Integrate: six `f64` each). Six are left.
const LARGE_FRAMES_FEWER: usize = PRIVATE_FRAMES - 6;

/// A join of large closures: the deep case (two plain calls) inline, with nothing built in
/// memory for the other cases, which `join_large_recorded` handles out of line.
#[inline(always)]
fn join_large<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(a: A, b: B) -> (RA, RB) {
    // SAFETY: the current thread's join state lives as long as the thread runs as its worker.
    unsafe {
        let state = &*JoinState::current();
        let st = state.owner();
        // Relaxed: as in `join_on`.
        let limit = state.limit.load(Relaxed);
        // `limit` is at least `PRIVATE_FRAMES`; `SHARE_REQUEST` is never reached.
        if st.counts.len() + LARGE_FRAMES_FEWER >= limit {
            registry::bump(&st.inline_joins);
            return join_plain(a, b);
        }
    }
    // `black_box` passes copies: else LLVM built both closures in memory before the test
    // above, on the deep path too (docs/measurements.md).
    join_large_recorded(std::hint::black_box(a), std::hint::black_box(b))
}

/// A large join outside a pool, among the outermost frames or at a heartbeat: rare, so cold.
#[cold]
#[inline(never)]
fn join_large_recorded<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(a: A, b: B) -> (RA, RB) {
    join_in_current(a, b)
}

/// A join from outside any pool, handed to the global pool: an entry of the program's
/// profile too, at this file's line (the user's would cost every join a hidden argument).
#[cold]
#[inline(never)]
fn join_outside(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    crate::program_profile::entry(|| {
        registry::in_worker(registry::global_registry(), |_| join(a, b))
    });
}

/// The fast path: one load and compare against `limit` decides between recording a frame,
/// a plain join and, at `SHARE_REQUEST` (a heartbeat, or a thread outside any pool), the
/// slow path (DESIGN.md, section 2, steps 1 and 2).
///
/// # Safety
/// `state` is the current thread's join state.
#[inline(always)]
unsafe fn join_on<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(
    state: *const JoinState,
    a: A,
    b: B,
) -> (RA, RB) {
    // SAFETY: `state` is this thread's join state (our contract).
    unsafe {
        let st = (*state).owner();
        let idx = st.counts.len();
        // Relaxed: the owner's own bound, or the heartbeat's request: nothing to synchronise.
        let limit = (*state).limit.load(Relaxed);
        if idx < limit {
            if limit == SHARE_REQUEST {
                return join_slow(state, a, b);
            }
            // SAFETY: a limit below `SHARE_REQUEST` is a worker's, from a whole-worker pointer.
            let worker = &*state.cast::<Worker>();
            return join_body::<false, _, _, _, _>(worker, idx, a, b);
        }
        registry::bump(&st.inline_joins);
        join_plain(a, b)
    }
}

/// Two plain calls with a join's panic semantics (`b` runs if `a` panics, its panic dropped).
/// The guard owns `b` by value, which runs before `a`'s result is touched (DESIGN.md, section
/// 2, "Panics"): a guard by reference, or `catch_unwind`, stalled store forwarding.
#[inline(always)]
fn join_plain<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    let guard = RunOnUnwind(ManuallyDrop::new(b), PhantomData);
    let ra = a();
    let mut guard = ManuallyDrop::new(guard);
    // SAFETY: taken once, from a guard that will not be dropped.
    let b = unsafe { ManuallyDrop::take(&mut guard.0) };
    let rb = b();
    (ra, rb)
}

/// Runs `b` when dropped, which only happens while `a` unwinds out of a plain join.
struct RunOnUnwind<B: FnOnce() -> RB, RB>(ManuallyDrop<B>, PhantomData<fn() -> RB>);

impl<B: FnOnce() -> RB, RB> Drop for RunOnUnwind<B, RB> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: dropped at most once, `b` untaken (the normal path never drops the guard).
        let b = unsafe { ManuallyDrop::take(&mut self.0) };
        run_after_panic(b);
    }
}

/// `b` of a plain join whose `a` panicked; its own panic is dropped.
#[cold]
#[inline(never)]
fn run_after_panic<B: FnOnce() -> RB, RB>(b: B) {
    let _ = catch(b);
}

/// A heartbeat is pending, or the thread is outside any pool: through closures of one type,
/// so the slow path is compiled once (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// `state` is the current thread's join state.
#[cold]
#[inline(never)]
unsafe fn join_slow<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(
    state: *const JoinState,
    a: A,
    b: B,
) -> (RA, RB) {
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb) = (None, None);
    // SAFETY: `state` is this thread's join state (our contract).
    unsafe {
        join_slow_dyn(state, &mut || ra = a.take().map(|a| a()), &mut || {
            rb = b.take().map(|b| b())
        })
    };
    // Both ran: a panic in either went on from the join.
    (ra.expect("a ran"), rb.expect("b ran"))
}

/// `join_slow`, for every join.
///
/// # Safety
/// `state` is the current thread's join state.
#[inline(never)]
unsafe fn join_slow_dyn(
    state: *const JoinState,
    a: &mut (dyn FnMut() + Send),
    b: &mut (dyn FnMut() + Send),
) {
    // SAFETY: `state` is this thread's join state (our contract).
    unsafe {
        let Some(worker) = JoinState::worker(state) else {
            return join_outside(a, b);
        };
        if worker.registry().profiling.is_set() {
            if let Some(timed) = profile_hooks::open_join() {
                return join_timed(worker, timed, a, b);
            }
        }
        join_unprofiled_slow(worker, a, b);
    }
}

/// A join timed by the profiler (`join_slow`).
///
/// # Safety
/// `worker` is the current thread's worker.
#[inline(never)]
unsafe fn join_timed(
    worker: &Worker,
    timed: profile_hooks::OpenJoin,
    a: &mut (dyn FnMut() + Send),
    b: &mut (dyn FnMut() + Send),
) {
    // SAFETY: `worker` is this thread's worker (our contract).
    let (ra, rb) = unsafe { join_unprofiled_slow(worker, timed.timed(a), timed.timed(b)) };
    timed.close(ra, rb);
}

/// `join_slow` without the profiling check: of timed closures, or the closures themselves.
///
/// # Safety
/// `worker` is the current thread's worker.
#[inline(always)]
unsafe fn join_unprofiled_slow<A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(
    worker: &Worker,
    a: A,
    b: B,
) -> (RA, RB) {
    // SAFETY: `worker` is this thread's worker (our contract).
    unsafe {
        let idx = worker.owner().counts.len();
        if idx >= FRAMES {
            return join_plain(a, b);
        }
        join_body::<true, _, _, _, _>(worker, idx, a, b)
    }
}

/// Records `b` in a frame, runs `a`, then runs or collects `b`.
///
/// # Safety
/// `worker` is the current thread's worker and `idx < FRAMES` its frame count.
#[inline(always)]
unsafe fn join_body<const HEARTBEAT: bool, A: JoinFn<RA>, B: JoinFn<RB>, RA: Send, RB: Send>(
    worker: &Worker,
    idx: usize,
    a: A,
    b: B,
) -> (RA, RB) {
    // SAFETY: our contract; the frame lives on this stack until `complete` returns.
    unsafe {
        let frame = JoinFrame::new(b);
        // The whole frame (head first), written through the entry's own pointer: a reference
        // to the array would cover entries a claiming thief may read (`registry/claim.rs`).
        worker
            .frames()
            .cast::<*const FrameHead>()
            .add(idx)
            .write((&frame as *const JoinFrame<B, RB>).cast());
        worker.owner().counts.recorded(idx);
        if HEARTBEAT {
            // After the push, so that this frame can be the one shared.
            worker.on_heartbeat();
        }
        let guard = UnwindGuard::<B, RB>(PhantomData);
        let ra = a();
        mem::forget(guard);
        let rb = frame.complete(worker, idx);
        (ra, rb)
    }
}

/// A join's second closure, on the joining worker's stack.
#[repr(C)]
struct JoinFrame<B, RB> {
    head: FrameHead,
    func: UnsafeCell<ManuallyDrop<B>>,
    /// Written by whoever runs a promoted frame.
    result: UnsafeCell<MaybeUninit<Result<RB, Panic>>>,
}

impl<B: FnOnce() -> RB + Send, RB: Send> JoinFrame<B, RB> {
    #[inline(always)]
    fn new(func: B) -> Self {
        JoinFrame {
            head: FrameHead {
                job: JobHeader {
                    execute: Self::execute,
                },
                latch: UnsafeCell::new(MaybeUninit::uninit()),
            },
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Takes the closure out to run it here.
    ///
    /// # Safety
    /// Called at most once, and only if no other thread has taken or will take the frame.
    #[inline(always)]
    unsafe fn take_func(&self) -> B {
        // SAFETY: called once, and no other thread takes the frame (our contract).
        unsafe { ManuallyDrop::take(&mut *self.func.get()) }
    }

    /// Pops the frame after `a` returned and produces `b`'s result.
    ///
    /// # Safety
    /// On the owner's thread, `idx` being this frame's index, after every younger join on
    /// this worker has completed.
    #[inline(always)]
    unsafe fn complete(&self, worker: &Worker, idx: usize) -> RB {
        // SAFETY: our contract.
        unsafe {
            let st = worker.owner();
            if st.counts.popped_maybe_shared(idx) {
                return self.complete_shared(worker, idx);
            }
            registry::bump(&st.inline_joins);
            self.take_func()()
        }
    }

    /// The frame was shared, or a thief began to claim it: run `b` here if the frame is
    /// taken back, else take the result the thief left.
    ///
    /// # Safety
    /// As for `complete`, and `idx` was below `shared` when `complete` looked.
    #[cold]
    #[inline(never)]
    unsafe fn complete_shared(&self, worker: &Worker, idx: usize) -> RB {
        // SAFETY: our contract; a thief that ran the frame wrote the result, then set its latch.
        unsafe {
            if wait_for_shared(worker, idx, &self.head) {
                return self.take_func()();
            }
            // The latch's Acquire probe made the thief's write of the result visible.
            match (*self.result.get()).assume_init_read() {
                Ok(rb) => rb,
                Err(p) => p.resume(),
            }
        }
    }

    /// Run by whoever takes the promoted frame from the deque.
    ///
    /// # Safety
    /// `this` is the head of a promoted `JoinFrame<B, RB>` taken from a deque, so that no
    /// other thread executes it, on a worker's thread.
    unsafe fn execute(this: *const JobHeader) {
        // SAFETY: our contract; the frame lives until the latch is set, and has one taker.
        unsafe {
            let frame = &*(this as *const Self);
            run_stolen(&frame.head, &mut || {
                (*frame.result.get()).write(catch(frame.take_func()));
            });
        }
    }
}

/// Runs the promoted frame `head`'s closure (`run`, writing its result) in the frame's region,
/// then sets its latch. Not generic (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// As for `JoinFrame::execute`; `run` runs the frame's closure once. (`head` is a pointer:
/// the frame may go once its latch is set.)
#[inline(never)]
unsafe fn run_stolen(head: *const FrameHead, run: &mut dyn FnMut()) {
    // SAFETY: our contract: on a worker's thread, the frame live until its latch is set.
    unsafe {
        let worker = Worker::executing();
        let latch = (*head).latch();
        // Relaxed: a steal-back hint for the owner.
        latch.thief.store(worker.index, Relaxed);
        // What the closure pushes is the frame's: its owner, waiting, may take it.
        let waiter = WaiterSlot::worker(latch.owner);
        let region = worker.enter_region(latch.region, waiter, latch.parent);
        run();
        drop(region);
        let owner = latch.owner;
        // After this store the owner may return and pop the frame: no more access to it.
        CoreLatch::set_raw(&latch.core);
        worker.registry().idle.latch_set(owner);
    }
}

/// The shared frame `head` (at `idx`) after `a` returned: `true` if taken back (the caller
/// runs it), else `false` once the thief has set its latch. Not generic (as `run_stolen`).
///
/// # Safety
/// As for `JoinFrame::complete_shared`; `head` is the frame's head, its first field.
#[cold]
#[inline(never)]
unsafe fn wait_for_shared(worker: &Worker, idx: usize, head: &FrameHead) -> bool {
    // SAFETY: our contract; a frame `take_back_shared` finds shared has its latch initialised.
    unsafe {
        let Some(claimed) = worker.take_back_shared(idx) else {
            registry::bump(&worker.owner().inline_joins);
            return true;
        };
        worker.refresh_limit();
        // The frame's address (its head comes first), as the deque holds it.
        let me = JobRef(NonNull::from(head).cast());
        let latch = head.latch();
        loop {
            if latch.core.probe() {
                break;
            }
            // A claimed frame was never on the deque: wait for it at once.
            match if claimed { None } else { worker.deque.pop() } {
                Some(job) if job == me.0 => {
                    // Shared but taken back: it still counts as a task this worker ran.
                    registry::bump(&worker.counters.executed);
                    worker.renew_request();
                    return true;
                }
                // A job pushed after ours, untaken (a `submit` inside `a`): run it, look again.
                Some(job) => worker.execute(JobRef(job)),
                None => {
                    // Relaxed: only a hint for where to steal; stale values are harmless.
                    let thief = latch.thief.load(Relaxed);
                    // Isolated: the frame's region, and what this worker pushed since the
                    // frame was shared (DESIGN.md, section 5).
                    let helps = Helps::descendants_from(latch.floor, latch.region);
                    worker.wait_until(&|| latch.core.probe(), Some(thief), helps);
                    break;
                }
            }
        }
        // Stolen and finished: the thief looks for work now (DESIGN.md, section 4).
        worker.share_next_join();
        false
    }
}

/// Runs only if `a` unwinds: `b` must still run (or be waited for), its panic dropped. It
/// carries nothing: younger joins have completed, so our frame is the youngest.
struct UnwindGuard<B: FnOnce() -> RB + Send, RB: Send>(PhantomData<fn(B) -> RB>);

impl<B: FnOnce() -> RB + Send, RB: Send> Drop for UnwindGuard<B, RB> {
    fn drop(&mut self) {
        // SAFETY: unwinding out of `a` on the owner's thread: this guard's frame is at `len - 1`.
        let _ = catch(|| unsafe {
            let worker = &*Worker::current();
            let idx = worker.owner().counts.len() - 1;
            let frame = &*((*worker.frames())[idx] as *const JoinFrame<B, RB>);
            frame.complete(worker, idx)
        });
    }
}

#[cfg(all(test, not(loom)))]
mod test;
