//! The JDK's ForkJoinPool as a peer: the harness in `peers/java/` (see its README), compiled
//! once with the JDK on PATH and run as one process per (program, workers). It applies the
//! same K-best method to the same task trees and prints one JSON line, which becomes a
//! [`Row`] like the Rust runtimes'.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use serde::Deserialize;

use crate::suite::kbest::{Method, Summary};
use crate::suite::programs::Size;
use crate::suite::results::Row;

/// The harness's sources, found where this crate was built from.
const SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../peers/java/src");

/// A compiled Java harness.
pub(crate) struct Jdk {
    classes: PathBuf,
}

impl Jdk {
    /// Finds `java` and `javac` and compiles the harness unless an up-to-date build exists.
    /// The error is the one-line reason the Java peer is skipped.
    pub(crate) fn prepare() -> Result<Jdk, String> {
        for tool in ["java", "javac"] {
            let found = Command::new(tool)
                .arg("-version")
                .output()
                .is_ok_and(|o| o.status.success());
            if !found {
                return Err(format!(
                    "no JDK ('{tool} -version' failed); skipping the java peer"
                ));
            }
        }
        let sources = java_sources()?;
        let classes = classes_dir();
        if !up_to_date(&classes, &sources) {
            compile(&sources, &classes)?;
        }
        Ok(Jdk { classes })
    }

    /// Runs the harness on `args` (its program and parameters) with `threads` workers.
    pub(crate) fn measure(
        &self,
        program: &str,
        args: &[String],
        threads: usize,
        method: &Method,
    ) -> Row {
        let mut row = Row::new(program, "java", threads, method.k);
        let output = Command::new("java")
            .arg("-Xss16m")
            .arg("-cp")
            .arg(&self.classes)
            .arg("ForkJoinBench")
            .args(args)
            .args(["--threads", &threads.to_string()])
            .args(["--k", &method.k.to_string()])
            .args(["--epsilon", &method.epsilon.to_string()])
            .args(["--max-runs", &method.max_runs.to_string()])
            .args(["--warmup", &method.warmup.to_string()])
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) => {
                row.error = Some(format!("cannot run java: {e}"));
                return row;
            }
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        match serde_json::from_str::<JavaLine>(line) {
            Ok(j) => {
                if let Some(seconds) = j.seconds {
                    row.set_summary(Summary {
                        mean: seconds,
                        best: j.best_seconds.unwrap_or(seconds),
                        converged: j.converged,
                        runs: j.runs,
                    });
                }
                row.k = j.k;
                row.steals = j.steals;
                row.verified = j.verified && output.status.success();
                if !row.verified {
                    row.error = Some(last_line(
                        &output.stderr,
                        "the Java harness reports a wrong answer",
                    ));
                }
            }
            Err(_) => {
                row.error = Some(format!(
                    "java {}: {}",
                    output.status,
                    last_line(&output.stderr, "no JSON line on stdout")
                ));
            }
        }
        row
    }
}

/// The fields of the harness's JSON line that a row uses.
#[derive(Deserialize)]
struct JavaLine {
    seconds: Option<f64>,
    best_seconds: Option<f64>,
    converged: bool,
    runs: usize,
    k: usize,
    verified: bool,
    steals: Option<f64>,
}

fn last_line(bytes: &[u8], otherwise: &str) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(otherwise)
        .trim()
        .to_string()
}

fn java_sources() -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(SOURCES).map_err(|e| {
        format!("no Java harness sources at {SOURCES} ({e}); skipping the java peer")
    })?;
    let mut sources: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    sources.sort();
    if sources.is_empty() {
        return Err(format!(
            "no .java files in {SOURCES}; skipping the java peer"
        ));
    }
    Ok(sources)
}

/// Next to the `fj` binary, i.e. in the target directory, so `cargo clean` removes it.
fn classes_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("fj-java-classes")))
        .unwrap_or_else(|| std::env::temp_dir().join("fj-java-classes"))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether the main class is newer than every source.
