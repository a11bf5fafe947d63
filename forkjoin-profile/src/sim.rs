//! The predictor: a discrete-event simulation of this runtime's scheduler over a recorded
//! task graph, with a model clock per worker (ParJava's logical processes).
//!
//! What is modelled, as the runtime does it (`join.rs`, `registry.rs`):
//! - A join costs `join_ns` and records its second closure in a private frame; the worker
//!   goes on with the first closure.
//! - A frame becomes stealable only when its worker *promotes* it (`promote_ns`): at the
//!   first join of a job the worker just took from a queue, or at a join while some worker
//!   is idle (an idle worker asks for sharing as soon as it finds nothing, and again every
//!   heartbeat period); the oldest private frame is promoted, and only while the worker's
//!   deque is empty.
//! - An idle worker takes a promoted frame `steal_ns` after it appears (plus `wake_ns` if it
//!   had been idle longer than `spin_ns` and so had parked): the hand-over is charged once.
//!   An owner told that its stolen frame finished pays only a wake-up, if it had parked. Thieves take the oldest frame of
//!   a random victim (FIFO); the waiting owner of a stolen frame first tries its thief.
//! - After its first closure, the owner runs an unshared (or not yet stolen) second closure
//!   itself; if it was stolen, it helps: it steals work that descends from the stolen frame
//!   (`Waits::Isolated`, the runtime's rule: the oldest frame of a deque, if it was made
//!   under the stolen one, the thief's deque first), or waits until the thief finishes and
//!   signals it. Its next join is then shared, as the first join of a job (the thief has
//!   just become free). A promotion wakes the waiter of the region the frame was made in,
//!   and one idle worker that may take it; a parked waiter further up looks at its next park
//!   timeout (`Waits`). `Waits::Anything` lets a waiter steal anything instead (rayon's
//!   rule): the difference is what isolation costs.
//! - A chunk (a coarsened subtree) runs on one worker for its work plus `join_ns` per join.
//!
//! Events are processed in model-time order (always the running worker with the smallest
//! clock next), so a steal sees a deque as it is at the thief's time.

use super::{Costs, Profile, Step, TaskNode};
use forkjoin::instrument::ISOLATED_PARK_DOUBLINGS;

/// A predicted run on some number of workers.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Workers predicted for.
    pub workers: usize,
    /// Predicted wall time in seconds: the median over the simulation's seeds.
    pub seconds: f64,
    /// The fastest of the seeds' simulated times, in seconds.
    pub seconds_min: f64,
    /// The slowest of the seeds' simulated times, in seconds.
    pub seconds_max: f64,
    /// Predicted speedup over the same program on one worker (the median's).
    pub speedup: f64,
    /// Cilkview's estimate of the speedup, T1 / (T1/P + 1.7 (1 - 1/P) burdened span), with
    /// the burden (`Costs::burden_ns`) from the same costs as the prediction. A heuristic,
    /// not a bound: it leaves out parking (the wake-up) and lazy promotion, both of which
    /// the simulation charges, so a prediction may fall below it, or above it.
    pub speedup_cilkview: f64,
    /// The bound the work and span laws put on the speedup: min(P, T1 / span). With the
    /// runtime's costs on top of T1 the prediction stays below it.
    pub speedup_upper: f64,
    /// Whether `seconds` comes from simulating the recorded graph; if not (no graph), it is
    /// the time of the work spread evenly plus the burdened span (Brent's form).
    pub simulated: bool,
}

/// What a worker waiting for a stolen frame may steal meanwhile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Waits {
    /// Only frames that descend from the one it waits for: this runtime's rule (DESIGN.md,
    /// section 5, "Waiting without blocking, in isolation"). As in the runtime, a frame
    /// shared wakes the waiter of the region it was made in; a waiter further up the links
    /// finds it while it searches or, parked, at its next park timeout (`Costs::heartbeat_ns`
    /// after it parked, the period doubling at each timeout up to four times it, as the
    /// runtime's).
    #[default]
    Isolated,
    /// As [`Waits::Isolated`], with every parked waiter a shared frame descends to woken at
    /// once: what waking the waiters up the links at each push would buy.
    IsolatedAncestorsWoken,
    /// Any frame, the thief's first: rayon's rule, and this runtime's before waits were
    /// isolated. A prediction with it against one with [`Waits::Isolated`] gives what
    /// isolation costs in cores a waiter leaves idle.
    Anything,
}

