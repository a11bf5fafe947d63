//! `sort-width` (the FJTask paper): cilksort's speedup for u8, u16, u32 and u64 keys.

use super::speedups::{pool_note, speedups};
use super::{cores, ms, Outcome, Plan};

const SORT_WIDTH_CLAIM: &str = "sorting narrower keys (less memory traffic) scales better: \
     the speedup on all cores is higher for u8 keys than for u64 keys holding the same values \
     (held if u8's speedup is at least 1.05x u64's)";

pub(super) fn run(plan: &Plan) -> Result<Outcome, String> {
    let names = ["sort-u8", "sort-u16", "sort-u32", "sort-u64"];
    let t = speedups(plan, &names)?;
    let speedup: Vec<f64> = t.chunks(2).map(|c| c[0].secs / c[1].secs).collect();
    let figures: Vec<String> = names
        .iter()
        .zip(t.chunks(2))
        .zip(&speedup)
        .map(|((n, c), sp)| {
            format!(
                "{} {sp:.2} ({} / {})",
                &n[5..],
                ms(c[0].secs),
                ms(c[1].secs)
            )
        })
        .collect();
    let ratio = speedup[0] / speedup[3];
    Ok(Outcome {
        name: "sort-width",
        claim: SORT_WIDTH_CLAIM,
        source: "FJTask",
        measured: format!(
            "speedup on {} cores (sequential / forkjoin), {:?} size: {}: u8/u64 speedup ratio \
             {ratio:.2}{}",
            cores(),
            plan.size,
            figures.join(", "),
            pool_note(&t)
        ),
        ratio,
        held: ratio >= 1.05,
    })
}
