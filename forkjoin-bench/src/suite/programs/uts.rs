//! UTS, the Unbalanced Tree Search benchmark (Olivier et al., LCPC 2006): count the nodes
//! of an implicit random tree whose shape is unknown until it is explored.
//!
//! Every node carries a 20-byte state from the reference implementation's SHA-1 splittable
//! random number generator (`rng/brg_sha1.c`): the root's state is the SHA-1 digest of 16
//! zero bytes followed by the seed (`-r`) as 4 big-endian bytes; child `i`'s state is the
//! digest of its parent's 20 bytes followed by `i` as 4 big-endian bytes; a node's random
//! number is its state's last 4 bytes, big-endian, masked to 31 bits, and its uniform
//! value that number / 2^31. The number of children follows `uts.c`:
//!
//! * BIN (`-t 0`, binomial): the root has `floor(b0)` children, any other node `m`
//!   children with probability `q`, else none;
//! * GEO (`-t 1`, geometric): a geometric number of children with mean `b_i`, where `b_i`
//!   depends on the depth through the shape function `-a` (0 linear decrease to 0 at depth
//!   `d`, 1 exponential decrease, 2 cyclic, 3 fixed `b0` down to depth `d`);
//! * HYBRID (`-t 2`): GEO above depth `f * d`, BIN below;
//! * BALANCED (`-t 3`): `b0` children at every depth below `d`.
//!
//! A node has at most 100 children, except a BIN root. `-g` repeats each child's SHA-1
//! computation to make nodes heavier, as in the reference.
//!
//! The parallel search forks the children of every node by binary splitting of the child
//! range with `join`, so a run forks `leaves - 1` tasks. The recursion is as deep as the
//! tree plus the splitting levels (3 per level of T3's 8-child nodes), and a worker waiting
//! for a stolen task runs other work on top of its stack: T3's 1,572 levels took about
//! 0.8 MiB of stack sequentially, 1.6 MiB on a chili worker, about 2 MiB on forkjoin
//! workers and 2.5-3 MiB on rayon workers (measured with two workers), more than rayon's
//! default 2 MiB worker stack, so rayon pools running `uts-t3` need a larger `stack_size`
//! (forkjoin's workers get 16 MiB). A deeper tree such as T3L (17,844 levels) needs tens
//! of MiB.
//!
//! Programs: `uts-t1` searches T1 (`-t 1 -a 3 -d 10 -b 4 -r 19`: 4,130,071 nodes, geometric
//! with fixed branching factor, shallow and bushy) and `uts-t3` searches T3 (`-t 0 -b 2000
//! -q 0.124875 -m 8 -r 42`: 4,112,897 nodes, binomial, deep and narrow) at the `Default` and
//! `Paper` sizes (about 0.37 s and 0.28 s sequentially on the development machine); the
//! `Test` size uses small trees of the same types. Every run's node and leaf counts and
//! depth are checked against the published values.

use std::fmt;

use sha1::{Digest, Sha1};

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, Fj, Join, Rayon, Seq};

/// The reference's cap on the number of children (`MAXNUMCHILDREN`).
const MAX_CHILDREN: i32 = 100;

/// The shape of the tree (`-t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TreeType {
    Binomial = 0,
    Geometric = 1,
    Hybrid = 2,
    Balanced = 3,
}

/// How a geometric tree's expected branching factor changes with depth (`-a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Linear = 0,
    ExpDec = 1,
    Cyclic = 2,
    Fixed = 3,
}

/// The parameters of a UTS tree, named after the reference's options.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UtsParams {
    /// `-t`: tree type.
    pub tree: TreeType,
    /// `-b`: root branching factor (BIN), expected branching factor (GEO), or branching
    /// factor (BALANCED).
    pub b0: f64,
    /// `-r`: seed of the root's state.
    pub seed: i32,
    /// `-q`: probability that a BIN node has children.
    pub q: f64,
    /// `-m`: number of children of a BIN node that has any.
    pub m: i32,
    /// `-d`: the depth parameter of GEO shapes, HYBRID and BALANCED trees.
    pub d: i32,
    /// `-a`: the GEO shape function.
    pub shape: Shape,
    /// `-f`: the fraction of `d` where a HYBRID tree turns from GEO to BIN.
    pub f: f64,
    /// `-g`: SHA-1 computations per child (compute granularity).
    pub g: u32,
}

