//! The runtime's primitive costs on this machine, measured by small benchmarks of the real
//! runtime (ParJava's "tests run on the target machine"), saved and loaded as JSON.

use super::cpus;
use forkjoin::instrument::HEARTBEAT;
use forkjoin::Pool;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The costs, in nanoseconds, that the simulator charges for the runtime's actions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    /// A join whose second closure is run inline by its owner (the fast path): the time
    /// above two plain calls.
    pub join_ns: f64,
    /// Sharing a join's second closure and taking it back (push, pop, bookkeeping).
    pub promote_ns: f64,
    /// From a task's push to a spinning idle worker running it.
    pub steal_ns: f64,
    /// One sweep over every queue that finds nothing.
    pub failed_steal_ns: f64,
    /// The extra latency when the idle worker is parked and must be woken.
    pub wake_ns: f64,
    /// An external submission from a thread outside the pool, run and joined.
    pub submit_ns: f64,
    /// How long an idle worker searches before it parks.
    pub spin_ns: f64,
    /// The heartbeat period: a busy worker shares work at most this long after a worker
    /// became idle (the runtime's constant, not measured). Zero models the seed design's
    /// eager sharing: every join's second closure is stealable at once.
    pub heartbeat_ns: f64,
    /// The profiler's own cost per strand, subtracted from every measured strand.
    pub timer_ns: f64,
    /// Where the figures were measured (host name and available cores), for the reader.
    #[serde(default)]
    pub machine: String,
    /// The spread of each measured cost, by field name (`"steal_ns"`): the 25th and 75th
    /// percentiles of its repetitions. Empty for costs not measured, and in files saved
    /// before calibrations kept it.
    #[serde(default)]
    pub spread: BTreeMap<String, Spread>,
    /// The measured costs (field names) whose repetitions spread wider than
    /// [`UNSETTLED_FACTOR`]: their figures are medians of repetitions that disagree.
    #[serde(default)]
    pub unsettled: Vec<String>,
    /// The fast-path join cost measured in particular programs, by name, in ns (`fj
    /// calibrate` measures the benchmark suite's programs whose joins are dense). What a
    /// join costs depends on the code around it, which its extra instructions may or may
    /// not overlap: on one machine, 0.8-0.9 ns in Lea's Integrate, 2 ns in Fibonacci
    /// forking at every call and 6-7 ns in n-queens, against 0.7-1.2 ns for the mean of
    /// the two trees of [`Costs::measure`]. [`Costs::for_program`] puts a program's own figure in
    /// `join_ns`. Empty in files saved before it was kept.
    #[serde(default)]
    pub program_join_ns: BTreeMap<String, f64>,
    /// The host's speed while it measured: the plain join trees' time per node, in ns, in
    /// the fastest round of [`Costs::measure`] (the mean of the two trees). A host in a
    /// slow state throughout a calibration reads every cost high and cannot tell from
    /// inside it; `fj calibrate` compares this with the calibration it replaces. `None`
    /// where nothing was measured, and in files saved before it was kept.
    ///
    /// ```no_run
    /// let costs = forkjoin_profile::Costs::measure();
    /// let speed = costs.speed_ns.expect("a measurement records the host's speed");
    /// println!("plain join tree: {speed:.2} ns a node at the host's fastest");
    /// ```
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_ns: Option<f64>,
    /// The costs a calibration looked for and could not measure, by the name they have in
    /// [`Costs::unsettled`] (where each is named too), with the reason: a program's join
    /// (`"program_join_ns.fib"`) that its forking runs did not measurably lengthen has no
    /// figure in [`Costs::program_join_ns`], so [`Costs::for_program`] gives it the generic
    /// `join_ns`; a runtime cost that came out at zero or below holds [`Costs::typical`]'s
    /// figure instead. Never 0 ns in place of a cost. Empty in files saved before it was kept.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_measured: BTreeMap<String, String>,
}

/// Where a measured cost's repetitions lay: their 25th and 75th percentiles, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The 25th percentile.
    pub low: f64,
    /// The 75th percentile.
    pub high: f64,
}

/// A cost is unsettled when the 75th percentile of its repetitions exceeds this many times
/// the 25th plus one nanosecond (so that the sub-nanosecond join cost is not flagged for
/// its rounding).
pub const UNSETTLED_FACTOR: f64 = 2.0;

/// A latency sample above this many times its measurement's 10th percentile was
/// preempted by the host and is left out (see `Samples::kept`). Far above the spread of
/// the latencies themselves (a wake-up's 90th percentile is under twice its 10th here)
/// and far below a time slice's length against a hand-over's.
const PREEMPTED_FACTOR: f64 = 20.0;

/// No latency below this is taken for a preempted one (see `Samples::kept`): shorter
/// than a time slice, longer than any cost measured here.
const PREEMPTED_FLOOR: Duration = Duration::from_micros(500);

/// Added to the unsettled test's bound, for costs of a nanosecond or less (the join, a
/// difference of two nearly equal times, whose 25th percentile may be below zero).
const SLACK_NS: f64 = 1.0;

/// Rounds of [`Costs::measure`]: each takes one short repetition of every measurement.
pub const ROUNDS: usize = 41;

/// The fewest rounds [`Costs::measure_rounds`] takes.
pub const MIN_ROUNDS: usize = FASTEST_FRACTION;

/// Single hand-overs to a spinning worker per round (after [`WARM_UP`] discarded ones).
const SPINNING_HANDOVERS: usize = 64;

/// Single hand-overs to a parked worker per round, each after the search before parking
/// that it also times.
const PARKED_HANDOVERS: usize = 12;

/// How long the parked hand-overs wait for the thief to park before leaving a pair out.
const PARK_DEADLINE: Duration = Duration::from_millis(250);

/// How long one round's parked hand-overs may take before it stops at fewer pairs.
const PARKED_ROUND_BUDGET: Duration = Duration::from_millis(20);

/// How long after a worker counts its park a parked hand-over starts: long enough for
/// the futex wait to begin, shorter than a watcher's timed park (`HEARTBEAT`).
const PARK_SETTLE: Duration = Duration::from_micros(15);

/// How long each job of the submission measurement runs.
const SUBMITTED_JOB: Duration = Duration::from_micros(20);

/// A pause after each round: longer than a worker's search before parking, and long enough
/// that the rounds spread over a few seconds. This host's speed moves in stretches of a
/// fraction of a second to seconds (the plain join tree took 3.6 ns a node in one half
/// second and 5.2 in the next); rounds spread over them give the fastest-fifth statistic
/// (see [`Samples::fastest`]) rounds from the fast stretches to choose from.
const QUIET_BETWEEN_ROUNDS: Duration = Duration::from_millis(120);

