//! The panic of a task, carried to the `join`, `scope`, `install` or `Task::join` that owns it.

use std::any::Any;
use std::fmt;

/// A panic caught in a task. `Display` shows the panic message.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// let task = pool.submit(|| -> u32 { panic!("no answer") });
/// let err = task.join().unwrap_err();
/// assert_eq!(err.message(), Some("no answer"));
/// ```
pub struct Panic {
    payload: Box<dyn Any + Send + 'static>,
}

impl Panic {
    pub(crate) fn new(payload: Box<dyn Any + Send + 'static>) -> Self {
        Panic { payload }
    }

    /// The panic message, if the payload was a string (as `panic!` with a message makes).
    pub fn message(&self) -> Option<&str> {
        let text = self.payload.downcast_ref::<&'static str>().copied();
        text.or_else(|| self.payload.downcast_ref::<String>().map(String::as_str))
    }

    /// The payload, as `std::panic::catch_unwind` would return it.
    pub fn into_payload(self) -> Box<dyn Any + Send + 'static> {
        self.payload
    }

    /// Continues unwinding with this panic in the current thread.
    pub fn resume(self) -> ! {
        std::panic::resume_unwind(self.payload)
    }
}

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.message() {
            Some(m) => write!(f, "task panicked: {m}"),
            None => f.write_str("task panicked with a non-string payload"),
        }
    }
}

impl fmt::Debug for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Panic")
            .field("message", &self.message())
            .finish()
    }
}

impl std::error::Error for Panic {}

/// Runs `f`, returning its panic as a `Panic`.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Panic> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(Panic::new)
}

/// Prints one line on stderr, as `eprintln!` does (so a test harness captures it), but
/// never panics: it may run on a worker, which must survive a failed write.
pub(crate) fn print_error_line(line: fmt::Arguments<'_>) {
    let _ = catch(|| eprintln!("{line}"));
}
