//! `fj matrix`: the performance matrix. Cells are (source x adaptor chain x consumer x
//! nesting x item cost) combinations, each written once and compiled three times (std's
//! iterators, forkjoin, rayon: see [`prelude`]), timed interleaved with the K-best method at
//! each worker count (`runner`), and reported worst first (`output`).
//!
//! A cell's name reads `source | adaptors | consumer | nesting | cost`, e.g.
//! `range-u64 | map | sum | flat | 1ns`. The cells, by subject:
//! - `cells::sources`: every source (ranges of u32/u64/usize, slices, an owned `Vec`,
//!   `par_chunks`, `par_iter_mut`, the zip of two slices, `par_bridge`, `par_chars`);
//! - `cells::adaptors`: every adaptor, each with a sum and with a collect or `for_each`;
//! - `cells::consumers`: every consumer over a range and over a slice;
//! - `cells::accumulators`: `fold` + `reduce` with 8-, 48- and 1,024-byte accumulators,
//!   flat and nested;
//! - `cells::nesting`: inner loops of 16, 1,000 and 100,000 items in an outer parallel
//!   loop, and `join` recursions whose leaves are loops;
//! - `cells::shapes`: the shapes named in the issue that asked for the matrix.
//!
//! A cell's kernel returns a `u64` checksum; the three versions must agree.

pub(crate) mod cells;
pub(crate) mod cost;
pub(crate) mod output;
pub(crate) mod prelude;
pub(crate) mod runner;

use std::time::Instant;

use crate::suite::engine::Engine;
use crate::suite::programs::{Ctx, Workload};

/// The matrix's problem sizes: `Quick` (the default: the whole matrix in a few minutes),
/// `Full` (loops four times as long, samples longer, more rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// The unit tests': every loop a few dozen items.
    #[cfg(test)]
    Tiny,
    Quick,
    Full,
}

impl Size {
    /// The number of items of a flat loop of `ns`-nanosecond items: about a millisecond of
    /// sequential work at `Quick` (4 ms at `Full`), and at least `min`.
    pub(crate) fn items(self, ns: f64, min: usize) -> usize {
        let target_ns = match self {
            #[cfg(test)]
            Size::Tiny => return min.max(40),
            Size::Quick => 1e6,
            Size::Full => 4e6,
        };
        ((target_ns / ns) as usize).max(min)
    }

    /// `quick` at `Quick`, `full` at `Full` (a count that does not follow `items`).
    pub(crate) fn pick(self, quick: usize, full: usize) -> usize {
        match self {
            #[cfg(test)]
            Size::Tiny => quick.min(4),
            Size::Quick => quick,
            Size::Full => full,
        }
    }

    /// Whether tiny (tests): cells keep their shape (an inner loop of 1,000 stays 1,000)
    /// but loops that only set the duration shrink.
    pub(crate) fn is_tiny(self) -> bool {
        #[cfg(test)]
        if self == Size::Tiny {
            return true;
        }
        false
    }

    /// How long a sample should last: the kernel is repeated until it does.
    pub(crate) fn sample_seconds(self) -> f64 {
        match self {
            #[cfg(test)]
            Size::Tiny => 0.0,
            Size::Quick => 0.002,
            Size::Full => 0.005,
        }
    }
}

/// Which version of a cell runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    Seq,
    Fj,
    Ry,
}

/// A cell's kernel, made with its input: one run of one version, returning its checksum.
pub(crate) trait Kernel: Send {
    fn run(&mut self, v: Version) -> u64;
}

/// The three versions of a cell's body over an input `I`.
pub(crate) type Versions<I> = [fn(&mut I) -> u64; 3];

struct Fns<I> {
    input: I,
    fns: Versions<I>,
}

impl<I: Send> Kernel for Fns<I> {
    fn run(&mut self, v: Version) -> u64 {
        let f = match v {
            Version::Seq => self.fns[0],
            Version::Fj => self.fns[1],
            Version::Ry => self.fns[2],
        };
        f(&mut self.input)
    }
}

/// A cell: its name and how to make its kernel (input included) at a size.
pub(crate) struct CellDef {
    pub name: String,
    pub make: Box<dyn Fn(Size) -> Box<dyn Kernel>>,
}

