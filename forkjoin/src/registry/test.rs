//! Unit tests of the registry: its slots, the idle count, running work from outside, the
//! submission queues' batches, the global registry, start-up failures and the heartbeat's
//! request. The registries here are started directly (`Registry::start`) without
//! `caller_runs`, so that every job runs on a worker thread.

use super::submission::SUBMISSION_BATCH;
use super::*;
use std::io;
use std::ptr;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::thread::{self, JoinHandle};

/// The options of a pool of `threads` workers with default stacks whose callers never
/// borrow a slot.
fn options(threads: usize, config: ThreadConfig) -> Start {
    Start {
        threads,
        caller_runs: None,
        config: ThreadConfig {
            stack_size: DEFAULT_STACK,
            ..config
        },
        max_blocking: DEFAULT_MAX_BLOCKING,
        thread_name: None,
        stack_size_chosen: false,
        use_current_thread: false,
    }
}

/// A started registry, shut down (its threads joined) when dropped.
struct Running {
    registry: Arc<Registry>,
    threads: Vec<JoinHandle<()>>,
}

impl Running {
    fn new(threads: usize) -> Running {
        let (registry, threads, error) =
            Registry::start(options(threads, ThreadConfig::default()), &mut DefaultSpawn);
        assert!(error.is_none());
        Running { registry, threads }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.registry.shut_down();
        for h in std::mem::take(&mut self.threads) {
            h.join().unwrap();
        }
    }
}

/// The slots are the workers, in order, each showing its own index; nothing else (no spare
/// has been started).
#[test]
fn the_slots_are_the_workers_in_order() {
    let running = Running::new(3);
    let registry = &running.registry;
    assert_eq!(registry.num_threads(), 3);
    assert_eq!(registry.slot_count(), 3);
    for i in 0..3 {
        let slot = registry.slot(i);
        assert!(ptr::eq(slot, &registry.workers[i]));
        assert_eq!((slot.index, slot.shown_index()), (i, i));
        assert!(ptr::eq(slot.registry(), &**registry));
    }
    // The test thread is no worker of it.
    assert!(Worker::current_of(registry).is_none());
}

/// A job injected from outside runs on a worker thread of the registry, which reports its
/// own index as the current one; `in_worker` from outside does too.
#[test]
fn a_job_injected_from_outside_runs_on_a_worker() {
    let running = Running::new(2);
    let registry = &running.registry;
    let caller = thread::current().id();
    let (tx, rx) = mpsc::channel();
    const JOBS: usize = 20;
    for _ in 0..JOBS {
        let (tx, mine) = (tx.clone(), Arc::clone(registry));
        spawn_job(registry, move |w: &Worker| {
            let seen = (
                w.index,
                crate::current_thread_index(),
                Worker::current_of(&mine).map(|c| c.index),
                thread::current().id() != caller,
            );
            tx.send(seen).unwrap();
        });
    }
    for (index, current, of_registry, elsewhere) in rx.iter().take(JOBS) {
        assert!(index < 2);
        assert_eq!(current, Some(index));
        assert_eq!(of_registry, Some(index));
        assert!(elsewhere);
    }
    assert_eq!(registry.external_submissions(), JOBS as u64);
    for _ in 0..JOBS {
        let (index, current) = in_worker(registry, |w| (w.index, crate::current_thread_index()));
        assert_eq!(current, Some(index));
    }
}

/// Every worker counts as idle from the registry's start until its first search finds work
/// (so a loop that starts while a thread is still starting splits its first item off), and
/// exactly once: one job running leaves the others counted, and when it is done the count is
/// every worker again.
#[test]
fn every_worker_counts_idle_from_its_start_and_once() {
    const WORKERS: usize = 8;
    let running = Running::new(WORKERS);
    let registry = &running.registry;
    // The threads start meanwhile (eight on two cores): none leaves the count.
    let start = std::time::Instant::now();
    while start.elapsed().as_millis() < 20 {
        assert_eq!(registry.idle.count(), WORKERS);
    }
    for round in 0..50 {
        let during = in_worker(registry, |w| w.registry().idle.count());
        assert_eq!(during, WORKERS - 1, "round {round}");
        wait_until("every worker idle again", || {
            registry.idle.count() == WORKERS
        });
    }
}

