//! `fj matrix`: the performance matrix (`crate::matrix`): every cell on the sequential
//! baseline, forkjoin and rayon at each worker count, worst cells first, a summary against
//! the targets, and the JSON. Exit status 1 if any cell's versions disagree (or panic).

use std::process::ExitCode;

use super::{check_output_file, Failure};
use crate::cli::{MatrixArgs, MatrixSize, DEFAULT_MATRIX_JSON as DEFAULT_JSON};
use crate::matrix::{self, output, runner, Size};

pub(crate) fn run(args: &MatrixArgs) -> Result<ExitCode, Failure> {
    let mut cells = matrix::all_cells();
    if args.list {
        for c in &cells {
            println!("{}", c.name);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(f) = &args.filter {
        cells.retain(|c| c.name.contains(f.as_str()));
        if cells.is_empty() {
            return Err(Failure::Usage(format!(
                "--filter '{f}': no cell's name contains it (fj matrix --list shows them)"
            )));
        }
    }
    let (size, size_name, default_rounds) = match args.size {
        MatrixSize::Quick => (Size::Quick, "quick", 100),
        MatrixSize::Full => (Size::Full, "full", 150),
    };
    let rounds = args.rounds.map_or(default_rounds, |r| r as usize);
    let k = args.k as usize;
    if k > rounds {
        return Err(Failure::Usage(format!(
            "--k {k} is more than --rounds {rounds}"
        )));
    }
    // The default's directory is made (as `fj bench` makes its report's); a directory
    // named by the user must exist.
    if args.json == std::path::Path::new(DEFAULT_JSON) {
        if let Some(dir) = args.json.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
        }
    }
    check_output_file("--json", Some(&args.json))?;
    let workers = args.workers.0.clone();
    let plan = runner::Plan {
        size,
        workers: workers.clone(),
        rounds,
        k,
    };
    println!(
        "fj matrix: {} cells, size {size_name}, workers {}; sequential, forkjoin and rayon take \
         turns, {rounds} timed rounds after a warm-up, the mean of the {k} fastest",
        cells.len(),
        workers
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(","),
    );
    let bar = super::bench::progress_bar((cells.len() * workers.len()) as u64);
    let start = std::time::Instant::now();
    let rows = runner::run(&cells, &plan, &bar).map_err(Failure::Other)?;
    bar.finish_and_clear();
    println!();
    print!("{}", output::render(&rows, &workers, args.top));
    println!("took {:.0} s", start.elapsed().as_secs_f64());
    output::write_json(&args.json, &rows, &workers, size_name, rounds, k)
        .map_err(Failure::Other)?;
    println!("json: {}", args.json.display());
    let failed: Vec<&runner::MatrixRow> = rows.iter().filter(|r| r.error.is_some()).collect();
    for r in &failed {
        eprintln!(
            "fj: {} x{}: {}",
            r.cell,
            r.workers,
            r.error.as_deref().unwrap_or("")
        );
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
