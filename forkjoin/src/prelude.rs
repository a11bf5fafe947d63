//! The traits a parallel program needs in scope, as rayon's prelude: a program moves from
//! rayon by replacing `use rayon::prelude::*` with `use forkjoin::prelude::*`.
//!
//! ```
//! use forkjoin::prelude::*;
//! let v: Vec<u64> = (1..=10).collect();
//! assert_eq!(v.par_iter().map(|x| x * x).sum::<u64>(), 385);
//! ```

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
