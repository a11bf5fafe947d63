//! `fj calibrate`: the runtime's primitive costs measured on this machine and saved as
//! JSON; `fj profile`, `predict`, `validate` and `ft-predict` load them with [`load_costs`]
//! (and `fj ft --model` reads the same file).

use std::path::Path;
use std::process::ExitCode;

use forkjoin::profile::{Costs, MEASURED};

use super::Failure;
use crate::cli::CalibrateArgs;

/// Where `fj calibrate` saves the costs and the other commands look for them.
pub const DEFAULT_COSTS: &str = "fj-costs.json";

/// `fj calibrate`: measures the costs and saves them, with their spreads and the names of
/// the costs that could not be pinned down.
pub fn run(args: &CalibrateArgs) -> Result<ExitCode, Failure> {
    let out = &args.out;
    println!(
        "fj calibrate: measuring the runtime's primitive costs on this machine, {} rounds of every measurement in turn (about a second; longer on a busy host)",
        forkjoin::profile::ROUNDS
    );
    let costs = Costs::measure();
    print_costs(&costs);
    warn_unsettled(&costs);
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
        "costs on {} (median, and p25-p75 of the repetitions):",
        c.machine
    );
    for ((name, field), ns) in names.iter().zip(MEASURED).zip(c.measured()) {
        let spread = c.spread.get(field).map_or(String::new(), |s| {
            format!("{:>12.1} - {:<12.1}", s.low, s.high)
        });
        let flag = if c.unsettled.iter().any(|u| u == field) {
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
}

/// Names on stderr the costs whose rounds disagreed by more than the stated factor.
fn warn_unsettled(c: &Costs) {
    if !c.unsettled.is_empty() {
        eprintln!(
            "warning: {} could not be pinned down on {} (the rounds' medians spread wider than {}x from p25 to p75): the host is busy, or these costs vary here; the median is saved and the JSON lists them under \"unsettled\"",
            c.unsettled.join(", "),
            c.machine,
            forkjoin::profile::UNSETTLED_FACTOR
        );
    }
}

/// The costs from `--costs FILE`, else `fj-costs.json` if present, else measured now. Costs
/// that were not pinned down are named on stderr.
pub fn load_costs(path: Option<&Path>) -> Result<Costs, Failure> {
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
