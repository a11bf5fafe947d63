//! `fj ft`: NAS FT over MPI, in both decompositions (`ft::dist`), optionally with a network
//! model. Needs `fj` built with the `mpi` feature; without it, it says how to get it (as
//! `fj calibrate-network`, which starts MPI the same way, does).

use std::process::ExitCode;

use super::Failure;
use crate::cli::FtArgs;

/// NPB's `%.12e`: a mantissa with 12 decimals and a signed exponent of at least two digits.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn npb_e(x: f64) -> String {
    let s = format!("{x:.12e}");
    let (mantissa, exp) = s.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// What `fj ft` and `fj calibrate-network` say when `fj` was built without MPI.
#[cfg(not(feature = "mpi"))]
pub(super) const NO_MPI: &str = "this fj was built without MPI: install Open MPI (apt-get install libopenmpi-dev openmpi-bin libclang1-14 libclang-common-14-dev pkg-config) and build with `cargo build --release -p forkjoin-bench --features mpi`";

#[cfg(not(feature = "mpi"))]
pub(crate) fn run(_args: &FtArgs) -> Result<ExitCode, Failure> {
    Err(Failure::Other(NO_MPI.into()))
}

#[cfg(feature = "mpi")]
pub(crate) use with_mpi::run;
#[cfg(feature = "mpi")]
pub(super) use with_mpi::start_cluster;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use std::path::Path;

    use forkjoin_mpi::mpi::topology::Communicator;
    use forkjoin_mpi::{start, Comm, Network, StartOptions};
    use forkjoin_profile::Costs;

    use crate::commands::calibrate::DEFAULT_COSTS;
    use crate::ft::dist::{self, Mode};
    use crate::ft::{self as kernel};

    /// Starts MPI and this process's pool.
    pub(crate) fn start_cluster(
        threads: Option<usize>,
        pin: bool,
    ) -> Result<forkjoin_mpi::Cluster, Failure> {
        start(&StartOptions { threads, pin }).map_err(|e| Failure::Other(e.to_string()))
    }

    pub(crate) fn run(args: &FtArgs) -> Result<ExitCode, Failure> {
        let class = args.class;
        let mode = Mode::parse(&args.mode).map_err(Failure::Usage)?;
        // Everything that can fail on bad input fails before MPI starts.
        let model = match &args.model {
            None => None,
            Some(name) => {
                let net = Network::lookup(name, &args.network_file)
                    .map_err(|e| Failure::Usage(e.to_string()))?;
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
        // FT is processes only: one worker each, unless told otherwise.
        let threads = args.threads.or((mode == Mode::Processes).then_some(1));
        let cluster = start_cluster(threads, args.pin)?;
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
            println!(
                " Workers per process :     {:10}",
                cluster.pool.num_threads()
            );
            let layout = match mode {
                Mode::Processes => {
                    let (pr, pc) = crate::ft::grid(cluster.size);
                    format!("processes (FT: 2-D pencils on a {pr} x {pc} grid)")
                }
                Mode::Hybrid => format!(
                    "hybrid (FT_T: 1-D slabs, {} worker(s) per process)",
                    cluster.pool.num_threads()
                ),
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
                println!(
                    " T = {t:4}     Checksum = {} {}",
                    npb_e(sum.re),
                    npb_e(sum.im)
                );
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
                if let Some(c) = outcome.model_communication {
                    println!(
                        "   of which compute = {:12.4}, communication = {c:12.4}",
                        m - c
                    );
                }
            }
            println!(" Mop/s total     = {:12.2}", class.mops(outcome.seconds));
            println!(" Ranks reporting = {:12}", outcome.ranks);
            println!(
                " Verification    = {}",
                if verified.is_ok() {
                    "SUCCESSFUL"
                } else {
                    "UNSUCCESSFUL"
                }
            );
        }
        if let Some(path) = &args.json {
            if lead {
                let row = serde_json::json!({
                    "class": class.name().to_string(),
                    "mode": args.mode,
                    "processes": cluster.size,
                    "ranks_reporting": outcome.ranks,
                    "workers_per_process": cluster.pool.num_threads(),
                    "seconds": outcome.seconds,
                    "model_seconds": outcome.model_seconds,
                    "model_communication_seconds": outcome.model_communication,
                    "network": model.as_ref().map(|(n, _)| n.name.clone()),
                    "verified": verified.is_ok(),
                    "checksums": outcome.sums.iter().map(|s| [s.re, s.im]).collect::<Vec<_>>(),
                });
                std::fs::write(
                    path,
                    serde_json::to_string_pretty(&row).expect("plain JSON") + "\n",
                )
                .map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))?;
            }
        }
        Ok(if verified.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_print_as_npb_prints_them() {
        assert_eq!(super::npb_e(554.6087004964), "5.546087004964e+02");
        assert_eq!(super::npb_e(-0.00012), "-1.200000000000e-04");
        assert_eq!(super::npb_e(1e100), "1.000000000000e+100");
        assert_eq!(super::npb_e(0.0), "0.000000000000e+00");
    }

    /// What `tests/cli.rs` checks of a binary built without MPI, here because the test command
    /// runs those tests on `fj` built with MPI (scripts/test.sh, stage 1).
    #[cfg(not(feature = "mpi"))]
    #[test]
    fn without_mpi_ft_and_calibrate_network_say_how_to_get_it() {
        use clap::Parser;

        use crate::commands::{run, Failure};
        for command in ["ft", "calibrate-network"] {
            let cli = crate::cli::Cli::try_parse_from(["fj", command]).expect("fj parses it");
            match run(&cli.command) {
                Err(Failure::Other(msg)) => assert!(
                    msg.contains("built without MPI") && msg.contains("--features mpi"),
                    "{command}: {msg}"
                ),
                _ => panic!("{command}: not the error that says how to get MPI"),
            }
        }
    }
}
