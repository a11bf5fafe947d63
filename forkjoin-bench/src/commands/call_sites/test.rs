use super::*;

const PROFILE: &str = r#"{
  "wall_ns": 10000000, "timer_ns": 80, "burden_ns": 2000,
  "sites": [
    {"file": "src/main.rs", "line": 7, "column": 5, "calls": 100, "work_ns": 1000000, "span_ns": 200000, "burdened_span_ns": 800000, "joins": 900, "span_joins": 3, "strands": 3000, "wall_ns": 1500000},
    {"file": "src/main.rs", "line": 12, "column": 9, "calls": 1, "work_ns": 6000000, "span_ns": 60000, "burdened_span_ns": 100000, "joins": 1023, "span_joins": 10, "strands": 3072, "wall_ns": 3500000},
    {"file": "src/main.rs", "line": 13, "column": 13, "parent": "src/main.rs:12:9", "calls": 1000, "work_ns": 3000000, "span_ns": 50000, "burdened_span_ns": 90000, "joins": 1000, "span_joins": 1, "strands": 4000, "wall_ns": 0}
  ]
}"#;

fn profile() -> ProgramProfile {
    serde_json::from_str(PROFILE).unwrap()
}

#[test]
fn call_sites_come_by_work_each_with_its_nested_ones_then_the_program() {
    let rows = rows(&profile());
    let tags: Vec<(&str, usize, Option<&str>)> = rows
        .iter()
        .map(|r| (r.tag.as_str(), r.depth, r.parent.as_deref()))
        .collect();
    assert_eq!(
        tags,
        [
            ("src/main.rs:12", 0, None),
            ("src/main.rs:13", 1, Some("src/main.rs:12")),
            ("src/main.rs:7", 0, None),
            ("program", 0, None),
        ]
    );
    assert_eq!(
        (rows[0].leaves, rows[1].leaves, rows[2].leaves),
        (1024, 2000, 1000)
    );
    // 10 ms of wall time, 5 ms of it in the outer call sites: 5 ms serial, on work and span
    // alike; the nested site's work is in its parent's already.
    assert_eq!(
        rows[3],
        Row {
            tag: "program".into(),
            depth: 0,
            parent: None,
            calls: 1,
            work_ns: 5_000_000 + 7_000_000,
            span_ns: 5_000_000 + 260_000,
            burdened_span_ns: 5_000_000 + 900_000,
            leaves: 2025,
        }
    );
}

#[test]
fn the_predicted_time_lies_between_the_laws_and_the_burdened_bound() {
    let rows = rows(&profile());
    // 6 ms of work, span 60 us, burdened span 100 us.
    assert_eq!(rows[0].predicted_ns(1), (6_000_000.0, 6_100_000.0));
    assert_eq!(rows[0].predicted_ns(64), (93_750.0, 193_750.0));
    assert_eq!(rows[0].predicted_ns(200), (60_000.0, 130_000.0));
}

#[test]
fn each_row_says_what_limits_it() {
    let rows = rows(&profile());
    // Parallelism 100, burdened 60: nothing up to 64 workers.
    assert_eq!(rows[0].limit(2000), "none up to 64 workers");
    // Leaves of 1 us against 2 us steals: burdened parallelism 1.25 against 5.
    assert_eq!(
        rows[2].limit(2000),
        "work per leaf: leaves of 1.0 us against a steal of 2.0 us"
    );
    assert_eq!(rows[3].limit(2000), "parallelism: at most 2.3x");
}

#[test]
fn the_csv_has_cilkscales_columns_first() {
    let text = csv(&rows(&profile()));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),burdened_parallelism,calls,leaves,mean leaf (seconds),inside"
    );
    assert_eq!(
        lines[1],
        "src/main.rs:12,0.006000000,0.000060000,100.000,0.000100000,60.000,1,1024,0.000005859,"
    );
    assert_eq!(
        lines[2],
        "src/main.rs:13,0.003000000,0.000050000,60.000,0.000090000,33.333,1000,2000,0.000001500,src/main.rs:12"
    );
    assert_eq!(lines.len(), 5);
    assert!(lines[4].starts_with("program,0.012000000,0.005260000,2.281,"));
}

#[test]
fn the_page_has_the_table_by_work_and_a_figure_per_top_site_and_the_program() {
    let rows = rows(&profile());
    let mut measured = page::Measured::new();
    measured.insert("src/main.rs:12".into(), vec![(1, 1.0), (2, 1.8)]);
    let html = page::page(
        "./demo --fast",
        &rows,
        &profile(),
        "this machine",
        &measured,
    );
    // The rows in the table's order, the nested one indented.
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
    assert!(at(">src/main.rs:12</td>") < at(">src/main.rs:13</td>"));
    assert!(at(">src/main.rs:13</td>") < at(">src/main.rs:7</td>"));
    assert!(html.contains("<td style=\"padding-left: 24px\">src/main.rs:13</td>"));
    // The three call sites with the most work and the program each get a figure and a
    // line on what limits them; only the measured one draws a measured line.
    assert_eq!(html.matches("<svg").count(), 4);
    assert_eq!(html.matches("\nmeasured\n</text>").count(), 1);
    assert!(html.contains(
        "src/main.rs:7: limited by work per leaf: leaves of 1.0 us against a steal of 2.0 us"
    ));
    assert!(html.contains("program: limited by parallelism: at most 2.3x"));
    assert!(html.contains("./demo --fast"));
}

#[test]
fn the_sequential_start_before_the_first_call_site_is_serial_work() {
    let mut p = profile();
    p.before_ns = 2_000_000;
    let rows = rows(&p);
    let program = rows.last().unwrap();
    assert_eq!(
        (program.work_ns, program.span_ns),
        (
            2_000_000 + 5_000_000 + 7_000_000,
            2_000_000 + 5_000_000 + 260_000
        )
    );
}

#[test]
fn threads_outside_the_pool_add_their_cpu_time_outside_the_sites_not_the_wall_time() {
    let mut p = profile();
    p.before_ns = 2_000_000;
    p.outside_clock = Some("thread_cpu".into());
    p.outside_ns = Some(1_000_000);
    p.outside_blocked_ns = 4_000_000;
    p.sites[1].blocked_ns = 3_000_000;
    // Nested in the second: part of its blocked time already.
    p.sites[2].blocked_ns = 1_000_000;
    let rows = rows(&p);
    let program = rows.last().unwrap();
    // 10 ms of wall time, 5 ms of it outside the call sites, of which the threads ran 1 ms:
    // the other 4 ms they were blocked, neither work nor span.
    assert_eq!(
        (program.work_ns, program.span_ns),
        (
            2_000_000 + 1_000_000 + 7_000_000,
            2_000_000 + 1_000_000 + 260_000
        )
    );
    assert_eq!(
        outside_note(&p),
        "threads outside the pool, timed by their CPU clocks: blocked 3.000 ms inside the call \
         sites and 4.000 ms outside them (not work, not on the span)"
    );
    p.outside_clock = Some("wall: no thread CPU clock".into());
    assert_eq!(
        outside_note(&p),
        "threads outside the pool timed by the wall clock (wall: no thread CPU clock): their \
         blocked time counts as work"
    );
}
