//! `fj experiments`: the claims of the source documents, measured on this machine.
//!
//! Each experiment times two (or more) variants of one computation in the same run,
//! interleaved round by round, so that whatever else the machine is doing meanwhile falls on
//! every variant alike. Each variant's figure is a simple K-best (seed 003): the mean of its
//! K fastest runs out of all the rounds. The result is a ratio, oriented so that a ratio above
//! 1 goes the way the claim says, and the claim counts as held when the ratio reaches the
//! threshold its text states.
//!
//! | name             | source | variants                                                |
//! |------------------|--------|---------------------------------------------------------|
//! | `false-sharing`  | 003    | two counters on one cache line vs on separate lines     |
//! | `lock`           | 003    | one shared counter under a `Mutex` vs a counter each    |
//! | `pinning`        | 003    | a forkjoin pool with pinned workers vs unpinned         |
//! | `lazyset`        | 004    | SPSC ring buffer: SeqCst vs release cursor stores, each |
//! |                  |        | with adjacent vs padded cursors (two outcomes)          |
//! | `sort-width`     | 000    | cilksort's speedup for u8, u16, u32 and u64 keys        |
//! | `jacobi-barrier` | 000    | jacobi with a barrier per step vs per 10 steps          |
//!
//! No experiment asserts anything about time; a wrong answer (a ring buffer that loses or
//! reorders an item, a sort that does not sort) is an error.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use crate::suite::programs::{self, Ctx, Size, Workload};

