//! `fj`: the forkjoin benchmark suite's command. `fj bench` measures the programs of Lea's
//! paper on forkjoin, rayon, chili and the JDK's ForkJoinPool, prints a table and writes a
//! report; `fj uts` searches one UTS tree; `fj experiments` checks the source documents'
//! claims about memory and threads on this machine.

mod cli;
mod commands;
mod experiments;
mod ft;
mod join;
mod loops;
mod matrix;
mod report;
mod suite;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

use cli::Cli;
use commands::Failure;

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
    let outcome = commands::run(&cli.command);
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