/// A worker of pool A that calls into pool B waits on a cross-pool latch and gets B's
/// result; the closure ran on B's worker, which is no worker of A; the caller is A's worker
/// again afterwards.
#[test]
fn a_call_from_a_worker_of_another_registry_runs_there_and_returns() {
    let a = Running::new(1);
    let b = Running::new(2);
    for _ in 0..20 {
        let (outer, inner) = in_worker(&a.registry, |wa| {
            let inner = in_worker(&b.registry, |wb| {
                assert!(Worker::current_of(&a.registry).is_none());
                assert!(ptr::eq(wb.registry(), &*b.registry));
                (wb.index, crate::current_thread_index())
            });
            let again = Worker::current_of(&a.registry).map(|w| w.index);
            ((wa.index, again), inner)
        });
        assert_eq!(outer, (0, Some(0)));
        assert_eq!(inner.1, Some(inner.0));
    }
}

/// A one-worker registry takes submitted jobs in batches (the oldest half of the queue, at
/// most `SUBMISSION_BATCH`) and runs them in submission order: the batch's rest waits on
/// the worker's own deque, which shrinks by one at each job. The jobs are queued while the
/// worker is held inside a first job, so the batches are exactly those the queue's length
/// gives. Every job counts as taken from a queue once, and as executed once.
#[test]
fn submitted_jobs_run_in_submission_order_in_batches() {
    const JOBS: usize = 80;
    let running = Running::new(1);
    let registry = &running.registry;
    let (started_tx, started) = mpsc::channel();
    let (go, go_rx) = mpsc::channel::<()>();
    spawn_job(registry, move |_: &Worker| {
        started_tx.send(()).unwrap();
        go_rx.recv().unwrap();
    });
    started.recv().unwrap();
    let (tx, rx) = mpsc::channel();
    for seq in 0..JOBS {
        let tx = tx.clone();
        spawn_job(registry, move |w: &Worker| {
            tx.send((seq, w.index, w.deque.len())).unwrap();
        });
    }
    go.send(()).unwrap();
    let seen: Vec<(usize, usize, usize)> = rx.iter().take(JOBS).collect();
    // The deque's length at each job: a batch of `n` leaves `n - 1, ..., 0`.
    let mut expected = Vec::new();
    let mut queued = JOBS;
    while queued > 0 {
        let n = queued.div_ceil(2).min(SUBMISSION_BATCH);
        expected.extend((0..n).map(|j| n - 1 - j));
        queued -= n;
    }
    assert_eq!(
        seen,
        (0..JOBS)
            .zip(expected)
            .map(|(seq, left)| (seq, 0, left))
            .collect::<Vec<_>>()
    );
    let w = &registry.workers[0];
    assert_eq!(registry.external_submissions(), JOBS as u64 + 1);
    assert_eq!(w.counters.stolen.load(Relaxed), JOBS as u64 + 1);
    assert_eq!(w.counters.executed.load(Relaxed), JOBS as u64 + 1);
}

/// A job pushed straight into a submission queue (`inject`) runs once on the worker.
#[test]
fn an_injected_heap_job_runs_once() {
    let running = Running::new(1);
    let (tx, rx) = mpsc::channel();
    running.registry.inject(Worker::heap_job(move |w: &Worker| {
        tx.send(w.index).unwrap();
    }));
    assert_eq!(rx.recv().unwrap(), 0);
    // The job, and with it the sender, is gone after its one run.
    assert!(rx.recv().is_err());
}

/// Every call, from any thread, gets the same global registry; once it has started, it
/// cannot be configured any more.
#[test]
fn the_global_registry_is_one_arc() {
    let first = global_registry();
    let from_threads: Vec<usize> = thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| Arc::as_ptr(global_registry()) as usize))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(from_threads
        .iter()
        .all(|&p| p == Arc::as_ptr(first) as usize));
    assert!(Arc::ptr_eq(first, global_registry()));
    let on_worker = in_worker(first, |w| ptr::eq(w.registry(), &**first));
    assert!(on_worker);
    let again = init_global_registry(|| panic!("the global pool is built only once"));
    assert!(matches!(
        again,
        Err(BuildError::GlobalPoolAlreadyInitialized)
    ));
}

