//! The `fj` binary end to end: a small benchmark run at the test size, the report, `fj uts`,
//! and the command-line mistakes that must give one line on stderr and exit status 2.

use std::process::{Command, Output};

mod common;
#[cfg(not(feature = "mpi"))]
use common::assert_stderr_contains;
use common::{scratch, text};

fn fj(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fj"))
        .args(args)
        .output()
        .expect("fj runs")
}

fn rows(path: &std::path::Path) -> Vec<serde_json::Value> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json.as_array().expect("a JSON array").clone()
}

#[test]
fn bench_test_size_verifies_every_row() {
    let dir = scratch("bench");
    let json = dir.join("rows.json");
    let out = fj(&[
        "bench",
        "fib",
        "nqueens",
        "--size",
        "test",
        "--peers",
        "none",
        "--threads",
        "1,2",
        "--json",
        json.to_str().unwrap(),
        "--no-report",
        "--counts",
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let rows = rows(&json);
    // Per program: sequential, and forkjoin at 1 and 2 workers.
    assert_eq!(rows.len(), 6, "{rows:#?}");
    for row in &rows {
        assert_eq!(row["verified"], true, "{row}");
        for field in [
            "program",
            "runtime",
            "threads",
            "seconds",
            "converged",
            "runs",
            "k",
            "sequential_seconds",
            "speedup",
            "tasks",
            "steals",
            "waits_slept",
        ] {
            assert!(row.get(field).is_some(), "no {field} in {row}");
        }
        let (seq, t, speedup) = (
            row["sequential_seconds"].as_f64().unwrap(),
            row["seconds"].as_f64().unwrap(),
            row["speedup"].as_f64().unwrap(),
        );
        assert!((speedup - seq / t).abs() <= 1e-9 * speedup, "{row}");
        match row["runtime"].as_str().unwrap() {
            "sequential" => {
                assert_eq!(row["threads"], 1);
                assert!(row["waits_slept"].is_null(), "{row}");
            }
            "forkjoin" => {
                assert!(row["tasks"].as_f64().unwrap() > 0.0, "{row}");
                assert!(row["waits_slept"].as_f64().unwrap() >= 0.0, "{row}");
            }
            other => panic!("unexpected runtime {other}"),
        }
    }
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("K-best: K=3"),
        "the method used is printed: {stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("nqueens")),
        "a table line per program: {stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("program")
            && l.contains("fj steals/run")
            && l.ends_with("fj waits slept/run")),
        "--counts adds forkjoin's counts per run to the table: {stdout}"
    );
}

/// The issue's bar: every program on every runtime present (the JDK's too when installed),
/// every answer verified.
#[test]
fn whole_suite_at_test_size_verifies() {
    let dir = scratch("suite");
    let json = dir.join("rows.json");
    let out = fj(&[
        "bench",
        "--size",
        "test",
        "--threads",
        "1,2",
        // One run of each: every run's answer is verified, and no figure is checked.
        "--k",
        "1",
        "--max-runs",
        "1",
        "--warmup",
        "0",
        "--json",
        json.to_str().unwrap(),
        "--no-report",
    ]);
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let rows = rows(&json);
    let unverified: Vec<_> = rows.iter().filter(|r| r["verified"] != true).collect();
    assert!(unverified.is_empty(), "{unverified:#?}");
    for rt in ["sequential", "forkjoin", "rayon", "chili"] {
        assert!(rows.iter().any(|r| r["runtime"] == rt), "no {rt} rows");
    }
    let stdout = text(&out.stdout);
    for program in [
        "fib",
        "integrate",
        "micro",
        "sort",
        "matmul",
        "lu",
        "jacobi",
        "submit-1600",
        "ft",
        "nqueens",
        "uts-t1",
        "uts-t3",
        "iter-tiny",
        "iter-squares",
        "iter-nested",
        "iter-map-collect",
        "iter-filter-collect",
        "iter-zip-dot",
        "sort-unstable",
        "sort-stable",
    ] {
        assert!(
            rows.iter().any(|r| r["program"] == program),
            "no {program} rows"
        );
        assert!(
            stdout
                .lines()
                .any(|l| l.split_whitespace().next() == Some(program)),
            "no {program} line: {stdout}"
        );
    }
}

