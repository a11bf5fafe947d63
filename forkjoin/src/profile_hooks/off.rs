//! The profiler's hooks without the `profile` feature: no-ops that fold away at compile time.

use std::convert::Infallible;

/// Never set: no profile can be taken.
pub(crate) struct ProfilingFlag;

impl ProfilingFlag {
    pub(crate) const fn new() -> ProfilingFlag {
        ProfilingFlag
    }

    #[inline(always)]
    pub(crate) fn is_set(&self) -> bool {
        false
    }
}

/// Runs `f`.
#[inline(always)]
pub(crate) fn detached<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `hand_off(op)`.
#[inline(always)]
pub(crate) fn handed_over<W: ?Sized>(
    op: &mut (dyn FnMut(&W) + Send),
    hand_off: impl FnOnce(&mut (dyn FnMut(&W) + Send)),
) {
    hand_off(op)
}

/// No join is ever timed.
pub(crate) struct OpenJoin(Infallible);

/// What a timed closure returns beside its result (never made).
pub(crate) type JoinTotals = ();

#[inline(always)]
pub(crate) fn open_join() -> Option<OpenJoin> {
    None
}

impl OpenJoin {
    pub(crate) fn timed<R>(
        &self,
        _f: impl FnOnce() -> R + Send,
    ) -> impl FnOnce() -> (R, JoinTotals) + Send {
        let never = self.0;
        move || match never {}
    }

    pub(crate) fn close<RA, RB>(self, _a: (RA, JoinTotals), _b: (RB, JoinTotals)) -> (RA, RB) {
        match self.0 {}
    }
}

/// No task is ever timed.
pub(crate) enum TimedTasks {}

/// Never made.
pub(crate) type SpawnPoint = Infallible;

#[inline(always)]
pub(crate) fn open_tasks() -> Option<TimedTasks> {
    None
}

impl TimedTasks {
    pub(crate) fn opened(&self) -> SpawnPoint {
        match *self {}
    }

    pub(crate) fn spawned(&self) -> SpawnPoint {
        match *self {}
    }

    pub(crate) fn run(&self, _: SpawnPoint, _: impl FnOnce()) {
        match *self {}
    }

    pub(crate) unsafe fn wait(&self) {
        match *self {}
    }

    pub(crate) unsafe fn close(&self) {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Without the feature a scope's timing and a task's spawn point take no space, so the
    /// scope and every spawned job are as they would be without them.
    #[test]
    fn timed_tasks_take_no_space_without_the_feature() {
        assert_eq!(size_of::<Option<TimedTasks>>(), 0);
        assert_eq!(size_of::<Option<SpawnPoint>>(), 0);
    }
}
