//! The command line: clap's definitions and the parsers of the values clap cannot check by
//! itself (worker lists, sizes, peers). Every mistake in a value becomes one line on stderr
//! and exit status 2 (see `main`).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::suite::programs::{Runtime, Size};

/// More workers than this is a typo, not a machine.
const MAX_WORKERS: usize = 1024;

#[derive(Parser, Debug)]
#[command(
    name = "fj",
    version,
    about = "The forkjoin benchmark suite: Lea's fork/join programs measured against rayon, chili and the JDK's ForkJoinPool",
    subcommand_required = true,
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Measure programs on forkjoin and its peers; print a table and write a report.
    ///
    /// With no arguments: every program at the default size, on 1 worker and on one worker
    /// per core, against every peer present, with the report in fj-report/. Exit status: 0
    /// when every answer was verified, 1 when one was not, 2 for a usage error.
    Bench(BenchArgs),
    /// Search one UTS tree (the standard UTS options) in a forkjoin pool and print its node
    /// count, depth, leaf count and the time taken.
    ///
    /// Example: fj uts --threads 2 -t 1 -a 3 -d 10 -b 4 -r 19  (T1: 4,130,071 nodes)
    Uts(UtsArgs),
    /// Check the source documents' claims on this machine: false sharing, a lock that
    /// serialises two threads, CPU pinning ("Multithreaded multicore optimisation"); SeqCst
    /// versus release (lazySet) publishing and cursor padding in a ring buffer ("lazySet: hidden
    /// pages of the JMM"); sort by key width and Jacobi barriers (the FJTask paper, 4.3 and
    /// 4.4). Each prints the claim, the ratio measured in one run, and whether it held.
    Experiments(ExperimentsArgs),
    /// Measure the runtime's primitive costs on this machine (join, share, steal, wake,
    /// submit) and save them as JSON for `fj profile`, `predict` and `validate`.
    Calibrate(CalibrateArgs),
    /// Profile one program: work, span, parallelism, burdened parallelism, and its predicted
    /// speedup at 1 to 64 workers beside Cilkview's bounds (a table and an SVG plot); or,
    /// after `--`, any command built with forkjoin's `profile` feature, by call site.
    Profile(ProfileArgs),
    /// Predict one program's time at the given worker counts from one profile.
    Predict(PredictArgs),
    /// For every program (or those named): predicted against measured time at each worker
    /// count, with the error in percent.
    ///
    /// The strands of a profile are scaled to the sequential version's time, measured in
    /// the same run, and slowed by the "co-run" factor: how much slower the program's work
    /// ran split over that many workers than on one (shared memory bandwidth and cache).
    Validate(ValidateArgs),
    /// NAS FT over MPI: `mpiexec -n N fj ft --class C --mode processes|hybrid`. Prints the
    /// checksum of every iteration, the time and whether the result verified (exit 1 if
    /// not); with --model NET also the run time predicted by per-process model clocks.
    Ft(FtArgs),
    /// Measure this machine's MPI latency and bandwidth by ping-pong and save them as the
    /// network profile `local`: `mpiexec -n 2 fj calibrate-network`.
    CalibrateNetwork(CalibrateNetworkArgs),
    /// Predict NAS FT's run time on N nodes of C cores, FT (pencils, a process per core)
    /// against FT_T (slabs, a pool per node), from phase costs measured here and a network
    /// profile: a table and an SVG plot. Needs no MPI.
    FtPredict(FtPredictArgs),
    /// The performance matrix: sources x adaptors x consumers x nesting x item costs, each
    /// cell timed on sequential std, forkjoin and rayon in turns (K-best) at each worker
    /// count; worst cells first, a summary, and JSON. Exit status 1 if a cell's versions
    /// disagree.
    Matrix(MatrixArgs),
    /// Loop programs generated from a grammar (sources x adaptors x consumers x closure
    /// kinds x nesting) by a seed, built as users build, each timed on std (1 thread),
    /// forkjoin and rayon; worst first, a summary against the targets, and JSON. Exit
    /// status 1 if they do not build or a program's versions disagree.
    ///
    /// Example: fj loops --seed 1 --count 40 --rounds 3
    Loops(LoopsArgs),
}

/// `fj loops --json`'s default.
pub(crate) const DEFAULT_LOOPS_JSON: &str = "fj-report/loops.json";
/// `fj loops --instructions`' JSON when `--json` is not given.
pub(crate) const DEFAULT_LOOPS_INSTRUCTIONS_JSON: &str = "fj-report/loops-instructions.json";