impl Default for UtsParams {
    /// The reference's defaults.
    fn default() -> UtsParams {
        UtsParams {
            tree: TreeType::Geometric,
            b0: 4.0,
            seed: 0,
            q: 15.0 / 64.0,
            m: 4,
            d: 6,
            shape: Shape::Linear,
            f: 0.5,
            g: 1,
        }
    }
}

impl fmt::Display for UtsParams {
    /// The options that select this tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "-t {} -b {} -r {} -q {} -m {} -d {} -a {} -f {} -g {}",
            self.tree as i32,
            self.b0,
            self.seed,
            self.q,
            self.m,
            self.d,
            self.shape as i32,
            self.f,
            self.g
        )
    }
}

/// What a search counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UtsResult {
    pub nodes: u64,
    pub leaves: u64,
    /// The depth of the deepest node (the root has depth 0).
    pub max_depth: u32,
}

const USAGE: &str = "UTS options: -t type (0 BIN, 1 GEO, 2 HYBRID, 3 BALANCED), -b b0, -r seed, \
                     -q BIN probability, -m BIN children, -d GEO/BALANCED depth, \
                     -a GEO shape (0 LINEAR, 1 EXPDEC, 2 CYCLIC, 3 FIXED), -f HYBRID switch fraction, \
                     -g SHA-1 computations per child";

/// Parses the standard UTS options (`-t 1 -a 3 -d 10 -b 4 -r 19`, each option followed by
/// its value); options not given keep the reference's defaults.
pub(crate) fn parse_uts_args(args: &[String]) -> Result<UtsParams, String> {
    fn number<T: std::str::FromStr>(opt: &str, value: &str) -> Result<T, String> {
        value
            .parse()
            .map_err(|_| format!("option {opt}: {value:?} is not a valid value"))
    }
    let mut p = UtsParams::default();
    let mut args = args.iter();
    while let Some(opt) = args.next() {
        if !matches!(
            opt.as_str(),
            "-t" | "-b" | "-r" | "-q" | "-m" | "-d" | "-a" | "-f" | "-g"
        ) {
            return Err(format!("unknown option {opt:?}; {USAGE}"));
        }
        let value = args
            .next()
            .ok_or_else(|| format!("option {opt} needs a value; {USAGE}"))?;
        match opt.as_str() {
            "-t" => {
                p.tree = match number::<i32>(opt, value)? {
                    0 => TreeType::Binomial,
                    1 => TreeType::Geometric,
                    2 => TreeType::Hybrid,
                    3 => TreeType::Balanced,
                    _ => return Err(format!("option -t: tree type {value} is not 0, 1, 2 or 3")),
                }
            }
            "-a" => {
                p.shape = match number::<i32>(opt, value)? {
                    0 => Shape::Linear,
                    1 => Shape::ExpDec,
                    2 => Shape::Cyclic,
                    3 => Shape::Fixed,
                    _ => return Err(format!("option -a: shape {value} is not 0, 1, 2 or 3")),
                }
            }
            "-b" => p.b0 = number(opt, value)?,
            "-r" => p.seed = number(opt, value)?,
            "-q" => p.q = number(opt, value)?,
            "-m" => p.m = number(opt, value)?,
            "-d" => p.d = number(opt, value)?,
            "-f" => p.f = number(opt, value)?,
            "-g" => p.g = number(opt, value)?,
            _ => unreachable!("options are checked above"),
        }
    }
    if !(p.b0.is_finite() && p.b0 >= 0.0) {
        return Err(format!(
            "option -b: b0 must be a non-negative number, got {}",
            p.b0
        ));
    }
    if !(0.0..=1.0).contains(&p.q) {
        return Err(format!(
            "option -q: a probability must be between 0 and 1, got {}",
            p.q
        ));
    }
    if p.m < 0 || p.d < 0 {
        return Err(format!(
            "options -m and -d must not be negative, got -m {} -d {}",
            p.m, p.d
        ));
    }
    if !p.f.is_finite() {
        return Err(format!("option -f: must be a number, got {}", p.f));
    }
    if p.g == 0 {
        return Err("option -g: at least 1 SHA-1 computation per child".to_string());
    }
    Ok(p)
}

type State = [u8; 20];

/// `rng_init`: the root's state.
fn root_state(seed: i32) -> State {
    let mut bytes = [0; 20];
    bytes[16..].copy_from_slice(&seed.to_be_bytes());
    Sha1::digest(bytes).into()
}

