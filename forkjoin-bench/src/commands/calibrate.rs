//! `fj calibrate`: the runtime's primitive costs measured on this machine and saved as
//! JSON; `fj profile`, `predict`, `validate` and `ft-predict` load them with [`load_costs`]
//! (and `fj ft --model` reads the same file).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use forkjoin_profile::{Costs, Spread, MEASURED};

use super::Failure;
use crate::cli::CalibrateArgs;
use crate::suite::cpus;
use crate::suite::programs::not_modelled;
use crate::suite::programs::{self, Ctx, Size};

/// Where `fj calibrate` saves the costs and the other commands look for them.
pub(crate) const DEFAULT_COSTS: &str = "fj-costs.json";

/// `fj calibrate`: measures the costs and saves them, with their spreads and the names of
/// the costs that could not be pinned down.
pub(crate) fn run(args: &CalibrateArgs) -> Result<ExitCode, Failure> {
    let (out, rounds) = (&args.out, args.rounds as usize);
    println!(
        "fj calibrate: measuring the runtime's primitive costs on this machine, {rounds} rounds of every measurement in turn, each followed by a turn of the suite's programs' joins (about fifteen seconds at {} rounds)",
        forkjoin_profile::ROUNDS
    );
    // The calibration this one replaces, for the host's speed then (`judge_speed`).
    let before = Costs::load(out).ok();
    let mut programs = ProgramJoinCosts::new(rounds)?;
    let dense: Vec<&str> = programs.dense.iter().map(|m| m.name).collect();
    println!(
        "programs whose own join cost is measured (joins at {REFERENCE_JOIN_NS} ns each {}% or more of the plain run; the others are charged the generic join): {}",
        DENSE_JOINS * 100.0,
        if dense.is_empty() {
            "none".to_string()
        } else {
            dense.join(", ")
        }
    );
    let mut costs = Costs::measure_rounds(rounds, || programs.turn());
    let joins = programs.finish()?;
    costs.program_join_ns = joins.ns;
    costs.spread.extend(joins.spread);
    costs.unsettled.extend(joins.unsettled);
    costs.not_measured.extend(joins.not_measured);
    let slower = judge_speed(&mut costs, before.as_ref());
    print_costs(&costs);
    match slower {
        Some(SlowRun { now, then }) => {
            eprintln!(
                "warning: the host ran {:.2}x slower than in the calibration {} replaces (the plain join trees took {now:.2} ns a node in the fastest round, against {then:.2}): every figure may be a slow state's; they are saved and the JSON lists them under \"unsettled\"; run `fj calibrate` again when the host is quieter",
                now / then,
                out.display(),
            );
            warn_not_measured(&costs);
        }
        None => warn_unsettled(&costs),
    }
    costs.save(out).map_err(|e| Failure::Other(e.to_string()))?;
    println!("saved: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn print_costs(c: &Costs) {
    let names = [
        "join, fast path",
        "share and take back",
        "steal by a spinning worker",
        "failed sweep of all queues",
        "wake a parked worker (extra)",
        "external submit and join",
        "search before parking",
        "profiler, per strand",
    ];
    println!(
        "costs on {} (the join: the median of the rounds run at the host's full speed; the sharing, the sweep, the search and the profiler: the mean of the fastest fifth of the repetitions; the latencies: the median; a program's join: from its pairs of runs at full speed; and the p25-p75 of the repetitions):",
        c.machine
    );
    for ((name, field), ns) in names.iter().zip(MEASURED).zip(c.measured()) {
        let spread = c.spread.get(field).map_or(String::new(), |s| {
            format!("{:>12.1} - {:<12.1}", s.low, s.high)
        });
        let flag = if c.not_measured.contains_key(field) {
            "  not measured: the typical figure"
        } else if c.unsettled.iter().any(|u| u == field) {
            "  unsettled"
        } else {
            ""
        };
        println!("  {name:<30} {ns:>12.1} ns {spread}{flag}");
    }
    println!(
        "  {:<30} {:>12.1} ns (the runtime's constant)",
        "heartbeat period", c.heartbeat_ns
    );
    if let Some(speed) = c.speed_ns {
        println!(
            "  {:<30} {speed:>12.2} ns a node (the plain join trees in the fastest round; the reference for the next calibration)",
            "host speed"
        );
    }
    for (program, why) in unmeasured_programs(c) {
        println!(
            "  {:<30} not measured ({why}): charged the generic join",
            format!("join in {program}")
        );
    }
    for (program, ns) in &c.program_join_ns {
        let key = program_join_key(program);
        let spread = c.spread.get(&key).map_or(String::new(), |s| {
            format!("{:>12.2} - {:<12.2}", s.low, s.high)
        });
        let flag = if c.unsettled.contains(&key) {
            "  unsettled"
        } else {
            ""
        };
        println!(
            "  {:<30} {ns:>12.2} ns {spread}{flag}",
            format!("join in {program}")
        );
    }
}

/// A suite program's own join cost is measured when its joins, at [`REFERENCE_JOIN_NS`]
/// each, take at least this share of its plain run. Below it, its own figure would move its
/// prediction by a few percent at most, and it is too small a part of the paired runs'
/// ratio to measure well: UTS T3's (0.9-1.0% a nanosecond) read 1.4-3.1 ns in twelve runs,
/// Micro's (0.24-0.27%) 2.7-3.7 ns. Fibonacci without threshold (22-24%), Integrate
/// (8.3-8.7%) and n-queens (3.3-5.8%) are above it.
const DENSE_JOINS: f64 = 0.02;

/// The join cost against which [`DENSE_JOINS`] is judged: a constant, so that which
/// programs get their own figure does not turn on the host's speed (against the generic
/// figure, 0.72-0.79 ns, Micro was in and out of the set from run to run).
const REFERENCE_JOIN_NS: f64 = 1.0;

/// What [`ProgramJoinCosts`] found: each dense program's figure, the spread of its fast
/// pairs' figures, and the programs whose figure rests on too few fast pairs.
struct ProgramJoins {
    ns: BTreeMap<String, f64>,
    spread: BTreeMap<String, Spread>,
    unsettled: Vec<String>,
    /// The dense programs whose join could not be measured, by key, with the reason.
    not_measured: BTreeMap<String, String>,
}

/// The name under which a program's join cost is kept in [`Costs::spread`] and
/// [`Costs::unsettled`].
fn program_join_key(program: &str) -> String {
    format!("program_join_ns.{program}")
}

/// Each program takes pairs of runs for this long in all, in turns (one after each round
/// of [`Costs::measure_with`]), at least [`MIN_PAIRS`] a turn and at most [`MAX_PAIRS`]
/// in all.
const BUDGET_SECONDS: f64 = 1.25;
const MIN_PAIRS: usize = 2;
const MAX_PAIRS: usize = 4005;

/// One pair of runs of a program: its forking run and its plain run, in seconds.
#[derive(Clone, Copy)]
struct Pair {
    forking: f64,
    plain: f64,
}

/// A dense program, its join count, its pairs so far and the turns they took.
struct Measured {
    name: &'static str,
    workload: Box<dyn programs::Workload>,
    joins: u64,
    pairs: Vec<Pair>,
    turns: usize,
}

/// The fast-path join cost of every suite program whose joins are dense, measured on its
/// Test input: on one worker, inside one `install` (so that no entry into the pool is in
/// the times), the program forking and its sequential version (two plain calls per join)
/// run in pairs, back to back, in alternating order. Pairing is what makes the figure
/// repeatable: a join costs about a nanosecond, a few percent of these programs' time,
/// and this host's speed drifts by more than that between seconds, which two separate
/// fastest fifths would take for a difference in cost.
///
/// Only the host's fast state counts. This host has slow states, a CPU's own, that last
/// from a second to tens of seconds, in which a plain run takes 1.2-1.9x as long and a
/// forking run slows more still: Integrate's forking/plain ratio rose from 1.10 to
/// 1.27-1.36, and its join read 2.4-4 ns instead of 0.8. Three things keep them out:
/// - The pairs are taken in turns, one after each round of the runtime's costs
///   ([`Costs::measure_with`]), so that they spread over the whole calibration (in a
///   stretch of their own after the runtime's costs, all of a run's turns had fallen in
///   one slow state in three runs of twelve).
/// - Each turn runs on the CPU that is fastest at its start ([`cpus::fastest`]).
/// - Only the pairs whose two runs both ran at the fast state's speed count
///   ([`fast_pairs`]): the K-best method, applied to pairs, since the host only ever slows
///   code down.
///
/// The figure is the median of the fast pairs' ratios (forking / plain) times the fastest
/// fifth of their plain runs, over the join count from a profile. A program with fewer
/// than [`MIN_FAST_PAIRS`] fast pairs is named unsettled.
///
/// A join's cost depends on the code around it (DESIGN.md, section 12), and `fj validate`
/// predicts the Default input from it, so the one-worker row stays a prediction: measured
/// on another input.
struct ProgramJoinCosts {
    pool: forkjoin::Pool,
    dense: Vec<Measured>,
    /// How many turns there will be.
    turns: usize,
    failure: Option<Failure>,
}

fn wrong(name: &str, e: String) -> Failure {
    Failure::Other(format!("{name}: wrong answer: {e}"))
}

impl ProgramJoinCosts {
    /// Profiles every modelled program on its Test input and keeps the dense ones; `turns`
    /// is how many turns will share [`BUDGET_SECONDS`].
    fn new(turns: usize) -> Result<ProgramJoinCosts, Failure> {
        let pool = {
            // The worker inherits the mask: one CPU, as a turn's caller has (`turn`).
            let _on = cpus::restrict(cpus::for_workers(&cpus::allowed(), 1));
            forkjoin::Pool::new(1).map_err(|e| Failure::Usage(e.to_string()))?
        };
        let mut dense = Vec::new();
        for program in programs::all() {
            if not_modelled(program.name).is_some() {
                continue;
            }
            let mut w = (program.make)(Size::Test);
            w.reset();
            let ((), profile) = forkjoin_profile::run(&pool, || w.run(&mut Ctx::Forkjoin));
            w.verify().map_err(|e| wrong(program.name, e))?;
            let joins = profile.joins();
            // Against the fastest of five plain runs, not the profile's work: that
            // includes the profiler's own cost, a third of n-queens' 22 us.
            let plain_ns = pool.install(|| {
                (0..5)
                    .map(|_| {
                        w.reset();
                        let t = Instant::now();
                        w.run(&mut Ctx::Sequential);
                        t.elapsed().as_nanos() as f64
                    })
                    .fold(f64::INFINITY, f64::min)
            });
            w.verify().map_err(|e| wrong(program.name, e))?;
            if joins > 0 && (joins as f64 * REFERENCE_JOIN_NS) >= DENSE_JOINS * plain_ns {
                dense.push(Measured {
                    name: program.name,
                    workload: w,
                    joins,
                    pairs: Vec::new(),
                    turns: 0,
                });
            }
        }
        Ok(ProgramJoinCosts {
            pool,
            dense,
            turns,
            failure: None,
        })
    }

    /// One turn of every dense program. A wrong answer stops the measurement; `finish`
    /// reports it.
    fn turn(&mut self) {
        if self.failure.is_some() {
            return;
        }
        let cpu = cpus::fastest();
        for m in &mut self.dense {
            let first = m.turns == 0;
            m.turns += 1;
            let limit = MAX_PAIRS * m.turns / self.turns;
            let (w, pairs) = (&mut m.workload, &mut m.pairs);
            let budget = BUDGET_SECONDS / self.turns as f64;
            let done = self.pool.install(|| -> Result<(), String> {
                // Whichever thread runs the job (the worker, or this one in a borrowed
                // slot) runs it on the CPU found fastest.
                let _on = cpus::restrict(&cpu);
                let mut time = |mut ctx: Ctx| -> Result<f64, String> {
                    w.reset();
                    let t = Instant::now();
                    w.run(&mut ctx);
                    let seconds = t.elapsed().as_secs_f64();
                    w.verify()?;
                    Ok(seconds)
                };
                if first {
                    // A warm-up pair.
                    time(Ctx::Forkjoin)?;
                    time(Ctx::Sequential)?;
                }
                let started = Instant::now();
                let mut taken = 0;
                while taken < MIN_PAIRS
                    || (pairs.len() < limit && started.elapsed().as_secs_f64() < budget)
                {
                    let pair = if pairs.len() % 2 == 0 {
                        let forking = time(Ctx::Forkjoin)?;
                        let plain = time(Ctx::Sequential)?;
                        Pair { forking, plain }
                    } else {
                        let plain = time(Ctx::Sequential)?;
                        let forking = time(Ctx::Forkjoin)?;
                        Pair { forking, plain }
                    };
                    pairs.push(pair);
                    taken += 1;
                }
                Ok(())
            });
            if let Err(e) = done {
                self.failure = Some(wrong(m.name, e));
                return;
            }
        }
    }

    /// Each dense program's figure from its pairs in the host's fast state.
    fn finish(self) -> Result<ProgramJoins, Failure> {
        if let Some(failure) = self.failure {
            return Err(failure);
        }
        let mut found = ProgramJoins {
            ns: BTreeMap::new(),
            spread: BTreeMap::new(),
            unsettled: Vec::new(),
            not_measured: BTreeMap::new(),
        };
        for m in self.dense {
            let key = program_join_key(m.name);
            match program_join(&m.pairs, m.joins) {
                ProgramJoin::Measured {
                    ns,
                    spread,
                    settled,
                } => {
                    found.spread.insert(key.clone(), spread);
                    if !settled {
                        found.unsettled.push(key);
                    }
                    found.ns.insert(m.name.to_string(), ns);
                }
                ProgramJoin::NotMeasured(why) => {
                    found.unsettled.push(key.clone());
                    found.not_measured.insert(key, why);
                }
            }
        }
        Ok(found)
    }
}

/// A dense program's join cost from its pairs of runs, or why there is none.
#[derive(Debug, PartialEq)]
enum ProgramJoin {
    /// The figure (ns, above zero), the spread of the fast pairs' figures, and whether
    /// enough pairs ran at full speed ([`MIN_FAST_PAIRS`]).
    Measured {
        ns: f64,
        spread: Spread,
        settled: bool,
    },
    /// No pair ran at full speed, or the forking runs were not measurably longer than the
    /// plain ones: the reason, for the JSON and stderr.
    NotMeasured(String),
}

/// The join cost of a program that forks `joins` times a run, from its pairs of runs
/// (see [`ProgramJoinCosts`]): the median of the fast pairs' ratios (forking / plain) less
/// one, times the fastest fifth of their plain runs, over the joins. Measured only when
/// three quarters of the fast pairs or more had the forking run the longer (the 25th
/// percentile of the ratios above 1): otherwise the difference is within the noise of
/// the pairs, and their median (0 ns or below in one calibration, a few hundredths of a
/// nanosecond in the next, as fib without threshold read on a 2-core EPYC VM) would be a
/// statistic of the noise, not a cost.
fn program_join(pairs: &[Pair], joins: u64) -> ProgramJoin {
    let fast = fast_pairs(pairs);
    if fast.is_empty() || joins == 0 {
        return ProgramJoin::NotMeasured(format!(
            "none of its {} pairs of runs ran at the host's full speed",
            pairs.len()
        ));
    }
    let mut plain: Vec<f64> = fast.iter().map(|p| p.plain).collect();
    let plain_seconds = fastest_fifth_mean(&mut plain);
    let per_join = |ratio: f64| (ratio - 1.0) * plain_seconds * 1e9 / joins as f64;
    let mut ratios: Vec<f64> = fast.iter().map(|p| p.forking / p.plain).collect();
    let (low, mid, high) = (
        percentile(&mut ratios, 0.25),
        median(&mut ratios),
        percentile(&mut ratios, 0.75),
    );
    if low <= 1.0 {
        let not_longer = ratios.iter().filter(|&&r| r <= 1.0).count();
        let few = if fast.len() < MIN_FAST_PAIRS {
            format!(
                "too few pairs ran at the host's full speed ({} of {}) to tell its runs apart; ",
                fast.len(),
                pairs.len()
            )
        } else {
            String::new()
        };
        return ProgramJoin::NotMeasured(format!(
            "{few}no measurable difference between its forking and plain runs: the forking run was no longer in {not_longer} of the {} pairs run at full speed (a quarter or more); forking took {low:.4}-{high:.4} times as long as plain (p25-p75, median {mid:.4}), {:.2} to {:.2} ns a join",
            fast.len(),
            per_join(low),
            per_join(high),
        ));
    }
    ProgramJoin::Measured {
        ns: per_join(mid),
        spread: Spread {
            low: per_join(low),
            high: per_join(high),
        },
        settled: fast.len() >= MIN_FAST_PAIRS,
    }
}

/// A pair is in the host's fast state when both its runs took at most this many times
/// the 10th percentile of their kind. A slow state makes a plain run 1.2-1.9x as long and
/// a forking run longer still (Integrate's ratio rose from 1.10 to 1.27-1.36), and it may
/// begin or end between a pair's two runs. Judged by whole turns (the median of a turn's
/// plain runs within 1.05x of the fastest turn's), Integrate's figure read 0.81-1.07 ns in
/// four runs, one of them with a single turn in the band.
const FAST_PAIR: f64 = 1.05;

/// A program's join cost from fewer fast pairs than this is named unsettled: the host
/// was slow through most of the measurement, and the figure may be a slow state's.
const MIN_FAST_PAIRS: usize = 10;

/// The pairs whose two runs both ran in the host's fast state (see [`FAST_PAIR`]): at
/// most `FAST_PAIR` times the 10th percentile of their kind, so that the bar is not set by
/// one lucky run.
fn fast_pairs(pairs: &[Pair]) -> Vec<Pair> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let p10 = |mut runs: Vec<f64>| percentile(&mut runs, 0.1);
    let forking = p10(pairs.iter().map(|p| p.forking).collect());
    let plain = p10(pairs.iter().map(|p| p.plain).collect());
    pairs
        .iter()
        .copied()
        .filter(|p| p.forking <= FAST_PAIR * forking && p.plain <= FAST_PAIR * plain)
        .collect()
}