pub(crate) fn predict(
    profile: &Profile,
    workers: usize,
    costs: &Costs,
    waits: Waits,
) -> Prediction {
    let p = workers as f64;
    let t1 = profile.work as f64;
    let span = profile.span.max(1) as f64;
    // The estimate uses the costs given here, not those of the profile run.
    let bspan = profile.burdened_span_with(costs).as_nanos() as f64;
    let speedup_cilkview = t1 / (t1 / p + 1.7 * (1.0 - 1.0 / p) * bspan).max(1.0);
    let speedup_upper = p.min(t1 / span);
    match profile.graph() {
        Some(graph) => {
            let (seconds_min, seconds, seconds_max) = spread(graph, workers, costs, waits);
            let one = if workers == 1 {
                seconds
            } else {
                simulate(graph, 1, costs, waits, 0) * 1e-9
            };
            Prediction {
                workers,
                seconds,
                seconds_min,
                seconds_max,
                speedup: one / seconds.max(1e-12),
                speedup_cilkview,
                speedup_upper,
                simulated: true,
            }
        }
        None => {
            let t1_costs = t1 + profile.joins as f64 * costs.join_ns;
            let seconds = (t1_costs / p + (1.0 - 1.0 / p) * bspan) * 1e-9;
            Prediction {
                workers,
                seconds,
                seconds_min: seconds,
                seconds_max: seconds,
                speedup: t1_costs * 1e-9 / seconds.max(1e-12),
                speedup_cilkview,
                speedup_upper,
                simulated: false,
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameState {
    Private,
    Promoted,
    Stolen { thief: usize },
    Done { at: f64 },
}

struct Frame<'g> {
    b: &'g TaskNode,
    state: FrameState,
    /// The stolen frame whose second closure its owner was running when it made this one
    /// (the runtime's region and its link): `ROOT` for the root job's.
    parent: usize,
    /// How many parents it has up to `ROOT`.
    depth: u32,
}

#[derive(Clone, Copy)]
enum Entry<'g> {
    /// Running a task's steps; `pos` is the next one.
    Run { task: &'g TaskNode, pos: usize },
    /// A join in progress: its first closure runs above, or (`inline_b`) its second.
    Join { frame: usize, inline_b: bool },
    /// A stolen frame's second closure runs above; when it ends the frame is done.
    Stolen { frame: usize },
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Running,
    Idle { since: f64 },
}

struct SimWorker<'g> {
    clock: f64,
    state: State,
    stack: Vec<Entry<'g>>,
    /// Promoted frames, oldest first.
    deque: std::collections::VecDeque<usize>,
    /// Started a job since its last promotion check: its first join is shared.
    fresh: bool,
    /// The stolen frames whose second closures run on its stack, innermost last: the region
    /// it runs in is the last.
    regions: Vec<usize>,
    /// A parked waiter's next park timeout, at which it searches again, if work it may take
    /// appeared meanwhile that woke no one for it.
    timer: Option<f64>,
}

/// The frame index standing for the root job (its completion ends the run).
const ROOT: usize = 0;

struct Sim<'g> {
    workers: Vec<SimWorker<'g>>,
    frames: Vec<Frame<'g>>,
    costs: Costs,
    waits: Waits,
    /// How many workers have a `timer` set.
    timers: usize,
    /// See [`JITTER`].
    jitter: f64,
    rng: u64,
    finished: Option<f64>,
}

/// How many seeds a prediction simulates at least (one worker needs one: nothing is random
/// there).
pub(crate) const SEEDS: u64 = 21;

/// How many seeds a prediction simulates at most: see [`spread`].
pub(crate) const MAX_SEEDS: u64 = 201;

/// The standard error [`spread`] aims its median at, as a share of the median.
const MEDIAN_ERROR: f64 = 0.01;

/// Minimum, median and maximum in seconds of the simulation over [`SEEDS`] seeds, or more
/// where they spread wide. Where every perturbation gives each seed a new trajectory (short
/// phases as wide as the pool, say), the median of n seeds is a sample with a standard
/// error of about 1.25 sigma / sqrt(n), sigma estimated from the seeds' interquartile range
/// (IQR / 1.35) of the first [`SEEDS`]; as many more seeds are simulated, up to
/// [`MAX_SEEDS`], as that error needs to be at most [`MEDIAN_ERROR`] of the median. Seeds
/// are numbered from 0, so a prediction repeats.
fn spread(graph: &TaskNode, workers: usize, costs: &Costs, waits: Waits) -> (f64, f64, f64) {
    if workers == 1 {
        let t = simulate(graph, 1, costs, waits, 0) * 1e-9;
        return (t, t, t);
    }
    let mut t = simulate_seeds(graph, workers, costs, waits, 0..SEEDS);
    t.sort_by(f64::total_cmp);
    let quartile = |t: &[f64], q: usize| t[(t.len() - 1) * q / 4];
    let sigma = (quartile(&t, 3) - quartile(&t, 1)) / 1.35;
    let wanted = (1.25 * sigma / (MEDIAN_ERROR * quartile(&t, 2)))
        .powi(2)
        .ceil();
    let seeds = (wanted as u64).clamp(SEEDS, MAX_SEEDS);
    if seeds > SEEDS {
        t.extend(simulate_seeds(graph, workers, costs, waits, SEEDS..seeds));
        t.sort_by(f64::total_cmp);
    }
    (t[0], t[t.len() / 2], t[t.len() - 1])
}

/// Simulated seconds for each seed of `seeds`, the simulations spread over the machine's
/// cores (they are independent).
fn simulate_seeds(
    graph: &TaskNode,
    workers: usize,
    costs: &Costs,
    waits: Waits,
    seeds: std::ops::Range<u64>,
) -> Vec<f64> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(seeds.clone().count().max(1));
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|first| {
                let seeds = seeds.clone();
                s.spawn(move || {
                    seeds
                        .skip(first)
                        .step_by(threads)
                        .map(|seed| simulate(graph, workers, costs, waits, seed) * 1e-9)
                        .collect::<Vec<f64>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a simulation does not panic"))
            .collect()
    })
}

/// Simulated nanoseconds for `root` on `workers` workers, including the root's submission;
/// `seed` drives the thieves' choice of victims and which idle worker a promotion wakes.
pub(crate) fn simulate(
    root: &TaskNode,
    workers: usize,
    costs: &Costs,
    waits: Waits,
    seed: u64,
) -> f64 {
    // Parked since long ago: the pool was idle before the run.
    simulate_from(root, workers, costs, waits, -1e18, seed, JITTER)
}

/// Each hand-over and wake-up takes its cost times a factor drawn uniformly from
/// [1 - JITTER, 1 + JITTER] (mean 1). The machine's latencies vary (the calibration's
/// spread), and a simulation with fixed latencies is chaotic: whether a thief arrives
/// before or after an owner takes its frame back is a comparison of two sums, and when all
/// such comparisons flip together (leaves as long as a steal, say), a 0.2% nudge of one cost
/// moved a prediction from 0.62 to 15 ms. With jitter each seed samples those races, and
/// the median over seeds moves smoothly with the costs.
const JITTER: f64 = 0.25;

/// [`simulate`] with the other workers idle since model time `idle_since` (the run starts
/// at 0): before `-spin_ns` they have parked.
fn simulate_from(
    root: &TaskNode,
    workers: usize,
    costs: &Costs,
    waits: Waits,
    idle_since: f64,
    seed: u64,
    jitter: f64,
) -> f64 {
    let mut sim = Sim {
        workers: (0..workers)
            .map(|_| SimWorker {
                clock: 0.0,
                state: State::Idle { since: idle_since },
                stack: Vec::new(),
                deque: Default::default(),
                fresh: false,
                regions: Vec::new(),
                timer: None,
            })
            .collect(),
        frames: vec![Frame {
            b: root,
            state: FrameState::Stolen { thief: 0 },
            parent: ROOT,
            depth: 0,
        }],
        costs: costs.clone(),
        waits,
        timers: 0,
        jitter,
        // SplitMix64's first output for the seed: nonzero for every seed, as xorshift needs.
        rng: {
            let mut z = seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) | 1
        },
        finished: None,
    };
    let w0 = &mut sim.workers[0];
    w0.state = State::Running;
    w0.fresh = true;
    w0.stack.push(Entry::Stolen { frame: ROOT });
    w0.regions.push(ROOT);
    w0.stack.push(Entry::Run { task: root, pos: 0 });
    sim.run() + costs.submit_ns
}

