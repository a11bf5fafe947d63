//! The recorded task graph: a series-parallel tree of strands and joins, coarsened so that
//! its size stays bounded however many tasks the run forked.

/// One closure's execution as the profiler saw it: its steps in program order. The root is the
/// closure the `forkjoin-profile` crate's `run` profiles; every join contributes two children.
///
/// Hand-made graphs (for the simulator's tests, or to ask "what if") are built with
/// [`TaskNode::work`], [`TaskNode::join`] and [`TaskNode::chunk`]:
///
/// ```
/// use forkjoin::instrument::TaskNode;
/// let leaf = || TaskNode::new().work(1_000);
/// let root = TaskNode::new().join(leaf(), leaf()).work(500);
/// assert_eq!(root.total_work(), 2_500);
/// assert_eq!(root.total_span(), 1_500);
/// assert_eq!(root.total_joins(), 1);
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

impl Step {
    /// A join or chunk as a chunk records it, (work, span, joins); `None` for a strand.
    fn as_chunk(&self) -> Option<(u64, u64, u64)> {
        match self {
            Step::Work(_) => None,
            Step::Chunk { work, span, joins } => Some((*work, *span, *joins)),
            Step::Join(a, b) => Some((a.work + b.work, a.span.max(b.span), 1 + a.joins + b.joins)),
        }
    }
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

    /// Joins in the subtree, those inside its chunks included.
    pub fn total_joins(&self) -> u64 {
        self.joins
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

    /// Appends `task`'s steps: it ran after what this task holds, on the same path.
    pub(crate) fn push_task(&mut self, task: TaskNode) {
        for step in task.steps {
            match step {
                Step::Work(ns) => self.push_work(ns),
                Step::Chunk { work, span, joins } => self.push_chunk(work, span, joins),
                Step::Join(a, b) => self.push_join(*a, *b),
            }
        }
    }

    pub(crate) fn push_join(&mut self, a: TaskNode, b: TaskNode) {
        self.work += a.work + b.work;
        self.span += a.span.max(b.span);
        self.joins += 1 + a.joins + b.joins;
        self.size += 1 + a.size + b.size;
        self.steps.push(Step::Join(Box::new(a), Box::new(b)));
    }

    /// The same graph with every strand and chunk `factor` times as long.
    pub fn scaled(&self, factor: f64) -> TaskNode {
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

    /// The graph of two profiles of the same run combined strand by strand: each strand the
    /// shorter of its two timings, each chunk the smaller work and span. A join recorded in
    /// one and coarsened into a chunk in the other (the coarsening threshold grows with the
    /// measured times) becomes a chunk. `None` if the two are not the same run's graph
    /// (other steps, or chunks of other join counts).
    pub fn shortest(&self, other: &TaskNode) -> Option<TaskNode> {
        if self.steps.len() != other.steps.len() {
            return None;
        }
        let mut out = TaskNode::new();
        for (x, y) in self.steps.iter().zip(&other.steps) {
            match (x, y) {
                (Step::Work(a), Step::Work(b)) => out.push_work(*a.min(b)),
                (Step::Join(a1, b1), Step::Join(a2, b2)) => {
                    out.push_join(a1.shortest(a2)?, b1.shortest(b2)?)
                }
                _ => {
                    let (w1, s1, j1) = x.as_chunk()?;
                    let (w2, s2, j2) = y.as_chunk()?;
                    if j1 != j2 {
                        return None;
                    }
                    out.push_chunk(w1.min(w2), s1.min(s2), j1);
                }
            }
        }
        Some(out)
    }

    /// Replaces every join whose two children together have less than `threshold` ns of
    /// work by a chunk. Returns how many steps were removed.
    pub fn coarsen(&mut self, threshold: u64) -> usize {
        let before = self.size;
        let steps = std::mem::take(&mut self.steps);
        let mut rebuilt = TaskNode::new();
        for step in steps {
            match step {
                Step::Join(mut a, mut b) if a.work + b.work >= threshold => {
                    a.coarsen(threshold);
                    b.coarsen(threshold);
                    rebuilt.push_join(*a, *b);
                }
                Step::Work(ns) => rebuilt.push_work(ns),
                // A chunk, or a join made one.
                step => {
                    let (work, span, joins) = step.as_chunk().expect("a join or a chunk");
                    rebuilt.push_chunk(work, span, joins);
                }
            }
        }
        *self = rebuilt;
        before - self.size
    }
}

#[cfg(all(test, not(loom)))]
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
    fn shortest_takes_each_strand_from_the_profile_that_ran_it_fastest() {
        let leaf = |ns| TaskNode::new().work(ns);
        // The same run three times, a different leaf preempted (+5000 ns) in each.
        let run = |a, b, c| TaskNode::new().work(10).join(leaf(a), leaf(b)).work(c);
        let g = run(5_100, 90, 20)
            .shortest(&run(100, 5_090, 20))
            .and_then(|g| g.shortest(&run(100, 90, 5_020)))
            .unwrap();
        assert_eq!(g, run(100, 90, 20));
        assert_eq!((g.work, g.span), (220, 130));
        // A join coarsened into a chunk in one profile: a chunk of the smaller figures.
        let chunked = TaskNode::new().work(10).chunk(150, 95, 1).work(20);
        let g = run(100, 90, 25).shortest(&chunked).unwrap();
        assert_eq!(g, TaskNode::new().work(10).chunk(150, 95, 1).work(20));
        let g = chunked.shortest(&run(60, 80, 25)).unwrap();
        assert_eq!(g, TaskNode::new().work(10).chunk(140, 80, 1).work(20));
        // Not the same run: no graph.
        assert_eq!(run(1, 1, 1).shortest(&leaf(3)), None);
        let other = TaskNode::new().work(10).chunk(150, 95, 2).work(20);
        assert_eq!(chunked.shortest(&other), None);
        let deeper = TaskNode::new()
            .work(10)
            .join(leaf(1), run(1, 1, 1))
            .work(20);
        assert_eq!(run(1, 1, 1).shortest(&deeper), None);
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