/// What one experiment found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The experiment's name, as `names` lists it.
    pub name: &'static str,
    /// The claim of the source document, with the threshold that decides `held`.
    pub claim: &'static str,
    /// The source document: "000", "003" or "004".
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
pub fn names() -> &'static [&'static str] {
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
pub fn run(selected: &[String], quick: bool) -> Result<Vec<Outcome>, String> {
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
            "false-sharing" => (vec![false_sharing(&plan)?], plan.rounds),
            "lock" => (vec![lock(&plan)?], plan.rounds),
            "pinning" => (vec![pinning(&plan)?], plan.rounds),
            "lazyset" => (lazyset(&plan)?, plan.rounds),
            "sort-width" => (vec![sort_width(&plan)?], plan.program_rounds),
            "jacobi-barrier" => (vec![jacobi_barrier(&plan)?], plan.program_rounds),
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
pub fn print(outcomes: &[Outcome]) {
    // The claim and the measurement are sentences: wrapped into the last column.
    const TEXT: usize = 80;
    let indent = " ".repeat(35);
    println!(
        "{:<15} {:<4} {:<4} {:>7}  the claim, and what was measured here",
        "experiment", "src", "held", "ratio"
    );
    for o in outcomes {
        let mut lines = wrap(&format!("claim: {}", o.claim), TEXT);
        lines.extend(wrap(&format!("measured: {}", o.measured), TEXT));
        let held = if o.held { "yes" } else { "no" };
        println!(
            "{:<15} {:<4} {:<4} {:>6.2}x  {}",
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

/// One timed run of a variant.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    /// Wall-clock seconds.
    secs: f64,
    /// The CPU time the run's threads got, divided by the wall time around it, where the
    /// platform tells: the cores the run really had. For two threads, 2.0 means they truly
    /// ran side by side; near 1.0 means another process held a core and the two took turns
    /// on the other, so the run says nothing about caches or locks.
    parallelism: Option<f64>,
}

impl From<f64> for Sample {
    fn from(secs: f64) -> Sample {
        Sample {
            secs,
            parallelism: None,
        }
    }
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

/// One variant of an experiment: runs once and returns its sample (untimed setup and
/// checks inside it are fine), or an error if its answer was wrong.
type Variant<'a> = Box<dyn FnMut() -> Result<Sample, String> + 'a>;

/// Runs every variant once per round, `plan.warmup` untimed rounds first, and returns each
/// variant's K-best figure (the mean of its `plan.k` fastest rounds), in the variants'
/// order. Each round starts at the next variant, so no variant always runs first, or always
/// after the same one.
fn interleaved(plan: &Plan, variants: &mut [Variant<'_>]) -> Result<Vec<Best>, String> {
    let v = variants.len();
    let mut samples: Vec<Vec<Sample>> = vec![Vec::with_capacity(plan.rounds); v];
    for round in 0..plan.warmup + plan.rounds {
        for i in 0..v {
            let which = (round + i) % v;
            let sample = variants[which]()?;
            if round >= plan.warmup {
                samples[which].push(sample);
            }
        }
    }
    Ok(samples.into_iter().map(|s| k_best(s, plan.k)).collect())
}

/// The mean of the `k` fastest samples (of all of them if there are fewer).
fn k_best(mut samples: Vec<Sample>, k: usize) -> Best {
    samples.sort_by(|a, b| a.secs.total_cmp(&b.secs));
    let kept = &samples[..k.min(samples.len())];
    let n = kept.len() as f64;
    Best {
        secs: kept.iter().map(|s| s.secs).sum::<f64>() / n,
        slowest: samples.last().map_or(f64::NAN, |s| s.secs),
        parallelism: kept
            .iter()
            .map(|s| s.parallelism)
            .sum::<Option<f64>>()
            .map(|p| p / n),
    }
}

/// Runs `a` and `b` on two threads released together by a barrier and returns the sample
/// (from the first start to the last finish) with both results. Creating the threads is
/// outside the timed span: seed 003's first lesson is that starting a thread can cost more
/// than a small piece of work.
fn time_pair<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (Sample, RA, RB) {
    let barrier = Barrier::new(2);
    let (ta, ra, tb, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| timed_after(&barrier, a));
        let hb = s.spawn(|| timed_after(&barrier, b));
        let (ta, ra) = ha.join().expect("experiment thread panicked");
        let (tb, rb) = hb.join().expect("experiment thread panicked");
        (ta, ra, tb, rb)
    });
    let secs = (ta.end.max(tb.end) - ta.start.min(tb.start)).as_secs_f64();
    // Over the outer windows, which hold the CPU-time readings: a ratio of at most 2.
    let window =
        (ta.outer_end.max(tb.outer_end) - ta.outer_start.min(tb.outer_start)).as_secs_f64();
    let parallelism = ta.cpu.zip(tb.cpu).map(|(a, b)| (a + b) / window);
    (Sample { secs, parallelism }, ra, rb)
}

/// When one thread of `time_pair` ran its work, and the CPU time it had meanwhile.
struct ThreadTimes {
    /// Before the first CPU-time reading.
    outer_start: Instant,
    /// The timed span: after the first reading, before the second.
    start: Instant,
    end: Instant,
    /// After the second reading.
    outer_end: Instant,
    /// CPU seconds between the readings, where the platform tells.
    cpu: Option<f64>,
}

/// Waits at `barrier`, then runs `f`, timing it and reading the thread's CPU time around it.
fn timed_after<R>(barrier: &Barrier, f: impl FnOnce() -> R) -> (ThreadTimes, R) {
    barrier.wait();
    let outer_start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    let start = Instant::now();
    let r = f();
    let end = Instant::now();
    let cpu_end = thread_cpu_seconds();
    let outer_end = Instant::now();
    let cpu = cpu_end.zip(cpu_start).map(|(e, s)| e - s);
    (
        ThreadTimes {
            outer_start,
            start,
            end,
            outer_end,
            cpu,
        },
        r,
    )
}

/// The CPU time the calling thread has had, from Linux's `/proc/thread-self/schedstat`
/// (its first field: nanoseconds on a CPU). `None` elsewhere. The kernel brings that
/// figure up to date only when the thread passes through the scheduler (else it lags by up
/// to a tick, milliseconds), so this yields first; callers read it outside timed spans.
fn thread_cpu_seconds() -> Option<f64> {
    std::thread::yield_now();
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

/// A run that had less than this fraction of the cores it asked for mostly waited for
/// another process: its time measures the scheduler, not the code.
const FAIR_SHARE: f64 = 0.75;

/// How many cores each variant's runs really had (`label`, out of `of`), and a warning when
/// one of those marked `busy` had less than its fair share. Unmarked variants may
/// legitimately leave cores idle: a thread waiting for a `Mutex` sleeps.
fn on_cpu(label: &str, bests: &[Best], busy: &[bool], of: usize) -> String {
    let Some(p) = bests
        .iter()
        .map(|b| b.parallelism)
        .collect::<Option<Vec<f64>>>()
    else {
        return String::new();
    };
    let list: Vec<String> = p.iter().map(|p| format!("{p:.2}")).collect();
    let mut note = format!(" ({label} {} of {of}", list.join(", "));
    if p.iter()
        .zip(busy)
        .any(|(&p, &busy)| busy && p < FAIR_SHARE * of as f64)
    {
        note.push_str("; another process held a core, so this ratio says little");
    }
    note.push(')');
    note
}

/// `on_cpu` for the two-thread experiments.
fn side_by_side(bests: &[Best], busy: &[bool]) -> String {
    on_cpu("threads ran side by side:", bests, busy, 2)
}

/// Runs `f` (which enters `pool`) and returns its sample, with the CPU time the pool's
/// threads had meanwhile as its parallelism.
fn in_pool<R>(pool: &forkjoin::Pool, f: impl FnOnce() -> R) -> (Sample, R) {
    let outer_start = Instant::now();
    let cpu_start = pool.cpu_time();
    let start = Instant::now();
    let r = f();
    let secs = start.elapsed().as_secs_f64();
    let cpu = pool
        .cpu_time()
        .zip(cpu_start)
        .map(|(e, s)| (e - s).as_secs_f64());
    let window = outer_start.elapsed().as_secs_f64();
    (
        Sample {
            secs,
            parallelism: cpu.map(|c| c / window),
        },
        r,
    )
}

// ---------------------------------------------------------------------------------------
// Two cells written by two threads, adjacent or padded apart

/// Two 64-bit cells, each written by one thread; the layout is what the experiments vary.
trait Pair: Default + Sync {
    /// The layout, for messages.
    const LAYOUT: &'static str;
    fn first(&self) -> &AtomicU64;
    fn second(&self) -> &AtomicU64;
}

/// Both cells in one 64-byte cache line (the struct is one line, aligned to it).
#[derive(Default)]
#[repr(C, align(64))]
struct Adjacent {
    first: AtomicU64,
    second: AtomicU64,
}

impl Pair for Adjacent {
    const LAYOUT: &'static str = "adjacent";
    fn first(&self) -> &AtomicU64 {
        &self.first
    }
    fn second(&self) -> &AtomicU64 {
        &self.second
    }
}

/// Aligns and pads to 128 bytes: a line plus the neighbour that the adjacent-line
/// prefetcher of Intel (and recent AMD) cores pulls in with it, as the runtime's own
/// `CachePadded` does.
#[derive(Default)]
#[repr(C, align(128))]
struct Line<T>(T);

/// Each cell on its own 128-byte-aligned pair of lines.
#[derive(Default)]
#[repr(C)]
struct Padded {
    first: Line<AtomicU64>,
    second: Line<AtomicU64>,
}

impl Pair for Padded {
    const LAYOUT: &'static str = "padded";
    fn first(&self) -> &AtomicU64 {
        &self.first.0
    }
    fn second(&self) -> &AtomicU64 {
        &self.second.0
    }
}

const _: () = {
    assert!(std::mem::size_of::<Adjacent>() == 64 && std::mem::align_of::<Adjacent>() == 64);
    assert!(std::mem::size_of::<Padded>() == 256 && std::mem::align_of::<Padded>() == 128);
};

// ---------------------------------------------------------------------------------------
// false-sharing (003)

const FALSE_SHARING_CLAIM: &str =
    "two threads each incrementing its own counter run faster when the counters \
     sit on separate cache lines than when they share one (held if padded is at least 1.3x faster)";

/// Adds 1 to `counter` `n` times.
fn count(counter: &AtomicU64, n: u64) {
    for _ in 0..n {
        // Relaxed: the counter has one writer and is read only after the thread is joined,
        // and the join is the happens-before edge for that read. The atomic read-modify-write
        // is there so the compiler cannot fold the loop into one add; like 003's `a += sum`,
        // every increment writes the line.
        counter.fetch_add(1, Relaxed);
    }
}

/// Two threads count to `n` each on the cells of a `P`; checks both counts.
fn count_pair<P: Pair>(n: u64) -> Result<Sample, String> {
    let cells = P::default();
    let (sample, (), ()) = time_pair(|| count(cells.first(), n), || count(cells.second(), n));
    // Relaxed: the scope's joins ordered both threads' increments before these loads.
    let (a, b) = (cells.first().load(Relaxed), cells.second().load(Relaxed));
    if (a, b) != (n, n) {
        return Err(format!(
            "false-sharing: counters ended at {a} and {b}, expected {n} each"
        ));
    }
    Ok(sample)
}

fn false_sharing(plan: &Plan) -> Result<Outcome, String> {
    let n = plan.counter_increments;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| count_pair::<Adjacent>(n)),
            Box::new(|| count_pair::<Padded>(n)),
        ],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "false-sharing",
        claim: FALSE_SHARING_CLAIM,
        source: "003",
        measured: format!(
            "2 threads x {n} atomic increments: adjacent (one 64-byte line) {}, \
             padded (128 bytes apart) {}: padded {ratio:.2}x faster{}",
            ms(t[0].secs),
            ms(t[1].secs),
            side_by_side(&t, &[true, true])
        ),
        ratio,
        held: ratio >= 1.3,
    })
}

// ---------------------------------------------------------------------------------------
// lock (003)

const LOCK_CLAIM: &str =
    "a lock around a counter shared by two threads serialises them: a counter each \
     with no lock is much faster (held if the no-lock version is at least 1.5x faster)";

/// Two threads each add 1 to one shared counter `n` times, taking the `Mutex` per increment.
fn locked(n: u64) -> Result<Sample, String> {
    let counter = Mutex::new(0u64);
    let work = || {
        for _ in 0..n {
            *counter.lock().expect("lock experiment: mutex poisoned") += 1;
        }
    };
    let (sample, (), ()) = time_pair(work, work);
    let total = counter
        .into_inner()
        .expect("lock experiment: mutex poisoned");
    if total != 2 * n {
        return Err(format!(
            "lock: the shared counter ended at {total}, expected {}",
            2 * n
        ));
    }
    Ok(sample)
}

/// Two threads each add 1 to its own counter `n` times, no lock; the counters are padded
/// apart so that false sharing (the other experiment) does not mix into this one.
fn unlocked(n: u64) -> Result<Sample, String> {
    let cells = Padded::default();
    let bump = |c: &AtomicU64| {
        for _ in 0..n {
            // Relaxed, and a plain load and store rather than a read-modify-write, as the
            // locked version's `+= 1` is: one writer, read after the join (the join is the
            // happens-before edge).
            c.store(c.load(Relaxed) + 1, Relaxed);
        }
    };
    let (sample, (), ()) = time_pair(|| bump(cells.first()), || bump(cells.second()));
    // Relaxed: ordered after both threads' stores by the scope's joins.
    let total = cells.first().load(Relaxed) + cells.second().load(Relaxed);
    if total != 2 * n {
        return Err(format!(
            "lock: the two counters sum to {total}, expected {}",
            2 * n
        ));
    }
    Ok(sample)
}

fn lock(plan: &Plan) -> Result<Outcome, String> {
    let n = plan.lock_increments;
    let t = interleaved(
        plan,
        &mut [Box::new(|| locked(n)), Box::new(|| unlocked(n))],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "lock",
        claim: LOCK_CLAIM,
        source: "003",
        measured: format!(
            "2 threads x {n} increments: one shared counter, Mutex taken per increment {}; \
             a padded counter each, no lock {}: no-lock {ratio:.2}x faster{}; with the lock, \
             a thread that finds it taken sleeps, so near 1 of 2 there is the serialisation",
            ms(t[0].secs),
            ms(t[1].secs),
            side_by_side(&t, &[false, true])
        ),
        ratio,
        held: ratio >= 1.5,
    })
}

