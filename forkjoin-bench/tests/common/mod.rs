//! Helpers shared by the `fj` end-to-end tests (each test file includes this module).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Output;

/// A fresh directory for one test's files (names are unique across the test files).
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fj-test-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that the command's stderr contains `needle`, showing the stderr if not.
#[track_caller]
pub(crate) fn assert_stderr_contains(out: &Output, needle: &str) {
    let err = text(&out.stderr);
    assert!(
        err.contains(needle),
        "expected `{needle}` in stderr:\n{err}"
    );
}
