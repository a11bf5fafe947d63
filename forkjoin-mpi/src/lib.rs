//! forkjoin on clusters.
//!
//! - `start` (feature `mpi`): the hybrid start-up: MPI initialised with a thread level that lets a pool
//!   compute beside the communicating thread, and a forkjoin pool in every process sized to
//!   the cores that process owns on its node.
//! - `Comm` (feature `mpi`): a communicator that keeps a model clock per process (ParJava's model,
//!   SimGrid SMPI's approach): the run's real time and its predicted time on a modelled
//!   network side by side.
//! - [`network`]: network profiles (alpha + beta bytes), measured here or built in;
//!   [`clock`]: the model's arithmetic, pure and tested on hand-made exchanges.
//!
//! The MPI engine is behind the feature `mpi` (off by default, so that the workspace builds
//! on machines without Open MPI); without it only `network` and `clock` are built, so that
//! tools predicting cluster runs build anywhere.

pub mod clock;
pub mod network;

#[cfg(feature = "mpi")]
mod comm;
#[cfg(feature = "mpi")]
mod start;

#[cfg(feature = "mpi")]
pub use comm::{thread_cpu_seconds, Comm};
#[cfg(feature = "mpi")]
pub use mpi;
pub use network::{Network, NetworkError};
#[cfg(feature = "mpi")]
pub use start::{start, Cluster, StartError, StartOptions, NEEDED};
