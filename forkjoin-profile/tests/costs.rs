//! The profiler's pieces a user's measurement uses: a program's own join cost saved by
//! `fj calibrate` replaces the generic one for that program only, and survives a save and a
//! load; the fastest CPU, and running there with the thread's mask given back.

use forkjoin_profile::{cpus, Costs, MIN_ROUNDS};

#[test]
fn a_program_gets_its_own_join_cost_and_others_the_generic_one() {
    let mut costs = Costs::typical();
    costs.join_ns = 0.6;
    costs.program_join_ns.insert("nqueens".into(), 6.8);
    costs.program_join_ns.insert("integrate".into(), 0.75);

    let dir = std::env::temp_dir().join(format!("forkjoin-costs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("costs.json");
    costs.save(&path).unwrap();
    let loaded = Costs::load(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(loaded, costs);

    assert_eq!(loaded.for_program("nqueens").join_ns, 6.8);
    assert_eq!(loaded.for_program("integrate").join_ns, 0.75);
    assert_eq!(loaded.for_program("fib").join_ns, 0.6);
    // Only the join changes: every other cost is the file's.
    let own = loaded.for_program("nqueens");
    assert_eq!(own.steal_ns, loaded.steal_ns);
    assert_eq!(own.wake_ns, loaded.wake_ns);
    assert_eq!(own.program_join_ns, loaded.program_join_ns);
}

/// `Costs::measure_rounds` (and so `measure_with`, its default number of rounds) runs the
/// caller's measurement once after every round, and the costs it returns are the
/// measurement's: every measured cost a non-negative figure. Below the fewest rounds it
/// takes the fewest.
#[test]
#[cfg_attr(miri, ignore = "measures the host for seconds")]
fn measure_rounds_runs_the_callers_turn_after_every_round() {
    let mut turns = 0;
    let costs = Costs::measure_rounds(MIN_ROUNDS + 1, || turns += 1);
    assert_eq!(turns, MIN_ROUNDS + 1);
    let mut turns = 0;
    Costs::measure_rounds(1, || turns += 1);
    assert_eq!(turns, MIN_ROUNDS);
    // Figures, whatever their size: how large they come out depends on the host's speed
    // and load, which no test may assume.
    for cost in costs.measured() {
        assert!(cost.is_finite() && cost >= 0.0, "{costs:?}");
    }
    // The host's speed, recorded for the next calibration to compare with.
    let speed = costs
        .speed_ns
        .expect("a measurement records the host's speed");
    assert!(speed.is_finite() && speed > 0.0, "{costs:?}");
}

#[test]
#[cfg(target_os = "linux")]
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
