//! `fj predict`: one program's time at the given worker counts, predicted from one profile.

use std::path::PathBuf;
use std::process::ExitCode;

use forkjoin_profile::{Costs, Prediction, Waits};
use serde::Serialize;

use super::calibrate::{join_fallback_note, load_costs};
use super::profile::{ms, ms_range, print_prediction, print_prediction_header, profile_program};
use super::{check_output_file, one_program, Failure};
use crate::cli::PredictArgs;
use crate::suite::cpus;
use crate::suite::programs::{Program, Size};
use crate::suite::results::write_json;

/// `fj predict PROGRAM --threads LIST`.
pub(crate) fn run(args: &PredictArgs) -> Result<ExitCode, Failure> {
    let program = one_program(&args.program)?;
    check_output_file("--json", args.json.as_deref())?;
    let costs = load_costs(args.model.costs.as_deref())?;
    predict_command(
        &program,
        args.model.size,
        &args.threads.0,
        &costs,
        args.json.as_ref(),
    )?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct PredictRow<'a> {
    program: &'a str,
    threads: usize,
    /// The median over the simulation's seeds, and their fastest and slowest.
    predicted_seconds: f64,
    predicted_seconds_min: f64,
    predicted_seconds_max: f64,
    /// The same with no wake-up cost (a pool that spins rather than parks).
    no_wake_seconds: f64,
    /// The same with eager sharing (every join's second closure pushed at once, as the
    /// seeds do): with no wake-up, the two costs that separate the prediction from
    /// Cilkview's estimate.
    eager_seconds: f64,
    /// The same with waiters that steal anything (rayon's rule): against
    /// `predicted_seconds`, what isolated waits cost in cores a waiter leaves idle.
    waits_anything_seconds: f64,
    /// The same with every waiter a shared frame may go to woken at once (the runtime wakes
    /// only the waiter of the region it was made in): what waking those further up would buy.
    waits_ancestors_woken_seconds: f64,
    speedup: f64,
    speedup_cilkview: f64,
    speedup_upper: f64,
    simulated: bool,
}

/// `fj predict PROGRAM --threads LIST`.
fn predict_command(
    program: &Program,
    size: Size,
    threads: &[usize],
    costs: &Costs,
    json: Option<&PathBuf>,
) -> Result<(), Failure> {
    // The program's own join cost where `fj calibrate` measured one; where it found none
    // to measure, the generic one, and this says so.
    if let Some(note) = join_fallback_note(costs, program.name) {
        println!("{note}");
    }
    let costs = &costs.for_program(program.name);
    let p = profile_program(program, size, 3, costs, &cpus::fastest())?.scaled;
    println!(
        "{}: work {:.3} ms, span {:.3} ms, parallelism {:.1}",
        program.name,
        ms(p.work()),
        ms(p.span()),
        p.parallelism()
    );
    print_prediction_header();
    let mut rows = Vec::new();
    let no_wake = Costs {
        wake_ns: 0.0,
        ..costs.clone()
    };
    let eager = Costs {
        heartbeat_ns: 0.0,
        ..costs.clone()
    };
    for &t in threads {
        let pr = p.predict(t, costs);
        print_prediction(&pr);
        let (z, e) = (p.predict(t, &no_wake), p.predict(t, &eager));
        let anything = p.predict_with(t, costs, Waits::Anything);
        let woken = p.predict_with(t, costs, Waits::IsolatedAncestorsWoken);
        // The same prediction under another model, below the row; a rule of waiting with
        // the isolated prediction's time over its own.
        let variant =
            |label: &str, v: &Prediction| println!("{:>8} {:>34}   {label}", "", ms_range(v));
        let ratio = |v: &Prediction| format!("({:.3}x)", pr.seconds / v.seconds);
        variant("wake = 0", &z);
        variant("eager sharing", &e);
        variant(
            &format!("waiters steal anything {}", ratio(&anything)),
            &anything,
        );
        variant(
            &format!("every waiter woken for its work {}", ratio(&woken)),
            &woken,
        );
        rows.push(PredictRow {
            program: program.name,
            threads: t,
            predicted_seconds: pr.seconds,
            predicted_seconds_min: pr.seconds_min,
            predicted_seconds_max: pr.seconds_max,
            no_wake_seconds: z.seconds,
            eager_seconds: e.seconds,
            waits_anything_seconds: anything.seconds,
            waits_ancestors_woken_seconds: woken.seconds,
            speedup: pr.speedup,
            speedup_cilkview: pr.speedup_cilkview,
            speedup_upper: pr.speedup_upper,
            simulated: pr.simulated,
        });
    }
    if let Some(path) = json {
        write_json(path, &rows).map_err(Failure::Other)?;
    }
    Ok(())
}