/// `rng_spawn`: the state of child `i`.
fn child_state(parent: &State, i: i32) -> State {
    let mut h = Sha1::new();
    h.update(parent);
    h.update(i.to_be_bytes());
    h.finalize().into()
}

/// `rng_rand` then `rng_toProb`: the node's uniform value in [0, 1).
fn uniform(state: &State) -> f64 {
    let r = u32::from_be_bytes([state[16], state[17], state[18], state[19]]) & 0x7fff_ffff;
    f64::from(r) / 2147483648.0
}

/// `uts_numChildren_bin`.
fn bin_children(p: &UtsParams, state: &State) -> i32 {
    if uniform(state) < p.q {
        p.m
    } else {
        0
    }
}

/// `uts_numChildren_geo`: a geometric number of children whose mean depends on the depth.
fn geo_children(p: &UtsParams, state: &State, depth: i32) -> i32 {
    let (b0, depth_f, d) = (p.b0, f64::from(depth), f64::from(p.d));
    let b_i = if depth == 0 {
        b0
    } else {
        match p.shape {
            Shape::ExpDec => b0 * depth_f.powf(-b0.ln() / d.ln()),
            Shape::Cyclic if depth > 5 * p.d => 0.0,
            // The reference's literal 3.141592653589793 is exactly `PI`.
            Shape::Cyclic => b0.powf((2.0 * std::f64::consts::PI * depth_f / d).sin()),
            Shape::Fixed if depth < p.d => b0,
            Shape::Fixed => 0.0,
            Shape::Linear => b0 * (1.0 - depth_f / d),
        }
    };
    // The geometric distribution with mean b_i has success probability p = 1 / (1 + b_i);
    // invert its cumulative distribution at the node's uniform value. (A NaN or negative
    // result means no children, as in the reference.)
    let success = 1.0 / (1.0 + b_i);
    ((1.0 - uniform(state)).ln() / (1.0 - success).ln()).floor() as i32
}

/// `uts_numChildren`: how many children the node at `depth` with `state` has.
fn num_children(p: &UtsParams, state: &State, depth: i32) -> i32 {
    let n = match p.tree {
        TreeType::Binomial if depth == 0 => p.b0.floor() as i32,
        TreeType::Binomial => bin_children(p, state),
        TreeType::Geometric => geo_children(p, state, depth),
        TreeType::Hybrid if f64::from(depth) < p.f * f64::from(p.d) => {
            geo_children(p, state, depth)
        }
        TreeType::Hybrid => bin_children(p, state),
        TreeType::Balanced if depth < p.d => p.b0 as i32,
        TreeType::Balanced => 0,
    };
    let cap = match p.tree {
        TreeType::Binomial if depth == 0 => p.b0.ceil() as i32,
        TreeType::Balanced => i32::MAX,
        _ => MAX_CHILDREN,
    };
    n.clamp(0, cap)
}

/// Counts the subtree of the node at `depth` with `state`.
fn visit<J: Join>(j: &mut J, p: &UtsParams, state: &State, depth: i32) -> UtsResult {
    let n = num_children(p, state, depth);
    if n == 0 {
        return UtsResult {
            nodes: 1,
            leaves: 1,
            max_depth: depth as u32,
        };
    }
    let below = children(j, p, state, depth, 0, n);
    UtsResult {
        nodes: below.nodes + 1,
        ..below
    }
}

