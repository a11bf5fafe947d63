//! The item costs of the matrix: about 1 ns (vectorisable arithmetic), 100 ns and 10 us
//! (rounds of the splitmix64 finaliser, a dependent chain of multiplies, whose count is
//! read at run time so that the loop cannot be folded away), and mixed (a few ns an item,
//! every 64th item 100 times dearer).
//!
//! Every cost maps an item (a `u64`) to a value below 2^32, so that sums of up to 2^32
//! items cannot overflow (the test profile checks overflow).

use std::hint::black_box;

/// Rounds of [`spin`] in about 100 ns on the development machine (2 vCPUs, about 2.4 ns a
/// round in a loop of 100 ns items, built without `target-cpu=native`: two multiplies and
/// three xor-shifts, each waiting for the last).
pub(crate) const ROUNDS_100NS: u32 = 42;

/// Rounds of [`spin`] in about 10 us there (longer chains ran at about 3.2 ns a round).
pub(crate) const ROUNDS_10US: u32 = 3000;

/// What one item costs: `f` is the item's work.
pub(crate) trait Cost: Copy + Send + Sync + 'static {
    /// The item's work: a value below 2^32.
    fn f(&self, i: u64) -> u64;
    /// The nominal nanoseconds of an item (for sizing the loops).
    fn ns(&self) -> f64;
}

/// The low 32 bits.
const LOW: u64 = 0xffff_ffff;

/// About 1 ns an item, vectorisable: `3x + 1`, masked (the mask also keeps LLVM from
/// summing a range of it in closed form).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cheap;

impl Cost for Cheap {
    #[inline(always)]
    fn f(&self, i: u64) -> u64 {
        i.wrapping_mul(3).wrapping_add(1) & LOW
    }
    fn ns(&self) -> f64 {
        1.0
    }
}

/// `rounds` rounds of the splitmix64 finaliser on `x`, the high half: a dependent chain.
#[inline(always)]
pub(crate) fn spin(x: u64, rounds: u32) -> u64 {
    let mut z = x;
    for _ in 0..rounds {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
    }
    z >> 32
}

/// A fixed number of [`spin`] rounds an item (read at run time).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spin {
    rounds: u32,
    ns: f64,
}

impl Spin {
    /// About 100 ns an item.
    pub(crate) fn ns100() -> Spin {
        Spin {
            rounds: black_box(ROUNDS_100NS),
            ns: 100.0,
        }
    }
    /// About 10 us an item.
    pub(crate) fn us10() -> Spin {
        Spin {
            rounds: black_box(ROUNDS_10US),
            ns: 10_000.0,
        }
    }
}

impl Cost for Spin {
    #[inline(always)]
    fn f(&self, i: u64) -> u64 {
        spin(i, self.rounds)
    }
    fn ns(&self) -> f64 {
        self.ns
    }
}

/// Mixed costs: one [`spin`] round an item (a few ns), but every 64th item (by value) 100
/// rounds: a loop whose even halves are not equal work.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mixed {
    base: u32,
    dear: u32,
}

impl Mixed {
    pub(crate) fn new() -> Mixed {
        Mixed {
            base: black_box(1),
            dear: black_box(100),
        }
    }
}

impl Cost for Mixed {
    #[inline(always)]
    fn f(&self, i: u64) -> u64 {
        spin(
            i,
            if i.is_multiple_of(64) {
                self.dear
            } else {
                self.base
            },
        )
    }
    fn ns(&self) -> f64 {
        // 63 items of one round and one of 100, at about 3 ns a round.
        3.0 * (63.0 + 100.0) / 64.0
    }
}
