//! Which CPU a measurement runs on: the affinity mask of the calling thread, and the CPU
//! that runs fastest now.
//!
//! Why the calibration cares: this host's slow states belong to one CPU at a time. A plain
//! loop pinned to each of the two virtual CPUs in turn, once a second for forty seconds,
//! took 1.2-1.5x its usual time on one while the other ran at full speed in 19 of the 40
//! seconds, and on both in 5. A measurement taken on whichever CPU the scheduler picks
//! reads a slow state's cost whenever it lands on the slow CPU; one on the CPU found
//! fastest a moment before lands there far less often.

/// The CPUs this process may run on, ascending; empty where affinity is not supported.
///
/// ```
/// let cpus = forkjoin_profile::cpus::allowed();
/// assert!(cpus.windows(2).all(|w| w[0] < w[1]));
/// ```
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

/// While alive, the calling thread runs only on the given CPUs; dropping it restores the
/// thread's previous mask. Threads started meanwhile inherit the narrower mask.
///
/// ```
/// use forkjoin_profile::cpus;
///
/// let all = cpus::allowed();
/// if let Some(&first) = all.first() {
///     let on = cpus::restrict(&[first]);
///     assert_eq!(cpus::allowed(), [first]);
///     drop(on);
///     assert_eq!(cpus::allowed(), all);
/// }
/// ```
pub struct Restricted {
    #[cfg(target_os = "linux")]
    previous: Option<libc::cpu_set_t>,
}

/// Restricts the calling thread to `cpus`. Best effort: with no CPUs given, or where the
/// mask cannot be set, the thread keeps running where it may (a measurement is still
/// right, only less comparable with another).
///
/// ```
/// use forkjoin_profile::cpus;
///
/// // A thread started while the mask is narrowed runs on those CPUs (so do the workers
/// // of a pool built then).
/// let first: Vec<usize> = cpus::allowed().into_iter().take(1).collect();
/// let thread = {
///     let _on = cpus::restrict(&first);
///     std::thread::spawn(cpus::allowed)
/// };
/// assert_eq!(thread.join().unwrap(), first);
/// ```
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

/// How many of the allowed CPUs [`fastest_cpu`] tries: a probe takes about 0.3 ms a CPU.
const PROBED_CPUS: usize = 4;

/// The allowed CPU (of the first four) that runs a fixed plain loop fastest now, found by
/// running the loop on each in turn from the calling thread; `None` where affinity is not
/// supported. The calling thread's mask is as before on return.
///
/// ```
/// let cpu = forkjoin_profile::cpus::fastest_cpu();
/// if let Some(cpu) = cpu {
///     assert!(forkjoin_profile::cpus::allowed().contains(&cpu));
///     let _on = forkjoin_profile::cpus::restrict(&[cpu]);
///     // ... measure here ...
/// }
/// ```
pub fn fastest_cpu() -> Option<usize> {
    allowed()
        .into_iter()
        .take(PROBED_CPUS)
        .map(|cpu| {
            let _on = restrict(&[cpu]);
            (probe_seconds(), cpu)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, cpu)| cpu)
}

/// The fastest of three runs of a plain recursion of about 0.1 ms.
fn probe_seconds() -> f64 {
    #[inline(never)]
    fn tree(x: f64, depth: u32) -> f64 {
        if depth == 0 {
            return (x * x + 1.0).sqrt();
        }
        tree(x * 0.5, depth - 1) + tree(x * 0.25 + 1.0, depth - 1)
    }
    (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(tree(std::hint::black_box(3.0), 14));
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[cfg(target_os = "linux")]
    #[test]
    fn the_fastest_cpu_is_an_allowed_one_and_the_mask_is_kept() {
        std::thread::spawn(|| {
            let before = allowed();
            let cpu = fastest_cpu().expect("Linux supports affinity");
            assert!(before.iter().take(PROBED_CPUS).any(|&c| c == cpu));
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }
}
