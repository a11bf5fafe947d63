//! The call-site hook of a whole program's profile: `instrument::call_sites` with the
//! `profile` feature, else a do-nothing twin (DESIGN.md, section 12, "Any program").

#[cfg(feature = "profile")]
pub(crate) use crate::instrument::call_sites::call_site;

/// Runs `f`: the twin of `instrument::call_sites::call_site` without the `profile` feature.
#[cfg(not(feature = "profile"))]
#[inline(always)]
pub(crate) fn call_site<R>(
    _site: &'static std::panic::Location<'static>,
    _pool: Option<&std::sync::Arc<crate::registry::Registry>>,
    f: impl FnOnce() -> R,
) -> R {
    f()
}

/// `call_site` at the caller's line, in the pool the entry runs on: the body of a consumer
/// or a sort, which every such entry wraps in this.
#[track_caller]
#[inline(always)]
pub(crate) fn entry<R>(f: impl FnOnce() -> R) -> R {
    call_site(std::panic::Location::caller(), None, f)
}
