//! The consumers at the end of a parallel iterator: `for_each`, `sum` and `product`, the
//! reductions, the searches. (`collect` and friends are in `collect`.) Every one of them can
//! split a running folder (`Consumer::split_folder`), so the splitter keeps one folder per
//! piece a thief takes.

pub(crate) mod exact_sum;
pub(crate) mod find;
pub(crate) mod for_each;
pub(crate) mod reduce;
pub(crate) mod sum;

use crate::iter::plumbing::Reducer;

/// The reducer of consumers whose pieces produce nothing.
pub(crate) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
