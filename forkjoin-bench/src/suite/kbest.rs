//! The K-best measuring method of "Multithreaded multicore optimisation": time a computation
//! repeatedly, keep the K fastest runs, and stop once the K-th fastest is within
//! (1 + epsilon) of the fastest (converged) or after at most M runs (not converged). The figure reported is the mean of
//! the K fastest. Slow runs are noise (another process, a page fault storm), never signal,
//! so the fastest runs are the best estimate of what the code costs.
//!
//! This module is the bookkeeping only, fed with times by the caller, so the stopping rule
//! can be tested with synthetic timing sequences; `measure` runs the measurements.

use std::fmt;

/// The method's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Method {
    /// How many of the fastest runs are kept and averaged.
    pub k: usize,
    /// Converged when the K-th fastest time is at most (1 + epsilon) times the fastest.
    pub epsilon: f64,
    /// The most timed runs of one measurement.
    pub max_runs: usize,
    /// Untimed runs before the timed ones (caches, page faults, thread wake-up, JIT).
    pub warmup: usize,
    /// Measured seconds after which a measurement stops once it has K runs, converged or
    /// not: keeps a whole suite within a time limit on a noisy machine. `None`: no limit.
    pub budget: Option<f64>,
}

impl Method {
    /// The default run: small K and M so the whole suite at the default size fits in
    /// about ten minutes on two cores (with the budget as the backstop on a noisy machine).
    /// Epsilon is the seed's 2 %: with 5 %, three runs from one slow stretch of a shared
    /// host agreed soon enough to end a measurement inside it. M is the seed's 200, so that
    /// the budget, not M, ends a short program's measurement: with 40, all the runs of NAS
    /// FT (15 ms each) could fall into one slow second. The suite takes about 3.5 minutes
    /// on two cores instead of 2.7.
    pub(crate) const QUICK: Method = Method {
        k: 3,
        epsilon: 0.02,
        max_runs: 200,
        warmup: 1,
        budget: Some(1.5),
    };

    /// `fj validate`'s: as QUICK with twice the budget, so that the K fastest are picked
    /// from more runs (a prediction is checked against the figure, so its noise counts
    /// twice).
    pub(crate) const VALIDATE: Method = Method {
        budget: Some(3.0),
        ..Method::QUICK
    };

    /// Seed 003's parameters: K = 10, epsilon = 2 %, M = 200; no time budget.
    pub(crate) const RIGOROUS: Method = Method {
        k: 10,
        epsilon: 0.02,
        max_runs: 200,
        warmup: 2,
        budget: None,
    };
}

impl Method {
    /// Exactly `runs` timed runs after `warmup` untimed ones, whatever the times: never
    /// converged (epsilon is minus infinity) and no budget. The figure is still the mean of
    /// the K fastest. `fj experiments` measures its variants so, in a fixed number of rounds.
    pub(crate) fn fixed_runs(k: usize, runs: usize, warmup: usize) -> Method {
        Method {
            k,
            epsilon: f64::NEG_INFINITY,
            max_runs: runs,
            warmup,
            budget: None,
        }
    }

    /// This method for a harness that cannot stop on a time budget (the Java peer): M
    /// lowered to the runs that fit in the budget at `run_seconds` a run, but never below K.
    pub(crate) fn budget_as_max_runs(&self, run_seconds: f64) -> Method {
        let Some(budget) = self.budget.filter(|_| run_seconds > 0.0) else {
            return *self;
        };
        let fit = (budget / run_seconds).ceil().min(self.max_runs as f64) as usize;
        Method {
            max_runs: fit.max(self.k),
            ..*self
        }
    }
}

// `KBest::new` would refuse a preset with K > M.
const _: () = assert!(Method::QUICK.k <= Method::QUICK.max_runs);
const _: () = assert!(Method::RIGOROUS.k <= Method::RIGOROUS.max_runs);

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "K-best: K={}, epsilon={}, M={} runs at most, {} warm-up run(s), ",
            self.k, self.epsilon, self.max_runs, self.warmup
        )?;
        match self.budget {
            Some(b) => write!(f, "budget {b} s of measured time per measurement"),
            None => write!(f, "no time budget"),
        }
    }
}

/// One timed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The CPU time the run's threads got, divided by the wall time around it, where the
    /// caller measured it: the cores the run really had (`fj experiments` reports it).
    pub parallelism: Option<f64>,
}

impl From<f64> for Sample {
    fn from(seconds: f64) -> Sample {
        Sample {
            seconds,
            parallelism: None,
        }
    }
}

