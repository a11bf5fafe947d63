//! `fj experiments`: the claims of the source documents, measured on this machine.
//!
//! Each experiment times two (or more) variants of one computation in the same run,
//! interleaved round by round, so that whatever else the machine is doing meanwhile falls on
//! every variant alike: the suite's measuring method (`suite::measure`) in a fixed number of
//! rounds. Each variant's figure is its K-best ("Multithreaded multicore optimisation"): the
//! mean of its K fastest runs out of all the rounds. The result is a ratio, oriented so that a
//! ratio above 1 goes the way the claim says, and the claim counts as held when the ratio
//! reaches the threshold its text states.
//!
//! | name             | source    | variants                                                |
//! |------------------|-----------|---------------------------------------------------------|
//! | `false-sharing`  | Multicore | two counters on one cache line vs on separate lines     |
//! | `lock`           | Multicore | one shared counter under a `Mutex` vs a counter each    |
//! | `pinning`        | Multicore | a forkjoin pool with pinned workers vs unpinned         |
//! | `lazyset`        | lazySet   | SPSC ring buffer: SeqCst vs release cursor stores, each |
//! |                  |           | with adjacent vs padded cursors (two outcomes)          |
//! | `sort-width`     | FJTask    | cilksort's speedup for u8, u16, u32 and u64 keys        |
//! | `jacobi-barrier` | FJTask    | jacobi with a barrier per step vs per 10 steps          |
//!
//! (FJTask: Lea's "A Java Fork/Join Framework"; Multicore: "Multithreaded multicore
//! optimisation"; lazySet: "lazySet: hidden pages of the JMM".)
//!
//! No experiment asserts anything about time; a wrong answer (a ring buffer that loses or
//! reorders an item, a sort that does not sort) is an error.
//!
//! Each experiment is a module named as in the table (`false_sharing`, ...); `timing`
//! (timing a run on two threads or in a pool, with the cores it had), `cells` (the
//! adjacent and padded layouts) and `speedups` (the suite's programs as variants) are what
//! they share.

mod cells;
mod false_sharing;
mod jacobi_barrier;
mod lazyset;
mod lock;
mod pinning;
mod sort_width;
mod speedups;
mod timing;

use crate::suite::kbest::{KBest, Method, Sample};
use crate::suite::measure::{interleave, Closing, Order};
use crate::suite::programs::Size;

/// What one experiment found.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    /// The experiment's name, as `names` lists it.
    pub name: &'static str,
    /// The claim of the source document, with the threshold that decides `held`.
    pub claim: &'static str,
    /// The source document, by a short name: "FJTask" (Lea's "A Java Fork/Join Framework"),
    /// "Multicore" ("Multithreaded multicore optimisation") or "lazySet" ("lazySet: hidden
    /// pages of the JMM").
    pub source: &'static str,
    /// The figures measured here: each variant's time or throughput, the ratio, and how
    /// they were measured.
    pub measured: String,
    /// The ratio the claim is judged on; above 1 goes the claim's way.
    pub ratio: f64,
    /// Whether the ratio reached the claim's threshold on this machine, in this run.
    pub held: bool,
}

/// Every experiment, in the order `run` runs them when none is selected.
pub(crate) fn names() -> &'static [&'static str] {
    &[
        "false-sharing",
        "lock",
        "pinning",
        "lazyset",
        "sort-width",
        "jacobi-barrier",
    ]
}

