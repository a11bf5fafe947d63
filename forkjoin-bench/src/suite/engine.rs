//! The Rust runtimes as the harness drives them: one pool per (runtime, worker count), built
//! once and reused by every program, and one timed run of a workload on it.
//!
//! The timer covers entering the runtime and the run: `install` for forkjoin and rayon,
//! creating the scope for chili, nothing for the sequential baseline. That is the same for
//! every runtime and costs microseconds against runs of milliseconds or more. `reset` and
//! `verify` are never timed.

use std::num::NonZero;
use std::time::Instant;

use crate::join::SplitRun;
use crate::suite::programs::{Ctx, Runtime, Workload};

/// Worker stacks for rayon, as large as forkjoin's: deep trees (UTS T3, 1,572 levels) need
/// more than rayon's default 2 MiB.
const STACK_BYTES: usize = 16 << 20;

/// A runtime ready to run workloads.
pub(crate) enum Engine {
    Sequential,
    Forkjoin(forkjoin::Pool),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
    /// forkjoin with the top joins split across the workers and the time below them
    /// summed (`fj validate`'s co-run measurement, see [`SplitRun`]): `time_run` returns
    /// that sum, not the run's wall time.
    Split(forkjoin::Pool, SplitRun),
}

impl Engine {
    /// Builds `rt`'s pool with `threads` workers (the sequential baseline has none).
    pub(crate) fn new(rt: Runtime, threads: usize) -> Result<Engine, String> {
        let fail = |e: &dyn std::fmt::Display| format!("{} pool of {threads}: {e}", rt.name());
        Ok(match rt {
            Runtime::Sequential => Engine::Sequential,
            Runtime::Forkjoin => {
                Engine::Forkjoin(forkjoin::Pool::new(threads).map_err(|e| fail(&e))?)
            }
            Runtime::Rayon => Engine::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .stack_size(STACK_BYTES)
                    .build()
                    .map_err(|e| fail(&e))?,
            ),
            // chili counts the thread that opens a scope as one of its `thread_count`.
            Runtime::Chili => Engine::Chili(chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZero::new(threads),
                ..Default::default()
            })),
            Runtime::Java => {
                return Err("java runs in its own process, not in an engine".to_string())
            }
        })
    }

    /// Runs `w` once (already reset) and returns the seconds it took.
    pub(crate) fn time_run(&self, w: &mut dyn Workload) -> f64 {
        let start = Instant::now();
        match self {
            Engine::Sequential => w.run(&mut Ctx::Sequential),
            Engine::Forkjoin(pool) => pool.install(|| w.run(&mut Ctx::Forkjoin)),
            Engine::Rayon(pool) => pool.install(|| w.run(&mut Ctx::Rayon)),
            Engine::Chili(pool) => {
                // A scope per run: while one is open chili's heartbeat thread ticks, which
                // would disturb the other runtimes' measurements.
                let mut scope = pool.scope();
                w.run(&mut Ctx::Chili(&mut scope));
            }
            Engine::Split(pool, split) => {
                split.take_busy_seconds();
                pool.install(|| w.run(&mut Ctx::Split(split)));
                return split.take_busy_seconds();
            }
        }
        start.elapsed().as_secs_f64()
    }

    /// forkjoin's scheduling counters; `None` for runtimes that keep none.
    pub(crate) fn stats(&self) -> Option<forkjoin::Stats> {
        match self {
            Engine::Forkjoin(pool) => Some(pool.stats()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::programs::{fib, Size};

    #[test]
    fn split_runs_time_each_subtree_at_the_split_depth() {
        // fib's tree is complete in its first levels, so a run times exactly 2^levels
        // subtrees; the answer is still right.
        let mut w = (fib::programs()[0].make)(Size::Test);
        for (workers, levels) in [(1, 1), (2, 1), (2, 3)] {
            let engine =
                Engine::Split(forkjoin::Pool::new(workers).unwrap(), SplitRun::new(levels));
            let Engine::Split(_, split) = &engine else {
                unreachable!()
            };
            for _ in 0..2 {
                w.reset();
                let busy = engine.time_run(w.as_mut());
                assert!(busy > 0.0);
                assert_eq!(split.take_subtrees(), 1 << levels);
                w.verify().unwrap();
            }
        }
    }
}