/// The cell `name` whose input `make` makes and whose versions are `fns` (see
/// [`versions!`]).
pub(crate) fn cell<I: Send + 'static>(
    name: impl Into<String>,
    make: impl Fn(Size) -> I + 'static,
    fns: Versions<I>,
) -> CellDef {
    CellDef {
        name: name.into(),
        make: Box::new(move |size| {
            Box::new(Fns {
                input: make(size),
                fns,
            })
        }),
    }
}

/// `versions!(f)` or `versions!(f [T, N])` (`f::<T, N>`): the `seq`, `fj` and `ry` compilations of a
/// body's function `f(&mut I) -> u64` (or `f(&I) -> u64`), as [`Versions`].
macro_rules! versions {
    ($f:ident $([$($g:tt)*])?) => {
        [
            |i| seq::$f$(::<$($g)*>)?(i),
            |i| fj::$f$(::<$($g)*>)?(i),
            |i| ry::$f$(::<$($g)*>)?(i),
        ]
    };
}
pub(crate) use versions;

/// Every cell, in subject order.
pub(crate) fn all_cells() -> Vec<CellDef> {
    let mut v = Vec::new();
    cells::sources::cells(&mut v);
    cells::adaptors::cells(&mut v);
    cells::consumers::cells(&mut v);
    cells::accumulators::cells(&mut v);
    cells::nesting::cells(&mut v);
    cells::shapes::cells(&mut v);
    v
}

/// A cell made ready to measure: its kernel, how many times a sample runs it, and the
/// answer every run must give (the sequential version's).
pub(crate) struct Prepared {
    pub name: String,
    kernel: Box<dyn Kernel>,
    pub reps: usize,
    pub expected: u64,
    found: Option<Result<u64, String>>,
}

impl Prepared {
    /// Makes `def`'s kernel, runs the sequential version to get the answer, and times the
    /// three versions (forkjoin and rayon on `fj` and `ry`) to choose the repetitions of a
    /// sample: enough for the slowest version's sample to last `size.sample_seconds()`
    /// (from the sequential time alone, a cell that the compiler folds to nothing
    /// sequentially would repeat a parallel loop a hundred thousand times).
    pub(crate) fn new(def: &CellDef, size: Size, fj: &Engine, ry: &Engine) -> Prepared {
        let mut kernel = (def.make)(size);
        let expected = kernel.run(Version::Seq);
        let mut slowest = 0.0f64;
        for (v, engine) in [
            (Version::Seq, &Engine::Sequential),
            (Version::Fj, fj),
            (Version::Ry, ry),
        ] {
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let start = Instant::now();
                std::hint::black_box(match engine {
                    Engine::Forkjoin(pool) => pool.install(|| kernel.run(v)),
                    Engine::Rayon(pool) => pool.install(|| kernel.run(v)),
                    _ => kernel.run(v),
                });
                best = best.min(start.elapsed().as_secs_f64());
            }
            slowest = slowest.max(best);
        }
        let reps = (size.sample_seconds() / slowest.max(1e-9))
            .ceil()
            .clamp(1.0, 100_000.0) as usize;
        Prepared {
            name: def.name.clone(),
            kernel,
            reps,
            expected,
            found: None,
        }
    }
}

impl Workload for Prepared {
    fn reset(&mut self) {
        self.found = None;
    }

    /// Runs the version `reps` times; keeps the first answer that differs from the
    /// expected one, else the expected one.
    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let v = match ctx {
            Ctx::Sequential => Version::Seq,
            Ctx::Forkjoin => Version::Fj,
            Ctx::Rayon => Version::Ry,
            _ => {
                self.found = Some(Err("only sequential, forkjoin and rayon".to_string()));
                return;
            }
        };
        let mut found = self.expected;
        for _ in 0..self.reps {
            let answer = self.kernel.run(v);
            if answer != self.expected {
                found = answer;
            }
        }
        self.found = Some(Ok(found));
    }

    fn verify(&self) -> Result<(), String> {
        match &self.found {
            None => Err("no run to verify".to_string()),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(found)) if *found == self.expected => Ok(()),
            Some(Ok(found)) => Err(format!(
                "{}: expected {} (sequential), found {found}",
                self.name, self.expected
            )),
        }
    }
}

#[cfg(test)]
mod tests;
