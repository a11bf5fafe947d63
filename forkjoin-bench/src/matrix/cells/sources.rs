//! Every source, mostly under `map | sum` (what differs is how the source splits and
//! feeds its items): ranges of u32, u64 and usize, a slice, an owned `Vec`, `par_chunks`,
//! `par_iter_mut`, the zip of two slices, `par_bridge` and `par_chars`.

use super::{cells_over_costs, checksum, flat, on_each_runtime, Has, In};
use crate::matrix::cost::Cost;
use crate::matrix::CellDef;

/// The low 24 bits of an item: what an in-place cell reads (it writes above them).
const LOW24: u64 = 0xff_ffff;

on_each_runtime! {
    pub(super) fn range_u32<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u32).into_par_iter().map(|x| c.f(x as u64)).sum::<u64>()
    }

    pub(super) fn range_u64<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().map(|x| c.f(x)).sum::<u64>()
    }

    pub(super) fn range_usize<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n).into_par_iter().map(|x| c.f(x as u64)).sum::<u64>()
    }

    pub(super) fn slice<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().map(|&x| c.f(x)).sum::<u64>()
    }

    /// The owned `Vec` is a clone of the input, made inside the timed run (in all three
    /// versions alike).
    pub(super) fn owned_vec<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.clone().into_par_iter().map(|x| c.f(x)).sum::<u64>()
    }

    pub(super) fn chunks<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_chunks(64)
            .map(|chunk| chunk.iter().map(|&x| c.f(x)).sum::<u64>())
            .sum::<u64>()
    }

    /// In place, and the same after any number of runs: the item's input stays in its
    /// low 24 bits, the result goes above them.
    pub(super) fn iter_mut<C: Cost>(i: &mut In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter_mut().for_each(|x| *x = (*x & LOW24) | (c.f(*x & LOW24) << 24));
        checksum(&i.v)
    }

    pub(super) fn zip2<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().zip(i.w.par_iter()).map(|(&a, &b)| c.f(a ^ b)).sum::<u64>()
    }

    pub(super) fn bridge<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.iter().copied().par_bridge().map(|x| c.f(x)).sum::<u64>()
    }

    pub(super) fn chars<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.text.par_chars().map(|ch| c.f(ch as u64)).sum::<u64>()
    }

    pub(super) fn chars_count<C: Cost>(i: &In<C>) -> u64 {
        i.text.par_chars().filter(|ch| ch.is_alphabetic()).count() as u64
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    cells_over_costs!(
        out,
        &flat("range-u32", "map", "sum"),
        [Ns1, Ns100],
        Has::Range,
        1,
        range_u32
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "map", "sum"),
        [Ns1, Ns100, Us10, Mixed],
        Has::Range,
        1,
        range_u64
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "map", "sum"),
        [Ns1, Mixed],
        Has::Range,
        1,
        range_usize
    );
    cells_over_costs!(
        out,
        &flat("slice", "map", "sum"),
        [Ns1, Ns100, Us10],
        Has::Slice,
        1,
        slice
    );
    cells_over_costs!(
        out,
        &flat("vec", "map", "sum"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        owned_vec
    );
    cells_over_costs!(
        out,
        &flat("chunks-64", "map(iter.sum)", "sum"),
        [Ns1, Ns100],
        Has::Slice,
        64,
        chunks
    );
    cells_over_costs!(
        out,
        &flat("iter-mut", "-", "for_each"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        iter_mut
    );
    cells_over_costs!(
        out,
        &flat("zip2", "map", "sum"),
        [Ns1, Ns100],
        Has::Two,
        1,
        zip2
    );
    cells_over_costs!(
        out,
        &flat("bridge", "map", "sum"),
        [Ns100, Us10],
        Has::Slice,
        1,
        bridge
    );
    cells_over_costs!(
        out,
        &flat("chars", "map", "sum"),
        [Ns1, Ns100],
        Has::Text,
        1,
        chars
    );
    cells_over_costs!(
        out,
        &flat("chars", "filter", "count"),
        [Ns1],
        Has::Text,
        1,
        chars_count
    );
}