/// Counts the subtrees of children `lo..hi` (non-empty) of the node at `depth`.
fn children<J: Join>(
    j: &mut J,
    p: &UtsParams,
    parent: &State,
    depth: i32,
    lo: i32,
    hi: i32,
) -> UtsResult {
    if hi - lo == 1 {
        return visit(j, p, &spawn_child(p, parent, lo), depth + 1);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = j.join(
        move |j| children(j, p, parent, depth, lo, mid),
        move |j| children(j, p, parent, depth, mid, hi),
    );
    UtsResult {
        nodes: a.nodes + b.nodes,
        leaves: a.leaves + b.leaves,
        max_depth: a.max_depth.max(b.max_depth),
    }
}

/// Child `i`'s state, computed `-g` times. Not inlined, so that the SHA-1 context stays out
/// of the frames of the recursion, which is as deep as the tree.
#[inline(never)]
fn spawn_child(p: &UtsParams, parent: &State, i: i32) -> State {
    let mut child = child_state(parent, i);
    for _ in 1..p.g {
        // The same digest again: extra work per node, which `black_box` keeps.
        child = child_state(std::hint::black_box(parent), i);
    }
    child
}

/// Searches the tree `params` describes with `ctx`'s runtime: for forkjoin and rayon, call
/// it inside the pool's `install` (elsewhere each runtime uses its global pool), on threads
/// whose stacks can hold the tree's depth (see the module documentation).
pub(crate) fn search(params: &UtsParams, ctx: &mut Ctx<'_, '_>) -> UtsResult {
    let root = root_state(params.seed);
    match ctx {
        Ctx::Sequential => visit(&mut Seq, params, &root, 0),
        Ctx::Forkjoin => visit(&mut Fj, params, &root, 0),
        Ctx::Rayon => visit(&mut Rayon, params, &root, 0),
        Ctx::Chili(s) => visit(&mut Chili(s), params, &root, 0),
        Ctx::Split(r) => visit(&mut r.join(), params, &root, 0),
    }
}

fn args(line: &str) -> UtsParams {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    parse_uts_args(&args).expect("a built-in tree")
}

/// A tree and its known counts.
struct Tree {
    options: &'static str,
    expected: UtsResult,
}

/// T1 (counts from the reference's `sample_trees.sh`) and its `Test` stand-in, T1 cut at
/// depth 7 (counted by the sequential search, cross-checked by the parallel ones).
const T1: Tree = Tree {
    options: "-t 1 -a 3 -d 10 -b 4 -r 19",
    expected: UtsResult {
        nodes: 4_130_071,
        leaves: 3_305_118,
        max_depth: 10,
    },
};
const T1_TEST: Tree = Tree {
    options: "-t 1 -a 3 -d 7 -b 4 -r 19",
    expected: UtsResult {
        nodes: 63_914,
        leaves: 51_124,
        max_depth: 7,
    },
};
/// T3 and its `Test` stand-in, T3 with 100 root children instead of 2000.
const T3: Tree = Tree {
    options: "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
    expected: UtsResult {
        nodes: 4_112_897,
        leaves: 3_599_034,
        max_depth: 1572,
    },
};
const T3_TEST: Tree = Tree {
    options: "-t 0 -b 100 -q 0.124875 -m 8 -r 42",
    expected: UtsResult {
        nodes: 6_797,
        leaves: 5_959,
        max_depth: 67,
    },
};

struct Uts {
    params: UtsParams,
    expected: UtsResult,
    found: Option<UtsResult>,
}

impl Uts {
    fn new(tree: &Tree) -> Uts {
        Uts {
            params: args(tree.options),
            expected: tree.expected,
            found: None,
        }
    }
}

pub(crate) fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "uts-t1",
            about: "UTS tree T1: geometric, fixed branching factor 4, depth 10 (4,130,071 nodes)",
            make: |size| Box::new(Uts::new(if size == Size::Test { &T1_TEST } else { &T1 })),
        },
        Program {
            name: "uts-t3",
            about:
                "UTS tree T3: binomial, 2000 root children, q = 0.124875, m = 8 (4,112,897 nodes)",
            make: |size| Box::new(Uts::new(if size == Size::Test { &T3_TEST } else { &T3 })),
        },
    ]
}

impl Workload for Uts {
    fn reset(&mut self) {
        self.found = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        self.found = Some(search(&self.params, ctx));
    }

