//! `fj matrix` end to end: a filtered run writes its tables and JSON; bad options are one
//! line on stderr and exit status 2.

use std::process::{Command, Output};

mod common;
use common::{scratch, text};

fn fj(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fj"))
        .args(args)
        .output()
        .expect("fj runs")
}

#[test]
fn matrix_filtered_run_prints_the_tables_and_writes_json() {
    let dir = scratch("matrix");
    let json = dir.join("matrix.json");
    let out = fj(&[
        "matrix",
        "--filter",
        "shape5",
        "--rounds",
        "2",
        "--k",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    for needle in [
        "Worst first by forkjoin/rayon at 2",
        "Worst first by forkjoin/sequential at 1",
        "shape5 tree-1023",
        "geomean fj/rayon",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{report:#}");
    for (row, workers) in rows.iter().zip([1, 2]) {
        assert_eq!(row["workers"], workers);
        assert!(row["error"].is_null(), "{row}");
        for field in [
            "seq_seconds",
            "fj_seconds",
            "rayon_seconds",
            "fj_over_seq",
            "fj_over_rayon",
        ] {
            assert!(
                row[field].as_f64().is_some_and(|x| x > 0.0),
                "{field}: {row}"
            );
        }
    }
    assert_eq!(report["summary"].as_array().unwrap().len(), 2);
}

#[test]
fn matrix_usage_errors_are_one_line_and_exit_2() {
    for (args, mentions) in [
        (&["matrix", "--workers", "0"][..], "at least 1"),
        (&["matrix", "--workers", "1,x"], "'x' is not a worker count"),
        (&["matrix", "--size", "huge"], "quick or full"),
        (&["matrix", "--rounds", "0"], "--rounds"),
        (
            &["matrix", "--k", "5", "--rounds", "3"],
            "more than --rounds",
        ),
        (&["matrix", "--filter", "no such cell"], "no cell"),
        (
            &["matrix", "--json", "/nonexistent/dir/m.json"],
            "does not exist",
        ),
    ] {
        let out = fj(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "fj {args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "fj {args:?}: {stderr:?}");
        assert!(
            stderr.starts_with("fj: ") && stderr.contains(mentions),
            "fj {args:?}: {stderr:?}"
        );
        assert!(out.stdout.is_empty(), "fj {args:?}: {}", text(&out.stdout));
    }
}
