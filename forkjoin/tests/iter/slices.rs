//! Slices as sources: by reference and by mutable reference, and the slice families (chunks,
//! exact and reverse chunks, windows, array windows, `split`, `split_inclusive`, `chunk_by`)
//! against std's, with splits forced where the producers do index arithmetic.

use crate::common::*;
use forkjoin::prelude::*;
use std::num::Wrapping;

#[test]
fn slices_by_reference_and_by_mutable_reference() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        assert_eq!(v.par_iter().copied().collect::<Vec<_>>(), v, "{at}");
        assert_eq!(v.par_iter().len(), n, "{at}");
        assert_eq!(
            v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>().0,
            wsum(v.iter()),
            "{at}"
        );
        let refs: Vec<&u64> = v.par_iter().collect();
        assert!(refs.iter().zip(v).all(|(&a, b)| std::ptr::eq(a, b)), "{at}");

        let mut w = v.to_vec();
        w.par_iter_mut().for_each(|x| *x = x.wrapping_mul(3) ^ 1);
        let expected: Vec<u64> = v.iter().map(|x| x.wrapping_mul(3) ^ 1).collect();
        assert_eq!(w, expected, "{at}");
        w.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i as u64);
        assert_eq!(w, (0..n as u64).collect::<Vec<_>>(), "{at}");
        (&mut w[..])
            .into_par_iter()
            .rev()
            .enumerate()
            .for_each(|(i, x)| *x += 10 * i as u64);
        let expected: Vec<u64> = (0..n as u64).map(|i| i + 10 * (n as u64 - 1 - i)).collect();
        assert_eq!(w, expected, "{at}");
    });
}

#[test]
fn slice_chunks_chunks_mut_and_windows() {
    on_pools_and_lens(&LENS, |at, n| {
        let v = input(n);
        for k in [1, 2, 3, 7, 1000, n.max(1), n + 1] {
            let got: Vec<&[u64]> = v.par_chunks(k).collect();
            assert_eq!(
                got,
                v.chunks(k).collect::<Vec<_>>(),
                "par_chunks({k}), {at}"
            );
            assert_eq!(
                v.par_chunks(k).len(),
                v.chunks(k).len(),
                "par_chunks({k}), {at}"
            );

            let mut w = v.to_vec();
            w.par_chunks_mut(k).enumerate().for_each(|(c, chunk)| {
                for x in chunk.iter_mut() {
                    *x = c as u64;
                }
                chunk[0] = u64::MAX;
            });
            let mut expected = v.to_vec();
            for (c, chunk) in expected.chunks_mut(k).enumerate() {
                chunk.fill(c as u64);
                chunk[0] = u64::MAX;
            }
            assert_eq!(w, expected, "par_chunks_mut({k}), {at}");
        }
        for k in [1, 2, 5, n.max(1), n + 1] {
            let got: Vec<&[u64]> = v.par_windows(k).collect();
            assert_eq!(
                got,
                v.windows(k).collect::<Vec<_>>(),
                "par_windows({k}), {at}"
            );
            assert_eq!(
                v.par_windows(k).len(),
                v.windows(k).len(),
                "par_windows({k}), {at}"
            );
        }
    });
    // As rayon: a size of zero is a panic, not an endless loop.
    let v = [1, 2, 3];
    assert_eq!(
        panic_message(|| {
            let _ = v.par_chunks(0);
        }),
        "chunk_size must not be zero"
    );
    assert_eq!(
        panic_message(|| {
            let _ = v.par_windows(0);
        }),
        "window_size must not be zero"
    );
    let mut w = [1, 2, 3];
    assert_eq!(
        panic_message(|| {
            let _ = w.par_chunks_mut(0);
        }),
        "chunk_size must not be zero"
    );
}