#[derive(Args, Debug)]
pub(crate) struct LoopsArgs {
    /// The generator's seed [default: from the clock, printed so that the run can be
    /// repeated].
    #[arg(long, value_name = "S", conflicts_with_all = ["kept", "program"])]
    pub seed: Option<u64>,
    /// Programs to generate [default: 200].
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=5000), conflicts_with_all = ["kept", "program"])]
    pub count: Option<u32>,
    /// Run the fixed cases of forkjoin-bench/src/loops/kept.txt.
    #[arg(long, conflicts_with = "program")]
    pub kept: bool,
    /// Run this program, a line as `fj loops` prints it (repeatable), e.g.
    /// 'slice-u64 | map:arith filter:branch | sum | flat | n=200000'.
    #[arg(long, value_name = "LINE", value_parser = parse_loop_program)]
    pub program: Vec<crate::loops::grammar::Program>,
    /// Worker counts of forkjoin and rayon (std always runs on one thread).
    #[arg(long, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list, default_value = "1,2")]
    pub threads: ThreadList,
    /// Timed rounds per program (after a warm-up round).
    #[arg(long, allow_negative_numbers = true, value_name = "R", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 7)]
    pub rounds: u32,
    /// K-best: the mean of the K fastest samples.
    #[arg(long, allow_negative_numbers = true, value_name = "K", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 3)]
    pub k: u32,
    /// Programs that break a target are timed again with this many rounds, and a flag stands
    /// only if the second timing breaks it too (0: no second timing). A short loop's K-best
    /// time on a busy machine depends on where the scheduler's time slices fell.
    #[arg(long, allow_negative_numbers = true, value_name = "R", value_parser = clap::value_parser!(u32), default_value_t = 21)]
    pub recheck_rounds: u32,
    /// Count instructions with callgrind instead of timing: each program on std, forkjoin
    /// at 1 and 2 workers and rayon at 1, the leaf loop against std's (needs valgrind;
    /// the JSON goes to fj-report/loops-instructions.json unless --json says otherwise).
    #[arg(long, conflicts_with_all = ["threads", "rounds", "k", "recheck_rounds"])]
    pub instructions: bool,
    /// Where to write the JSON.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_LOOPS_JSON)]
    pub json: PathBuf,
}

fn parse_loop_program(s: &str) -> Result<crate::loops::grammar::Program, String> {
    s.parse()
}

/// `fj matrix --json`'s default.
pub(crate) const DEFAULT_MATRIX_JSON: &str = "fj-report/matrix.json";

#[derive(Args, Debug)]
pub(crate) struct MatrixArgs {
    /// Worker counts.
    #[arg(long, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list, default_value = "1,2")]
    pub workers: ThreadList,
    /// Only the cells whose name contains SUBSTRING.
    #[arg(long, value_name = "SUBSTRING")]
    pub filter: Option<String>,
    /// Timed rounds per cell and worker count [default: quick 100, full 150].
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: Option<u32>,
    /// K-best: the mean of the K fastest samples.
    #[arg(long, allow_negative_numbers = true, value_name = "K", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 3)]
    pub k: u32,
    /// quick (a few minutes) or full (longer loops and samples, more rounds).
    #[arg(long, value_name = "SIZE", value_parser = parse_matrix_size, default_value = "quick")]
    pub size: MatrixSize,
    /// Where to write the JSON.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_MATRIX_JSON)]
    pub json: PathBuf,
    /// Print only the N worst cells of each table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// List the cells and exit.
    #[arg(long)]
    pub list: bool,
}

/// `fj matrix --size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatrixSize {
    Quick,
    Full,
}

fn parse_matrix_size(s: &str) -> Result<MatrixSize, String> {
    match s {
        "quick" => Ok(MatrixSize::Quick),
        "full" => Ok(MatrixSize::Full),
        _ => Err("expected quick or full".to_string()),
    }
}

