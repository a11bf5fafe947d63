//! The shapes named in the issue that asked for the matrix, known to be slow on forkjoin:
//! 1. an outer `par_iter_mut().zip(..).for_each` whose body folds 1,000 items into a
//!    48-byte accumulator (two 3-vectors: n-body-like force sums) and reduces;
//! 2. a recursive Z-order matrix multiply, eight sub-products per level through nested
//!    `join`s, whose levels add quarters with `par_iter_mut().zip(par_iter())`;
//! 3. `filter(..).collect::<Vec<_>>()` over a large range;
//! 4. a 16-item parallel loop inside a sequential loop of 20,000;
//! 5. the sum of a 1,023-node binary tree by `join` recursion.
//!
//! The floating-point shapes (1, 2) compute on small integers, which f64 adds exactly in
//! any order, so that the three versions' answers are equal.

use super::nesting;
use super::{checksum, on_each_runtime, In};
use crate::matrix::cost::{Cheap, Cost};
use crate::matrix::{cell, versions, CellDef, Size};
use crate::suite::programs::matmul::{quarters, quarters_mut};
use crate::suite::programs::sort::splitmix64;

type V3 = [f64; 3];

#[inline(always)]
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

const ZERO: V3 = [0.0; 3];

/// Shape 1's input: `bodies` positions (integer coordinates below 1,024), the output per
/// body, and the 1,000 items each body's inner loop folds.
pub(crate) struct NBody {
    bodies: Vec<V3>,
    items: Vec<V3>,
    out: Vec<(V3, V3)>,
}

fn points(n: usize, seed: u64) -> Vec<V3> {
    let mut s = seed;
    (0..n)
        .map(|_| [0, 1, 2].map(|_| (splitmix64(&mut s) % 1024) as f64))
        .collect()
}

/// A checksum of f64s that hold integers.
fn checksum_f64<'a>(xs: impl Iterator<Item = &'a f64>) -> u64 {
    xs.fold(0u64, |a, &x| {
        a.wrapping_mul(31).wrapping_add(x as i64 as u64)
    })
}

/// Shape 2's input: `a` and `b` (small integers) and `c`, `n` x `n` in Z order.
pub(crate) struct ZMatrices {
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

/// The side of shape 2's leaf blocks (row-major inside; the blocks in Z order).
const LEAF: usize = 16;

/// `c = a * b` for one leaf block.
fn leaf_multiply(c: &mut [f64], a: &[f64], b: &[f64]) {
    for i in 0..LEAF {
        for j in 0..LEAF {
            let mut s = 0.0;
            for k in 0..LEAF {
                s += a[i * LEAF + k] * b[k * LEAF + j];
            }
            c[i * LEAF + j] = s;
        }
    }
}

/// Shape 5's tree.
pub(crate) struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn tree(depth: u32, next: &mut u64) -> Option<Box<Node>> {
    if depth == 0 {
        return None;
    }
    *next += 1;
    let value = *next;
    Some(Box::new(Node {
        value,
        left: tree(depth - 1, next),
        right: tree(depth - 1, next),
    }))
}

on_each_runtime! {
    pub(super) fn nbody(i: &mut NBody) -> u64 {
        let items = &i.items;
        i.out.par_iter_mut().zip(&i.bodies).for_each(|(o, &p)| {
            *o = items
                .par_iter()
                .fold(|| (ZERO, ZERO), |(f, g), &q| {
                    let d = sub(q, p);
                    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    (add(f, d), add(g, scale(d, r2)))
                })
                .reduce(|| (ZERO, ZERO), |a, b| (add(a.0, b.0), add(a.1, b.1)));
        });
        checksum_f64(i.out.iter().flat_map(|(f, g)| f.iter().chain(g.iter())))
    }

    /// `c = a * b` for `s` x `s` matrices in Z order: the eight sub-products of the level
    /// in nested joins (four into `c`'s quarters, four into a temporary's), then `c += t`.
    fn z_multiply(c: &mut [f64], a: &[f64], b: &[f64], s: usize) {
        if s <= LEAF {
            leaf_multiply(c, a, b);
            return;
        }
        let h = s / 2;
        let [a11, a12, a21, a22] = quarters(a);
        let [b11, b12, b21, b22] = quarters(b);
        let mut t = vec![0.0; s * s];
        {
            let [c11, c12, c21, c22] = quarters_mut(c);
            let [t11, t12, t21, t22] = quarters_mut(&mut t);
            join(
                || {
                    join(
                        || join(|| z_multiply(c11, a11, b11, h), || z_multiply(c12, a11, b12, h)),
                        || join(|| z_multiply(c21, a21, b11, h), || z_multiply(c22, a21, b12, h)),
                    )
                },
                || {
                    join(
                        || join(|| z_multiply(t11, a12, b21, h), || z_multiply(t12, a12, b22, h)),
                        || join(|| z_multiply(t21, a22, b21, h), || z_multiply(t22, a22, b22, h)),
                    )
                },
            );
        }
        c.par_iter_mut().zip(t.par_iter()).for_each(|(d, s)| *d += *s);
    }

    pub(super) fn zmatmul(m: &mut ZMatrices) -> u64 {
        z_multiply(&mut m.c, &m.a, &m.b, m.n);
        checksum_f64(m.c.iter().step_by(7))
    }

    pub(super) fn filter_collect(i: &In<Cheap>) -> u64 {
        let c = i.c;
        let v: Vec<u64> = (0..i.n as u64).into_par_iter().filter(|&x| c.f(x) % 3 == 0).collect();
        checksum(&v)
    }

    fn node_sum(node: &Node) -> u64 {
        let (l, r) = join(
            || node.left.as_deref().map_or(0, node_sum),
            || node.right.as_deref().map_or(0, node_sum),
        );
        l + r + Cheap.f(node.value)
    }

    pub(super) fn tree_sum(root: &Node) -> u64 {
        node_sum(root)
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    out.push(cell(
        "shape1 iter-mut | zip(slice), inner fold(acc48),reduce | for_each | in-1000 | 3ns",
        |s: Size| {
            let n = s.pick(512, 2048);
            NBody {
                bodies: points(n, 1),
                items: points(1000, 2),
                out: vec![(ZERO, ZERO); n],
            }
        },
        versions!(nbody),
    ));
    out.push(cell(
        "shape2 zmatmul | join x8, iter-mut,zip(par_iter) | for_each | join | 128^3",
        |s: Size| {
            let n = if s.is_tiny() {
                2 * LEAF
            } else {
                s.pick(128, 256)
            };
            let mut seed = 3;
            let mut small = || (splitmix64(&mut seed) % 5) as f64;
            ZMatrices {
                n,
                a: (0..n * n).map(|_| small()).collect(),
                b: (0..n * n).map(|_| small()).collect(),
                c: vec![0.0; n * n],
            }
        },
        versions!(zmatmul),
    ));
    out.push(cell(
        "shape3 range-u64 | filter | collect-vec | flat | 1ns",
        |s: Size| In::new(s.items(0.25, 1), Cheap, super::Has::Range),
        versions!(filter_collect),
    ));
    // Shape 4 is `nesting`'s sequential loop of 16-item parallel loops (pushed there).
    nesting::shape4(out);
    out.push(cell(
        "shape5 tree-1023 | join | sum | join | 1ns",
        |_: Size| *tree(10, &mut 0).expect("a tree of depth 10"),
        versions!(tree_sum),
    ));
}
