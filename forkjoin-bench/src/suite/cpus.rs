//! Which CPUs a measurement runs on: a cell with T workers runs on the first T CPUs this
//! process may use, whatever the runtime.
//!
//! Why: the cores of a shared machine do not run at one speed. On the 2-core development VM
//! one core ran 30-60% slower than the other for stretches of seconds (the host's load), so
//! a one-worker figure depended on which core the scheduler happened to put that runtime's
//! worker on, and the sequential baseline on the main thread could sit on the other one.
//! Restricting every one-worker run (the sequential one included) to the same core makes
//! the runtimes' one-worker figures comparable; at one worker per core nothing changes.
//!
//! The restriction is an affinity mask, not pinning: the harness sets its own thread's mask
//! while it builds a cell's pool (worker threads inherit the mask of the thread that starts
//! them, the JVM likewise) and while it runs the cell (the calling thread takes part in
//! chili's runs and is the sequential baseline's only thread). Chili's pool is built with
//! the full mask: it starts a heartbeat thread besides its workers, which on the worker's
//! own core would take turns with it (chili at one worker ran twice as long so); its
//! calling thread, its only worker at one worker, is still restricted while it runs.

pub(crate) use forkjoin_profile::cpus::{allowed, restrict};

/// The CPU that is fastest now ([`forkjoin_profile::cpus::fastest_cpu`]), as the list
/// `restrict` takes (empty where affinity is not supported). For measurements that need
/// the host's fast state rather than a fixed CPU: a calibration's program turns, and the
/// unprofiled runs of `fj profile` and `fj predict` that fix the time scale (about a
/// second; this host's slow states, a CPU's own, last from a second to tens of seconds:
/// on the first CPU, `fj predict` read fib's work as 290-392 ms and Integrate's as
/// 218-325 ms).
pub(crate) fn fastest() -> Vec<usize> {
    forkjoin_profile::cpus::fastest_cpu().into_iter().collect()
}

/// The CPUs for a cell of `workers` workers: the first `workers` of `allowed`, or all of
/// them when there are not that many (an oversubscribed run).
pub(crate) fn for_workers(allowed: &[usize], workers: usize) -> &[usize] {
    &allowed[..workers.min(allowed.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_workers_takes_the_first_cpus_and_all_when_oversubscribed() {
        let cpus = [0, 2, 5];
        assert_eq!(for_workers(&cpus, 1), &[0]);
        assert_eq!(for_workers(&cpus, 2), &[0, 2]);
        assert_eq!(for_workers(&cpus, 8), &[0, 2, 5]);
    }
}
