//! `fj experiments`: the source documents' claims checked on this machine (`experiments`).

use std::process::ExitCode;

use super::Failure;
use crate::cli::ExperimentsArgs;
use crate::experiments;

/// `fj experiments`: an unknown name is a usage error (2); a wrong answer in a run, 1.
pub(crate) fn run(args: &ExperimentsArgs) -> Result<ExitCode, Failure> {
    let (names, quick) = (&args.names, args.quick);
    if let Some(unknown) = names
        .iter()
        .find(|n| !experiments::names().contains(&n.as_str()))
    {
        return Err(Failure::Usage(format!(
            "unknown experiment '{unknown}' (known: {})",
            experiments::names().join(", ")
        )));
    }
    let outcomes = experiments::run(names, quick).map_err(Failure::Other)?;
    experiments::print(&outcomes);
    Ok(ExitCode::SUCCESS)
}
