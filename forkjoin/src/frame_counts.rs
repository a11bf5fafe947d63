//! A worker's join-frame counts and a thief's claim of the oldest private frame: Cilk's THE
//! protocol, its fence asymmetric (DESIGN.md, section 4, "Claimed from a stalled worker").

use crate::sync::{heavy_barrier, light_barrier, yield_now, AtomicBool, AtomicUsize};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// `frames[..shared]` are shared (promoted onto the deque, or claimed), `frames[shared..len]`
/// private. Written by the owner, and `shared` by a claiming thief under the `FramesLock`.
pub(crate) struct FrameCounts {
    len: AtomicUsize,
    shared: AtomicUsize,
    /// `shared` as the owner last set it; a claim only raises `shared` above it while in
    /// progress, so `len == by_owner` means no private frame and no claim. Owner-only.
    by_owner: AtomicUsize,
}

/// A spin lock: a thief's for one claim (a system call), the owner's while it changes `shared`.
pub(crate) struct FramesLock(AtomicBool);

impl FramesLock {
    crate::sync::const_fn! {
        pub(crate) const fn new() -> FramesLock {
            FramesLock(AtomicBool::new(false))
        }
    }

    fn try_lock(&self) -> bool {
        // Acquire: the last holder's writes under the lock (`shared`, a claimed frame's latch).
        self.0
            .compare_exchange(false, true, Acquire, Relaxed)
            .is_ok()
    }

    fn lock(&self) {
        while !self.try_lock() {
            // The holder is a thief in a system call, or descheduled on a busy machine.
            yield_now();
        }
    }

    fn unlock(&self) {
        // Release: pairs with `try_lock`.
        self.0.store(false, Release);
    }

    /// Runs `f` with the lock held.
    pub(crate) fn with<R>(&self, f: impl FnOnce() -> R) -> R {
        self.lock();
        let r = f();
        self.unlock();
        r
    }
}

impl FrameCounts {
    crate::sync::const_fn! {
        pub(crate) const fn new() -> FrameCounts {
            FrameCounts {
                len: AtomicUsize::new(0),
                shared: AtomicUsize::new(0),
                by_owner: AtomicUsize::new(0),
            }
        }
    }

    /// Frames recorded. Relaxed: the owner's own count (a thief reads it in `claim`).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len.load(Relaxed)
    }

    /// Frames shared. Relaxed: exact on the owner's thread but for a claim in progress,
    /// which `popped_maybe_shared` and `take_back` settle; elsewhere a hint.
    #[inline(always)]
    pub(crate) fn shared(&self) -> usize {
        self.shared.load(Relaxed)
    }

    /// The owner has written frame `idx`'s pointer: count it.
    #[inline(always)]
    pub(crate) fn recorded(&self, idx: usize) {
        // Release: a claiming thief reads the frame after an Acquire load of `len`.
        self.len.store(idx + 1, Release);
    }

    /// The owner pops frame `idx` (every younger one popped): whether it may be shared, in
    /// which case `take_back` decides. False means private, run inline: no thief has it.
    #[inline(always)]
    pub(crate) fn popped_maybe_shared(&self, idx: usize) -> bool {
        // Relaxed: the Dekker pair with `claim` is ordered by the barriers (free on this side).
        self.len.store(idx, Relaxed);
        light_barrier();
        idx < self.shared.load(Relaxed)
    }

    /// After `popped_maybe_shared(idx)`: true if frame `idx` is shared (`shared` lowered to
    /// `idx`; the sharer's writes visible), false if a claim backed off (run it inline).
    pub(crate) fn take_back(&self, lock: &FramesLock, idx: usize) -> bool {
        lock.with(|| {
            let shared = idx < self.shared.load(Relaxed);
            if shared {
                self.shared.store(idx, Relaxed);
                self.by_owner.store(idx, Relaxed);
            }
            shared
        })
    }

    /// The owner shares its oldest private frame, if any (`share(i)` under the lock): `i`.
    pub(crate) fn promote_oldest(
        &self,
        lock: &FramesLock,
        share: impl FnOnce(usize),
    ) -> Option<usize> {
        lock.with(|| {
            let i = self.shared.load(Relaxed);
            if i >= self.len.load(Relaxed) {
                return None;
            }
            share(i);
            self.shared.store(i + 1, Relaxed);
            self.by_owner.store(i + 1, Relaxed);
            Some(i)
        })
    }

    /// The owner sets `shared` (frames hidden below a wait, and back).
    pub(crate) fn set_shared(&self, lock: &FramesLock, shared: usize) -> usize {
        self.by_owner.store(shared, Relaxed);
        lock.with(|| self.shared.swap(shared, Relaxed))
    }

    /// Whether frames are private (a hint, read without the lock).
    pub(crate) fn has_private(&self) -> bool {
        self.len.load(Relaxed) > self.shared.load(Relaxed)
    }

    /// Owner-only, without the lock: true only if no frame is private and no claim is in
    /// progress; false means "maybe" (`promote_oldest` decides). Relaxed: the owner's writes.
    pub(crate) fn none_private(&self) -> bool {
        self.len.load(Relaxed) == self.by_owner.load(Relaxed)
    }

    /// A thief claims the oldest private frame: `take(i)` runs under the lock (frame `i`
    /// visible, unpoppable) and says whether to keep it; `None` if the owner popped it first,
    /// `take` declined, the lock was busy or the system has no heavy barrier.
    pub(crate) fn claim(
        &self,
        lock: &FramesLock,
        take: impl FnOnce(usize) -> bool,
    ) -> Option<usize> {
        if !lock.try_lock() {
            return None;
        }
        let s = self.shared.load(Relaxed);
        let mut claimed = None;
        if self.len.load(Relaxed) > s {
            self.shared.store(s + 1, Relaxed);
            // Against the owner's `light_barrier` in `popped_maybe_shared`: either the owner
            // sees `shared > s`, or this load sees its `len <= s`.
            let fenced = heavy_barrier();
            // Acquire: pairs with `recorded`'s Release store for the frame.
            if fenced && self.len.load(Acquire) > s && take(s) {
                claimed = Some(s);
            } else {
                self.shared.store(s, Relaxed);
            }
        }
        lock.unlock();
        claimed
    }
}

