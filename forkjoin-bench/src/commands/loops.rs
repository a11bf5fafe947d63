//! `fj loops`: generates loop programs from a seed (or takes `--program` lines, or the fixed
//! cases of `kept.txt`), builds them as a user builds, times each on std, forkjoin and
//! rayon, and prints the table worst first, the summary and the worst programs' lines
//! (`crate::loops`). Exit status 1 if the programs do not build or a program's versions
//! disagree.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use super::{check_output_file, Failure};
use crate::cli::{LoopsArgs, DEFAULT_LOOPS_INSTRUCTIONS_JSON, DEFAULT_LOOPS_JSON};
use crate::loops::crate_dir::{self, Dirs, RunPlan};
use crate::loops::grammar::{self, Program};
use crate::loops::instructions;
use crate::loops::report::{self, Row};
use crate::loops::{parse_kept, KEPT_PATH};

/// Programs a seed draws by default.
const DEFAULT_COUNT: usize = 200;

/// The seed of a run not given one: from the clock.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Mixed, so that seeds a second apart do not share their high digits.
    grammar::Rng::new(nanos).next_u64() % 1_000_000_000
}

pub(crate) fn run(args: &LoopsArgs) -> Result<ExitCode, Failure> {
    let k = args.k as usize;
    let rounds = args.rounds as usize;
    if k > rounds {
        return Err(Failure::Usage(format!(
            "--k {k} is more than --rounds {rounds}"
        )));
    }
    let json = if args.instructions && args.json == std::path::Path::new(DEFAULT_LOOPS_JSON) {
        std::path::PathBuf::from(DEFAULT_LOOPS_INSTRUCTIONS_JSON)
    } else {
        args.json.clone()
    };
    if args.json == std::path::Path::new(DEFAULT_LOOPS_JSON) {
        if let Some(dir) = json.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
        }
    }
    check_output_file("--json", Some(&json))?;
    if args.instructions {
        instructions::check_valgrind().map_err(Failure::Other)?;
    }
    let (programs, seed, what): (Vec<Program>, Option<u64>, String) = if !args.program.is_empty() {
        let n = args.program.len();
        (
            args.program.clone(),
            None,
            format!("{n} program(s) from --program"),
        )
    } else if args.kept {
        let text = std::fs::read_to_string(KEPT_PATH)
            .map_err(|e| Failure::Other(format!("cannot read {KEPT_PATH}: {e}")))?;
        let kept = parse_kept(&text).map_err(|e| Failure::Other(format!("{KEPT_PATH}: {e}")))?;
        if kept.is_empty() {
            return Err(Failure::Other(format!("{KEPT_PATH} holds no program")));
        }
        let n = kept.len();
        (kept, None, format!("the {n} fixed cases of kept.txt"))
    } else {
        let seed = args.seed.unwrap_or_else(clock_seed);
        let count = args.count.map_or(DEFAULT_COUNT, |c| c as usize);
        (
            grammar::generate(seed, count),
            Some(seed),
            format!("seed {seed} (repeat with --seed {seed}), {count} programs"),
        )
    };
    let threads = args.threads.0.clone();
    let list = |xs: &[usize]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if args.instructions {
        println!(
            "fj loops --instructions: {what}; instructions counted by callgrind: std, forkjoin \
             at 1 worker, at 2 with the second busy, rayon at 1"
        );
    } else {
        println!(
            "fj loops: {what}; std (1 thread), forkjoin and rayon at {} worker(s) take turns \
         (shuffled, each after the others are quiet), {rounds} rounds after a warm-up, the \
         mean of the {k} fastest",
            list(&threads)
        );
    }

    let dirs = Dirs::new();
    let forkjoin = crate_dir::forkjoin_state(&dirs);
    if let Some(state) = &forkjoin {
        println!(
            "forkjoin: {state} ({})",
            dirs.root.join("forkjoin").display()
        );
    }
    crate_dir::write(&dirs, &programs).map_err(Failure::Other)?;
    eprintln!(
        "fj loops: cargo build --release in {} ...",
        dirs.krate.display()
    );
    let build_seconds = match crate_dir::build(&dirs) {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.output);
            let again = match seed {
                Some(s) => format!(
                    " (seed {s}: fj loops --seed {s} --count {})",
                    programs.len()
                ),
                None => String::new(),
            };
            return Err(Failure::Other(format!(
                "the generated programs did not build{again}; cargo's output is above, the \
                 crate in {}",
                dirs.krate.display()
            )));
        }
    };
    eprintln!("fj loops: built in {build_seconds:.0} s");
    if args.instructions {
        return count_instructions(&dirs, programs.len(), seed, forkjoin, &json, build_seconds);
    }

    let plan = RunPlan {
        threads: threads.clone(),
        rounds,
        k,
        programs: Vec::new(),
    };
    let total = programs.len();
    let bar = super::bench::progress_bar(total as u64);
    let lines = !std::io::stderr().is_terminal();
    let start = Instant::now();
    let outcome = crate_dir::run(&dirs, &plan, |m| {
        bar.set_message(m.line.clone());
        bar.inc(1);
        if lines {
            eprintln!("[{}/{total}] {}", m.index + 1, m.line);
        }
    })
    .map_err(Failure::Other)?;
    bar.finish_and_clear();

    let mut rows: Vec<Row> = outcome.measured.iter().map(Row::new).collect();
    let recheck = (args.recheck_rounds > 0).then_some(args.recheck_rounds as usize);
    if let Some(rounds) = recheck {
        time_again(&dirs, &plan, rounds, &mut rows)?;
    }
    let run_seconds = start.elapsed().as_secs_f64();
    report::worst_first(&mut rows);
    let summary = report::summarise(&rows, recheck);
    println!();
    print!("{}", report::render(&rows, &summary));
    println!("build {build_seconds:.0} s, run {run_seconds:.0} s");
    if let Some(share) = outcome.others_share {
        println!(
            "other processes used {:.0}% of the CPUs during the run{}",
            share * 100.0,
            if share > 0.1 {
                " (the figures, two-worker ones above all, are disturbed: run again on a quiet machine)"
            } else {
                ""
            }
        );
    }
    report::write_json(
        &json,
        &report::RunInfo {
            seed,
            threads: &threads,
            rounds,
            k,
            build_seconds,
            run_seconds,
            others_cpu_share: outcome.others_share,
            forkjoin,
        },
        &rows,
        &summary,
    )
    .map_err(Failure::Other)?;
    println!("json: {}", json.display());
    let failed: Vec<&Row> = rows.iter().filter(|r| r.error.is_some()).collect();
    for r in &failed {
        eprintln!("fj: {}: {}", r.line, r.error.as_deref().unwrap_or(""));
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The programs of `rows` that broke a target, timed again with `rounds` rounds; each
/// second timing goes to its row's `again`.
fn time_again(dirs: &Dirs, plan: &RunPlan, rounds: usize, rows: &mut [Row]) -> Result<(), Failure> {
    let flagged: Vec<usize> = rows
        .iter()
        .filter(|r| r.error.is_none() && (r.breaks_1 || r.breaks_p))
        .map(|r| r.index)
        .collect();
    if flagged.is_empty() {
        return Ok(());
    }
    eprintln!(
        "fj loops: timing again the {} program(s) that broke a target, {rounds} rounds",
        flagged.len()
    );
    let plan = RunPlan {
        threads: plan.threads.clone(),
        rounds,
        k: plan.k,
        programs: flagged,
    };
    let outcome =
        crate_dir::run(dirs, &plan, |m| eprintln!("[again] {}", m.line)).map_err(Failure::Other)?;
    for m in &outcome.measured {
        if let Some(row) = rows.iter_mut().find(|r| r.index == m.index) {
            let again = Row::new(m);
            // A disagreement in the second timing is as much a failure as in the first.
            if row.error.is_none() {
                row.error.clone_from(&again.error);
            }
            row.again = Some(Box::new(again));
        }
    }
    Ok(())
}

/// `--instructions`: the built programs run under callgrind, the table and summary printed,
/// the JSON written. Fails if a program's versions disagree or its leaf loop is far from
/// std's (`instructions::GROSS`).
fn count_instructions(
    dirs: &Dirs,
    total: usize,
    seed: Option<u64>,
    forkjoin: Option<String>,
    json: &std::path::Path,
    build_seconds: f64,
) -> Result<ExitCode, Failure> {
    let bar = super::bench::progress_bar(total as u64);
    let lines = !std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut done = 0;
    let mut rows = instructions::run(dirs, &dirs.target.join("callgrind"), |line| {
        done += 1;
        bar.set_message(line.to_string());
        bar.inc(1);
        if lines {
            eprintln!("[{done}/{total}] {line}");
        }
    })
    .map_err(Failure::Other)?;
    bar.finish_and_clear();
    instructions::worst_first(&mut rows);
    let summary = instructions::summarise(&rows);
    println!();
    print!("{}", instructions::render(&rows, &summary));
    println!(
        "build {build_seconds:.0} s, run {:.0} s",
        start.elapsed().as_secs_f64()
    );
    instructions::write_json(json, seed, forkjoin, &rows, &summary).map_err(Failure::Other)?;
    println!("json: {}", json.display());
    let failed: Vec<&instructions::Counted> = rows
        .iter()
        .filter(|r| r.error.is_some() || r.gross)
        .collect();
    for r in &failed {
        match &r.error {
            Some(e) => eprintln!("fj: {}: {e}", r.line),
            None => eprintln!(
                "fj: {}: forkjoin at 1 worker executes {:.2}x std's instructions (rayon {:.2}x): \
                 its leaf loop is not std's loop",
                r.line,
                r.fj1_over_std.unwrap_or(0.0),
                r.ry1_over_std.unwrap_or(0.0)
            ),
        }
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
