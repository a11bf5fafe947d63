//! Where parallel iterators come from: ranges, slices, vectors, arrays, options, results,
//! strings, the standard collections, and any sequential iterator (`par_bridge`). Each of
//! these modules is also public at the crate root under rayon's name (`forkjoin::range`,
//! `forkjoin::slice`, ...). And the free functions of `forkjoin::iter`: `empty`, `once`,
//! `repeat`, `repeat_n`, `split` and the tree walks.

pub mod array;
pub mod collections;
mod either;
pub(crate) mod empty;
pub(crate) mod once;
pub mod option;
pub(crate) mod par_bridge;
pub mod range;
pub mod range_inclusive;
pub(crate) mod repeat;
pub mod result;
pub mod slice;
pub(crate) mod split;
pub mod str;
pub mod string;
pub mod vec;
pub(crate) mod walk_tree;
