//! The work-stealing deque: Chase and Lev's growable circular array with the C11 orderings of
//! Lê, Pop, Cohen and Zappa Nardelli (DESIGN.md, section 3).

use crate::padded::CachePadded;
use crate::sync::{fence, AtomicIsize, AtomicPtr, AtomicUsize};
use std::cell::UnsafeCell;
use std::ptr::{self, NonNull};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};

const INITIAL_CAPACITY: usize = 64;

struct Buffer<T> {
    mask: usize,
    slots: Box<[Slot<T>]>,
}

/// An item and its tag (its region, `registry/isolation.rs`): one line for a tagged steal.
struct Slot<T> {
    item: AtomicPtr<T>,
    tag: AtomicUsize,
}

impl<T> Buffer<T> {
    fn alloc(capacity: usize) -> *mut Buffer<T> {
        debug_assert!(capacity.is_power_of_two());
        let slots = (0..capacity)
            .map(|_| Slot {
                item: AtomicPtr::new(ptr::null_mut()),
                tag: AtomicUsize::new(0),
            })
            .collect();
        Box::into_raw(Box::new(Buffer {
            mask: capacity - 1,
            slots,
        }))
    }

    fn capacity(&self) -> usize {
        self.mask + 1
    }

    fn at(&self, index: isize) -> &Slot<T> {
        &self.slots[index as usize & self.mask]
    }
}

/// What a steal attempt found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Steal<T> {
    Empty,
    /// Lost a race with the owner or another thief; the deque may still hold work.
    Retry,
    Success(T),
}

/// A Chase-Lev deque of non-null pointers: the owner pushes and pops, any thread steals.
pub(crate) struct Deque<T> {
    /// Written by the owner only; read by thieves.
    bottom: CachePadded<AtomicIsize>,
    /// Advanced by CAS, by thieves and by the owner taking the last element.
    top: CachePadded<AtomicIsize>,
    /// Replaced by the owner only, on growth.
    buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    /// Buffers replaced by growth; touched by the owner only, freed on drop.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
}

// SAFETY: it hands pointers (to `Send` jobs); only the owner and drop touch `retired`.
unsafe impl<T> Send for Deque<T> {}
// SAFETY: as above; every shared field is atomic.
unsafe impl<T> Sync for Deque<T> {}