/// Runs the selected experiments (all of them if `selected` is empty), in the order given.
/// `quick` makes every experiment small (a few seconds in all) for tests and smoke runs;
/// its ratios are indicative only. An unknown name is an error before anything runs; so is
/// a wrong answer from any variant.
pub(crate) fn run(selected: &[String], quick: bool) -> Result<Vec<Outcome>, String> {
    for s in selected {
        if !names().contains(&s.as_str()) {
            return Err(format!(
                "unknown experiment '{s}' (known: {})",
                names().join(", ")
            ));
        }
    }
    let chosen: Vec<&str> = if selected.is_empty() {
        names().to_vec()
    } else {
        selected.iter().map(String::as_str).collect()
    };
    let plan = if quick { Plan::QUICK } else { Plan::DEFAULT };
    let mut outcomes = Vec::new();
    for name in chosen {
        let (mut found, rounds) = match name {
            "false-sharing" => (vec![false_sharing::run(&plan)?], plan.rounds),
            "lock" => (vec![lock::run(&plan)?], plan.rounds),
            "pinning" => (vec![pinning::run(&plan)?], plan.rounds),
            "lazyset" => (lazyset::run(&plan)?, plan.rounds),
            "sort-width" => (vec![sort_width::run(&plan)?], plan.program_rounds),
            "jacobi-barrier" => (vec![jacobi_barrier::run(&plan)?], plan.program_rounds),
            _ => unreachable!("names were checked above"),
        };
        for o in &mut found {
            o.measured.push_str(&format!(
                " [each figure: mean of the {} fastest of {rounds} interleaved runs]",
                plan.k
            ));
        }
        outcomes.extend(found);
    }
    Ok(outcomes)
}

/// Prints the outcomes as a table: one block per outcome, the claim on the first line and
/// what was measured under it.
pub(crate) fn print(outcomes: &[Outcome]) {
    // The claim and the measurement are sentences: wrapped into the last column.
    const TEXT: usize = 80;
    let indent = " ".repeat(40);
    println!(
        "{:<15} {:<9} {:<4} {:>7}  the claim, and what was measured here",
        "experiment", "source", "held", "ratio"
    );
    for o in outcomes {
        let mut lines = wrap(&format!("claim: {}", o.claim), TEXT);
        lines.extend(wrap(&format!("measured: {}", o.measured), TEXT));
        let held = if o.held { "yes" } else { "no" };
        println!(
            "{:<15} {:<9} {:<4} {:>6.2}x  {}",
            o.name, o.source, held, o.ratio, lines[0]
        );
        for line in &lines[1..] {
            println!("{indent}{line}");
        }
    }
    let held = outcomes.iter().filter(|o| o.held).count();
    println!(
        "{held} of {} claims held on this machine, in this run.",
        outcomes.len()
    );
}

/// Splits `text` into lines of at most `width` characters at spaces (a longer word gets a
/// line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

// ---------------------------------------------------------------------------------------
// Measuring

/// How much each experiment measures: `QUICK` for tests, `DEFAULT` for `fj experiments`.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Timed rounds; each round runs every variant once.
    rounds: usize,
    /// How many of each variant's fastest runs are averaged.
    k: usize,
    /// Untimed rounds first (page faults, caches, thread wake-up, jacobi's reference).
    warmup: usize,
    /// Increments per thread in `false-sharing`.
    counter_increments: u64,
    /// Increments per thread in `lock`.
    lock_increments: u64,
    /// `n` of the fib that `pinning` runs.
    fib_n: u32,
    /// Items the ring buffer passes in `lazyset`.
    ring_items: u64,
    /// Size of the suite's sort and jacobi programs.
    size: Size,
    /// Timed rounds for those programs, whose runs are long (a third of a second each at
    /// the default size): fewer keep `fj experiments` within a minute.
    program_rounds: usize,
}

impl Plan {
    const QUICK: Plan = Plan {
        rounds: 3,
        k: 2,
        warmup: 1,
        counter_increments: 500_000,
        lock_increments: 200_000,
        fib_n: 25,
        ring_items: 200_000,
        size: Size::Test,
        program_rounds: 3,
    };
    const DEFAULT: Plan = Plan {
        rounds: 9,
        k: 3,
        warmup: 1,
        counter_increments: 10_000_000,
        lock_increments: 1_000_000,
        fib_n: 36,
        ring_items: 500_000,
        size: Size::Default,
        program_rounds: 5,
    };
}

