//! `forkjoin_profile::cpus` from outside the crate, as a user's measurement would use it:
//! find the fastest CPU, run there, and get the thread's mask back.
#![cfg(target_os = "linux")]

use forkjoin_profile::cpus;

#[test]
#[cfg_attr(miri, ignore = "sets the thread's affinity mask")]
fn a_measurement_runs_on_the_fastest_cpu_and_the_mask_comes_back() {
    // On a thread of its own: the mask is per thread.
    std::thread::spawn(|| {
        let all = cpus::allowed();
        assert!(!all.is_empty());
        let fastest = cpus::fastest_cpu().expect("Linux supports affinity");
        assert!(all.contains(&fastest));
        // Finding it leaves the mask as it was.
        assert_eq!(cpus::allowed(), all);
        {
            let _on = cpus::restrict(&[fastest]);
            assert_eq!(cpus::allowed(), [fastest]);
            // A pool's workers started now inherit the mask.
            let worker = std::thread::spawn(cpus::allowed).join().unwrap();
            assert_eq!(worker, [fastest]);
        }
        assert_eq!(cpus::allowed(), all);
        // No CPUs given: nothing changes.
        let _none = cpus::restrict(&[]);
        assert_eq!(cpus::allowed(), all);
    })
    .join()
    .unwrap();
}
