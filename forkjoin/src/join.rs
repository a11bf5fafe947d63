//! `join`: fork two closures, potentially in parallel (FJTask's `coInvoke`). Instead of
//! pushing the second closure onto the deque at every fork, as rayon does, a join records it
//! in a frame on the worker's stack with a few plain stores (lazy task creation; the
//! heartbeat scheduling of Acar, Charguéraud and Rainey), and the oldest private frame is
//! promoted onto the deque only when an idle worker asks: DESIGN.md, sections 2 and 4.

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

/// A number that tells live threads apart: the address of a thread-local.
fn thread_tag() -> usize {
    crate::sync::thread_local!(static TAG: u8 = const { 0 });
    TAG.with(|t| t as *const u8 as usize)
}

/// A join of small closures, never inlined: for a recursive caller such as fib it is then
/// the recursive function, the caller's base case tested before each call, so a leaf costs
/// no call; the inliner did this only with LTO (docs/measurements.md has the figures).
#[inline(never)]
fn join_small<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_in_current(a, b)
}

/// `join` on the current thread's worker, or on the global pool outside any pool; also for a
/// caller that has just built its closures (the splitter's `split_first`), sparing them
/// `join_large`'s `black_box` copies, which stall store forwarding (docs/measurements.md,
/// section 8, "The first item's join").
#[inline(always)]
pub(crate) fn join_in_current<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: the current thread's join state (its worker's, or `OUTSIDE`) lives as long as
    // the thread runs as that worker.
    unsafe { join_on(JoinState::current(), a, b) }
}

/// Closures up to this many bytes together (a few references or numbers) are cheap to copy
/// into a frame and to keep anywhere: their joins take the path of `join_on`, all inline.
const SMALL_CLOSURES: usize = 32;

/// How many fewer private frames a join of large closures records than `PRIVATE_FRAMES`:
/// recording moves the second closure into memory and back, for large closures about the
/// cost of a small task (Lea's Integrate: six `f64` per closure). Six are left.
const LARGE_FRAMES_FEWER: usize = PRIVATE_FRAMES - 6;

/// A join of large closures: the deep case (two plain calls) inline, with nothing built in
/// memory for the other cases, which `join_large_recorded` handles out of line.
#[inline(always)]
fn join_large<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: the current thread's join state lives as long as the thread runs as its
    // worker.
    unsafe {
        let state = &*JoinState::current();
        let st = state.owner();
        // Relaxed: as in `join_on`.
        let limit = state.limit.load(Relaxed);
        // `limit` is at least `PRIVATE_FRAMES`; `SHARE_REQUEST` (a pending heartbeat, or a
        // thread outside any pool) is never reached.
        if st.counts.len() + LARGE_FRAMES_FEWER >= limit {
            registry::bump(&st.inline_joins);
            return join_plain(a, b);
        }
    }
    // `black_box` makes this cold path pass copies. Passed as they are, the closures would
    // have their address taken, and LLVM then built both in memory before the test above,
    // on the deep path too, where they are only needed in registers (docs/measurements.md).
    join_large_recorded(std::hint::black_box(a), std::hint::black_box(b))
}

/// A join of large closures outside a pool, among the outermost frames, or at a heartbeat:
/// rare next to the deep joins, hence cold.
#[cold]
#[inline(never)]
fn join_large_recorded<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
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
unsafe fn join_on<A, B, RA, RB>(state: *const JoinState, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: `state` is this thread's join state (our contract).
    unsafe {
        let st = (*state).owner();
        let idx = st.counts.len();
        // Relaxed: the owner's own bound, or the heartbeat's request, which has nothing to
        // synchronise.
        let limit = (*state).limit.load(Relaxed);
        if idx < limit {
            if limit == SHARE_REQUEST {
                return join_slow(state, a, b);
            }
            // SAFETY: only a worker's state has a limit below `SHARE_REQUEST`, and `state`
            // came from a pointer to the whole worker (see `JoinState::worker`).
            let worker = &*state.cast::<Worker>();
            return join_body::<false, _, _, _, _>(worker, idx, a, b);
        }
        registry::bump(&st.inline_joins);
        join_plain(a, b)
    }
}

/// Two plain calls, with the panic semantics of a join: if `a` panics, `b` still runs
/// (its own panic is dropped) and `a`'s panic continues. The guard owns `b` by value and
/// `b` runs before `a`'s result is touched, so no store-forwarding stall (DESIGN.md,
/// section 2, "Panics"; a guard by reference, or `catch_unwind`, caused one).
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
        // SAFETY: the guard is dropped at most once and `b` was not taken (the normal path
        // takes it from a guard it never drops).
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

