//! `fj calibrate-network`: this machine's MPI latency and bandwidth (alpha and beta) by
//! ping-pong between two processes, saved as the network profile `local`. Needs `fj` built
//! with the `mpi` feature; without it, it says how to get it.

use std::process::ExitCode;

use super::Failure;
use crate::cli::CalibrateNetworkArgs;

#[cfg(not(feature = "mpi"))]
pub(crate) fn run(_args: &CalibrateNetworkArgs) -> Result<ExitCode, Failure> {
    Err(Failure::Other(super::ft::NO_MPI.into()))
}

#[cfg(feature = "mpi")]
pub(crate) use with_mpi::run;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use std::time::Instant;

    use forkjoin_mpi::mpi::topology::Communicator;
    use forkjoin_mpi::{Comm, Network};

    use crate::commands::ft::start_cluster;

    /// Message sizes of the ping-pong, bytes.
    const SIZES: [usize; 8] = [
        8,
        1 << 10,
        1 << 14,
        1 << 17,
        1 << 20,
        1 << 22,
        1 << 24,
        1 << 26,
    ];

    /// One-way seconds per message of each of `SIZES` bytes: `round(send, receive)` moves
    /// messages and returns how many one-way messages it took, on buffers of `blocks`
    /// messages each, allocated and touched before the clock starts; best of 3 batches.
    fn time_sizes(
        comm: &Comm,
        blocks: usize,
        mut round: impl FnMut(&mut [f64], &mut [f64]) -> usize,
    ) -> Vec<(usize, f64)> {
        let mut out = Vec::new();
        for &bytes in &SIZES {
            let mut buf = vec![1.0f64; blocks * bytes / 8];
            let mut recv = vec![1.0f64; blocks * bytes / 8];
            // Repetitions: about 50 ms of messages, at least 3.
            let reps = (50_000_000 / (bytes + 20_000)).clamp(3, 2000);
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                comm.barrier();
                let t = Instant::now();
                let mut messages = 0;
                for _ in 0..reps {
                    messages += round(&mut buf, &mut recv);
                }
                best = best.min(t.elapsed().as_secs_f64() / messages as f64);
            }
            out.push((bytes, best));
        }
        out
    }

    pub(crate) fn run(args: &CalibrateNetworkArgs) -> Result<ExitCode, Failure> {
        let cluster = start_cluster(Some(1), false)?;
        if cluster.size != 2 {
            return Err(Failure::Usage(format!(
                "calibrate-network measures a ping-pong between two processes: run it as `mpiexec -n 2 fj calibrate-network` (this run has {})",
                cluster.size
            )));
        }
        let comm = Comm::new(cluster.world.duplicate(), None);
        let me = cluster.rank;
        // Ping-pong: one message in flight, one way at a time.
        let ping_pong = time_sizes(&comm, 1, |buf, _| {
            if me == 0 {
                comm.send(1, buf);
                comm.receive(1, buf);
            } else {
                comm.receive(0, buf);
                comm.send(0, buf);
            }
            2
        });
        // Pairwise exchange: both send at once (an all-to-all of two), the pattern the model
        // charges an all-to-all as.
        let exchange = time_sizes(&comm, 2, |send, recv| {
            comm.all_to_all(send, recv);
            1
        });
        if me != 0 {
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "fj calibrate-network: two processes; one-way time per message, best of 3 batches"
        );
        println!(
            "  {:>10}  {:>24}  {:>24}",
            "bytes", "ping-pong", "exchange (both at once)"
        );
        for ((b, t), (_, x)) in ping_pong.iter().zip(&exchange) {
            println!(
                "  {:>10}  {:>12.3} us {:>7.2} GB/s  {:>12.3} us {:>7.2} GB/s",
                b,
                t * 1e6,
                *b as f64 / t / 1e9,
                x * 1e6,
                *b as f64 / x / 1e9
            );
        }
        // Latency from the smallest message; the inverse bandwidths from the large ones, the
        // regime of FT's all-to-alls.
        let alpha = ping_pong[0].1;
        let large = |s: &[(usize, f64)]| -> f64 {
            let l: Vec<(usize, f64)> = s.iter().copied().filter(|s| s.0 >= 1 << 20).collect();
            forkjoin_mpi::network::fit(&l).1
        };
        let (beta, exchange_beta) = (large(&ping_pong), large(&exchange));
        let net = Network {
            name: "local".into(),
            alpha_s: alpha,
            beta_s_per_byte: beta,
            exchange_beta_s_per_byte: Some(exchange_beta),
            source: format!(
                "measured by fj calibrate-network on {} (MPI between two processes of one node: ping-pong and pairwise exchange)",
                forkjoin_mpi::mpi::environment::processor_name().unwrap_or_else(|_| "this machine".into())
            ),
        };
        println!(
            "local: alpha {:.3} us; beta {:.4} ns/byte ({:.2} GB/s); in exchanges {:.4} ns/byte ({:.2} GB/s)",
            alpha * 1e6,
            beta * 1e9,
            1e-9 / beta.max(1e-30),
            exchange_beta * 1e9,
            1e-9 / exchange_beta.max(1e-30)
        );
        net.save(&args.out)
            .map_err(|e| Failure::Other(e.to_string()))?;
        println!("saved: {}", args.out.display());
        Ok(ExitCode::SUCCESS)
    }
}
