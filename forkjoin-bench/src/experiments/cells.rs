//! Two cells written by two threads, adjacent or padded apart: the layouts `false-sharing`,
//! `lock` and `lazyset` vary.

use std::sync::atomic::AtomicU64;

/// Two 64-bit cells, each written by one thread; the layout is what the experiments vary.
pub(super) trait Pair: Default + Sync {
    /// The layout, for messages.
    const LAYOUT: &'static str;
    fn first(&self) -> &AtomicU64;
    fn second(&self) -> &AtomicU64;
}

/// Both cells in one 64-byte cache line (the struct is one line, aligned to it).
#[derive(Default)]
#[repr(C, align(64))]
pub(super) struct Adjacent {
    first: AtomicU64,
    second: AtomicU64,
}

impl Pair for Adjacent {
    const LAYOUT: &'static str = "adjacent";
    fn first(&self) -> &AtomicU64 {
        &self.first
    }
    fn second(&self) -> &AtomicU64 {
        &self.second
    }
}

/// Aligns and pads to 128 bytes: a line plus the neighbour that the adjacent-line
/// prefetcher of Intel (and recent AMD) cores pulls in with it, as the runtime's own
/// `CachePadded` does.
#[derive(Default)]
#[repr(C, align(128))]
struct Line<T>(T);

/// Each cell on its own 128-byte-aligned pair of lines.
#[derive(Default)]
#[repr(C)]
pub(super) struct Padded {
    first: Line<AtomicU64>,
    second: Line<AtomicU64>,
}

impl Pair for Padded {
    const LAYOUT: &'static str = "padded";
    fn first(&self) -> &AtomicU64 {
        &self.first.0
    }
    fn second(&self) -> &AtomicU64 {
        &self.second.0
    }
}

const _: () = {
    assert!(std::mem::size_of::<Adjacent>() == 64 && std::mem::align_of::<Adjacent>() == 64);
    assert!(std::mem::size_of::<Padded>() == 256 && std::mem::align_of::<Padded>() == 128);
};
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_put_the_cells_where_intended() {
        let a = Adjacent::default();
        let p = Padded::default();
        let addr = |c: &AtomicU64| c as *const AtomicU64 as usize;
        assert_eq!(
            addr(a.first()) / 64,
            addr(a.second()) / 64,
            "adjacent cells share a line"
        );
        assert!(
            addr(p.second()) - addr(p.first()) >= 128,
            "padded cells are 128 bytes apart"
        );
        assert_eq!(addr(p.first()) % 128, 0);
    }
}
