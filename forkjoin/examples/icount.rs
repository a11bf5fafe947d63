//! Counts instructions, for `valgrind --tool=callgrind`: `icount seq|fj fib|integrate|tree N`
//! (`tree`: N sums over a 1023-node binary tree, as in the `overhead` example).
//! The sequential versions are the same code with `join` replaced by two plain calls.

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = (fib_seq(n - 1), fib_seq(n - 2));
    a + b
}

#[path = "shared/tree.rs"]
mod shared_tree;
use shared_tree::{tree, Node};

/// Sum over the tree; `PAR` selects `join` or two plain calls.
fn sum<const PAR: bool>(n: &Node) -> u64 {
    match &n.children {
        None => n.value,
        Some(c) => {
            let (a, b) = if PAR {
                forkjoin::join(|| sum::<PAR>(&c.0), || sum::<PAR>(&c.1))
            } else {
                (sum::<PAR>(&c.0), sum::<PAR>(&c.1))
            };
            n.value + a + b
        }
    }
}

fn f(x: f64) -> f64 {
    let x2 = x * x;
    x * (1.0 + x2 * (3.0 + x2 * (5.0 + x2 * (7.0 + x2 * 9.0))))
}

/// Lea's Integrate: adaptive quadrature; `PAR` selects `join` or two plain calls.
fn area<const PAR: bool>(l: f64, r: f64, fl: f64, fr: f64, a: f64, tol: f64) -> f64 {
    let c = (l + r) / 2.0;
    let fc = f(c);
    let al = (c - l) * (fl + fc) / 2.0;
    let ar = (r - c) * (fc + fr) / 2.0;
    let alr = al + ar;
    if (alr - a).abs() <= tol {
        return alr;
    }
    let left = || area::<PAR>(l, c, fl, fc, al, tol);
    let right = || area::<PAR>(c, r, fc, fr, ar, tol);
    let (x, y) = if PAR {
        forkjoin::join(left, right)
    } else {
        (left(), right())
    };
    x + y
}

fn integrate<const PAR: bool>(tol: f64) -> f64 {
    let (l, r) = (-47.0, 48.0);
    area::<PAR>(l, r, f(l), f(r), (r - l) * (f(l) + f(r)) / 2.0, tol)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, program, size) = (args[1].as_str(), args[2].as_str(), args[3].as_str());
    let pool = forkjoin::Pool::new(1).unwrap();
    let par = mode == "fj";
    let r = match program {
        "fib" => {
            let n: u64 = size.parse().unwrap();
            pool.install(|| {
                if par {
                    fib(std::hint::black_box(n))
                } else {
                    fib_seq(std::hint::black_box(n))
                }
            }) as f64
        }
        "tree" => {
            let sums: u64 = size.parse().unwrap();
            let root = tree(10, &mut 0);
            pool.install(|| {
                let mut total = 0u64;
                for _ in 0..sums {
                    let root = std::hint::black_box(&root);
                    total = total.wrapping_add(if par {
                        sum::<true>(root)
                    } else {
                        sum::<false>(root)
                    });
                }
                total
            }) as f64
        }
        _ => {
            let tol: f64 = size.parse().unwrap();
            pool.install(|| {
                if par {
                    integrate::<true>(std::hint::black_box(tol))
                } else {
                    integrate::<false>(std::hint::black_box(tol))
                }
            })
        }
    };
    println!("{r}");
}