/// The CPU-bound costs (the join, the promotion, the failed sweep, the timer) are the mean
/// of the fastest `1 / FASTEST_FRACTION` of their repetitions: the K-best rule.
const FASTEST_FRACTION: usize = 5;

/// A round of [`Costs::measure`] is in the host's fast state when its plain join trees took
/// at most this many times their fastest round's time. Within one state the rounds differ
/// by a few percent; this host's slow states were 1.3x and more.
const FAST_ROUND: f64 = 1.1;

/// How many `spin_loop`s a hand-over's waiter spins before it yields, as a joining worker
/// does (`Worker::idle_until`, about 126): a waiter that kept its CPU longer would measure
/// its own spinning whenever the thief was scheduled on the same CPU.
const WAITER_SPINS: u32 = 128;

/// Hand-overs per round that are not kept: the first finds the thief parked by the
/// previous measurement's pause.
const WARM_UP: usize = 4;

/// The field names of the measured costs, in the order of [`Costs::measured`].
pub const MEASURED: [&str; 8] = [
    "join_ns",
    "promote_ns",
    "steal_ns",
    "failed_steal_ns",
    "wake_ns",
    "submit_ns",
    "spin_ns",
    "timer_ns",
];

/// Why a costs file could not be loaded.
#[derive(Debug)]
pub enum CostsError {
    /// The file could not be read or written.
    #[allow(missing_docs)]
    Io { path: String, error: std::io::Error },
    /// The file is not a costs file.
    #[allow(missing_docs)]
    Malformed { path: String, error: String },
}

impl fmt::Display for CostsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostsError::Io { path, error } => write!(f, "cannot access costs file {path}: {error}"),
            CostsError::Malformed { path, error } => {
                write!(
                    f,
                    "{path} is not a forkjoin costs file (write one with `fj calibrate`): {error}"
                )
            }
        }
    }
}

impl std::error::Error for CostsError {}

impl Costs {
    /// All costs zero: the ideal machine of the work/span model.
    pub fn zero() -> Costs {
        Costs {
            join_ns: 0.0,
            promote_ns: 0.0,
            steal_ns: 0.0,
            failed_steal_ns: 0.0,
            wake_ns: 0.0,
            submit_ns: 0.0,
            spin_ns: 0.0,
            heartbeat_ns: 0.0,
            timer_ns: 0.0,
            machine: "ideal".into(),
            spread: BTreeMap::new(),
            unsettled: Vec::new(),
            program_join_ns: BTreeMap::new(),
            speed_ns: None,
            not_measured: BTreeMap::new(),
        }
    }

    /// Figures typical of a current x86-64 machine, for when nothing was measured.
    pub fn typical() -> Costs {
        Costs {
            join_ns: 3.0,
            promote_ns: 60.0,
            steal_ns: 400.0,
            failed_steal_ns: 60.0,
            wake_ns: 20_000.0,
            submit_ns: 3_000.0,
            spin_ns: 50_000.0,
            heartbeat_ns: HEARTBEAT.as_nanos() as f64,
            timer_ns: 25.0,
            machine: "typical (not measured)".into(),
            spread: BTreeMap::new(),
            unsettled: Vec::new(),
            program_join_ns: BTreeMap::new(),
            speed_ns: None,
            not_measured: BTreeMap::new(),
        }
    }

    /// These costs for the program named `program`: with its own join cost in `join_ns`
    /// where [`Costs::program_join_ns`] has one, else as they are.
    ///
    /// ```
    /// let mut costs = forkjoin_profile::Costs::typical();
    /// costs.program_join_ns.insert("fib".into(), 2.5);
    /// assert_eq!(costs.for_program("fib").join_ns, 2.5);
    /// assert_eq!(costs.for_program("sort").join_ns, costs.join_ns);
    /// ```
    pub fn for_program(&self, program: &str) -> Costs {
        let mut out = self.clone();
        let not_measured = self
            .not_measured
            .contains_key(&format!("program_join_ns.{program}"));
        if let Some(&join_ns) = self.program_join_ns.get(program).filter(|_| !not_measured) {
            out.join_ns = join_ns;
        }
        out
    }

    /// What a steal costs the critical path in the burdened span (Cilkview's burden):
    /// sharing the task and the hand-over to a thief, charged once as the simulation
    /// charges it (`steal_ns` is measured from the push to the thief running the task).
    pub fn burden_ns(&self) -> f64 {
        self.promote_ns + self.steal_ns
    }

    /// The measured costs' current values, in the order of [`MEASURED`].
    pub fn measured(&self) -> [f64; 8] {
        [
            self.join_ns,
            self.promote_ns,
            self.steal_ns,
            self.failed_steal_ns,
            self.wake_ns,
            self.submit_ns,
            self.spin_ns,
            self.timer_ns,
        ]
    }

    fn measured_mut(&mut self) -> [&mut f64; 8] {
        [
            &mut self.join_ns,
            &mut self.promote_ns,
            &mut self.steal_ns,
            &mut self.failed_steal_ns,
            &mut self.wake_ns,
            &mut self.submit_ns,
            &mut self.spin_ns,
            &mut self.timer_ns,
        ]
    }

    /// These costs with every cost that has a spread at the low end of it (its 25th
    /// percentile); the others as they are. Without a spread (an old file), a copy.
    pub fn low_end(&self) -> Costs {
        self.at_end(|s| s.low)
    }

    /// These costs with every cost that has a spread at the high end of it (its 75th
    /// percentile).
    pub fn high_end(&self) -> Costs {
        self.at_end(|s| s.high)
    }

    fn at_end(&self, end: impl Fn(&Spread) -> f64) -> Costs {
        let mut out = self.clone();
        for (name, cost) in MEASURED.iter().zip(out.measured_mut()) {
            if let Some(s) = self.spread.get(*name) {
                *cost = end(s);
            }
        }
        out
    }

