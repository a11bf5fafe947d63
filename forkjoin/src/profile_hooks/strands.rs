//! The profiler's instrument (feature `profile`): strands timed at every join while a profile
//! runs, by the wall clock on workers and the thread's CPU clock outside pools, and their task
//! graph, for `forkjoin-profile` (DESIGN.md, section 12, "Measuring" and "Any program").

use super::graph::TaskNode;
use std::cell::Cell;
use std::panic::Location;
use std::ptr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::OnceLock;

/// Set while a pool is profiled: every join then takes the slow path, where it is timed, and
/// a loop splits wherever its rest is worth sharing (DESIGN.md, section 12, "Measuring").
pub(crate) struct ProfilingFlag(AtomicBool);

impl ProfilingFlag {
    pub(crate) const fn new() -> ProfilingFlag {
        ProfilingFlag(AtomicBool::new(false))
    }

    /// Whether a profile is being taken on this pool.
    #[inline(always)]
    pub(crate) fn is_set(&self) -> bool {
        // Relaxed: set before the profiled closure starts; its parts reach workers via queues.
        self.0.load(Relaxed)
    }

    /// Sets the flag to `on`; returns what it was.
    pub(crate) fn replace(&self, on: bool) -> bool {
        // Relaxed: a stale `true` only sends one more join to the slow path, timing nothing.
        self.0.swap(on, Relaxed)
    }
}

impl Session {
    /// A session whose strands cost `timer_ns` of their own, whose steals cost `burden_ns`,
    /// and whose graph (if `record`) is coarsened to stay under about `max_steps` steps.
    pub fn new(timer_ns: u64, burden_ns: u64, record: bool, max_steps: usize) -> Session {
        let max = max_steps.max(16);
        Session {
            timer_ns,
            burden_ns,
            record,
            threshold: AtomicU64::new(0),
            live: AtomicUsize::new(0),
            trigger: AtomicUsize::new(if max_steps == 0 { usize::MAX } else { max }),
            max_steps: max,
        }
    }
}

/// A join inside a timed closure: its strand closed, its closures timed wherever they run.
pub(crate) struct OpenJoin(*mut Acc);

/// The timed join that `join_slow` opens, if the calling closure is part of a profile.
#[inline]
pub(crate) fn open_join() -> Option<OpenJoin> {
    let parent = CURRENT_ACC.with(Cell::get);
    if parent.is_null() {
        // A job that is not part of the profiled closure (or a scope's task): not timed.
        return None;
    }
    // SAFETY: non-null: the accumulator of the `measured` call below us, which outlives this join.
    unsafe { (*parent).close_strand() };
    Some(OpenJoin(parent))
}

impl OpenJoin {
    /// `f`, timed as a closure of this join wherever it runs.
    pub(crate) fn timed<R>(
        &self,
        f: impl FnOnce() -> R + Send,
    ) -> impl FnOnce() -> (R, JoinTotals) + Send {
        // SAFETY: the parent accumulator is live (see `open_join`).
        let (session, site, at) =
            unsafe { ((*self.0).session, (*self.0).site, (*self.0).reached()) };
        // A join's closures run on workers, timed by the wall clock.
        move || {
            let (r, acc) = measured_in(session, site, at, false, f);
            (r, acc.totals())
        }
    }

    /// Both closures are done: combine their totals and open the parent's next strand.
    pub(crate) fn close<RA, RB>(
        self,
        (ra, acc_a): (RA, JoinTotals),
        (rb, acc_b): (RB, JoinTotals),
    ) -> (RA, RB) {
        // SAFETY: the parent accumulator is live (`open_join`); this thread runs its closure.
        unsafe {
            (*self.0).combine(acc_a, acc_b);
            (*self.0).open_strand();
        }
        (ra, rb)
    }
}

/// The burdened span of a join of children with burdened spans `a` and `b`: the second
/// child is the one a thief takes, so its path pays the burden.
pub fn burdened_join(a: u64, b: u64, burden: u64) -> u64 {
    a.max(b + burden)
}

/// The state of one profile, shared by all strands of the run.
pub struct Session {
    /// The profiler's own cost per strand, subtracted from every strand (ns).
    pub timer_ns: u64,
    /// A steal's cost, added at every join on the burdened span (ns).
    pub burden_ns: u64,
    /// Whether the task graph is recorded.
    pub record: bool,
    /// Joins with less work below them than this become chunks (doubles as the graph grows).
    pub threshold: AtomicU64,
    /// Steps currently held by the graph under construction.
    live: AtomicUsize,
    /// `live` above this raises `threshold`.
    trigger: AtomicUsize,
    max_steps: usize,
}

