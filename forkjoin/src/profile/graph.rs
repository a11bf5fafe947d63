//! The recorded task graph: a series-parallel tree of strands and joins, coarsened so that
//! its size stays bounded however many tasks the run forked.

/// One closure's execution as the profiler saw it: its steps in program order. The root is
/// the closure given to [`run`](super::run); every join contributes two children.
///
/// Hand-made graphs (for the simulator's tests, or to ask "what if") are built with
/// [`TaskNode::work`], [`TaskNode::join`] and [`TaskNode::chunk`]:
///
/// ```
/// use forkjoin::profile::{Costs, Profile, TaskNode};
/// let leaf = || TaskNode::new().work(1_000);
/// let root = TaskNode::new().join(leaf(), leaf()).work(500);
/// let profile = Profile::from_graph(root, &Costs::zero());
/// assert_eq!(profile.work().as_nanos(), 2_500);
/// assert_eq!(profile.span().as_nanos(), 1_500);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskNode {
    pub(crate) steps: Vec<Step>,
    /// Totals of the subtree, kept up to date as steps are added.
    pub(crate) work: u64,
    pub(crate) span: u64,
    pub(crate) joins: u64,
    /// Steps in the subtree (the graph's size).
    pub(crate) size: usize,
}

/// A step of a task.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A strand: this many nanoseconds of the program's own code, with no join inside.
    Work(u64),
    /// A join of two children; the task goes on when both have finished.
    Join(Box<TaskNode>, Box<TaskNode>),
    /// A subtree too small to keep (coarsening): its total work and span in nanoseconds and
    /// how many joins it made. The simulator runs it on one worker.
    #[allow(missing_docs)]
    Chunk { work: u64, span: u64, joins: u64 },
}

impl TaskNode {
    /// An empty task.
    pub fn new() -> TaskNode {
        TaskNode::default()
    }

    /// Appends a strand of `ns` nanoseconds.
    pub fn work(mut self, ns: u64) -> TaskNode {
        self.push_work(ns);
        self
    }

    /// Appends a join of `a` and `b`.
    pub fn join(mut self, a: TaskNode, b: TaskNode) -> TaskNode {
        self.push_join(a, b);
        self
    }

    /// Appends an opaque chunk of `work` ns with span `span` ns and `joins` joins inside.
    pub fn chunk(mut self, work: u64, span: u64, joins: u64) -> TaskNode {
        self.push_chunk(work, span.min(work), joins);
        self
    }

    /// The subtree's total work in nanoseconds.
    pub fn total_work(&self) -> u64 {
        self.work
    }

    /// The subtree's span (critical path) in nanoseconds.
    pub fn total_span(&self) -> u64 {
        self.span
    }

    /// Steps in the subtree.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The steps, in program order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub(crate) fn push_work(&mut self, ns: u64) {
        self.work += ns;
        self.span += ns;
        // Consecutive strands (a join below the profiler's view) are one strand.
        if let Some(Step::Work(last)) = self.steps.last_mut() {
            *last += ns;
        } else {
            self.steps.push(Step::Work(ns));
            self.size += 1;
        }
    }

    pub(crate) fn push_chunk(&mut self, work: u64, span: u64, joins: u64) {
        self.work += work;
        self.span += span;
        self.joins += joins;
        self.steps.push(Step::Chunk { work, span, joins });
        self.size += 1;
    }

    pub(crate) fn push_join(&mut self, a: TaskNode, b: TaskNode) {
        self.work += a.work + b.work;
        self.span += a.span.max(b.span);
        self.joins += 1 + a.joins + b.joins;
        self.size += 1 + a.size + b.size;
        self.steps.push(Step::Join(Box::new(a), Box::new(b)));
    }

    /// The same graph with every strand and chunk `factor` times as long.
    pub(crate) fn scaled(&self, factor: f64) -> TaskNode {
        let scale = |ns: u64| (ns as f64 * factor).round() as u64;
        let mut out = TaskNode::new();
        for step in &self.steps {
            match step {
                Step::Work(ns) => out.push_work(scale(*ns)),
                Step::Chunk { work, span, joins } => {
                    out.push_chunk(scale(*work), scale(*span), *joins)
                }
                Step::Join(a, b) => out.push_join(a.scaled(factor), b.scaled(factor)),
            }
        }
        out
    }

    /// Replaces every join whose two children together have less than `threshold` ns of
    /// work by a chunk. Returns how many steps were removed.
    pub(crate) fn coarsen(&mut self, threshold: u64) -> usize {
        let before = self.size;
        let steps = std::mem::take(&mut self.steps);
        let mut rebuilt = TaskNode::new();
        for step in steps {
            match step {
                Step::Work(ns) => rebuilt.push_work(ns),
                Step::Chunk { work, span, joins } => rebuilt.push_chunk(work, span, joins),
                Step::Join(mut a, mut b) => {
                    if a.work + b.work < threshold {
                        rebuilt.push_chunk(
                            a.work + b.work,
                            a.span.max(b.span),
                            1 + a.joins + b.joins,
                        );
                    } else {
                        a.coarsen(threshold);
                        b.coarsen(threshold);
                        rebuilt.push_join(*a, *b);
                    }
                }
            }
        }
        *self = rebuilt;
        before - self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(depth: u32) -> TaskNode {
        if depth == 0 {
            return TaskNode::new().work(10);
        }
        TaskNode::new()
            .work(1)
            .join(tree(depth - 1), tree(depth - 1))
            .work(1)
    }

    #[test]
    fn totals_of_a_balanced_tree() {
        let t = tree(4);
        // 16 leaves of 10 ns, 15 joins with 2 ns of strands each.
        assert_eq!(t.total_work(), 16 * 10 + 15 * 2);
        assert_eq!(t.total_span(), 10 + 4 * 2);
        assert_eq!(t.joins, 15);
    }

    #[test]
    fn coarsening_keeps_totals_and_shrinks() {
        let mut t = tree(6);
        let (work, span, joins, size) = (t.work, t.span, t.joins, t.size);
        let removed = t.coarsen(100);
        assert!(
            removed > 0 && t.size == size - removed,
            "{removed} {}",
            t.size
        );
        assert_eq!((t.work, t.joins), (work, joins));
        // A chunk keeps its own span, so the span is unchanged too.
        assert_eq!(t.span, span);
    }
}
