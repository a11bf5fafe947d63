//! The generator's, the parser's and the report's tests (no cargo build: the generated
//! crate is built by `fj loops` itself).

use std::collections::BTreeMap;

use super::crate_dir::{locked_version, Measured};
use super::grammar::{
    all_sources, generate, items_for, Adaptor, Consumer, Kind, Nesting, Program, Source,
    ADAPTOR_FAMILIES, CONSUMER_FAMILIES, KINDS,
};
use super::instructions::{self, Counted, Dump, Printed};
use super::report::{self, Row};
use super::{emit, parse_kept};

#[test]
fn a_seed_gives_the_same_programs() {
    let a = generate(7, 200);
    assert_eq!(a, generate(7, 200));
    assert_eq!(a.len(), 200);
    // A shorter run of the same seed is a prefix of a longer one.
    assert_eq!(generate(7, 50)[..], a[..50]);
    assert_ne!(generate(8, 200), a);
    // Pinned: a seed names the same programs from run to run and build to build (reports
    // and kept cases refer to seeds), so a change to the generator shows here.
    let lines: Vec<String> = generate(1, 3).iter().map(|p| p.to_string()).collect();
    assert_eq!(
        lines,
        [
            "zip-u64 | filter:float fold_with:string@48 | reduce | join-16 | n=22000",
            "chunks-16 | filter:alloc | min_by:total | outer-51 | n=680000",
            "iter-mut | with_min_len:1024 filter:arith filter:float | for_each:string | flat | n=30000",
        ]
    );
}

#[test]
fn every_program_prints_and_parses_back_to_itself() {
    for seed in 1..=5 {
        for p in generate(seed, 200) {
            let line = p.to_string();
            assert_eq!(line.parse::<Program>(), Ok(p.clone()), "{line}");
            assert_eq!(line.lines().count(), 1);
            assert!(p.check().is_ok(), "{line}: {:?}", p.check());
        }
    }
}

#[test]
fn the_example_line_parses() {
    let p: Program = "slice-u64 | map:arith filter:branch | sum | flat | n=200000"
        .parse()
        .unwrap();
    assert_eq!(
        p,
        Program {
            source: Source::SliceU64,
            adaptors: vec![Adaptor::Map(Kind::Arith), Adaptor::Filter(Kind::Branch)],
            consumer: Consumer::Sum,
            nesting: Nesting::Flat,
            n: 200_000,
        }
    );
    // Spaces around the bars are optional; no adaptor is '-'.
    let q: Program = "iter-mut|-|for_each:spin|join-8|n=5000".parse().unwrap();
    assert_eq!(
        q.to_string(),
        "iter-mut | - | for_each:spin | join-8 | n=5000"
    );
}

/// The error of `line`.
fn error(line: &str) -> String {
    line.parse::<Program>().unwrap_err()
}

