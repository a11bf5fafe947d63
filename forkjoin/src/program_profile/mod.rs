//! The call-site hook of a whole program's profile: `instrument::call_sites` with the
//! `profile` feature, else a do-nothing twin (DESIGN.md, section 12, "Any program").

#[cfg(not(feature = "profile"))]
mod off;
#[cfg(feature = "profile")]
pub(crate) use crate::instrument::call_sites::call_site;
#[cfg(not(feature = "profile"))]
pub(crate) use off::*;

/// `call_site` at the caller's line, in the pool the entry runs on: the body of a consumer
/// or a sort, which every such entry wraps in this.
#[track_caller]
#[inline(always)]
pub(crate) fn entry<R>(f: impl FnOnce() -> R) -> R {
    call_site(std::panic::Location::caller(), None, f)
}