#[derive(Args, Debug)]
pub(crate) struct FtPredictArgs {
    /// NPB class: S, W, A or B.
    #[arg(long, value_name = "CLASS", value_parser = crate::ft::Class::parse, default_value = "A")]
    pub class: crate::ft::Class,
    /// The network between nodes: infiniband, ethernet-10g, or local.
    #[arg(long, value_name = "NETWORK", default_value = "infiniband")]
    pub network: String,
    /// Where the `local` profile is (used within a node when present).
    #[arg(long, value_name = "FILE", default_value = forkjoin_mpi::network::DEFAULT_FILE)]
    pub network_file: PathBuf,
    /// Node counts.
    #[arg(long, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list, default_value = "1,2,4,8,16,64")]
    pub nodes: ThreadList,
    /// Cores per node.
    #[arg(long, allow_negative_numbers = true, value_name = "C", value_parser = parse_worker_count, default_value = "16")]
    pub cores: usize,
    /// Costs saved by `fj calibrate` [default: fj-costs.json if present, else measured now].
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Where to write the plot.
    #[arg(long, value_name = "FILE", default_value = "fj-ft-predict.svg")]
    pub svg: PathBuf,
    /// Write one JSON object per node count to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct FtArgs {
    /// NPB class: S, W, A or B.
    #[arg(long, value_name = "CLASS", value_parser = crate::ft::Class::parse, default_value = "S")]
    pub class: crate::ft::Class,
    /// processes (FT: 2-D pencils, one process per core) or hybrid (FT_T: 1-D slabs, a pool
    /// per process).
    #[arg(long, value_name = "MODE", default_value = "hybrid")]
    pub mode: String,
    /// Keep a model clock per process with this network profile (local, infiniband,
    /// ethernet-10g) and print the predicted time beside the measured one.
    #[arg(long, value_name = "NETWORK")]
    pub model: Option<String>,
    /// Where the `local` profile is.
    #[arg(long, value_name = "FILE", default_value = forkjoin_mpi::network::DEFAULT_FILE)]
    pub network_file: PathBuf,
    /// Costs saved by `fj calibrate` [default: fj-costs.json if present, else measured now].
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Workers per process [default: hybrid, the node's cores divided by its processes;
    /// processes, 1].
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = parse_worker_count)]
    pub threads: Option<usize>,
    /// Pin each worker to one of its process's cores.
    #[arg(long)]
    pub pin: bool,
    /// Fail unless the run has exactly N processes (catches a binary started by another
    /// MPI's launcher, which runs N separate copies of rank 0).
    #[arg(long, value_name = "N")]
    pub expect_processes: Option<usize>,
    /// Write the run's result (times, checksums, verified) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct CalibrateNetworkArgs {
    /// Where to save the profile.
    #[arg(long, value_name = "FILE", default_value = forkjoin_mpi::network::DEFAULT_FILE)]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub(crate) struct CalibrateArgs {
    /// Where to save the costs.
    #[arg(long, value_name = "FILE", default_value = "fj-costs.json")]
    pub out: PathBuf,
    /// Rounds of every measurement: fewer take less time and pin the costs down less well
    /// (at least 5).
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(forkjoin_profile::MIN_ROUNDS as i64..), default_value_t = forkjoin_profile::ROUNDS as u32)]
    pub rounds: u32,
}

/// The problem size and the costs, shared by `fj profile`, `predict` and `validate`.
#[derive(Args, Debug)]
pub(crate) struct ModelArgs {
    /// Problem size: test, default, or paper.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "default")]
    pub size: Size,
    /// Costs saved by `fj calibrate` [default: fj-costs.json if present, else measured now].
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ProfileArgs {
    /// The program (fj bench --list shows them).
    #[arg(
        value_name = "PROGRAM",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    pub program: Option<String>,
    /// Instead of a suite program, any program that uses forkjoin built with its `profile`
    /// feature: `fj profile -- COMMAND ARGS...` runs it with `FORKJOIN_PROFILE` set and shows
    /// work, span and parallelism by call site.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Where to write the plot [default: fj-profile-PROGRAM.svg].
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// With a COMMAND: where to write the call sites in Cilkscale's CSV columns.
    #[arg(long, value_name = "FILE", default_value = "fj-profile.csv")]
    pub csv: PathBuf,
    /// With a COMMAND: where to write the page of call sites and their figures.
    #[arg(long, value_name = "FILE", default_value = "fj-report/call-sites.html")]
    pub html: PathBuf,
    /// With a COMMAND: also run it, profiled, at each worker count from 1 to this machine's
    /// cores (`FORKJOIN_NUM_THREADS`), for the measured speedups in the page's figures.
    #[arg(long)]
    pub measure: bool,
}

#[derive(Args, Debug)]
pub(crate) struct PredictArgs {
    /// The program (fj bench --list shows them).
    #[arg(value_name = "PROGRAM")]
    pub program: String,
    /// Worker counts to predict, e.g. 1,2,4,8,16.
    #[arg(long, required = true, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list)]
    pub threads: ThreadList,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Write one JSON object per worker count to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ValidateArgs {
    /// Programs to validate (default: every program that can be profiled).
    #[arg(value_name = "PROGRAM")]
    pub programs: Vec<String>,
    /// Worker counts [default: 1 and the number of cores].
    #[arg(long, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list)]
    pub threads: Option<ThreadList>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Write one JSON object per (program, workers) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub method: MethodArgs,
}

#[derive(Args, Debug)]
pub(crate) struct ExperimentsArgs {
    /// Experiments to run (default: all): false-sharing, lock, pinning, lazyset,
    /// sort-width, jacobi-barrier.
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Smaller sizes and fewer runs (seconds instead of about a minute).
    #[arg(long)]
    pub quick: bool,
}

#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    /// Programs to run, by exact name (default: all; --list shows them).
    #[arg(value_name = "PROGRAM")]
    pub programs: Vec<String>,

