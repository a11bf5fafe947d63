//! `fj`: the forkjoin benchmark suite's command. `fj bench` measures the programs of Lea's
//! paper on forkjoin, rayon, chili and the JDK's ForkJoinPool, prints a table and writes a
//! report; `fj uts` searches one UTS tree; `fj experiments` checks the source documents'
//! claims about memory and threads on this machine.

mod cli;
mod commands;
mod experiments;
mod ft;
mod join;
mod plots;
mod report;
mod suite;
mod table;

use std::path::Path;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

use cli::{BenchArgs, Cli, Command};
use suite::kbest::Method;
use suite::programs::{self, Program, Runtime};

/// Why `fj` stops early.
pub enum Failure {
    /// A mistake on the command line: exit status 2.
    Usage(String),
    /// Anything else (a file that cannot be written): exit status 1.
    Other(String),
}

/// mimalloc for every Rust runtime and the sequential baseline alike. Programs that allocate
/// per task (submit: a task and its result per job) otherwise measure glibc's malloc, whose
/// bins the submit benchmark's pattern (4800 live tasks, then a 77 KB vector) sends through
/// `malloc_consolidate` every run: a third of a one-worker run; the JVM allocates from
/// thread-local buffers.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // `fj ... | head` should stop quietly when the reader goes away, as other command-line
    // tools do, not panic on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restores the default disposition of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A bad value is one line; clap's other errors (an unknown flag, a missing
        // subcommand) come with its usage text, and help and version are not errors.
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::ValueValidation | ErrorKind::InvalidValue
            ) =>
        {
            let text = e.render().to_string();
            eprintln!(
                "fj: {}",
                text.lines().next().unwrap_or("error: invalid value")
            );
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let outcome = match &cli.command {
        Command::Bench(args) => bench_command(args),
        Command::Uts(args) => commands::uts::run(args).map(|()| ExitCode::SUCCESS),
        Command::Experiments(args) => experiments_command(&args.names, args.quick),
        Command::Calibrate(args) => {
            commands::profile::calibrate(&args.out).map(|()| ExitCode::SUCCESS)
        }
        Command::Profile(args) => profile_command(args),
        Command::Predict(args) => predict_command(args),
        Command::Validate(args) => validate_command(args),
        Command::Ft(args) => commands::ft::ft(args),
        Command::CalibrateNetwork(args) => commands::ft::calibrate_network(args),
        Command::FtPredict(args) => commands::ft::ft_predict(args),
    };
    match outcome {
        Ok(code) => code,
        Err(Failure::Usage(msg)) => {
            eprintln!("fj: error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(msg)) => {
            eprintln!("fj: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// `fj bench`: exit status 0 when every answer was verified, 1 otherwise.
fn bench_command(args: &BenchArgs) -> Result<ExitCode, Failure> {
    if args.list {
        for p in programs::all() {
            println!("{:<20} {}", p.name, p.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let plan = commands::bench::Plan {
        programs: choose_programs(&args.programs)?,
        size: args.size,
        threads: args.threads.clone().unwrap_or_else(cli::default_threads).0,
        peers: args.peers.clone().unwrap_or_else(cli::all_peers).0,
        method: method(&args.method, Method::QUICK)?,
    };
    check_outputs(args)?;
    let peers: Vec<&str> = plan.peers.iter().map(|p| p.name()).collect();
    let threads: Vec<String> = plan.threads.iter().map(|t| t.to_string()).collect();
    println!(
        "fj bench: {} program(s), size {}, workers {}, peers {}",
        plan.programs.len(),
        cli::size_name(plan.size),
        threads.join(","),
        if peers.is_empty() {
            "none".to_string()
        } else {
            peers.join(",")
        }
    );
    let mut method_text = plan.method.to_string();
    if plan.method.budget.is_some() && plan.peers.contains(&Runtime::Java) {
        method_text += "; java (no budget of its own): M lowered to the runs that fit in the budget at the program's sequential time";
    }
    println!("{method_text}");
    println!(
        "The Rust runtimes and the sequential baseline take turns run by run, program by \
         program; a run with T workers is restricted to the first T CPUs of this process."
    );

    let mut notes = Vec::new();
    let rows = commands::bench::run(&plan, &mut notes);

    println!();
    print!("{}", table::render_text(&table::grid(&rows, false)));
    for note in table::footnotes(&rows) {
        println!("{note}");
    }
    for note in &notes {
        println!("note: {note}");
    }
    if let Some(path) = &args.json {
        suite::results::write_json(path, &rows).map_err(Failure::Other)?;
    }
    if !args.no_report {
        let info = report::RunInfo {
            command: std::env::args().collect::<Vec<_>>().join(" "),
            size: cli::size_name(plan.size).to_string(),
            threads: plan.threads.clone(),
            method: method_text,
            notes,
        };
        report::write(&args.report, &rows, &info).map_err(Failure::Other)?;
        println!("report: {}", args.report.join("index.html").display());
    }
    let all_verified = rows.iter().all(|r| r.verified);
    Ok(if all_verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The one program named, or a usage error.
fn one_program(name: &str) -> Result<Program, Failure> {
    Ok(choose_programs(&[name.to_string()])?.remove(0))
}

/// Fails now, not after a long run, if `path` could not be written.
fn check_output_file(flag: &str, path: Option<&Path>) -> Result<(), Failure> {
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

fn profile_command(args: &cli::ProfileArgs) -> Result<ExitCode, Failure> {
    let program = one_program(&args.program)?;
    let svg = args
        .svg
        .clone()
        .unwrap_or_else(|| format!("fj-profile-{}.svg", program.name).into());
    check_output_file("--svg", Some(&svg))?;
    let costs = commands::profile::load_costs(args.model.costs.as_deref())?;
    commands::profile::profile_command(&program, args.model.size, &costs, &svg)?;
    Ok(ExitCode::SUCCESS)
}

fn predict_command(args: &cli::PredictArgs) -> Result<ExitCode, Failure> {
    let program = one_program(&args.program)?;
    check_output_file("--json", args.json.as_deref())?;
    let costs = commands::profile::load_costs(args.model.costs.as_deref())?;
    commands::profile::predict_command(
        &program,
        args.model.size,
        &args.threads.0,
        &costs,
        args.json.as_ref(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `fj validate`: exit status 0 when every prediction is within 10%, 1 otherwise.
fn validate_command(args: &cli::ValidateArgs) -> Result<ExitCode, Failure> {
    let programs = choose_programs(&args.programs)?;
    check_output_file("--json", args.json.as_deref())?;
    // Usage errors before the costs, which may take a moment to measure.
    let method = method(&args.method, Method::VALIDATE)?;
    let costs = commands::profile::load_costs(args.model.costs.as_deref())?;
    let threads = args.threads.clone().unwrap_or_else(cli::default_threads).0;
    let rows = commands::profile::validate_command(
        &programs,
        args.model.size,
        &threads,
        &costs,
        &method,
        args.json.as_ref(),
    )?;
    Ok(if rows.iter().all(|r| r.error_percent.abs() <= 10.0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `fj experiments`: an unknown name is a usage error (2); a wrong answer in a run, 1.
fn experiments_command(names: &[String], quick: bool) -> Result<ExitCode, Failure> {
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

/// Fails now, not after a long run, if the results could not be written.
fn check_outputs(args: &BenchArgs) -> Result<(), Failure> {
    if let Some(dir) = args.json.as_deref().and_then(Path::parent) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(Failure::Usage(format!(
                "--json: directory {} does not exist",
                dir.display()
            )));
        }
    }
    if !args.no_report {
        std::fs::create_dir_all(&args.report)
            .map_err(|e| Failure::Other(format!("cannot create {}: {e}", args.report.display())))?;
    }
    Ok(())
}

/// The programs named, in the order given (each once), or every program.
fn choose_programs(names: &[String]) -> Result<Vec<Program>, Failure> {
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
fn method(args: &cli::MethodArgs, quick: Method) -> Result<Method, Failure> {
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
