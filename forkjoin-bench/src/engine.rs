//! The Rust runtimes as the harness drives them: one pool per (runtime, worker count), built
//! once and reused by every program, and one timed run of a workload on it.
//!
//! The timer covers entering the runtime and the run: `install` for forkjoin and rayon,
//! creating the scope for chili, nothing for the sequential baseline. That is the same for
//! every runtime and costs microseconds against runs of milliseconds or more. `reset` and
//! `verify` are never timed.

use std::num::NonZero;
use std::time::Instant;

use crate::programs::{Ctx, Runtime, Workload};

/// Worker stacks for rayon, as large as forkjoin's: deep trees (UTS T3, 1,572 levels) need
/// more than rayon's default 2 MiB.
const STACK_BYTES: usize = 16 << 20;

/// A runtime ready to run workloads.
pub enum Engine {
    Sequential,
    Forkjoin(forkjoin::Pool),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
    /// The sequential version beside copies of itself, one per CPU (see [`Copies`]).
    Copies(Copies),
}

/// The sequential version of one program run as several copies at once, each on a CPU of
/// its own: how much slower a copy runs beside the others than alone is the memory
/// bandwidth and shared cache a profile timed on one worker cannot see (`fj validate`).
/// The workload a run is given is one copy, on the first CPU; the others are kept here.
pub struct Copies {
    others: std::sync::Mutex<Vec<Box<dyn Workload>>>,
    cpus: Vec<usize>,
}

impl Copies {
    /// Copies on the CPUs `cpus` (one each); `make` builds the copies beyond the first.
    pub fn new(cpus: Vec<usize>, mut make: impl FnMut() -> Box<dyn Workload>) -> Copies {
        let others = (1..cpus.len()).map(|_| make()).collect();
        Copies {
            others: std::sync::Mutex::new(others),
            cpus,
        }
    }

    /// Runs `first` and the other copies at once and returns the mean of their times.
    /// Panics if another copy's answer is wrong (the harness reports it as the cell's
    /// error, as it does for a program that panics).
    fn time_run(&self, first: &mut dyn Workload) -> f64 {
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        let start = std::sync::Barrier::new(others.len() + 1);
        let times: Vec<f64> = std::thread::scope(|s| {
            let handles: Vec<_> = others
                .iter_mut()
                .zip(&self.cpus[1..])
                .map(|(w, cpu)| {
                    let start = &start;
                    s.spawn(move || {
                        let _on = crate::cpus::restrict(std::slice::from_ref(cpu));
                        w.reset();
                        start.wait();
                        Engine::Sequential.time_run(w.as_mut())
                    })
                })
                .collect();
            let _on = crate::cpus::restrict(&self.cpus[..1]);
            start.wait();
            let first = Engine::Sequential.time_run(first);
            let others = handles.into_iter().map(|h| match h.join() {
                Ok(t) => t,
                Err(panic) => std::panic::resume_unwind(panic),
            });
            std::iter::once(first).chain(others).collect()
        });
        for w in others.iter() {
            if let Err(e) = w.verify() {
                panic!("a copy run beside the others: {e}");
            }
        }
        times.iter().sum::<f64>() / times.len() as f64
    }
}

impl Engine {
    /// Builds `rt`'s pool with `threads` workers (the sequential baseline has none).
    pub fn new(rt: Runtime, threads: usize) -> Result<Engine, String> {
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
    pub fn time_run(&self, w: &mut dyn Workload) -> f64 {
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
            Engine::Copies(copies) => return copies.time_run(w),
        }
        start.elapsed().as_secs_f64()
    }

    /// forkjoin's scheduling counters; `None` for runtimes that keep none.
    pub fn stats(&self) -> Option<forkjoin::Stats> {
        match self {
            Engine::Forkjoin(pool) => Some(pool.stats()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::Ctx;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::Arc;

    /// Counts its runs in a shared counter; its answer is right only if `honest` and it ran
    /// since its last reset.
    struct Counted {
        runs: Arc<AtomicUsize>,
        honest: bool,
        ran: bool,
    }

    impl Counted {
        fn new(runs: &Arc<AtomicUsize>, honest: bool) -> Counted {
            Counted {
                runs: runs.clone(),
                honest,
                ran: false,
            }
        }
    }

    impl Workload for Counted {
        fn reset(&mut self) {
            self.ran = false;
        }
        fn run(&mut self, _: &mut Ctx<'_, '_>) {
            self.runs.fetch_add(1, Relaxed);
            self.ran = true;
        }
        fn verify(&self) -> Result<(), String> {
            match (self.honest, self.ran) {
                (true, true) => Ok(()),
                (false, _) => Err("forty-one".into()),
                (true, false) => Err("no run".into()),
            }
        }
    }

    fn copies(n: usize, honest: bool, runs: &Arc<AtomicUsize>) -> Engine {
        let cpu = crate::cpus::allowed().first().copied().unwrap_or(0);
        Engine::Copies(Copies::new(vec![cpu; n], || {
            Box::new(Counted::new(runs, honest))
        }))
    }

    #[test]
    fn copies_run_every_copy_each_time() {
        let runs = Arc::new(AtomicUsize::new(0));
        let engine = copies(3, true, &runs);
        let mut first = Counted::new(&runs, true);
        for round in 1..=2 {
            first.reset();
            assert!(engine.time_run(&mut first) >= 0.0);
            assert_eq!(runs.load(Relaxed), 3 * round);
            assert_eq!(first.verify(), Ok(()));
        }
    }

    #[test]
    fn a_wrong_answer_of_another_copy_fails_the_run() {
        let runs = Arc::new(AtomicUsize::new(0));
        let engine = copies(2, false, &runs);
        let mut first = Counted::new(&runs, true);
        let panic =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.time_run(&mut first)))
                .unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert_eq!(message, "a copy run beside the others: forty-one");
        assert_eq!(runs.load(Relaxed), 2);
    }
}
