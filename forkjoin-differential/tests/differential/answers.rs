//! Answers of plain programs, at every worker count.

use crate::common::WORKERS;

same_on_both! {
    /// A sum, a collect and a join's results.
    fn sums_collects_and_joins() -> Vec<(u64, Vec<u32>, (u32, u32))> {
        WORKERS
            .iter()
            .map(|&n| {
                let pool = rt::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                pool.install(|| {
                    let sum = (0..10_000u64).into_par_iter().map(|x| x * x).sum::<u64>();
                    let v = (0..100u32).into_par_iter().filter(|x| x % 3 == 0).collect();
                    (sum, v, rt::join(|| 1, || 2))
                })
            })
            .collect()
    }
}
