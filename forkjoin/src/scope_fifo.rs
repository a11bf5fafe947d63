//! `scope_fifo` (rayon's `ScopeFifo`): each `spawn_fifo` queues its body in the scope's FIFO
//! and spawns a plain scope task that runs the *oldest* queued body, so bodies start in spawn
//! order whichever worker runs the tasks.

use crate::broadcast::BroadcastContext;
use crate::registry::Registry;
use crate::scope::{in_place_scope_in, Scope};
use crate::sync::Mutex;
use std::collections::VecDeque;
use std::fmt;

type Body<'scope> = Box<dyn FnOnce(&ScopeFifo<'scope>) + Send + 'scope>;

/// The bodies spawned and not yet started, oldest first.
struct Queue<'scope>(Mutex<VecDeque<Body<'scope>>>);

/// A scope in which tasks start in the order they were spawned; see [`scope_fifo`].
pub struct ScopeFifo<'scope> {
    scope: *const Scope<'scope>,
    queue: *const Queue<'scope>,
}

// SAFETY: both live in `scope_fifo`'s frame, which waits for every task; both are `Sync`.
unsafe impl Send for ScopeFifo<'_> {}
// SAFETY: as above.
unsafe impl Sync for ScopeFifo<'_> {}

/// The queue's address, sent to the task that takes from it.
struct QueuePtr<'scope>(*const Queue<'scope>);
// SAFETY: see `ScopeFifo`.
unsafe impl Send for QueuePtr<'_> {}
// SAFETY: as above; the broadcast shares share one pointer.
unsafe impl Sync for QueuePtr<'_> {}

impl<'scope> ScopeFifo<'scope> {
    /// The FIFO face of `scope`; `queue` outlives its tasks (both in the caller's frame).
    fn new(scope: &Scope<'scope>, queue: &Queue<'scope>) -> Self {
        ScopeFifo { scope, queue }
    }

    /// Spawns a task in the scope; tasks spawned here start in the order they were spawned.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        // SAFETY: the queue outlives the scope's tasks (see `ScopeFifo`).
        let queue = unsafe { &*self.queue };
        queue.0.lock().unwrap().push_back(Box::new(body));
        let ptr = QueuePtr(self.queue);
        // SAFETY: the scope outlives its tasks and this call.
        let scope = unsafe { &*self.scope };
        scope.spawn(move |s| {
            let ptr = ptr;
            // SAFETY: as above.
            let queue = unsafe { &*ptr.0 };
            let body = queue
                .0
                .lock()
                .unwrap()
                .pop_front()
                .expect("a FIFO task for every queued body");
            body(&ScopeFifo::new(s, queue));
        });
    }

    /// Spawns a task into the scope on every worker of the pool (rayon's
    /// `ScopeFifo::spawn_broadcast`); see [`Scope::spawn_broadcast`].
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::Pool::new(2).unwrap();
    /// let shares = AtomicUsize::new(0);
    /// pool.install(|| {
    ///     forkjoin::scope_fifo(|s| s.spawn_broadcast(|_, _| {
    ///         shares.fetch_add(1, Ordering::Relaxed);
    ///     }))
    /// });
    /// assert_eq!(shares.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let queue = QueuePtr(self.queue);
        // SAFETY: the scope outlives its tasks and this call.
        let scope = unsafe { &*self.scope };
        scope.spawn_broadcast(move |s, ctx| {
            // The whole pointer, not its field, is captured (the field is not `Send`).
            let queue = &queue;
            // SAFETY: the queue outlives the scope's tasks (see `ScopeFifo`).
            let queue = unsafe { &*queue.0 };
            body(&ScopeFifo::new(s, queue), ctx);
        });
    }
}

impl fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

/// Creates a scope whose tasks start in the order they were spawned (rayon's
/// `scope_fifo`); otherwise as [`scope`](crate::scope).
///
/// ```
/// use std::sync::Mutex;
/// let order = Mutex::new(Vec::new());
/// let pool = forkjoin::Pool::new(1).unwrap();
/// pool.install(|| {
///     forkjoin::scope_fifo(|s| {
///         for i in 0..4 {
///             let order = &order;
///             s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///         }
///     })
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
#[track_caller]
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    let queue = Queue(Mutex::new(VecDeque::new()));
    crate::scope(|s| op(&ScopeFifo::new(s, &queue)))
}

/// [`scope_fifo`] whose closure runs on the calling thread (rayon's
/// `in_place_scope_fifo`), as [`in_place_scope`](crate::in_place_scope).
#[track_caller]
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let queue = Queue(Mutex::new(VecDeque::new()));
    crate::in_place_scope(|s| op(&ScopeFifo::new(s, &queue)))
}

/// `in_place_scope_fifo` in `registry`'s pool (`Pool::in_place_scope_fifo`).
pub(crate) fn in_place_scope_fifo_in<'scope, OP, R>(registry: &Registry, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let queue = Queue(Mutex::new(VecDeque::new()));
    in_place_scope_in(registry, |s| op(&ScopeFifo::new(s, &queue)))
}