#[test]
fn slice_chunk_families_and_array_windows() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v = input31(n);
        for k in [1, 2, 3, 16, n.max(1), n + 1] {
            macro_rules! same {
                ($par:ident, $std:ident) => {{
                    let expected: Vec<&[u64]> = v.$std(k).collect();
                    let got: Vec<&[u64]> = v.$par(k).collect();
                    assert_eq!(got, expected, "{}({k}), {at}", stringify!($par));
                    let got: Vec<&[u64]> = v.$par(k).with_max_len(1).rev().collect();
                    let rev: Vec<&[u64]> = expected.iter().rev().copied().collect();
                    assert_eq!(got, rev, "{}({k}).rev(), {at}", stringify!($par));
                    assert_eq!(v.$par(k).len(), expected.len(), "{at}");
                }};
            }
            same!(par_chunks_exact, chunks_exact);
            same!(par_rchunks, rchunks);
            same!(par_rchunks_exact, rchunks_exact);
            assert_eq!(
                v.par_chunks_exact(k).remainder(),
                v.chunks_exact(k).remainder()
            );
            assert_eq!(
                v.par_rchunks_exact(k).remainder(),
                v.rchunks_exact(k).remainder()
            );
            macro_rules! same_mut {
                ($par:ident, $std:ident) => {{
                    let (mut got, mut expected) = (v.clone(), v.clone());
                    for (i, c) in expected.$std(k).enumerate() {
                        c.reverse();
                        c[0] ^= i as u64;
                    }
                    got.$par(k).with_max_len(2).enumerate().for_each(|(i, c)| {
                        c.reverse();
                        c[0] ^= i as u64;
                    });
                    assert_eq!(got, expected, "{}({k}), {at}", stringify!($par));
                }};
            }
            same_mut!(par_chunks_exact_mut, chunks_exact_mut);
            same_mut!(par_rchunks_mut, rchunks_mut);
            same_mut!(par_rchunks_exact_mut, rchunks_exact_mut);
            let mut w = v.clone();
            let mut chunks = w.par_chunks_exact_mut(k);
            let rem = n % k;
            assert_eq!(chunks.remainder().len(), rem, "{at}");
            assert_eq!(chunks.take_remainder(), &v[n - rem..], "{at}");
            assert!(chunks.into_remainder().is_empty(), "{at}");
            let mut w = v.clone();
            assert_eq!(
                w.par_rchunks_exact_mut(k).into_remainder(),
                &v[..rem],
                "{at}"
            );
        }
        let got: Vec<&[u64; 1]> = v.par_array_windows().collect();
        assert_eq!(got.len(), n, "{at}");
        let got: Vec<[u64; 3]> = v
            .par_array_windows::<3>()
            .with_max_len(1)
            .map(|w| *w)
            .collect();
        let expected: Vec<[u64; 3]> = v.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
        assert_eq!(got, expected, "{at}");
        assert_eq!(
            v.par_array_windows::<2>().len(),
            n.saturating_sub(1),
            "{at}"
        );
    });
    for msg in [
        panic_message(|| {
            let _ = [1].par_chunks_exact(0);
        }),
        panic_message(|| {
            let _ = [1].par_rchunks(0);
        }),
        panic_message(|| {
            let _ = [1].par_rchunks_exact_mut(0);
        }),
    ] {
        assert_eq!(msg, "chunk_size must not be zero");
    }
    assert_eq!(
        panic_message(|| {
            let _ = [1].par_array_windows::<0>();
        }),
        "window_size must not be zero"
    );
}

#[test]
fn slice_split_split_inclusive_and_chunk_by() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let v: Vec<u64> = input31(n).iter().map(|x| x % 5).collect();
        for sep in [0, 1, 7] {
            let is_sep = |x: &u64| *x == sep;
            let got: Vec<&[u64]> = v.par_split(is_sep).collect();
            assert_eq!(
                got,
                v.split(is_sep).collect::<Vec<_>>(),
                "split({sep}), {at}"
            );
            let got: Vec<&[u64]> = v.par_split_inclusive(is_sep).collect();
            let expected: Vec<&[u64]> = v.split_inclusive(is_sep).collect();
            assert_eq!(got, expected, "split_inclusive({sep}), {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_split_mut(is_sep).for_each(|s| s.reverse());
            expected.split_mut(is_sep).for_each(|s| s.reverse());
            assert_eq!(got, expected, "split_mut({sep}), {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_split_inclusive_mut(is_sep)
                .for_each(|s| s.rotate_left(1));
            expected
                .split_inclusive_mut(is_sep)
                .for_each(|s| s.rotate_left(1));
            assert_eq!(got, expected, "split_inclusive_mut({sep}), {at}");
        }
        // Separators everywhere, and at the ends.
        let zeros = vec![0u64; n];
        let got: Vec<&[u64]> = zeros.par_split(|&x| x == 0).collect();
        assert_eq!(got, zeros.split(|&x| x == 0).collect::<Vec<_>>(), "{at}");
        let got: Vec<&[u64]> = zeros.par_split_inclusive(|&x| x == 0).collect();
        assert_eq!(
            got,
            zeros.split_inclusive(|&x| x == 0).collect::<Vec<_>>(),
            "{at}"
        );
        for same in [
            |a: &u64, b: &u64| a == b,
            |a: &u64, b: &u64| a <= b,
            |_: &u64, _: &u64| true,
        ] {
            let got: Vec<&[u64]> = v.par_chunk_by(same).collect();
            assert_eq!(got, v.chunk_by(same).collect::<Vec<_>>(), "chunk_by, {at}");
            let (mut got, mut expected) = (v.clone(), v.clone());
            got.par_chunk_by_mut(same).for_each(|s| s[0] += 10);
            expected.chunk_by_mut(same).for_each(|s| s[0] += 10);
            assert_eq!(got, expected, "chunk_by_mut, {at}");
        }
    });
}