    /// Measures every cost on this machine with pools of one and two workers (the two
    /// pinned to two cores where the process may use two; the one's measurements on the
    /// CPU that is fastest at each round's start, [`cpus::fastest_cpu`]), in [`ROUNDS`]
    /// rounds that each take a short repetition of every measurement in turn, with a pause
    /// after each, so that the rounds spread over about five seconds (about seven in all)
    /// and a stretch in which the host runs something else, or runs slowly, disturbs a few
    /// repetitions of every cost rather than every repetition of one.
    ///
    /// Two statistics, by what a cost is:
    /// - The costs of the runtime's own code paths (the join, the promotion, the failed
    ///   sweep, the search before parking, timed on the thread's CPU clock, and the
    ///   profiler's timer) are the **mean of the fastest fifth** of their repetitions,
    ///   the K-best method: such a loop is only ever slowed by the host, and this host's
    ///   speed moves in stretches of a second or so (the same join tree took 3.6 ns a node
    ///   in one half second and 5.2 in the next). With the median, four runs in a row read
    ///   the join as 1.0, 1.7, 1.7 and 1.6 ns; with the fastest fifth, in the same hour, 0.8,
    ///   0.8 and 0.8.
    ///   The join is a paired difference, each round's forking runs less its plain ones,
    ///   and its figure the median over the rounds in which the host ran at its fastest
    ///   (see `Repetitions::join_in_fast_rounds`).
    /// - The latencies (a hand-over to a spinning or a parked worker, a submission) are the
    ///   **median**: they have a spread of their own, and the simulator charges a typical
    ///   one (jittered by +-25%); the fastest fifth would charge the lucky ones. Latencies
    ///   the host stretched by a time slice are left out first (those above 20 times their
    ///   measurement's 10th percentile and above 0.5 ms), so that a hog that takes more than
    ///   half of them cannot move the median. The steal is a hand-over less the promotion,
    ///   the wake-up a hand-over to a parked worker less both.
    ///
    /// Each cost's spread ([`Costs::spread`]) is its repetitions' 25th and 75th
    /// percentiles. A cost whose rounds disagree (the 75th percentile of the rounds'
    /// medians above [`UNSETTLED_FACTOR`] times their 25th, plus 1 ns for the
    /// sub-nanosecond join) is named in [`Costs::unsettled`]: its figure is saved, but it
    /// was not pinned down.
    pub fn measure() -> Costs {
        Costs::measure_with(|| {})
    }

    /// [`Costs::measure`], running `between_rounds` after every round (before the round's
    /// pause), so that a measurement of the caller's spreads over the same stretch of time
    /// and sees the same states of the host (`fj calibrate` times the suite's programs'
    /// joins so).
    ///
    /// ```no_run
    /// use forkjoin_profile::{Costs, ROUNDS};
    ///
    /// // A measurement of one's own, one short repetition after each round.
    /// let mut mine = Vec::new();
    /// let costs = Costs::measure_with(|| {
    ///     let t = std::time::Instant::now();
    ///     std::hint::black_box((0..10_000u64).sum::<u64>());
    ///     mine.push(t.elapsed());
    /// });
    /// assert_eq!(mine.len(), ROUNDS);
    /// println!("join {:.2} ns", costs.join_ns);
    /// ```
    pub fn measure_with(between_rounds: impl FnMut()) -> Costs {
        Costs::measure_rounds(ROUNDS, between_rounds)
    }

    /// [`Costs::measure_with`] in `rounds` rounds instead of [`ROUNDS`]: fewer rounds take
    /// less time and pin the costs down less well (a round is about 0.15 s; at least
    /// [`MIN_ROUNDS`], so that the fastest fifth is a round's figure, never none).
    ///
    /// ```no_run
    /// use forkjoin_profile::{Costs, MIN_ROUNDS};
    ///
    /// let mut turns = 0;
    /// let costs = Costs::measure_rounds(MIN_ROUNDS, || turns += 1);
    /// assert_eq!(turns, MIN_ROUNDS);
    /// println!("join {:.2} ns", costs.join_ns);
    /// ```
    pub fn measure_rounds(rounds: usize, mut between_rounds: impl FnMut()) -> Costs {
        let rounds = rounds.max(MIN_ROUNDS);
        let one = Pool::new(1).expect("a pool of one worker");
        // Two workers pinned to two cores where the process may use two: the simulator's
        // hand-over is between workers on cores of their own. Unpinned, Linux now and then
        // keeps both threads on one virtual CPU for seconds, and a hand-over then takes a
        // time slice (9 or 108 us, by how long the waiter spins before yielding) instead
        // of 0.3-0.4 us: three runs of `fj calibrate` on a quiet host read steal as 0.4,
        // 108 and 108 us.
        let two = forkjoin::PoolBuilder::new()
            .threads(2)
            .pin_threads(true)
            .build()
            .or_else(|_| Pool::new(2))
            .expect("a pool of two workers");
        let mut s = Repetitions::new();
        for _ in 0..rounds {
            // The one-worker measurements on the CPU fastest now: this host's slow states
            // are a CPU's own (see `cpus`), and a round on the slow CPU reads the join
            // 1.7x high.
            let cpu: Vec<usize> = cpus::fastest_cpu().into_iter().collect();
            s.join_round(measure_join(&one, &cpu));
            s.promote.round(vec![measure_promote(&one, &cpu)]);
            s.spinning
                .round(measure_spinning_handovers(&two, SPINNING_HANDOVERS));
            let (parked, searches) = measure_parked_handovers(&two, PARKED_HANDOVERS);
            s.parked.round(parked);
            s.spin.round(searches);
            s.failed.round(vec![measure_failed_steal(&two)]);
            s.submit.round(measure_submit(&two));
            s.timer.round(vec![one.install(|| {
                let _on = cpus::restrict(&cpu);
                super::calibrate_timer() as f64
            })]);
            between_rounds();
            // Let `two`'s workers finish searching and park before the next round times
            // `one`: a worker still spinning on this thread's CPU would slow its joins.
            std::thread::sleep(QUIET_BETWEEN_ROUNDS);
        }
        s.costs()
    }

    /// The costs as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("costs serialise")
    }

    /// Parses costs from JSON; `origin` names the source in the error.
    pub fn from_json(json: &str, origin: &str) -> Result<Costs, CostsError> {
        let mut costs: Costs = serde_json::from_str(json).map_err(|e| CostsError::Malformed {
            path: origin.into(),
            error: e.to_string(),
        })?;
        // A program's join of 0 ns is what calibrations wrote before `not_measured` was kept
        // when its forking runs were no slower than its plain ones: not a cost.
        let zeros: Vec<String> = (costs.program_join_ns.iter())
            .filter(|(_, &ns)| ns == 0.0)
            .map(|(program, _)| program.clone())
            .collect();
        for program in zeros {
            costs.program_join_ns.remove(&program);
            let key = format!("program_join_ns.{program}");
            costs.not_measured.entry(key.clone()).or_insert_with(|| {
                "0 ns in the file: the calibration found no measurable difference between the program's forking and plain runs".into()
            });
            if !costs.unsettled.contains(&key) {
                costs.unsettled.push(key);
            }
        }
        let spreads = costs.spread.values().flat_map(|s| [s.low, s.high]);
        let mut fields = costs
            .measured()
            .into_iter()
            .chain([costs.heartbeat_ns])
            .chain(costs.speed_ns)
            .chain(costs.program_join_ns.values().copied());
        if fields.any(|c| !c.is_finite() || c < 0.0)
            || spreads.clone().any(|c| !c.is_finite() || c < 0.0)
        {
            return Err(CostsError::Malformed {
                path: origin.into(),
                error: "a cost is negative or not finite".into(),
            });
        }
        Ok(costs)
    }

    /// Writes the costs to `path` as JSON.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), CostsError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_json() + "\n").map_err(|error| CostsError::Io {
            path: path.display().to_string(),
            error,
        })
    }

    /// Reads costs written by [`Costs::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<Costs, CostsError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| CostsError::Io {
            path: path.display().to_string(),
            error,
        })?;
        Costs::from_json(&text, &path.display().to_string())
    }
}