#[test]
fn a_malformed_line_says_what_is_wrong() {
    assert_eq!(
        error("slice-u64 | map:arith | sum | flat"),
        "expected 5 fields separated by '|' (source | adaptors | consumer | nesting | n=N), found 4"
    );
    assert!(
        error("slice-u128 | - | sum | flat | n=2000").starts_with("unknown source 'slice-u128'")
    );
    assert!(error("slice-u64 | mapp:arith | sum | flat | n=2000")
        .starts_with("unknown adaptor 'mapp' (adaptors: map, map_init, filter"));
    assert!(error("slice-u64 | map:fast | sum | flat | n=2000")
        .starts_with("adaptor 'map:fast': unknown closure kind 'fast' (kinds: arith, branch"));
    assert_eq!(
        error("slice-u64 | map | sum | flat | n=2000"),
        "adaptor 'map': missing ':' and its parameter"
    );
    assert_eq!(
        error("slice-u64 | fold:arith@100 | sum | flat | n=2000"),
        "adaptor 'fold:arith@100': accumulators are 8, 48, 256, 1024 bytes"
    );
    assert!(error("slice-u64 | - | summ | flat | n=2000").starts_with("unknown consumer 'summ'"));
    assert_eq!(
        error("slice-u64 | - | sum | outer-3 | n=2000"),
        "outer-3: the outer loop has 16 to 64 items"
    );
    assert_eq!(
        error("slice-u64 | - | sum | flat | 2000"),
        "item count '2000': expected n=N"
    );
    assert_eq!(
        error("slice-u64 | - | sum | flat | n=20"),
        "n=20: expected 1000 to 4000000 items"
    );
    // Type errors: the chain is checked as the generator builds it.
    assert_eq!(
        error("range-usize | copied | sum | flat | n=2000"),
        "adaptor 'copied' cannot follow items of type usize (indexed)"
    );
    assert_eq!(
        error("range-u64 | filter:branch enumerate | sum | flat | n=2000"),
        "adaptor 'enumerate' cannot follow items of type u64 (not indexed)"
    );
    assert_eq!(
        error("zip-u64 | - | sum | flat | n=2000"),
        "consumer 'sum' cannot end a chain of (&u64, &u64) (indexed)"
    );
    assert_eq!(
        error("range-u64 | fold:arith@8 map:arith | sum | flat | n=2000"),
        "adaptor 'map:arith' cannot follow items of type an accumulator of 8 bytes (not indexed); \
         a fold is the last adaptor"
    );
    assert_eq!(
        error("range-u64 | map:arith map:arith map:arith map:arith | sum | flat | n=2000"),
        "4 adaptors: at most 3"
    );
    assert_eq!(
        error("range-u64 | map:scratch | sum | flat | n=2000"),
        "adaptor 'map:scratch': the scratch kind needs a state (map_init, fold, fold_with, for_each_init)"
    );
    assert_eq!(
        error("range-u64 | - | sum | flat | n=2000"),
        "consumer 'sum' cannot end a chain of u64 (not indexed); a range without a closure has a closed form"
    );
    assert_eq!(
        error("slice-u64 | map:arith | count | flat | n=2000"),
        "consumer 'count' cannot end a chain of u64 (indexed); count needs a filter (else the compiler \
         counts without running the loop)"
    );
    assert_eq!(
        error("zip-u64 | enumerate | min | flat | n=2000"),
        "consumer 'min' cannot end a chain of (usize, (&u64, &u64)) (indexed); the index decides: \
         the first or the last item"
    );
    assert_eq!(
        error("slice-u64 | - | for_each:arith | flat | n=2000"),
        "consumer 'for_each:arith' cannot end a chain of &u64 (indexed)"
    );
}

