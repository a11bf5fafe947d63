//! The matrix's cells, by subject, and the input they share.

pub(crate) mod accumulators;
pub(crate) mod adaptors;
pub(crate) mod consumers;
pub(crate) mod nesting;
pub(crate) mod shapes;
pub(crate) mod sources;

use super::cost::{Cheap, Cost, Mixed, Spin};
use super::Size;
use crate::suite::programs::sort::splitmix64;

/// A cell's input: a loop of `n` items of cost `c`, and what its source needs.
pub(crate) struct In<C> {
    pub n: usize,
    pub c: C,
    /// The slice source: `n` pseudo-random values below 2^24.
    pub v: Vec<u64>,
    /// A second slice (zips), as `v`.
    pub w: Vec<u64>,
    /// The output of a `for_each` (`n` items).
    pub out: Vec<u64>,
    /// `par_chars`' string, of `n` characters (some of them two bytes long).
    pub text: String,
    /// What `find_first` and `any` look for: the item at 3/4 of the loop, after `c`.
    pub target: u64,
    /// What no item is (`u64::MAX`, hidden from the compiler, which could otherwise tell
    /// that no cost's value reaches it and fold a search for it away).
    pub missing: u64,
}

/// What an [`In`] holds besides `n` and the cost.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Has {
    /// `n` only (ranges).
    Range,
    /// `v`.
    Slice,
    /// `v` and `w`.
    Two,
    /// `v` and `out`.
    Out,
    /// `text`.
    Text,
}

impl<C: Cost> In<C> {
    pub(crate) fn new(n: usize, c: C, has: Has) -> In<C> {
        let slice = || random_values(n, n as u64);
        In {
            n,
            c,
            v: if has == Has::Range || has == Has::Text {
                Vec::new()
            } else {
                slice()
            },
            w: if has == Has::Two {
                random_values(n, !(n as u64))
            } else {
                Vec::new()
            },
            out: if has == Has::Out {
                vec![0; n]
            } else {
                Vec::new()
            },
            text: if has == Has::Text {
                text(n)
            } else {
                String::new()
            },
            target: 0,
            missing: std::hint::black_box(u64::MAX),
        }
        .with_target()
    }

    fn with_target(mut self) -> In<C> {
        let at = self.n * 3 / 4;
        self.target = self.c.f(if self.v.is_empty() {
            at as u64
        } else {
            self.v[at.min(self.v.len().saturating_sub(1))]
        });
        self
    }
}

/// `n` pseudo-random values below 2^24 from `seed`.
pub(crate) fn random_values(n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    (0..n).map(|_| splitmix64(&mut state) >> 40).collect()
}

/// `n` characters, about one in five of two bytes.
fn text(n: usize) -> String {
    const ALPHABET: [char; 10] = ['a', 'b', 'é', ' ', 'x', 'Ω', '1', 'Z', 'q', '.'];
    let mut state = 7;
    (0..n)
        .map(|_| ALPHABET[(splitmix64(&mut state) % ALPHABET.len() as u64) as usize])
        .collect()
}

/// A checksum of `v`: the wrapping sum of its items at a stride that reads about 4,096
/// of them (all of them in the tests' small loops) and its length, so that checking a
/// `for_each`'s or a `collect`'s output costs little beside the loop.
pub(crate) fn checksum(v: &[u64]) -> u64 {
    let stride = (v.len() / 4096).max(1);
    v.iter()
        .step_by(stride)
        .fold(v.len() as u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
}

/// The costs of a cell family, by name: `1ns`, `100ns`, `10us`, `mixed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CostName {
    Ns1,
    Ns100,
    Us10,
    Mixed,
}

/// `cells_over_costs!(out, name-without-cost, [costs], Has, min items, body)`: one cell per
/// cost, whose input is an [`In`] of the cost with `Size::items` items and whose versions
/// are `body`'s (`body::<Cost>`; `body [N]` for `body::<Cost, N>`).
macro_rules! cells_over_costs {
    ($out:expr, $name:expr, [$($cost:ident),*], $has:expr, $min:expr, $body:ident $([$($extra:tt)*])?) => {{
        let cheap: $crate::matrix::Versions<$crate::matrix::cells::In<$crate::matrix::cost::Cheap>> = $crate::matrix::versions!($body [$crate::matrix::cost::Cheap $(, $($extra)*)?]);
        let spin: $crate::matrix::Versions<$crate::matrix::cells::In<$crate::matrix::cost::Spin>> = $crate::matrix::versions!($body [$crate::matrix::cost::Spin $(, $($extra)*)?]);
        let mixed: $crate::matrix::Versions<$crate::matrix::cells::In<$crate::matrix::cost::Mixed>> = $crate::matrix::versions!($body [$crate::matrix::cost::Mixed $(, $($extra)*)?]);
        for cost in [$($crate::matrix::cells::CostName::$cost),*] {
            $crate::matrix::cells::push_cost_cell($out, $name, cost, $has, $min, cheap, spin, mixed);
        }
    }};
}
pub(crate) use cells_over_costs;

/// The cell `name | cost` over an [`In`] of the cost `cost` (its versions chosen from the
/// three compilations for the three cost types).
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_cost_cell(
    out: &mut Vec<super::CellDef>,
    name: &str,
    cost: CostName,
    has: Has,
    min: usize,
    cheap: super::Versions<In<Cheap>>,
    spin: super::Versions<In<Spin>>,
    mixed: super::Versions<In<Mixed>>,
) {
    let name = |c: &str| format!("{name} | {c}");
    out.push(match cost {
        CostName::Ns1 => cost_cell(name("1ns"), Cheap, has, min, cheap),
        CostName::Ns100 => cost_cell(name("100ns"), Spin::ns100(), has, min, spin),
        CostName::Us10 => cost_cell(name("10us"), Spin::us10(), has, min, spin),
        CostName::Mixed => cost_cell(name("mixed"), Mixed::new(), has, min, mixed),
    });
}

/// One cell over an [`In`] of `Size::items` items of cost `c`.
fn cost_cell<C: Cost>(
    name: String,
    c: C,
    has: Has,
    min: usize,
    versions: super::Versions<In<C>>,
) -> super::CellDef {
    super::cell(
        name,
        move |s: Size| In::new(s.items(c.ns(), min), c, has),
        versions,
    )
}

/// A flat cell family's name: `source | adaptors | consumer | flat`.
pub(crate) fn flat(source: &str, adaptors: &str, consumer: &str) -> String {
    format!("{source} | {adaptors} | {consumer} | flat")
}

/// The preludes' paths, for `on_each_prelude!`.
macro_rules! on_each_runtime {
    ($($body:item)*) => {
        $crate::suite::programs::par_iter::on_each_prelude! {
            seq: [$crate::matrix::prelude::seq],
            fj: [$crate::matrix::prelude::fj],
            ry: [$crate::matrix::prelude::ry];
            $($body)*
        }
    };
}
pub(crate) use on_each_runtime;
