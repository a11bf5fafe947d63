//! Ranges as sources: every integer type, half-open and inclusive, `char` ranges (which skip
//! the surrogates) and 128-bit ranges, against std; which of them are indexed (as rayon's);
//! ranges too long to run through; and a range's item type known before its integer type.

use crate::common::*;
use forkjoin::prelude::*;

// ---------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------

/// A range of any integer type against std: collect (in order), count, opt_len, sum, min,
/// max, find_first, find_last.
macro_rules! check_range {
    ($r:expr, $at:expr) => {{
        let r = $r;
        let expected: Vec<_> = r.clone().collect();
        let what = format!("{:?}, {}", r, $at);
        let got: Vec<_> = r.clone().into_par_iter().collect();
        assert_eq!(got, expected, "collect {what}");
        assert_eq!(
            r.clone().into_par_iter().count(),
            expected.len(),
            "count {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().opt_len(),
            Some(expected.len()),
            "opt_len {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().map(|x| x as i128).sum::<i128>(),
            expected.iter().map(|&x| x as i128).sum::<i128>(),
            "sum {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().min(),
            expected.iter().copied().min(),
            "min {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().max(),
            expected.iter().copied().max(),
            "max {what}"
        );
        let p = |x: i128| x.rem_euclid(3) == 1;
        assert_eq!(
            r.clone().into_par_iter().find_first(|&x| p(x as i128)),
            expected.iter().copied().find(|&x| p(x as i128)),
            "find_first {what}"
        );
        assert_eq!(
            r.clone().into_par_iter().find_last(|&x| p(x as i128)),
            expected.iter().copied().rfind(|&x| p(x as i128)),
            "find_last {what}"
        );
    }};
}