fn machine_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!("{} ({cores} cores)", host.trim())
}

/// One measurement's repetitions (ns), round by round.
#[derive(Default)]
struct Samples {
    rounds: Vec<Vec<f64>>,
    /// Single latencies (a hand-over, a search), not means: a sample the host stretched
    /// by a time slice is left out (see [`Samples::kept`]), and the figure is the median.
    /// Otherwise the samples are the mean times of a CPU-bound loop, and the figure is the
    /// mean of the fastest fifth ([`Samples::fastest`]).
    latency: bool,
}

impl Samples {
    fn latencies() -> Samples {
        Samples {
            rounds: Vec::new(),
            latency: true,
        }
    }

    /// The figure this measurement gives: the median of a latency's samples, the mean of
    /// the fastest fifth of a CPU-bound loop's.
    fn figure(&self) -> f64 {
        if self.latency {
            self.quartiles().median
        } else {
            self.fastest()
        }
    }

    /// The mean of the fastest fifth of the samples (at least one), the K-best method: a
    /// loop of the runtime's own code is only ever slowed by what else the host runs, so
    /// its fastest runs are its cost. The median had let this host's slow stretches in:
    /// four `fj calibrate` runs in a row read the join as 1.0, 1.7, 1.7 and 1.6 ns and the
    /// timer as 34 to 48 ns.
    fn fastest(&self) -> f64 {
        let mut all: Vec<f64> = self.rounds.iter().flatten().copied().collect();
        all.sort_by(f64::total_cmp);
        let k = (all.len() / FASTEST_FRACTION).max(1).min(all.len());
        if k == 0 {
            return 0.0;
        }
        all[..k].iter().sum::<f64>() / k as f64
    }

    /// The mean of round `r`'s samples.
    fn round_mean(&self, r: usize) -> f64 {
        let round = &self.rounds[r];
        round.iter().sum::<f64>() / round.len() as f64
    }

    /// Adds one round's samples.
    fn round(&mut self, samples: Vec<f64>) {
        self.rounds.push(samples);
    }

    /// The rounds' samples without those the host preempted: a latency more than
    /// [`PREEMPTED_FACTOR`] times the measurement's 10th percentile, and above
    /// [`PREEMPTED_FLOOR`], is a time slice given to another thread (milliseconds, against
    /// a hand-over's 0.3 us), not the runtime's cost. (The floor keeps a latency with a
    /// fast mode, such as a hand-over that finds a watcher awake, from having its usual
    /// samples taken for preempted ones.)
    /// With a CPU hog beside `fj calibrate`, a tenth to a half of the hand-overs to a spinning
    /// worker took 1-12 ms; their median moved from 0.34 to 0.99 us between runs, which
    /// no statistic that keeps them can avoid once they are half.
    fn kept(&self) -> Vec<Vec<f64>> {
        if !self.latency {
            return self.rounds.clone();
        }
        let mut sorted: Vec<f64> = self.rounds.iter().flatten().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let Some(&p10) = sorted.get(sorted.len() / 10) else {
            return Vec::new();
        };
        let bound = (PREEMPTED_FACTOR * p10).max(PREEMPTED_FLOOR.as_nanos() as f64);
        self.rounds
            .iter()
            .map(|r| r.iter().copied().filter(|&x| x <= bound).collect())
            .collect()
    }

    fn quartiles(&self) -> Quartiles {
        Quartiles::of(self.kept().into_iter().flatten().collect())
    }

    /// Whether the figure moved from round to round: its rounds' medians spread wider
    /// than [`UNSETTLED_FACTOR`]. Judged by the rounds, not by the samples: a latency may
    /// vary from one sample to the next and still have a median that three runs reproduce
    /// within a few percent; what cannot be pinned down is a typical value that changes
    /// with the stretch of time it was measured in.
    fn unsettled(&self) -> bool {
        let medians = self
            .kept()
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| Quartiles::of(r).median)
            .collect();
        Quartiles::of(medians).unsettled()
    }
}

/// The repetitions of every measurement, as [`Costs::measure`] collects them.
struct Repetitions {
    /// Each join tree's plain times per join (see [`measure_join`]): the probe of the
    /// host's speed in each round.
    plain_trees: [Samples; 2],
    /// Each round's join cost, forking less plain, for the spread and the verdict.
    join: Samples,
    promote: Samples,
    /// Hand-overs to a spinning worker, whole.
    spinning: Samples,
    /// Hand-overs to a parked worker, whole.
    parked: Samples,
    failed: Samples,
    submit: Samples,
    spin: Samples,
    timer: Samples,
}

impl Repetitions {
    fn new() -> Repetitions {
        Repetitions {
            plain_trees: Default::default(),
            join: Samples::default(),
            promote: Samples::default(),
            spinning: Samples::latencies(),
            parked: Samples::latencies(),
            failed: Samples::default(),
            submit: Samples::latencies(),
            // The search is a fixed number of rounds on the thief's CPU clock: CPU-bound.
            spin: Samples::default(),
            timer: Samples::default(),
        }
    }

    /// Records one round of [`measure_join`].
    fn join_round(&mut self, trees: [[f64; 4]; 2]) {
        let mut cost = 0.0;
        for (plain, [a, b, c, d]) in self.plain_trees.iter_mut().zip(trees) {
            plain.round(vec![b, c]);
            cost += (a + d - b - c) / 2.0 / trees.len() as f64;
        }
        self.join.round(vec![cost]);
    }