impl<T> Deque<T> {
    pub(crate) fn new() -> Self {
        Self::with_capacity(INITIAL_CAPACITY)
    }

    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Deque {
            bottom: CachePadded(AtomicIsize::new(0)),
            top: CachePadded(AtomicIsize::new(0)),
            buffer: CachePadded(AtomicPtr::new(Buffer::alloc(capacity.next_power_of_two()))),
            retired: UnsafeCell::new(Vec::new()),
        }
    }

    /// Pushes at the bottom with tag 0 (no waiting worker takes it): the deque's own tests.
    ///
    /// # Safety
    /// Only the owner thread may call `push` and `pop`.
    #[cfg(test)]
    pub(crate) unsafe fn push(&self, item: NonNull<T>) {
        // SAFETY: our contract.
        unsafe { self.push_tagged(item, 0) }
    }

    /// Pushes at the bottom, with the tag a waiting thief compares (`steal_tagged`).
    ///
    /// # Safety
    /// Only the owner thread may call `push` and `pop`.
    pub(crate) unsafe fn push_tagged(&self, item: NonNull<T>, tag: usize) {
        // SAFETY: on the owner's thread (our contract): only it writes `bottom` and the slots at and above it.
        unsafe {
            // Relaxed: only this thread writes `bottom`.
            let b = self.bottom.load(Relaxed);
            // Acquire: pairs with a thief's CAS of `top`: its slot read precedes our overwrite.
            let t = self.top.load(Acquire);
            // Relaxed: only this thread writes `buffer`.
            let mut buf = self.buffer.load(Relaxed);
            // SAFETY: the live buffer is never freed while the deque exists.
            if b - t >= (*buf).capacity() as isize {
                buf = self.grow(buf, t, b);
            }
            // Relaxed: the release store of `bottom` below publishes both.
            (*buf).at(b).item.store(item.as_ptr(), Relaxed);
            (*buf).at(b).tag.store(tag, Relaxed);
            // Release (Java's `lazySet`): a thief's Acquire load of `bottom` sees the slot.
            self.bottom.store(b + 1, Release);
        }
    }

    /// Doubles the buffer, copying the live elements `t..b`.
    ///
    /// # Safety
    /// On the owner's thread, from `push`; `old` is the current buffer and `t..b` its live
    /// range. The old buffer is retired, not freed: a thief may still be reading it.
    unsafe fn grow(&self, old: *mut Buffer<T>, t: isize, b: isize) -> *mut Buffer<T> {
        // SAFETY: on the owner's thread, from `push` (our contract): `t..b` is the live range of `old`, which no thief frees.
        unsafe {
            let new = Buffer::alloc((*old).capacity() * 2);
            for i in t..b {
                // Relaxed: these slots were written by this thread.
                let (from, to) = ((*old).at(i), (*new).at(i));
                to.item.store(from.item.load(Relaxed), Relaxed);
                to.tag.store(from.tag.load(Relaxed), Relaxed);
            }
            // Release: a thief that loads the new buffer (Acquire) sees the copied slots.
            self.buffer.store(new, Release);
            // SAFETY: only the owner touches `retired`.
            (*self.retired.get()).push(old);
            new
        }
    }

    /// Pops from the bottom (the most recently pushed item).
    ///
    /// # Safety
    /// Only the owner thread may call `push` and `pop`.
    pub(crate) unsafe fn pop(&self) -> Option<NonNull<T>> {
        // SAFETY: on the owner's thread (our contract): only it writes `bottom`; the slot it reads was written by its own `push`.
        unsafe {
            // Relaxed: only this thread writes `bottom` and `buffer`.
            let b = self.bottom.load(Relaxed);
            // Unfenced look (DESIGN.md, section 3). Relaxed: `top` only grows, so a stale `top`
            // reaching `bottom` still means empty; a stale one only takes the fenced path.
            if self.top.load(Relaxed) >= b {
                return None;
            }
            let b = b - 1;
            let buf = self.buffer.load(Relaxed);
            // Release, like every store of `bottom`: a thief's Acquire load sees the pushed
            // slots (C++20 dropped the release-sequence rule; DESIGN.md, section 3).
            self.bottom.store(b, Release);
            // Dekker with a thief's CAS of `top`: else both could take the last element.
            fence(SeqCst);
            let t = self.top.load(Relaxed);
            if t > b {
                // Empty: restore.
                self.bottom.store(b + 1, Release);
                return None;
            }
            // Relaxed: this thread wrote the slot.
            let item = (*buf).at(b).item.load(Relaxed);
            if t == b {
                // The last element: race the thieves for it.
                let won = self.top.compare_exchange(t, t + 1, SeqCst, Relaxed).is_ok();
                self.bottom.store(b + 1, Release);
                if !won {
                    return None;
                }
            }
            NonNull::new(item)
        }
    }

    /// Pops only an item pushed since `bottom` was `floor` (`bottom_index`): a waiting owner
    /// takes what it pushed since it began waiting, never what lies below.
    ///
    /// # Safety
    /// Only the owner thread may call `push` and `pop`.
    pub(crate) unsafe fn pop_above(&self, floor: isize) -> Option<NonNull<T>> {
        // Relaxed: only this thread writes `bottom`.
        if self.bottom.load(Relaxed) <= floor {
            return None;
        }
        // SAFETY: our contract.
        unsafe { self.pop() }
    }

    /// The tag of the item `pop` would take (meaningless if the deque is empty, or if a thief
    /// takes that item first).
    ///
    /// # Safety
    /// Only the owner thread may call it.
    pub(crate) unsafe fn bottom_tag(&self) -> usize {
        // Relaxed: only this thread writes `bottom`, `buffer` and the tags of its pushes.
        let b = self.bottom.load(Relaxed);
        let buf = self.buffer.load(Relaxed);
        // SAFETY: buffers live as long as the deque; the owner's slot (if empty, unused).
        unsafe { (*buf).at(b - 1).tag.load(Relaxed) }
    }

    /// The index of the next push. Exact for the owner (only it writes `bottom`).
    pub(crate) fn bottom_index(&self) -> isize {
        // Relaxed: only the owner writes it; the owner asks, and a thief claiming a frame
        // under the owner's frames lock, while the owner cannot push (`registry/claim.rs`).
        self.bottom.load(Relaxed)
    }

    /// Takes the item at the top (the oldest). Any thread.
    pub(crate) fn steal(&self) -> Steal<NonNull<T>> {
        self.steal_if::<false>(|_, _| true)
    }

    /// The top item only if `wanted(its tag)`, else `Empty` (a waiter's; DESIGN.md, section 5).
    pub(crate) fn steal_tagged(&self, wanted: impl Fn(usize) -> bool) -> Steal<NonNull<T>> {
        self.steal_if::<true>(|_, t| wanted(t))
    }

    /// The top item only if pushed since `bottom` was `floor` (the owner's, under `breadth_first`).
    pub(crate) fn steal_above(&self, floor: isize) -> Steal<NonNull<T>> {
        self.steal_if::<false>(|index, _| index >= floor)
    }

    /// The top item's tag as a snapshot (None if empty), which a waiter looks at before parking.
    pub(crate) fn top_tag(&self) -> Option<usize> {
        // Acquire: as in `steal_if`, so the tag read below is not older than its push.
        let t = self.top.load(Acquire);
        let b = self.bottom.load(Acquire);
        if b <= t {
            return None;
        }
        let buf = self.buffer.load(Acquire);
        // SAFETY: buffers live as long as the deque; a stale tag is a hint `steal_tagged` checks.
        Some(unsafe { (*buf).at(t).tag.load(Relaxed) })
    }

    /// Takes the top item if `wanted(index, tag)`; the tag is read only if `TAGGED`.
    #[inline]
    fn steal_if<const TAGGED: bool>(
        &self,
        wanted: impl Fn(isize, usize) -> bool,
    ) -> Steal<NonNull<T>> {
        // Acquire: pairs with the SeqCst CAS of other thieves.
        let t = self.top.load(Acquire);
        // Unfenced look, so sweeping empty deques costs plain loads (DESIGN.md, section 3).
        // Relaxed: nothing is read on the strength of this value.
        if self.bottom.load(Relaxed) <= t {
            return Steal::Empty;
        }
        // The other half of the Dekker pattern in `pop`.
        fence(SeqCst);
        // Acquire: pairs with the release store in `push`, making the slot visible.
        let b = self.bottom.load(Acquire);
        if t >= b {
            return Steal::Empty;
        }
        // Acquire: pairs with the release store in `grow`, making the copied slots visible.
        let buf = self.buffer.load(Acquire);
        // SAFETY: buffers live as long as the deque; a slot overwritten since fails the CAS below.
        let item = unsafe { (*buf).at(t).item.load(Relaxed) };
        let tag = if TAGGED {
            // SAFETY: as above: the tag is validated by the same CAS as the item.
            unsafe { (*buf).at(t).tag.load(Relaxed) }
        } else {
            0
        };
        if !wanted(t, tag) {
            return Steal::Empty;
        }
        if self
            .top
            .compare_exchange(t, t + 1, SeqCst, Relaxed)
            .is_err()
        {
            return Steal::Retry;
        }
        // The CAS won slot `t`, which the Acquire load of `bottom` made visible.
        Steal::Success(NonNull::new(item).expect("a won steal reads a pushed slot"))
    }

    /// Takes the oldest half of the items (rounded up, at most `out.len()`) with one CAS into
    /// `out`, oldest first with their tags; `Success` says how many (DESIGN.md, section 5).
    ///
    /// # Safety
    /// No thread ever calls `pop` on this deque: with pushes alone, every index below
    /// `bottom` stays pushed until a CAS on `top` takes it, so no fence is needed.
    pub(crate) unsafe fn steal_batch(&self, out: &mut [(*mut T, usize)]) -> Steal<usize> {
        // SAFETY: nobody pops this deque (our contract), so every slot below `bottom` stays written until a CAS on `top` takes it.
        unsafe {
            // Acquire: pairs with other thieves' CAS (a slot is overwritten only after its read).
            let t = self.top.load(Acquire);
            // Acquire: pairs with `push`'s release store; a stale (smaller) `b` shrinks the batch.
            let b = self.bottom.load(Acquire);
            if t >= b || out.is_empty() {
                return Steal::Empty;
            }
            let n = ((b - t) as usize).div_ceil(2).min(out.len());
            // Acquire: pairs with the release store in `grow`, making the copied slots visible.
            let buf = self.buffer.load(Acquire);
            for (i, slot) in out[..n].iter_mut().enumerate() {
                // Relaxed: made visible by the Acquire load of `bottom`; a slot or tag
                // overwritten since fails the CAS below (as in `steal_if`).
                let from = (*buf).at(t + i as isize);
                *slot = (from.item.load(Relaxed), from.tag.load(Relaxed));
            }
            if self
                .top
                .compare_exchange(t, t + n as isize, SeqCst, Relaxed)
                .is_err()
            {
                return Steal::Retry;
            }
            Steal::Success(n)
        }
    }

    /// Whether the deque looks empty: exact for the owner, else a snapshot. Relaxed: a
    /// caller in a Dekker pattern (the sleep protocol) fences first.
    pub(crate) fn is_empty(&self) -> bool {
        let b = self.bottom.load(Relaxed);
        let t = self.top.load(Relaxed);
        b <= t
    }

    /// Number of items, as a snapshot (exact for the owner when no thief is active).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let b = self.bottom.load(Relaxed);
        let t = self.top.load(Relaxed);
        (b - t).max(0) as usize
    }
}