/// When, counted from its first park, a waiter in isolation that has been parked for `idle`
/// wakes by itself next: its first timeout is one `period`, and each one after doubles, up to
/// 2 to the [`ISOLATED_PARK_DOUBLINGS`] times it (1, 3, 7, 11, 15... periods for two
/// doublings), as the runtime's. `period` 0 (eager sharing, no heartbeat): at once.
fn park_timeout_after(idle: f64, period: f64) -> f64 {
    if period <= 0.0 {
        return idle;
    }
    let longest = period * f64::from(1u32 << ISOLATED_PARK_DOUBLINGS);
    let (mut t, mut p) = (period, period);
    while t < idle && p < longest {
        p *= 2.0;
        t += p;
    }
    if t < idle {
        t += ((idle - t) / longest).ceil() * longest;
    }
    t
}

impl<'g> Sim<'g> {
    fn run(&mut self) -> f64 {
        loop {
            if let Some(t) = self.finished {
                return t;
            }
            // The running worker with the smallest clock, or a parked one whose timeout
            // comes first.
            let running = self
                .workers
                .iter()
                .enumerate()
                .filter(|(_, w)| w.state == State::Running)
                .min_by(|(_, a), (_, b)| a.clock.total_cmp(&b.clock))
                .map(|(i, w)| (i, w.clock));
            let timed = (self.timers > 0)
                .then(|| {
                    self.workers
                        .iter()
                        .enumerate()
                        .filter_map(|(i, w)| w.timer.map(|t| (i, t)))
                        .min_by(|(_, a), (_, b)| a.total_cmp(b))
                })
                .flatten();
            let (w, at) = match (running, timed) {
                (Some(r), Some(t)) if t.1 < r.1 => t,
                (Some(r), _) => r,
                (None, t) => {
                    t.expect("the simulation cannot stall: some worker runs the unfinished root")
                }
            };
            let me = &mut self.workers[w];
            if me.state != State::Running {
                me.clock = at;
                me.state = State::Running;
                me.timer = None;
                self.timers -= 1;
            }
            self.step(w);
        }
    }

    fn step(&mut self, w: usize) {
        match self.workers[w].stack.last().copied() {
            Some(Entry::Run { task, pos }) if pos < task.steps().len() => {
                if let Some(Entry::Run { pos, .. }) = self.workers[w].stack.last_mut() {
                    *pos += 1;
                }
                match &task.steps()[pos] {
                    Step::Work(ns) => self.workers[w].clock += *ns as f64,
                    Step::Chunk { work, joins, .. } => {
                        if *joins > 0 {
                            self.maybe_promote(w);
                        }
                        self.workers[w].clock += *work as f64 + *joins as f64 * self.costs.join_ns;
                    }
                    Step::Join(a, b) => {
                        let frame = self.frames.len();
                        let parent = *self.workers[w].regions.last().expect("runs in a region");
                        let depth = self.frames[parent].depth + 1;
                        self.frames.push(Frame {
                            b,
                            state: FrameState::Private,
                            parent,
                            depth,
                        });
                        let me = &mut self.workers[w];
                        me.clock += self.costs.join_ns;
                        me.stack.push(Entry::Join {
                            frame,
                            inline_b: false,
                        });
                        me.stack.push(Entry::Run { task: a, pos: 0 });
                        self.maybe_promote(w);
                    }
                }
            }
            Some(Entry::Run { .. }) => {
                self.workers[w].stack.pop();
                self.settle(w);
            }
            _ => self.settle(w),
        }
    }

