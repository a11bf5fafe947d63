//! Every adaptor, each with a sum and with a collect into a `Vec` (or a `for_each`): none,
//! `map`, `filter`, `filter_map`, `enumerate`, `zip`, `flat_map_iter`, `fold_with`,
//! `map_init`, `skip`/`take`, `copied`/`cloned`, `chain`, `rev` (`fold` is with the
//! accumulators).

use super::{cells_over_costs, checksum, flat, on_each_runtime, Has, In};
use crate::matrix::cost::Cost;
use crate::matrix::CellDef;

on_each_runtime! {
    pub(super) fn none_sum<C: Cost>(i: &In<C>) -> u64 {
        i.v.par_iter().sum::<u64>()
    }

    pub(super) fn none_collect<C: Cost>(i: &In<C>) -> u64 {
        let v: Vec<&u64> = i.v.par_iter().collect();
        v.len() as u64 + *v[v.len() / 2]
    }

    pub(super) fn map_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&i.v.par_iter().map(|&x| c.f(x)).collect::<Vec<u64>>())
    }

    pub(super) fn filter_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().map(|x| c.f(x)).filter(|y| y % 3 == 0).sum::<u64>()
    }

    pub(super) fn filter_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&i.v.par_iter().copied().filter(|&x| c.f(x) % 3 == 0).collect::<Vec<u64>>())
    }

    pub(super) fn filter_map_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n).into_par_iter().filter_map(|x| Some(c.f(x as u64)).filter(|y| y % 3 != 0)).sum::<u64>()
    }

    pub(super) fn filter_map_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let v: Vec<u64> = i.v.par_iter().filter_map(|&x| Some(c.f(x)).filter(|y| y % 3 != 0)).collect();
        checksum(&v)
    }

    pub(super) fn enumerate_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().enumerate().map(|(k, &x)| c.f(x ^ k as u64)).sum::<u64>()
    }

    pub(super) fn enumerate_for_each<C: Cost>(i: &mut In<C>) -> u64 {
        let c = i.c;
        i.out.par_iter_mut().enumerate().for_each(|(k, o)| *o = c.f(k as u64));
        checksum(&i.out)
    }

    pub(super) fn zip_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&i.v.par_iter().zip(&i.w).map(|(&a, &b)| c.f(a ^ b)).collect::<Vec<u64>>())
    }

    pub(super) fn flat_map_iter_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64 / 8)
            .into_par_iter()
            .flat_map_iter(|x| (0..8).map(move |k| c.f(x * 8 + k)))
            .sum::<u64>()
    }

    pub(super) fn flat_map_iter_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let v: Vec<u64> = (0..i.n as u64 / 8)
            .into_par_iter()
            .flat_map_iter(|x| (0..8).map(move |k| c.f(x * 8 + k)))
            .collect();
        checksum(&v)
    }

    pub(super) fn fold_with_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64).into_par_iter().fold_with(0u64, |a, x| a + c.f(x)).sum::<u64>()
    }

    /// A scratch buffer per piece of the loop, the use `map_init` is for.
    pub(super) fn map_init_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n)
            .into_par_iter()
            .map_init(|| vec![0u64; 4], |buf, x| {
                buf[x % 4] = c.f(x as u64);
                buf[x % 4]
            })
            .sum::<u64>()
    }

    pub(super) fn map_init_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let v: Vec<u64> = i
            .v
            .par_iter()
            .map_init(|| vec![0u64; 4], |buf, &x| {
                buf[(x % 4) as usize] = c.f(x);
                buf[(x % 4) as usize]
            })
            .collect();
        checksum(&v)
    }

    pub(super) fn skip_take_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n).into_par_iter().skip(i.n / 4).take(i.n / 2).map(|x| c.f(x as u64)).sum::<u64>()
    }

    pub(super) fn skip_take_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&i.v.par_iter().skip(i.n / 4).take(i.n / 2).map(|&x| c.f(x)).collect::<Vec<u64>>())
    }

    pub(super) fn copied_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().copied().map(|x| c.f(x)).sum::<u64>()
    }

    pub(super) fn cloned_collect<C: Cost>(i: &In<C>) -> u64 {
        checksum(&i.v.par_iter().cloned().collect::<Vec<u64>>())
    }

    pub(super) fn chain_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let h = i.n / 2;
        (0..h).into_par_iter().chain(h..i.n).map(|x| c.f(x as u64)).sum::<u64>()
    }

    pub(super) fn chain_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        let h = i.n / 2;
        let v: Vec<u64> = i.v[..h].par_iter().chain(i.v[h..].par_iter()).map(|&x| c.f(x)).collect();
        checksum(&v)
    }

    pub(super) fn rev_sum<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        i.v.par_iter().rev().enumerate().map(|(k, &x)| c.f(x) ^ (k as u64 & 7)).sum::<u64>()
    }

    pub(super) fn rev_collect<C: Cost>(i: &In<C>) -> u64 {
        let c = i.c;
        checksum(&(0..i.n).into_par_iter().rev().map(|x| c.f(x as u64)).collect::<Vec<u64>>())
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    cells_over_costs!(
        out,
        &flat("slice", "-", "sum"),
        [Ns1],
        Has::Slice,
        1,
        none_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "-", "collect-vec"),
        [Ns1],
        Has::Slice,
        1,
        none_collect
    );
    cells_over_costs!(
        out,
        &flat("slice", "map", "collect-vec"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        map_collect
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "map,filter", "sum"),
        [Ns1, Ns100],
        Has::Range,
        1,
        filter_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "copied,filter", "collect-vec"),
        [Ns1, Mixed],
        Has::Slice,
        1,
        filter_collect
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "filter_map", "sum"),
        [Ns1, Ns100],
        Has::Range,
        1,
        filter_map_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "filter_map", "collect-vec"),
        [Ns1],
        Has::Slice,
        1,
        filter_map_collect
    );
    cells_over_costs!(
        out,
        &flat("slice", "enumerate,map", "sum"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        enumerate_sum
    );
    cells_over_costs!(
        out,
        &flat("iter-mut", "enumerate", "for_each"),
        [Ns1],
        Has::Out,
        1,
        enumerate_for_each
    );
    cells_over_costs!(
        out,
        &flat("slice", "zip(slice),map", "collect-vec"),
        [Ns1],
        Has::Two,
        1,
        zip_collect
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "flat_map_iter(8)", "sum"),
        [Ns1, Ns100],
        Has::Range,
        8,
        flat_map_iter_sum
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "flat_map_iter(8)", "collect-vec"),
        [Ns1],
        Has::Range,
        8,
        flat_map_iter_collect
    );
    cells_over_costs!(
        out,
        &flat("range-u64", "fold_with", "sum"),
        [Ns1, Ns100],
        Has::Range,
        1,
        fold_with_sum
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "map_init", "sum"),
        [Ns1, Ns100],
        Has::Range,
        1,
        map_init_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "map_init", "collect-vec"),
        [Ns1],
        Has::Slice,
        1,
        map_init_collect
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "skip,take,map", "sum"),
        [Ns1, Ns100],
        Has::Range,
        4,
        skip_take_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "skip,take,map", "collect-vec"),
        [Ns1],
        Has::Slice,
        4,
        skip_take_collect
    );
    cells_over_costs!(
        out,
        &flat("slice", "copied,map", "sum"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        copied_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "cloned", "collect-vec"),
        [Ns1],
        Has::Slice,
        1,
        cloned_collect
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "chain,map", "sum"),
        [Ns1, Ns100],
        Has::Range,
        2,
        chain_sum
    );
    cells_over_costs!(
        out,
        &flat("slice", "chain,map", "collect-vec"),
        [Ns1],
        Has::Slice,
        2,
        chain_collect
    );
    cells_over_costs!(
        out,
        &flat("slice", "rev,enumerate,map", "sum"),
        [Ns1, Ns100],
        Has::Slice,
        1,
        rev_sum
    );
    cells_over_costs!(
        out,
        &flat("range-usize", "rev,map", "collect-vec"),
        [Ns1],
        Has::Range,
        1,
        rev_collect
    );
}
