//! The profiler's instrument (`forkjoin::instrument`, feature `profile`) as the
//! `forkjoin-profile` crate uses it from outside: the profiling switch, timed strands, and
//! the scheduler facts the calibration reads.

use forkjoin::instrument::{is_profiling, measured, Profiling, Session};

pub(crate) fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn profiling_is_switched_on_and_restored() {
    let pool = forkjoin::Pool::new(2).unwrap();
    assert!(!is_profiling(&pool));
    {
        let _outer = Profiling::start(&pool);
        assert!(is_profiling(&pool));
        {
            let _inner = Profiling::start(&pool);
            assert!(is_profiling(&pool));
        }
        // The inner switch restores what it found: still on.
        assert!(is_profiling(&pool));
    }
    assert!(!is_profiling(&pool));
    // On a worker, the switch takes the worker's own pool; outside any pool there is none.
    assert!(Profiling::start_on_current().is_none());
    pool.install(|| {
        let _on = Profiling::start_on_current().expect("a worker's pool");
    });
    assert!(!is_profiling(&pool));
}

#[test]
fn a_measured_closure_counts_every_join_and_strand() {
    let pool = forkjoin::Pool::new(2).unwrap();
    let _on = Profiling::start(&pool);
    let session = Session::new(0, 0, true, 1 << 16);
    let (answer, acc) = pool.install(|| measured(&session, || fib(12)));
    assert_eq!(answer, 144);
    // fib(12) makes fib(13) - 1 = 232 joins; each adds a strand in each closure and one
    // after it, to the one the closure starts with.
    assert_eq!(acc.joins, 232);
    assert_eq!(acc.strands, 1 + 3 * 232);
    assert_eq!(acc.graph.total_joins(), 232);
    assert!(acc.span <= acc.work);
}

#[test]
fn the_scheduler_facts_are_read_on_a_worker_only() {
    assert_eq!(forkjoin::instrument::search_once(), None);
    assert_eq!(forkjoin::instrument::parks_of_current_pool(), None);
    let pool = forkjoin::Pool::new(1).unwrap();
    assert_eq!(pool.install(forkjoin::instrument::search_once), Some(false));
    assert!(pool
        .install(forkjoin::instrument::parks_of_current_pool)
        .is_some());
    assert!(forkjoin::instrument::HEARTBEAT > std::time::Duration::ZERO);
}

#[test]
fn a_waiter_in_isolation_parks_at_most_four_heartbeats() {
    use forkjoin::instrument::{HEARTBEAT, ISOLATED_PARK_DOUBLINGS};
    assert_eq!(HEARTBEAT * (1 << ISOLATED_PARK_DOUBLINGS), HEARTBEAT * 4);
}
