use std::time::Instant;
fn fib(n: u64) -> u64 { if n < 2 { return n } let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2)); a + b }
fn fib_seq(n: u64) -> u64 { if n < 2 { return n } let (a, b) = (fib_seq(n - 1), fib_seq(n - 2)); a + b }
fn main() {
    for t in [1, 2, 4] {
        let pool = forkjoin::Pool::new(t).unwrap();
        for _ in 0..3 {
            let s = Instant::now(); let r = std::hint::black_box(fib_seq(std::hint::black_box(32))); let ts = s.elapsed();
            let s = Instant::now(); let r2 = pool.install(|| fib(std::hint::black_box(32))); let tp = s.elapsed();
            assert_eq!(r, r2);
            println!("t={t} seq {:?} fj {:?} ratio {:.2}", ts, tp, tp.as_secs_f64() / ts.as_secs_f64());
        }
        println!("{}", pool.stats());
    }
}
