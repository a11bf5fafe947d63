//! How a leaf folds an accumulator that the user's closure takes and returns by value
//! (`fold`, `reduce`, `fold_chunks`): DESIGN.md, section 8, "An accumulator with a destructor".

use std::mem;

/// `iter.fold(acc, f)`. A handle with a destructor of at most three words (a `Vec`, a `String`,
/// a `Box`, a `BTreeMap`) stays in one place across the items instead of moving between two
/// stack slots per item; a larger one (a `HashMap` with its hasher's keys) would be written back
/// whole per item, and its next read stall on those writes.
#[inline]
pub(crate) fn fold_moving<Acc, In, I, F>(iter: I, acc: Acc, mut f: F) -> Acc
where
    I: Iterator<Item = In>,
    F: FnMut(Acc, In) -> Acc,
{
    if !mem::needs_drop::<Acc>() || mem::size_of::<Acc>() > 3 * mem::size_of::<usize>() {
        return iter.fold(acc, f);
    }
    let mut slot = Some(acc);
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
    }
}