/// The median of `v`, which is not empty.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The `q` quantile of `v` (not empty), interpolated between ranks.
fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let rank = q * (v.len() - 1) as f64;
    let (below, above) = (rank.floor() as usize, rank.ceil() as usize);
    v[below] + (v[above] - v[below]) * (rank - below as f64)
}

/// A calibration whose fastest round ran this many times slower than the one it replaces
/// ran in a slow state throughout. The fastest round's plain trees took 2.83-3.08 ns a node
/// in four runs of one binary and 3.09-3.34 in eight of another (a print added: the code's
/// layout moves it too), 1.18x in all; a run with every CPU-bound cost 1.29-1.34x high (both
/// CPUs in a slow state for all of it) read the generic join 3.4x high. Between the two.
const SLOW_RUN: f64 = 1.2;

/// A calibration that ran slower than the one it replaced: the host's speed in each
/// ([`Costs::speed_ns`]).
#[derive(Debug, PartialEq)]
struct SlowRun {
    now: f64,
    then: f64,
}

/// Judges the host's speed in `costs` against the calibration it replaces, on the same
/// machine. When it ran more than [`SLOW_RUN`] times slower, every measured cost and every
/// program's join is named unsettled (a state the whole calibration ran in is one that no
/// statistic inside it can see) and the faster speed is kept as the reference for the next
/// run. This host has slow states, a CPU's own or both CPUs', that last up to tens of
/// seconds, as long as a calibration.
fn judge_speed(costs: &mut Costs, before: Option<&Costs>) -> Option<SlowRun> {
    let before = before.filter(|b| b.machine == costs.machine)?;
    let (now, then) = (costs.speed_ns?, before.speed_ns?);
    if now <= SLOW_RUN * then {
        return None;
    }
    costs.speed_ns = Some(then);
    let named = forkjoin_profile::MEASURED
        .iter()
        .map(|m| m.to_string())
        .chain(costs.program_join_ns.keys().map(|p| program_join_key(p)));
    for name in named {
        if !costs.unsettled.contains(&name) {
            costs.unsettled.push(name);
        }
    }
    Some(SlowRun { now, then })
}

