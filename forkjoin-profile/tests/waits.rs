//! The rule a waiting worker follows in a prediction (`Waits`), as a user's program asks
//! for it.

use forkjoin_profile::{Costs, Profile, TaskNode, Waits};

fn leaf(ns: u64) -> TaskNode {
    TaskNode::new().work(ns)
}

/// Predicted nanoseconds of `graph` on `workers` workers with no costs (every join shared
/// at once: nothing random is left), under `waits`.
fn ns(graph: &TaskNode, workers: usize, waits: Waits) -> f64 {
    let profile = Profile::from_graph(graph.clone(), &Costs::zero());
    (profile.predict_with(workers, &Costs::zero(), waits).seconds * 1e9).round()
}

#[test]
fn a_waiter_may_not_take_another_subtree_but_its_thieves_work() {
    // A's owner waits for A's second half (1,000 ns, taken at 0) while B's thief shares B's
    // second half at 100: it descends from B, not from what the waiter waits for.
    let a = TaskNode::new().join(leaf(10), leaf(1_000));
    let b = TaskNode::new().work(100).join(leaf(2_000), leaf(2_000));
    let g = TaskNode::new().join(a, b);
    assert_eq!(ns(&g, 3, Waits::Isolated), 3_000.0);
    assert_eq!(ns(&g, 3, Waits::IsolatedAncestorsWoken), 3_000.0);
    assert_eq!(ns(&g, 3, Waits::Anything), 2_100.0);
    // The default is the runtime's rule.
    let profile = Profile::from_graph(g, &Costs::zero());
    assert_eq!(
        profile.predict(3, &Costs::zero()),
        profile.predict_with(3, &Costs::zero(), Waits::Isolated)
    );

    // Here the second half the waiter's thief shares descends from what it waits for: every
    // rule takes it at 100.
    let g = TaskNode::new().join(
        leaf(10),
        TaskNode::new().work(100).join(leaf(2_000), leaf(2_000)),
    );
    for waits in [
        Waits::Isolated,
        Waits::IsolatedAncestorsWoken,
        Waits::Anything,
    ] {
        assert_eq!(ns(&g, 2, waits), 2_100.0, "{waits:?}");
    }
}