/// A pointer to the session that timed closures carry to whichever worker runs them.
#[derive(Clone, Copy)]
pub(crate) struct SessionRef(*const Session);

// SAFETY: `measured`'s borrowed session outlives every join inside; read or updated atomically.
unsafe impl Send for SessionRef {}

impl SessionRef {
    /// Not tied to a borrow: the session outlives every accumulator and task.
    fn get<'s>(self) -> &'s Session {
        // SAFETY: see above.
        unsafe { &*self.0 }
    }
}

/// What a join's closure hands its parent: its totals and graph, not its whole accumulator,
/// which its results copied several times (docs/measurements.md, section 12).
pub(crate) struct JoinTotals {
    work: u64,
    span: u64,
    bspan: u64,
    joins: u64,
    depth: u64,
    strands: u64,
    blocked: u64,
    graph: TaskNode,
}

/// The totals of one closure's execution so far, and its open strand.
pub struct Acc {
    session: SessionRef,
    /// The call site of the program's profile this closure belongs to (its innermost entry).
    site: Site,
    /// Where it started on the outermost timed closure's span and burdened span.
    offset: (u64, u64),
    /// When the open strand started: by `outside_now` if `outside`, else both clocks `now`.
    start: Stamp,
    /// Whether a strand is open (not while it waits for its parts, nor in `detached`).
    open: bool,
    /// On a thread outside every pool: timed by `outside_now`.
    outside: bool,
    /// Both clocks at its start and (outside every pool) at its last strand's end: the bounds
    /// of a call from outside, for the program's time between calls.
    pub(crate) first: Stamp,
    pub(crate) last: Stamp,
    /// Total time of the closure's strands (ns).
    pub work: u64,
    /// Its critical path (ns).
    pub span: u64,
    /// Its critical path with a steal's burden at every join (ns).
    pub bspan: u64,
    /// Joins inside it.
    pub joins: u64,
    /// Joins on its longest chain.
    pub depth: u64,
    /// Strands timed.
    pub strands: u64,
    /// Time its strands on threads outside every pool did not run (wall-clock time less CPU
    /// time: blocked, asleep or preempted), ns; neither work nor span (DESIGN.md, section 12).
    pub blocked: u64,
    /// Its task graph, if the session records one.
    pub graph: TaskNode,
}

impl Acc {
    fn new(session: SessionRef, site: Site, offset: (u64, u64), outside: bool) -> Acc {
        Acc {
            session,
            site,
            offset,
            start: Stamp::default(),
            open: false,
            outside,
            first: Stamp::default(),
            last: Stamp::default(),
            work: 0,
            span: 0,
            bspan: 0,
            joins: 0,
            depth: 0,
            strands: 0,
            blocked: 0,
            graph: TaskNode::new(),
        }
    }

    /// Where the closure's open strand started, on the outermost closure's span and
    /// burdened span (after `close_strand`: where its next one starts).
    fn reached(&self) -> (u64, u64) {
        (self.offset.0 + self.span, self.offset.1 + self.bspan)
    }

    /// Starts the next strand.
    fn open_strand(&mut self) {
        self.start = if self.outside {
            outside_now()
        } else {
            let wall = now();
            Stamp { cpu: wall, wall }
        };
        self.open = true;
    }

    /// Ends the open strand now: its time by the wall clock on a worker, by the thread's
    /// CPU clock outside every pool (what the thread did not run is `blocked`).
    fn close_strand(&mut self) {
        self.open = false;
        let s = self.session.get();
        let elapsed = if self.outside {
            let t = outside_now();
            let cpu = t.cpu.saturating_sub(self.start.cpu);
            self.blocked += t.wall.saturating_sub(self.start.wall).saturating_sub(cpu);
            self.last = t;
            cpu
        } else {
            now().saturating_sub(self.start.wall)
        };
        let d = elapsed.saturating_sub(s.timer_ns);
        self.work += d;
        self.span += d;
        self.bspan += d;
        self.strands += 1;
        if s.record {
            let before = self.graph.size;
            self.graph.push_work(d);
            s.live.fetch_add(self.graph.size - before, Relaxed);
        }
    }

    /// What the parent of a join's closure adds.
    fn totals(self) -> JoinTotals {
        JoinTotals {
            work: self.work,
            span: self.span,
            bspan: self.bspan,
            joins: self.joins,
            depth: self.depth,
            strands: self.strands,
            blocked: self.blocked,
            graph: self.graph,
        }
    }