/// `check_range`, plus what an indexed range offers: len, rev, enumerate, skip/take, zip.
macro_rules! check_indexed_range {
    ($r:expr, $at:expr) => {{
        check_range!($r, $at);
        let r = $r;
        let expected: Vec<_> = r.clone().collect();
        let what = format!("{:?}, {}", r, $at);
        let n = expected.len();
        assert_eq!(r.clone().into_par_iter().len(), n, "len {what}");
        let rev: Vec<_> = r.clone().into_par_iter().rev().collect();
        assert_eq!(
            rev,
            expected.iter().rev().copied().collect::<Vec<_>>(),
            "rev {what}"
        );
        let en: Vec<_> = r.clone().into_par_iter().enumerate().collect();
        assert_eq!(
            en,
            expected.iter().copied().enumerate().collect::<Vec<_>>(),
            "enumerate {what}"
        );
        let mid: Vec<_> = r
            .clone()
            .into_par_iter()
            .skip(n / 3)
            .take(n / 3 + 1)
            .collect();
        assert_eq!(
            mid,
            expected
                .iter()
                .copied()
                .skip(n / 3)
                .take(n / 3 + 1)
                .collect::<Vec<_>>(),
            "skip/take {what}"
        );
        let z: Vec<_> = r
            .clone()
            .into_par_iter()
            .zip(r.clone().into_par_iter().rev())
            .collect();
        assert_eq!(
            z,
            expected
                .iter()
                .copied()
                .zip(expected.iter().rev().copied())
                .collect::<Vec<_>>(),
            "zip {what}"
        );
    }};
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn ranges_of_every_integer_type() {
    on_pools(|at| {
        // u8 u16 u32 usize i8 i16 i32 isize: indexed.
        check_indexed_range!(0u8..0, at);
        check_indexed_range!(7u8..3, at);
        check_indexed_range!(0u8..1, at);
        check_indexed_range!(0u8..2, at);
        check_indexed_range!(5u8..8, at);
        check_indexed_range!(3u8..20, at);
        check_indexed_range!(u8::MIN..u8::MAX, at);
        check_indexed_range!(i8::MIN..i8::MAX, at);
        check_indexed_range!(-100i8..100, at);
        check_indexed_range!(-3i8..-3, at);
        check_indexed_range!(i8::MIN..i8::MIN + 1, at);
        check_indexed_range!(0u16..17, at);
        check_indexed_range!(u16::MIN..u16::MAX, at);
        check_indexed_range!(i16::MIN..i16::MAX, at);
        check_indexed_range!(-1000i16..1, at);
        check_indexed_range!(0u32..1001, at);
        check_indexed_range!(u32::MAX - 17..u32::MAX, at);
        check_indexed_range!(i32::MIN..i32::MIN + 17, at);
        check_indexed_range!(-500i32..501, at);
        check_indexed_range!(i32::MAX - 2..i32::MAX, at);
        check_indexed_range!(0usize..3, at);
        check_indexed_range!(usize::MAX - 1001..usize::MAX, at);
        check_indexed_range!(isize::MIN..isize::MIN + 17, at);
        check_indexed_range!(-8isize..9, at);
        check_indexed_range!(0u32..BIG as u32, at);
        // u64 and i64: not indexed (as in rayon), but exact wherever the length fits.
        check_range!(0u64..0, at);
        check_range!(9u64..2, at);
        check_range!(0u64..1, at);
        check_range!(0u64..1001, at);
        check_range!(u64::MAX - 5..u64::MAX, at);
        check_range!(i64::MIN..i64::MIN + 10, at);
        check_range!(-500i64..501, at);
        check_range!(i64::MAX - 3..i64::MAX, at);
        check_range!(-(BIG as i64 / 2)..BIG as i64 / 2, at);
    });
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn inclusive_ranges_of_every_integer_type() {
    on_pools(|at| {
        // u8 u16 i8 i16: indexed.
        check_indexed_range!(u8::MIN..=u8::MAX, at);
        check_indexed_range!(255u8..=255, at);
        check_indexed_range!(1u8..=0, at);
        check_indexed_range!(0u8..=2, at);
        check_indexed_range!(i8::MIN..=i8::MAX, at);
        check_indexed_range!(-1i8..=-1, at);
        check_indexed_range!(-100i8..=100, at);
        check_indexed_range!(u16::MIN..=u16::MAX, at);
        check_indexed_range!(i16::MIN..=i16::MAX, at);
        check_indexed_range!(-8i16..=8, at);
        // The others: not indexed, exact where the length fits.
        check_range!(u32::MAX - 5..=u32::MAX, at);
        check_range!(0u32..=1000, at);
        check_range!(3u32..=2, at);
        check_range!(i32::MIN..=i32::MIN + 16, at);
        check_range!(-3i32..=-1, at);
        check_range!(u64::MAX - 5..=u64::MAX, at);
        check_range!(0u64..=0, at);
        check_range!(i64::MIN..=i64::MIN + 9, at);
        check_range!(i64::MAX - 2..=i64::MAX, at);
        check_range!(-500i64..=500, at);
        check_range!(usize::MAX - 16..=usize::MAX, at);
        check_range!(0usize..=1000, at);
        check_range!(isize::MIN..=isize::MIN + 2, at);
        check_range!(isize::MAX - 2..=isize::MAX, at);
        check_range!(-1isize..=1, at);
        // An exhausted inclusive range is empty even though start <= end.
        let mut spent = 3u32..=3;
        assert_eq!(spent.next(), Some(3));
        assert_eq!(spent.into_par_iter().count(), 0, "{at}");
        let mut spent = 5u8..=5;
        assert_eq!(spent.next(), Some(5));
        assert_eq!(spent.into_par_iter().len(), 0, "{at}");
    });
}

/// Ranges too long to run through: their lengths, and searches that stop near the start.
#[test]
fn full_width_ranges_without_running_through_them() {
    on_pools(|at| {
        assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (0..u64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..i64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..=i64::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!((0..=usize::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (isize::MIN..=isize::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!(
            (0..=u32::MAX).into_par_iter().opt_len(),
            Some(1 << 32),
            "{at}"
        );
        assert_eq!(
            (i32::MIN..=i32::MAX).into_par_iter().opt_len(),
            Some(1 << 32),
            "{at}"
        );
        assert_eq!(
            (0..u32::MAX).into_par_iter().len(),
            u32::MAX as usize,
            "{at}"
        );
        assert_eq!(
            (i32::MIN..i32::MAX).into_par_iter().len(),
            u32::MAX as usize,
            "{at}"
        );

        assert_eq!(
            (0..=u64::MAX).into_par_iter().find_first(|&x| x == 5),
            Some(5),
            "{at}"
        );
        assert_eq!(
            (i64::MIN..=i64::MAX)
                .into_par_iter()
                .find_first(|&x| x > i64::MIN + 2),
            Some(i64::MIN + 3),
            "{at}"
        );
        assert_eq!(
            (isize::MIN..=isize::MAX)
                .into_par_iter()
                .find_first(|&x| x % 7 == -6),
            Some((isize::MIN..).find(|&x| x % 7 == -6).unwrap()),
            "{at}"
        );
        assert_eq!(
            (0..=usize::MAX).into_par_iter().find_first(|&x| x == 3),
            Some(3),
            "{at}"
        );
        assert_eq!(
            (0..u64::MAX).into_par_iter().find_any(|&x| x == 4),
            Some(4),
            "{at}"
        );
        assert!((0..=u64::MAX).into_par_iter().any(|x| x == 40), "{at}");
        assert!(
            !(i64::MIN..=i64::MAX)
                .into_par_iter()
                .all(|x| x < i64::MIN + 10),
            "{at}"
        );
        assert_eq!(
            (0..u32::MAX).into_par_iter().position_first(|x| x == 9),
            Some(9),
            "{at}"
        );
    });
}

// ---------------------------------------------------------------------------------------
// Ranges.

#[test]
fn char_ranges_skip_the_surrogates() {
    let cases: Vec<(char, char)> = vec![
        ('a', 'z'),
        ('\u{D7FE}', '\u{E002}'),
        ('\u{D7FF}', '\u{E000}'),
        ('\u{D000}', '\u{F000}'),
        ('\0', char::MAX),
        ('z', 'a'),
        ('x', 'x'),
        ('\u{10FFF0}', char::MAX),
    ];
    on_pools(|at| {
        for &(s, e) in &cases {
            let expected: Vec<char> = (s..e).collect();
            let got: Vec<char> = (s..e).into_par_iter().collect();
            assert_eq!(got, expected, "{s:?}..{e:?}, {at}");
            assert_eq!((s..e).into_par_iter().len(), expected.len(), "{at}");
            let expected: Vec<char> = (s..=e).collect();
            let got: Vec<char> = (s..=e).into_par_iter().collect();
            assert_eq!(got, expected, "{s:?}..={e:?}, {at}");
            assert_eq!((s..=e).into_par_iter().len(), expected.len(), "{at}");
            assert_eq!(
                (s..=e).into_par_iter().opt_len(),
                Some(expected.len()),
                "{at}"
            );
            if expected.len() < 10_000 {
                let got: Vec<char> = (s..=e).into_par_iter().with_max_len(1).rev().collect();
                assert!(got.iter().eq(expected.iter().rev()), "{at}");
                let got: Vec<(usize, char)> =
                    (s..e).into_par_iter().enumerate().with_max_len(1).collect();
                assert!(got.into_iter().eq((s..e).enumerate()), "{at}");
            }
        }
        assert_eq!(('\u{D7FF}'..='\u{E000}').into_par_iter().count(), 2, "{at}");
        assert_eq!(
            ('\u{D7FF}'..='\u{E000}')
                .into_par_iter()
                .collect::<Vec<_>>(),
            ['\u{D7FF}', '\u{E000}'],
            "{at}"
        );
        assert_eq!(('\u{D7FF}'..'\u{E000}').into_par_iter().count(), 1, "{at}");
        assert_eq!(
            ('\0'..=char::MAX).into_par_iter().count(),
            1_112_064,
            "{at}"
        );
        let sum: u64 = ('\0'..=char::MAX)
            .into_par_iter()
            .map(|c| u64::from(c as u32))
            .sum();
        assert_eq!(
            sum,
            ('\0'..=char::MAX).map(|c| u64::from(c as u32)).sum::<u64>(),
            "{at}"
        );
        // Zipped with another indexed iterator: the positions agree across the gap.
        let z: Vec<(char, u32)> = ('\u{D7F0}'..'\u{E010}')
            .into_par_iter()
            .zip(0..40u32)
            .collect();
        assert!(
            z.into_iter().eq(('\u{D7F0}'..'\u{E010}').zip(0..40u32)),
            "{at}"
        );
        // An exhausted inclusive range is empty.
        let mut r = 'a'..='a';
        r.next();
        assert_eq!(r.into_par_iter().count(), 0, "{at}");
    });
}

#[test]
fn ranges_of_128_bits() {
    let big = u128::from(u64::MAX);
    on_pools(|at| {
        for (s, e) in [
            (big - 5, big + 5),
            (0, 1000),
            (big * 3, big * 3 + 17),
            (7, 7),
            (9, 2),
        ] {
            let expected: Vec<u128> = (s..e).collect();
            let got: Vec<u128> = (s..e).into_par_iter().collect();
            assert_eq!(got, expected, "{s}..{e}, {at}");
            assert_eq!(
                (s..e).into_par_iter().opt_len(),
                Some(expected.len()),
                "{at}"
            );
            let got: Vec<u128> = (s..=e).into_par_iter().collect();
            assert_eq!(got, (s..=e).collect::<Vec<_>>(), "{s}..={e}, {at}");
            let sum: u128 = (s..=e).into_par_iter().sum();
            assert_eq!(sum, (s..=e).sum::<u128>(), "{at}");
        }
        let ibig = i128::from(i64::MAX);
        for (s, e) in [(-ibig - 7, -ibig + 3), (ibig - 3, ibig + 9), (-5, 5)] {
            let got: Vec<i128> = (s..e).into_par_iter().collect();
            assert_eq!(got, (s..e).collect::<Vec<_>>(), "{s}..{e}, {at}");
            let got: Vec<i128> = (s..=e).into_par_iter().collect();
            assert_eq!(got, (s..=e).collect::<Vec<_>>(), "{s}..={e}, {at}");
        }
        // Lengths beyond `usize` (and beyond `u128` for the whole inclusive ranges): not
        // known, but the items are there, in order.
        assert_eq!((0..u128::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!((0..=u128::MAX).into_par_iter().opt_len(), None, "{at}");
        assert_eq!(
            (i128::MIN..=i128::MAX).into_par_iter().opt_len(),
            None,
            "{at}"
        );
        assert_eq!((0..=big).into_par_iter().opt_len(), None, "{at}");
        assert_eq!((0..big).into_par_iter().opt_len(), Some(usize::MAX), "{at}");
        assert_eq!(
            (0..u128::MAX).into_par_iter().find_first(|&x| x >= 1000),
            Some(1000),
            "{at}"
        );
        assert_eq!(
            (0..=u128::MAX).into_par_iter().find_first(|&x| x >= 5),
            Some(5),
            "{at}"
        );
        assert_eq!(
            (i128::MIN..=i128::MAX).into_par_iter().find_first(|_| true),
            Some(i128::MIN),
            "{at}"
        );
        assert_eq!(
            (u128::MAX - 5000..=u128::MAX)
                .into_par_iter()
                .find_last(|&x| x % 1000 == 7),
            Some(u128::MAX - u128::MAX % 1000 + 7),
            "{at}"
        );
        assert!(
            (big..u128::MAX).into_par_iter().any(|x| x == big + 12345),
            "{at}"
        );
        assert_eq!(
            (0..u128::MAX).into_par_iter().take_any(100).count(),
            100,
            "{at}"
        );
        let got: Vec<u128> = (u128::MAX - 3..=u128::MAX).into_par_iter().collect();
        assert_eq!(
            got,
            [u128::MAX - 3, u128::MAX - 2, u128::MAX - 1, u128::MAX],
            "{at}"
        );
        let got: Vec<i128> = (i128::MAX - 1..=i128::MAX).into_par_iter().collect();
        assert_eq!(got, [i128::MAX - 1, i128::MAX], "{at}");
    });
}

#[test]
fn inclusive_ranges_are_indexed_where_rayons_are() {
    // `u8`, `u16`, `i8`, `i16` and `char` inclusive ranges zip (indexed); the others only
    // run (checked by the compile-fail examples in `forkjoin::range_inclusive`).
    on_pools(|at| {
        let z: Vec<(u8, i8, u16, i16, char)> =
            (0..=u8::MAX, -128..=127i8, 0..=1000u16, -5..=5i16, 'a'..='z')
                .into_par_iter()
                .collect();
        assert_eq!(z.len(), 11, "{at}");
        assert_eq!(z[10], (10, -118, 10, 5, 'k'), "{at}");
        assert_eq!((0..=u8::MAX).into_par_iter().len(), 256, "{at}");
        assert_eq!((i16::MIN..=i16::MAX).into_par_iter().len(), 65536, "{at}");
        assert_eq!((0..=10i32).into_par_iter().sum::<i32>(), 55, "{at}");
        assert_eq!((0..=10i32).into_par_iter().opt_len(), Some(11), "{at}");
    });
}

#[test]
fn a_ranges_item_type_is_known_before_its_integer_type() {
    // rayon's own example: the closure negates before anything fixes the literals' type
    // (one generic impl over the integer types, as rayon's, makes `Item = T` visible).
    let (first, (left, right)): (Vec<_>, (Vec<_>, Vec<_>)) = (0..8)
        .into_par_iter()
        .map(|x| {
            if x % 2 == 0 {
                (x, forkjoin::iter::Either::Left(x * 4))
            } else {
                (-x, forkjoin::iter::Either::Right(x * 3))
            }
        })
        .collect();
    assert_eq!(first, [0, -1, 2, -3, 4, -5, 6, -7]);
    assert_eq!(left, [0, 8, 16, 24]);
    assert_eq!(right, [3, 9, 15, 21]);
    let doubled: Vec<_> = (0..=3).into_par_iter().map(|x| x * -2).collect();
    assert_eq!(doubled, [0, -2, -4, -6]);
    // The literals took the default type, `i32`, as they do sequentially.
    let _: Vec<i32> = doubled;
}