// ---------------------------------------------------------------------------------------
// pinning (003)

const PINNING_CLAIM: &str =
    "pinning each worker thread to its own core (CPU affinity) makes the same \
     fork/join work faster (held if pinned is at least 1.05x faster)";

/// Below this `n` fib recurses sequentially: Lea's threshold.
const FIB_THRESHOLD: u32 = 13;

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn fib_fj(n: u32) -> u64 {
    if n <= FIB_THRESHOLD {
        return fib_seq(n);
    }
    let (a, b) = forkjoin::join(|| fib_fj(n - 1), || fib_fj(n - 2));
    a + b
}

fn fib_exact(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Builds a fresh pool of `threads` workers, pinned or not, runs fib(n) once untimed (the
/// workers' first wake-up) and once timed, checks the answer and drops the pool. A fresh
/// pool each time, so the variant not being timed has no threads left that could still be
/// spinning for work.
fn fib_in_pool(threads: usize, pin: bool, n: u32) -> Result<Sample, String> {
    let pool = forkjoin::Pool::builder()
        .threads(threads)
        .pin_threads(pin)
        .build()
        .map_err(|e| format!("pinning: cannot build a pool of {threads} (pinned: {pin}): {e}"))?;
    pool.install(|| fib_fj(n));
    let (sample, answer) = in_pool(&pool, || pool.install(|| fib_fj(n)));
    let expected = fib_exact(n);
    if answer != expected {
        return Err(format!(
            "pinning: fib({n}) gave {answer}, expected {expected}"
        ));
    }
    Ok(sample)
}

fn pinning(plan: &Plan) -> Result<Outcome, String> {
    let threads = cores();
    let n = plan.fib_n;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| fib_in_pool(threads, false, n)),
            Box::new(|| fib_in_pool(threads, true, n)),
        ],
    )?;
    let ratio = t[0].secs / t[1].secs;
    Ok(Outcome {
        name: "pinning",
        claim: PINNING_CLAIM,
        source: "003",
        measured: format!(
            "fib({n}) (threshold {FIB_THRESHOLD}) on {threads} workers: unpinned {}, pinned {}: \
             pinned {ratio:.2}x faster{}",
            ms(t[0].secs),
            ms(t[1].secs),
            on_cpu("cores the workers had:", &t, &[true, true], threads)
        ),
        ratio,
        held: ratio >= 1.05,
    })
}

