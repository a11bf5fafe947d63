//! Nesting: inner parallel loops of 16, 1,000 and 100,000 items inside an outer parallel
//! loop (`sum`, `for_each`, `collect`, `count` inside), inside a sequential loop, and
//! `join` recursions whose leaves are parallel loops; at 1 ns, 100 ns, 10 us and mixed
//! items. (The flat loops are every other file's.)

use super::{cells_over_costs, checksum, on_each_runtime, Has, In};
use crate::matrix::cost::{Cheap, Cost};
use crate::matrix::{cell, versions, CellDef, Size};

on_each_runtime! {
    /// An outer parallel loop of `n / INNER` items, each an inner parallel sum of `INNER`.
    pub(super) fn nested_sum<C: Cost, const INNER: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n / INNER)
            .into_par_iter()
            .map(|o| (0..INNER).into_par_iter().map(|j| c.f((o * INNER + j) as u64)).sum::<u64>())
            .sum::<u64>()
    }

    /// Rows of `INNER` written in parallel, each row's items in parallel.
    pub(super) fn nested_for_each<C: Cost, const INNER: usize>(i: &mut In<C>) -> u64 {
        let c = i.c;
        i.out.par_chunks_mut(INNER).enumerate().for_each(|(r, row)| {
            row.par_iter_mut().enumerate().for_each(|(k, o)| *o = c.f((r * INNER + k) as u64))
        });
        checksum(&i.out)
    }

    pub(super) fn nested_collect<C: Cost, const INNER: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n / INNER)
            .into_par_iter()
            .map(|o| {
                let v: Vec<u64> = (0..INNER).into_par_iter().map(|j| c.f((o * INNER + j) as u64)).collect();
                checksum(&v)
            })
            .reduce(|| 0, u64::wrapping_add)
    }

    pub(super) fn nested_count<C: Cost, const INNER: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_chunks(INNER)
            .map(|chunk| chunk.par_iter().filter(|&&x| c.f(x) % 3 == 0).count())
            .sum::<usize>() as u64
    }

    /// A sequential loop of `n / INNER` inner parallel sums.
    pub(super) fn seq_outer_sum<C: Cost, const INNER: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        let mut s = 0;
        for o in 0..i.n / INNER {
            s += (0..INNER).into_par_iter().map(|j| c.f((o * INNER + j) as u64)).sum::<u64>();
        }
        s
    }

    /// A `join` recursion halving `lo..hi` down to leaves of at most `LEAF` items, each
    /// a parallel sum.
    fn tree_sum<C: Cost, const LEAF: usize>(lo: usize, hi: usize, c: C) -> u64 {
        if hi - lo <= LEAF {
            return (lo..hi).into_par_iter().map(|j| c.f(j as u64)).sum::<u64>();
        }
        let mid = lo + (hi - lo) / 2;
        let (a, b) = join(|| tree_sum::<C, LEAF>(lo, mid, c), || tree_sum::<C, LEAF>(mid, hi, c));
        a + b
    }

    pub(super) fn join_leaves<C: Cost, const LEAF: usize>(i: &In<C>) -> u64 {
        tree_sum::<C, LEAF>(0, i.n, i.c)
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    let sum = |nesting: &str| format!("range-usize | map | sum | {nesting}");
    cells_over_costs!(
        out,
        &sum("in-16"),
        [Ns1, Ns100, Us10, Mixed],
        Has::Range,
        32,
        nested_sum[16]
    );
    cells_over_costs!(
        out,
        &sum("in-1000"),
        [Ns1, Ns100, Mixed],
        Has::Range,
        2000,
        nested_sum[1000]
    );
    cells_over_costs!(
        out,
        &sum("in-100000"),
        [Ns1, Ns100],
        Has::Range,
        200_000,
        nested_sum[100_000]
    );
    let for_each =
        |nesting: &str| format!("chunks-mut | enumerate,iter-mut,enumerate | for_each | {nesting}");
    cells_over_costs!(
        out,
        &for_each("in-16"),
        [Ns1, Ns100],
        Has::Out,
        32,
        nested_for_each[16]
    );
    cells_over_costs!(
        out,
        &for_each("in-1000"),
        [Ns1, Ns100],
        Has::Out,
        2000,
        nested_for_each[1000]
    );
    cells_over_costs!(
        out,
        &for_each("in-100000"),
        [Ns1],
        Has::Out,
        200_000,
        nested_for_each[100_000]
    );
    cells_over_costs!(
        out,
        "range-usize | map | collect-vec | in-1000",
        [Ns1, Ns100],
        Has::Range,
        2000,
        nested_collect[1000]
    );
    cells_over_costs!(
        out,
        "chunks | filter | count | in-1000",
        [Ns1, Ns100],
        Has::Slice,
        2000,
        nested_count[1000]
    );
    cells_over_costs!(
        out,
        &sum("seq-outer x in-1000"),
        [Ns1, Ns100],
        Has::Range,
        2000,
        seq_outer_sum[1000]
    );
    cells_over_costs!(
        out,
        &sum("seq-outer x in-16"),
        [Ns100],
        Has::Range,
        32,
        seq_outer_sum[16]
    );
    let join = |leaf: &str| format!("range-usize | map | sum | join-leaf-{leaf}");
    cells_over_costs!(
        out,
        &join("16"),
        [Ns1, Ns100],
        Has::Range,
        32,
        join_leaves[16]
    );
    cells_over_costs!(
        out,
        &join("1000"),
        [Ns1, Ns100, Mixed],
        Has::Range,
        2000,
        join_leaves[1000]
    );
    cells_over_costs!(
        out,
        &join("100000"),
        [Ns1],
        Has::Range,
        200_000,
        join_leaves[100_000]
    );
}

/// Shape 4 of `shapes`: a 16-item parallel loop inside a sequential loop of 20,000.
pub(super) fn shape4(out: &mut Vec<CellDef>) {
    out.push(cell(
        "shape4 range-usize | map | sum | seq-20000 x in-16 | 1ns",
        |s: Size| {
            In::new(
                if s.is_tiny() { 64 } else { 20_000 * 16 },
                Cheap,
                Has::Range,
            )
        },
        versions!(seq_outer_sum [Cheap, 16]),
    ));
}
