//! The runtime's bar, measured: fork/join overhead against the sequential code, forkjoin
//! beside rayon and chili, all in one run (this machine is shared and noisy: compare only
//! within a run).
//!
//! `cargo run --release -p forkjoin --example overhead [-- --quick] [--outside]`
//! (`--outside`: section 5 alone)
//!
//! 1. fib(32) with no sequential threshold: every call forks (pure overhead). Ts is the
//!    same code with `join` replaced by two plain calls.
//! 2. Sum over a 1023-node binary tree, repeated inside the pool: a parallel region too
//!    small to be worth sharing.
//! 3. `join` of two closures that each sleep 50 ms, in a 2-worker pool.
//! 4. CPU time the pool's threads use in the second after a burst of work.
//! 5. Work started from outside the pool, one call per job, as a server's handler or a
//!    loop in `main` does: the 1023-node tree sum (a job of about a microsecond), the same
//!    tree with about 300 us of work per call, and a stream of calls from 8 threads into
//!    a 2-worker pool. forkjoin and rayon: `install` (forkjoin also with `caller_runs`,
//!    which runs the call on the caller in a parked worker's place); chili: `scope()`,
//!    which runs on the calling thread. Then the first call after the pool has been idle
//!    for 200 ms (one wake-up), and the CPU an idle pool uses once idle for 100 ms.
//!
//! 6. Tasks that block inside a 2-worker pool: with `forkjoin::blocking` (spare threads),
//!    without compensation, and rayon; then the spares retiring and the idle pool's CPU.
//!
//! Each time is the mean of the K fastest of M interleaved runs (the K-best method of the "Multithreaded multicore optimisation" article).

use std::hint::black_box;
use std::time::{Duration, Instant};

const K: usize = 3;

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = (fib_seq(n - 1), fib_seq(n - 2));
    a + b
}

