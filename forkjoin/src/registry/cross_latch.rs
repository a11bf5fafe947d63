//! The latch a worker waits on for a job it sent into another pool, woken through its own
//! pool's idle policy (its set needs the waiter's registry, hence not in `crate::latch`).

use super::Registry;
use crate::latch::{CoreLatch, Latch};
use std::sync::Arc;

/// See the module's docs.
pub(crate) struct CrossLatch {
    pub(crate) core: CoreLatch,
    /// The waiter's pool, kept alive for the wake-up that follows the set.
    registry: Arc<Registry>,
    index: usize,
}

impl CrossLatch {
    pub(crate) fn new(registry: Arc<Registry>, index: usize) -> Self {
        CrossLatch {
            core: CoreLatch::new(),
            registry,
            index,
        }
    }
}

impl Latch for CrossLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live until `set_raw`; what is needed after it was copied out first.
        unsafe {
            let registry = Arc::clone(&(*this).registry);
            let index = (*this).index;
            CoreLatch::set_raw(&(*this).core);
            registry.idle.latch_set(index);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod test {
    use super::*;
    use crate::latch::test::{worker_pool, SendPtr};
    use crate::registry;
    use crate::registry::wait::Helps;
    use std::sync::atomic::AtomicUsize;
    use std::sync::atomic::Ordering::Relaxed;
    use std::thread;

    /// The only worker of pool A waits on a `CrossLatch` and parks for good (nothing else to
    /// do, no borrower, nobody busy to watch for). A job on pool B sets the latch only once A's
    /// worker has announced itself asleep: only the latch's own wake-up can bring it back, and
    /// it must return with the setter's write visible.
    #[test]
    fn cross_latch_wakes_a_parked_worker_of_another_registry() {
        let a = worker_pool(1);
        let b = worker_pool(1);
        for round in 0..10 {
            let seen = a.install(|| {
                registry::on_worker(|w| {
                    let latch = CrossLatch::new(w.registry_arc(), w.index);
                    let registry_a = w.registry_arc();
                    let written = Arc::new(AtomicUsize::new(0));
                    let (ptr, write) = (SendPtr(&latch as *const CrossLatch), Arc::clone(&written));
                    b.spawn(move || {
                        while registry_a.idle.sleepers() == 0 {
                            thread::yield_now();
                        }
                        write.store(round + 1, Relaxed);
                        // SAFETY: A's worker keeps the latch on its stack until it sees it set.
                        unsafe { CrossLatch::set(ptr.get()) };
                    });
                    w.wait_until(&|| latch.core.probe(), None, Helps::Anything);
                    assert!(latch.core.probe());
                    // The waker withdrew the sleeper's announcement.
                    assert_eq!(w.registry().idle.sleepers(), 0);
                    // Relaxed: the latch's Release store and Acquire probe order it.
                    written.load(Relaxed)
                })
            });
            assert_eq!(seen, round + 1);
        }
    }

    /// The latch keeps the waiter's pool alive until its wake-up is done: it holds one strong
    /// reference, given back when the latch is dropped.
    #[test]
    fn cross_latch_holds_the_waiters_registry() {
        let a = worker_pool(1);
        a.install(|| {
            registry::on_worker(|w| {
                let registry = w.registry_arc();
                let before = Arc::strong_count(&registry);
                let latch = CrossLatch::new(w.registry_arc(), w.index);
                assert_eq!(Arc::strong_count(&registry), before + 1);
                drop(latch);
                assert_eq!(Arc::strong_count(&registry), before);
            })
        });
    }
}