#[test]
fn report_has_the_tables_plots_and_json() {
    let dir = scratch("report");
    let report = dir.join("report");
    let out = fj(&[
        "bench",
        "fib",
        "--size",
        "test",
        "--peers",
        "rayon,chili",
        "--threads",
        "1,2",
        "--k",
        "2",
        "--max-runs",
        "4",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    let rows = rows(&report.join("results.json"));
    // Whether a run this short stole anything is the host's; the report draws the steal
    // rate's figure exactly when a verified forkjoin row did, and otherwise says why
    // there is none (a log scale has no place for 0).
    let stole = rows.iter().any(|r| {
        r["runtime"] == "forkjoin"
            && r["verified"] == true
            && r["tasks"].as_f64().is_some_and(|t| t > 0.0)
            && r["steals"].as_f64().is_some_and(|s| s > 0.0)
    });
    let no_steals = "No figure: no forkjoin run stole a task (every steal rate is 0).";
    let figures = html.matches("<svg").count();
    assert!(html.contains("<table>"), "{html}");
    assert!(!html.contains("class=\"alarm\""), "a figure failed: {html}");
    if stole {
        assert_eq!(figures, 3, "speedup, task and steal rate figures");
        assert!(!html.contains(no_steals));
    } else {
        assert_eq!(figures, 2, "speedup and task rate figures");
        assert!(html.contains(no_steals), "{html}");
    }
    let runtimes: Vec<&str> = rows
        .iter()
        .map(|r| r["runtime"].as_str().unwrap())
        .collect();
    for rt in ["sequential", "forkjoin", "rayon", "chili"] {
        assert!(runtimes.contains(&rt), "{rt} missing: {runtimes:?}");
    }
    assert!(rows
        .iter()
        .all(|r| r["verified"] == true && r["k"] == 2 && r["runs"].as_u64().unwrap() <= 4));
}

#[test]
fn uts_prints_the_tree() {
    let out = fj(&[
        "uts",
        "--threads",
        "2",
        "-t",
        "1",
        "-a",
        "3",
        "-d",
        "7",
        "-b",
        "4",
        "-r",
        "19",
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("nodes 63914, depth 7, leaves 51124"),
        "{stdout}"
    );
}

/// Exit status 2 and exactly one line on stderr, naming the problem.
fn assert_usage_error(args: &[&str], mentions: &str) {
    let out = fj(args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "fj {args:?}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "fj {args:?}: one line, got {stderr:?}"
    );
    assert!(
        stderr.starts_with("fj: error: ") && stderr.contains(mentions),
        "fj {args:?}: {stderr:?}"
    );
    assert!(
        out.stdout.is_empty(),
        "fj {args:?} printed {:?}",
        text(&out.stdout)
    );
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    assert_usage_error(&["bench", "nosuch"], "unknown program 'nosuch'");
    assert_usage_error(&["bench", "--threads", "0"], "at least 1");
    assert_usage_error(&["bench", "--threads", "x"], "'x' is not a worker count");
    assert_usage_error(&["bench", "--threads", "1,,2"], "worker count");
    assert_usage_error(&["bench", "--threads", ""], "empty list");
    assert_usage_error(&["bench", "--size", "huge"], "test, default or paper");
    assert_usage_error(&["bench", "--peers", "foo"], "unknown peer 'foo'");
    assert_usage_error(&["bench", "--epsilon", "-1"], "number >= 0");
    assert_usage_error(&["bench", "--k", "5", "--max-runs", "3"], "less than K");
    assert_usage_error(
        &["bench", "--json", "/nonexistent/dir/rows.json"],
        "does not exist",
    );
    assert_usage_error(&["uts", "-z", "1"], "unknown option");
    assert_usage_error(&["uts", "-t", "1", "--threads", "0"], "at least 1");
    assert_usage_error(&["calibrate", "--rounds", "4"], "5..");
}

#[test]
fn calibrate_profile_predict_and_validate() {
    let dir = scratch("predict");
    let costs = dir.join("costs.json");
    // The fewest rounds: what is checked is the file and the report, not the figures.
    let out = fj(&[
        "calibrate",
        "--rounds",
        &forkjoin_profile::MIN_ROUNDS.to_string(),
        "--out",
        costs.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(&format!("{} rounds", forkjoin_profile::MIN_ROUNDS)),
        "{}",
        text(&out.stdout)
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&costs).unwrap()).unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(saved["heartbeat_ns"].as_f64().is_some_and(|v| v > 0.0));
    // What a calibration could not measure is listed with its reason (the figures are the
    // host's: either outcome may come; what the code controls is how each is reported).
    let not_measured = saved["not_measured"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let unsettled: Vec<&str> = saved["unsettled"]
        .as_array()
        .expect("an unsettled list")
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for (name, why) in &not_measured {
        let why = why.as_str().expect("a reason");
        assert!(
            !why.is_empty() && unsettled.contains(&name.as_str()),
            "{name}: {saved}"
        );
        assert!(stderr.contains(why), "{name}'s reason on stderr: {stderr}");
    }
    for field in forkjoin_profile::MEASURED {
        // Never 0 ns: a cost not measured holds the typical figure, and says so.
        assert!(
            saved[field].as_f64().is_some_and(|v| v > 0.0),
            "{field}: {saved}"
        );
        if not_measured.contains_key(field) {
            assert!(
                stderr.contains(&format!("warning: {field} was not measured")),
                "{stderr}"
            );
        }
        // Each measured cost with its spread, p25 <= p75.
        let spread = &saved["spread"][field];
        let (lo, hi) = (spread["low"].as_f64(), spread["high"].as_f64());
        assert!(
            lo.zip(hi).is_some_and(|(l, h)| 0.0 <= l && l <= h),
            "{field}: {saved}"
        );
    }
    // The costs not pinned down are listed, and named on stderr if any.
    for name in &unsettled {
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    assert!(stdout.contains("p25-p75"), "{stdout}");
    // The programs whose joins are dense get a join cost of their own: a figure above
    // 0 ns with its spread, or none, named not measured with the reason. Which programs
    // are dense is judged against a plain run's time (a busy host makes fewer so); fib's,
    // one join per fib(13) of work, never are.
    let dense: Vec<&str> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("programs whose own join cost is measured "))
        .and_then(|l| l.split_once("): "))
        .map(|(_, names)| names.split(", ").filter(|n| *n != "none").collect())
        .unwrap_or_else(|| panic!("the dense programs are named: {stdout}"));
    assert!(!dense.contains(&"fib"), "{stdout}");
    let own = saved["program_join_ns"].as_object().expect("a map");
    for program in &dense {
        let key = format!("program_join_ns.{program}");
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("join in {program} ")))
            .unwrap_or_else(|| panic!("no line for {program}'s join: {stdout}"));
        match (own.get(*program), not_measured.get(&key)) {
            (Some(ns), None) => {
                assert!(ns.as_f64().is_some_and(|v| v > 0.0), "{program}: {saved}");
                let spread = &saved["spread"][&key];
                assert!(spread["low"].as_f64().unwrap() <= spread["high"].as_f64().unwrap());
                assert!(!line.contains("not measured"), "{line}");
            }
            (None, Some(_)) => {
                assert!(line.contains("not measured"), "{line}");
                assert!(
                    stderr.contains(&format!(
                        "warning: {program}'s own join cost ({key}) was not measured"
                    )),
                    "{stderr}"
                );
            }
            other => panic!("{program}: a figure or a reason, not {other:?}: {saved}"),
        }
    }
    assert_eq!(
        own.len()
            + not_measured
                .keys()
                .filter(|k| k.starts_with("program_join_ns."))
                .count(),
        dense.len(),
        "{saved}"
    );
    let c = costs.to_str().unwrap();

    let svg = dir.join("fib.svg");
    let out = fj(&[
        "profile",
        "fib",
        "--size",
        "test",
        "--costs",
        c,
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    for line in [
        "work (T1)",
        "span (T_inf)",
        "burdened parallelism",
        "joins on the span",
        "mean of the 3 fastest of 5 profiles",
        "each strand's shortest timing in 5 profiles",
    ] {
        assert!(stdout.contains(line), "{stdout}");
    }
    // fib(24) with threshold 13 at the test size: F(n+1) - 1 internal calls above the
    // threshold is not what is counted; the joins are the calls with n >= 13.
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));

    let json = dir.join("predict.json");
    let out = fj(&[
        "predict",
        "fib",
        "--size",
        "test",
        "--threads",
        "1,2,4",
        "--costs",
        c,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let predicted = rows(&json);
    assert_eq!(predicted.len(), 3);
    for (row, threads) in predicted.iter().zip([1, 2, 4]) {
        assert_eq!(row["threads"], threads);
        assert_eq!(row["simulated"], true);
        let (s, lo, hi) = (
            row["speedup"].as_f64().unwrap(),
            row["speedup_cilkview"].as_f64().unwrap(),
            row["speedup_upper"].as_f64().unwrap(),
        );
        // The Cilkview estimate is no bound; the work and span laws' is.
        assert!(
            s > 0.0 && lo > 0.0 && lo <= hi * 1.0001 && s <= hi * 1.0001,
            "{row}"
        );
        let (median, min, max) = (
            row["predicted_seconds"].as_f64().unwrap(),
            row["predicted_seconds_min"].as_f64().unwrap(),
            row["predicted_seconds_max"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= median && median <= max, "{row}");
        for line in [
            "no_wake_seconds",
            "eager_seconds",
            "waits_anything_seconds",
            "waits_ancestors_woken_seconds",
        ] {
            assert!(row[line].as_f64().unwrap() > 0.0, "{row}");
        }
    }

    let json = dir.join("validate.json");
    let out = fj(&[
        "validate",
        "fib",
        "nqueens",
        "submit-200",
        "iter-nested",
        "--size",
        "test",
        "--threads",
        "1,2",
        "--costs",
        c,
        "--json",
        json.to_str().unwrap(),
    ]);
    // 0: every prediction within 10%; 1: not (tiny runs on a shared machine are noisy).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "stderr: {}",
        text(&out.stderr)
    );
    for program in ["submit-200", "iter-nested"] {
        assert!(
            text(&out.stdout).contains(&format!("{program}: not modelled")),
            "{}",
            text(&out.stdout)
        );
    }
    let validated = rows(&json);
    assert_eq!(validated.len(), 4, "{validated:#?}");
    for row in &validated {
        let (m, p, e) = (
            row["measured_seconds"].as_f64().unwrap(),
            row["predicted_seconds"].as_f64().unwrap(),
            row["error_percent"].as_f64().unwrap(),
        );
        assert!(m > 0.0 && p > 0.0, "{row}");
        let (lo, hi) = (
            row["predicted_seconds_min"].as_f64().unwrap(),
            row["predicted_seconds_max"].as_f64().unwrap(),
        );
        assert!(lo <= p && p <= hi, "{row}");
        assert!((e - 100.0 * (p - m) / m).abs() < 1e-6, "{row}");
    }
}

/// A program's join cost that a calibration could not measure is charged as the generic
/// join, never as 0 ns, and every command that charges it says so: from a file written by
/// a calibration that found no measurable difference, and from an older one that wrote
/// 0 ns for it. Hand-written costs: the outcome does not depend on the host.
#[test]
fn a_program_join_not_measured_is_charged_the_generic_join_and_said() {
    let dir = scratch("not-measured");
    let mut costs = forkjoin_profile::Costs::typical();
    costs.join_ns = 0.75;
    costs.program_join_ns.insert("nqueens".into(), 4.8);
    let reason = "no measurable difference between its forking and plain runs (by hand)";
    let key = "program_join_ns.fib-nothreshold";
    costs.not_measured.insert(key.into(), reason.into());
    costs.unsettled.push(key.into());
    let new = dir.join("new.json");
    costs.save(&new).unwrap();
    // As calibrations before `not_measured` wrote it: 0 ns as the program's figure.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&new).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("not_measured");
    json["unsettled"] = serde_json::json!([]);
    json["program_join_ns"]["fib-nothreshold"] = serde_json::json!(0.0);
    let old = dir.join("old.json");
    std::fs::write(&old, json.to_string()).unwrap();

    let generic = "the generic join cost, 0.75 ns, is charged in its place";
    for (file, why) in [(&new, reason), (&old, "0 ns in the file")] {
        let c = file.to_str().unwrap();
        let svg = dir.join("p.svg");
        let svg = svg.to_str().unwrap();
        let out = fj(&[
            "profile",
            "fib-nothreshold",
            "--size",
            "test",
            "--costs",
            c,
            "--svg",
            svg,
        ]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stderr}");
        let note = format!("note: fib-nothreshold's own join cost was not measured ({why}");
        assert!(
            stdout.contains(&note) && stdout.contains(generic),
            "{stdout}"
        );
        assert!(
            stderr.contains("warning: fib-nothreshold's own join cost (program_join_ns.fib-nothreshold) was not measured")
                && stderr.contains(why)
                && stderr.contains("charge it the generic join cost, 0.75 ns"),
            "{stderr}"
        );
        // A program with its own figure is charged it, without a note.
        let out = fj(&[
            "profile", "nqueens", "--size", "test", "--costs", c, "--svg", svg,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            !text(&out.stdout).contains("note:"),
            "{}",
            text(&out.stdout)
        );

        let out = fj(&[
            "predict",
            "fib-nothreshold",
            "--size",
            "test",
            "--threads",
            "1,2",
            "--costs",
            c,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains(&note), "{}", text(&out.stdout));
    }
    let json = dir.join("validate.json");
    let out = fj(&[
        "validate",
        "fib-nothreshold",
        "--size",
        "test",
        "--threads",
        "1",
        "--k",
        "2",
        "--max-runs",
        "3",
        "--costs",
        new.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    // 0 or 1: whether the prediction was within 10% is the host's.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains(&format!(
            "note: fib-nothreshold's own join cost was not measured ({reason}): {generic}"
        )),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(rows(&json).len(), 1);
}

#[test]
fn profiler_usage_errors_are_one_line_and_exit_2() {
    let dir = scratch("predict-errors");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"join_ns\": \"fast\"}").unwrap();
    assert_usage_error(&["profile", "nosuch"], "unknown program 'nosuch'");
    assert_usage_error(
        &["profile", "fib", "--costs", bad.to_str().unwrap()],
        "is not a forkjoin costs file",
    );
    assert_usage_error(
        &["profile", "fib", "--costs", "/nonexistent/costs.json"],
        "cannot access costs file",
    );
    assert_usage_error(&["predict", "fib", "--threads", "0"], "at least 1");
    assert_usage_error(
        &["validate", "fib", "--k", "3", "--max-runs", "2"],
        "--max-runs 2 is less than K = 3",
    );
    assert_usage_error(
        &[
            "predict",
            "fib",
            "--threads",
            "1",
            "--json",
            "/nonexistent/d/p.json",
        ],
        "does not exist",
    );
    assert_usage_error(
        &["validate", "--threads", "1,x"],
        "'x' is not a worker count",
    );
    assert_usage_error(
        &["validate", "fib", "--size", "big"],
        "test, default or paper",
    );
}

#[test]
fn ft_predict_writes_a_table_a_plot_and_json() {
    let dir = scratch("ft-predict");
    let (svg, json) = (dir.join("ft.svg"), dir.join("ft.json"));
    // Costs whose spread is the median itself except the wake-up's, 0 to twice it: at the
    // low end the prediction is the one with wake = 0, at the high end one with more.
    let mut costs = forkjoin_profile::Costs::typical();
    for (name, ns) in forkjoin_profile::MEASURED.iter().zip(costs.measured()) {
        let high = if *name == "wake_ns" { 2.0 * ns } else { ns };
        let low = if *name == "wake_ns" { 0.0 } else { ns };
        costs
            .spread
            .insert(name.to_string(), forkjoin_profile::Spread { low, high });
    }
    let costs_file = dir.join("costs.json");
    costs.save(&costs_file).unwrap();
    let out = fj(&[
        "ft-predict",
        "--costs",
        costs_file.to_str().unwrap(),
        "--class",
        "W",
        "--network",
        "ethernet-10g",
        "--network-file",
        dir.join("none.json").to_str().unwrap(),
        "--nodes",
        "1,2,64",
        "--cores",
        "2",
        "--svg",
        svg.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    // No `local` profile in that file: said, and the network used within nodes too.
    assert!(stdout.contains("no `local` profile"), "{stdout}");
    let rows = rows(&json);
    assert_eq!(
        rows.iter()
            .map(|r| r["nodes"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 64]
    );
    assert!(stdout.contains("costs p25-p75"), "{stdout}");
    for r in &rows[..2] {
        assert!(
            r["ft_seconds"].as_f64().unwrap() > 0.0 && r["ft_t_seconds"].as_f64().unwrap() > 0.0
        );
        // The range over the costs' spread: its low end is exactly wake = 0.
        assert_eq!(
            r["ft_t_seconds_costs_low"], r["ft_t_seconds_no_wake"],
            "{r}"
        );
        let high = r["ft_t_seconds_costs_high"].as_f64().unwrap();
        assert!(high >= r["ft_t_seconds_costs_low"].as_f64().unwrap(), "{r}");
    }
    // Class W has nz = 32: 64 slabs cannot be cut, 128 pencils (8 x 16) can.
    assert!(rows[2]["ft_t_seconds"].is_null());
    assert!(rows[2]["ft_t_seconds_costs_high"].is_null());
    assert!(rows[2]["ft_seconds"].as_f64().unwrap() > 0.0);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // Bad input: one line, exit 2.
    for args in [
        &["ft-predict", "--class", "Q"][..],
        &["ft-predict", "--network", "pigeon"],
        &["ft-predict", "--cores", "0"],
    ] {
        let out = fj(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr).lines().count(),
            1,
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

/// Only on a build without MPI: the test command runs these tests on `fj` built with MPI, and
/// checks the message with a unit test (`commands::ft`).
#[cfg(not(feature = "mpi"))]
#[test]
fn ft_without_mpi_says_how_to_get_it() {
    for cmd in ["ft", "calibrate-network"] {
        let out = fj(&[cmd]);
        assert_eq!(out.status.code(), Some(1));
        assert_stderr_contains(&out, "built without MPI");
        assert_stderr_contains(&out, "--features mpi");
    }
}