    /// Problem size: test (tiny, seconds for the whole suite), default, or paper (Lea's sizes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "default")]
    pub size: Size,

    /// Worker counts to measure, e.g. 1,2,4 [default: 1 and the number of cores].
    #[arg(long, allow_negative_numbers = true, value_name = "LIST", value_parser = parse_thread_list)]
    pub threads: Option<ThreadList>,

    /// Peers to measure forkjoin against: a list of rayon, chili, java, or none
    /// [default: all present].
    #[arg(long, value_name = "LIST", value_parser = parse_peers)]
    pub peers: Option<Peers>,

    /// Write one JSON object per (program, runtime, workers) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Directory for the report (index.html with tables and plots, results.json).
    #[arg(long, value_name = "DIR", default_value = "fj-report")]
    pub report: PathBuf,

    /// Write no report.
    #[arg(long, conflicts_with = "report")]
    pub no_report: bool,

    /// Add forkjoin's counts per run to the printed table: tasks, steals, and the times a
    /// waiting worker slept with nothing of its own to run (the report always shows them).
    #[arg(long)]
    pub counts: bool,

    #[command(flatten)]
    pub method: MethodArgs,

    /// List the programs and exit.
    #[arg(long)]
    pub list: bool,
}

/// The K-best method's options (`fj bench`, `fj validate`).
#[derive(Args, Debug)]
pub(crate) struct MethodArgs {
    /// K-best: average the K fastest runs [default: 3; --rigorous: 10].
    #[arg(long, allow_negative_numbers = true, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub k: Option<u32>,

    /// K-best: converged when the K-th fastest is within (1 + E) of the fastest
    /// [default: 0.02].
    #[arg(long, allow_negative_numbers = true, value_name = "E", value_parser = parse_epsilon)]
    pub epsilon: Option<f64>,

    /// K-best: at most M timed runs per measurement [default: 200].
    #[arg(long, allow_negative_numbers = true, value_name = "M", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_runs: Option<u32>,

    /// Untimed warm-up runs before the timed ones [default: 1; --rigorous: 2].
    #[arg(long, allow_negative_numbers = true, value_name = "W", value_parser = clap::value_parser!(u32))]
    pub warmup: Option<u32>,

    /// Seed 003's method: K=10, epsilon=0.02, M=200, no time budget.
    #[arg(long)]
    pub rigorous: bool,

    /// Stop a measurement once its timed runs took SECONDS and it has K runs, converged or
    /// not; `none` for no limit [default: 1.5, for validate 3; --rigorous: none].
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_budget)]
    pub budget: Option<Budget>,
}

#[derive(Args, Debug)]
pub(crate) struct UtsArgs {
    /// Workers of the forkjoin pool [default: the number of cores].
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = parse_worker_count)]
    pub threads: Option<usize>,

    /// The UTS options: -t type, -b b0, -r seed, -q, -m, -d, -a shape, -f, -g.
    #[arg(
        value_name = "UTS OPTION",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub options: Vec<String>,
}

/// Worker counts, ascending, without repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ThreadList(pub Vec<usize>);

/// The peer runtimes chosen, in the order of [`Runtime`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Peers(pub Vec<Runtime>);

/// A measurement's time budget in seconds; `None`: no limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Budget(pub Option<f64>);

fn parse_size(s: &str) -> Result<Size, String> {
    match s {
        "test" => Ok(Size::Test),
        "default" => Ok(Size::Default),
        "paper" => Ok(Size::Paper),
        _ => Err("expected test, default or paper".to_string()),
    }
}

