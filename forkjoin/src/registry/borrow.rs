//! A thread outside the pool running its call in a parked worker's slot (`caller_runs`), and
//! the stack it must have left to do so.

use super::heartbeat::SHARE_REQUEST;
use super::outside::OutsideCall;
use super::worker::Worker;
use super::worker::{bump, outside, JobSource, CURRENT};
use super::Registry;
use crate::job::JobRef;
use crate::profile_hooks;
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::Ordering::Relaxed;

/// Runs `op` on the calling thread as worker `index`, whose slot `Sleep::lend` lent it
/// (DESIGN.md, section 7, "Entry from outside the pool").
pub(super) fn run_borrowed<R>(
    registry: &Registry,
    index: usize,
    op: impl FnOnce(&Worker) -> R,
) -> R {
    let worker = &registry.workers[index];
    // The slot is busy now (its worker counted itself idle before parking).
    registry.idle.leave();
    CURRENT.with(|c| c.set((worker as *const Worker).cast()));
    let several = registry.slot_count() > 1;
    // Its owner until `give_back` (the lend's mutex made the worker's writes visible).
    let st = worker.owner();
    st.running.set(true);
    st.source.set(JobSource::Own);
    let call = worker.begin_outside_call();
    if several {
        // Relaxed: a request to ourselves, as in `Worker::execute`.
        worker.join.limit.store(SHARE_REQUEST, Relaxed);
    } else {
        worker.take_request();
    }
    bump(&worker.counters.executed);

    /// Gives the slot back on every way out of `op`, unwinding included.
    struct GiveBack<'a>(&'a Registry, &'a Worker, OutsideCall);
    impl Drop for GiveBack<'_> {
        fn drop(&mut self) {
            let (registry, worker) = (self.0, self.1);
            worker.end_outside_call(self.2);
            // Untaken jobs go to the submission queues: the worker's thread never saw them pushed.
            while !worker.deque.is_empty() {
                // SAFETY: the slot is still ours: `pop` on its owner's thread.
                let Some(job) = (unsafe { worker.deque.pop() }) else {
                    break;
                };
                registry.inject(JobRef(job));
            }
            let st = worker.owner();
            debug_assert_eq!(st.counts.len(), 0);
            st.running.set(false);
            st.fresh.set(false);
            worker.take_request();
            CURRENT.with(|c| c.set(outside()));
            registry.idle.enter();
            // Work published while lent found the worker uncounted: wake it (shares included).
            registry.idle.slot_given_back(worker.index, || {
                registry.is_terminating() || registry.has_work_for(worker.index)
            });
        }
    }
    let _give_back = GiveBack(registry, worker, call);
    if registry.profiling.is_set() {
        return profile_hooks::detached(|| op(worker));
    }
    op(worker)
}

/// How much stack a thread outside the pool must have left to run in a borrowed slot, for a
/// pool built without `PoolBuilder::stack_size` (else that much).
pub(crate) const BORROW_STACK_DEFAULT: usize = 1 << 20;

/// Bytes of stack left below the caller's frame (`usize::MAX` where the bounds are unknown).
pub(super) fn stack_left() -> usize {
    crate::sync::thread_local! {
        /// `stack_low`, looked up once (for the main thread glibc reads `/proc/self/maps`).
        static STACK_LOW: Cell<Option<usize>> = const { Cell::new(None) };
    }
    let low = STACK_LOW.with(|c| {
        let low = c.get().unwrap_or_else(stack_low);
        c.set(Some(low));
        low
    });
    let here = &low as *const usize as usize;
    if low == 0 {
        usize::MAX
    } else {
        here.saturating_sub(low)
    }
}

/// The lowest address of the calling thread's stack, or 0 if it cannot be known.
fn stack_low() -> usize {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: `attr` is initialised before it is read and destroyed after; out-pointers are locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let mut addr: *mut libc::c_void = ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        // Leave a guard page's worth of margin.
        if ok {
            addr as usize + 64 * 1024
        } else {
            0
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    0
}