    /// The join: the median, over the rounds in which the host ran at its fastest, of each
    /// round's forking runs less its plain ones (the mean of the two trees). A round is
    /// fast when its plain trees took at most [`FAST_ROUND`] times their fastest round's
    /// time: the plain trees are the probe of the host's speed. This host has slow states
    /// of a second to tens of seconds, in which a plain run takes 1.3x as long or more and
    /// a forking one slows more still; the fastest fifth of each series took them in
    /// whenever they covered four fifths of the rounds (twelve runs in a row read 0.72-0.88
    /// ns, and 1.14 and 1.37 in two). The median of the fast rounds needs only a few.
    fn join_in_fast_rounds(&self) -> f64 {
        let rounds = self.join.rounds.len();
        let fastest: Vec<f64> = self
            .plain_trees
            .iter()
            .map(|t| {
                (0..rounds)
                    .map(|r| t.round_mean(r))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        let fast: Vec<f64> = (0..rounds)
            .filter(|&r| {
                let speed = self
                    .plain_trees
                    .iter()
                    .zip(&fastest)
                    .map(|(t, &f)| t.round_mean(r) / f)
                    .sum::<f64>()
                    / self.plain_trees.len() as f64;
                speed <= FAST_ROUND
            })
            .flat_map(|r| self.join.rounds[r].iter().copied())
            .collect();
        Quartiles::of(fast).median
    }

    /// The host's speed ([`Costs::speed_ns`]): the fastest round's plain trees, the mean
    /// of the two trees' times per node; `None` before any round.
    fn speed_ns(&self) -> Option<f64> {
        (0..self.join.rounds.len())
            .map(|r| {
                self.plain_trees
                    .iter()
                    .map(|t| t.round_mean(r))
                    .sum::<f64>()
                    / self.plain_trees.len() as f64
            })
            .min_by(f64::total_cmp)
    }

    /// Each cost's figure and spread, the unsettled ones named.
    fn costs(self) -> Costs {
        let promote = self.promote.quartiles();
        let promote_ns = self.promote.figure();
        let handover = self.spinning.quartiles();
        let steal = handover.less(promote_ns);
        let parked = self.parked.quartiles();
        let wake = parked.less(promote_ns + steal.median);
        let join_ns = self.join_in_fast_rounds();
        let speed_ns = self.speed_ns();
        // Each cost as saved, and the repetitions it is judged by: a derived cost by the
        // hand-overs it comes from (a small difference of two spreads says little).
        let costs = [
            (join_ns, self.join.quartiles(), &self.join),
            (promote_ns, promote, &self.promote),
            (steal.median, steal, &self.spinning),
            (self.failed.figure(), self.failed.quartiles(), &self.failed),
            (wake.median, wake, &self.parked),
            (self.submit.figure(), self.submit.quartiles(), &self.submit),
            (self.spin.figure(), self.spin.quartiles(), &self.spin),
            (self.timer.figure(), self.timer.quartiles(), &self.timer),
        ];
        let (mut spread, mut unsettled) = (BTreeMap::new(), Vec::new());
        let mut not_measured = BTreeMap::new();
        let mut figures = [0.0; 8];
        let typical = Costs::typical().measured();
        for (((name, slot), (figure, q, judged_by)), typical) in
            MEASURED.iter().zip(&mut figures).zip(costs).zip(typical)
        {
            let (low, high) = (q.low.max(0.0), q.high.max(0.0));
            spread.insert(name.to_string(), Spread { low, high });
            let measured = figure > 0.0;
            if judged_by.unsettled() || !measured {
                unsettled.push(name.to_string());
            }
            *slot = if measured {
                figure
            } else {
                // Nothing measurable (the join: forking no slower than plain): not 0 ns.
                not_measured.insert(
                    name.to_string(),
                    format!(
                        "came out at {figure:.3} ns (p25-p75 {:.3} to {:.3}): nothing measurable; the typical figure, {typical} ns, is saved in its place",
                        q.low, q.high
                    ),
                );
                typical
            };
        }
        let mut out = Costs {
            heartbeat_ns: HEARTBEAT.as_nanos() as f64,
            machine: machine_name(),
            spread,
            unsettled,
            speed_ns,
            not_measured,
            ..Costs::zero()
        };
        for (slot, figure) in out.measured_mut().into_iter().zip(figures) {
            *slot = figure;
        }
        out
    }
}

/// The 25th, 50th and 75th percentiles of some repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Quartiles {
    low: f64,
    median: f64,
    high: f64,
}

impl Quartiles {
    /// The percentiles of `v` (linear between the nearest ranks); zeros if `v` is empty.
    fn of(mut v: Vec<f64>) -> Quartiles {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            if v.is_empty() {
                return 0.0;
            }
            let x = q * (v.len() - 1) as f64;
            let (i, frac) = (x.floor() as usize, x.fract());
            let next = v[(i + 1).min(v.len() - 1)];
            v[i] + (next - v[i]) * frac
        };
        Quartiles {
            low: at(0.25),
            median: at(0.5),
            high: at(0.75),
        }
    }

    /// Each percentile less `x`.
    fn less(self, x: f64) -> Quartiles {
        Quartiles {
            low: self.low - x,
            median: self.median - x,
            high: self.high - x,
        }
    }

    /// The 75th percentile above [`UNSETTLED_FACTOR`] times the 25th (plus [`SLACK_NS`]).
    fn unsettled(&self) -> bool {
        self.high > UNSETTLED_FACTOR * self.low.max(0.0) + SLACK_NS
    }
}

fn tree_fj(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    let (a, b) = forkjoin::join(|| tree_fj(depth - 1), || tree_fj(depth - 1));
    a + b
}

/// `join` replaced by two plain calls of the same closures, as the benchmark suite's
/// sequential versions are written.
#[inline]
fn plain<RA, RB>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB) -> (RA, RB) {
    (a(), b())
}

fn tree_seq(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    let (a, b) = plain(|| tree_seq(depth - 1), || tree_seq(depth - 1));
    a + b
}

fn fib_fj(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = forkjoin::join(|| fib_fj(n - 1), || fib_fj(n - 2));
    a + b
}

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = plain(|| fib_seq(n - 1), || fib_seq(n - 2));
    a + b
}

