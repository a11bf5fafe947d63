//! `fj uts`: search any UTS tree, given by the standard UTS options, in a forkjoin pool.

use std::process::ExitCode;
use std::time::Instant;

use super::Failure;
use crate::cli::{parse_worker_count, UtsArgs};
use crate::suite::programs::uts::{parse_uts_args, search};
use crate::suite::programs::Ctx;

/// Worker stacks: deep trees recurse once per level plus the splitting levels, and a worker
/// waiting for a stolen task runs other work on top of its stack (T3L, 17,844 levels,
/// needs tens of MiB). Untouched stack pages cost nothing.
const STACK_BYTES: usize = 64 << 20;

pub(crate) fn run(args: &UtsArgs) -> Result<ExitCode, Failure> {
    let (late_threads, options) = split_threads(&args.options).map_err(Failure::Usage)?;
    let params = parse_uts_args(&options).map_err(Failure::Usage)?;
    let threads = late_threads
        .or(args.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = forkjoin::Pool::builder()
        .threads(threads)
        .stack_size(STACK_BYTES)
        .build()
        .map_err(|e| Failure::Other(format!("cannot start {threads} workers: {e}")))?;
    let start = Instant::now();
    let found = pool.install(|| search(&params, &mut Ctx::Forkjoin));
    let seconds = start.elapsed().as_secs_f64();
    println!("UTS {params} on {threads} forkjoin worker(s)");
    println!(
        "nodes {}, depth {}, leaves {}, time {:.6} s ({:.2} M nodes/s)",
        found.nodes,
        found.max_depth,
        found.leaves,
        seconds,
        found.nodes as f64 / seconds / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

/// Takes `--threads N` (or `--threads=N`) out of the UTS options: clap hands over everything
/// after the first UTS option, so a `--threads` given after them arrives here.
fn split_threads(options: &[String]) -> Result<(Option<usize>, Vec<String>), String> {
    let mut threads = None;
    let mut rest = Vec::new();
    let mut it = options.iter();
    while let Some(opt) = it.next() {
        let value = match opt.strip_prefix("--threads") {
            Some("") => it.next().ok_or("--threads needs a worker count")?.as_str(),
            Some(v) if v.starts_with('=') => &v[1..],
            _ => {
                rest.push(opt.clone());
                continue;
            }
        };
        let n = parse_worker_count(value)
            .map_err(|e| format!("invalid value '{value}' for '--threads <N>': {e}"))?;
        threads = Some(n);
    }
    Ok((threads, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn threads_anywhere() {
        assert_eq!(
            split_threads(&strings("-t 1 --threads 3 -d 4")),
            Ok((Some(3), strings("-t 1 -d 4")))
        );
        assert_eq!(
            split_threads(&strings("-t 1 --threads=2")),
            Ok((Some(2), strings("-t 1")))
        );
        assert_eq!(split_threads(&strings("-t 1")), Ok((None, strings("-t 1"))));
        assert!(split_threads(&strings("-t 1 --threads")).is_err());
        assert!(split_threads(&strings("--threads 0")).is_err());
    }
}
