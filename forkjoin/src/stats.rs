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
    /// Joins' second closures this worker took, idle, from a worker that had reached no
    /// join for a while (a first closure blocked or running long); counted in
    /// `tasks_stolen` too (DESIGN.md, section 4, "Claimed from a stalled worker").
    pub frames_claimed: u64,
}

impl WorkerStats {
    fn add(&mut self, o: &WorkerStats) {
        self.tasks_run += o.tasks_run;
        self.tasks_stolen += o.tasks_stolen;
        self.failed_steals += o.failed_steals;
        self.parks += o.parks;
        self.isolated_sleeps += o.isolated_sleeps;
        self.joins_inline += o.joins_inline;
        self.tasks_shared += o.tasks_shared;
        self.frames_claimed += o.frames_claimed;
    }

    /// Counters accumulated between an earlier snapshot and this one.
    pub fn since(&self, earlier: &WorkerStats) -> WorkerStats {
        WorkerStats {
            tasks_run: self.tasks_run - earlier.tasks_run,
            tasks_stolen: self.tasks_stolen - earlier.tasks_stolen,
            failed_steals: self.failed_steals - earlier.failed_steals,
            parks: self.parks - earlier.parks,
            isolated_sleeps: self.isolated_sleeps - earlier.isolated_sleeps,
            joins_inline: self.joins_inline - earlier.joins_inline,
            tasks_shared: self.tasks_shared - earlier.tasks_shared,
            frames_claimed: self.frames_claimed - earlier.frames_claimed,
        }
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
        let mut total = WorkerStats::default();
        for w in &workers {
            total.add(w);
        }
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