fn up_to_date(classes: &Path, sources: &[PathBuf]) -> bool {
    let Some(built) = modified(&classes.join("ForkJoinBench.class")) else {
        return false;
    };
    sources
        .iter()
        .all(|s| modified(s).is_some_and(|m| m <= built))
}

/// Compiles into a private directory, then renames it into place, so a concurrent `fj`
/// never sees half a build.
fn compile(sources: &[PathBuf], classes: &Path) -> Result<(), String> {
    let staging = classes.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let output = Command::new("javac")
        .args(["-encoding", "UTF-8", "-nowarn", "-d"])
        .arg(&staging)
        .args(sources)
        .output()
        .map_err(|e| format!("cannot run javac: {e}; skipping the java peer"))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        let why = last_line(&output.stderr, "no message");
        return Err(format!("javac failed ({why}); skipping the java peer"));
    }
    let _ = std::fs::remove_dir_all(classes);
    if std::fs::rename(&staging, classes).is_err() {
        // Another fj got there first with the same sources; use its build.
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(())
}

/// The Java harness's program and parameters for our `program` at `size`, for programs
/// whose workload does not say so itself (`Workload::java_args`). The values are the
/// programs' size constants (see each file in `programs/`); `None`: no Java equivalent.
pub(crate) fn java_args(program: &str, size: Size) -> Option<Vec<String>> {
    let pick = |test: &str, default: &str, paper: &str| match size {
        Size::Test => test.to_string(),
        Size::Default => default.to_string(),
        Size::Paper => paper.to_string(),
    };
    let args = match program {
        "fib" => vec!["fib".into(), pick("24", "40", "47"), "13".into()],
        "fib-nothreshold" => vec!["fib".into(), pick("20", "34", "36"), "1".into()],
        "integrate" => vec!["integrate".into(), pick("1", "1e-4", "1e-6")],
        "sort" => vec!["sort".into(), pick("100000", "10000000", "100000000")],
        "matmul" => vec!["matmul".into(), pick("128", "1024", "2048")],
        "nqueens" => vec!["nqueens".into(), pick("8", "14", "15")],
        _ => {
            // submit-N: N groups, except at the test size, where every variant uses 200.
            let n = program.strip_prefix("submit-")?;
            vec!["submit".into(), pick("200", n, n)]
        }
    };
    Some(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::programs;

    #[test]
    fn java_args_cover_the_programs_with_a_java_equivalent() {
        let names: Vec<&str> = programs::all().iter().map(|p| p.name).collect();
        let mapped: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| java_args(n, Size::Default).is_some())
            .collect();
        assert_eq!(
            mapped,
            [
                "fib",
                "fib-nothreshold",
                "integrate",
                "sort",
                "matmul",
                "submit-200",
                "submit-400",
                "submit-800",
                "submit-1600",
                "nqueens"
            ]
        );
        assert_eq!(
            java_args("submit-1600", Size::Paper).unwrap(),
            ["submit", "1600"]
        );
        assert_eq!(
            java_args("submit-1600", Size::Test).unwrap(),
            ["submit", "200"]
        );
        assert_eq!(java_args("fib", Size::Paper).unwrap(), ["fib", "47", "13"]);
        assert!(java_args("sort-u8", Size::Default).is_none());
    }

    #[test]
    fn parses_the_harness_line() {
        let line = r#"{"program":"fib","runtime":"java","threads":2,"seconds":0.00174,"converged":true,"runs":12,"k":5,"best_seconds":0.00147,"verified":true,"answer":"832040","steals":2}"#;
        let j: JavaLine = serde_json::from_str(line).unwrap();
        assert_eq!(
            (j.seconds, j.runs, j.k, j.steals),
            (Some(0.00174), 12, 5, Some(2.0))
        );
        assert!(j.converged && j.verified);
    }
}
