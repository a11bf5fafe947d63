//! The adaptors: each wraps the producer and/or the consumer of the iterator it adapts,
//! as rayon's adaptors do, so a chain of them folds as one sequential loop per chunk.

pub(crate) mod chain;
pub(crate) mod chunks;
pub(crate) mod cloned;
pub(crate) mod enumerate;
pub(crate) mod filter;
pub(crate) mod flat_map;
pub(crate) mod fold;
pub(crate) mod len;
pub(crate) mod map;
pub(crate) mod rev;
pub(crate) mod skip_take;
pub(crate) mod step_by;
pub(crate) mod while_some;
pub(crate) mod zip;

pub(crate) mod inspect {
    //! `inspect` lives with `cloned` and `copied`, which share its machinery.
    pub use super::cloned::Inspect;
}