/// The state of one measurement: feed it each run's time with [`KBest::record`] (or
/// [`KBest::record_sample`]) until [`KBest::done`].
#[derive(Clone, Debug)]
pub(crate) struct KBest {
    method: Method,
    /// The fastest runs so far, ascending by time, at most K of them.
    fastest: Vec<Sample>,
    runs: usize,
    /// The sum of every recorded time, for the budget.
    measured: f64,
    /// The slowest time recorded.
    slowest: Option<f64>,
}

/// What a finished measurement reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Summary {
    /// The mean of the K fastest times (of all of them if fewer than K runs were made).
    pub mean: f64,
    /// The fastest time.
    pub best: f64,
    pub converged: bool,
    /// Timed runs made (warm-ups not counted).
    pub runs: usize,
}

impl KBest {
    pub(crate) fn new(method: Method) -> KBest {
        assert!(
            method.k >= 1 && method.max_runs >= method.k,
            "need 1 <= K <= M"
        );
        KBest {
            method,
            fastest: Vec::with_capacity(method.k + 1),
            runs: 0,
            measured: 0.0,
            slowest: None,
        }
    }

    /// Records one run's time in seconds.
    pub(crate) fn record(&mut self, seconds: f64) {
        self.record_sample(Sample::from(seconds));
    }

    /// Records one run.
    pub(crate) fn record_sample(&mut self, sample: Sample) {
        let seconds = sample.seconds;
        self.runs += 1;
        self.measured += seconds;
        self.slowest = Some(self.slowest.map_or(seconds, |s| s.max(seconds)));
        let at = self.fastest.partition_point(|s| s.seconds <= seconds);
        if at < self.method.k {
            self.fastest.insert(at, sample);
            self.fastest.truncate(self.method.k);
        }
    }

    /// Whether the K fastest runs agree within (1 + epsilon).
    pub(crate) fn converged(&self) -> bool {
        self.fastest.len() == self.method.k
            && self.fastest[self.method.k - 1].seconds
                <= (1.0 + self.method.epsilon) * self.fastest[0].seconds
    }

    /// Whether to stop: converged, M runs made, or the budget spent with K runs made.
    pub(crate) fn done(&self) -> bool {
        let over_budget = self.method.budget.is_some_and(|b| self.measured >= b);
        self.converged()
            || self.runs >= self.method.max_runs
            || (over_budget && self.runs >= self.method.k)
    }

    /// Timed runs recorded.
    pub(crate) fn runs(&self) -> usize {
        self.runs
    }

    /// The result so far; `None` before the first run.
    pub(crate) fn summary(&self) -> Option<Summary> {
        let best = self.fastest.first()?.seconds;
        Some(Summary {
            mean: self.fastest.iter().map(|s| s.seconds).sum::<f64>() / self.fastest.len() as f64,
            best,
            converged: self.converged(),
            runs: self.runs,
        })
    }

    /// The slowest time recorded (beside the mean, it shows runs that fall into distinct
    /// modes); `None` before the first run.
    pub(crate) fn slowest(&self) -> Option<f64> {
        self.slowest
    }

