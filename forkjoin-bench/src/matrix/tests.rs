//! Every cell at a tiny size on all three versions: the answers must agree with each other
//! and with the known value recorded in `known-answers.txt` (regenerate it, after a change
//! that means to change the answers, with `FJ_MATRIX_WRITE_ANSWERS=1 cargo test -p
//! forkjoin-bench matrix::tests`); a few are also checked against values worked out by
//! hand. And a cell whose versions disagree is reported as an error, not measured.

use std::collections::BTreeMap;

use super::runner::{self, Plan};
use super::*;

const KNOWN: &str = include_str!("known-answers.txt");
const KNOWN_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/matrix/known-answers.txt");

/// Each cell's three answers at `Size::Tiny`, each version run twice (in-place cells must
/// give the same answer again), forkjoin and rayon in pools of two workers.
fn answers() -> Vec<(String, [u64; 3])> {
    let fj = forkjoin::Pool::new(2).unwrap();
    let ry = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    all_cells()
        .iter()
        .map(|def| {
            let mut k = (def.make)(Size::Tiny);
            let mut twice = |v: Version| {
                let mut run = || match v {
                    Version::Seq => k.run(v),
                    Version::Fj => fj.install(|| k.run(v)),
                    Version::Ry => ry.install(|| k.run(v)),
                };
                let first = run();
                let second = run();
                assert_eq!(
                    first, second,
                    "{}: {v:?} changed its answer on a second run",
                    def.name
                );
                first
            };
            let a = [twice(Version::Seq), twice(Version::Fj), twice(Version::Ry)];
            (def.name.clone(), a)
        })
        .collect()
}

#[test]
fn every_cell_agrees_with_itself_and_the_known_answers() {
    let answers = answers();
    let disagree: Vec<String> = answers
        .iter()
        .filter(|(_, [s, f, r])| s != f || s != r)
        .map(|(name, a)| format!("{name}: seq, fj, rayon = {a:?}"))
        .collect();
    assert!(
        disagree.is_empty(),
        "versions disagree:\n{}",
        disagree.join("\n")
    );

    let found: BTreeMap<&str, u64> = answers.iter().map(|(n, a)| (n.as_str(), a[0])).collect();
    if std::env::var_os("FJ_MATRIX_WRITE_ANSWERS").is_some() {
        let text: String = found.iter().map(|(n, a)| format!("{n}\t{a}\n")).collect();
        std::fs::write(KNOWN_PATH, text).unwrap();
        return;
    }
    let known: BTreeMap<&str, u64> = KNOWN
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, a)| (n, a.parse().expect("a number")))
        .collect();
    let wrong: Vec<String> = found
        .iter()
        .filter(|(n, a)| known.get(*n) != Some(a))
        .map(|(n, a)| format!("{n}: found {a}, known {:?}", known.get(*n)))
        .collect();
    assert!(
        wrong.is_empty(),
        "answers differ from known-answers.txt:\n{}",
        wrong.join("\n")
    );
    assert_eq!(
        known.len(),
        found.len(),
        "known-answers.txt lists cells that are gone"
    );

    // Worked out by hand: 40 items of 3x + 1 (the tiny size); the tree's 1,023 values
    // 1..=1023; the sequential loop's 64 items.
    let sum_3x1 = |n: u64| 3 * n * (n - 1) / 2 + n;
    for name in [
        "range-u32 | map | sum | flat | 1ns",
        "range-u64 | map | sum | flat | 1ns",
        "range-usize | map | sum | flat | 1ns",
        "range-u64 | map | reduce | flat | 1ns",
        "range-usize | chain,map | sum | flat | 1ns",
        "range-u64 | flat_map_iter(8) | sum | flat | 1ns",
    ] {
        assert_eq!(found[name], sum_3x1(40), "{name}");
    }
    assert_eq!(
        found["shape5 tree-1023 | join | sum | join | 1ns"],
        sum_3x1(1024) - 1
    );
    assert_eq!(
        found["shape4 range-usize | map | sum | seq-20000 x in-16 | 1ns"],
        sum_3x1(64)
    );
    assert_eq!(
        found["range-u64 | map | reduce_with | flat | 1ns"],
        3 * 39 + 1
    );
}

#[test]
fn names_are_unique_and_name_every_dimension() {
    let cells = all_cells();
    let mut names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
    assert!(names.len() >= 80, "{} cells", names.len());
    for n in &names {
        assert_eq!(
            n.split(" | ").count(),
            5,
            "{n}: not source | adaptors | consumer | nesting | cost"
        );
    }
    let has = |s: &str| names.iter().filter(|n| n.contains(s)).count();
    for source in [
        "range-u32",
        "range-u64",
        "range-usize",
        "slice",
        "vec",
        "chunks",
        "iter-mut",
        "zip2",
        "bridge",
        "chars",
    ] {
        assert!(has(&format!("{source} |")) >= 1, "source {source}");
    }
    for consumer in [
        "| sum |",
        "| reduce |",
        "| reduce_with |",
        "| for_each |",
        "| collect-vec |",
        "| collect-hashmap |",
        "| count |",
        "| min_by_key |",
        "| find_first |",
        "| any",
    ] {
        assert!(has(consumer) >= 2, "consumer {consumer}");
    }
    for nesting in ["| flat |", "in-16 |", "in-1000 |", "in-100000 |", "join"] {
        assert!(has(nesting) >= 2, "nesting {nesting}");
    }
    for cost in ["| 1ns", "| 100ns", "| 10us", "| mixed"] {
        assert!(has(cost) >= 3, "cost {cost}");
    }
    for acc in ["acc8)", "acc48)", "acc1024)"] {
        assert!(has(acc) >= 4, "accumulator {acc}");
    }
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "two cells share a name");
}

#[test]
fn a_cell_whose_versions_disagree_is_an_error() {
    let bad = cell(
        "bad | - | sum | flat | 1ns",
        |_: Size| 7u64,
        [|x| *x, |x| *x + 1, |x| *x],
    );
    let good = cell(
        "good | - | sum | flat | 1ns",
        |_: Size| 7u64,
        [|x| *x, |x| *x, |x| *x],
    );
    let plan = Plan {
        size: Size::Tiny,
        workers: vec![1, 2],
        rounds: 2,
        k: 1,
    };
    let rows = runner::run(&[bad, good], &plan, &indicatif::ProgressBar::hidden()).unwrap();
    assert_eq!(rows.len(), 4);
    for r in &rows[..2] {
        let e = r.error.as_deref().expect("an error");
        assert!(
            e.starts_with("forkjoin:") && e.contains("expected 7") && e.contains("found 8"),
            "{e}"
        );
        assert!(r.fj_over_rayon.is_none());
    }
    for r in &rows[2..] {
        assert!(
            r.error.is_none() && r.fj_over_rayon.is_some() && r.fj_over_seq.is_some(),
            "{r:?}"
        );
    }
    let text = output::render(&rows, &[1, 2], None);
    assert!(
        text.contains("ERROR") && text.contains("; 1 FAILED"),
        "{text}"
    );
}
