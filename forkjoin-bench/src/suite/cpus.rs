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

/// The CPUs this process may run on, ascending; empty where affinity is not supported.
pub fn allowed() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    // SAFETY: `set` is a plain bit set, zero-initialised, of the size passed.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
    #[cfg(not(target_os = "linux"))]
    Vec::new()
}

/// The CPUs for a cell of `workers` workers: the first `workers` of `allowed`, or all of
/// them when there are not that many (an oversubscribed run).
pub fn for_workers(allowed: &[usize], workers: usize) -> &[usize] {
    &allowed[..workers.min(allowed.len())]
}

/// While alive, the calling thread runs only on the given CPUs; dropping it restores the
/// thread's previous mask.
pub struct Restricted {
    #[cfg(target_os = "linux")]
    previous: Option<libc::cpu_set_t>,
}

/// Restricts the calling thread to `cpus`. Best effort: with no CPUs given, or where the
/// mask cannot be set, the thread keeps running where it may (the measurement is still
/// right, only less comparable across runtimes).
pub fn restrict(cpus: &[usize]) -> Restricted {
    #[cfg(target_os = "linux")]
    {
        if cpus.is_empty() {
            return Restricted { previous: None };
        }
        // SAFETY: plain bit sets of the size passed; the calls only read and write them.
        unsafe {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            let mut previous: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut previous) != 0 {
                return Restricted { previous: None };
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, size, &set) != 0 {
                return Restricted { previous: None };
            }
            Restricted {
                previous: Some(previous),
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        Restricted {}
    }
}

impl Drop for Restricted {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(previous) = &self.previous {
            // SAFETY: restores a mask read from this thread; a failure leaves the narrower
            // mask, which only costs parallelism.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), previous);
            }
        }
    }
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

    #[cfg(target_os = "linux")]
    #[test]
    fn restrict_narrows_the_mask_and_restores_it() {
        // On a thread of its own: the mask is per thread.
        std::thread::spawn(|| {
            let before = allowed();
            assert!(!before.is_empty());
            {
                let _r = restrict(&before[..1]);
                assert_eq!(allowed(), &before[..1]);
                // A thread started now inherits the narrowed mask.
                let inner = std::thread::spawn(allowed).join().unwrap();
                assert_eq!(inner, &before[..1]);
            }
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }
}