/// A variant's K-best figure: the mean over its K fastest runs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Best {
    secs: f64,
    /// The slowest run's seconds: with the mean, it shows runs that fall into distinct
    /// modes (004: false sharing between cursors does that).
    slowest: f64,
    /// The mean parallelism of those runs, if every one of them reported it.
    parallelism: Option<f64>,
}

impl Best {
    /// The figure of a variant's finished K-best record.
    fn of(kbest: &KBest) -> Best {
        Best {
            secs: kbest.summary().expect("every round was recorded").mean,
            slowest: kbest.slowest().expect("every round was recorded"),
            parallelism: kbest.parallelism(),
        }
    }
}

/// One variant of an experiment: runs once and returns its sample (untimed setup and
/// checks inside it are fine), or an error if its answer was wrong.
type Variant<'a> = Box<dyn FnMut() -> Result<Sample, String> + 'a>;

/// Runs every variant once per round, `plan.warmup` untimed rounds first, and returns each
/// variant's K-best figure (the mean of its `plan.k` fastest rounds), in the variants'
/// order: the suite's interleaved K-best method (`measure::interleave`) with a fixed number
/// of rounds. Each round starts at the next variant, so no variant always runs first, or
/// always after the same one. A variant's wrong answer ends it, and is the experiment's
/// error.
fn interleaved(plan: &Plan, variants: &mut [Variant<'_>]) -> Result<Vec<Best>, String> {
    let method = Method::fixed_runs(plan.k, plan.rounds, plan.warmup);
    interleave(
        variants.len(),
        &method,
        Order::Rotating,
        Closing::EachOnItsOwn,
        |turn| variants[turn.entrant](),
        |_| {},
    )
    .into_iter()
    .map(|record| record.map(|kbest| Best::of(&kbest)))
    .collect()
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

/// The cores this process may use: the worker count of the "all cores" measurements.
fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_name_is_an_error_naming_the_known_ones() {
        let err = run(&["nope".to_string()], true).unwrap_err();
        assert!(err.contains("unknown experiment 'nope'"), "{err}");
        for name in names() {
            assert!(err.contains(name), "{err} does not name {name}");
        }
        // Checked before anything runs, even after a valid name.
        assert!(run(&["lock".to_string(), "nope".to_string()], true).is_err());
    }

    #[test]
    fn wrap_splits_at_spaces_within_the_width() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh ij", 4), ["abcdefgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }

    #[test]
    fn interleaving_rotates_the_first_variant() {
        let order = std::cell::RefCell::new(Vec::new());
        let plan = Plan {
            rounds: 2,
            warmup: 1,
            ..Plan::QUICK
        };
        let t = interleaved(
            &plan,
            &mut [
                Box::new(|| {
                    order.borrow_mut().push('a');
                    Ok(1.0.into())
                }),
                Box::new(|| {
                    order.borrow_mut().push('b');
                    Ok(2.0.into())
                }),
            ],
        )
        .unwrap();
        assert_eq!(order.into_inner(), ['a', 'b', 'b', 'a', 'a', 'b']);
        assert_eq!(t.iter().map(|b| b.secs).collect::<Vec<_>>(), [1.0, 2.0]);
    }

    /// Every experiment's quick mode completes with finite positive ratios (no timing
    /// assertions: this machine is shared). One test, so they do not run concurrently and
    /// disturb each other more than necessary.
    #[test]
    fn quick_mode_of_every_experiment_completes() {
        let outcomes = run(&[], true).unwrap();
        // lazyset gives two outcomes.
        assert_eq!(outcomes.len(), names().len() + 1);
        for o in &outcomes {
            assert!(names().contains(&o.name), "{}", o.name);
            assert!(
                o.ratio.is_finite() && o.ratio > 0.0,
                "{}: ratio {}",
                o.name,
                o.ratio
            );
            assert!(!o.measured.is_empty() && !o.claim.is_empty());
            assert!(["FJTask", "Multicore", "lazySet"].contains(&o.source));
        }
        print(&outcomes);
    }
}
