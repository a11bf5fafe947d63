//! Parallel iterators inside parallel iterators, three levels deep, and inside `join` and
//! `scope`: exact answers.

use crate::common::*;
use forkjoin::prelude::*;
use forkjoin::{join, scope};
use std::num::Wrapping;

// ---------------------------------------------------------------------------------------
// Nesting
// ---------------------------------------------------------------------------------------

#[test]
fn nested_parallel_iterators_three_levels_deep() {
    on_pools(|at| {
        let got: u64 = (0..30u64)
            .into_par_iter()
            .map(|i| {
                (0..40u64)
                    .into_par_iter()
                    .map(|j| (0..50u64).into_par_iter().map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        let expected: u64 = (0..30u64)
            .map(|i| {
                (0..40u64)
                    .map(|j| (0..50u64).map(|k| i * j + k).sum::<u64>())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(got, expected, "{at}");
        // Nested collects keep every level's order.
        let got: Vec<Vec<Vec<u32>>> = (0..7u32)
            .into_par_iter()
            .map(|i| {
                (0..i)
                    .into_par_iter()
                    .map(|j| {
                        (0..j)
                            .into_par_iter()
                            .map(|k| i * 100 + j * 10 + k)
                            .collect::<Vec<u32>>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let expected: Vec<Vec<Vec<u32>>> = (0..7u32)
            .map(|i| {
                (0..i)
                    .map(|j| (0..j).map(|k| i * 100 + j * 10 + k).collect::<Vec<u32>>())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(got, expected, "{at}");
        // Outer slice, inner filter and find_first.
        let v = input(1001);
        let got: Vec<Option<u64>> = v
            .par_chunks(100)
            .map(|c| {
                c.par_iter()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .find_first(|x| x % 3 == 0)
            })
            .collect();
        let expected: Vec<Option<u64>> = v
            .chunks(100)
            .map(|c| {
                c.iter()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .find(|x| x % 3 == 0)
            })
            .collect();
        assert_eq!(got, expected, "{at}");
    });
}

#[test]
fn parallel_iterators_inside_join_and_scope() {
    // Up to `MID` items: each input is also sorted (`LENS_FOR_COSTLY_ITEMS`).
    on_pools_and_lens(&[0, 17, 1001, MID], |at, n| {
        let v = input(n);
        let (a, b) = join(
            || v.par_iter().map(|&x| Wrapping(x)).sum::<Wrapping<u64>>(),
            || v.par_iter().map(|x| x >> 1).collect::<Vec<_>>(),
        );
        assert_eq!(a.0, wsum(v.iter()), "join, {at}");
        assert_eq!(
            b,
            v.iter().map(|x| x >> 1).collect::<Vec<_>>(),
            "join, {at}"
        );
        let ((c, d), e) = join(
            || {
                join(
                    || v.par_iter().max(),
                    || v.par_iter().position_first(|&x| x % 10 == 3),
                )
            },
            || v.par_iter().filter(|&&x| x % 2 == 0).count(),
        );
        assert_eq!(
            (c, d, e),
            (
                v.iter().max(),
                v.iter().position(|&x| x % 10 == 3),
                v.iter().filter(|&&x| x % 2 == 0).count()
            ),
            "{at}"
        );

        let mut slots = [0u64; 4];
        let mut sorted = Vec::new();
        scope(|s| {
            for (k, slot) in slots.iter_mut().enumerate() {
                s.spawn(move |_| {
                    *slot = v
                        .par_iter()
                        .filter(|&&x| x % 4 == k as u64)
                        .map(|x| x >> 24)
                        .sum()
                });
            }
            s.spawn(|s| {
                let mut w = v.to_vec();
                s.spawn(|_| assert_eq!(v.par_iter().count(), n));
                w.par_sort_unstable();
                sorted = w;
            });
        });
        for (k, slot) in slots.iter().enumerate() {
            assert_eq!(
                *slot,
                v.iter()
                    .filter(|&&x| x % 4 == k as u64)
                    .map(|x| x >> 24)
                    .sum::<u64>(),
                "scope, {at}"
            );
        }
        let mut expected = v.to_vec();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "scope, {at}");
    });
}