fn fib_fj(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib_fj(n - 1), || fib_fj(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

#[path = "shared/tree.rs"]
mod shared_tree;
use shared_tree::{tree, Node};

fn sum_seq(n: &Node) -> u64 {
    match &n.children {
        None => n.value,
        Some(c) => {
            let (a, b) = (sum_seq(&c.0), sum_seq(&c.1));
            n.value + a + b
        }
    }
}

fn sum_fj(n: &Node) -> u64 {
    match &n.children {
        None => n.value,
        Some(c) => {
            let (a, b) = forkjoin::join(|| sum_fj(&c.0), || sum_fj(&c.1));
            n.value + a + b
        }
    }
}

fn sum_rayon(n: &Node) -> u64 {
    match &n.children {
        None => n.value,
        Some(c) => {
            let (a, b) = rayon::join(|| sum_rayon(&c.0), || sum_rayon(&c.1));
            n.value + a + b
        }
    }
}

fn sum_chili(s: &mut chili::Scope<'_>, n: &Node) -> u64 {
    match &n.children {
        None => n.value,
        Some(c) => {
            let (a, b) = s.join(|s| sum_chili(s, &c.0), |s| sum_chili(s, &c.1));
            n.value + a + b
        }
    }
}

/// Some arithmetic per node for the tree of medium jobs: a chain of dependent multiplies.
fn node_work(value: u64) -> u64 {
    let mut h = value | 1;
    for _ in 0..MEDIUM_NODE_WORK {
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ value;
    }
    h
}

/// Iterations of `node_work`: about 300 us of work in all for the 1023-node tree.
const MEDIUM_NODE_WORK: u32 = 250;

fn medium_seq(n: &Node) -> u64 {
    let own = node_work(n.value);
    match &n.children {
        None => own,
        Some(c) => {
            let (a, b) = (medium_seq(&c.0), medium_seq(&c.1));
            own.wrapping_add(a).wrapping_add(b)
        }
    }
}

fn medium_fj(n: &Node) -> u64 {
    let own = node_work(n.value);
    match &n.children {
        None => own,
        Some(c) => {
            let (a, b) = forkjoin::join(|| medium_fj(&c.0), || medium_fj(&c.1));
            own.wrapping_add(a).wrapping_add(b)
        }
    }
}

fn medium_rayon(n: &Node) -> u64 {
    let own = node_work(n.value);
    match &n.children {
        None => own,
        Some(c) => {
            let (a, b) = rayon::join(|| medium_rayon(&c.0), || medium_rayon(&c.1));
            own.wrapping_add(a).wrapping_add(b)
        }
    }
}

fn medium_chili(s: &mut chili::Scope<'_>, n: &Node) -> u64 {
    let own = node_work(n.value);
    match &n.children {
        None => own,
        Some(c) => {
            let (a, b) = s.join(|s| medium_chili(s, &c.0), |s| medium_chili(s, &c.1));
            own.wrapping_add(a).wrapping_add(b)
        }
    }
}

/// The mean of the `K` smallest.
fn k_best(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[..K.min(v.len())].iter().sum::<f64>() / K.min(v.len()) as f64
}

fn secs(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn chili_pool(threads: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(threads),
        ..Default::default()
    })
}

fn caller_runs_pool(threads: usize) -> forkjoin::Pool {
    forkjoin::Pool::builder()
        .threads(threads)
        .caller_runs(true)
        .build()
        .unwrap()
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool")
}

/// CPU time of the whole process (all threads).
fn process_cpu() -> Duration {
    // SAFETY: `ru` is a valid out-pointer for getrusage.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CPU used by the process during one second in which the main thread sleeps.
fn idle_cpu_ms() -> f64 {
    let before = process_cpu();
    std::thread::sleep(Duration::from_secs(1));
    (process_cpu() - before).as_secs_f64() * 1e3
}

struct Row {
    name: &'static str,
    cells: Vec<String>,
}

fn print_table(header: &[&str], rows: &[Row]) {
    print!("{:<10}", header[0]);
    for h in &header[1..] {
        print!("{h:>14}");
    }
    println!();
    for r in rows {
        print!("{:<10}", r.name);
        for c in &r.cells {
            print!("{c:>14}");
        }
        println!();
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    // Many runs: on a shared machine the K fastest are the ones in quiet moments (the K-best method).
    let runs = if quick { 5 } else { 41 };
    let fib_n = 32;
    let expected = fib_seq(fib_n);

    let fj = [
        forkjoin::Pool::new(1).unwrap(),
        forkjoin::Pool::new(2).unwrap(),
    ];
    let ry = [rayon_pool(1), rayon_pool(2)];
    let ch = [chili_pool(1), chili_pool(2)];
    let fjc = [caller_runs_pool(1), caller_runs_pool(2)];
    if std::env::args().any(|a| a == "--outside") {
        let mut next = 0;
        from_outside(runs, &fj, &fjc, &ry, &ch, &tree(10, &mut next));
        return;
    }

    println!("forkjoin overhead benchmark (K-best: mean of the {K} fastest of {runs} interleaved runs)\n");

    // 1. fib(32), no threshold.
    let mut seq = Vec::new();
    let mut t: [[Vec<f64>; 2]; 3] = Default::default();
    for _ in 0..runs {
        seq.push(secs(|| {
            assert_eq!(black_box(fib_seq(black_box(fib_n))), expected)
        }));
        for i in 0..2 {
            t[0][i].push(secs(|| {
                assert_eq!(fj[i].install(|| fib_fj(black_box(fib_n))), expected)
            }));
            t[1][i].push(secs(|| {
                assert_eq!(ry[i].install(|| fib_rayon(black_box(fib_n))), expected)
            }));
            t[2][i].push(secs(|| {
                assert_eq!(
                    ch[i]
                        .scope()
                        .join(|s| fib_chili(s, black_box(fib_n)), |_| 0)
                        .0,
                    expected
                )
            }));
        }
    }
    let ts = k_best(seq);
    println!("1. fib({fib_n}), no threshold: Ts = {:.2} ms", ts * 1e3);
    let names = ["forkjoin", "rayon", "chili"];
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: names[r],
            cells: (0..2)
                .map(|i| format!("{:.2}", k_best(t[r][i].clone()) / ts))
                .collect(),
        })
        .collect();
    print_table(&["runtime", "T1/Ts", "T2/Ts"], &rows);

    // 2. A 1023-node tree, summed many times inside the pool.
    let mut next = 0;
    let root = tree(10, &mut next);
    let expected = sum_seq(&root);
    let reps = 2000;
    let mut seq = Vec::new();
    let mut t: [[Vec<f64>; 2]; 3] = Default::default();
    for _ in 0..runs {
        seq.push(secs(|| {
            for _ in 0..reps {
                assert_eq!(sum_seq(black_box(&root)), expected);
            }
        }));
        for i in 0..2 {
            t[0][i].push(fj[i].install(|| {
                secs(|| {
                    for _ in 0..reps {
                        assert_eq!(sum_fj(black_box(&root)), expected);
                    }
                })
            }));
            t[1][i].push(ry[i].install(|| {
                secs(|| {
                    for _ in 0..reps {
                        assert_eq!(sum_rayon(black_box(&root)), expected);
                    }
                })
            }));
            let mut scope = ch[i].scope();
            t[2][i].push(secs(|| {
                for _ in 0..reps {
                    assert_eq!(sum_chili(&mut scope, black_box(&root)), expected);
                }
            }));
        }
    }
    let ts = k_best(seq);
    println!(
        "\n2. sum over a 1023-node tree ({reps} times inside the pool): Ts = {:.2} us per sum",
        ts / reps as f64 * 1e6
    );
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: names[r],
            cells: (0..2)
                .map(|i| format!("{:.2}", k_best(t[r][i].clone()) / ts))
                .collect(),
        })
        .collect();
    print_table(&["runtime", "T1/Ts", "T2/Ts"], &rows);

    from_outside(runs, &fj, &fjc, &ry, &ch, &root);
    drop(fjc);

    // 3. Two blocking closures in a 2-worker pool.
    let nap = || std::thread::sleep(Duration::from_millis(50));
    let cells = [
        secs(|| {
            fj[1].install(|| forkjoin::join(nap, nap));
        }),
        secs(|| {
            ry[1].install(|| rayon::join(nap, nap));
        }),
        secs(|| {
            ch[1].scope().join(|_| nap(), |_| nap());
        }),
    ];
    println!("\n3. join of two 50 ms sleeps, 2 workers (ms):");
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: names[r],
            cells: vec![format!("{:.1}", cells[r] * 1e3)],
        })
        .collect();
    print_table(&["runtime", "wall ms"], &rows);
    drop((fj, ry, ch));

    // 4. CPU used in the second after a burst, one pool alive at a time.
    std::thread::sleep(Duration::from_millis(200));
    let mut cells = Vec::new();
    {
        let p = forkjoin::Pool::new(2).unwrap();
        p.install(|| fib_fj(fib_n));
        let own = p.cpu_time().unwrap();
        let process = idle_cpu_ms();
        let own = (p.cpu_time().unwrap() - own).as_secs_f64() * 1e3;
        cells.push(format!("{own:.2} ({process:.2})"));
    }
    {
        let p = rayon_pool(2);
        p.install(|| fib_rayon(fib_n));
        cells.push(format!("- ({:.2})", idle_cpu_ms()));
    }
    {
        let p = chili_pool(2);
        p.scope().join(|s| fib_chili(s, fib_n), |_| 0);
        cells.push(format!("- ({:.2})", idle_cpu_ms()));
    }
    println!("\n4. CPU ms used by the pool's threads in the second after a burst (whole process in brackets):");
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: names[r],
            cells: vec![cells[r].clone()],
        })
        .collect();
    print_table(&["runtime", "cpu ms"], &rows);

    blocking_inside_the_pool(names);
}