/// The protocol on real threads (Miri: SeqCst fences): every frame runs exactly once.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn every_frame_runs_once_while_a_thief_claims() {
        const ROUNDS: usize = if cfg!(miri) { 20 } else { 20_000 };
        const DEPTH: usize = 3;
        let counts = Arc::new(FrameCounts::new());
        let lock = Arc::new(FramesLock::new());
        // Per round and depth: runs, and whether the thief's run is done.
        let runs: Arc<Vec<AtomicU64>> =
            Arc::new((0..ROUNDS * DEPTH).map(|_| AtomicU64::new(0)).collect());
        let done: Arc<Vec<AtomicBool>> = Arc::new(
            (0..ROUNDS * DEPTH)
                .map(|_| AtomicBool::new(false))
                .collect(),
        );
        // The frame at each index, as a claiming thief reads a frame's pointer.
        let frames: Arc<Vec<AtomicUsize>> =
            Arc::new((0..DEPTH).map(|_| AtomicUsize::new(0)).collect());
        let stop = Arc::new(AtomicBool::new(false));
        let thief = {
            let (counts, lock, runs, done, frames, stop) = (
                counts.clone(),
                lock.clone(),
                runs.clone(),
                done.clone(),
                frames.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let mut claimed = 0;
                while !stop.load(Relaxed) {
                    let mut frame = 0;
                    if counts
                        .claim(&lock, |i| {
                            frame = frames[i].load(Relaxed);
                            true
                        })
                        .is_some()
                    {
                        runs[frame].fetch_add(1, Relaxed);
                        done[frame].store(true, Release);
                        claimed += 1;
                    }
                    std::hint::spin_loop();
                }
                claimed
            })
        };
        for round in 0..ROUNDS {
            for i in 0..DEPTH {
                frames[i].store(round * DEPTH + i, Relaxed);
                counts.recorded(i);
            }
            // The first closures' work: the thief's claims land anywhere around the pops.
            for _ in 0..round % 512 {
                std::hint::spin_loop();
            }
            for i in (0..DEPTH).rev() {
                let frame = round * DEPTH + i;
                if counts.popped_maybe_shared(i) && counts.take_back(&lock, i) {
                    while !done[frame].load(Acquire) {
                        std::hint::spin_loop();
                    }
                } else {
                    runs[frame].fetch_add(1, Relaxed);
                }
            }
        }
        stop.store(true, Relaxed);
        // How many claims hold depends on timing (none without a heavy barrier):
        // docs/measurements.md, section 5, "Claimed from a stalled worker".
        let _claimed: usize = thief.join().unwrap();
        assert!(runs.iter().all(|r| r.load(Relaxed) == 1));
        assert_eq!((counts.len(), counts.shared()), (0, 0));
    }
}

