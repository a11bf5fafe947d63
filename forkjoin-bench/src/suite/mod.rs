//! The benchmark suite: the programs (`programs`), the runtimes they run on (`engine` for
//! the Rust ones, `java` for the JDK's ForkJoinPool), and how they are measured: on which
//! CPUs (`cpus`), interleaved run by run (`measure`, the one method of `fj bench`,
//! `validate` and `experiments`), each by the K-best rule (`kbest`), into one row per
//! figure (`results`).

pub(crate) mod cpus;
pub(crate) mod engine;
pub(crate) mod java;
pub(crate) mod kbest;
pub(crate) mod measure;
pub(crate) mod programs;
pub(crate) mod results;