    /// Adds a finished join of `a` and `b`.
    fn combine(&mut self, a: JoinTotals, b: JoinTotals) {
        let s = self.session.get();
        self.work += a.work + b.work;
        self.span += a.span.max(b.span);
        self.bspan += burdened_join(a.bspan, b.bspan, s.burden_ns);
        self.joins += 1 + a.joins + b.joins;
        self.depth += 1 + a.depth.max(b.depth);
        self.strands += a.strands + b.strands;
        self.blocked += a.blocked + b.blocked;
        if s.record {
            self.record_join(a.graph, b.graph);
        }
    }

    /// Adds `next`, which ran after this closure's last strand and before its next one (a
    /// call handed to a worker while this closure waited): work and span both add.
    fn sequence(&mut self, next: Acc) {
        self.work += next.work;
        self.span += next.span;
        self.bspan += next.bspan;
        self.joins += next.joins;
        self.depth += next.depth;
        self.strands += next.strands;
        self.blocked += next.blocked;
        if self.session.get().record {
            self.graph.push_task(next.graph);
        }
    }

    fn record_join(&mut self, a: TaskNode, b: TaskNode) {
        let s = self.session.get();
        // Relaxed (all three): they only steer coarsening; any value gives a correct graph.
        let threshold = s.threshold.load(Relaxed);
        if a.work + b.work < threshold {
            s.live.fetch_sub(a.size + b.size, Relaxed);
            s.live.fetch_add(1, Relaxed);
            self.graph
                .push_chunk(a.work + b.work, a.span.max(b.span), 1 + a.joins + b.joins);
        } else {
            let live = s.live.fetch_add(1, Relaxed) + 1;
            self.graph.push_join(a, b);
            let trigger = s.trigger.load(Relaxed);
            if live > trigger
                && s.trigger
                    .compare_exchange(trigger, live + s.max_steps / 4, Relaxed, Relaxed)
                    .is_ok()
            {
                // Raise the threshold (earlier subtrees are coarsened at the end); the next
                // raise waits for another quarter of the bound, once per growth spurt.
                s.threshold.store((threshold * 2).max(1_000), Relaxed);
            }
        }
    }
}

thread_local! {
    /// The accumulator of the closure this thread is running inside a profile, or null.
    static CURRENT_ACC: Cell<*mut Acc> = const { Cell::new(ptr::null_mut()) };
}

/// Nanoseconds since the profiler's first read, from the cheap clock's ticks (the time-stamp
/// counter, which counts at a constant rate as the wall clock): a profiled join reads it six
/// times, and `Instant::now` costs more (DESIGN.md, section 12, "Measuring").
#[inline]
fn now() -> u64 {
    use crate::clock;
    // The first tick, and nanoseconds per tick in 32.32 fixed point.
    static SCALE: OnceLock<(u64, u64)> = OnceLock::new();
    let &(first, per_tick) =
        SCALE.get_or_init(|| (clock::now(), (1000 << 32) / clock::per_microsecond()));
    ((clock::now().saturating_sub(first) as u128 * per_tick as u128) >> 32) as u64
}

/// Both clocks of a thread outside every pool, read together (ns): its CPU time (the wall
/// clock where that is not used, `OutsideClock`) and the wall clock (as `now`).
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Stamp {
    pub(crate) cpu: u64,
    pub(crate) wall: u64,
}

/// The clock that times strands on threads outside every pool.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum OutsideClock {
    /// The thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`).
    ThreadCpu,
    /// The wall clock: the thread's CPU clock cannot be read here.
    WallUnavailable,
    /// The wall clock, as asked (`FORKJOIN_PROFILE_CLOCK=wall`).
    WallAsked,
}

impl OutsideClock {
    /// How a profile names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            OutsideClock::ThreadCpu => "thread_cpu",
            OutsideClock::WallUnavailable => "wall: no thread CPU clock",
            OutsideClock::WallAsked => "wall: asked",
        }
    }
}

/// 0: not chosen yet; else `OutsideClock` as 1, 2, 3.
static OUTSIDE_CLOCK: AtomicU8 = AtomicU8::new(0);