/// One repetition of the fast path, against the same code with `join` replaced by two
/// plain calls of the same closures (the sequential baseline's definition), in two join
/// trees: one whose leaves store (`black_box`), and Fibonacci forking at every call, whose
/// leaves compute in registers (Cilk-5's measure of its work overhead). What a join costs a
/// program depends on the code around it, which the extra instructions may or may not
/// overlap (DESIGN.md, section 12); the model charges the mean of the two trees, each
/// tree's fastest forking runs less its fastest plain ones ([`Repetitions::costs`]).
/// Returns each tree's four times per join, in the order they ran: forking, plain, plain,
/// forking, so that a host speeding up or slowing down steadily over the four runs
/// cancels out of each round's difference.
fn measure_join(one: &Pool, cpu: &[usize]) -> [[f64; 4]; 2] {
    const DEPTH: u32 = 18;
    const FIB_N: u32 = 27;
    // Each tree's function, argument, answer and joins (fib: every call with n >= 2, that is
    // fib(N + 1) - 1), the forking version before its plain one.
    let trees = [
        (
            tree_fj as fn(u32) -> u64,
            DEPTH,
            1 << DEPTH,
            ((1u64 << DEPTH) - 1) as f64,
        ),
        (tree_seq, DEPTH, 1 << DEPTH, ((1u64 << DEPTH) - 1) as f64),
        (fib_fj, FIB_N, 196_418, 317_810.0),
        (fib_seq, FIB_N, 196_418, 317_810.0),
    ];
    // All in one `install`: each run then times the tree alone, not also an entry into
    // the pool, whose cost varies from call to call.
    one.install(|| {
        // Whichever thread runs the job (the worker, or the caller in a borrowed slot).
        let _on = cpus::restrict(cpu);
        let time = |(f, arg, answer, joins): (fn(u32) -> u64, u32, u64, f64)| {
            let t = Instant::now();
            assert_eq!(f(black_box(arg)), answer);
            t.elapsed().as_nanos() as f64 / joins
        };
        let per_join = |forking: usize| {
            let (fj, plain) = (trees[forking], trees[forking + 1]);
            // Untimed first: the round starts after a pause (`QUIET_BETWEEN_ROUNDS`), and
            // the first run after it may find the core slowed down by idleness.
            time(plain);
            [time(fj), time(plain), time(plain), time(fj)]
        };
        [per_join(0), per_join(2)]
    })
}

/// Pushing a task and taking it back, on a pool of one worker: the mean of a scope of
/// tasks.
fn measure_promote(one: &Pool, cpu: &[usize]) -> f64 {
    const TASKS: usize = 5_000;
    one.install(|| {
        let _on = cpus::restrict(cpu);
        let t = Instant::now();
        forkjoin::scope(|s| {
            for _ in 0..TASKS {
                s.spawn(|_| {
                    black_box(());
                });
            }
        });
        t.elapsed().as_nanos() as f64 / TASKS as f64
    })
}

/// One hand-over, timed from pushing a task until another worker runs it, on a worker of a
/// pool of two. The task then calls `on_thief` on the thief's thread.
fn handover(on_thief: &(dyn Fn() + Sync)) -> f64 {
    let started = AtomicBool::new(false);
    let t = Instant::now();
    forkjoin::scope(|s| {
        s.spawn(|_| {
            started.store(true, Ordering::Release);
            on_thief();
        });
        // Wait without taking our own deque: the other worker must steal it. Yield after a
        // while, as a joining worker does (`Worker::idle_until`): Linux may wake the thief
        // on this very CPU, where a spinning waiter would keep it off.
        let mut spins = 0u32;
        while !started.load(Ordering::Acquire) {
            spins += 1;
            if spins < WAITER_SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    });
    t.elapsed().as_nanos() as f64
}

/// `count` single hand-overs to a worker that is still spinning (back to back, after
/// [`WARM_UP`] discarded ones). Single ones, not a mean: now and then one takes
/// milliseconds (a virtual CPU that the host is slow to run), and the median of the
/// repetitions leaves those out where a mean would let a few of them decide the figure.
/// Submitted, not installed: installed from outside, the measurement would run on this
/// (unpinned) thread in a borrowed slot.
fn measure_spinning_handovers(two: &Pool, count: usize) -> Vec<f64> {
    two.submit(move || {
        (0..count + WARM_UP)
            .map(|_| handover(&|| ()))
            .skip(WARM_UP)
            .collect()
    })
    .join()
    .expect("the hand-overs do not panic")
}

/// `count` pairs of the search before parking and a hand-over to the parked worker: after
/// each hand-over, the time until the thief parks (the pool's park count grows), then a
/// hand-over to it. Waiting for the park itself, rather than for a fixed pause, makes
/// every parked hand-over a real wake-up even when a busy host slows the search down, and
/// gives as many samples of the search as of the wake-up at little cost. Pairs whose park
/// is not seen within [`PARK_DEADLINE`] are left out.
///
/// The search is timed by the thief's own CPU clock where there is one (Linux), from the
/// end of the task it stole to its park. It spins and yields: on a core of its own, as the
/// simulator's workers are, its CPU time is its wall time (47 us here), but every yield to
/// a CPU hog on its core gives the hog a time slice, and the wall time reads 36 ms.
fn measure_parked_handovers(two: &Pool, count: usize) -> (Vec<f64>, Vec<f64>) {
    two.submit(move || {
        // A snapshot of the pool's parks; a park is seen a little late at worst, which the
        // search's figure absorbs (it is tens of microseconds).
        let parks = || {
            forkjoin::instrument::parks_of_current_pool().expect("a submitted job runs on a worker")
        };
        let thief = ThiefClock::default();
        let (mut parked, mut searches) = (Vec::new(), Vec::new());
        // The first hand-over leaves the thief idle; the wait below times its search.
        handover(&|| thief.record());
        let round = Instant::now();
        for _ in 0..count {
            // A busy host stretches the search to tens of milliseconds (every yield gives
            // the CPU away for a time slice): then fewer pairs, at least one per round.
            if !parked.is_empty() && round.elapsed() > PARKED_ROUND_BUDGET {
                break;
            }
            let (before, since) = (parks(), Instant::now());
            let mut seen = false;
            while since.elapsed() < PARK_DEADLINE {
                if parks() != before {
                    seen = true;
                    break;
                }
                std::hint::spin_loop();
            }
            let searched = thief
                .since_recorded()
                .unwrap_or_else(|| since.elapsed().as_nanos() as f64);
            // The park is counted just before the worker announces itself asleep: give it
            // time to fall asleep (less than a watcher's period, which would wake it).
            let settle = Instant::now();
            while settle.elapsed() < PARK_SETTLE {
                std::hint::spin_loop();
            }
            let handed = handover(&|| thief.record());
            if seen {
                searches.push(searched);
                parked.push(handed);
            }
        }
        (parked, searches)
    })
    .join()
    .expect("the hand-overs do not panic")
}

/// The CPU clock of the thread that last called [`ThiefClock::record`], and its reading then.
#[derive(Default)]
struct ThiefClock {
    /// (clock id, CPU time in ns), or `None` where threads have no CPU clock.
    recorded: std::sync::Mutex<Option<(ClockId, u64)>>,
}

impl ThiefClock {
    /// On the thief: notes its CPU clock and the time on it.
    fn record(&self) {
        *self.recorded.lock().unwrap() = thread_cpu_clock().and_then(|c| Some((c, cpu_ns(c)?)));
    }

    /// The CPU time the recording thread has used since it recorded.
    fn since_recorded(&self) -> Option<f64> {
        let (clock, then) = (*self.recorded.lock().unwrap())?;
        Some(cpu_ns(clock)?.saturating_sub(then) as f64)
    }
}

#[cfg(unix)]
type ClockId = libc::clockid_t;
#[cfg(not(unix))]
type ClockId = i32;

/// The calling thread's CPU clock.
#[cfg(target_os = "linux")]
fn thread_cpu_clock() -> Option<ClockId> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `pthread_self` is always valid, and `clock` is a valid out-pointer.
    let failed = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    (failed == 0).then_some(clock)
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_clock() -> Option<ClockId> {
    None
}

/// The time on a CPU clock, in ns. A pool thread's clock stays valid while the pool lives.
#[cfg(unix)]
fn cpu_ns(clock: ClockId) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; an invalid clock is reported, not undefined.
    let failed = unsafe { libc::clock_gettime(clock, &mut ts) };
    (failed == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(unix))]
