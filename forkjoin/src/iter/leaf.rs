//! How a leaf folds an accumulator that the user's closure takes and returns by value
//! (`fold`, `reduce`, `fold_chunks`): DESIGN.md, section 8, "An accumulator with a destructor".

use std::{hint, mem};

/// Bytes above which an accumulator cannot live in registers (x86-64 has 16 general ones).
const LARGE_ACC: usize = 128;

/// `iter.fold(acc, f)`. A handle with a destructor of at most three words (a `Vec`, a `String`,
/// a `Box`, a `BTreeMap`) stays in one place across the items instead of moving between two
/// stack slots per item; a larger one (a `HashMap` with its hasher's keys) would be written back
/// whole per item, and its next read stall on those writes. An accumulator larger than the
/// registers (`LARGE_ACC`) stays in one place in memory too, out of the optimiser's reach.
#[inline]
pub(crate) fn fold_moving<Acc, In, I, F>(iter: I, acc: Acc, mut f: F) -> Acc
where
    I: Iterator<Item = In>,
    F: FnMut(Acc, In) -> Acc,
{
    let large = mem::size_of::<Acc>() > LARGE_ACC;
    if !large && (!mem::needs_drop::<Acc>() || mem::size_of::<Acc>() > 3 * mem::size_of::<usize>())
    {
        return iter.fold(acc, f);
    }
    let mut slot = Some(acc);
    if large {
        // Its address escapes, so LLVM keeps the slot whole: split into its words, the
        // accumulator was loaded and stored back word by word at every item.
        hint::black_box(&mut slot);
    }
    iter.for_each(|item| {
        if let Some(acc) = slot.take() {
            slot = Some(f(acc, item));
        }
    });
    // Always `Some` here: a panic in `f` leaves by unwinding, past this line.
    match slot {
        Some(acc) => acc,
        None => unreachable!("a fold's accumulator is back after every item"),
    }
}

#[cfg(test)]
mod tests {
    use super::fold_moving;
    use std::cell::Cell;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn folds_as_std_does_with_and_without_a_destructor() {
        let pushed = fold_moving(0..1000u32, Vec::new(), |mut v, x| {
            v.push(x * 3);
            v
        });
        assert_eq!(pushed, (0..1000u32).map(|x| x * 3).collect::<Vec<_>>());
        let text = fold_moving("abc".chars(), String::from(">"), |mut s, c| {
            s.push(c);
            s
        });
        assert_eq!(text, ">abc");
        assert_eq!(fold_moving(0..1000u64, 7u64, |a, x| a + x), 499_507);
        assert_eq!(fold_moving(0..0u32, vec![9u8], |v, _| v), [9]);
        // Larger than the registers, with and without a destructor.
        let words = fold_moving(0..1000u64, [0u64; 32], |mut a, x| {
            a[(x % 32) as usize] += x;
            a
        });
        assert_eq!(words[7], (0..1000u64).filter(|x| x % 32 == 7).sum::<u64>());
        assert_eq!(words.iter().sum::<u64>(), 499_500);
        let (tail, big) = fold_moving(0..1000u32, (Vec::new(), [0u32; 40]), |(mut v, mut a), x| {
            v.push(x);
            a[(x % 40) as usize] += 1;
            (v, a)
        });
        assert_eq!(tail, (0..1000).collect::<Vec<u32>>());
        assert_eq!(big, [25; 40]);
    }

    /// The accumulator is dropped exactly once when the closure panics holding it.
    #[test]
    fn a_panic_in_the_closure_drops_the_accumulator_once() {
        struct Counted<'a>(&'a Cell<u32>, Vec<u32>);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let drops = Cell::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            fold_moving(0..10u32, Counted(&drops, Vec::new()), |mut c, x| {
                assert!(x != 5, "item five");
                c.1.push(x);
                c
            })
        }));
        assert!(result.is_err());
        assert_eq!(drops.get(), 1);
        // The same with an accumulator larger than the registers.
        let drops = Cell::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            fold_moving(
                0..10u32,
                (Counted(&drops, Vec::new()), [0u64; 32]),
                |(mut c, a), x| {
                    assert!(x != 5, "item five");
                    c.1.push(x);
                    (c, a)
                },
            )
        }));
        assert!(result.is_err());
        assert_eq!(drops.get(), 1);
    }
}
