//! `fj ft` (NAS FT over MPI, both decompositions, optionally with a network model) and
//! `fj calibrate-network` (alpha and beta of this machine by ping-pong). Both need `fj`
//! built with the `mpi` feature; without it they say how to get it.

use std::path::Path;

use crate::cli::{CalibrateNetworkArgs, FtArgs};
use crate::Failure;

/// NPB's `%.12e`: a mantissa with 12 decimals and a signed exponent of at least two digits.
pub fn npb_e(x: f64) -> String {
    let s = format!("{x:.12e}");
    let (mantissa, exp) = s.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

#[cfg(not(feature = "mpi"))]
const NO_MPI: &str = "this fj was built without MPI: install Open MPI (apt-get install libopenmpi-dev openmpi-bin libclang1-14 libclang-common-14-dev pkg-config) and build with `cargo build --release -p forkjoin-bench --features mpi`";

#[cfg(not(feature = "mpi"))]
pub fn ft(_args: &FtArgs) -> Result<std::process::ExitCode, Failure> {
    Err(Failure::Other(NO_MPI.into()))
}

#[cfg(not(feature = "mpi"))]
pub fn calibrate_network(_args: &CalibrateNetworkArgs) -> Result<std::process::ExitCode, Failure> {
    Err(Failure::Other(NO_MPI.into()))
}

#[cfg(feature = "mpi")]
pub use with_mpi::{calibrate_network, ft};

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use std::process::ExitCode;
    use std::time::Instant;

    use forkjoin::profile::Costs;
    use forkjoin_mpi::{start, Comm, Network, StartOptions};

    use crate::ft::dist::{self, Mode};
    use crate::ft::{self as kernel};
    use forkjoin_mpi::mpi::topology::Communicator;
    use crate::predict::DEFAULT_COSTS;

    fn start_cluster(threads: Option<usize>, pin: bool) -> Result<forkjoin_mpi::Cluster, Failure> {
        start(&StartOptions { threads, pin }).map_err(|e| Failure::Other(e.to_string()))
    }

    pub fn ft(args: &FtArgs) -> Result<ExitCode, Failure> {
        let class = args.class;
        let mode = Mode::parse(&args.mode).map_err(Failure::Usage)?;
        // Everything that can fail on bad input fails before MPI starts.
        let model = match &args.model {
            None => None,
            Some(name) => {
                let net = Network::lookup(name, &args.network_file).map_err(|e| Failure::Usage(e.to_string()))?;
                let costs = match &args.costs {
                    Some(p) => Costs::load(p).map_err(|e| Failure::Usage(e.to_string()))?,
                    None if Path::new(DEFAULT_COSTS).exists() => {
                        Costs::load(DEFAULT_COSTS).map_err(|e| Failure::Usage(e.to_string()))?
                    }
                    None => Costs::measure(),
                };
                Some((net, costs))
            }
        };
        let cluster = start_cluster(args.threads, args.pin)?;
        let world = Comm::new(cluster.world.duplicate(), model.clone());
        let lead = cluster.rank == 0;
        if args.expect_processes.is_some_and(|n| n != cluster.size) {
            return Err(Failure::Other(format!(
                "rank {} sees {} process(es), expected {} (started by a different MPI's launcher?)",
                cluster.rank,
                cluster.size,
                args.expect_processes.unwrap_or(0)
            )));
        }
        let [nx, ny, nz] = class.dims();
        if lead {
            println!("\n\n NAS Parallel Benchmarks (forkjoin) - FT Benchmark\n");
            println!(" Size                : {nx:4}x{ny:4}x{nz:4}");
            println!(" Iterations          :     {:10}", class.iterations());
            println!(" Number of processes :     {:10}", cluster.size);
            println!(" Nodes               :     {:10}", cluster.nodes);
            println!(" Workers per process :     {:10}", cluster.pool.num_threads());
            let layout = match mode {
                Mode::Processes => {
                    let (pr, pc) = dist::grid(cluster.size);
                    format!("processes (FT: 2-D pencils on a {pr} x {pc} grid)")
                }
                Mode::Hybrid => format!("hybrid (FT_T: 1-D slabs, {} worker(s) per process)", cluster.pool.num_threads()),
            };
            println!(" Decomposition       : {layout}");
            if let Some((net, _)) = &model {
                println!(
                    " Network model       : {} (alpha {:.3} us, {:.3} GB/s)",
                    net.name,
                    net.alpha_s * 1e6,
                    1e-9 / net.beta_s_per_byte.max(1e-30)
                );
            }
            println!();
        }
        let outcome = dist::run(class, mode, &world, &cluster.pool, |t, sum| {
            if lead {
                println!(" T = {t:4}     Checksum = {} {}", npb_e(sum.re), npb_e(sum.im));
            }
        })
        .map_err(Failure::Usage)?;
        let verified = kernel::verify(class, &outcome.sums);
        if lead {
            match &verified {
                Ok(()) => println!(" Result verification successful"),
                Err(e) => println!(" Result verification failed: {e}"),
            }
            println!(" class = {}", class.name());
            println!();
            println!(" Time in seconds = {:12.4}", outcome.seconds);
            if let Some(m) = outcome.model_seconds {
                println!(" Model time in seconds = {m:12.4}");
            }
            println!(" Mop/s total     = {:12.2}", class.mops(outcome.seconds));
            println!(" Verification    = {}", if verified.is_ok() { "SUCCESSFUL" } else { "UNSUCCESSFUL" });
        }
        if let Some(path) = &args.json {
            if lead {
                let row = serde_json::json!({
                    "class": class.name().to_string(),
                    "mode": args.mode,
                    "processes": cluster.size,
                    "workers_per_process": cluster.pool.num_threads(),
                    "seconds": outcome.seconds,
                    "model_seconds": outcome.model_seconds,
                    "network": model.as_ref().map(|(n, _)| n.name.clone()),
                    "verified": verified.is_ok(),
                    "checksums": outcome.sums.iter().map(|s| [s.re, s.im]).collect::<Vec<_>>(),
                });
                std::fs::write(path, serde_json::to_string_pretty(&row).expect("plain JSON") + "\n")
                    .map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))?;
            }
        }
        Ok(if verified.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
    }

    /// Message sizes of the ping-pong, bytes.
    const SIZES: [usize; 8] = [8, 1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22, 1 << 24, 1 << 26];

    pub fn calibrate_network(args: &CalibrateNetworkArgs) -> Result<ExitCode, Failure> {
        let cluster = start_cluster(Some(1), false)?;
        if cluster.size != 2 {
            return Err(Failure::Usage(format!(
                "calibrate-network measures a ping-pong between two processes: run it as `mpiexec -n 2 fj calibrate-network` (this run has {})",
                cluster.size
            )));
        }
        let comm = Comm::new(cluster.world.duplicate(), None);
        let me = cluster.rank;
        let mut samples = Vec::new();
        for &bytes in &SIZES {
            let mut buf = vec![1.0f64; bytes / 8];
            // Repetitions: enough to take about 50 ms, at least 3, best of 3 batches.
            let reps = (50_000_000 / (bytes + 20_000)).clamp(3, 2000);
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                comm.barrier();
                let t = Instant::now();
                for _ in 0..reps {
                    if me == 0 {
                        comm.send(1, &buf);
                        comm.receive(1, &mut buf);
                    } else {
                        comm.receive(0, &mut buf);
                        comm.send(0, &buf);
                    }
                }
                best = best.min(t.elapsed().as_secs_f64() / (2 * reps) as f64);
            }
            samples.push((bytes, best));
        }
        if me != 0 {
            return Ok(ExitCode::SUCCESS);
        }
        println!("fj calibrate-network: ping-pong between two processes (one-way time, best of 3 batches)");
        for (b, t) in &samples {
            println!("  {:>10} bytes  {:>12.3} us  {:>8.3} GB/s", b, t * 1e6, *b as f64 / t / 1e9);
        }
        // Latency from the smallest message; the inverse bandwidth from the large ones,
        // the regime of FT's all-to-alls.
        let alpha = samples[0].1;
        let large: Vec<(usize, f64)> = samples.iter().copied().filter(|s| s.0 >= 1 << 20).collect();
        let (_, beta) = forkjoin_mpi::network::fit(&large);
        let net = Network {
            name: "local".into(),
            alpha_s: alpha,
            beta_s_per_byte: beta,
            source: format!(
                "measured by fj calibrate-network on {} (MPI ping-pong between two processes of one node)",
                forkjoin_mpi::mpi::environment::processor_name().unwrap_or_else(|_| "this machine".into())
            ),
        };
        println!("local: alpha {:.3} us, beta {:.4} ns/byte ({:.2} GB/s)", alpha * 1e6, beta * 1e9, 1e-9 / beta.max(1e-30));
        net.save(&args.out).map_err(|e| Failure::Other(e.to_string()))?;
        println!("saved: {}", args.out.display());
        Ok(ExitCode::SUCCESS)
    }
}
