//! The parallel iterators against std's sequential ones, one module per subject: every
//! source, adaptor and consumer gives exactly std's answer on inputs of 0 to 10^6 items,
//! inside pools of 1, 2 and 8 workers (8 oversubscribes a 2-core machine on purpose) and
//! outside any pool (the global pool); then early stops, panics, drops, nesting and the
//! sorts.
//!
//! One test crate, not one per subject: each test crate monomorphises the iterators again,
//! and that, not running them, is what the tests' time goes to.
//!
//! Where rayon leaves a choice open (which of several matches `find_any` returns, which
//! error `try_reduce` returns when several items fail), a test checks that the answer is one
//! of the allowed ones; everywhere else it compares values exactly.

// `Counted` is a key of hash maps and sets: it hashes and compares its value only, never
// the drop counter it points to.
#![allow(clippy::mutable_key_type)]

#[path = "../common/mod.rs"]
mod common;

mod adaptors;
mod collect;
mod collections;
mod consumers;
mod deterministic;
mod drains;
mod miri;
mod nesting;
mod panics;
mod plumbing;
mod ranges;
mod search;
mod slices;
mod sort;
mod sources;
mod strings;
