//! `fj predict`: one program's time at the given worker counts, predicted from one profile.

use std::path::PathBuf;
use std::process::ExitCode;

use forkjoin::profile::Costs;
use serde::Serialize;

use super::calibrate::load_costs;
use super::profile::{ms, print_prediction, print_prediction_header, profile_program};
use super::{check_output_file, one_program, Failure};
use crate::cli::PredictArgs;
use crate::suite::programs::{Program, Size};
use crate::suite::results::write_json;

/// `fj predict PROGRAM --threads LIST`.
pub fn run(args: &PredictArgs) -> Result<ExitCode, Failure> {
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
    predicted_seconds: f64,
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
    let p = profile_program(program, size, 3, costs)?.scaled;
    println!(
        "{}: work {:.3} ms, span {:.3} ms, parallelism {:.1}",
        program.name,
        ms(p.work()),
        ms(p.span()),
        p.parallelism()
    );
    print_prediction_header();
    let mut rows = Vec::new();
    for &t in threads {
        let pr = p.predict(t, costs);
        print_prediction(&pr);
        rows.push(PredictRow {
            program: program.name,
            threads: t,
            predicted_seconds: pr.seconds,
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
