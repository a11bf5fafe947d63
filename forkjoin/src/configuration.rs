//! rayon-core's deprecated `Configuration` and `initialize`: [`PoolBuilder`] with boxed errors.
#![allow(deprecated)]

use crate::{Pool, PoolBuilder};
use std::any::Any;
use std::error::Error;
use std::fmt;

/// The pool's configuration under rayon-core's old name; use [`PoolBuilder`]
/// (`ThreadPoolBuilder`) instead. Each method is the builder's method of the same name.
///
/// ```
/// # #![allow(deprecated)]
/// let pool = forkjoin::Configuration::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.num_threads(), 2);
/// ```
#[deprecated(note = "Use `ThreadPoolBuilder`")]
#[derive(Default)]
pub struct Configuration {
    builder: PoolBuilder,
}

impl Configuration {
    /// The defaults, as [`PoolBuilder::new`].
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// [`PoolBuilder::build`], its error boxed.
    pub fn build(self) -> Result<Pool, Box<dyn Error + 'static>> {
        self.builder.build().map_err(Box::from)
    }

    /// [`PoolBuilder::thread_name`].
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.builder = self.builder.thread_name(closure);
        self
    }

    /// [`PoolBuilder::num_threads`]: 0 means the default.
    pub fn num_threads(mut self, num_threads: usize) -> Configuration {
        self.builder = self.builder.num_threads(num_threads);
        self
    }

    /// [`PoolBuilder::panic_handler`].
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.builder = self.builder.panic_handler(panic_handler);
        self
    }

    /// [`PoolBuilder::stack_size`].
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.builder = self.builder.stack_size(stack_size);
        self
    }

    /// [`PoolBuilder::breadth_first`].
    pub fn breadth_first(mut self) -> Self {
        self.builder = self.builder.breadth_first();
        self
    }

    /// [`PoolBuilder::start_handler`].
    pub fn start_handler<H>(mut self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder = self.builder.start_handler(start_handler);
        self
    }

    /// [`PoolBuilder::exit_handler`].
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder = self.builder.exit_handler(exit_handler);
        self
    }
}

impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.builder.fmt(f)
    }
}

/// Configures and starts the global pool under rayon-core's old name; use
/// [`PoolBuilder::build_global`] instead, whose error this returns boxed.
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error>> {
    config.builder.build_global().map_err(Box::from)
}
