//! `fj calibrate`: the runtime's primitive costs measured on this machine and saved as
//! JSON; `fj profile`, `predict`, `validate` and `ft-predict` load them with [`load_costs`]
//! (and `fj ft --model` reads the same file).

use std::path::Path;
use std::process::ExitCode;

use forkjoin::profile::Costs;

use super::Failure;
use crate::cli::CalibrateArgs;

/// Where `fj calibrate` saves the costs and the other commands look for them.
pub const DEFAULT_COSTS: &str = "fj-costs.json";

/// `fj calibrate`: measures the costs and saves them.
pub fn run(args: &CalibrateArgs) -> Result<ExitCode, Failure> {
    let out = &args.out;
    println!(
        "fj calibrate: measuring the runtime's primitive costs on this machine (a few seconds)"
    );
    let costs = Costs::measure();
    print_costs(&costs);
    costs.save(out).map_err(|e| Failure::Other(e.to_string()))?;
    println!("saved: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn print_costs(c: &Costs) {
    let rows = [
        ("join, fast path", c.join_ns),
        ("share and take back", c.promote_ns),
        ("steal by a spinning worker", c.steal_ns),
        ("failed sweep of all queues", c.failed_steal_ns),
        ("wake a parked worker (extra)", c.wake_ns),
        ("external submit and join", c.submit_ns),
        ("search before parking", c.spin_ns),
        ("heartbeat period", c.heartbeat_ns),
        ("profiler, per strand", c.timer_ns),
    ];
    println!("costs on {}:", c.machine);
    for (name, ns) in rows {
        println!("  {name:<30} {:>12.1} ns", ns);
    }
}

/// The costs from `--costs FILE`, else `fj-costs.json` if present, else measured now.
pub fn load_costs(path: Option<&Path>) -> Result<Costs, Failure> {
    if let Some(path) = path {
        return Costs::load(path).map_err(|e| Failure::Usage(e.to_string()));
    }
    if Path::new(DEFAULT_COSTS).exists() {
        let costs = Costs::load(DEFAULT_COSTS).map_err(|e| Failure::Usage(e.to_string()))?;
        println!("costs: {DEFAULT_COSTS} ({})", costs.machine);
        return Ok(costs);
    }
    println!("costs: measuring now (`fj calibrate` saves them to {DEFAULT_COSTS})");
    Ok(Costs::measure())
}