impl<T> Drop for Deque<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self` is exclusive; every buffer came from `Box::into_raw`, freed once.
        unsafe {
            drop(Box::from_raw(self.buffer.load(Relaxed)));
            for old in (*self.retired.get()).drain(..) {
                drop(Box::from_raw(old));
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize as StdAtomicUsize};
    use std::sync::Arc;

    fn item(v: usize) -> NonNull<usize> {
        NonNull::new(Box::into_raw(Box::new(v))).unwrap()
    }

    fn take(p: NonNull<usize>) -> usize {
        // SAFETY: made by `item`, taken exactly once (what the tests check).
        unsafe { *Box::from_raw(p.as_ptr()) }
    }

    #[test]
    fn lifo_for_owner_fifo_for_thief() {
        let d = Deque::with_capacity(2);
        // SAFETY: this thread is the owner.
        unsafe {
            for v in 0..10 {
                d.push(item(v));
            }
            assert_eq!(d.len(), 10);
            assert_eq!(take(d.pop().unwrap()), 9);
            match d.steal() {
                Steal::Success(p) => assert_eq!(take(p), 0),
                other => panic!("expected success, got {other:?}"),
            }
            let rest: Vec<usize> = std::iter::from_fn(|| d.pop()).map(take).collect();
            assert_eq!(rest, vec![8, 7, 6, 5, 4, 3, 2, 1]);
            assert!(d.pop().is_none());
            assert_eq!(d.steal(), Steal::Empty);
            assert!(d.is_empty());
        }
    }

    /// A batch is the oldest half, rounded up, at most the buffer's length, oldest first.
    #[test]
    fn steal_batch_takes_the_oldest_half() {
        let d = Deque::with_capacity(4);
        let mut out = [(ptr::null_mut(), 0); 4];
        let taken = |d: &Deque<usize>, out: &mut [(*mut usize, usize)]| -> Vec<usize> {
            // SAFETY: nobody pops this deque.
            match unsafe { d.steal_batch(out) } {
                Steal::Success(n) => out[..n]
                    .iter()
                    .map(|&(p, tag)| {
                        let v = take(NonNull::new(p).unwrap());
                        // Each item comes with its own tag.
                        assert_eq!(tag, v * 10);
                        v
                    })
                    .collect(),
                Steal::Empty => Vec::new(),
                Steal::Retry => panic!("no other thief"),
            }
        };
        assert_eq!(taken(&d, &mut out), Vec::<usize>::new());
        // SAFETY: this thread is the owner.
        unsafe {
            for v in 0..11 {
                d.push_tagged(item(v), v * 10);
            }
        }
        // 11 queued: half is 6, capped at 4.
        assert_eq!(taken(&d, &mut out), vec![0, 1, 2, 3]);
        // 7 queued: 4.
        assert_eq!(taken(&d, &mut out), vec![4, 5, 6, 7]);
        // 3 queued: 2.
        assert_eq!(taken(&d, &mut out), vec![8, 9]);
        // 1 queued: 1.
        assert_eq!(taken(&d, &mut out), vec![10]);
        assert_eq!(taken(&d, &mut out), Vec::<usize>::new());
        assert!(d.is_empty());
        // A zero-length buffer takes nothing.
        // SAFETY: owner.
        unsafe { d.push_tagged(item(11), 110) };
        assert_eq!(taken(&d, &mut []), Vec::<usize>::new());
        assert_eq!(taken(&d, &mut out), vec![11]);
    }

    /// Pushes (growing from 2) against three batch thieves: each item once, in order per thief.
    #[test]
    fn concurrent_batches_exactly_once_in_order() {
        const N: usize = if cfg!(miri) { 300 } else { 200_000 };
        let d = Arc::new(Deque::with_capacity(2));
        let done = Arc::new(AtomicBool::new(false));
        let thieves: Vec<_> = (0..3)
            .map(|_| {
                let (d, done) = (d.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    let mut out = [(ptr::null_mut(), 0); 8];
                    loop {
                        let finished = done.load(Acquire);
                        // SAFETY: nobody pops this deque.
                        match unsafe { d.steal_batch(&mut out) } {
                            Steal::Success(n) => got.extend(
                                out[..n]
                                    .iter()
                                    .map(|&(p, _)| take(NonNull::new(p).unwrap())),
                            ),
                            Steal::Retry => {}
                            Steal::Empty if finished => return got,
                            Steal::Empty => std::hint::spin_loop(),
                        }
                    }
                })
            })
            .collect();
        for v in 0..N {
            // SAFETY: this thread is the owner, and it never pops.
            unsafe { d.push(item(v)) };
        }
        done.store(true, Release);
        let mut all = Vec::new();
        for t in thieves {
            let got = t.join().unwrap();
            assert!(
                got.windows(2).all(|w| w[0] < w[1]),
                "a thief's items out of order"
            );
            all.extend(got);
        }
        all.sort_unstable();
        assert_eq!(all, (0..N).collect::<Vec<_>>());
    }

    /// Owner pushes and pops while three thieves steal: every item is taken exactly once.
    #[test]
    fn concurrent_exactly_once() {
        const N: usize = if cfg!(miri) { 300 } else { 200_000 };
        let d = Arc::new(Deque::with_capacity(4));
        let done = Arc::new(AtomicBool::new(false));
        let sum = Arc::new(StdAtomicUsize::new(0));
        let count = Arc::new(StdAtomicUsize::new(0));
        let thieves: Vec<_> = (0..3)
            .map(|_| {
                let (d, done, sum, count) = (d.clone(), done.clone(), sum.clone(), count.clone());
                std::thread::spawn(move || loop {
                    match d.steal() {
                        Steal::Success(p) => {
                            sum.fetch_add(take(p), Relaxed);
                            count.fetch_add(1, Relaxed);
                        }
                        Steal::Retry => {}
                        Steal::Empty if done.load(Acquire) => break,
                        Steal::Empty => std::hint::spin_loop(),
                    }
                })
            })
            .collect();
        let mut own = 0usize;
        let mut own_count = 0usize;
        for v in 1..=N {
            // SAFETY: this thread is the owner.
            unsafe {
                d.push(item(v));
                if v % 3 == 0 {
                    if let Some(p) = d.pop() {
                        own += take(p);
                        own_count += 1;
                    }
                }
            }
        }
        // SAFETY: this thread is the owner.
        while let Some(p) = unsafe { d.pop() } {
            own += take(p);
            own_count += 1;
        }
        done.store(true, Release);
        for t in thieves {
            t.join().unwrap();
        }
        assert_eq!(own_count + count.load(Relaxed), N);
        assert_eq!(own + sum.load(Relaxed), N * (N + 1) / 2);
    }
}

/// Model checks of the races the deque must survive: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p forkjoin --release --lib deque::loom_tests`.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::model;
    use loom::sync::Arc;
    use loom::thread;

    fn item(v: usize) -> NonNull<usize> {
        NonNull::new(Box::into_raw(Box::new(v))).unwrap()
    }

    fn take(p: NonNull<usize>) -> usize {
        // SAFETY: made by `item`; the assertions check it is taken exactly once.
        unsafe { *Box::from_raw(p.as_ptr()) }
    }

    fn steal_tagged_once(d: &Deque<usize>, tag: usize) -> Option<usize> {
        loop {
            match d.steal_tagged(|t| t == tag) {
                Steal::Success(p) => return Some(take(p)),
                Steal::Empty => return None,
                Steal::Retry => thread::yield_now(),
            }
        }
    }

    fn steal_once(d: &Deque<usize>) -> Option<usize> {
        loop {
            match d.steal() {
                Steal::Success(p) => return Some(take(p)),
                Steal::Empty => return None,
                Steal::Retry => thread::yield_now(),
            }
        }
    }

    /// The last element: the owner's pop and a thief's steal race; exactly one wins.
    #[test]
    fn last_element_race() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(2));
            // SAFETY: the model's main thread is the owner.
            unsafe { d.push(item(7)) };
            let thief = {
                let d = d.clone();
                thread::spawn(move || steal_once(&d))
            };
            // SAFETY: owner.
            let mine = unsafe { d.pop() }.map(take);
            let theirs = thief.join().unwrap();
            assert_eq!(mine.is_some() as u8 + theirs.is_some() as u8, 1);
            assert_eq!(mine.or(theirs), Some(7));
        });
    }

    /// A waiting thief takes only its region's items: the owner pushes another region's item,
    /// then the thief's, and pops while the thief steals tagged; each item is taken once.
    #[test]
    fn tagged_steal_takes_only_its_region() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(2));
            // SAFETY: the model's main thread is the owner.
            unsafe { d.push_tagged(item(1), 10) };
            let thief = {
                let d = d.clone();
                thread::spawn(move || steal_tagged_once(&d, 20))
            };
            // SAFETY: owner.
            unsafe { d.push_tagged(item(2), 20) };
            // SAFETY: owner.
            let popped: Vec<usize> = std::iter::from_fn(|| unsafe { d.pop() })
                .map(take)
                .collect();
            let theirs = thief.join().unwrap();
            // Item 1 lies at the top until it is popped: the thief sees its tag and passes.
            assert_eq!(theirs, None);
            assert_eq!(popped, vec![2, 1]);
        });
    }

    /// A tagged steal against a pop of the last item of its region: exactly one gets it.
    #[test]
    fn tagged_steal_races_the_owner_for_the_last_item() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(2));
            // SAFETY: the model's main thread is the owner.
            unsafe { d.push_tagged(item(7), 20) };
            let thief = {
                let d = d.clone();
                thread::spawn(move || steal_tagged_once(&d, 20))
            };
            // SAFETY: owner.
            let mine = unsafe { d.pop_above(0) }.map(take);
            let theirs = thief.join().unwrap();
            assert_eq!(mine.is_some() as u8 + theirs.is_some() as u8, 1);
            assert_eq!(mine.or(theirs), Some(7));
        });
    }

    /// Push, pop and steal interleaved: each item exactly once.
    #[test]
    fn push_pop_steal() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(4));
            let thieves: Vec<_> = (0..1)
                .map(|_| {
                    let d = d.clone();
                    thread::spawn(move || steal_once(&d).unwrap_or(0))
                })
                .collect();
            // SAFETY: owner.
            let mut got = unsafe {
                d.push(item(1));
                d.push(item(2));
                d.pop().map(take).unwrap_or(0)
            };
            // SAFETY: owner.
            while let Some(p) = unsafe { d.pop() } {
                got += take(p);
            }
            for t in thieves {
                got += t.join().unwrap();
            }
            assert_eq!(got, 3);
        });
    }

    /// The Dekker pattern of `pop`: the owner sees two items and takes the bottom one
    /// without a CAS while a thief takes both; the fence guarantees one side sees the other.
    #[test]
    fn pop_against_two_steals() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(4));
            // SAFETY: owner.
            unsafe {
                d.push(item(1));
                d.push(item(2));
            }
            let thief = {
                let d = d.clone();
                thread::spawn(move || steal_once(&d).unwrap_or(0) + steal_once(&d).unwrap_or(0))
            };
            // SAFETY: owner.
            let mut got = unsafe { d.pop() }.map(take).unwrap_or(0);
            got += thief.join().unwrap();
            // SAFETY: owner.
            while let Some(p) = unsafe { d.pop() } {
                got += take(p);
            }
            assert_eq!(got, 3);
        });
    }

    /// Two batch thieves against a growing pusher: each item once, with its tag (ten times it).
    #[test]
    fn batch_steals_against_pushes() {
        // An item taken by a batch, checked against its tag.
        fn tagged(p: *mut usize, tag: usize) -> usize {
            let v = take(NonNull::new(p).unwrap());
            assert_eq!(tag, v * 10, "a batch carried another item's tag");
            v
        }
        model(|| {
            let d = Arc::new(Deque::with_capacity(2));
            // SAFETY: the model's main thread is the owner and never pops.
            unsafe { d.push_tagged(item(1), 10) };
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let d = d.clone();
                    thread::spawn(move || {
                        let mut out = [(ptr::null_mut(), 0); 2];
                        loop {
                            // SAFETY: nobody pops this deque.
                            match unsafe { d.steal_batch(&mut out) } {
                                Steal::Success(n) => {
                                    return out[..n]
                                        .iter()
                                        .map(|&(p, tag)| tagged(p, tag))
                                        .sum::<usize>()
                                }
                                Steal::Empty => return 0,
                                Steal::Retry => thread::yield_now(),
                            }
                        }
                    })
                })
                .collect();
            // SAFETY: owner; the third push grows the buffer.
            unsafe {
                d.push_tagged(item(2), 20);
                d.push_tagged(item(4), 40);
            }
            let mut got: usize = thieves.into_iter().map(|t| t.join().unwrap()).sum();
            let mut out = [(ptr::null_mut(), 0); 4];
            // SAFETY: no thief is left; nobody pops.
            while let Steal::Success(n) = unsafe { d.steal_batch(&mut out) } {
                got += out[..n]
                    .iter()
                    .map(|&(p, tag)| tagged(p, tag))
                    .sum::<usize>();
            }
            assert_eq!(got, 7);
        });
    }

    /// A push that grows the buffer while a thief reads the old one.
    #[test]
    fn growth_while_stealing() {
        model(|| {
            let d = Arc::new(Deque::with_capacity(1));
            // SAFETY: owner.
            unsafe { d.push(item(1)) };
            let thief = {
                let d = d.clone();
                thread::spawn(move || steal_once(&d).unwrap_or(0))
            };
            // SAFETY: owner; this push finds the buffer full and grows it.
            unsafe { d.push(item(2)) };
            let mut got = 0;
            // SAFETY: owner.
            while let Some(p) = unsafe { d.pop() } {
                got += take(p);
            }
            got += thief.join().unwrap();
            assert_eq!(got, 3);
        });
    }
}
