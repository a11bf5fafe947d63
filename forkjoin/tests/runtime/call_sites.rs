//! A program's profile by call site (`FORKJOIN_PROFILE`, feature `profile`): each entry made
//! from outside a profiled closure is kept under the caller's line, entries inside it are
//! part of it, and the file is written at exit.

use crate::common::child::{in_child, run_child, start_child};
use crate::instrument::fib;
use forkjoin::prelude::*;
use serde_json::Value;
use std::process::Output;

/// The program profiled: prints the lines of its call sites, then exits, writing the profile.
#[test]
#[ignore = "run by a_profiled_program_writes_each_call_site_at_exit in a process of its own"]
fn profiled_program() {
    if !in_child() {
        return;
    }
    let pool = forkjoin::Pool::new(2).unwrap();
    let v: Vec<u64> = (0..50_000).collect();
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.push(line!() + 1);
        let s: u64 = (0..100_000u64).into_par_iter().map(|x| x % 7).sum();
        assert_eq!(s, 299_995);
    }
    lines.push(line!() + 1);
    assert_eq!(pool.install(|| fib(20)), 6765);
    // An entry inside an install is part of the install's call site, and a site of its own
    // inside it.
    lines.push(line!() + 1);
    let max = pool.install(|| {
        v.par_iter().max().copied() // Line `lines[4] + 1`.
    });
    assert_eq!(max, Some(49_999));
    // `max` reaches the loop through `reduce_with`: the site is still this line.
    lines.push(line!() + 1);
    assert_eq!(v.par_iter().max(), Some(&49_999));
    println!("\nSITES {} {:?}", file!(), lines);
}

