//! `fj loops`: loop programs generated from a grammar, each timed on std's iterators (one
//! thread), forkjoin and rayon 1.12 as users build them. A list of cells, however long,
//! is tuned to; the next user's loop is not in it. So a seed draws hundreds of programs
//! (sources x up to three adaptors x consumers x closure kinds x nesting), they are
//! compiled into one crate, timed, and reported worst first; a new seed finds what the last
//! did not, and a program it flags is kept as a fixed case in `kept.txt`.
//!
//! The files:
//! - `grammar`: the program descriptor ([`grammar::Program`]), the item types that keep a
//!   chain type-correct, the seeded generator (splitmix64), and the one-line text form
//!   (`slice-u64 | map:arith filter:branch | sum | flat | n=200000`), printed and parsed;
//! - `emit`: each program as a Rust function, written once and included three times (std,
//!   forkjoin, rayon preludes);
//! - `crate_dir`: writing the crate under `target/loops/gen/`, building it (`cargo build
//!   --release`, empty `RUSTFLAGS`, target directory `target/loops/target/`) and running
//!   it;
//! - `template/`: the generated crate's fixed files: the harness that times the programs
//!   (`main.rs`: interleaved rounds of std, forkjoin and rayon at each worker count, each
//!   round in a shuffled order and each sample started once the previous entrant's threads
//!   are off the CPUs, a sample repeating the program for about 2 ms, the mean of the K
//!   fastest), the closure
//!   kinds, accumulators and input (`common.rs`), and std's iterators under rayon's names
//!   (`matrix/seq.rs`, the sequential prelude `fj matrix` uses too);
//! - `report`: the table, the summary against the targets, the JSON;
//! - `instructions`: `--instructions`, the leaf loop's instructions against std's, counted
//!   by callgrind (the check that does not depend on the machine's speed);
//! - `kept.txt`: the fixed cases (`fj loops --kept`), one line each;
//! - `test`: the generator's and the parser's tests.

pub(crate) mod crate_dir;
pub(crate) mod emit;
pub(crate) mod grammar;
pub(crate) mod instructions;
pub(crate) mod report;

/// The fixed cases, one program line each (`#` starts a comment).
pub(crate) const KEPT_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/loops/kept.txt");

/// The programs of a kept file's text `text`, or the first bad line's number and problem.
pub(crate) fn parse_kept(text: &str) -> Result<Vec<grammar::Program>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| l.parse().map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

#[cfg(test)]
mod test;
