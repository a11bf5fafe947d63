//! Helpers the programs share.

/// The worker counts every program runs at.
pub(crate) const WORKERS: [usize; 3] = [1, 2, 8];

/// How long a program waits for what must happen before it reports that it did not: a
/// bound only a hang reaches, never a claim about speed.
pub(crate) const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs `f` on a thread of its own and returns its value, or `None` if it has not returned
/// within `PATIENCE` (a hang then fails the comparison instead of hanging the suite). A
/// panic in `f` is re-raised.
pub(crate) fn watchdog<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(Ok(r)) => Some(r),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => None,
    }
}

/// A closure that may block, run inside a pool's task: `forkjoin::blocking` on forkjoin
/// (the pool compensates), a plain call on rayon (which has no such call), so that one
/// program runs on both.
pub(crate) trait MayBlock {
    fn may_block<R>(&self, f: impl FnOnce() -> R) -> R;
}

impl MayBlock for rayon::ThreadPool {
    fn may_block<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

impl MayBlock for forkjoin::Pool {
    fn may_block<R>(&self, f: impl FnOnce() -> R) -> R {
        forkjoin::blocking(f)
    }
}

/// Which runtime `Pool` is (`rt::ThreadPool` in a program): "rayon" or "forkjoin".
pub(crate) fn runtime_of<Pool>() -> &'static str {
    if std::any::type_name::<Pool>().starts_with("rayon") {
        "rayon"
    } else {
        "forkjoin"
    }
}