/// The mean of the fastest fifth of `v`, as for the runtime's own CPU-bound costs.
fn fastest_fifth_mean(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let fifth = v.len().div_ceil(5);
    v[..fifth].iter().sum::<f64>() / fifth as f64
}

/// The programs whose own join cost a calibration could not measure, with the reason.
fn unmeasured_programs(c: &Costs) -> impl Iterator<Item = (&str, &str)> {
    c.not_measured
        .iter()
        .filter_map(|(key, why)| Some((key.strip_prefix("program_join_ns.")?, why.as_str())))
}

/// What `fj profile`, `fj predict` and `fj validate` say of a program whose own join cost
/// `costs` names as not measured: the generic figure charged in its place, and why.
/// `None` where the program has its own figure or never had one (it is not dense).
pub(crate) fn join_fallback_note(costs: &Costs, program: &str) -> Option<String> {
    let (_, why) = unmeasured_programs(costs).find(|(p, _)| *p == program)?;
    Some(format!(
        "note: {program}'s own join cost was not measured ({why}): the generic join cost, {:.2} ns, is charged in its place",
        costs.join_ns
    ))
}

/// Names on stderr the costs whose rounds disagreed by more than the stated factor, the
/// programs whose join cost rests on too few turns in the host's fast state, and the
/// costs that could not be measured, with the reason and what stands in their place.
fn warn_unsettled(c: &Costs) {
    warn_not_measured(c);
    let (programs, runtime): (Vec<&String>, Vec<&String>) = c
        .unsettled
        .iter()
        .filter(|u| !c.not_measured.contains_key(*u))
        .partition(|u| u.starts_with("program_join_ns."));
    if !runtime.is_empty() {
        eprintln!(
            "warning: {} could not be pinned down on {} (the rounds' medians spread wider than {}x from p25 to p75): the host is busy, or these costs vary here; the median is saved and the JSON lists them under \"unsettled\"",
            runtime.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
            c.machine,
            forkjoin_profile::UNSETTLED_FACTOR
        );
    }
    if !programs.is_empty() {
        eprintln!(
            "warning: {} (a program's own join cost) could not be pinned down on {} (fewer than {MIN_FAST_PAIRS} of its pairs of runs ran at the host's full speed): the host was slow through most of the measurement; the figure is saved and the JSON lists it under \"unsettled\"; run `fj calibrate` again when the host is quieter",
            programs
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            c.machine,
        );
    }
}

