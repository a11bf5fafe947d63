//! Wakers that count their wake-ups, to poll futures by hand. Shared by the integration
//! tests and `Task`'s unit tests, which include this file with `#[path]`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts its wake-ups.
pub(crate) struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A new count, and a waker that adds to it.
pub(crate) fn counter() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (Arc::clone(&count), Waker::from(count))
}

/// How many times the count's wakers were woken.
pub(crate) fn wakes(count: &Count) -> usize {
    count.0.load(SeqCst)
}

/// Polls `future` once, with `waker`.
pub(crate) fn poll<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(waker))
}
