//! Every consumer over a range and over a slice, at 1 ns and 100 ns an item: `reduce`
//! with an identity, `reduce_with`, `for_each` writing through `&mut`, `collect` into a
//! `Vec` and into a `HashMap`, `count`, `min_by_key`, `find_first`, `any` (`sum` is
//! everywhere else).

use std::collections::HashMap;

use super::{cells_over_costs, checksum, flat, on_each_runtime, Has, In};
use crate::matrix::cost::Cost;
use crate::matrix::CellDef;

/// The keys a `HashMap`'s checksum looks up.
fn lookups(m: &HashMap<u64, u64>, n: usize) -> u64 {
    let stride = (n / 1024).max(1);
    (0..n as u64).step_by(stride).fold(m.len() as u64, |a, k| {
        a.wrapping_mul(31)
            .wrapping_add(m.get(&k).copied().unwrap_or(u64::MAX))
    })
}

on_each_runtime! {
    pub(super) fn range_reduce<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().map(|x| c.f(x)).reduce(|| 0, |a, b| a + b)
    }

    pub(super) fn slice_reduce<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().map(|&x| c.f(x)).reduce(|| 0, |a, b| a + b)
    }

    pub(super) fn range_reduce_with<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().map(|x| c.f(x)).reduce_with(|a, b| a.max(b)).unwrap_or(0)
    }

    pub(super) fn slice_reduce_with<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().map(|&x| c.f(x)).reduce_with(|a, b| a.max(b)).unwrap_or(0)
    }

    /// `out[k] = f(v[k])`: the output zipped with the input.
    pub(super) fn zip_for_each<C: Cost>(i: &mut In<C>) -> u64 {
        let c = i.c;
        i.out.par_iter_mut().zip(&i.v).for_each(|(o, &x)| *o = c.f(x));
        checksum(&i.out)
    }

    pub(super) fn range_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&(0..i.n as u64).into_par_iter().map(|x| c.f(x)).collect::<Vec<u64>>())
    }

    pub(super) fn range_collect_map<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let m: HashMap<u64, u64> = (0..i.n as u64).into_par_iter().map(|x| (x, c.f(x))).collect();
        lookups(&m, i.n)
    }

    pub(super) fn slice_collect_map<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let m: HashMap<u64, u64> = i.v.par_iter().enumerate().map(|(k, &x)| (k as u64, c.f(x))).collect();
        lookups(&m, i.n)
    }

    pub(super) fn range_count<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().filter(|&x| c.f(x) % 3 == 0).count() as u64
    }

    pub(super) fn slice_count<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().filter(|&&x| c.f(x) % 3 == 0).count() as u64
    }

    pub(super) fn range_min_by_key<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().min_by_key(|&x| c.f(x) ^ 0x5555).unwrap_or(u64::MAX)
    }

    pub(super) fn slice_min_by_key<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().enumerate().min_by_key(|&(_, &x)| c.f(x) ^ 0x5555).map_or(u64::MAX, |(k, _)| k as u64)
    }

    /// Found at 3/4 of the loop.
    pub(super) fn range_find_first<C: Cost>(i: &In<C>) -> u64 {
        let (c, t) = (i.c, i.target);
        (0..i.n as u64).into_par_iter().find_first(|&x| c.f(x) == t).unwrap_or(u64::MAX)
    }

    pub(super) fn slice_find_first<C: Cost>(i: &In<C>) -> u64 {
        let (c, t) = (i.c, i.target);
        i.v.par_iter().enumerate().find_first(|&(_, &x)| c.f(x) == t).map_or(u64::MAX, |(k, _)| k as u64)
    }

    /// Found at 3/4 of the loop (or earlier by a duplicate, for all three alike).
    pub(super) fn range_any<C: Cost>(i: &In<C>) -> u64 {
        let (c, t) = (i.c, i.target);
        (0..i.n as u64).into_par_iter().any(|x| c.f(x) == t) as u64
    }

    /// Never found: the whole slice is read.
    pub(super) fn slice_any_miss<C: Cost>(i: &In<C>) -> u64 {
        let (c, m) = (i.c, i.missing);
        i.v.par_iter().any(|&x| c.f(x) == m) as u64
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    cells_over_costs!(
        out,
        &flat("range-u64", "map", "reduce"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_reduce
    );
    cells_over_costs!(
        out,
        &flat("slice", "map", "reduce"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        slice_reduce
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "map", "reduce_with"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_reduce_with
    );
    cells_over_costs!(
        out,
        &flat("slice", "map", "reduce_with"),
        [Ns1, Mixed],
        Has::Slice,
        1,
        slice_reduce_with
    );
    cells_over_costs!(
        out,
        &flat("iter-mut", "zip(slice)", "for_each"),
        [Ns1, Ns100],
        Has::Out,
        1,
        zip_for_each
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "map", "collect-vec"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_collect
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "map", "collect-hashmap"),
        [Ns100],
        Has::Range,
        1,
        range_collect_map
    );
    cells_over_costs!(
        out,
        &flat("slice", "enumerate,map", "collect-hashmap"),
        [Ns100],
        Has::Slice,
        1,
        slice_collect_map
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "filter", "count"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_count
    );
    cells_over_costs!(
        out,
        &flat("slice", "filter", "count"),
        [Ns1],
        Has::Slice,
        1,
        slice_count
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "-", "min_by_key"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_min_by_key
    );
    cells_over_costs!(
        out,
        &flat("slice", "enumerate", "min_by_key"),
        [Ns1],
        Has::Slice,
        1,
        slice_min_by_key
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "-", "find_first"),
        [Ns1, Ns100],
        Has::Range,
        4,
        range_find_first
    );
    cells_over_costs!(
        out,
        &flat("slice", "enumerate", "find_first"),
        [Ns1, Ns100],
        Has::Slice,
        4,
        slice_find_first
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "-", "any(hit)"),
        [Ns1, Ns100],
        Has::Range,
        4,
        range_any
    );
    cells_over_costs!(
        out,
        &flat("slice", "-", "any(miss)"),
        [Ns1],
        Has::Slice,
        1,
        slice_any_miss
    );
}
