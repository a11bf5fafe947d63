//! Programs the type system must reject, kept as `compile_fail` doctests (as rayon-core keeps
//! its own in `src/compile_fail/`). Built only by `cargo test --doc`.
//!
//! Each case has the error code it must fail with, and beside it the same program made
//! right, which must compile: so a case cannot pass by failing for some other reason (a
//! renamed method, a missing import).

/// (a) A parallel loop's closure may not mutate what it captures: it runs on several
/// threads at once, so it is a `Fn`, and `sum += x` would be a data race.
///
/// ```compile_fail,E0596
/// use forkjoin::prelude::*;
/// let v = vec![1, 2, 3];
/// let mut sum = 0;
/// v.par_iter().for_each(|x| sum += x);
/// ```
///
/// Made right:
///
/// ```
/// use forkjoin::prelude::*;
/// use std::sync::atomic::{AtomicI32, Ordering};
/// let v = vec![1, 2, 3];
/// let sum = AtomicI32::new(0);
/// v.par_iter().for_each(|x| { sum.fetch_add(*x, Ordering::Relaxed); });
/// assert_eq!(sum.into_inner(), 6);
/// ```
mod par_iter_for_each_mutates_a_capture {}

/// (b) The two closures of a `join` may run at the same time: they may not both borrow
/// the same variable mutably.
///
/// ```compile_fail,E0499
/// let mut x = 0;
/// forkjoin::join(|| x += 1, || x += 1);
/// ```
///
/// Made right:
///
/// ```
/// let (mut x, mut y) = (0, 0);
/// forkjoin::join(|| x += 1, || y += 1);
/// assert_eq!((x, y), (1, 1));
/// ```
mod join_closures_both_mutate_one_variable {}

/// (c) Neither may two tasks of a scope.
///
/// ```compile_fail,E0499
/// let mut x = 0;
/// forkjoin::scope(|s| {
///     s.spawn(|_| x += 1);
///     s.spawn(|_| x += 1);
/// });
/// ```
///
/// Made right:
///
/// ```
/// let (mut x, mut y) = (0, 0);
/// forkjoin::scope(|s| {
///     s.spawn(|_| x += 1);
///     s.spawn(|_| y += 1);
/// });
/// assert_eq!((x, y), (1, 1));
/// ```
mod scope_tasks_both_mutate_one_variable {}

/// (d) An `Rc` is neither `Sync` nor `Send`: a parallel loop's closure may not share it...
///
/// ```compile_fail,E0277
/// use forkjoin::prelude::*;
/// use std::rc::Rc;
/// let rc = Rc::new(5);
/// let v = vec![1, 2, 3];
/// v.par_iter().for_each(|x| {
///     let _ = *rc + x;
/// });
/// ```
///
/// Made right:
///
/// ```
/// use forkjoin::prelude::*;
/// use std::sync::Arc;
/// let arc = Arc::new(5);
/// let v = vec![1, 2, 3];
/// v.par_iter().for_each(|x| {
///     let _ = *arc + x;
/// });
/// ```
mod rc_shared_by_a_parallel_loop {}

/// (d) ...and a `join` closure may not take it to another thread.
///
/// ```compile_fail,E0277
/// use std::rc::Rc;
/// let rc = Rc::new(5);
/// forkjoin::join(move || *rc + 1, || 2);
/// ```
///
/// Made right:
///
/// ```
/// use std::sync::Arc;
/// let arc = Arc::new(5);
/// assert_eq!(forkjoin::join(move || *arc + 1, || 2), (6, 2));
/// ```
mod rc_moved_into_join {}

/// (e) A scope's tasks may run until the scope ends, after the scope's closure has
/// returned: they may not borrow a local of that closure...
///
/// ```compile_fail,E0373
/// forkjoin::scope(|s| {
///     let local = vec![1, 2, 3];
///     s.spawn(|_| println!("{:?}", local));
/// });
/// ```
///
/// ...not even through a reference moved in:
///
/// ```compile_fail,E0597
/// forkjoin::scope(|s| {
///     let local = vec![1, 2, 3];
///     let r = &local;
///     s.spawn(move |_| println!("{:?}", r));
/// });
/// ```
///
/// Made right (the local moves into the task, or lives outside the scope):
///
/// ```
/// let outside = vec![4, 5];
/// forkjoin::scope(|s| {
///     let local = vec![1, 2, 3];
///     s.spawn(move |_| assert_eq!(local.len(), 3));
///     s.spawn(|_| assert_eq!(outside.len(), 2));
/// });
/// ```
mod scope_task_outlives_a_local {}

/// (f) `par_iter_mut` borrows the whole slice mutably: no other borrow of it may be alive
/// meanwhile, before the loop...
///
/// ```compile_fail,E0502
/// use forkjoin::prelude::*;
/// let mut v = vec![1, 2, 3];
/// let first = &v[0];
/// v.par_iter_mut().for_each(|x| *x += 1);
/// println!("{first}");
/// ```
///
/// ...or inside it:
///
/// ```compile_fail,E0502
/// use forkjoin::prelude::*;
/// let mut v = vec![1usize, 2, 3];
/// v.par_iter_mut().for_each(|x| *x += v.len());
/// ```
///
/// Made right:
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![1usize, 2, 3];
/// let first = v[0];
/// let len = v.len();
/// v.par_iter_mut().for_each(|x| *x += len + first);
/// assert_eq!(v, [5, 6, 7]);
/// ```
mod par_iter_mut_while_borrowed {}
