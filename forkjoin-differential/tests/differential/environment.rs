//! The environment: `RAYON_NUM_THREADS` sizes the global pool. The global pool is built once
//! per process, so each case runs in a child process: this test binary again, on the ignored
//! test `child_global_pool_size`, which reports the global pool's size of the runtime the
//! parent names.

use crate::common::runtime_of;
use std::process::Command;

/// Set in a child process to the runtime whose global pool it measures.
const CHILD: &str = "FORKJOIN_DIFFERENTIAL_CHILD";

/// Child: prints `size=<n>`, the global pool's `current_num_threads()` of the runtime `CHILD`
/// names, and that `broadcast` reaches that many workers.
#[test]
#[ignore = "run in a child process by `rayon_num_threads_sizes_the_global_pool`"]
fn child_global_pool_size() {
    let Ok(runtime) = std::env::var(CHILD) else {
        return;
    };
    let (size, reached) = match runtime.as_str() {
        "rayon" => (
            rayon::current_num_threads(),
            rayon::broadcast(|ctx| ctx.index()).len(),
        ),
        _ => (
            forkjoin::current_num_threads(),
            forkjoin::broadcast(|ctx| ctx.index()).len(),
        ),
    };
    assert_eq!(size, reached);
    println!("size={size}");
}

/// The global pool's size in a child process of `runtime` with `RAYON_NUM_THREADS=value`.
fn global_size_with(runtime: &str, value: &str) -> Option<usize> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "environment::child_global_pool_size",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, runtime)
        .env("RAYON_NUM_THREADS", value)
        .env_remove("RAYON_RS_NUM_CPUS")
        .env_remove("FORKJOIN_NUM_THREADS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let size = stdout
        .lines()
        // The harness may print the test's name on the same line first.
        .find_map(|l| l.split_once("size=").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok());
    assert!(
        out.status.success() && size.is_some(),
        "the {runtime} child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    size
}

same_on_both! {
    /// `RAYON_NUM_THREADS=1` and `=3` size the global pool.
    fn rayon_num_threads_sizes_the_global_pool() -> Vec<(&'static str, Option<usize>)> {
        let runtime = runtime_of::<rt::ThreadPool>();
        ["1", "3"]
            .into_iter()
            .map(|value| (value, global_size_with(runtime, value)))
            .collect()
    }
}