/// Chooses the clock of strands outside every pool: the wall clock if `wall`, else the
/// thread's CPU clock where it can be read. Called before the program's first call site.
pub(crate) fn choose_outside_clock(wall: bool) -> OutsideClock {
    let clock = if wall {
        OutsideClock::WallAsked
    } else if thread_cpu_ns().is_some() {
        OutsideClock::ThreadCpu
    } else {
        OutsideClock::WallUnavailable
    };
    // Relaxed: stored before `PROGRAM`'s `OnceLock` is initialised (`call_sites::start`), whose
    // acquire read orders it before a call site's reads; a thread reading 0 probes itself.
    OUTSIDE_CLOCK.store(clock as u8 + 1, Relaxed);
    clock
}

/// The clock of strands outside every pool (chosen at first use if nobody chose it).
pub(crate) fn outside_clock() -> OutsideClock {
    // Relaxed: see `choose_outside_clock`.
    match OUTSIDE_CLOCK.load(Relaxed) {
        1 => OutsideClock::ThreadCpu,
        2 => OutsideClock::WallUnavailable,
        3 => OutsideClock::WallAsked,
        _ => choose_outside_clock(false),
    }
}

/// This thread's CPU time (ns), if its clock can be read.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid `timespec` for the call to fill.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return None;
    }
    Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

/// Both clocks of this thread, for a strand outside every pool.
pub(crate) fn outside_now() -> Stamp {
    let wall = now();
    let cpu = match outside_clock() {
        // (A clock that fails after it was probed: the wall clock, for this reading.)
        OutsideClock::ThreadCpu => thread_cpu_ns().unwrap_or(wall),
        _ => wall,
    };
    Stamp { cpu, wall }
}

/// Runs `f` as a profiled closure; returns its result and a fresh accumulator of its strands
/// (timed by the thread's CPU clock on a thread outside every pool, see `Acc::blocked`).
pub fn measured<R>(session: &Session, f: impl FnOnce() -> R) -> (R, Acc) {
    measured_at(session, None, f)
}

/// Whether this thread is outside every pool (a borrowed slot's thread is a worker).
fn outside_here() -> bool {
    crate::registry::Worker::current_ref().is_none()
}

/// A call site of a program's profile (`instrument::call_sites`), if the closure has one.
pub(crate) type Site = Option<&'static Location<'static>>;

/// `measured`, for the entry at `site` into the pool.
pub(crate) fn measured_at<R>(session: &Session, site: Site, f: impl FnOnce() -> R) -> (R, Acc) {
    measured_in(SessionRef(session), site, (0, 0), outside_here(), f)
}

/// Runs `f`, an entry at `site` inside this thread's profiled closure, as a part of it
/// measured apart (`record` gets its totals; `paused`). Only where `measured_site` is `Some`.
pub(crate) fn measured_part<R>(
    site: &'static Location<'static>,
    f: impl FnOnce() -> R,
    record: impl FnOnce(&Acc),
) -> R {
    let parent = CURRENT_ACC.with(Cell::get);
    assert!(
        !parent.is_null(),
        "measured_part outside a profiled closure"
    );
    // SAFETY: non-null: this thread's current accumulator.
    unsafe {
        paused(parent, |session, _, at| {
            let (r, acc) = measured_in(session, Some(site), at, outside_here(), f);
            record(&acc);
            (r, Some(acc))
        })
    }
}

/// Ends `parent`'s strand, runs `part` (a piece measured apart, given the session, site and
/// reach), adds the piece's totals in sequence if it ran, and opens the next strand.
///
/// # Safety
/// `parent` is this thread's current accumulator, not null.
unsafe fn paused<T>(
    parent: *mut Acc,
    part: impl FnOnce(SessionRef, Site, (u64, u64)) -> (T, Option<Acc>),
) -> T {
    // SAFETY: our contract: the accumulator of a `measured` call below us, this thread's only.
    let (session, site, at) = unsafe {
        (*parent).close_strand();
        ((*parent).session, (*parent).site, (*parent).reached())
    };
    let (t, acc) = part(session, site, at);
    // SAFETY: as above; `part` has returned on this thread.
    unsafe {
        if let Some(acc) = acc {
            (*parent).sequence(acc);
        }
        (*parent).open_strand();
    }
    t
}

/// `measured`, for a timed closure that carries its session and site to another worker;
/// `outside`: it runs on this thread, outside every pool (timed by its CPU clock).
fn measured_in<R>(
    session: SessionRef,
    site: Site,
    offset: (u64, u64),
    outside: bool,
    f: impl FnOnce() -> R,
) -> (R, Acc) {
    let mut acc = Acc::new(session, site, offset, outside);
    let p: *mut Acc = &mut acc;
    // SAFETY: `p` points to `acc` on this stack; until `acc` moves out every access goes
    // through `p` (the thread-local copy serves only joins inside `f`, on this thread).
    let restore = unsafe { begin_measured(p) };
    let r = f();
    // SAFETY: as above; `f` has returned (nothing reads the thread-local's `p` before `restore`).
    unsafe { (*p).close_strand() };
    drop(restore);
    (r, acc)
}

