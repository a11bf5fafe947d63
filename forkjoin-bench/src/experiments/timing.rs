//! Timing a run, and how many cores it really had: two threads released together
//! (`time_pair`), or a forkjoin pool (`in_pool`). A sample's parallelism is the CPU time
//! the run's threads got, divided by the wall time around it, where the platform tells:
//! for two threads, 2.0 means they truly ran side by side; near 1.0 means another process
//! held a core and the two took turns on the other, so the run says nothing about caches
//! or locks.

use std::sync::Barrier;
use std::time::Instant;

use super::Best;
use crate::suite::kbest::Sample;

/// Runs `a` and `b` on two threads released together by a barrier and returns the sample
/// (from the first start to the last finish) with both results. Creating the threads is
/// outside the timed span: the first lesson of "Multithreaded multicore optimisation" is that
/// starting a thread can cost more than a small piece of work.
pub(super) fn time_pair<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (Sample, RA, RB) {
    let barrier = Barrier::new(2);
    let (ta, ra, tb, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| timed_after(&barrier, a));
        let hb = s.spawn(|| timed_after(&barrier, b));
        let (ta, ra) = ha.join().expect("experiment thread panicked");
        let (tb, rb) = hb.join().expect("experiment thread panicked");
        (ta, ra, tb, rb)
    });
    let secs = (ta.end.max(tb.end) - ta.start.min(tb.start)).as_secs_f64();
    // Over the outer windows, which hold the CPU-time readings: a ratio of at most 2.
    let window =
        (ta.outer_end.max(tb.outer_end) - ta.outer_start.min(tb.outer_start)).as_secs_f64();
    let parallelism = ta.cpu.zip(tb.cpu).map(|(a, b)| (a + b) / window);
    (
        Sample {
            seconds: secs,
            parallelism,
        },
        ra,
        rb,
    )
}

/// When one thread of `time_pair` ran its work, and the CPU time it had meanwhile.
struct ThreadTimes {
    /// Before the first CPU-time reading.
    outer_start: Instant,
    /// The timed span: after the first reading, before the second.
    start: Instant,
    end: Instant,
    /// After the second reading.
    outer_end: Instant,
    /// CPU seconds between the readings, where the platform tells.
    cpu: Option<f64>,
}

/// Waits at `barrier`, then runs `f`, timing it and reading the thread's CPU time around it.
fn timed_after<R>(barrier: &Barrier, f: impl FnOnce() -> R) -> (ThreadTimes, R) {
    barrier.wait();
    let outer_start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    let start = Instant::now();
    let r = f();
    let end = Instant::now();
    let cpu_end = thread_cpu_seconds();
    let outer_end = Instant::now();
    let cpu = cpu_end.zip(cpu_start).map(|(e, s)| e - s);
    (
        ThreadTimes {
            outer_start,
            start,
            end,
            outer_end,
            cpu,
        },
        r,
    )
}

/// The CPU time the calling thread has had, from Linux's `/proc/thread-self/schedstat`
/// (its first field: nanoseconds on a CPU). `None` elsewhere. The kernel brings that
/// figure up to date only when the thread passes through the scheduler (else it lags by up
/// to a tick, milliseconds), so this yields first; callers read it outside timed spans.
fn thread_cpu_seconds() -> Option<f64> {
    std::thread::yield_now();
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// A run that had less than this fraction of the cores it asked for mostly waited for
/// another process: its time measures the scheduler, not the code.
const FAIR_SHARE: f64 = 0.75;

/// How many cores each variant's runs really had (`label`, out of `of`), and a warning when
/// one of those marked `busy` had less than its fair share. Unmarked variants may
/// legitimately leave cores idle: a thread waiting for a `Mutex` sleeps.
pub(super) fn on_cpu(label: &str, bests: &[Best], busy: &[bool], of: usize) -> String {
    let Some(p) = bests
        .iter()
        .map(|b| b.parallelism)
        .collect::<Option<Vec<f64>>>()
    else {
        return String::new();
    };
    let list: Vec<String> = p.iter().map(|p| format!("{p:.2}")).collect();
    let mut note = format!(" ({label} {} of {of}", list.join(", "));
    if p.iter()
        .zip(busy)
        .any(|(&p, &busy)| busy && p < FAIR_SHARE * of as f64)
    {
        note.push_str("; another process held a core, so this ratio says little");
    }
    note.push(')');
    note
}

/// `on_cpu` for the two-thread experiments.
pub(super) fn side_by_side(bests: &[Best], busy: &[bool]) -> String {
    on_cpu("threads ran side by side:", bests, busy, 2)
}

/// Runs `f` (which enters `pool`) and returns its sample, with the CPU time the pool's
/// threads and the calling thread had meanwhile as its parallelism. The caller counts: a
/// call from outside runs on it, in a parked worker's slot (DESIGN.md, section 7); when it
/// hands the job over instead, it sleeps and adds nothing.
pub(super) fn in_pool<R>(pool: &forkjoin::Pool, f: impl FnOnce() -> R) -> (Sample, R) {
    let outer_start = Instant::now();
    let cpu_start = pool.cpu_time().zip(thread_cpu_seconds());
    let start = Instant::now();
    let r = f();
    let secs = start.elapsed().as_secs_f64();
    let cpu = pool
        .cpu_time()
        .zip(thread_cpu_seconds())
        .zip(cpu_start)
        .map(|((pool_end, own_end), (pool_start, own_start))| {
            (pool_end - pool_start).as_secs_f64() + (own_end - own_start)
        });
    let window = outer_start.elapsed().as_secs_f64();
    (
        Sample {
            seconds: secs,
            parallelism: cpu.map(|c| c / window),
        },
        r,
    )
}
