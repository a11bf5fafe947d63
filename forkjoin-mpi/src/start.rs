//! The hybrid start-up: MPI with a thread level that lets a pool compute beside the thread
//! that communicates, and a forkjoin pool in every process sized to the cores it owns.

use std::fmt;

use forkjoin::{BuildError, Pool};
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

/// How to start.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    /// Workers per process; by default the node's cores divided by its processes.
    pub threads: Option<usize>,
    /// Pin each worker to one of the process's cores.
    pub pin: bool,
}

/// A started process: MPI, where it sits, and its pool. Dropping it finalises MPI (after
/// the pool's threads are gone).
pub struct Cluster {
    /// This process's pool.
    pub pool: Pool,
    pub world: SimpleCommunicator,
    pub rank: usize,
    pub size: usize,
    /// Rank and size within this node (the processes sharing memory with this one).
    pub node_rank: usize,
    pub node_size: usize,
    /// Nodes in the run.
    pub nodes: usize,
    /// Online cores of this node.
    pub node_cores: usize,
    /// The cores this process was given (`None`: the OS refused; the launcher's binding
    /// stands).
    pub cores: Option<Vec<usize>>,
    pub threading: Threading,
    _universe: Universe,
}

#[derive(Debug)]
pub enum StartError {
    /// MPI was initialised before (only one start per process).
    AlreadyStarted,
    /// The library cannot let a pool compute beside the communicating thread.
    ThreadLevel {
        granted: Threading,
    },
    Pool(BuildError),
    ZeroThreads,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::AlreadyStarted => write!(f, "MPI was already initialised in this process"),
            StartError::ThreadLevel { granted } => write!(
                f,
                "the MPI library granted thread level {granted:?}, but a forkjoin pool beside the communicating thread needs at least Funneled (build Open MPI with thread support)"
            ),
            StartError::Pool(e) => write!(f, "cannot build this process's pool: {e}"),
            StartError::ZeroThreads => write!(f, "a process needs at least one worker thread"),
        }
    }
}

impl std::error::Error for StartError {}

/// The thread level this crate needs: only the thread that called `start` calls MPI, while
/// the pool's workers compute.
pub const NEEDED: Threading = Threading::Funneled;

/// Initialises MPI (asking for `Funneled`, failing clearly if less is granted) and builds
/// this process's pool on its share of the node's cores: with c cores and k processes on
/// the node, process r of the node owns cores r t .. r t + t (modulo c), t = max(1, c / k)
/// (or `threads`). The calling thread is moved onto those cores, whatever binding the
/// launcher chose, so the pool's threads start there.
pub fn start(opts: &StartOptions) -> Result<Cluster, StartError> {
    if opts.threads == Some(0) {
        return Err(StartError::ZeroThreads);
    }
    // FJ_MPI_THREAD_LEVEL asks for another level (single, funneled, serialized, multiple):
    // asking for less than `NEEDED` shows the error a library without thread support gives.
    let asked = match std::env::var("FJ_MPI_THREAD_LEVEL").as_deref() {
        Ok("single") => Threading::Single,
        Ok("serialized") => Threading::Serialized,
        Ok("multiple") => Threading::Multiple,
        _ => NEEDED,
    };
    let (universe, threading) =
        mpi::initialize_with_threading(asked).ok_or(StartError::AlreadyStarted)?;
    if threading < NEEDED {
        return Err(StartError::ThreadLevel { granted: threading });
    }
    let world = universe.world();
    let node = world.split_shared(world.rank());
    let (node_rank, node_size) = (node.rank() as usize, node.size() as usize);
    let leader = i32::from(node_rank == 0);
    let mut nodes = 0i32;
    {
        use mpi::collective::{CommunicatorCollectives, SystemOperation};
        world.all_reduce_into(&leader, &mut nodes, SystemOperation::sum());
    }
    let node_cores = online_cores();
    let threads = opts.threads.unwrap_or((node_cores / node_size).max(1));
    let share: Vec<usize> = (0..threads)
        .map(|i| (node_rank * threads + i) % node_cores)
        .collect();
    let cores = set_affinity(&share).then_some(share);
    let pool = Pool::builder()
        .threads(threads)
        .pin_threads(opts.pin && cores.is_some())
        .thread_name(move |i| format!("fj-r{node_rank}-w{i}"))
        .build()
        .map_err(StartError::Pool)?;
    Ok(Cluster {
        pool,
        rank: world.rank() as usize,
        size: world.size() as usize,
        world,
        node_rank,
        node_size,
        nodes: nodes as usize,
        node_cores,
        cores,
        threading,
        _universe: universe,
    })
}

fn online_cores() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Restricts the calling thread (and the threads it starts later) to `cores`.
#[cfg(target_os = "linux")]
fn set_affinity(cores: &[usize]) -> bool {
    // SAFETY: `set` is a plain bit mask, zeroed then filled by the CPU_SET macro helpers;
    // sched_setaffinity(0, ..) acts on the calling thread only.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cores {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn set_affinity(_cores: &[usize]) -> bool {
    false
}