/// Makes `acc` this thread's current accumulator and opens its first strand; the guard
/// restores the one before. Not generic (DESIGN.md, section 2, "Generic code kept small").
///
/// # Safety
/// `acc` is live and only reached through this pointer until the guard is dropped.
#[inline(never)]
unsafe fn begin_measured(acc: *mut Acc) -> Resume {
    let restore = Resume {
        outer: CURRENT_ACC.with(|c| c.replace(acc)),
        paused: false,
    };
    // SAFETY: our contract.
    unsafe {
        (*acc).open_strand();
        (*acc).first = (*acc).start;
    }
    restore
}

/// At `process::exit` inside a profiled closure: gives `record` this thread's innermost
/// closure's site, its totals with its strand closed now, and how long it ran (ns).
pub(crate) fn unfinished(record: impl FnOnce(&'static Location<'static>, &Acc, u64)) {
    // SAFETY: if non-null, the accumulator of a `measured` call below us, never returned to.
    let Some(acc) = (unsafe { CURRENT_ACC.with(Cell::get).as_mut() }) else {
        return;
    };
    if acc.open {
        acc.close_strand();
    }
    if let Some(site) = acc.site {
        record(site, acc, now().saturating_sub(acc.first.wall));
    }
}

/// The call site of the profiled closure this thread runs, `None` if it runs none.
pub(crate) fn measured_site() -> Option<Site> {
    let acc = CURRENT_ACC.with(Cell::get);
    // SAFETY: non-null: the accumulator of the `measured` call below us on this thread.
    (!acc.is_null()).then(|| unsafe { (*acc).site })
}

/// Runs `hand_off(op)`, which runs `op` on a worker and waits; inside a profiled closure,
/// `op` is a piece of it measured apart (`paused`): the wait is not work.
pub(crate) fn handed_over<W: ?Sized>(
    op: &mut (dyn FnMut(&W) + Send),
    hand_off: impl FnOnce(&mut (dyn FnMut(&W) + Send)),
) {
    let parent = CURRENT_ACC.with(Cell::get);
    if parent.is_null() {
        return hand_off(op);
    }
    // SAFETY: non-null: this thread's current accumulator.
    unsafe {
        paused(parent, |session, site, at| {
            let mut done = None;
            let slot = &mut done;
            // `op` runs on a worker (a borrowed slot's thread is one while it runs it).
            hand_off(&mut move |t| *slot = Some(measured_in(session, site, at, false, || op(t)).1));
            ((), done)
        })
    }
}

/// Runs a job taken from a queue outside any strand, pausing this thread's (not its work).
pub(crate) fn detached<R>(f: impl FnOnce() -> R) -> R {
    let outer = CURRENT_ACC.with(|c| c.replace(ptr::null_mut()));
    // SAFETY: non-null: the accumulator of the `measured` call below us on this thread.
    let paused = !outer.is_null() && unsafe { (*outer).open };
    if paused {
        // SAFETY: as above; only this thread touches it.
        unsafe { (*outer).close_strand() };
    }
    let _resume = Resume { outer, paused };
    f()
}

/// Restores the thread's previous accumulator (also on unwind), reopening its strand if
/// `detached` paused it.
struct Resume {
    outer: *mut Acc,
    paused: bool,
}

impl Drop for Resume {
    fn drop(&mut self) {
        CURRENT_ACC.with(|c| c.set(self.outer));
        if self.paused {
            // SAFETY: this thread's accumulator (see `detached`), live below us.
            unsafe { (*self.outer).open_strand() };
        }
    }
}

/// A waiting timed closure's scope or broadcast tasks, timed as Cilk's spawns (DESIGN.md,
/// section 12); `None` outside one, or if the session records a graph (no node for a task).
pub(crate) fn open_tasks() -> Option<TimedTasks> {
    let owner = CURRENT_ACC.with(Cell::get);
    // SAFETY: non-null: the accumulator of the `measured` call below us on this thread.
    if owner.is_null() || unsafe { (*owner).session.get().record } {
        return None;
    }
    // SAFETY: as above; only this thread touches it.
    let (session, site, opened_at) = unsafe {
        (*owner).close_strand();
        (*owner).open_strand();
        ((*owner).session, (*owner).site, (*owner).reached())
    };
    Some(TimedTasks {
        session,
        site,
        owner,
        opened_at,
        work: AtomicU64::new(0),
        ends: [AtomicU64::new(0), AtomicU64::new(0)],
        joins: AtomicU64::new(0),
        depth: AtomicU64::new(0),
        strands: AtomicU64::new(0),
    })
}

