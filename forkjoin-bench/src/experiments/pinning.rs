//! `pinning` ("Multithreaded multicore optimisation"): a forkjoin pool with pinned workers
//! against unpinned.

use super::timing::{in_pool, on_cpu};
use super::{cores, interleaved, ms, Outcome, Plan};
use crate::suite::kbest::Sample;

const PINNING_CLAIM: &str =
    "pinning each worker thread to its own core (CPU affinity) makes the same \
     fork/join work faster (held if pinned is at least 1.05x faster)";

/// Below this `n` fib recurses sequentially: Lea's threshold.
const FIB_THRESHOLD: u32 = 13;

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn fib_fj(n: u32) -> u64 {
    if n <= FIB_THRESHOLD {
        return fib_seq(n);
    }
    let (a, b) = forkjoin::join(|| fib_fj(n - 1), || fib_fj(n - 2));
    a + b
}

fn fib_exact(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Builds a fresh pool of `threads` workers, pinned or not, runs fib(n) once untimed (the
/// workers' first wake-up) and once timed, checks the answer and drops the pool. A fresh
/// pool each time, so the variant not being timed has no threads left that could still be
/// spinning for work.
fn fib_in_pool(threads: usize, pin: bool, n: u32) -> Result<Sample, String> {
    let pool = forkjoin::Pool::builder()
        .threads(threads)
        .pin_threads(pin)
        .build()
        .map_err(|e| format!("pinning: cannot build a pool of {threads} (pinned: {pin}): {e}"))?;
    pool.install(|| fib_fj(n));
    let (sample, answer) = in_pool(&pool, || pool.install(|| fib_fj(n)));
    let expected = fib_exact(n);
    if answer != expected {
        return Err(format!(
            "pinning: fib({n}) gave {answer}, expected {expected}"
        ));
    }
    Ok(sample)
}

pub(super) fn run(plan: &Plan) -> Result<Outcome, String> {
    let threads = cores();
    let n = plan.fib_n;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| fib_in_pool(threads, false, n)),
            Box::new(|| fib_in_pool(threads, true, n)),
        ],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "pinning",
        claim: PINNING_CLAIM,
        source: "Multicore",
        measured: format!(
            "fib({n}) (threshold {FIB_THRESHOLD}) on {threads} workers: unpinned {}, pinned {}: \
             pinned {ratio:.2}x faster{}",
            ms(t[0].secs),
            ms(t[1].secs),
            on_cpu("cores the workers had:", &t, &[true, true], threads)
        ),
        ratio,
        held: ratio >= 1.05,
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fib_in_both_pools_is_right() {
        assert_eq!(fib_exact(20), 6765);
        fib_in_pool(2, false, 20).unwrap();
        fib_in_pool(2, true, 20).unwrap();
    }
}