/// The cores this process may use: the worker count of the "all cores" measurements.
fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

// ---------------------------------------------------------------------------------------
// lazyset (004)

const LAZYSET_RELEASE_CLAIM: &str =
    "publishing a ring buffer's cursor with a release store (lazySet) is faster \
     than with a SeqCst (volatile) store, which needs a StoreLoad barrier (held if release is \
     at least 1.1x faster, padded cursors)";
const LAZYSET_PADDING_CLAIM: &str =
    "padding the producer's and the consumer's cursors onto separate cache lines \
     removes their false sharing and is faster (held if padded is at least 1.1x faster, \
     release stores)";

/// Slots of the ring buffer: a power of two, so a cursor maps to a slot with a mask.
const RING_SLOTS: u64 = 1024;

/// Spins before a waiting side yields its core: on a shared two-core machine the other side
/// may be descheduled, and spinning through its whole time slice would only delay it.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// The item the producer puts at position `i`: an odd multiplier makes it a bijection, so
/// equality with `item(i)` at the consumer's `i`-th read proves order and no loss.
fn item(i: u64) -> u64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Waits politely: a spin hint, then, after many, a yield.
fn backoff(spins: &mut u32) {
    *spins += 1;
    if *spins < SPINS_BEFORE_YIELD {
        std::hint::spin_loop();
    } else {
        *spins = 0;
        std::thread::yield_now();
    }
}

