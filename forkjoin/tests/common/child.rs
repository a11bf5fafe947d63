//! Tests that need a process of their own (its global pool, its environment, its stderr):
//! the parent test runs this test binary again on one child test, which is `#[ignore]`d
//! (so that it is listed, but runs only when asked for) and does its work only when
//! `CHILD` is set.

use std::process::{Command, Output};

/// Set in a child process: the child tests run only there.
pub(crate) const CHILD: &str = "FORKJOIN_TEST_CHILD";

/// Whether this process is a child started by `run_child`.
pub(crate) fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the child test `name` of the module `module` (its `module_path!()`) of this binary
/// in a child process with `env` (`None`: removed; `FORKJOIN_NUM_THREADS` and rayon's
/// `RAYON_NUM_THREADS` and `RAYON_RS_NUM_CPUS` are removed unless given), checks that it ran and passed, and returns its output.
pub(crate) fn run_child(module: &str, name: &str, env: &[(&str, Option<&str>)]) -> Output {
    let out = start_child(module, name, env);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    out
}

/// `run_child` for a child that ends its process itself (`process::exit`): its output,
/// whatever its status; the caller checks what it expects.
pub(crate) fn start_child(module: &str, name: &str, env: &[(&str, Option<&str>)]) -> Output {
    // The test's path in the binary: its module's path without the crate's name.
    let path = match module.split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_string(),
    };
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        &path,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, "1")
    .env_remove("FORKJOIN_NUM_THREADS")
    .env_remove("RAYON_NUM_THREADS")
    .env_remove("RAYON_RS_NUM_CPUS");
    for (key, value) in env {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.output().unwrap()
}

/// The lines of the child's stderr that the runtime printed (not the panic hook's).
pub(crate) fn runtime_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("forkjoin:"))
        .map(str::to_owned)
        .collect()
}