/// Threads of this process whose name starts with `forkjoin-spare`.
fn spare_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter(|t| {
                    t.as_ref().is_ok_and(|t| {
                        std::fs::read_to_string(t.path().join("comm"))
                            .is_ok_and(|n| n.starts_with("forkjoin-spare"))
                    })
                })
                .count()
        })
        .unwrap_or(0)
}

/// Section 6: tasks that block inside a 2-worker pool. forkjoin with `blocking` (spare
/// threads keep two running), forkjoin without compensation (`max_blocking(0)`), rayon.
fn blocking_inside_the_pool(names: [&'static str; 3]) {
    let nap = |ms| std::thread::sleep(Duration::from_millis(ms));
    let fj = forkjoin::Pool::new(2).unwrap();
    let fj0 = forkjoin::Pool::builder()
        .threads(2)
        .max_blocking(0)
        .build()
        .unwrap();
    let ry = rayon_pool(2);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    // 6a. 16 tasks, each sleeping 50 ms.
    let sixteen_fj = |p: &forkjoin::Pool| {
        secs(|| {
            p.install(|| {
                forkjoin::scope(|s| {
                    for _ in 0..16 {
                        s.spawn(|_| forkjoin::blocking(|| nap(50)));
                    }
                })
            })
        })
    };
    let sixteen_ry = || {
        secs(|| {
            ry.install(|| {
                rayon::scope(|s| {
                    for _ in 0..16 {
                        s.spawn(|_| nap(50));
                    }
                })
            })
        })
    };
    let mut t: [Vec<f64>; 3] = Default::default();
    for _ in 0..3 {
        t[0].push(sixteen_fj(&fj));
        t[1].push(sixteen_fj(&fj0));
        t[2].push(sixteen_ry());
    }
    println!("\n6. tasks that block, in a 2-worker pool (median of 3 runs; \"no spares\": forkjoin with max_blocking(0)):");
    println!("6a. 16 tasks each sleeping 50 ms (wall ms):");
    let rows6 = ["forkjoin", "no spares", names[1]];
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: rows6[r],
            cells: vec![format!("{:.1}", median(t[r].clone()) * 1e3)],
        })
        .collect();
    print_table(&["runtime", "wall ms"], &rows);

    // 6b. While both workers block for 200 ms, a thread outside installs a parallel sum:
    // how long until it has its answer.
    let mut next = 0;
    let root = tree(16, &mut next);
    let expected = sum_seq(&root);
    let latency = |block: &(dyn Fn() + Sync), install: &(dyn Fn() -> u64 + Sync)| {
        std::thread::scope(|s| {
            s.spawn(block);
            nap(20);
            secs(|| assert_eq!(install(), expected))
        })
    };
    let mut t: [Vec<f64>; 3] = Default::default();
    for _ in 0..3 {
        for (i, p) in [&fj, &fj0].into_iter().enumerate() {
            t[i].push(latency(
                &|| {
                    p.install(|| {
                        forkjoin::join(
                            || forkjoin::blocking(|| nap(200)),
                            || forkjoin::blocking(|| nap(200)),
                        )
                    });
                },
                &|| p.install(|| sum_fj(black_box(&root))),
            ));
        }
        t[2].push(latency(
            &|| {
                ry.install(|| rayon::join(|| nap(200), || nap(200)));
            },
            &|| ry.install(|| sum_rayon(black_box(&root))),
        ));
    }
    println!("6b. a 65535-node tree sum installed from outside while both workers block for 200 ms (ms until its answer):");
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: rows6[r],
            cells: vec![format!("{:.2}", median(t[r].clone()) * 1e3)],
        })
        .collect();
    print_table(&["runtime", "ms"], &rows);

    // 6c. After the blocking ends: spares retire, the pool's size is what it was, and the
    // idle pool uses no CPU.
    let start = Instant::now();
    while spare_threads() > 0 && start.elapsed() < Duration::from_secs(2) {
        nap(1);
    }
    let retired_ms = start.elapsed().as_secs_f64() * 1e3;
    let own = fj.cpu_time().unwrap();
    let process = idle_cpu_ms();
    let own = (fj.cpu_time().unwrap() - own).as_secs_f64() * 1e3;
    println!(
        "6c. after blocking: spare threads left {} (all retired {retired_ms:.1} ms after the last block), \
         workers reported {}, CPU ms in the next idle second {own:.2} (whole process {process:.2})",
        spare_threads(),
        fj.install(forkjoin::current_num_threads),
    );
}

