//! The global pool and its configuration: `FORKJOIN_NUM_THREADS` (a number, zero, nothing,
//! or something unparsable, reported once) before rayon's `RAYON_NUM_THREADS`;
//! `build_global` before the first use, after it, and racing another `build_global`, in
//! rayon's words.
//!
//! What depends on the process's global pool or environment runs in a child process
//! (`common::child`): the parent test re-runs this binary on one ignored child test.

use crate::common::child::{in_child, run_child, runtime_lines};
use crate::common::*;
use forkjoin::{BuildError, Pool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Barrier};
use std::thread::{self};
use std::time::Duration;

const THREADS_VAR: &str = "FORKJOIN_NUM_THREADS";

/// What the child of `child_env_size` expects: a number, or `default`.
const EXPECT: &str = "FORKJOIN_SERVICES_EXPECT";

fn cores() -> usize {
    thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

// ---- 2. The global pool and its configuration -------------------------------------------

/// Child: the global pool, a builder without `threads` and `Pool::default` all have the
/// size `EXPECT` says; `threads(n)` still wins.
#[test]
#[ignore = "run in a child process by the test that names it"]
fn child_env_size() {
    if !in_child() {
        return;
    }
    let expected = match std::env::var(EXPECT).unwrap().as_str() {
        "default" => cores(),
        n => n.parse().unwrap(),
    };
    assert_eq!(forkjoin::current_num_threads(), expected);
    assert_eq!(
        forkjoin::broadcast(|ctx| ctx.index()),
        (0..expected).collect::<Vec<_>>()
    );
    assert_eq!(Pool::builder().build().unwrap().num_threads(), expected);
    assert_eq!(Pool::default().num_threads(), expected);
    assert_eq!(Pool::builder().threads(2).build().unwrap().num_threads(), 2);
}

#[test]
fn num_threads_variable_sizes_the_global_pool_and_builders() {
    let out = run_child(
        module_path!(),
        "child_env_size",
        &[(THREADS_VAR, Some("3")), (EXPECT, Some("3"))],
    );
    assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
}

/// rayon's `RAYON_NUM_THREADS` sizes the pools too (a rayon program keeps its setting),
/// silently; forkjoin's own variable comes first.
#[test]
fn rayon_num_threads_sizes_the_global_pool_after_forkjoins_variable() {
    for (forkjoin, rayon, expected) in [(None, "3", "3"), (Some("2"), "3", "2")] {
        let out = run_child(
            module_path!(),
            "child_env_size",
            &[
                (THREADS_VAR, forkjoin),
                ("RAYON_NUM_THREADS", Some(rayon)),
                (EXPECT, Some(expected)),
            ],
        );
        assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    }
}

#[test]
fn an_unparsable_num_threads_is_reported_once_and_ignored() {
    for value in ["abc", "-1", "2.5"] {
        let out = run_child(
            module_path!(),
            "child_env_size",
            &[(THREADS_VAR, Some(value)), (EXPECT, Some("default"))],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "exactly one line on stderr: {stderr}");
        assert!(
            lines[0].contains(THREADS_VAR) && lines[0].contains(&format!("\"{value}\"")),
            "the line names the variable and the value: {}",
            lines[0]
        );
    }
}

#[test]
fn zero_or_no_num_threads_means_the_default_silently() {
    for value in [Some("0"), None] {
        let out = run_child(
            module_path!(),
            "child_env_size",
            &[(THREADS_VAR, value), (EXPECT, Some("default"))],
        );
        assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    }
}

/// Child: `build_global` before the first use configures the global pool.
#[test]
#[ignore = "run in a child process by the test that names it"]
fn child_build_global_then_use() {
    if !in_child() {
        return;
    }
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    Pool::builder()
        .threads(3)
        .thread_name(|i| format!("global-{i}"))
        .start_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build_global()
        .unwrap();
    assert_eq!(forkjoin::current_num_threads(), 3);
    let names = forkjoin::broadcast(|_| thread::current().name().unwrap().to_owned());
    assert_eq!(names, ["global-0", "global-1", "global-2"]);
    assert_eq!(started.load(SeqCst), 3);
    let (a, b) = forkjoin::join(|| 1, || 2);
    assert_eq!(a + b, 3);
    let again = Pool::builder().threads(2).build_global();
    assert!(matches!(
        again,
        Err(BuildError::GlobalPoolAlreadyInitialized)
    ));
    assert_eq!(forkjoin::current_num_threads(), 3);
}

#[test]
fn build_global_then_first_use_gives_the_configured_size() {
    let out = run_child(module_path!(), "child_build_global_then_use", &[]);
    assert!(runtime_lines(&out).is_empty());
}

/// In this process: the global pool is in use (or is started here), so `build_global`
/// fails, starts no thread, and changes nothing.
#[test]
fn build_global_after_first_use_is_an_error() {
    let size = forkjoin::current_num_threads();
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    let err = Pool::builder()
        .threads(size + 1)
        .start_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build_global()
        .unwrap_err();
    assert!(matches!(err, BuildError::GlobalPoolAlreadyInitialized));
    // rayon's words, which programs and rayon's own tests compare against.
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
    assert_eq!(forkjoin::current_num_threads(), size);
    thread::sleep(Duration::from_millis(20));
    assert_eq!(started.load(SeqCst), 0);
}

/// The threads of this process whose names start with `prefix` (Linux).
#[cfg(target_os = "linux")]
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

/// Child: two threads call `build_global` at once.
#[test]
#[ignore = "run in a child process by the test that names it"]
fn child_build_global_race() {
    if !in_child() {
        return;
    }
    let barrier = Arc::new(Barrier::new(2));
    let counters = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let sizes = [2, 3];
    let results: Vec<Result<(), BuildError>> = (0..2)
        .map(|k| {
            let barrier = Arc::clone(&barrier);
            let counter = Arc::clone(&counters[k]);
            thread::spawn(move || {
                let builder = Pool::builder()
                    .threads(sizes[k])
                    .thread_name(move |i| format!("race{k}-{i}"))
                    .start_handler(move |_| {
                        counter.fetch_add(1, SeqCst);
                    });
                barrier.wait();
                builder.build_global()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let winners: Vec<usize> = (0..2).filter(|&k| results[k].is_ok()).collect();
    assert_eq!(
        winners.len(),
        1,
        "exactly one build_global wins: {results:?}"
    );
    let (w, l) = (winners[0], 1 - winners[0]);
    assert!(matches!(
        results[l],
        Err(BuildError::GlobalPoolAlreadyInitialized)
    ));
    assert_eq!(forkjoin::current_num_threads(), sizes[w]);
    wait_for("the winner's workers start", || {
        counters[w].load(SeqCst) == sizes[w]
    });
    thread::sleep(Duration::from_millis(30));
    assert_eq!(counters[w].load(SeqCst), sizes[w]);
    assert_eq!(counters[l].load(SeqCst), 0, "the loser started no thread");
    #[cfg(target_os = "linux")]
    {
        assert_eq!(threads_named(&format!("race{w}-")), sizes[w]);
        assert_eq!(threads_named(&format!("race{l}-")), 0);
    }
}

#[test]
fn racing_build_global_calls_build_one_pool() {
    for _ in 0..4 {
        run_child(module_path!(), "child_build_global_race", &[]);
    }
}

#[test]
fn rayon_words_for_a_second_global_init() {
    // The global pool may already be running (other tests): either way a later call fails
    // with rayon's message.
    let _ = ThreadPoolBuilder::new().build_global();
    let err = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
}
