//! The `fj` commands, one module each; `cli` defines their arguments. Each module's `run`
//! carries out its command and returns the exit status, or a [`Failure`] that `main`
//! reports.

pub(crate) mod bench;
pub(crate) mod calibrate;
pub(crate) mod calibrate_network;
pub(crate) mod call_sites;
pub(crate) mod experiments;
pub(crate) mod ft;
pub(crate) mod ft_predict;
pub(crate) mod loops;
pub(crate) mod matrix;
pub(crate) mod predict;
pub(crate) mod profile;
pub(crate) mod uts;
pub(crate) mod validate;

use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Command};
use crate::suite::kbest::Method;
use crate::suite::programs::{self, Program};

/// Why `fj` stops early.
pub(crate) enum Failure {
    /// A mistake on the command line: exit status 2.
    Usage(String),
    /// Anything else (a file that cannot be written): exit status 1.
    Other(String),
}

/// Carries out `command`.
pub(crate) fn run(command: &Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Bench(args) => bench::run(args),
        Command::Uts(args) => uts::run(args),
        Command::Experiments(args) => experiments::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Predict(args) => predict::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Ft(args) => ft::run(args),
        Command::CalibrateNetwork(args) => calibrate_network::run(args),
        Command::FtPredict(args) => ft_predict::run(args),
        Command::Matrix(args) => matrix::run(args),
        Command::Loops(args) => loops::run(args),
    }
}

/// The one program named, or a usage error.
pub(crate) fn one_program(name: &str) -> Result<Program, Failure> {
    Ok(choose_programs(&[name.to_string()])?.remove(0))
}

/// Fails now, not after a long run, if `path` could not be written.
pub(crate) fn check_output_file(flag: &str, path: Option<&Path>) -> Result<(), Failure> {
    if let Some(dir) = path.and_then(Path::parent) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(Failure::Usage(format!(
                "{flag}: directory {} does not exist",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// The programs named, in the order given (each once), or every program.
pub(crate) fn choose_programs(names: &[String]) -> Result<Vec<Program>, Failure> {
    let all = programs::all();
    if names.is_empty() {
        return Ok(all);
    }
    if let Some(unknown) = names
        .iter()
        .find(|n| !all.iter().any(|p| p.name == n.as_str()))
    {
        let known: Vec<&str> = all.iter().map(|p| p.name).collect();
        return Err(Failure::Usage(format!(
            "unknown program '{unknown}' (programs: {})",
            known.join(", ")
        )));
    }
    let mut slots: Vec<Option<Program>> = all.into_iter().map(Some).collect();
    Ok(names
        .iter()
        .filter_map(|n| {
            slots
                .iter_mut()
                .find(|s| s.as_ref().is_some_and(|p| p.name == n.as_str()))?
                .take()
        })
        .collect())
}

/// The K-best parameters: the preset (`quick`, or `--rigorous`) with the options given on
/// top.
pub(crate) fn method(args: &cli::MethodArgs, quick: Method) -> Result<Method, Failure> {
    let preset = if args.rigorous {
        Method::RIGOROUS
    } else {
        quick
    };
    let k = args.k.map_or(preset.k, |k| k as usize);
    let max_runs = match args.max_runs {
        Some(m) if (m as usize) < k => {
            return Err(Failure::Usage(format!(
                "--max-runs {m} is less than K = {k}"
            )));
        }
        Some(m) => m as usize,
        // A larger --k alone raises the preset's M with it.
        None => preset.max_runs.max(k),
    };
    Ok(Method {
        k,
        epsilon: args.epsilon.unwrap_or(preset.epsilon),
        max_runs,
        warmup: args.warmup.map_or(preset.warmup, |w| w as usize),
        budget: args.budget.map_or(preset.budget, |b| b.0),
    })
}