/// A spawn handler that fails at worker `k`: `start` reports `Spawn { worker: k }` with the
/// handler's error, and `shut_down` stops the `k` threads started before it (each runs its
/// exit handler once and ends); nothing else holds the registry afterwards.
#[test]
fn a_spawn_failure_at_worker_k_stops_the_threads_started_before() {
    for k in [0, 1, 3] {
        let exits = Arc::new(AtomicUsize::new(0));
        let exit_handler: ThreadHandler = {
            let exits = Arc::clone(&exits);
            Arc::new(move |_| {
                exits.fetch_add(1, Relaxed);
            })
        };
        let config = ThreadConfig {
            exit_handler: Some(exit_handler),
            ..ThreadConfig::default()
        };
        let mut started: Vec<JoinHandle<()>> = Vec::new();
        let mut spawn = CustomSpawn(|thread: ThreadBuilder| {
            if thread.index() == k {
                return Err(io::Error::other("refused by the test"));
            }
            started.push(thread::spawn(move || thread.run()));
            Ok(())
        });
        let (registry, threads, error) = Registry::start(options(4, config), &mut spawn);
        match error {
            Some(BuildError::Spawn { worker, source }) => {
                assert_eq!(worker, k);
                assert_eq!(source.to_string(), "refused by the test");
            }
            other => panic!("k = {k}: {other:?}"),
        }
        // A spawn handler's threads are the caller's to join.
        assert!(threads.is_empty());
        registry.shut_down();
        assert!(registry.is_terminating());
        assert_eq!(started.len(), k);
        for t in started {
            t.join().unwrap();
        }
        assert_eq!(exits.load(Relaxed), k);
        assert_eq!(Arc::strong_count(&registry), 1);
    }
}

/// The join limit on the owner's side: a pending request (`SHARE_REQUEST`) survives
/// `refresh_limit`, which otherwise restores the frame bound; taking the request restores
/// the bound; the first recording join of a worker with nobody to share with takes it.
#[test]
fn a_pending_request_is_kept_across_refresh_limit() {
    let running = Running::new(1);
    in_worker(&running.registry, |w| {
        let limit = || w.join.limit.load(Relaxed);
        let counts = &w.owner().counts;
        let (len, shared) = (counts.len(), counts.shared());
        assert_eq!((len, shared), (0, 0));

        w.join.limit.store(SHARE_REQUEST, Relaxed);
        w.refresh_limit();
        assert_eq!(limit(), SHARE_REQUEST);
        assert!(w.heartbeat_pending());

        w.take_request();
        assert_eq!(limit(), PRIVATE_FRAMES);
        assert!(!w.heartbeat_pending());

        // A stale bound is brought back to `shared + PRIVATE_FRAMES`.
        w.join.limit.store(3, Relaxed);
        w.refresh_limit();
        assert_eq!(limit(), PRIVATE_FRAMES);

        // One worker: the heartbeat shares nothing and takes the request at the first join.
        w.join.limit.store(SHARE_REQUEST, Relaxed);
        let promoted = w.counters.promoted.load(Relaxed);
        assert_eq!(crate::join(|| 1, || 2), (1, 2));
        assert_eq!(limit(), PRIVATE_FRAMES);
        assert_eq!(w.counters.promoted.load(Relaxed), promoted);
    });
}

/// A worker that enters a region with private join frames below offers them first, tagged
/// with the region it leaves: a frame is tagged, when shared, with the region its worker
/// runs in then, and these were made in the one left (a claim of one inside a broadcast
/// linked the rest of an outer loop below the broadcast's region).
#[test]
fn entering_a_region_offers_the_private_frames_below_tagged_with_the_region_left() {
    use super::isolation::WaiterSlot;
    let running = Running::new(1);
    in_worker(&running.registry, |w| {
        let private = || w.owner().counts.has_private();
        let outer = w.new_region();
        let _outer = w.enter_region(outer, WaiterSlot::NOBODY, None);
        let (seen, b) = crate::join(
            || {
                let before = (private(), w.deque.top_tag());
                let inner = w.new_region();
                let _inner = w.enter_region(inner, WaiterSlot::NOBODY, None);
                (before, (private(), w.deque.top_tag()))
            },
            || 2,
        );
        assert_eq!(seen, ((true, None), (false, Some(outer))));
        assert_eq!(b, 2);
        assert!(!private());
    });
}

/// A run that declines a request with no private frame to offer defers it: runs nested as
/// deeply or deeper no longer see it, shallower ones do, until it is raised again.
#[test]
fn a_declined_request_is_deferred_to_shallower_runs() {
    let running = Running::new(1);
    in_worker(&running.registry, |w| {
        w.join.limit.store(SHARE_REQUEST, Relaxed);
        w.decline_request(3);
        assert!(!w.heartbeat_pending());
        assert_eq!(w.join.limit.load(Relaxed), PRIVATE_FRAMES);
        assert!(w.deferred_request_for(1));
        assert!(w.deferred_request_for(2));
        assert!(!w.deferred_request_for(3));
        assert!(!w.deferred_request_for(4));
        w.raise_request();
        assert!(w.heartbeat_pending());
        assert!(!w.deferred_request_for(1));
        w.take_request();
    });
}

