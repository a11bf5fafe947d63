//! Where parallel iterators come from: ranges, slices, vectors, arrays, options, the
//! standard collections, and any sequential iterator (`par_bridge`). Each module is also
//! public at the crate root under rayon's name (`forkjoin::range`, `forkjoin::slice`, ...).

pub mod array;
pub mod collections;
mod either;
pub mod option;
pub mod par_bridge;
pub mod range;
pub mod range_inclusive;
pub mod slice;
pub mod str;
pub mod vec;