    fn verify(&self) -> Result<(), String> {
        match self.found {
            None => Err("no run to verify".to_string()),
            Some(found) if found == self.expected => Ok(()),
            Some(found) => Err(format!(
                "UTS {}: expected {:?}, found {found:?}",
                self.params, self.expected
            )),
        }
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(self.expected.leaves - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;

    fn parse(line: &str) -> Result<UtsParams, String> {
        parse_uts_args(
            &line
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn test_size_every_runtime() {
        for program in programs() {
            check_all_runtimes(&mut *(program.make)(Size::Test));
        }
    }

    /// The five small trees of the reference's `sample_trees.sh`, which between them use
    /// every tree type but BALANCED and every shape but EXPDEC.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "4 million nodes each: run with --release")]
    fn published_trees() {
        let t2 = Tree {
            options: "-t 1 -a 2 -d 16 -b 6 -r 502",
            expected: UtsResult {
                nodes: 4_117_769,
                leaves: 2_342_762,
                max_depth: 81,
            },
        };
        let t4 = Tree {
            options: "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4",
            expected: UtsResult {
                nodes: 4_132_453,
                leaves: 3_108_986,
                max_depth: 134,
            },
        };
        let t5 = Tree {
            options: "-t 1 -a 0 -d 20 -b 4 -r 34",
            expected: UtsResult {
                nodes: 4_147_582,
                leaves: 2_181_318,
                max_depth: 20,
            },
        };
        for tree in [&T1, &t2, &T3, &t4, &t5] {
            assert_eq!(
                search(&args(tree.options), &mut Ctx::Sequential),
                tree.expected,
                "{}",
                tree.options
            );
        }
        // forkjoin's workers have 16 MiB stacks, enough for T3's 1572 levels.
        let pool = forkjoin::Pool::new(2).unwrap();
        for tree in [&T1, &T3] {
            let found = pool.install(|| search(&args(tree.options), &mut Ctx::Forkjoin));
            assert_eq!(found, tree.expected, "forkjoin {}", tree.options);
        }
    }

    #[test]
    fn balanced_and_expdec() {
        // A balanced tree has (b^(d+1) - 1) / (b - 1) nodes, b^d of them leaves.
        let balanced = search(&parse("-t 3 -b 3 -d 6").unwrap(), &mut Ctx::Sequential);
        assert_eq!(
            balanced,
            UtsResult {
                nodes: 1093,
                leaves: 729,
                max_depth: 6
            }
        );
        // EXPDEC: the same tree whatever the runtime.
        let p = parse("-t 1 -a 1 -d 5 -b 4 -r 7").unwrap();
        let seq = search(&p, &mut Ctx::Sequential);
        let fj = forkjoin::Pool::new(2)
            .unwrap()
            .install(|| search(&p, &mut Ctx::Forkjoin));
        assert_eq!(seq, fj);
        assert!(seq.nodes > 1);
    }

    #[test]
    fn granularity_changes_work_not_tree() {
        let p = parse("-t 1 -a 3 -d 5 -b 4 -r 19 -g 3").unwrap();
        let q = parse("-t 1 -a 3 -d 5 -b 4 -r 19").unwrap();
        assert_eq!(
            search(&p, &mut Ctx::Sequential),
            search(&q, &mut Ctx::Sequential)
        );
    }

    #[test]
    fn wrong_answer_fails() {
        let mut w = Uts::new(&T1_TEST);
        assert!(w.verify().is_err(), "verify before any run");
        w.found = Some(UtsResult {
            nodes: T1_TEST.expected.nodes - 1,
            ..T1_TEST.expected
        });
        let err = w.verify().unwrap_err();
        assert!(err.contains("63914") && err.contains("63913"), "{err}");
        assert_eq!(w.tasks_per_run(), Some(51_123));
    }

    #[test]
    fn parse_accepts_the_reference_options() {
        let p = parse("-t 0 -b 2000 -q 0.124875 -m 8 -r 42").unwrap();
        let expected = UtsParams {
            tree: TreeType::Binomial,
            b0: 2000.0,
            q: 0.124875,
            m: 8,
            seed: 42,
            ..UtsParams::default()
        };
        assert_eq!(p, expected);
        assert_eq!(parse("").unwrap(), UtsParams::default());
        let all = parse("-t 2 -a 1 -d 16 -b 6 -r -5 -q 0.25 -m 4 -f 0.75 -g 2").unwrap();
        assert_eq!(
            parse(&all.to_string()).unwrap(),
            all,
            "Display writes options parse reads"
        );
    }

    #[test]
    fn parse_errors() {
        let cases = [
            ("-x 3", "unknown option \"-x\""),
            ("-t", "option -t needs a value"),
            ("-b 4 -d", "option -d needs a value"),
            ("-b four", "option -b: \"four\" is not a valid value"),
            ("-r 1.5", "option -r: \"1.5\" is not a valid value"),
            ("-t 4", "tree type 4 is not 0, 1, 2 or 3"),
            ("-a -1", "shape -1 is not 0, 1, 2 or 3"),
            ("-q 1.5", "between 0 and 1"),
            ("-b -2", "non-negative"),
            ("-b inf", "non-negative"),
            ("-d -1", "must not be negative"),
            ("-g 0", "at least 1"),
            ("-g -1", "option -g: \"-1\" is not a valid value"),
            ("t 1", "unknown option \"t\""),
        ];
        for (line, expected) in cases {
            let err = parse(line).unwrap_err();
            assert!(
                err.contains(expected),
                "{line:?}: {err:?} lacks {expected:?}"
            );
        }
    }
}