/// Where a default pool's size comes from (`default_threads`): `FORKJOIN_NUM_THREADS`
/// first, then `RAYON_NUM_THREADS` and the deprecated `RAYON_RS_NUM_CPUS` by rayon 1.12's
/// rules, then one worker per core.
#[test]
fn the_default_size_follows_forkjoin_then_rayon_variables() {
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let size = |env: &[(&str, &str)]| {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        super::thread::threads_from(|name| {
            env.iter().find(|(k, _)| k == name).map(|(_, v)| v.into())
        })
    };
    let (fj, ry, old) = (
        "FORKJOIN_NUM_THREADS",
        "RAYON_NUM_THREADS",
        "RAYON_RS_NUM_CPUS",
    );
    let cases: &[(&[(&str, &str)], usize)] = &[
        (&[], cores),
        (&[(ry, "3")], 3),
        (&[(ry, "0")], cores),
        // rayon: 0 is the default, without looking at the deprecated variable.
        (&[(ry, "0"), (old, "5")], cores),
        // Unparsable: rayon falls back to the deprecated variable, silently.
        (&[(ry, "x"), (old, "5")], 5),
        (&[(ry, "-2"), (old, "0")], cores),
        (&[(ry, " 3")], cores),
        (&[(old, "4")], 4),
        (&[(ry, "2"), (old, "4")], 2),
        // forkjoin's own variable comes first.
        (&[(fj, "6"), (ry, "3")], 6),
        (&[(fj, "0"), (ry, "3")], cores),
        // Unparsable (reported once, on stderr): ignored, so rayon's rules apply.
        (&[(fj, "abc"), (ry, "3")], 3),
    ];
    for (env, expected) in cases {
        assert_eq!(size(env), *expected, "{env:?}");
    }
}

/// A one-worker registry whose start handler counts the stand-ins of spare threads (the
/// handler runs at the start of each, on the spare's thread), and whose spares rest for
/// `keep_alive`.
fn with_spares(keep_alive: std::time::Duration) -> (Running, Arc<AtomicUsize>) {
    let stand_ins = Arc::new(AtomicUsize::new(0));
    let start_handler: ThreadHandler = {
        let stand_ins = Arc::clone(&stand_ins);
        Arc::new(move |_| {
            if thread::current()
                .name()
                .is_some_and(|n| n.starts_with("forkjoin-spare"))
            {
                stand_ins.fetch_add(1, Relaxed);
            }
        })
    };
    let config = ThreadConfig {
        start_handler: Some(start_handler),
        ..ThreadConfig::default()
    };
    let (registry, threads, error) = Registry::start(options(1, config), &mut DefaultSpawn);
    assert!(error.is_none());
    registry
        .spares
        .keep_alive_nanos
        .store(keep_alive.as_nanos() as u64, Relaxed);
    (Running { registry, threads }, stand_ins)
}

/// The one worker blocks with work queued (its join's second half, offered as it blocks): a
/// spare stands in for it, and the worker takes its index back.
fn block_once(registry: &Arc<Registry>) {
    in_worker(registry, |_| crate::join(|| crate::blocking(|| ()), || ()));
}

/// Waits for `cond`, failing after 60 s (a lost wake-up) instead of hanging.
#[track_caller]
fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !cond() {
        assert!(
            start.elapsed().as_secs() < 60,
            "timed out waiting for {what}"
        );
        thread::sleep(std::time::Duration::from_micros(100));
    }
}

/// A worker inside `blocking` that left its core to a parked worker has no spare; a share
/// queued in its inbox afterwards (a broadcast's) gets it one, which runs the share under
/// the worker's index, and hands the index back when the worker returns.
#[test]
fn a_share_for_a_worker_blocked_without_a_spare_starts_one() {
    let running = Running::new(2);
    let registry = &running.registry;
    let (unblock, blocked_on) = mpsc::channel::<()>();
    let blocked = {
        let registry = Arc::clone(registry);
        thread::spawn(move || {
            in_worker(&registry, move |worker| {
                let other = 1 - worker.index;
                wait_until("the other worker to park", || {
                    worker.registry().idle.parked(other)
                });
                crate::blocking(|| blocked_on.recv().unwrap());
                worker.index
            })
        })
    };
    wait_until("a block without a spare", || {
        registry.spares.free_tokens.load(SeqCst) == 1
    });
    assert_eq!(registry.compensation.counts(), (1, 0));
    let index = (0..2)
        .find(|&i| registry.spares.tokens[i].holder().is_none())
        .unwrap();
    let (ran, share_ran) = mpsc::channel();
    registry
        .slot(index)
        .inbox
        .push(Worker::heap_job(move |worker: &Worker| {
            ran.send((worker.shown_index(), worker.index)).unwrap()
        }));
    std::sync::atomic::fence(SeqCst);
    registry.stand_in_for_waiting();
    let ran_as = share_ran
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the share never ran");
    // Under the blocked worker's index, in the first spare slot.
    assert_eq!(ran_as, (index, 2));
    assert_eq!(registry.compensation.counts(), (1, 1));
    unblock.send(()).unwrap();
    assert_eq!(blocked.join().unwrap(), index);
    assert_eq!(registry.compensation.counts(), (0, 0));
    assert_eq!(registry.spares.free_tokens.load(SeqCst), 0);
    assert_eq!(registry.spares.tokens[index].holder(), Some(index));
}