    /// The mean parallelism of the K fastest runs, if every one of them reported it.
    pub(crate) fn parallelism(&self) -> Option<f64> {
        let n = self.fastest.len() as f64;
        self.fastest
            .iter()
            .map(|s| s.parallelism)
            .sum::<Option<f64>>()
            .map(|p| p / n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(k: usize, epsilon: f64, max_runs: usize, budget: Option<f64>) -> Method {
        Method {
            k,
            epsilon,
            max_runs,
            warmup: 0,
            budget,
        }
    }

    /// Feeds `times` until done; returns the summary and how many times were used.
    fn measure(m: Method, times: &[f64]) -> (Summary, usize) {
        let mut kb = KBest::new(m);
        for (used, &t) in times.iter().enumerate() {
            kb.record(t);
            if kb.done() {
                return (kb.summary().unwrap(), used + 1);
            }
        }
        panic!("ran out of times before the measurement finished");
    }

    #[test]
    fn converges_when_kth_fastest_is_within_epsilon() {
        // After 3 runs the fastest are 1.0, 1.2, 1.3: 1.3 > 1.05. The 4th (1.02) makes them
        // 1.0, 1.02, 1.2; the 5th (1.04) makes them 1.0, 1.02, 1.04: converged.
        let (s, used) = measure(
            method(3, 0.05, 100, None),
            &[1.2, 1.0, 1.3, 1.02, 1.04, 9.0],
        );
        assert_eq!(used, 5);
        assert!(s.converged);
        assert_eq!(s.runs, 5);
        assert_eq!(s.best, 1.0);
        assert_eq!(s.mean, (1.0 + 1.02 + 1.04) / 3.0);
    }

    #[test]
    fn exactly_at_the_bound_converges() {
        let (s, used) = measure(method(2, 0.5, 10, None), &[2.0, 3.0]);
        assert_eq!((used, s.converged, s.mean), (2, true, 2.5));
    }

    #[test]
    fn never_converges_before_k_runs() {
        // Two identical runs, K = 3: not done until the third.
        let mut kb = KBest::new(method(3, 0.05, 10, None));
        kb.record(1.0);
        kb.record(1.0);
        assert!(!kb.converged() && !kb.done());
        kb.record(1.0);
        assert!(kb.converged() && kb.done());
    }

    #[test]
    fn max_runs_cuts_off_without_converging() {
        // Times alternate widely: the 3 fastest are 1.0, 2.0, 3.0 after run 4, never within 5 %.
        let (s, used) = measure(method(3, 0.05, 4, None), &[4.0, 3.0, 2.0, 1.0, 1.0]);
        assert_eq!(used, 4);
        assert!(!s.converged);
        assert_eq!(s.runs, 4);
        assert_eq!(s.mean, 2.0);
        assert_eq!(s.best, 1.0);
    }

    #[test]
    fn mean_is_of_the_k_fastest_only() {
        let (s, _) = measure(method(2, 0.0, 5, None), &[5.0, 1.0, 7.0, 3.0, 2.0]);
        assert!(!s.converged);
        assert_eq!(s.mean, 1.5);
    }

    #[test]
    fn budget_stops_after_k_runs_only() {
        // Budget 1 s, K = 2: the first run alone spends it, but a second run is still made.
        let (s, used) = measure(method(2, 0.01, 100, Some(1.0)), &[1.5, 2.0, 1.0]);
        assert_eq!(used, 2);
        assert!(!s.converged);
        assert_eq!(s.mean, 1.75);
        // Under budget, the measurement goes on.
        let (_, used) = measure(method(2, 0.01, 100, Some(10.0)), &[1.5, 2.0, 1.0, 3.0, 4.0]);
        assert_eq!(used, 5);
    }

    #[test]
    fn equal_times_keep_k() {
        let mut kb = KBest::new(method(2, 0.0, 10, None));
        for _ in 0..4 {
            kb.record(1.0);
        }
        let s = kb.summary().unwrap();
        assert_eq!((s.mean, s.runs, s.converged), (1.0, 4, true));
    }

    #[test]
    fn budget_as_max_runs() {
        let m = method(3, 0.05, 10, Some(1.5));
        assert_eq!(m.budget_as_max_runs(0.5).max_runs, 3);
        assert_eq!(m.budget_as_max_runs(0.2).max_runs, 8);
        assert_eq!(m.budget_as_max_runs(2.0).max_runs, 3, "never below K");
        assert_eq!(m.budget_as_max_runs(0.001).max_runs, 10, "never above M");
        let unlimited = method(3, 0.05, 10, None);
        assert_eq!(unlimited.budget_as_max_runs(0.5), unlimited);
    }

    #[test]
    fn no_summary_before_a_run() {
        assert!(KBest::new(Method::QUICK).summary().is_none());
    }

    #[test]
    fn k_best_is_the_mean_of_the_k_fastest() {
        // What `fj experiments` reports of a variant: the mean of the K fastest, the slowest
        // run, and the mean parallelism of the K fastest when each of them has one.
        let s = |seconds, p| Sample {
            seconds,
            parallelism: Some(p),
        };
        let mut kb = KBest::new(Method::fixed_runs(2, 4, 0));
        for sample in [s(5.0, 1.0), s(1.0, 2.0), s(3.0, 1.0), s(2.0, 1.0)] {
            kb.record_sample(sample);
        }
        assert_eq!(
            (kb.summary().unwrap().mean, kb.slowest(), kb.parallelism()),
            (1.5, Some(5.0), Some(1.5))
        );
        let mut kb = KBest::new(Method::fixed_runs(3, 3, 0));
        kb.record_sample(4.0.into());
        kb.record_sample(s(3.0, 2.0));
        assert_eq!(
            (kb.summary().unwrap().mean, kb.slowest(), kb.parallelism()),
            (3.5, Some(4.0), None)
        );
    }

    #[test]
    fn fixed_runs_never_converge() {
        let mut kb = KBest::new(Method::fixed_runs(2, 3, 1));
        kb.record(1.0);
        kb.record(1.0);
        assert!(!kb.converged() && !kb.done());
        kb.record(1.0);
        assert!(!kb.converged() && kb.done());
        assert_eq!(kb.runs(), 3);
    }

    #[test]
    fn presets() {
        assert_eq!(
            (
                Method::RIGOROUS.k,
                Method::RIGOROUS.epsilon,
                Method::RIGOROUS.max_runs
            ),
            (10, 0.02, 200)
        );
    }
}
