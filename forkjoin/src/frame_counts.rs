//! A worker's count of join frames (`len`) and of those shared (`shared`), and the protocol by
//! which an idle thief claims the oldest private frame while the owner may be popping it:
//! Cilk's THE protocol with its fence made asymmetric (DESIGN.md, section 4, "Claimed from a
//! stalled worker"). The owner's fast path only stores and loads; the thief, rare, pays for
//! the fence (`sync::heavy_barrier`). Model-checked in `loom_tests` below.

use crate::sync::{heavy_barrier, light_barrier, yield_now, AtomicBool, AtomicUsize};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// `frames[..shared]` are shared (promoted onto the deque, or claimed), `frames[shared..len]`
/// private. Written by the owner, and `shared` by a claiming thief under the `FramesLock`.
pub(crate) struct FrameCounts {
    len: AtomicUsize,
    shared: AtomicUsize,
    /// `shared` as the owner last set it. A claim only ever raises `shared` above it (and
    /// counts its frame shared while it is in progress, taking the count back if it fails),
    /// so `len == by_owner` means no frame is private and no claim is in progress. Owner-only.
    by_owner: AtomicUsize,
}

/// A spin lock held by a thief for one claim (a system call), and by the owner while it
/// changes `shared`.
pub(crate) struct FramesLock(AtomicBool);

impl FramesLock {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> FramesLock {
        FramesLock(AtomicBool::new(false))
    }

    #[cfg(loom)]
    pub(crate) fn new() -> FramesLock {
        FramesLock(AtomicBool::new(false))
    }

    fn try_lock(&self) -> bool {
        // Acquire: what the last holder wrote under the lock (`shared`, a claimed frame's
        // latch) is visible to the next.
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
    #[cfg(not(loom))]
    pub(crate) const fn new() -> FrameCounts {
        FrameCounts {
            len: AtomicUsize::new(0),
            shared: AtomicUsize::new(0),
            by_owner: AtomicUsize::new(0),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> FrameCounts {
        FrameCounts {
            len: AtomicUsize::new(0),
            shared: AtomicUsize::new(0),
            by_owner: AtomicUsize::new(0),
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
        // Release: a thief that claims the frame reads its pointer and contents after an
        // Acquire load of `len`. (A plain store on x86.)
        self.len.store(idx + 1, Release);
    }

    /// The owner pops frame `idx` (every younger one popped): whether it may be shared, in
    /// which case `take_back` decides. False means private, run inline: no thief has it.
    #[inline(always)]
    pub(crate) fn popped_maybe_shared(&self, idx: usize) -> bool {
        // Relaxed store, then the load: the Dekker pair with `claim` is ordered by the
        // barriers, this side's costing nothing at run time.
        self.len.store(idx, Relaxed);
        light_barrier();
        idx < self.shared.load(Relaxed)
    }

    /// After `popped_maybe_shared(idx)`: true if frame `idx` is shared (promoted or claimed;
    /// `shared` is lowered to `idx`), false if a claim of it backed off meanwhile (it is
    /// private: run it inline). What the sharer wrote under the lock is visible afterwards.
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

    /// The owner shares its oldest private frame, if any: `share(i)` runs under the lock for
    /// frame `i`, which then counts as shared. Returns `i`.
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

    /// On the owner's thread, without the lock: true only if no frame is private and no
    /// claim is in progress (then none can start: there is nothing to claim). False says
    /// "maybe": decide under the lock (`promote_oldest`). Relaxed: the owner's own writes.
    pub(crate) fn none_private(&self) -> bool {
        self.len.load(Relaxed) == self.by_owner.load(Relaxed)
    }

    /// A thief claims the oldest private frame: on success, `take(i)` runs under the lock
    /// for frame `i` (its pointer and contents visible, the owner unable to pop it until the
    /// lock is released) and says whether to keep it; `None` if the owner popped it first,
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

/// The protocol on real threads (and under Miri, where the barriers are SeqCst fences): an
/// owner records and pops frames while a thief claims; every frame runs exactly once.
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
        // The frame the owner has at each index: its round and depth, as a thief reads a
        // frame's pointer once its claim holds.
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
        // How many claims held depends on timing (about 24,000 of 60,000 frames on the
        // development machine, none where the system has no heavy barrier).
        let _claimed: usize = thief.join().unwrap();
        assert!(runs.iter().all(|r| r.load(Relaxed) == 1));
        assert_eq!((counts.len(), counts.shared()), (0, 0));
    }
}

/// Model checks of the claim protocol: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --lib frame_counts`. The barriers are
/// SeqCst fences under loom.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::Arc;
    use loom::thread;

    /// The frame an owner records at `idx` and pops while a thief tries to claim the oldest
    /// private one: each frame runs exactly once, on the owner (popped private, or the
    /// claim backed off) or on the thief; the owner waits for a claimed one.
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

    /// A claim that declines (the frame's region is not the claimer's) counts the frame
    /// shared until it takes the count back: an owner that shares every private frame
    /// (before it changes region) asks `none_private`, then promotes until `promote_oldest`
    /// finds none, under the lock, and leaves no frame private. Counting `len - shared`
    /// first would skip the frame a declining claim held.
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
