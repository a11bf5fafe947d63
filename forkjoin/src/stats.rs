//! Scheduling statistics: steal rates, as Lea's paper reports them (§4.5), for users.

use std::fmt;

/// Counters of one worker since the pool started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Tasks this worker ran: joins' second closures run inline plus jobs taken from a
    /// queue (shared joins, spawned and submitted tasks).
    pub tasks_run: u64,
    /// Jobs taken from another worker's deque or from a submission queue.
    pub tasks_stolen: u64,
    /// Searches of all the other queues that found nothing.
    pub failed_steals: u64,
    /// Times the worker parked for lack of work.
    pub parks: u64,
    /// Times the worker slept waiting for its own join, scope or task with no work descending
    /// from it in sight (it waits in isolation: DESIGN.md, section 5), timeouts included.
    pub isolated_sleeps: u64,
    /// Joins whose second closure ran on this worker without ever being shared.
    pub joins_inline: u64,
    /// Joins this worker made stealable (promoted onto its deque).
    pub tasks_shared: u64,
    /// Joins' second closures this worker took, idle, from a stalled worker (DESIGN.md,
    /// section 4, "Claimed from a stalled worker"); counted in `tasks_stolen` too.
    pub frames_claimed: u64,
}

impl WorkerStats {
    /// `self` and `o` combined field by field with `f`.
    fn zip(&self, o: &WorkerStats, f: impl Fn(u64, u64) -> u64) -> WorkerStats {
        WorkerStats {
            tasks_run: f(self.tasks_run, o.tasks_run),
            tasks_stolen: f(self.tasks_stolen, o.tasks_stolen),
            failed_steals: f(self.failed_steals, o.failed_steals),
            parks: f(self.parks, o.parks),
            isolated_sleeps: f(self.isolated_sleeps, o.isolated_sleeps),
            joins_inline: f(self.joins_inline, o.joins_inline),
            tasks_shared: f(self.tasks_shared, o.tasks_shared),
            frames_claimed: f(self.frames_claimed, o.frames_claimed),
        }
    }

    /// Counters accumulated between an earlier snapshot and this one.
    pub fn since(&self, earlier: &WorkerStats) -> WorkerStats {
        self.zip(earlier, |now, then| now - then)
    }
}

/// A snapshot of a pool's statistics: per worker and in total.
///
/// ```
/// let pool = forkjoin::Pool::new(2).unwrap();
/// pool.install(|| forkjoin::join(|| 1, || 2));
/// let stats = pool.stats();
/// assert_eq!(stats.workers.len(), 2);
/// assert!(stats.total.tasks_run >= 1);
/// // Times a waiting worker slept with nothing of its own to run, in total and per worker.
/// let slept: u64 = stats.workers.iter().map(|w| w.isolated_sleeps).sum();
/// assert_eq!(slept, stats.total.isolated_sleeps);
/// println!("{stats}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// One entry per worker, by index.
    pub workers: Vec<WorkerStats>,
    /// The sum over the workers.
    pub total: WorkerStats,
    /// Jobs submitted from outside the pool (`install`, `submit`, `join` from outside).
    pub external_submissions: u64,
}

impl Stats {
    pub(crate) fn new(workers: Vec<WorkerStats>, external_submissions: u64) -> Stats {
        let add = |t: WorkerStats, w: &WorkerStats| t.zip(w, |a, b| a + b);
        let total = workers.iter().fold(WorkerStats::default(), add);
        Stats {
            workers,
            total,
            external_submissions,
        }
    }

    /// Counters accumulated between an earlier snapshot of the same pool and this one.
    pub fn since(&self, earlier: &Stats) -> Stats {
        let workers = self
            .workers
            .iter()
            .zip(&earlier.workers)
            .map(|(a, b)| a.since(b))
            .collect();
        Stats::new(
            workers,
            self.external_submissions - earlier.external_submissions,
        )
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>6} {:>14} {:>12} {:>12} {:>14} {:>12} {:>8} {:>14}",
            "worker",
            "tasks run",
            "stolen",
            "shared",
            "joins inline",
            "failed",
            "parks",
            "waits slept"
        )?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, w: &WorkerStats| {
            writeln!(
                f,
                "{:>6} {:>14} {:>12} {:>12} {:>14} {:>12} {:>8} {:>14}",
                name,
                w.tasks_run,
                w.tasks_stolen,
                w.tasks_shared,
                w.joins_inline,
                w.failed_steals,
                w.parks,
                w.isolated_sleeps
            )
        };
        for (i, w) in self.workers.iter().enumerate() {
            row(f, &i.to_string(), w)?;
        }
        row(f, "total", &self.total)?;
        let steal_rate = if self.total.tasks_run == 0 {
            0.0
        } else {
            self.total.tasks_stolen as f64 / self.total.tasks_run as f64
        };
        write!(
            f,
            "external submissions: {}; stolen per task run: {:.2e}",
            self.external_submissions, steal_rate
        )
    }
}