/// A single-producer single-consumer ring buffer passes `n` items from one thread to the
/// other. `first` of the `P` is the producer's cursor (items published), `second` the
/// consumer's (items consumed). Both sides store their cursor after every item, with a
/// SeqCst store when `SEQCST`, else a release store (Java's `lazySet`). Returns the time
/// taken, or an error if an item arrived out of order or the consumer's wrapping sum of the
/// items is wrong.
fn ring_transfer<P: Pair, const SEQCST: bool>(n: u64) -> Result<Sample, String> {
    let slots: Box<[AtomicU64]> = (0..RING_SLOTS).map(|_| AtomicU64::new(0)).collect();
    let mask = RING_SLOTS - 1;
    let publish = if SEQCST { SeqCst } else { Release };
    let cursors = P::default();
    let (published, consumed) = (cursors.first(), cursors.second());

    let producer = || {
        // The first position the producer may not write yet: the consumer's cursor (as last
        // read) plus the ring size. Reading the consumer's cursor only when this is reached
        // keeps the producer off the consumer's line while there is room.
        let mut limit = RING_SLOTS;
        let mut spins = 0;
        for i in 0..n {
            while i >= limit {
                // Acquire: pairs with the consumer's (release or SeqCst) store of its cursor,
                // so its reads of the slots below the cursor happen before we overwrite them.
                limit = consumed.load(Acquire) + RING_SLOTS;
                if i >= limit {
                    backoff(&mut spins);
                }
            }
            // Relaxed: the slot is published by the cursor store below, whose release
            // half orders this store before it.
            slots[(i & mask) as usize].store(item(i), Relaxed);
            // SeqCst or Release, the variable under test. Either way its release half is
            // what the consumer's Acquire load synchronises with (the edge that makes the
            // slot visible); SeqCst adds the StoreLoad barrier that 004 says is not needed.
            published.store(i + 1, publish);
        }
    };

    let consumer = || {
        let (mut read, mut available, mut sum, mut spins) = (0u64, 0u64, 0u64, 0u32);
        let mut first_wrong = None;
        while read < n {
            if read == available {
                // Acquire: pairs with the producer's cursor store, so the slots below the
                // cursor are read after (happen after) the producer wrote them.
                available = published.load(Acquire);
                if read == available {
                    backoff(&mut spins);
                    continue;
                }
            }
            // Relaxed: made visible by the Acquire load of the producer's cursor above.
            let v = slots[(read & mask) as usize].load(Relaxed);
            if v != item(read) && first_wrong.is_none() {
                first_wrong = Some((read, v));
            }
            sum = sum.wrapping_add(v);
            read += 1;
            // SeqCst or Release as above: its release half orders the slot read before the
            // producer's Acquire load of this cursor, so the slot is not overwritten early.
            consumed.store(read, publish);
        }
        (sum, first_wrong)
    };

    let (sample, (), (sum, first_wrong)) = time_pair(producer, consumer);
    let variant = format!(
        "{}, {}",
        if SEQCST { "SeqCst" } else { "release" },
        P::LAYOUT
    );
    if let Some((i, v)) = first_wrong {
        return Err(format!(
            "lazyset ({variant}): item {i} arrived as {v:#x}, expected {:#x}",
            item(i)
        ));
    }
    let expected = (0..n).fold(0u64, |s, i| s.wrapping_add(item(i)));
    if sum != expected {
        return Err(format!(
            "lazyset ({variant}): checksum {sum:#x}, expected {expected:#x}"
        ));
    }
    Ok(sample)
}

