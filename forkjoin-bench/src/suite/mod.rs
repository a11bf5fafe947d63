//! The benchmark suite: the programs (`programs`), the runtimes they run on (`engine` for
//! the Rust ones, `java` for the JDK's ForkJoinPool), and how they are measured: on which
//! CPUs (`cpus`), by the K-best method (`kbest`), a program's cells interleaved run by run
//! (`measure`), into one row per figure (`results`).

pub mod cpus;
pub mod engine;
pub mod java;
pub mod kbest;
pub mod measure;
pub mod programs;
pub mod results;