pub(crate) fn size_name(size: Size) -> &'static str {
    match size {
        Size::Test => "test",
        Size::Default => "default",
        Size::Paper => "paper",
    }
}

pub(crate) fn parse_worker_count(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a worker count"))?;
    if n == 0 {
        return Err("worker counts must be at least 1".to_string());
    }
    if n > MAX_WORKERS {
        return Err(format!("{n} workers: at most {MAX_WORKERS}"));
    }
    Ok(n)
}

/// Parses `1,2,4`: sorted and deduplicated, so plots run left to right.
pub(crate) fn parse_thread_list(s: &str) -> Result<ThreadList, String> {
    if s.trim().is_empty() {
        return Err("empty list; expected worker counts like 1,2,4".to_string());
    }
    let mut counts = s
        .split(',')
        .map(|part| {
            parse_worker_count(part).map_err(|e| format!("{e} (expected a list like 1,2,4)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    counts.sort_unstable();
    counts.dedup();
    Ok(ThreadList(counts))
}

/// The default worker counts: 1 and one per core.
pub(crate) fn default_threads() -> ThreadList {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, cores];
    counts.dedup();
    ThreadList(counts)
}

fn parse_peers(s: &str) -> Result<Peers, String> {
    const EXPECTED: &str = "expected a list of rayon, chili, java, or none";
    if s.trim() == "none" {
        return Ok(Peers(Vec::new()));
    }
    let mut peers = s
        .split(',')
        .map(|p| match p.trim() {
            "rayon" => Ok(Runtime::Rayon),
            "chili" => Ok(Runtime::Chili),
            "java" => Ok(Runtime::Java),
            other => Err(format!("unknown peer '{other}' ({EXPECTED})")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    peers.sort_unstable();
    peers.dedup();
    Ok(Peers(peers))
}

pub(crate) fn all_peers() -> Peers {
    Peers(vec![Runtime::Rayon, Runtime::Chili, Runtime::Java])
}

fn parse_epsilon(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(e) if e.is_finite() && e >= 0.0 => Ok(e),
        _ => Err("expected a number >= 0, e.g. 0.02".to_string()),
    }
}

fn parse_budget(s: &str) -> Result<Budget, String> {
    if s == "none" {
        return Ok(Budget(None));
    }
    match s.parse::<f64>() {
        Ok(b) if b.is_finite() && b > 0.0 => Ok(Budget(Some(b))),
        _ => Err("expected seconds > 0 or none".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists() {
        assert_eq!(parse_thread_list("1,2,4"), Ok(ThreadList(vec![1, 2, 4])));
        assert_eq!(parse_thread_list("4, 1,2,1"), Ok(ThreadList(vec![1, 2, 4])));
        assert_eq!(parse_thread_list("3"), Ok(ThreadList(vec![3])));
        for bad in [
            "", " ", "0", "1,0", "a,b", "1,,2", "2,", "-1", "1.5", "99999",
        ] {
            assert!(parse_thread_list(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_thread_list("0").unwrap_err().contains("at least 1"));
    }

    #[test]
    fn default_threads_start_at_one() {
        let t = default_threads().0;
        assert_eq!(t[0], 1);
        assert!(t.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn peers() {
        assert_eq!(parse_peers("none"), Ok(Peers(vec![])));
        assert_eq!(
            parse_peers("java,rayon,java"),
            Ok(Peers(vec![Runtime::Rayon, Runtime::Java]))
        );
        assert!(parse_peers("foo").unwrap_err().contains("'foo'"));
        assert!(parse_peers("").is_err());
        assert!(
            parse_peers("forkjoin").is_err(),
            "forkjoin is not a peer of itself"
        );
    }

    #[test]
    fn sizes_and_numbers() {
        assert_eq!(parse_size("paper"), Ok(Size::Paper));
        assert!(parse_size("huge").is_err());
        assert_eq!(parse_budget("none"), Ok(Budget(None)));
        assert_eq!(parse_budget("1.5"), Ok(Budget(Some(1.5))));
        assert!(parse_budget("0").is_err() && parse_budget("nan").is_err());
        assert_eq!(parse_epsilon("0"), Ok(0.0));
        assert!(parse_epsilon("-0.1").is_err() && parse_epsilon("inf").is_err());
    }

    #[test]
    fn clap_definitions_are_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