fn lazyset(plan: &Plan) -> Result<Vec<Outcome>, String> {
    let n = plan.ring_items;
    let t = interleaved(
        plan,
        &mut [
            Box::new(|| ring_transfer::<Adjacent, true>(n)),
            Box::new(|| ring_transfer::<Adjacent, false>(n)),
            Box::new(|| ring_transfer::<Padded, true>(n)),
            Box::new(|| ring_transfer::<Padded, false>(n)),
        ],
    )?;
    // Throughput in items per microsecond: K-best, and of the slowest run.
    let rate = |secs: f64| n as f64 / (secs * 1e6);
    let [seq_adj, rel_adj, seq_pad, rel_pad] = [0, 1, 2, 3].map(|i| rate(t[i].secs));
    let figures: Vec<String> = [
        "SeqCst adjacent",
        "release adjacent",
        "SeqCst padded",
        "release padded",
    ]
    .iter()
    .zip(&t)
    .map(|(v, b)| {
        format!(
            "{v} {:.1} (slowest run {:.1})",
            rate(b.secs),
            rate(b.slowest)
        )
    })
    .collect();
    let table = format!(
        "{n} items through {RING_SLOTS} slots, items/us: {}{}",
        figures.join(", "),
        side_by_side(&t, &[true; 4])
    );
    let release = rel_pad / seq_pad;
    let padding = rel_pad / rel_adj;
    Ok(vec![
        Outcome {
            name: "lazyset",
            claim: LAZYSET_RELEASE_CLAIM,
            source: "004",
            measured: format!(
                "{table}: release/SeqCst {release:.2}x padded ({:.2}x adjacent)",
                rel_adj / seq_adj
            ),
            ratio: release,
            held: release >= 1.1,
        },
        Outcome {
            name: "lazyset",
            claim: LAZYSET_PADDING_CLAIM,
            source: "004",
            measured: format!(
                "{table}: padded/adjacent {padding:.2}x with release ({:.2}x with SeqCst)",
                seq_pad / seq_adj
            ),
            ratio: padding,
            held: padding >= 1.1,
        },
    ])
}