/// The sites of the profile at `path`, as (line, site).
fn sites(json: &Value) -> Vec<(u64, &Value)> {
    json["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s))
        .collect()
}

/// How a child runs: `run_child` (it must pass), or `start_child` and a check of its own.
type Runner = fn(&str, &str, &[(&str, Option<&str>)]) -> Output;

/// Runs the child test `child` with `FORKJOIN_PROFILE` set, by `run`; returns what it
/// printed after `marker` on its line (empty if it printed no such line) and the profile it
/// wrote.
fn run_profiled(child: &str, marker: &str, run: Runner) -> (String, Value) {
    let dir = std::env::temp_dir().join(format!("forkjoin-{child}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.json");
    let out = run(
        module_path!(),
        child,
        &[("FORKJOIN_PROFILE", Some(file.to_str().unwrap()))],
    );
    // The harness prints the test's name on the same line, before the child's output.
    let printed = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| Some(l.split_once(marker)?.1.to_string()))
        .unwrap_or_default();
    let json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (printed, json)
}

#[test]
fn a_profiled_program_writes_each_call_site_at_exit() {
    let (printed, json) = run_profiled("profiled_program", "SITES ", run_child);
    let (source, lines) = printed.split_once(' ').unwrap();
    let lines: Vec<u64> = lines
        .trim_matches(|c| c == '[' || c == ']')
        .split(", ")
        .map(|l| l.parse().unwrap())
        .collect();
    let sites = sites(&json);
    // The sum's line three times over (one site), the install of fib, the install with the
    // loop inside, and `max` from outside; then the loop, nested inside its install.
    let install = format!("{source}:{}:", lines[4]);
    let expected: Vec<(u64, u64, bool)> = vec![
        (lines[0], 3, false),
        (lines[3], 1, false),
        (lines[4], 1, false),
        (lines[5], 1, false),
        (lines[4] + 1, 1, true),
    ];
    let found: Vec<(u64, u64, bool)> = sites
        .iter()
        .map(|(l, s)| {
            let inside = s["parent"]
                .as_str()
                .is_some_and(|p| p.starts_with(&install));
            assert!(inside || s["parent"].is_null(), "{s}");
            (*l, s["calls"].as_u64().unwrap(), inside)
        })
        .collect();
    assert_eq!(found, expected, "{json}");
    assert_eq!(lines[0], lines[1]);
    // The nested loop's work is part of its install's; its time is its parent's.
    let work = |i: usize| sites[i].1["work_ns"].as_u64().unwrap();
    assert!(work(4) <= work(2), "{json}");
    assert_eq!(sites[4].1["wall_ns"].as_u64(), Some(0));
    // Every join opens two strands and one after it. An entry from outside adds the caller's
    // strand before the hand-off and the one after it; a part splits its parent's strand in
    // two (the install with the loop inside: one more on the worker, one more outside).
    let extra = [3, 3, 5, 3, 1];
    for (i, (_, s)) in sites.iter().enumerate() {
        assert_eq!(s["file"], source);
        let (work, span, bspan) = (
            s["work_ns"].as_u64().unwrap(),
            s["span_ns"].as_u64().unwrap(),
            s["burdened_span_ns"].as_u64().unwrap(),
        );
        assert!(0 < span && span <= work && span <= bspan, "{s}");
        let (joins, strands) = (s["joins"].as_u64().unwrap(), s["strands"].as_u64().unwrap());
        let calls = s["calls"].as_u64().unwrap();
        assert_eq!(strands, 3 * joins + extra[i] * calls, "{s}");
    }
    // fib(20): F(21) - 1 joins, 19 on the longest chain.
    let fib_site = sites[1].1;
    assert_eq!(
        (fib_site["joins"].as_u64(), fib_site["span_joins"].as_u64()),
        (Some(10_945), Some(19))
    );
    assert!(
        json["wall_ns"].as_u64().unwrap()
            >= sites
                .iter()
                .map(|(_, s)| s["wall_ns"].as_u64().unwrap())
                .sum::<u64>()
    );
}

/// One parallel loop from outside the pool: a call site when profiled.
fn one_loop() {
    let s: u64 = (0..1000u64).into_par_iter().sum();
    assert_eq!(s, 499_500);
}

/// Without `FORKJOIN_PROFILE`, nothing is kept.
#[test]
#[ignore = "run by without_the_variable_nothing_is_profiled in a process of its own"]
fn unprofiled_program() {
    if !in_child() {
        return;
    }
    one_loop();
    assert!(forkjoin::instrument::call_sites().is_empty());
}

#[test]
fn without_the_variable_nothing_is_profiled() {
    run_child(
        module_path!(),
        "unprofiled_program",
        &[("FORKJOIN_PROFILE", None)],
    );
}

/// A file that cannot be written: the program still succeeds, and says why there is no
/// profile.
#[test]
#[ignore = "run by a_profile_that_cannot_be_written_is_reported in a process of its own"]
fn program_with_an_unwritable_profile() {
    if !in_child() {
        return;
    }
    one_loop();
}

#[test]
fn a_profile_that_cannot_be_written_is_reported() {
    let out = run_child(
        module_path!(),
        "program_with_an_unwritable_profile",
        &[("FORKJOIN_PROFILE", Some("/nonexistent-dir/profile.json"))],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("forkjoin: cannot write the profile to /nonexistent-dir/profile.json"),
        "{stderr}"
    );
}

/// A program that computes for a while on its own, then forks only by `join` from outside
/// any pool.
#[test]
#[ignore = "run by a_join_from_outside_is_an_entry_and_the_start_is_serial in a process of its own"]
fn joins_from_outside() {
    if !in_child() {
        return;
    }
    spin(30);
    assert_eq!(fib(18), 2584);
}

#[test]
fn a_join_from_outside_is_an_entry_and_the_start_is_serial() {
    let (_, json) = run_profiled("joins_from_outside", "", run_child);
    // One entry, the outermost join, at forkjoin's `join.rs`: fib(18)'s F(19) - 1 joins.
    let sites = sites(&json);
    assert_eq!(sites.len(), 1, "{json}");
    let site = sites[0].1;
    assert!(
        site["file"].as_str().unwrap().ends_with("src/join.rs"),
        "{site}"
    );
    assert_eq!(
        (site["calls"].as_u64(), site["joins"].as_u64()),
        (Some(1), Some(4_180))
    );
    // The 30 ms of computing before it are the thread's CPU time until then (a busy machine
    // may give it less of the 30 ms of wall time, never more).
    let before = json["before_ns"].as_u64().unwrap();
    assert!((1_000_000..1_000_000_000).contains(&before), "{json}");
}

/// Computes for `ms` milliseconds of wall-clock time; returns how long it took (ns).
fn spin(ms: u64) -> u64 {
    let start = std::time::Instant::now();
    let mut x = 1u64;
    while start.elapsed() < std::time::Duration::from_millis(ms) {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
    start.elapsed().as_nanos() as u64
}

/// This thread's CPU time (ns).
fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid `timespec` for the call to fill.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(read, 0);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Computes until this thread has run for `ms` milliseconds (however long a busy machine
/// makes that take).
fn busy(ms: u64) {
    let end = cpu_ns() + ms * 1_000_000;
    let mut x = 1u64;
    while cpu_ns() < end {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
}

/// The whole program's work as `fj profile` counts it: the threads' serial time outside the
/// call sites (before the first and after), and the outer sites' work.
fn program_work(json: &Value) -> u64 {
    let outer: u64 = sites(json)
        .iter()
        .filter(|(_, s)| s["parent"].is_null())
        .map(|(_, s)| s["work_ns"].as_u64().unwrap())
        .sum();
    json["before_ns"].as_u64().unwrap() + json["outside_ns"].as_u64().unwrap() + outer
}

/// The profile's sites as (line, calls, joins, whether nested), and the site at `line`.
fn shape(json: &Value) -> Vec<(u64, u64, u64, bool)> {
    sites(json)
        .iter()
        .map(|(l, s)| {
            let get = |k: &str| s[k].as_u64().unwrap();
            (*l, get("calls"), get("joins"), !s["parent"].is_null())
        })
        .collect()
}

fn site_at(json: &Value, line: u64) -> &Value {
    sites(json)
        .into_iter()
        .find(|(l, _)| *l == line)
        .unwrap_or_else(|| panic!("no site at line {line}: {json}"))
        .1
}

/// Waits (a while at most) until the profile has a site at `line`: a spawned job's site is
/// added after the job returns, which nothing else waits for.
fn wait_for_site(line: u32) {
    let start = std::time::Instant::now();
    while !forkjoin::instrument::call_sites()
        .iter()
        .any(|c| c.line == line)
    {
        assert!(start.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// A program whose own thread, inside a call (a loop of one item, which runs on the caller
/// as oxipng's loop over its files does), hands the pool a small job and waits 300 ms on a
/// channel; then sleeps 200 ms between two calls.
#[test]
#[ignore = "run by a_thread_outside_the_pool_blocked_inside_a_call_is_not_working in a process of its own"]
fn blocks_outside_the_pool() {
    if !in_child() {
        return;
    }
    let pool = forkjoin::Pool::new(2).unwrap();
    let loop_line = line!() + 1;
    [0u8].par_iter().for_each(|_| {
        let (tx, rx) = std::sync::mpsc::channel();
        let late = tx.clone();
        let sleeper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            late.send(0).unwrap();
        });
        let spawn_line = line!() + 1;
        pool.spawn(move || tx.send(fib(18)).unwrap());
        let got: u64 = rx.iter().take(2).sum();
        assert_eq!(got, 2584);
        sleeper.join().unwrap();
        wait_for_site(spawn_line);
        println!("\nSPAWN {spawn_line}");
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    let install_line = line!() + 1;
    assert_eq!(pool.install(|| fib(10)), 55);
    println!("\nLINES {loop_line} {install_line}");
}

/// Runs `blocks_outside_the_pool` with `env` set too: its profile, and the lines of its
/// loop, its spawn and its install.
fn blocking_profile(env: &[(&str, Option<&str>)]) -> (Value, [u64; 3]) {
    let dir = std::env::temp_dir().join(format!(
        "forkjoin-blocks-{}-{}",
        std::process::id(),
        env.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.json");
    let mut all = vec![("FORKJOIN_PROFILE", Some(file.to_str().unwrap()))];
    all.extend_from_slice(env);
    let out = run_child(module_path!(), "blocks_outside_the_pool", &all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let after = |marker: &str| -> Vec<u64> {
        let line = stdout.lines().find_map(|l| l.split_once(marker)).unwrap().1;
        line.split(' ').map(|x| x.parse().unwrap()).collect()
    };
    let (lines, spawn) = (after("LINES "), after("SPAWN "));
    let json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (json, [lines[0], spawn[0], lines[1]])
}

#[test]
fn a_thread_outside_the_pool_blocked_inside_a_call_is_not_working() {
    let (json, [loop_line, spawn_line, install_line]) = blocking_profile(&[]);
    // The loop (no join), the spawned job (fib(18): F(19) - 1 joins) and the install (fib(10):
    // F(11) - 1), each an entry from outside every profiled closure.
    let mut expected = vec![
        (loop_line, 1, 0, false),
        (spawn_line, 1, 4_180, false),
        (install_line, 1, 88, false),
    ];
    expected.sort();
    assert_eq!(shape(&json), expected, "{json}");
    assert_eq!(json["outside_clock"], "thread_cpu", "{json}");
    // The 300 ms the thread waited inside the loop are blocked time, not work, nor span;
    // the 200 ms asleep between the calls are not serial work either.
    let looped = site_at(&json, loop_line);
    let get = |s: &Value, k: &str| s[k].as_u64().unwrap();
    assert!(get(looped, "wall_ns") >= 300_000_000, "{json}");
    assert!(get(looped, "blocked_ns") >= 250_000_000, "{json}");
    assert!(get(looped, "work_ns") < 100_000_000, "{json}");
    assert!(get(looped, "span_ns") <= get(looped, "work_ns"), "{json}");
    assert!(get(&json, "outside_blocked_ns") >= 150_000_000, "{json}");
    assert!(program_work(&json) < 100_000_000, "{json}");
}

#[test]
fn threads_outside_the_pool_timed_by_the_wall_clock_when_asked_count_their_waits() {
    // The wall clock (as where a thread's CPU clock cannot be read): the profile says so,
    // and the waits count as work, as Cilkscale counts a strand.
    let (json, [loop_line, ..]) = blocking_profile(&[("FORKJOIN_PROFILE_CLOCK", Some("wall"))]);
    assert_eq!(json["outside_clock"], "wall: asked", "{json}");
    let looped = site_at(&json, loop_line);
    let get = |s: &Value, k: &str| s[k].as_u64().unwrap();
    assert!(get(looped, "work_ns") >= 300_000_000, "{json}");
    assert_eq!(get(looped, "blocked_ns"), 0, "{json}");
    assert!(get(&json, "outside_ns") >= 200_000_000, "{json}");
    assert_eq!(get(&json, "outside_blocked_ns"), 0, "{json}");
}

/// A program whose own thread computes, 80 ms inside a call (a loop of one item, which runs
/// on the caller) and 60 ms between two calls.
#[test]
#[ignore = "run by a_thread_outside_the_pool_computing_inside_a_call_is_working in a process of its own"]
fn computes_outside_the_pool() {
    if !in_child() {
        return;
    }
    let pool = forkjoin::Pool::new(2).unwrap();
    let loop_line = line!() + 1;
    [0u8].par_iter().for_each(|_| busy(80));
    busy(60);
    let install_line = line!() + 1;
    assert_eq!(pool.install(|| fib(10)), 55);
    println!("\nLINES {loop_line} {install_line}");
}

#[test]
fn a_thread_outside_the_pool_computing_inside_a_call_is_working() {
    let (printed, json) = run_profiled("computes_outside_the_pool", "LINES ", run_child);
    let lines: Vec<u64> = printed.split(' ').map(|x| x.parse().unwrap()).collect();
    let (loop_line, install_line) = (lines[0], lines[1]);
    assert_eq!(
        shape(&json),
        [(loop_line, 1, 0, false), (install_line, 1, 88, false)],
        "{json}"
    );
    // 80 ms of CPU time in the loop: work, and on the span (one strand); 60 ms between the
    // calls: serial work.
    let looped = site_at(&json, loop_line);
    let get = |s: &Value, k: &str| s[k].as_u64().unwrap();
    assert!(get(looped, "work_ns") >= 40_000_000, "{json}");
    assert!(get(looped, "span_ns") >= 40_000_000, "{json}");
    assert!(get(&json, "outside_ns") >= 30_000_000, "{json}");
    assert!(program_work(&json) >= 70_000_000, "{json}");
}

/// A program whose own thread spawns 200 tasks of 1 ms from the body of an
/// `in_place_scope`, which runs on it.
#[test]
#[ignore = "run by spawns_from_outside_the_pool_read_no_clock_per_task in a process of its own"]
fn spawns_from_outside_the_pool() {
    if !in_child() {
        return;
    }
    let line = line!() + 1;
    forkjoin::in_place_scope(|s| {
        for _ in 0..200 {
            s.spawn(|_| busy(1));
        }
    });
    println!("\nLINE {line}");
}

#[test]
fn spawns_from_outside_the_pool_read_no_clock_per_task() {
    let (printed, json) = run_profiled("spawns_from_outside_the_pool", "LINE ", run_child);
    let line: u64 = printed.parse().unwrap();
    assert_eq!(shape(&json), [(line, 1, 200, false)], "{json}");
    let site = site_at(&json, line);
    let get = |k: &str| site[k].as_u64().unwrap();
    // A strand per task; the body's strands end only where it opens its tasks, where it
    // waits for them and where it returns, not at each spawn.
    assert_eq!(get("strands"), 200 + 3, "{json}");
    assert!(get("work_ns") >= 100_000_000, "{json}");
    assert!(get("span_ns") <= get("work_ns"), "{json}");
}

/// A program whose parallelism is scopes, a broadcast and a spawn: prints each entry's line
/// and the time its tasks took by their own clocks.
#[test]
#[ignore = "run by scopes_broadcasts_and_spawns_are_entries_with_timed_tasks in a process of its own"]
fn tasks_program() {
    use std::sync::atomic::{
        AtomicU64,
        Ordering::{Acquire, Relaxed, Release},
    };
    use std::sync::Arc;
    /// What `ready` gives, once it gives something: asked every millisecond.
    fn poll(ready: impl Fn() -> Option<u64>) -> u64 {
        loop {
            match ready() {
                Some(x) => return x,
                None => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        }
    }
    if !in_child() {
        return;
    }
    let pool = forkjoin::Pool::new(2).unwrap();
    let scope_tasks = AtomicU64::new(0);
    let task = || scope_tasks.fetch_add(spin(4), Relaxed);
    // Sixteen tasks from the body, one of which spawns a seventeenth.
    let scope_line = line!() + 1;
    pool.scope(|s| {
        for i in 0..16 {
            s.spawn(move |s| {
                task();
                if i == 0 {
                    s.spawn(move |_| {
                        task();
                    });
                }
            });
        }
    });
    let fifo_tasks = AtomicU64::new(0);
    let fifo_line = line!() + 1;
    forkjoin::scope_fifo(|s| {
        for _ in 0..4 {
            s.spawn_fifo(|_| {
                fifo_tasks.fetch_add(spin(4), Relaxed);
            });
        }
    });
    let broadcast_line = line!() + 1;
    let shares: u64 = pool.broadcast(|_| spin(4)).iter().sum();
    // Nobody waits for a spawned job: the caller polls for what its tasks stored. A channel
    // would wake the caller from inside the task, after its clock stopped, and on a busy
    // machine the woken thread can take the worker's core for a time slice that the entry
    // counts and the task does not.
    let spawned = Arc::new(AtomicU64::new(0));
    let slot = Arc::clone(&spawned);
    // Relaxed: the value is all the caller reads of the job.
    let spawn_line = line!() + 1;
    pool.spawn(move || slot.store(spin(4), Relaxed));
    let spawned = poll(|| Some(spawned.load(Relaxed)).filter(|&t| t > 0));
    let share_times = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
    let slot = Arc::clone(&share_times);
    let shares_line = line!() + 1;
    pool.spawn_broadcast(move |_| {
        slot.0.fetch_add(spin(4), Relaxed);
        // Release: the sum's addition above is seen by whoever reads this count.
        slot.1.fetch_add(1, Release);
    });
    let spawned_shares =
        poll(|| (share_times.1.load(Acquire) == 2).then(|| share_times.0.load(Relaxed)));
    // A job spawned inside a call and run by its own `yield_local` (a pool of one) is the
    // job's work, not the call's.
    let alone = forkjoin::Pool::new(1).unwrap();
    let done = AtomicU64::new(0);
    let yield_line = line!() + 1;
    let inside = alone.install(|| {
        let done = &done;
        forkjoin::scope(|s| {
            s.spawn(move |_| done.store(spin(20), Relaxed));
            while done.load(Relaxed) == 0 {
                forkjoin::yield_local();
            }
        });
        done.load(Relaxed)
    });
    // The spawned jobs' sites are added after they return, which the polling does not wait for.
    std::thread::sleep(std::time::Duration::from_millis(50));
    println!(
        "\nTASKS {} {scope_line} {} {fifo_line} {} {broadcast_line} {shares} {spawn_line} {spawned} {yield_line} {inside} {shares_line} {spawned_shares}",
        file!(),
        scope_tasks.into_inner(),
        fifo_tasks.into_inner()
    );
}

#[test]
fn scopes_broadcasts_and_spawns_are_entries_with_timed_tasks() {
    let (printed, json) = run_profiled("tasks_program", "TASKS ", run_child);
    let printed: Vec<&str> = printed.split(' ').collect();
    let source = printed[0];
    let n: Vec<u64> = printed[1..].iter().map(|x| x.parse().unwrap()).collect();
    let sites = sites(&json);
    let site = |line: u64| {
        let found: Vec<&Value> = sites
            .iter()
            .filter(|(l, _)| *l == line)
            .map(|(_, s)| *s)
            .collect();
        assert_eq!(found.len(), 1, "line {line}: {json}");
        let s = found[0];
        // A spawned broadcast's shares are an entry each.
        let calls = if line == n[10] { 2 } else { 1 };
        assert_eq!(
            (s["file"].as_str(), s["calls"].as_u64()),
            (Some(source), Some(calls))
        );
        assert!(s["parent"].is_null(), "{s}");
        let get = |k: &str| s[k].as_u64().unwrap();
        (
            get("work_ns"),
            get("span_ns"),
            get("burdened_span_ns"),
            get("joins"),
        )
    };
    // Each entry's work is its tasks' (by their own clocks), plus a little of the caller's
    // own, and what a busy machine's preemption adds to a task's strand outside its own
    // clock (a few milliseconds); a task's spawn is a join.
    let checks = [
        ("scope", n[0], n[1], 17, 2),
        ("scope_fifo", n[2], n[3], 4, 1),
        ("broadcast", n[4], n[5], 2, 1),
        ("spawn", n[6], n[7], 0, 1),
        ("spawn_broadcast", n[10], n[11], 0, 1),
    ];
    // The scope in the install that yields: its one task's time is counted once, as the
    // task's (the install's strand pauses while its `yield_local` runs the task; counted
    // twice, the work would be 40 ms).
    let (work, _, _, joins) = site(n[8]);
    assert_eq!(joins, 1, "{json}");
    assert!(
        n[9] <= work + work / 10 && work <= n[9] + n[9] / 2,
        "yield: work {work} against the task's {}: {json}",
        n[9]
    );
    for (what, line, tasks, joins, longest) in checks {
        let (work, span, bspan, j) = site(line);
        assert_eq!(j, joins, "{what}: {json}");
        assert!(
            tasks <= work + work / 10 && work <= tasks + tasks / 2 + 8_000_000,
            "{what}: work {work} against the tasks' {tasks}: {json}"
        );
        assert!(span <= bspan && span <= work, "{what}: {json}");
        if joins > 8 {
            // The longest chain holds `longest` tasks of `joins`: the span is well under the
            // work even when a busy machine stretches a task or two several times over.
            assert!(
                longest * 4 <= joins && 2 * span <= work,
                "{what}: span {span} of work {work}: {json}"
            );
        }
    }
}

/// A program that exits from inside a call (as b3sum does, from its `install`).
#[test]
#[ignore = "run by a_call_the_program_exits_inside_is_counted in a process of its own"]
fn exits_inside_a_call() {
    if !in_child() {
        return;
    }
    let pool = forkjoin::Pool::new(2).unwrap();
    println!("\nEXIT {} {}", file!(), line!() + 1);
    pool.install(|| {
        assert_eq!(fib(20), 6765);
        std::process::exit(0)
    })
}

#[test]
fn a_call_the_program_exits_inside_is_counted() {
    // The child ends its process itself, so no test harness says it passed: its status does.
    let (printed, json) = run_profiled("exits_inside_a_call", "EXIT ", |module, name, env| {
        let out = start_child(module, name, env);
        assert!(out.status.success(), "{out:?}");
        out
    });
    // The install, counted once, with the work of fib(20)'s F(21) - 1 joins.
    let sites = sites(&json);
    assert_eq!(sites.len(), 1, "{json}");
    let site = sites[0].1;
    assert_eq!(
        format!("{} {}", site["file"].as_str().unwrap(), site["line"]),
        printed
    );
    assert_eq!(
        (site["calls"].as_u64(), site["joins"].as_u64()),
        (Some(1), Some(10_945))
    );
    let (work, wall) = (
        site["work_ns"].as_u64().unwrap(),
        site["wall_ns"].as_u64().unwrap(),
    );
    assert!(0 < work && 0 < wall, "{json}");
}