/// Names on stderr each cost that could not be measured, why, and what stands in its place.
fn warn_not_measured(c: &Costs) {
    for (name, why) in &c.not_measured {
        match name.strip_prefix("program_join_ns.") {
            Some(program) => eprintln!(
                "warning: {program}'s own join cost ({name}) was not measured on {}: {why}; no figure is saved for it (the JSON lists it under \"unsettled\" and \"not_measured\"), and `fj profile`, `fj predict` and `fj validate` charge it the generic join cost, {:.2} ns",
                c.machine, c.join_ns
            ),
            None => eprintln!(
                "warning: {name} was not measured on {}: {why} (the JSON lists it under \"unsettled\" and \"not_measured\")",
                c.machine
            ),
        }
    }
}

/// The costs from `--costs FILE`, else `fj-costs.json` if present, else measured now. Costs
/// that were not pinned down are named on stderr.
pub(crate) fn load_costs(path: Option<&Path>) -> Result<Costs, Failure> {
    let costs = if let Some(path) = path {
        Costs::load(path).map_err(|e| Failure::Usage(e.to_string()))?
    } else if Path::new(DEFAULT_COSTS).exists() {
        let costs = Costs::load(DEFAULT_COSTS).map_err(|e| Failure::Usage(e.to_string()))?;
        println!("costs: {DEFAULT_COSTS} ({})", costs.machine);
        costs
    } else {
        println!("costs: measuring now (`fj calibrate` saves them to {DEFAULT_COSTS})");
        Costs::measure()
    };
    warn_unsettled(&costs);
    Ok(costs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(speed_ns: f64) -> Costs {
        let mut c = Costs::typical();
        c.machine = "vm (2 cores)".into();
        c.speed_ns = Some(speed_ns);
        c.program_join_ns.insert("integrate".into(), 0.8);
        c.unsettled.push("wake_ns".into());
        c
    }

    fn pairs(forking: f64, plain: f64, count: usize) -> Vec<Pair> {
        vec![Pair { forking, plain }; count]
    }

    #[test]
    fn a_program_whose_forking_runs_are_longer_gets_its_own_join_cost() {
        // A quarter longer over a million joins of a 1 s plain run: 250 ns a join.
        let measured = |settled| ProgramJoin::Measured {
            ns: 250.0,
            spread: Spread {
                low: 250.0,
                high: 250.0,
            },
            settled,
        };
        assert_eq!(
            program_join(&pairs(1.25, 1.0, MIN_FAST_PAIRS), 1_000_000),
            measured(true)
        );
        // Too few pairs at full speed: the figure, named unsettled.
        assert_eq!(
            program_join(&pairs(1.25, 1.0, MIN_FAST_PAIRS - 1), 1_000_000),
            measured(false)
        );
    }

    #[test]
    fn no_measurable_difference_is_not_measured_never_zero() {
        let not_measured = |pairs: &[Pair]| match program_join(pairs, 1_000) {
            ProgramJoin::NotMeasured(why) => why,
            other => panic!("{other:?}"),
        };
        // Forking as fast as plain, or faster: the old code's 0 ns.
        let why = not_measured(&pairs(1.0, 1.0, 40));
        assert!(why.starts_with("no measurable difference"), "{why}");
        assert!(
            why.contains("no longer in 40 of the 40 pairs run at full speed"),
            "{why}"
        );
        let why = not_measured(&pairs(0.98, 1.0, 40));
        assert!(why.starts_with("no measurable difference"), "{why}");
        // From few pairs at full speed, said.
        let why = not_measured(&pairs(1.0, 1.0, 3));
        assert!(
            why.starts_with("too few pairs ran at the host's full speed (3 of 3)"),
            "{why}"
        );
        // Longer in only half of the pairs: within their noise.
        let mut mixed = pairs(1.01, 1.0, 20);
        mixed.extend(pairs(1.0, 1.01, 20));
        let why = not_measured(&mixed);
        assert!(why.contains("no longer in 20 of the 40 pairs"), "{why}");
        // No pair at full speed (each has one slow run), or none at all.
        let slow = [
            Pair {
                forking: 1.0,
                plain: 2.0,
            },
            Pair {
                forking: 2.0,
                plain: 1.0,
            },
        ];
        assert_eq!(
            not_measured(&slow),
            "none of its 2 pairs of runs ran at the host's full speed"
        );
        assert!(not_measured(&[]).starts_with("none of its 0 pairs"));
    }

    #[test]
    fn a_program_not_measured_is_charged_the_generic_join_and_told_so() {
        let mut c = measured(3.1);
        c.join_ns = 0.75;
        c.not_measured.insert(
            program_join_key("fib-nothreshold"),
            "no measurable difference".into(),
        );
        let note = join_fallback_note(&c, "fib-nothreshold").expect("a note");
        assert!(
            note.contains(
                "fib-nothreshold's own join cost was not measured (no measurable difference)"
            ) && note.contains("the generic join cost, 0.75 ns"),
            "{note}"
        );
        assert_eq!(c.for_program("fib-nothreshold").join_ns, 0.75);
        // Measured, or never dense: nothing to say.
        assert_eq!(join_fallback_note(&c, "integrate"), None);
        assert_eq!(join_fallback_note(&c, "fib"), None);
        // A runtime cost not measured is no program's.
        c.not_measured
            .insert("join_ns".into(), "came out at 0".into());
        assert_eq!(join_fallback_note(&c, "join_ns"), None);
    }

    #[test]
    fn a_calibration_slower_throughout_than_the_one_it_replaces_names_every_cost() {
        let mut c = measured(4.1);
        let slow = judge_speed(&mut c, Some(&measured(3.1)));
        assert_eq!(
            slow,
            Some(SlowRun {
                now: 4.1,
                then: 3.1
            })
        );
        // Every measured cost once (wake_ns was named already), then the program's join.
        assert_eq!(c.unsettled.len(), forkjoin_profile::MEASURED.len() + 1);
        assert_eq!(c.unsettled[0], "wake_ns");
        assert!(c.unsettled.contains(&"join_ns".to_string()));
        assert!(c
            .unsettled
            .contains(&"program_join_ns.integrate".to_string()));
        // The faster speed stays the reference.
        assert_eq!(c.speed_ns, Some(3.1));
    }

    #[test]
    fn a_calibration_as_fast_or_faster_or_on_another_machine_is_left_as_it_is() {
        for (now, before) in [
            (3.7, measured(3.1)), // 1.19x: within SLOW_RUN
            (2.9, measured(3.1)), // faster: the new reference
            (
                4.1,
                Costs {
                    machine: "another (8 cores)".into(),
                    ..measured(3.1)
                },
            ),
            (
                4.1,
                Costs {
                    speed_ns: None,
                    ..measured(3.1)
                },
            ),
        ] {
            let mut c = measured(now);
            assert_eq!(judge_speed(&mut c, Some(&before)), None);
            assert_eq!(c.unsettled, ["wake_ns"]);
            assert_eq!(c.speed_ns, Some(now));
        }
        let mut c = measured(4.1);
        assert_eq!(judge_speed(&mut c, None), None);
    }
}