fn cpu_ns(_clock: ClockId) -> Option<u64> {
    None
}

/// A sweep over empty queues, as an idle worker makes it: the mean of a few thousand.
fn measure_failed_steal(two: &Pool) -> f64 {
    const SWEEPS: usize = 5_000;
    two.submit(|| {
        let t = Instant::now();
        for _ in 0..SWEEPS {
            forkjoin::instrument::search_once().expect("a submitted job runs on a worker");
        }
        t.elapsed().as_nanos() as f64 / SWEEPS as f64
    })
    .join()
    .expect("the sweeps do not panic")
}

/// `submit` from this (outside) thread and `join`, back to back: a few dozen single ones,
/// each less the job's own time. The job runs for [`SUBMITTED_JOB`], as the simulated
/// programs' jobs run long enough that their joiner has gone to sleep by the end: a job of
/// nothing is often done before its joiner looks, and then the whole round trip takes
/// 0.5 us instead of 16, so the figure would depend on the share of such lucky ones (the
/// median of empty jobs read 12-18 us over five runs). Single samples, as the hand-overs
/// are: the median leaves out the one in a hundred that the host delays by a time slice.
fn measure_submit(two: &Pool) -> Vec<f64> {
    const TASKS: usize = 48;
    (0..TASKS)
        .map(|_| {
            let t = Instant::now();
            let ran = two
                .submit(|| {
                    let t = Instant::now();
                    while t.elapsed() < SUBMITTED_JOB {
                        std::hint::spin_loop();
                    }
                    t.elapsed()
                })
                .join()
                .expect("the job does not panic");
            (t.elapsed() - ran).as_nanos() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let mut c = Costs::typical();
        c.join_ns = 1.25;
        let back = Costs::from_json(&c.to_json(), "test").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn quartiles_interpolate_between_ranks() {
        let q = Quartiles::of(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(
            q,
            Quartiles {
                low: 2.0,
                median: 3.0,
                high: 4.0
            }
        );
        let q = Quartiles::of(vec![4.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            q,
            Quartiles {
                low: 1.75,
                median: 2.5,
                high: 3.25
            }
        );
        let q = Quartiles::of(vec![]);
        assert_eq!(
            q,
            Quartiles {
                low: 0.0,
                median: 0.0,
                high: 0.0
            }
        );
    }

    #[test]
    fn a_cpu_bound_figure_is_the_mean_of_its_fastest_fifth() {
        let mut s = Samples::default();
        s.round(vec![7.0, 3.0, 9.0, 1.0, 5.0]);
        s.round(vec![2.0, 10.0, 4.0, 8.0, 6.0]);
        assert_eq!(s.figure(), 1.5);
        // Fewer than five: the fastest alone.
        let mut s = Samples::default();
        s.round(vec![4.0, 2.0, 3.0]);
        assert_eq!(s.figure(), 2.0);
        assert_eq!(Samples::default().figure(), 0.0);
        // A latency's figure is its median.
        let mut s = Samples::latencies();
        s.round(vec![4.0, 2.0, 3.0]);
        assert_eq!(s.figure(), 3.0);
    }

    #[test]
    fn a_cost_is_unsettled_when_its_quartiles_differ_more_than_twice() {
        let q = |low, high| Quartiles {
            low,
            median: low,
            high,
        };
        assert!(!q(10.0, 21.0).unsettled());
        assert!(q(10.0, 21.5).unsettled());
        // The join: around zero, judged against the 1 ns slack.
        assert!(!q(-0.3, 1.0).unsettled());
        assert!(q(-0.3, 1.1).unsettled());
    }

    /// Repetitions whose figures, spreads and verdicts are worked out by hand.
    fn hand_made() -> Repetitions {
        let mut r = Repetitions::new();
        let rounds = |samples: &mut Samples, rounds: &[&[f64]]| {
            for round in rounds {
                samples.round(round.to_vec());
            }
        };
        // The join trees, five rounds each one unit slower than the one before: the tree
        // forks at 3.5 + i and runs plain at 3 + i, Fibonacci 2.75 + i and 2 + i. Only
        // round 0 is in the fast state (round 1's plain trees took 1.33 and 1.5 times
        // round 0's); its difference is 0.5 and 0.75, mean 0.625 (every round's is).
        for i in 0..5 {
            let i = i as f64;
            r.join_round([
                [3.5 + i, 3.0 + i, 3.0 + i, 3.5 + i],
                [2.75 + i, 2.0 + i, 2.0 + i, 2.75 + i],
            ]);
        }
        // CPU-bound: the fastest fifth of five (one) is 60, the spread 60-80.
        rounds(
            &mut r.promote,
            &[&[80.0], &[60.0], &[90.0], &[70.0], &[60.0]],
        );
        // Hand-overs: 2 ms is a preempted one (above 20 x the 10th percentile, 900, and
        // above 0.5 ms), left out: median 1060, so the steal is 1000 (60 of promotion).
        rounds(
            &mut r.spinning,
            &[&[900.0, 1_000.0], &[1_060.0, 1_100.0], &[1_200.0, 2e6]],
        );
        // To a parked worker: median 21060, the wake-up 20000. The rounds' medians are
        // 5000, 21060 and 65000: unsettled.
        rounds(
            &mut r.parked,
            &[&[5_000.0, 5_000.0], &[21_060.0], &[40_000.0, 90_000.0]],
        );
        rounds(&mut r.failed, &[&[40.0], &[40.0], &[40.0]]);
        // Wide within each round (one fast sample in three, 30 times faster, but below
        // the floor: kept), the same in every round: settled.
        let submit: &[f64] = &[500.0, 15_000.0, 16_000.0];
        rounds(&mut r.submit, &[submit; 3]);
        // The search, CPU-bound: its fastest 40e3, spread 40e3-60e3, settled.
        rounds(&mut r.spin, &[&[50e3], &[40e3], &[60e3], &[60e3], &[40e3]]);
        rounds(&mut r.timer, &[&[27.0], &[26.0], &[25.0]]);
        r
    }

    #[test]
    fn measured_costs_are_fastest_fifths_and_medians_with_their_spread() {
        let c = hand_made().costs();
        assert_eq!(
            c.measured(),
            [0.625, 60.0, 1_000.0, 40.0, 20_000.0, 15_000.0, 40e3, 25.0]
        );
        assert_eq!(
            c.spread["join_ns"],
            Spread {
                low: 0.625,
                high: 0.625
            }
        );
        assert_eq!(
            c.spread["promote_ns"],
            Spread {
                low: 60.0,
                high: 80.0
            }
        );
        // The steal's spread is the hand-overs' less the promotion's median.
        assert_eq!(
            c.spread["steal_ns"],
            Spread {
                low: 940.0,
                high: 1_040.0
            }
        );
        assert_eq!(
            c.spread["wake_ns"],
            Spread {
                low: 3_940.0,
                high: 38_940.0
            }
        );
        assert_eq!(
            c.spread["submit_ns"],
            Spread {
                low: 500.0,
                high: 16_000.0
            }
        );
        assert_eq!(
            c.spread["spin_ns"],
            Spread {
                low: 40e3,
                high: 60e3
            }
        );
        assert_eq!(c.unsettled, ["wake_ns"]);
        assert_eq!(c.spread.len(), MEASURED.len());
        // The host's speed: round 0's plain trees, 3 and 2 a node.
        assert_eq!(c.speed_ns, Some(2.5));
        // The ends of the spread, for predictions over it.
        let (lo, hi) = (c.low_end(), c.high_end());
        assert_eq!((lo.steal_ns, hi.steal_ns), (940.0, 1_040.0));
        assert_eq!((lo.spin_ns, hi.spin_ns), (40e3, 60e3));
        assert_eq!(lo.heartbeat_ns, c.heartbeat_ns);
        // Saved and read back, with the spread and the verdicts.
        assert_eq!(Costs::from_json(&c.to_json(), "t").unwrap(), c);
        let json = c.to_json();
        assert!(
            json.contains("\"unsettled\": [\n    \"wake_ns\"\n  ]"),
            "{json}"
        );
    }

    #[test]
    fn a_cost_with_nothing_measurable_is_not_measured_and_never_zero() {
        let mut r = hand_made();
        // Every round's forking trees as fast as the plain ones: a difference of 0.
        r.plain_trees = Default::default();
        r.join = Samples::default();
        for _ in 0..5 {
            r.join_round([[3.0, 3.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0]]);
        }
        let c = r.costs();
        assert_eq!(c.join_ns, Costs::typical().join_ns);
        assert!(c.unsettled.contains(&"join_ns".to_string()), "{c:?}");
        let why = &c.not_measured["join_ns"];
        assert!(why.contains("nothing measurable"), "{why}");
        // The others as measured.
        assert_eq!(c.promote_ns, 60.0);
        assert_eq!(c.not_measured.len(), 1);
        assert_eq!(Costs::from_json(&c.to_json(), "t").unwrap(), c);
        // A measured calibration lists nothing there, and its JSON has no such field.
        let c = hand_made().costs();
        assert!(c.not_measured.is_empty());
        assert!(!c.to_json().contains("not_measured"));
    }

    #[test]
    fn a_program_join_of_zero_in_a_file_is_not_measured() {
        let mut c = Costs::typical();
        c.program_join_ns.insert("fib-nothreshold".into(), 0.0);
        c.program_join_ns.insert("nqueens".into(), 4.8);
        let back = Costs::from_json(&c.to_json(), "old.json").unwrap();
        assert_eq!(back.program_join_ns.len(), 1);
        assert_eq!(back.unsettled, ["program_join_ns.fib-nothreshold"]);
        assert!(back.not_measured["program_join_ns.fib-nothreshold"].contains("0 ns in the file"));
        // The generic figure, not 0 ns.
        assert_eq!(back.for_program("fib-nothreshold").join_ns, c.join_ns);
        assert_eq!(back.for_program("nqueens").join_ns, 4.8);
        // Named not measured, a figure beside it is not used either.
        let mut c = back.clone();
        c.program_join_ns.insert("fib-nothreshold".into(), 2.0);
        assert_eq!(c.for_program("fib-nothreshold").join_ns, c.join_ns);
    }

    #[test]
    fn a_file_without_spread_still_loads() {
        let mut json: serde_json::Value =
            serde_json::from_str(&Costs::typical().to_json()).unwrap();
        let map = json.as_object_mut().unwrap();
        map.remove("spread");
        map.remove("unsettled");
        map.remove("program_join_ns");
        let c = Costs::from_json(&json.to_string(), "old.json").unwrap();
        assert_eq!(c, Costs::typical());
        assert!(c.spread.is_empty() && c.unsettled.is_empty());
        assert_eq!(c.low_end(), c);
        assert_eq!(c.high_end(), c);
    }

    #[test]
    fn a_program_join_cost_must_be_a_cost() {
        let mut c = Costs::typical();
        c.program_join_ns.insert("fib".into(), 2.5);
        assert_eq!(Costs::from_json(&c.to_json(), "t").unwrap(), c);
        c.program_join_ns.insert("integrate".into(), -1.0);
        let e = Costs::from_json(&c.to_json(), "t.json").unwrap_err();
        assert!(e.to_string().contains("negative or not finite"), "{e}");
    }

    #[test]
    fn malformed_json_is_a_clear_error() {
        let e = Costs::from_json("{\"join_ns\": 1}", "costs.json").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("costs.json is not a forkjoin costs file"),
            "{msg}"
        );
        let e =
            Costs::from_json(&Costs::typical().to_json().replace("3.0", "-3.0"), "x").unwrap_err();
        assert!(e.to_string().contains("negative"), "{e}");
        let e = Costs::load("/nonexistent/costs.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot access costs file /nonexistent/costs.json"),
            "{e}"
        );
    }
}
