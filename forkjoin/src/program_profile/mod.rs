//! The call-site hook of a whole program's profile (DESIGN.md, section 12, "Any program"):
//! `instrument::call_sites` with the `profile` feature, else a do-nothing twin (`off`), so
//! that the entries that call it (`Pool::install`, the parallel iterators' consumers, the
//! slice sorts) carry no `cfg`.

#[cfg(not(feature = "profile"))]
mod off;
#[cfg(feature = "profile")]
pub(crate) use crate::instrument::call_sites::call_site;
#[cfg(not(feature = "profile"))]
pub(crate) use off::*;
