//! `fold` + `reduce` with accumulators of 8, 48 and 1,024 bytes (a `u64`, six of them,
//! 128 of them), flat and as the inner loop (1,000 items) of an outer parallel loop; and
//! `map` to an accumulator + `reduce`. Integer accumulators with wrapping adds, so that any
//! split gives the same answer.

use super::{on_each_runtime, In};
use crate::matrix::cost::{Cheap, Cost, Spin};
use crate::matrix::{cell, versions, CellDef, Size};

/// An accumulator of `N` words (8N bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Acc<const N: usize>([u64; N]);

impl<const N: usize> Acc<N> {
    #[inline(always)]
    fn zero() -> Acc<N> {
        Acc([0; N])
    }
    /// Adds one item's value to one word (which one: the value's).
    #[inline(always)]
    fn add(mut self, v: u64) -> Acc<N> {
        let at = (v as usize) % N;
        self.0[at] = self.0[at].wrapping_add(v);
        self
    }
    /// One item as an accumulator.
    #[inline(always)]
    fn of(v: u64) -> Acc<N> {
        Acc::zero().add(v)
    }
    #[inline(always)]
    fn merge(mut self, other: Acc<N>) -> Acc<N> {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.wrapping_add(b);
        }
        self
    }
    fn checksum(&self) -> u64 {
        self.0
            .iter()
            .fold(0u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
    }
}

/// The inner loop of the nested cells.
const INNER: usize = 1000;

on_each_runtime! {
    pub(super) fn fold_reduce<C: Cost, const N: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64)
            .into_par_iter()
            .fold(Acc::<N>::zero, |a, x| a.add(c.f(x)))
            .reduce(Acc::<N>::zero, Acc::merge)
            .checksum()
    }

    pub(super) fn map_reduce<C: Cost, const N: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..i.n as u64)
            .into_par_iter()
            .map(|x| Acc::<N>::of(c.f(x)))
            .reduce(Acc::<N>::zero, Acc::merge)
            .checksum()
    }

    /// An outer parallel loop of `n / 1000` items, each a fold + reduce of 1,000.
    pub(super) fn nested_fold_reduce<C: Cost, const N: usize>(i: &In<C>) -> u64 {
        let c = i.c;
        (0..(i.n / INNER) as u64)
            .into_par_iter()
            .map(|o| {
                (0..INNER as u64)
                    .into_par_iter()
                    .fold(Acc::<N>::zero, |a, x| a.add(c.f(o * INNER as u64 + x)))
                    .reduce(Acc::<N>::zero, Acc::merge)
                    .checksum()
            })
            .reduce(|| 0, u64::wrapping_add)
    }
}

pub(crate) fn cells(out: &mut Vec<CellDef>) {
    macro_rules! sizes {
        ($($n:literal),*) => {$(
            let bytes = $n * 8;
            out.push(cell(
                format!("range-u64 | fold(acc{bytes}) | reduce | flat | 1ns"),
                |s: Size| In::new(s.items(1.0, 1), Cheap, super::Has::Range),
                versions!(fold_reduce [Cheap, $n]),
            ));
            out.push(cell(
                format!("range-u64 | fold(acc{bytes}) | reduce | flat | 100ns"),
                |s: Size| In::new(s.items(100.0, 1), Spin::ns100(), super::Has::Range),
                versions!(fold_reduce [Spin, $n]),
            ));
            out.push(cell(
                format!("range-u64 | fold(acc{bytes}) | reduce | in-1000 | 1ns"),
                |s: Size| In::new(s.items(1.0, INNER).max(2 * INNER), Cheap, super::Has::Range),
                versions!(nested_fold_reduce [Cheap, $n]),
            ));
            out.push(cell(
                format!("range-u64 | fold(acc{bytes}) | reduce | in-1000 | 100ns"),
                |s: Size| In::new(s.items(100.0, INNER).max(2 * INNER), Spin::ns100(), super::Has::Range),
                versions!(nested_fold_reduce [Spin, $n]),
            ));
        )*};
    }
    sizes!(1, 6, 128);
    out.push(cell(
        "range-u64 | map(acc48) | reduce | flat | 1ns",
        |s: Size| In::new(s.items(2.0, 1), Cheap, super::Has::Range),
        versions!(map_reduce [Cheap, 6]),
    ));
    out.push(cell(
        "range-u64 | map(acc1024) | reduce | flat | 100ns",
        |s: Size| In::new(s.items(100.0, 1), Spin::ns100(), super::Has::Range),
        versions!(map_reduce [Spin, 128]),
    ));
}
