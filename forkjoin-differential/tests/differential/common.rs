//! Helpers the programs share.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

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

/// Runs `$body` on a pool of each of [`WORKERS`]' sizes, built with `rt` (the runtime of the
/// expansion it is used in), and collects its values, one per pool.
macro_rules! on_each_pool {
    ($body:expr) => {
        $crate::common::WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                pool.install(|| $body)
            })
            .collect::<Vec<_>>()
    };
}
pub(crate) use on_each_pool;

/// Counts how many times a closure ran.
#[derive(Default)]
pub(crate) struct Counter(AtomicUsize);

impl Counter {
    /// Counts one run.
    pub(crate) fn hit(&self) {
        self.0.fetch_add(1, Relaxed);
    }

    /// The runs counted so far, and starts again from zero.
    pub(crate) fn take(&self) -> usize {
        self.0.swap(0, Relaxed)
    }

    /// Whether the runs counted so far are within `least..=most` (for counts the schedule
    /// decides), and starts again from zero.
    pub(crate) fn within(&self, least: usize, most: usize) -> bool {
        (least..=most).contains(&self.take())
    }
}

/// Runs `f`, catching a panic: its value, or the panic's message.
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(message)
}

/// The message of a panic's payload.
pub(crate) fn message(payload: Box<dyn Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(s) => s.to_string(),
            Err(_) => "<not a string>".to_string(),
        },
    }
}

/// Counts the drops of the values it hands out, value by value.
pub(crate) struct DropLog {
    drops: Vec<AtomicUsize>,
}

impl DropLog {
    /// A log for the values `0..n`.
    pub(crate) fn new(n: usize) -> DropLog {
        DropLog {
            drops: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The values `0..n` as tracked items.
    pub(crate) fn items(&self) -> Vec<Tracked<'_>> {
        (0..self.drops.len()).map(|i| Tracked(i, self)).collect()
    }

    /// The indices of the values not dropped exactly once (`(value, drops)`), and starts
    /// again from zero.
    pub(crate) fn wrong(&self) -> Vec<(usize, usize)> {
        self.drops
            .iter()
            .enumerate()
            .map(|(i, d)| (i, d.swap(0, Relaxed)))
            .filter(|&(_, d)| d != 1)
            .collect()
    }
}

/// A value whose drop is counted in its [`DropLog`].
pub(crate) struct Tracked<'a>(pub(crate) usize, &'a DropLog);

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.1.drops[self.0].fetch_add(1, Relaxed);
    }
}

impl std::fmt::Debug for Tracked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tracked({})", self.0)
    }
}

/// A value whose clones are counted by a [`Counter`].
pub(crate) struct Cloned<'a>(pub(crate) usize, pub(crate) &'a Counter);

impl Clone for Cloned<'_> {
    fn clone(&self) -> Self {
        self.1.hit();
        Cloned(self.0, self.1)
    }
}