/// A heartbeat is pending, or the thread is outside any pool. Through closures of one type
/// for every join: what the slow path does (hand the join to a pool, share a frame, time
/// the join for the profiler) is compiled once, not in every join's instance, for two
/// indirect calls more (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// `state` is the current thread's join state.
#[cold]
#[inline(never)]
unsafe fn join_slow<A, B, RA, RB>(state: *const JoinState, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
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

/// `join_slow` without the profiling check: with the profiler's timed closures, or the
/// closures themselves.
///
/// # Safety
/// `worker` is the current thread's worker.
#[inline(always)]
unsafe fn join_unprofiled_slow<A, B, RA, RB>(worker: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
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
unsafe fn join_body<const HEARTBEAT: bool, A, B, RA, RB>(
    worker: &Worker,
    idx: usize,
    a: A,
    b: B,
) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: `worker` is this thread's worker and `idx < FRAMES` its frame count (our
    // contract); the frame lives on this stack until `complete` returns.
    unsafe {
        let frame = JoinFrame::new(b);
        // A pointer to the whole frame (its head is the first field): a thief reads all of it.
        // Written through the entry's own pointer: a reference to the array would also cover
        // the older entries a claiming thief may be reading (`registry/claim.rs`).
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
        // SAFETY: called once, and only when no other thread has taken or will take the frame
        // (our contract).
        unsafe { ManuallyDrop::take(&mut *self.func.get()) }
    }

    /// Pops the frame after `a` returned and produces `b`'s result.
    ///
    /// # Safety
    /// On the owner's thread, `idx` being this frame's index, after every younger join on
    /// this worker has completed.
    #[inline(always)]
    unsafe fn complete(&self, worker: &Worker, idx: usize) -> RB {
        // SAFETY: on the owner's thread, `idx` being this frame's index, younger joins
        // completed (our contract).
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
        // SAFETY: as for `complete` (our contract); when `wait_for_shared` says the thief ran
        // the frame, its latch is set and the result written.
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
        // SAFETY: `this` is the head of a promoted `JoinFrame<B, RB>`; its owner keeps it on
        // its stack until the latch is set, and the deque hands it to one taker only; a job
        // executes on a worker's thread (our contract).
        unsafe {
            let frame = &*(this as *const Self);
            run_stolen(&frame.head, &mut || {
                (*frame.result.get()).write(catch(frame.take_func()));
            });
        }
    }
}

/// Runs the closure of the promoted frame `head` (`run` writes its result to the frame) on
/// the worker that took it, in the frame's region, then sets the frame's latch. Not generic
/// (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// As for `JoinFrame::execute`; `run` runs the frame's closure once. (`head` is a pointer:
/// a reference argument must outlive the call, and the frame may go once its latch is set.)
#[inline(never)]
unsafe fn run_stolen(head: *const FrameHead, run: &mut dyn FnMut()) {
    // SAFETY: a job executes on a worker's thread; the frame is live until its latch is set
    // (our contract).
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
/// runs its closure), else `false` once the thief has set its latch, having helped. Not
/// generic (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// As for `JoinFrame::complete_shared`; `head` is the frame's head, its first field.
#[cold]
#[inline(never)]
unsafe fn wait_for_shared(worker: &Worker, idx: usize, head: &FrameHead) -> bool {
    // SAFETY: as for `complete_shared` (our contract); `take_back_shared` says whether the
    // frame is shared, and then its latch is initialised.
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
                // A job pushed after ours and not yet taken (e.g. a `submit` from inside `a`):
                // run it, then look again.
                Some(job) => worker.execute(JobRef(job)),
                None => {
                    // Relaxed: only a hint for where to steal; stale values are harmless.
                    let thief = latch.thief.load(Relaxed);
                    // Isolated: the frame's own region, and whatever this worker pushed
                    // since the frame was shared (every job left on its deque lies above
                    // a stolen frame; a claimed one's latch says where its jobs start).
                    let helps = Helps::descendants_from(latch.floor, latch.region);
                    worker.wait_until(&|| latch.core.probe(), Some(thief), helps);
                    break;
                }
            }
        }
        // Stolen and finished: the thief is looking for work now (DESIGN.md, section 4,
        // "Region starts").
        worker.share_next_join();
        false
    }
}

/// Runs only if `a` unwinds: `b` must still run (or be waited for) before the frame goes;
/// `b`'s panic is dropped. It carries nothing: younger joins have completed (their guards
/// ran first), so our frame is the youngest on the worker.
struct UnwindGuard<B: FnOnce() -> RB + Send, RB: Send>(PhantomData<fn(B) -> RB>);

impl<B: FnOnce() -> RB + Send, RB: Send> Drop for UnwindGuard<B, RB> {
    fn drop(&mut self) {
        // SAFETY: unwinding out of `a` on the owner's thread, whose worker pushed the frame
        // at `len - 1` and whose younger frames are gone; the frame has type
        // `JoinFrame<B, RB>` because this guard was made next to it.
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
