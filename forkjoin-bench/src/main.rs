//! `fj`: the forkjoin benchmark suite's command (under construction).
mod programs;
fn main() {
    for p in programs::all() {
        println!("{}: {}", p.name, p.about);
    }
}