/// Model checks of the claim protocol (the barriers being SeqCst fences under loom): run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib frame_counts`.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::Arc;
    use loom::thread;

    /// An owner pops the frames it recorded while a thief claims the oldest private one: each
    /// runs once, on the owner (private, or the claim backed off) or on the thief.
    fn owner_and_thief(frames: usize) {
        model(move || {
            let counts = Arc::new(FrameCounts::new());
            let lock = Arc::new(FramesLock::new());
            let runs: Arc<Vec<AtomicUsize>> =
                Arc::new((0..frames).map(|_| AtomicUsize::new(0)).collect());
            let done: Arc<Vec<AtomicBool>> =
                Arc::new((0..frames).map(|_| AtomicBool::new(false)).collect());
            for i in 0..frames {
                counts.recorded(i);
            }
            let thief = {
                let (counts, lock, runs, done) =
                    (counts.clone(), lock.clone(), runs.clone(), done.clone());
                thread::spawn(move || {
                    if let Some(i) = counts.claim(&lock, |_| true) {
                        runs[i].fetch_add(1, Relaxed);
                        // The frame's latch.
                        done[i].store(true, Release);
                    }
                })
            };
            for i in (0..frames).rev() {
                if counts.popped_maybe_shared(i) && counts.take_back(&lock, i) {
                    while !done[i].load(Acquire) {
                        thread::yield_now();
                    }
                } else {
                    runs[i].fetch_add(1, Relaxed);
                }
            }
            thief.join().unwrap();
            for r in runs.iter() {
                assert_eq!(r.load(Relaxed), 1);
            }
            assert_eq!((counts.len(), counts.shared()), (0, 0));
        });
    }

    #[test]
    fn one_frame_runs_once() {
        owner_and_thief(1);
    }

    #[test]
    fn two_frames_run_once_each() {
        owner_and_thief(2);
    }

    /// The owner records a new frame at the index it just popped (the ABA case): a claim
    /// takes one of the two, and each runs once.
    #[test]
    fn a_frame_recorded_again_at_the_same_index_runs_once() {
        model(|| {
            let counts = Arc::new(FrameCounts::new());
            let lock = Arc::new(FramesLock::new());
            let runs: Arc<[AtomicUsize; 2]> = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
            let done: Arc<[AtomicBool; 2]> =
                Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
            // Which frame (first or second) lies at index 0 when the thief looks.
            let current = Arc::new(AtomicUsize::new(0));
            counts.recorded(0);
            let thief = {
                let (counts, lock, runs, done, current) = (
                    counts.clone(),
                    lock.clone(),
                    runs.clone(),
                    done.clone(),
                    current.clone(),
                );
                thread::spawn(move || {
                    let mut which = None;
                    if counts
                        .claim(&lock, |_| {
                            which = Some(current.load(Relaxed));
                            true
                        })
                        .is_some()
                    {
                        let w = which.unwrap();
                        runs[w].fetch_add(1, Relaxed);
                        done[w].store(true, Release);
                    }
                })
            };
            for w in 0..2 {
                if w == 1 {
                    current.store(1, Relaxed);
                    counts.recorded(0);
                }
                if counts.popped_maybe_shared(0) && counts.take_back(&lock, 0) {
                    while !done[w].load(Acquire) {
                        thread::yield_now();
                    }
                } else {
                    runs[w].fetch_add(1, Relaxed);
                }
            }
            thief.join().unwrap();
            assert_eq!([runs[0].load(Relaxed), runs[1].load(Relaxed)], [1, 1]);
        });
    }

    /// A declining claim counts its frame shared until it takes the count back: an owner that
    /// asks `none_private`, then promotes until `promote_oldest` finds none, leaves no frame
    /// private (counting `len - shared` first would skip the declining claim's frame).
    #[test]
    fn promoting_until_none_leaves_no_frame_private_beside_a_declining_claim() {
        model(|| {
            let counts = Arc::new(FrameCounts::new());
            let lock = Arc::new(FramesLock::new());
            counts.recorded(0);
            counts.recorded(1);
            // Frame 0 shared already: the claim's tentative count then equals `len`.
            assert_eq!(counts.promote_oldest(&lock, |_| {}), Some(0));
            let thief = {
                let (counts, lock) = (counts.clone(), lock.clone());
                thread::spawn(move || assert_eq!(counts.claim(&lock, |_| false), None))
            };
            // The owner runs on meanwhile: a yield lets the claim start first (without it the
            // bounded search never runs the claim's tentative count before the owner looks).
            thread::yield_now();
            let mut promoted = Vec::new();
            if !counts.none_private() {
                while let Some(i) = counts.promote_oldest(&lock, |_| {}) {
                    promoted.push(i);
                }
            }
            assert!(counts.none_private());
            thief.join().unwrap();
            assert_eq!(promoted, [1]);
            assert_eq!((counts.len(), counts.shared()), (2, 2));
        });
    }
}