    /// The closure above the stack's top entry has finished (or an idle worker was woken):
    /// decide what the worker does next.
    fn settle(&mut self, w: usize) {
        match self.workers[w].stack.last().copied() {
            Some(Entry::Join {
                frame,
                inline_b: false,
            }) => match self.frames[frame].state {
                FrameState::Private | FrameState::Promoted => {
                    if self.frames[frame].state == FrameState::Promoted {
                        self.workers[w].deque.retain(|&f| f != frame);
                    }
                    self.frames[frame].state = FrameState::Done { at: f64::NAN };
                    let b = self.frames[frame].b;
                    let me = &mut self.workers[w];
                    me.stack.pop();
                    me.stack.push(Entry::Join {
                        frame,
                        inline_b: true,
                    });
                    me.stack.push(Entry::Run { task: b, pos: 0 });
                }
                FrameState::Done { at } => {
                    let me = &mut self.workers[w];
                    me.clock = me.clock.max(at);
                    me.stack.pop();
                    me.state = State::Running;
                    // The thief has just finished: the next join is shared
                    // (`Worker::share_next_join`).
                    me.fresh = true;
                }
                FrameState::Stolen { thief } => {
                    // Help: steal (from the thief first), or wait to be signalled.
                    let helped = match self.waits {
                        Waits::Anything => self.steal(w, Some(thief)),
                        Waits::Isolated | Waits::IsolatedAncestorsWoken => {
                            self.steal_descendant(w, frame, thief)
                        }
                    };
                    if !helped {
                        self.go_idle(w);
                    }
                }
            },
            Some(Entry::Join { inline_b: true, .. }) => {
                self.workers[w].stack.pop();
            }
            Some(Entry::Stolen { frame }) => {
                self.workers[w].stack.pop();
                self.workers[w].regions.pop();
                let at = self.workers[w].clock;
                if frame == ROOT {
                    self.finished = Some(at);
                    return;
                }
                self.frames[frame].state = FrameState::Done { at };
                // The owner is waiting on this frame if its stack's top is the join.
                if let Some(owner) = self.owner_waiting_on(frame) {
                    self.wake(owner, at);
                }
                if self.workers[w].stack.is_empty() && !self.steal(w, None) {
                    self.go_idle(w);
                }
            }
            Some(Entry::Run { .. }) => {
                unreachable!("settle is called with a finished closure popped")
            }
            None => {
                if !self.steal(w, None) {
                    self.go_idle(w);
                }
            }
        }
    }

    fn owner_waiting_on(&self, frame: usize) -> Option<usize> {
        self.workers.iter().position(|o| {
            matches!(o.state, State::Idle { .. })
                && matches!(o.stack.last(), Some(Entry::Join { frame: f, inline_b: false }) if *f == frame)
        })
    }

    /// The stolen frame worker `w` waits for, if it is waiting for one.
    fn awaited(&self, w: usize) -> Option<usize> {
        match self.workers[w].stack.last() {
            Some(&Entry::Join {
                frame,
                inline_b: false,
            }) if matches!(self.frames[frame].state, FrameState::Stolen { .. }) => Some(frame),
            _ => None,
        }
    }

    /// Whether frame `x` was made under stolen frame `f`: `f` is among the regions `x`'s
    /// parents ran in.
    fn descends(&self, x: usize, f: usize) -> bool {
        let depth = self.frames[f].depth;
        let mut r = self.frames[x].parent;
        while self.frames[r].depth > depth {
            r = self.frames[r].parent;
        }
        r == f
    }

    /// Whether idle worker `u` is one to tell of `work` (a frame just promoted), or, with
    /// `None`, of work in general: a waiter only of what descends from its frame, and only
    /// while it searches (one parked is left to `wake_waiters`, as the runtime's `wake_any`
    /// passes over workers parked in isolation).
    fn to_notify(&self, u: usize, work: Option<usize>, searching: bool) -> bool {
        if self.waits == Waits::Anything {
            return true;
        }
        match self.awaited(u) {
            None => true,
            Some(f) => searching && work.is_some_and(|x| self.descends(x, f)),
        }
    }

    /// Frame `x` was shared at `at`: with isolated waits, wakes the waiter of the region it
    /// was made in (`Worker::push_in` wakes the region's owner), or every waiter it descends
    /// to (`IsolatedAncestorsWoken`); a parked waiter further up searches at its next
    /// timeout.
    fn wake_waiters(&mut self, at: f64, x: usize) {
        let parent = self.frames[x].parent;
        for u in 0..self.workers.len() {
            let State::Idle { since } = self.workers[u].state else {
                continue;
            };
            let Some(f) = self.awaited(u) else {
                continue;
            };
            if !self.descends(x, f) {
                continue;
            }
            let parked = since + self.costs.spin_ns;
            if f == parent || self.waits == Waits::IsolatedAncestorsWoken {
                self.wake(u, at);
            } else if at > parked {
                let t = parked + park_timeout_after(at - parked, self.costs.heartbeat_ns);
                let timer = &mut self.workers[u].timer;
                if timer.is_none() {
                    self.timers += 1;
                }
                *timer = Some(timer.map_or(t, |o| o.min(t)));
            }
        }
    }

    fn go_idle(&mut self, w: usize) {
        let me = &mut self.workers[w];
        me.clock += self.costs.failed_steal_ns;
        me.state = State::Idle { since: me.clock };
    }

    /// Lets idle worker `w` react at model time `at` (a frame it waits for finished, or work
    /// appeared): at once if it is still searching (idle for at most `spin_ns`), after the
    /// wake-up if it has parked. The hand-over itself (`steal_ns`) is charged by `steal`
    /// alone: it is measured from the push to the thief running the task, so a woken thief
    /// pays it once, and an owner told that its stolen frame finished pays nothing more.
    fn wake(&mut self, w: usize, at: f64) {
        if let State::Idle { since } = self.workers[w].state {
            let parked = at - since > self.costs.spin_ns;
            let wake = if parked {
                self.jittered(self.costs.wake_ns)
            } else {
                0.0
            };
            let me = &mut self.workers[w];
            me.clock = since.max(at) + wake;
            me.state = State::Running;
            if me.timer.take().is_some() {
                self.timers -= 1;
            }
        }
    }

