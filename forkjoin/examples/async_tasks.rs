//! Awaiting pool work from async code: a tokio program submits parallel sums to a forkjoin
//! pool and awaits the `Task`s, so its own threads stay free for other futures while the
//! pool computes. Checks every answer; exits non-zero if one is wrong.
//!
//!     cargo run --release -p forkjoin --example async_tasks

use forkjoin::prelude::*;
use forkjoin::Pool;
use std::sync::Arc;
use std::time::Instant;

/// The sum of `x * x % 1000` over `0..n`, computed without iterating: every 1000
/// consecutive values of `x` give the same residues as `0..1000`.
fn expected(n: u64) -> u64 {
    let block: u64 = (0..1000u64).map(|x| x * x % 1000).sum();
    let tail: u64 = (0..n % 1000).map(|x| x * x % 1000).sum();
    n / 1000 * block + tail
}

const ON_PURPOSE: &str = "this task fails on purpose";

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[tokio::main]
async fn main() {
    // The one panic below is on purpose: keep the default hook's report for any other.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&ON_PURPOSE) {
            report(info);
        }
    }));

    let pool = Arc::new(Pool::new(2).expect("a pool of two workers"));
    let start = Instant::now();

    // Several parallel sums, submitted at once; each runs a parallel iterator in the pool.
    let sizes = [1_000_000u64, 2_000_000, 3_000_000, 5_000_000];
    let tasks: Vec<_> = sizes
        .iter()
        .map(|&n| pool.submit(move || (0..n).into_par_iter().map(|x| x * x % 1000).sum::<u64>()))
        .collect();

    // Meanwhile the runtime is free: a timer fires while the pool computes.
    let ticker = tokio::spawn(async {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        "the runtime was free while the pool computed"
    });

    let mut ok = true;
    for (n, task) in sizes.iter().zip(tasks) {
        let sum = task.await.expect("the sum does not panic");
        let good = sum == expected(*n);
        ok &= good;
        println!(
            "sum of x*x % 1000 over 0..{n:>9}: {sum:>13} ({})",
            if good { "ok" } else { "WRONG" }
        );
    }

    // Two tasks awaited together, one of which panics: the panic comes back as an `Err`.
    let (fib30, failed) = tokio::join!(
        pool.submit(|| fib(30)),
        pool.submit(|| -> u64 { std::panic::panic_any(ON_PURPOSE) }),
    );
    let fib30 = fib30.expect("fib does not panic");
    let message = failed
        .as_ref()
        .err()
        .and_then(|p| p.message().map(str::to_owned));
    println!("fib(30) = {fib30}");
    println!("the failing task: {message:?}");
    ok &= fib30 == 832_040 && message.as_deref() == Some(ON_PURPOSE);

    println!("{}", ticker.await.expect("the ticker finishes"));
    println!("all in {:.1?}", start.elapsed());
    if !ok {
        eprintln!("async_tasks: a result was wrong");
        std::process::exit(1);
    }
}