// ---------------------------------------------------------------------------------------
// The suite's programs: sort-width and jacobi-barrier (000)

/// A program of the suite made at `size`.
fn workload(name: &str, size: Size) -> Result<Box<dyn Workload>, String> {
    programs::all()
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| (p.make)(size))
        .ok_or_else(|| format!("the suite has no program '{name}'"))
}

/// Resets `w`, runs it once sequentially (`pool` is `None`) or with forkjoin inside `pool`,
/// and verifies the answer. Times the run including entering the pool, as `fj bench` does.
fn time_workload(
    name: &str,
    w: &mut dyn Workload,
    pool: Option<&forkjoin::Pool>,
) -> Result<Sample, String> {
    w.reset();
    let sample = match pool {
        None => {
            let start = Instant::now();
            w.run(&mut Ctx::Sequential);
            start.elapsed().as_secs_f64().into()
        }
        Some(pool) => in_pool(pool, || pool.install(|| w.run(&mut Ctx::Forkjoin))).0,
    };
    let how = if pool.is_some() {
        "forkjoin"
    } else {
        "sequential"
    };
    w.verify()
        .map_err(|e| format!("{name} ({how}): wrong answer: {e}"))?;
    Ok(sample)
}

/// Times each program sequentially and with forkjoin on all cores, all interleaved. Returns
/// the K-best figures, sequential then forkjoin for each program in turn.
fn speedups(plan: &Plan, names: &[&'static str]) -> Result<Vec<Best>, String> {
    let plan = Plan {
        rounds: plan.program_rounds,
        ..*plan
    };
    let threads = cores();
    let pool = forkjoin::Pool::new(threads)
        .map_err(|e| format!("cannot build a pool of {threads}: {e}"))?;
    // Two instances of each program, one per variant, so a variant's reset and verify
    // never touch the other's data (the scratch buffers stay warm for their own runs).
    let mut seq = names
        .iter()
        .map(|n| workload(n, plan.size))
        .collect::<Result<Vec<_>, _>>()?;
    let mut par = names
        .iter()
        .map(|n| workload(n, plan.size))
        .collect::<Result<Vec<_>, _>>()?;
    let mut variants: Vec<Variant<'_>> = Vec::new();
    for ((name, s), p) in names.iter().zip(seq.iter_mut()).zip(par.iter_mut()) {
        variants.push(Box::new(move || time_workload(name, s.as_mut(), None)));
        let pool = &pool;
        variants.push(Box::new(move || {
            time_workload(name, p.as_mut(), Some(pool))
        }));
    }
    interleaved(&plan, &mut variants)
}

/// `on_cpu` for the forkjoin runs in the output of `speedups`.
fn pool_note(t: &[Best]) -> String {
    let par: Vec<Best> = t.iter().skip(1).step_by(2).copied().collect();
    on_cpu(
        "cores forkjoin's workers had:",
        &par,
        &vec![true; par.len()],
        cores(),
    )
}

const SORT_WIDTH_CLAIM: &str = "sorting narrower keys (less memory traffic) scales better: \
     the speedup on all cores is higher for u8 keys than for u64 keys holding the same values \
     (held if u8's speedup is at least 1.05x u64's)";

fn sort_width(plan: &Plan) -> Result<Outcome, String> {
    let names = ["sort-u8", "sort-u16", "sort-u32", "sort-u64"];
    let t = speedups(plan, &names)?;
    let speedup: Vec<f64> = t.chunks(2).map(|c| c[0].secs / c[1].secs).collect();
    let figures: Vec<String> = names
        .iter()
        .zip(t.chunks(2))
        .zip(&speedup)
        .map(|((n, c), sp)| {
            format!(
                "{} {sp:.2} ({} / {})",
                &n[5..],
                ms(c[0].secs),
                ms(c[1].secs)
            )
        })
        .collect();
    let ratio = speedup[0] / speedup[3];
    Ok(Outcome {
        name: "sort-width",
        claim: SORT_WIDTH_CLAIM,
        source: "000",
        measured: format!(
            "speedup on {} cores (sequential / forkjoin), {:?} size: {}: u8/u64 speedup ratio \
             {ratio:.2}{}",
            cores(),
            plan.size,
            figures.join(", "),
            pool_note(&t)
        ),
        ratio,
        held: ratio >= 1.05,
    })
}

const JACOBI_CLAIM: &str =
    "Jacobi relaxation with a global barrier every 10 steps is faster than with one \
     every step (held if per-10-steps is at least 1.1x faster on all cores)";

fn jacobi_barrier(plan: &Plan) -> Result<Outcome, String> {
    let t = speedups(plan, &["jacobi", "jacobi-10"])?;
    let [seq1, par1, seq10, par10] = [t[0].secs, t[1].secs, t[2].secs, t[3].secs];
    let ratio = par1 / par10;
    Ok(Outcome {
        name: "jacobi-barrier",
        claim: JACOBI_CLAIM,
        source: "000",
        measured: format!(
            "{:?} size, forkjoin on {} cores: barrier per step {}, per 10 steps {}: per 10 \
             steps {ratio:.2}x faster. Sequentially (no barriers at all) per 10 steps is {:.2}x \
             as fast ({} vs {}): its blocks stay in cache for 10 steps, so not all of the gain \
             need be the barriers. Speedups over their own sequential versions: per step {:.2}, \
             per 10 steps {:.2}; their ratio, {:.2}, is the gain from the barriers alone{}",
            plan.size,
            cores(),
            ms(par1),
            ms(par10),
            seq1 / seq10,
            ms(seq1),
            ms(seq10),
            seq1 / par1,
            seq10 / par10,
            (seq10 / par10) / (seq1 / par1),
            pool_note(&t)
        ),
        ratio,
        held: ratio >= 1.1,
    })
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
    fn ring_buffer_delivers_every_item_in_order_in_all_variants() {
        // More items than slots many times over, so the ring wraps and both sides wait.
        let n = 50 * RING_SLOTS + 7;
        for result in [
            ring_transfer::<Adjacent, true>(n),
            ring_transfer::<Adjacent, false>(n),
            ring_transfer::<Padded, true>(n),
            ring_transfer::<Padded, false>(n),
        ] {
            let sample = result.unwrap();
            assert!(sample.secs.is_finite() && sample.secs > 0.0);
        }
    }

    #[test]
    fn layouts_put_the_cells_where_intended() {
        let a = Adjacent::default();
        let p = Padded::default();
        let addr = |c: &AtomicU64| c as *const AtomicU64 as usize;
        assert_eq!(
            addr(a.first()) / 64,
            addr(a.second()) / 64,
            "adjacent cells share a line"
        );
        assert!(
            addr(p.second()) - addr(p.first()) >= 128,
            "padded cells are 128 bytes apart"
        );
        assert_eq!(addr(p.first()) % 128, 0);
    }

    #[test]
    fn wrap_splits_at_spaces_within_the_width() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh ij", 4), ["abcdefgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }

    #[test]
    fn k_best_is_the_mean_of_the_k_fastest() {
        let s = |secs, p| Sample {
            secs,
            parallelism: Some(p),
        };
        let best = k_best(vec![s(5.0, 1.0), s(1.0, 2.0), s(3.0, 1.0), s(2.0, 1.0)], 2);
        assert_eq!(
            best,
            Best {
                secs: 1.5,
                slowest: 5.0,
                parallelism: Some(1.5)
            }
        );
        let best = k_best(vec![4.0.into(), s(3.0, 2.0)], 3);
        assert_eq!(
            best,
            Best {
                secs: 3.5,
                slowest: 4.0,
                parallelism: None
            }
        );
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

    #[test]
    fn fib_in_both_pools_is_right() {
        assert_eq!(fib_exact(20), 6765);
        fib_in_pool(2, false, 20).unwrap();
        fib_in_pool(2, true, 20).unwrap();
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
            assert!(["000", "003", "004"].contains(&o.source));
        }
        print(&outcomes);
    }
}