    /// The next pseudo-random number (xorshift64).
    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// A pseudo-random number below `n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A latency of mean `ns` with this run's jitter.
    fn jittered(&mut self, ns: f64) -> f64 {
        if self.jitter == 0.0 || ns == 0.0 {
            return ns;
        }
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ns * (1.0 + self.jitter * (2.0 * u - 1.0))
    }

    /// Takes the oldest promoted frame of a victim (`hint` first, else a random one that has
    /// any) and starts its second closure. False if every deque is empty.
    fn steal(&mut self, w: usize, hint: Option<usize>) -> bool {
        let victims: Vec<usize> = (0..self.workers.len())
            .filter(|&v| v != w && !self.workers[v].deque.is_empty())
            .collect();
        self.steal_from(w, hint, &victims)
    }

    /// As [`Sim::steal`], for a worker waiting for stolen frame `awaited`: only a deque's
    /// oldest frame that descends from it, the thief's first.
    fn steal_descendant(&mut self, w: usize, awaited: usize, thief: usize) -> bool {
        let victims: Vec<usize> = (0..self.workers.len())
            .filter(|&v| {
                v != w
                    && self.workers[v]
                        .deque
                        .front()
                        .is_some_and(|&x| self.descends(x, awaited))
            })
            .collect();
        self.steal_from(w, Some(thief), &victims)
    }

    fn steal_from(&mut self, w: usize, hint: Option<usize>, victims: &[usize]) -> bool {
        if victims.is_empty() {
            return false;
        }
        let victim = match hint.filter(|h| victims.contains(h)) {
            Some(h) => h,
            None => victims[self.below(victims.len())],
        };
        let frame = self.workers[victim]
            .deque
            .pop_front()
            .expect("victim has a frame");
        self.frames[frame].state = FrameState::Stolen { thief: w };
        let b = self.frames[frame].b;
        let steal = self.jittered(self.costs.steal_ns);
        let me = &mut self.workers[w];
        let took = me.clock;
        me.clock += steal;
        me.state = State::Running;
        me.fresh = true;
        me.stack.push(Entry::Stolen { frame });
        me.regions.push(frame);
        me.stack.push(Entry::Run { task: b, pos: 0 });
        // Pass the signal on (`Worker::idle_until`): a wake-up may have been spared because
        // this worker was searching.
        if self.workers.iter().any(|o| !o.deque.is_empty()) {
            self.notify_work(took, None);
        }
        true
    }

    /// At a join: share the oldest private frame if this worker just started a job, or if
    /// some worker is idle (and so has asked); only while its deque is empty.
    fn maybe_promote(&mut self, w: usize) {
        let n = self.workers.len();
        let now = self.workers[w].clock;
        let eager = self.costs.heartbeat_ns == 0.0;
        if n == 1 || (!eager && !self.workers[w].deque.is_empty()) {
            self.workers[w].fresh = false;
            return;
        }
        if self.costs.heartbeat_ns == 0.0 {
            // No heartbeat period: every join is shared at once (the seed design's eager
            // push), which makes the zero-cost model the ideal work-stealing scheduler.
            if let Some(&Entry::Join {
                frame,
                inline_b: false,
            }) = self.workers[w].stack.iter().rev().nth(1)
            {
                self.promote(w, frame);
            }
            return;
        }
        let fresh = std::mem::take(&mut self.workers[w].fresh);
        let idle = self
            .workers
            .iter()
            .position(|o| matches!(o.state, State::Idle { since } if since <= now));
        if !fresh && idle.is_none() {
            return;
        }
        let oldest = self.workers[w].stack.iter().find_map(|e| match *e {
            Entry::Join {
                frame,
                inline_b: false,
            } if self.frames[frame].state == FrameState::Private => Some(frame),
            _ => None,
        });
        if let Some(frame) = oldest {
            self.promote(w, frame);
        }
    }

    fn promote(&mut self, w: usize, frame: usize) {
        self.frames[frame].state = FrameState::Promoted;
        let me = &mut self.workers[w];
        me.deque.push_back(frame);
        me.clock += self.costs.promote_ns;
        // The frame is visible once pushed: wake one idle worker then (the runtime's
        // notify_work); it steals when its clock comes.
        let published = me.clock;
        self.notify_work(published, Some(frame));
    }