/// A spare's thread rests after its stand-in and stands in again: 101 blocks in a row of
/// the one worker, 101 stand-ins, one spare slot, one thread started.
#[test]
fn blocks_in_a_row_reuse_one_resting_spare_thread() {
    let (running, stand_ins) = with_spares(std::time::Duration::from_secs(60));
    let registry = &running.registry;
    for _ in 0..101 {
        block_once(registry);
    }
    assert_eq!(stand_ins.load(Relaxed), 101);
    assert_eq!(registry.slot_count(), 2);
    assert_eq!(registry.spares.threads_started.load(Relaxed), 1);
    assert_eq!(registry.spares.threads_exited.load(Relaxed), 0);
    assert_eq!(registry.compensation.counts(), (0, 0));
}

/// Dropping the pool wakes a resting spare, which exits at once (not after its keep-alive,
/// a minute here): the registry is freed.
#[test]
fn a_resting_spare_exits_when_the_pool_is_dropped() {
    let (running, stand_ins) = with_spares(std::time::Duration::from_secs(60));
    block_once(&running.registry);
    assert_eq!(stand_ins.load(Relaxed), 1);
    let weak = Arc::downgrade(&running.registry);
    let start = std::time::Instant::now();
    // Shuts down and joins the worker: the resting spare holds the registry still.
    drop(running);
    wait_until("the registry to be freed", || weak.strong_count() == 0);
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
}

/// A resting spare whose keep-alive runs out exits, and the next block starts a new thread
/// in its slot.
#[test]
fn a_resting_spare_exits_after_its_keep_alive() {
    let (running, stand_ins) = with_spares(std::time::Duration::from_millis(20));
    let registry = &running.registry;
    let spares = &registry.spares;
    block_once(registry);
    wait_until("the spare's exit", || {
        spares.threads_exited.load(Relaxed) == 1
    });
    assert_eq!(spares.threads_started.load(Relaxed), 1);
    block_once(registry);
    assert_eq!(spares.threads_started.load(Relaxed), 2);
    assert_eq!(stand_ins.load(Relaxed), 2);
    assert_eq!(registry.slot_count(), 2);
    let weak = Arc::downgrade(registry);
    drop(running);
    wait_until("the registry to be freed", || weak.strong_count() == 0);
}

/// Blocks that come as the keep-alive runs out (200 us, the gaps 0 to 400 us): each finds
/// the resting thread, which takes the assignment, or a slot without a thread, where a new
/// one starts; never a lost stand-in (the block would hang) nor a second thread running in
/// the slot. Every block gets its stand-in; both outcomes occur.
#[test]
fn an_assignment_racing_the_keep_alive_is_taken_or_a_new_thread_starts() {
    const BLOCKS: usize = 2000;
    let (running, stand_ins) = with_spares(std::time::Duration::from_micros(200));
    let registry = &running.registry;
    let spares = &registry.spares;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..BLOCKS {
        block_once(registry);
        assert_eq!(stand_ins.load(Relaxed), i + 1);
        // xorshift: gaps of 0 to 400 us around the keep-alive.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let gap = std::time::Duration::from_micros(seed % 401);
        let start = std::time::Instant::now();
        while start.elapsed() < gap {
            std::hint::spin_loop();
        }
    }
    let started = spares.threads_started.load(Relaxed);
    assert!(started > 1, "no keep-alive ran out");
    assert!(started < BLOCKS, "no resting thread was reused");
    assert_eq!(registry.slot_count(), 2);
    let weak = Arc::downgrade(registry);
    drop(running);
    wait_until("the registry to be freed", || weak.strong_count() == 0);
}