/// Section 5: jobs started from outside the pool, one call each.
fn from_outside(
    runs: usize,
    fj: &[forkjoin::Pool; 2],
    fjc: &[forkjoin::Pool; 2],
    ry: &[rayon::ThreadPool; 2],
    ch: &[chili::ThreadPool; 2],
    root: &Node,
) {
    let names = ["forkjoin", "fj caller_runs", "rayon", "chili"];
    let small = sum_seq(root);
    let medium = medium_seq(root);
    let (small_calls, medium_calls) = (2000, 20);
    let mut seq = [Vec::new(), Vec::new()];
    // [job][runtime][workers - 1]
    let mut t: [[[Vec<f64>; 2]; 4]; 2] = Default::default();
    for _ in 0..runs {
        seq[0].push(secs(|| {
            for _ in 0..small_calls {
                assert_eq!(sum_seq(black_box(root)), small);
            }
        }));
        seq[1].push(secs(|| {
            for _ in 0..medium_calls {
                assert_eq!(medium_seq(black_box(root)), medium);
            }
        }));
        for i in 0..2 {
            for (r, pool) in [&fj[i], &fjc[i]].into_iter().enumerate() {
                t[0][r][i].push(secs(|| {
                    for _ in 0..small_calls {
                        assert_eq!(pool.install(|| sum_fj(black_box(root))), small);
                    }
                }));
                t[1][r][i].push(secs(|| {
                    for _ in 0..medium_calls {
                        assert_eq!(pool.install(|| medium_fj(black_box(root))), medium);
                    }
                }));
            }
            t[0][2][i].push(secs(|| {
                for _ in 0..small_calls {
                    assert_eq!(ry[i].install(|| sum_rayon(black_box(root))), small);
                }
            }));
            t[0][3][i].push(secs(|| {
                for _ in 0..small_calls {
                    let r = ch[i].scope().join(|s| sum_chili(s, black_box(root)), |_| 0);
                    assert_eq!(r.0, small);
                }
            }));
            t[1][2][i].push(secs(|| {
                for _ in 0..medium_calls {
                    assert_eq!(ry[i].install(|| medium_rayon(black_box(root))), medium);
                }
            }));
            t[1][3][i].push(secs(|| {
                for _ in 0..medium_calls {
                    let r = ch[i]
                        .scope()
                        .join(|s| medium_chili(s, black_box(root)), |_| 0);
                    assert_eq!(r.0, medium);
                }
            }));
        }
    }
    let ts = [k_best(seq[0].clone()), k_best(seq[1].clone())];
    println!(
        "\n5a. one call from outside per job, the 1023-node tree sum ({small_calls} calls): Ts = {:.2} us per call",
        ts[0] / small_calls as f64 * 1e6
    );
    let rows: Vec<Row> = (0..4)
        .map(|r| Row {
            name: names[r],
            cells: (0..2)
                .map(|i| format!("{:.2}", k_best(t[0][r][i].clone()) / ts[0]))
                .collect(),
        })
        .collect();
    print_table(&["runtime", "T1/Ts", "T2/Ts"], &rows);
    println!(
        "\n5b. one call from outside per job, medium jobs ({medium_calls} calls): Ts = {:.0} us per call; speedup Ts/T",
        ts[1] / medium_calls as f64 * 1e6
    );
    let rows: Vec<Row> = (0..4)
        .map(|r| Row {
            name: names[r],
            cells: (0..2)
                .map(|i| format!("{:.2}", ts[1] / k_best(t[1][r][i].clone())))
                .collect(),
        })
        .collect();
    print_table(&["runtime", "1 worker", "2 workers"], &rows);

    // A stream from 8 threads at once into the 2-worker pools.
    let (threads, calls) = (8, 250);
    let stream = |call: &(dyn Fn() + Sync)| {
        secs(|| {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        for _ in 0..calls {
                            call();
                        }
                    });
                }
            })
        }) / (threads * calls) as f64
    };
    let mut t: [Vec<f64>; 3] = Default::default();
    for _ in 0..runs {
        t[0].push(stream(&|| {
            assert_eq!(fj[1].install(|| sum_fj(black_box(root))), small)
        }));
        t[1].push(stream(&|| {
            assert_eq!(fjc[1].install(|| sum_fj(black_box(root))), small)
        }));
        t[2].push(stream(&|| {
            assert_eq!(ry[1].install(|| sum_rayon(black_box(root))), small)
        }));
    }
    println!(
        "\n5c. a stream of calls from {threads} threads into a 2-worker pool, the tree sum (us per call):"
    );
    let rows: Vec<Row> = (0..3)
        .map(|r| Row {
            name: names[r],
            cells: vec![format!("{:.2}", k_best(t[r].clone()) * 1e6)],
        })
        .collect();
    print_table(&["runtime", "us per call"], &rows);

    // 5d. The first call after 200 ms of idleness: the tree sum, which alone takes about a
    // microsecond, so the time is the wake-up. The median of a few, per runtime in turn.
    let tries = if runs > 5 { 9 } else { 3 };
    let mut t: [[Vec<f64>; 2]; 4] = Default::default();
    for _ in 0..tries {
        for i in 0..2 {
            let calls: [&dyn Fn(); 4] = [
                &|| assert_eq!(fj[i].install(|| sum_fj(black_box(root))), small),
                &|| assert_eq!(fjc[i].install(|| sum_fj(black_box(root))), small),
                &|| assert_eq!(ry[i].install(|| sum_rayon(black_box(root))), small),
                &|| {
                    let r = ch[i].scope().join(|s| sum_chili(s, black_box(root)), |_| 0);
                    assert_eq!(r.0, small)
                },
            ];
            for (r, call) in calls.iter().enumerate() {
                std::thread::sleep(Duration::from_millis(200));
                t[r][i].push(secs(call));
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("\n5d. the first call after 200 ms idle, the tree sum (us, median of {tries}):");
    let rows: Vec<Row> = (0..4)
        .map(|r| Row {
            name: names[r],
            cells: (0..2)
                .map(|i| format!("{:.1}", median(t[r][i].clone()) * 1e6))
                .collect(),
        })
        .collect();
    print_table(&["runtime", "1 worker", "2 workers"], &rows);

    // 5e. CPU of the whole process in the second after 100 ms of idleness, following a
    // stream of calls from outside (the pools of the other runtimes are idle too).
    for (r, pool) in [&fj[1], &fjc[1]].into_iter().enumerate() {
        for _ in 0..small_calls {
            assert_eq!(pool.install(|| sum_fj(black_box(root))), small);
        }
        std::thread::sleep(Duration::from_millis(100));
        println!(
            "5e. {}, 2 workers: CPU ms in the second after 100 ms idle: {:.2}",
            names[r],
            idle_cpu_ms()
        );
    }
}