    /// New work is visible at `at`: as the runtime's `notify_work`, a worker still searching
    /// (idle for at most `spin_ns`) finds it with no wake-up; only if none is, a parked one
    /// is woken. Which one is random (the seed's). `work` is the frame just promoted, if that
    /// is what is new: only a worker that may take it is woken (`to_notify`).
    fn notify_work(&mut self, at: f64, work: Option<usize>) {
        if let (Some(x), false) = (work, self.waits == Waits::Anything) {
            self.wake_waiters(at, x);
        }
        let spin = self.costs.spin_ns;
        let idle = |o: &SimWorker, searching: bool| match o.state {
            State::Idle { since } => (at - since <= spin) == searching,
            State::Running => false,
        };
        for searching in [true, false] {
            let found: Vec<usize> = (0..self.workers.len())
                .filter(|&u| {
                    idle(&self.workers[u], searching) && self.to_notify(u, work, searching)
                })
                .collect();
            if !found.is_empty() {
                let u = found[self.below(found.len())];
                self.wake(u, at);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize, ns: u64) -> TaskNode {
        // A balanced binary tree of joins over `n` leaves of `ns` each.
        fn build(n: usize, ns: u64) -> TaskNode {
            if n == 1 {
                return TaskNode::new().work(ns);
            }
            TaskNode::new().join(build(n / 2, ns), build(n - n / 2, ns))
        }
        build(n, ns)
    }

    /// The shapes the simulator is checked on (the held-out programs' shapes).
    pub(crate) mod shapes {
        use super::super::TaskNode;

        /// A 64-bit LCG: the shapes are the same in every run.
        pub(crate) struct Lcg(pub u64);
        impl Lcg {
            pub(crate) fn below(&mut self, n: u64) -> u64 {
                self.0 = self
                    .0
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (self.0 >> 33) % n
            }
        }

        /// A balanced tree over `n` leaves whose lengths come from `leaf`.
        pub(crate) fn balanced(n: usize, leaf: &mut dyn FnMut() -> u64) -> TaskNode {
            if n <= 1 {
                return TaskNode::new().work(leaf());
            }
            let a = balanced(n / 2, leaf);
            let b = balanced(n - n / 2, leaf);
            TaskNode::new().work(20).join(a, b).work(20)
        }

        /// A chain: strands, each forking a join whose second closure is empty (so that the
        /// graph keeps them apart), no parallelism.
        pub(crate) fn chain(n: usize, ns: u64) -> TaskNode {
            (0..n).fold(TaskNode::new(), |g, _| {
                g.work(ns).join(TaskNode::new().work(ns), TaskNode::new())
            })
        }

        /// A comb: each join's first closure is a leaf, its second the rest of the comb (a
        /// loop forking one iteration at a time), and the other way round.
        pub(crate) fn comb(n: usize, ns: u64, left: bool) -> TaskNode {
            let mut g = TaskNode::new().work(ns);
            for _ in 1..n {
                let leaf = TaskNode::new().work(ns);
                g = if left {
                    TaskNode::new().join(g, leaf)
                } else {
                    TaskNode::new().join(leaf, g)
                };
            }
            g
        }

        /// An unbalanced search tree (UTS's binomial kind): every node works 200-3000 ns and
        /// has two children with probability `q` percent, down to `depth`.
        pub(crate) fn search(rng: &mut Lcg, q: u64, depth: u32) -> TaskNode {
            let g = TaskNode::new().work(200 + rng.below(2_800));
            if depth == 0 || rng.below(100) >= q {
                return g;
            }
            let a = search(rng, q, depth - 1);
            let b = search(rng, q, depth - 1);
            g.join(a, b).work(50)
        }

        /// The first search tree from `rng` with at least `size` steps.
        pub(crate) fn big_search(rng: &mut Lcg, size: usize) -> TaskNode {
            loop {
                let g = search(rng, 70, 18);
                if g.size() >= size {
                    return g;
                }
            }
        }

        /// A loop of `phases` short parallel phases, each a balanced tree of `leaves` leaves
        /// of about `ns` (within 20%), with a short sequential step between phases.
        pub(crate) fn phases(rng: &mut Lcg, phases: usize, leaves: usize, ns: u64) -> TaskNode {
            let mut g = TaskNode::new();
            for _ in 0..phases {
                let mut leaf = || ns * 8 / 10 + rng.below(ns * 4 / 10);
                let a = balanced(leaves / 2, &mut leaf);
                let b = balanced(leaves - leaves / 2, &mut leaf);
                g = g.work(500).join(a, b);
            }
            g
        }

        /// Every shape, named.
        pub(crate) fn all() -> Vec<(&'static str, TaskNode)> {
            let mut rng = Lcg(7);
            vec![
                ("chain", chain(200, 1_000)),
                ("balanced 512 x 1 us", balanced(512, &mut || 1_000)),
                ("balanced, 1-100 us leaves", {
                    let mut r = Lcg(3);
                    balanced(1_000, &mut || 1_000 + r.below(99_000))
                }),
                ("left comb", comb(300, 2_000, true)),
                ("right comb", comb(300, 2_000, false)),
                ("search tree", big_search(&mut rng, 2_000)),
                (
                    "200 phases of 512 x 1 us",
                    phases(&mut rng, 200, 512, 1_000),
                ),
                ("20 phases of 64 x 50 us", phases(&mut rng, 20, 64, 50_000)),
            ]
        }
    }

    #[test]
    fn with_zero_costs_and_eager_sharing_the_time_obeys_the_greedy_bounds() {
        // max(T1/P, T_inf) <= T_P <= T1/P + 2 T_inf: the work and span laws below, and
        // above Brent's bound for a greedy scheduler with the span twice (a work-stealing
        // scheduler's idle workers may miss a frame for a step).
        // Isolated waits have no such theorem (a waiter may idle beside work it may not
        // take), but these shapes keep within it.
        for (name, g) in shapes::all() {
            let (t1, tinf) = (g.total_work() as f64, g.total_span() as f64);
            for p in [1, 2, 3, 4, 8, 16, 64] {
                for waits in [Waits::Anything, Waits::Isolated] {
                    let tp = simulate(&g, p, &Costs::zero(), waits, 0);
                    let pf = p as f64;
                    assert!(
                        tp >= (t1 / pf).max(tinf) - 1e-6 && tp <= t1 / pf + 2.0 * tinf + 1e-6,
                        "{name} p={p} {waits:?}: T_P {tp} T1 {t1} T_inf {tinf}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_parked_waiters_timeout_doubles_up_to_four_periods() {
        // The runtime's timeouts: 1, 2, 4, 4, 4... periods, so it wakes at 1, 3, 7, 11, 15.
        let wakes = |idle: f64| park_timeout_after(idle * 100.0, 100.0) / 100.0;
        let seen: Vec<f64> = [0.5, 1.0, 1.5, 3.0, 3.1, 7.0, 7.5, 12.0, 40.0]
            .into_iter()
            .map(wakes)
            .collect();
        assert_eq!(seen, [1.0, 1.0, 3.0, 3.0, 7.0, 7.0, 11.0, 15.0, 43.0]);
        // Eager sharing has no heartbeat: the waiter searches when the work appears.
        assert_eq!(park_timeout_after(250.0, 0.0), 250.0);
    }

    /// A leaf of `ns` nanoseconds.
    fn leaf(ns: u64) -> TaskNode {
        TaskNode::new().work(ns)
    }

    #[test]
    fn an_isolated_waiter_leaves_unrelated_work_to_others() {
        // Three workers, eager sharing, no costs. Worker 0 shares B, then A's second half;
        // the two others take them at 0. Worker 0 runs A's first half (10) and waits for
        // the second (until 1000); at 100 B's thief shares B's second half (2000 long).
        // Isolated, no one may take it until A's thief is free at 1000: 1000 + 2000.
        // Stealing anything, worker 0 takes it at 100: 100 + 2000.
        let a = TaskNode::new().join(leaf(10), leaf(1_000));
        let b = TaskNode::new().work(100).join(leaf(2_000), leaf(2_000));
        let g = TaskNode::new().join(a, b);
        for seed in 0..8 {
            let run = |waits| simulate_from(&g, 3, &Costs::zero(), waits, -1e18, seed, 0.0);
            assert_eq!(run(Waits::Isolated), 3_000.0, "seed {seed}");
            assert_eq!(run(Waits::Anything), 2_100.0, "seed {seed}");
        }
    }

    #[test]
    fn an_isolated_waiter_helps_its_thieves() {
        // Worker 0 waits for B (taken by worker 1 at 0), whose second half worker 1 shares
        // at 100: it descends from B, so worker 0 takes it, as it would stealing anything.
        let b = TaskNode::new().work(100).join(leaf(2_000), leaf(2_000));
        let g = TaskNode::new().join(leaf(10), b);
        for waits in [Waits::Isolated, Waits::Anything] {
            assert_eq!(
                simulate_from(&g, 2, &Costs::zero(), waits, -1e18, 0, 0.0),
                2_100.0
            );
        }
    }

    #[test]
    fn at_two_workers_isolation_changes_nothing() {
        // The one other worker is the thief of the frame a waiter waits for, and everything
        // on the thief's deque was made under that frame: the rules take the same frames.
        for (name, g) in shapes::all() {
            for costs in [Costs::zero(), Costs::typical()] {
                for seed in 0..4 {
                    // Without jitter: the rules draw their random numbers in other orders.
                    let run = |waits| simulate_from(&g, 2, &costs, waits, -1e18, seed, 0.0);
                    assert_eq!(
                        run(Waits::Isolated),
                        run(Waits::Anything),
                        "{name} seed {seed}"
                    );
                }
            }
        }
    }

    /// Costs as calibrated on the development VM: a quiet run (hand-over 0.8 us, wake-up
    /// 3 us, search 90 us), a typical one (2 us, 66 us, 50 us: a wake-up longer than the
    /// search) and a busy one (65 us, 82 us, 47 ms).
    fn calibrated() -> [Costs; 3] {
        let with = |steal_ns, wake_ns, spin_ns| Costs {
            steal_ns,
            wake_ns,
            spin_ns,
            ..Costs::typical()
        };
        [
            with(800.0, 3_000.0, 90_000.0),
            with(2_000.0, 66_000.0, 50_000.0),
            with(65_000.0, 82_000.0, 47e6),
        ]
    }

    #[test]
    fn a_nudge_of_every_cost_moves_no_median_by_more_than_5_percent() {
        let nudge = |c: &Costs| {
            let f = 1.002;
            Costs {
                join_ns: c.join_ns * f,
                promote_ns: c.promote_ns * f,
                steal_ns: c.steal_ns * f,
                failed_steal_ns: c.failed_steal_ns * f,
                wake_ns: c.wake_ns * f,
                submit_ns: c.submit_ns * f,
                spin_ns: c.spin_ns * f,
                ..c.clone()
            }
        };
        let mut rng = shapes::Lcg(11);
        let held_out = [
            ("search tree", shapes::big_search(&mut rng, 2_000)),
            (
                "50 phases of 512 x 1 us",
                shapes::phases(&mut rng, 50, 512, 1_000),
            ),
            ("balanced 512 x 1 us", shapes::balanced(512, &mut || 1_000)),
            (
                "20 phases of 64 x 50 us",
                shapes::phases(&mut rng, 20, 64, 50_000),
            ),
        ];
        for costs in calibrated() {
            for (name, g) in &held_out {
                let profile = Profile::from_graph(g.clone(), &costs);
                for p in [16, 64] {
                    let a = profile.predict(p, &costs);
                    let b = profile.predict(p, &nudge(&costs));
                    let moved = (b.seconds / a.seconds - 1.0).abs();
                    assert!(
                        a.seconds_min <= a.seconds && a.seconds <= a.seconds_max,
                        "{a:?}"
                    );
                    assert!(moved <= 0.05, "{name} p={p} {costs:?}: {a:?} -> {b:?}");
                }
            }
        }
    }

    fn sim_ns(g: &TaskNode, p: usize) -> f64 {
        simulate(g, p, &Costs::zero(), Waits::Anything, 0)
    }

    #[test]
    fn a_chain_has_no_speedup() {
        let mut g = TaskNode::new();
        for _ in 0..100 {
            g = g.work(1_000);
        }
        for p in [1, 2, 8, 64] {
            assert_eq!(sim_ns(&g, p), 100_000.0);
        }
    }

    #[test]
    fn equal_leaves_with_zero_costs_take_t1_over_p_in_whole_leaves() {
        for (n, p) in [
            (64, 1),
            (64, 2),
            (64, 4),
            (64, 8),
            (64, 64),
            (100, 8),
            (7, 2),
            (3, 4),
        ] {
            let g = leaves(n, 1_000);
            let expected = n.div_ceil(p) as f64 * 1_000.0;
            assert_eq!(sim_ns(&g, p), expected, "n={n} p={p}");
        }
    }

    #[test]
    fn a_dominating_span_bounds_the_time() {
        // One long strand beside many short ones: nothing finishes before the long one.
        let g = TaskNode::new().join(TaskNode::new().work(1_000_000), leaves(32, 1_000));
        for p in [2, 4, 16] {
            assert_eq!(sim_ns(&g, p), 1_000_000.0, "p={p}");
        }
        assert_eq!(sim_ns(&g, 1), 1_032_000.0);
    }

    #[test]
    fn predictions_respect_the_work_and_span_laws() {
        let costs = Costs::typical();
        let g = TaskNode::new()
            .work(5_000)
            .join(leaves(300, 20_000), leaves(7, 90_000))
            .work(3_000);
        let profile = Profile::from_graph(g, &costs);
        let t1 = profile.work().as_nanos() as f64 * 1e-9;
        let span = profile.span().as_nanos() as f64 * 1e-9;
        for p in [1, 2, 3, 4, 8, 16, 64] {
            let pred = profile.predict(p, &costs);
            assert!(pred.simulated);
            assert!(
                pred.seconds >= t1 / p as f64 && pred.seconds >= span,
                "p={p} {pred:?}"
            );
            assert!(
                pred.speedup <= pred.speedup_upper * 1.0001,
                "p={p} {pred:?}"
            );
        }
    }

    /// Costs whose sum identifies what was charged: every figure a different power of ten.
    fn marked_costs(wake_ns: f64, spin_ns: f64) -> Costs {
        Costs {
            join_ns: 1.0,
            promote_ns: 10.0,
            steal_ns: 100.0,
            failed_steal_ns: 0.0,
            wake_ns,
            submit_ns: 0.0,
            spin_ns,
            heartbeat_ns: 100_000.0,
            ..Costs::zero()
        }
    }

    #[test]
    fn a_hand_over_is_charged_steal_ns_once() {
        // join(1000, 1000) on two workers, the second one searching (idle since 0, spin
        // 10 us). Worker 0: the join (1), the root's first join is shared (promote 10),
        // and at 11 the frame is visible; worker 1 is woken at 11 with no wake-up (idle
        // 11 ns < spin), steals (100) and runs b from 111 to 1111. Worker 0 runs a from 11 to
        // 1011, finds b stolen and nothing to steal, waits, and is told at 1111 (idle 100 ns:
        // no wake-up, no second hand-over). Before, the woken thief paid steal_ns in the
        // wake and again in the steal, and the owner a third time: 1301.
        let g = TaskNode::new().join(TaskNode::new().work(1_000), TaskNode::new().work(1_000));
        assert_eq!(
            simulate_from(
                &g,
                2,
                &marked_costs(5_000.0, 10_000.0),
                Waits::Isolated,
                0.0,
                0,
                0.0
            ),
            1_111.0
        );
        // Without any costs but the hand-over: 1000 + 100.
        let mut costs = Costs::zero();
        costs.steal_ns = 100.0;
        costs.heartbeat_ns = 100_000.0;
        assert_eq!(
            simulate_from(&g, 2, &costs, Waits::Isolated, 0.0, 0, 0.0),
            1_100.0
        );
    }

    #[test]
    fn a_worker_idle_less_than_spin_ns_pays_no_wake_up() {
        let g = TaskNode::new().join(TaskNode::new().work(1_000), TaskNode::new().work(1_000));
        // As above, but the owner waits 100 ns for its thief: with spin 50 ns it has parked
        // and pays the wake-up (5000) when told; with spin 200 ns it has not.
        assert_eq!(
            simulate_from(
                &g,
                2,
                &marked_costs(5_000.0, 50.0),
                Waits::Isolated,
                0.0,
                0,
                0.0
            ),
            1_111.0 + 5_000.0
        );
        assert_eq!(
            simulate_from(
                &g,
                2,
                &marked_costs(5_000.0, 200.0),
                Waits::Isolated,
                0.0,
                0,
                0.0
            ),
            1_111.0
        );
        // A thief that has searched for exactly spin_ns (11 ns) has not parked yet (the
        // owner, waiting 100 ns, has). One parked since long ago is woken at 11 + 5000 and
        // comes too late: worker 0 took b back at 1011 and ran it inline (2011).
        assert_eq!(
            simulate_from(
                &g,
                2,
                &marked_costs(5_000.0, 11.0),
                Waits::Isolated,
                0.0,
                0,
                0.0
            ),
            1_111.0 + 5_000.0
        );
        assert_eq!(
            simulate_from(
                &g,
                2,
                &marked_costs(5_000.0, 1e9),
                Waits::Isolated,
                -1e10,
                0,
                0.0
            ),
            2_011.0
        );
    }

    #[test]
    fn costs_are_charged() {
        let mut costs = Costs::zero();
        costs.join_ns = 10.0;
        costs.submit_ns = 100.0;
        let g = leaves(8, 1_000);
        // One worker: 7 joins inline, no sharing.
        assert_eq!(
            simulate(&g, 1, &costs, Waits::Isolated, 0),
            8_000.0 + 70.0 + 100.0
        );
    }
}
