// Instruction counting aid: `valgrind --tool=callgrind` on `icount seq|fj N`.
fn fib(n: u64) -> u64 { if n < 2 { return n } let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2)); a + b }
fn fib_seq(n: u64) -> u64 { if n < 2 { return n } let (a, b) = (fib_seq(n - 1), fib_seq(n - 2)); a + b }
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args[2].parse().unwrap();
    let pool = forkjoin::Pool::new(1).unwrap();
    let r = if args[1] == "seq" { pool.install(|| fib_seq(std::hint::black_box(n))) } else { pool.install(|| fib(std::hint::black_box(n))) };
    println!("{r}");
}