#[test]
fn a_thousand_programs_cover_the_grammar() {
    let programs = generate(2024, 1000);
    type Counts = BTreeMap<&'static str, usize>;
    let (mut sources, mut adaptors, mut consumers, mut kinds, mut nestings) = (
        Counts::new(),
        Counts::new(),
        Counts::new(),
        Counts::new(),
        Counts::new(),
    );
    let mut chain_lengths = [0usize; 4];
    let mut acc_sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for p in &programs {
        *sources.entry(p.source.family()).or_default() += 1;
        for a in &p.adaptors {
            *adaptors.entry(a.family()).or_default() += 1;
            if let Adaptor::Fold(_, b) | Adaptor::FoldWith(_, b) = a {
                *acc_sizes.entry(*b).or_default() += 1;
            }
        }
        *consumers.entry(p.consumer.family()).or_default() += 1;
        for k in p.kinds() {
            *kinds.entry(k.name()).or_default() += 1;
        }
        *nestings.entry(p.nesting.family()).or_default() += 1;
        chain_lengths[p.adaptors.len()] += 1;
    }
    fn families(m: &BTreeMap<&'static str, usize>) -> Vec<&'static str> {
        m.keys().copied().collect()
    }
    let sorted = |xs: &[&'static str]| {
        let mut v = xs.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    let source_families: Vec<&str> = all_sources().iter().map(|s| s.family()).collect();
    assert_eq!(families(&sources), sorted(&source_families));
    assert_eq!(families(&adaptors), sorted(&ADAPTOR_FAMILIES));
    assert_eq!(families(&consumers), sorted(&CONSUMER_FAMILIES));
    assert_eq!(families(&kinds), sorted(&KINDS.map(Kind::name)));
    assert_eq!(families(&nestings), vec!["flat", "join", "outer"]);
    assert_eq!(
        acc_sizes.keys().copied().collect::<Vec<_>>(),
        [8, 48, 256, 1024]
    );
    // Every program counted once per dimension.
    assert_eq!(sources.values().sum::<usize>(), 1000);
    assert_eq!(consumers.values().sum::<usize>(), 1000);
    assert_eq!(nestings.values().sum::<usize>(), 1000);
    assert_eq!(chain_lengths.iter().sum::<usize>(), 1000);
    // Chains of every length, 0 to 3.
    assert!(chain_lengths.iter().all(|&c| c > 0), "{chain_lengths:?}");
    // No element is starved: each family at least 1% of its draws.
    for (what, m) in [
        ("source", &sources),
        ("adaptor", &adaptors),
        ("consumer", &consumers),
    ] {
        for (name, &c) in m {
            assert!(c >= 10, "{what} {name} drawn {c} times in 1000 programs");
        }
    }
}

#[test]
fn item_counts_aim_at_a_millisecond() {
    assert_eq!(items_for(1.0), 800_000);
    assert_eq!(items_for(0.7), 1_100_000); // 1.14M, two significant digits
    assert_eq!(items_for(100.0), 8_000);
    assert_eq!(items_for(3000.0), 1_000); // the floor
    assert_eq!(items_for(0.01), 4_000_000); // the ceiling
    for p in generate(3, 200) {
        let ms = p.ns_per_item() * p.n as f64 / 1e6;
        assert!(
            (0.3..=2.0).contains(&ms) || p.n == 1_000 || p.n == 4_000_000,
            "{p}: {ms} ms nominal"
        );
    }
}

#[test]
fn emission_of_a_program() {
    let p: Program = "slice-u64 | map:arith filter:branch | sum | outer-16 | n=200000"
        .parse()
        .unwrap();
    let f = emit::program_fn(3, &p);
    assert!(f.starts_with(
        "/// `slice-u64 | map:arith filter:branch | sum | outer-16 | n=200000`\n\
         pub fn p3(inp: &mut Input) -> u64 {\n"
    ));
    assert!(
        f.contains(
            "        let r = v[lo..hi].par_iter()\n            \
         .map(|x| k_arith(((*x))))\n            \
         .filter(|x| k_branch(((*x))) % 4 != 0)\n            \
         .sum::<u64>();\n        r\n"
        ),
        "{f}"
    );
    assert!(f.contains(
        "(0..n.div_ceil(len)).into_par_iter().map(|o| inner(o * len, ((o + 1) * len).min(n), &mut []) & LOW).sum::<u64>()"
    ), "{f}");
    // A `&mut` chain writes its items and adds the output's checksum.
    let q: Program = "iter-mut | enumerate | for_each:hash | join-4 | n=5000"
        .parse()
        .unwrap();
    let g = emit::program_fn(0, &q);
    assert!(g.contains(
        ".for_each(|x| { let v = k_hash(((x.0 as u64).wrapping_mul(31).wrapping_add((*x.1 & LOW)) & LOW)); \
         *x.1 = (*x.1 & LOW) | (v << 32); })"
    ), "{g}");
    assert!(g.contains("rec(0, n, out, n.div_ceil(4), &inner)"), "{g}");
    assert!(g.contains(".wrapping_add(cs(out, |x| *x))"), "{g}");
    // Accumulators: a scratch one carries its `Vec`; `sum` needs their `Sum`.
    let f: Program = "range-usize | fold:scratch@1024 | reduce | flat | n=76000"
        .parse()
        .unwrap();
    let f = emit::program_fn(0, &f);
    assert!(
        f.contains(".fold(Scr::<128>::zero, |a, x| a.push((x as u64)))"),
        "{f}"
    );
    assert!(f.contains(".reduce(Scr::<128>::zero, Scr::merge);"), "{f}");
    let g: Program = "slice-u64 | fold_with:arith@48 | sum | flat | n=76000"
        .parse()
        .unwrap();
    let g = emit::program_fn(0, &g);
    assert!(
        g.contains(".fold_with(Acc::<6>::zero(), |a, x| a.add(k_arith(((*x)))))"),
        "{g}"
    );
    assert!(g.contains(".sum::<Acc<6>>();"), "{g}");
    let table = emit::table_rs(std::slice::from_ref(&q));
    assert!(table.contains(
        "Prog { line: \"iter-mut | enumerate | for_each:hash | join-4 | n=5000\", n: 5000, \
         needs: Needs { v: false, w: false, fv: false, out: true }, fns: [seq::p0, fj::p0, ry::p0] },"
    ), "{table}");
}

#[test]
fn the_kept_cases_parse() {
    let text = include_str!("kept.txt");
    let kept = parse_kept(text).unwrap();
    for p in &kept {
        assert_eq!(p.to_string().parse::<Program>().as_ref(), Ok(p));
    }
    assert_eq!(
        parse_kept("# a comment\n\nslice-u64 | - | sum | flat | n=2000\nslice-u64 | - | sum | flat\n"),
        Err("line 4: expected 5 fields separated by '|' (source | adaptors | consumer | nesting | n=N), found 4".to_string())
    );
}

#[test]
fn the_lock_file_names_rayon() {
    let lock = "[[package]]\nname = \"rayon\"\nversion = \"1.12.0\"\nsource = \"x\"\n\n\
                [[package]]\nname = \"rayon-core\"\nversion = \"1.13.0\"\n";
    assert_eq!(locked_version(lock, "rayon").as_deref(), Some("1.12.0"));
    assert_eq!(
        locked_version(lock, "rayon-core").as_deref(),
        Some("1.13.0")
    );
    assert_eq!(locked_version(lock, "chili"), None);
    let workspace = include_str!("../../../Cargo.lock");
    assert!(locked_version(workspace, "rayon").is_some_and(|v| v.starts_with("1.12.")));
}

fn measured(line: &str, std: f64, fj: [f64; 2], ry: [f64; 2]) -> Measured {
    Measured {
        index: 0,
        line: line.to_string(),
        n: 1000,
        reps: 2,
        std: Some(std),
        fj: BTreeMap::from([(1, Some(fj[0])), (2, Some(fj[1]))]),
        ry: BTreeMap::from([(1, Some(ry[0])), (2, Some(ry[1]))]),
        error: None,
    }
}

#[test]
fn the_report_flags_and_sorts() {
    // a: fj@1 1.10x std but rayon 1.20x: no break; fj@2/ry@2 1.2: breaks.
    // b: fj@1 1.10x std, rayon 1.0x: breaks at 1; fj@2/ry@2 0.8.
    // c: all fine.
    let a = Row::new(&measured("a", 1.0, [1.1, 0.6], [1.2, 0.5]));
    let b = Row::new(&measured("b", 1.0, [1.1, 0.4], [1.0, 0.5]));
    let c = Row::new(&measured("c", 1.0, [1.0, 0.45], [1.0, 0.5]));
    assert_eq!(
        (a.breaks_1, a.breaks_p, a.flag()),
        (false, true, "2w".to_string())
    );
    assert_eq!(
        (b.breaks_1, b.breaks_p, b.flag()),
        (true, false, "1w".to_string())
    );
    assert_eq!(
        (c.breaks_1, c.breaks_p, c.flag()),
        (false, false, String::new())
    );
    assert_eq!(b.std_ns_per_item, Some(1.0 * 1e9 / 2.0 / 1000.0));
    let mut rows = vec![c, b, a];
    report::worst_first(&mut rows);
    let order: Vec<&str> = rows.iter().map(|r| r.line.as_str()).collect();
    // By the larger of fj@1/ry@1 and fj@2/ry@2: a 1.2, b 1.1, c 1.0.
    assert_eq!(order, ["a", "b", "c"]);
    let s = report::summarise(&rows, None);
    assert_eq!((s.programs, s.errors, s.breaking_1), (3, 0, 1));
    assert_eq!(s.breaking_p, BTreeMap::from([(2, 1)]));
    let g2 = s.geomean_fj_over_rayon[&2];
    assert!((g2 - (1.2f64 * 0.8 * 0.9).powf(1.0 / 3.0)).abs() < 1e-12);
    assert_eq!(s.worst, ["a", "b", "c"]);
    let text = report::render(&rows, &s);
    assert!(
        text.contains("  2 workers: 1 break the target (fj@2 > 1.10x rayon)"),
        "{text}"
    );
}

#[test]
fn a_flag_stands_only_if_the_second_timing_repeats_it() {
    // a breaks at 2 workers (1.2x rayon), timed again: 1.0x (not repeated).
    // b breaks at 1 worker (1.10x std, rayon 1.0x), timed again: 1.08x (repeated).
    let mut a = Row::new(&measured("a", 1.0, [1.1, 0.6], [1.2, 0.5]));
    a.again = Some(Box::new(Row::new(&measured(
        "a",
        1.0,
        [1.1, 0.5],
        [1.2, 0.5],
    ))));
    let mut b = Row::new(&measured("b", 1.0, [1.1, 0.4], [1.0, 0.5]));
    b.again = Some(Box::new(Row::new(&measured(
        "b",
        1.0,
        [1.08, 0.4],
        [1.0, 0.5],
    ))));
    assert_eq!(
        (a.confirmed_p(2), a.flag()),
        (false, "(2w: again 1.000)".to_string())
    );
    assert_eq!(
        (b.confirmed_1(), b.flag()),
        (true, "1w (again 1.080, rayon 1.000)".to_string())
    );
    let rows = vec![a, b];
    let s = report::summarise(&rows, Some(21));
    assert_eq!((s.breaking_1, s.confirmed_1), (1, 1));
    assert_eq!(s.breaking_p, BTreeMap::from([(2, 1)]));
    assert_eq!(s.confirmed_p, BTreeMap::from([(2, 0)]));
    // The geometric mean is of the first timings: 1.2 and 0.8.
    assert!((s.geomean_fj_over_rayon[&2] - (1.2f64 * 0.8).sqrt()).abs() < 1e-12);
    let text = report::render(&rows, &s);
    assert!(
        text.contains(
            "  2 workers: 1 break the target (fj@2 > 1.10x rayon), 0 again when timed again (21 rounds)"
        ),
        "{text}"
    );
}

/// A window's dump as callgrind writes it with strings uncompressed (abridged from a real
/// one: two call sites of the chunk boundary, other functions around them).
const DUMP: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
part: 3
desc: Trigger: --dump-after=loops_gen::instruction_window

positions: line
events: Ir
summary: 1296055

fn=forkjoin::iter::splitter::run_folder
cfn=forkjoin::iter::splitter::Pace::timed
calls=120 0
0 4800
cfn=core::iter::traits::iterator::Iterator::fold
calls=121 0
0 1200000
fn=forkjoin::iter::splitter::split_folder
cfn=forkjoin::iter::splitter::Pace::timed
calls=7 0
0 280
";

#[test]
fn a_dump_gives_its_instructions_and_chunk_boundaries() {
    assert_eq!(
        instructions::parse_dump(DUMP),
        Ok(Dump {
            instructions: 1_296_055,
            boundaries: 127
        })
    );
    assert!(instructions::parse_dump("events: Ir\n").is_err());
    assert!(instructions::parse_dump("summary: many\n").is_err());
}

fn counted(line: &str, std: u64, fj1: u64, fj2: (u64, u64), ry1: u64) -> Counted {
    let dump = |instructions, boundaries| Dump {
        instructions,
        boundaries,
    };
    let windows = ["std", "fj1", "fj2", "ry1"].map(String::from);
    let printed = Printed {
        line: line.into(),
        n: 1000,
        windows: windows.to_vec(),
        error: None,
    };
    let dumps = [dump(std, 0), dump(fj1, 0), dump(fj2.0, fj2.1), dump(ry1, 0)];
    Counted::new(printed, &windows.into_iter().zip(dumps).collect::<Vec<_>>())
}

#[test]
fn the_instruction_rule_flags_and_sorts() {
    // Within 1.05x of std; over it but rayon further; over both; far over both.
    let mut rows = vec![
        counted("a", 10_000, 10_400, (11_000, 10), 12_000),
        counted("b", 10_000, 14_000, (15_000, 50), 20_000),
        counted("c", 10_000, 11_000, (11_000, 0), 10_500),
        counted("d", 10_000, 13_000, (13_500, 25), 10_000),
    ];
    let flags: Vec<(bool, bool)> = rows.iter().map(|r| (r.breaks, r.gross)).collect();
    assert_eq!(
        flags,
        [(false, false), (false, false), (true, false), (true, true)]
    );
    assert_eq!(rows[0].std_per_item, Some(10.0));
    assert_eq!(rows[0].fj2_per_chunk, Some(60.0));
    assert_eq!(rows[2].fj2_per_chunk, None);
    assert_eq!(rows[3].fj2_per_chunk, Some(20.0));
    instructions::worst_first(&mut rows);
    let order: Vec<&str> = rows.iter().map(|r| r.line.as_str()).collect();
    assert_eq!(order, ["d", "c", "a", "b"]);
    let summary = instructions::summarise(&rows);
    assert_eq!(
        (summary.programs, summary.breaking, summary.gross),
        (4, 2, 1)
    );
    let text = instructions::render(&rows, &summary);
    assert!(text.contains("<< far from std"), "{text}");
    assert!(text.contains("4 programs: 2 over the rule"), "{text}");
}
