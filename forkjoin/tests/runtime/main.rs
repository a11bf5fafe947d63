//! The runtime's behaviour, one module per subject: joins, scopes, submitted tasks and
//! `Task` as a future, building pools, the global pool, broadcasts, spawns, work entering
//! from outside the pool, what a worker can do with its own queue, the loops of the first
//! API. Exact answers under stress, panics, bad input,
//! pools inside pools; many tests oversubscribe a 2-core machine (8 and 16 workers) on
//! purpose.
//!
//! `forkjoin::blocking` has a crate of its own (`tests/blocking.rs`): its tests count the
//! process's spare threads, which the tests here would start too.

#[path = "../common/mod.rs"]
mod common;

mod broadcast;
#[cfg(feature = "profile")]
mod call_sites;
mod entry;
mod global;
#[cfg(feature = "profile")]
mod instrument;
#[cfg(not(miri))]
mod isolation;
mod join;
mod loops;
mod pool;
mod scope;
mod spawn;
mod tasks;
mod worker;