/// See `open_tasks`. Its totals are atomics: tasks end on any worker; the scope's count of
/// pending tasks (or the broadcast's latch) orders each task's additions before `close`.
pub(crate) struct TimedTasks {
    session: SessionRef,
    site: Site,
    /// The accumulator of the closure that waits, on the thread that opened this.
    owner: *mut Acc,
    /// Where that closure had reached when it opened the tasks.
    opened_at: SpawnPoint,
    work: AtomicU64,
    /// The furthest end of any task on the span and on the burdened span.
    ends: [AtomicU64; 2],
    /// The tasks (each one a join of its owner's) and the joins inside them.
    joins: AtomicU64,
    depth: AtomicU64,
    strands: AtomicU64,
}

/// Where a task was spawned: the spawning closure's reach on the span and burdened span.
pub(crate) type SpawnPoint = (u64, u64);

// SAFETY: `owner` is used only on the opening thread (`wait`, `close`); tasks use atomics.
unsafe impl Sync for TimedTasks {}
// SAFETY: as above.
unsafe impl Send for TimedTasks {}

impl TimedTasks {
    /// Where the waiting closure had reached at `open_tasks`: for tasks handed out at once.
    pub(crate) fn opened(&self) -> SpawnPoint {
        self.opened_at
    }

    /// A task is spawned now by this thread: the point on the spawner's path it starts from.
    pub(crate) fn spawned(&self) -> SpawnPoint {
        // SAFETY: if non-null, this thread's current accumulator (a spawn ends its strand).
        let Some(spawner) = (unsafe { CURRENT_ACC.with(Cell::get).as_mut() }) else {
            // A thread outside every timed closure: from where the scope opened.
            return self.opened_at;
        };
        // Outside every pool the dear clock is not read per spawn: tasks start where the open
        // strand started (the span falls short by at most that strand).
        if !spawner.outside {
            spawner.close_strand();
            spawner.open_strand();
        }
        spawner.reached()
    }

    /// Runs `f`, the task spawned at `at`, timed, and adds it to the tasks' totals.
    pub(crate) fn run(&self, at: SpawnPoint, f: impl FnOnce()) {
        // Tasks run on workers (jobs run only there).
        let ((), acc) = measured_in(self.session, self.site, at, false, f);
        // Relaxed (all): `close` reads them after the scope's own synchronisation.
        self.work.fetch_add(acc.work, Relaxed);
        self.ends[0].fetch_max(at.0 + acc.span, Relaxed);
        self.ends[1].fetch_max(at.1 + self.session.get().burden_ns + acc.bspan, Relaxed);
        self.joins.fetch_add(1 + acc.joins, Relaxed);
        self.depth.fetch_max(acc.depth, Relaxed);
        self.strands.fetch_add(acc.strands, Relaxed);
    }

    /// The waiting closure's strand ends: what it does while it waits is not its work.
    ///
    /// # Safety
    /// On the thread that opened the tasks, inside the same timed closure.
    pub(crate) unsafe fn wait(&self) {
        // SAFETY: our contract: `owner` is this thread's live accumulator.
        unsafe { (*self.owner).close_strand() };
    }

    /// Every task has ended: adds them to the waiting closure and starts its next strand.
    ///
    /// # Safety
    /// As `wait`, after it, once every task's addition happened before this call.
    pub(crate) unsafe fn close(&self) {
        // SAFETY: our contract.
        let owner = unsafe { &mut *self.owner };
        let (start, bstart) = owner.offset;
        // Relaxed (all): see `run`.
        let [end, bend] = self.ends.each_ref().map(|e| e.load(Relaxed));
        owner.work += self.work.load(Relaxed);
        owner.span = owner.span.max(end.saturating_sub(start));
        owner.bspan = owner.bspan.max(bend.saturating_sub(bstart));
        owner.joins += self.joins.load(Relaxed);
        owner.depth = owner.depth.max(1 + self.depth.load(Relaxed));
        owner.strands += self.strands.load(Relaxed);
        owner.open_strand();
    }
}
