//! `fj ft` (NAS FT over MPI, both decompositions, optionally with a network model) and
//! `fj calibrate-network` (alpha and beta of this machine by ping-pong). Both need `fj`
//! built with the `mpi` feature; without it they say how to get it.

use std::process::ExitCode;

use forkjoin_mpi::Network;

use crate::cli::{CalibrateNetworkArgs, FtArgs, FtPredictArgs};
use crate::ft::cluster::{self, Decomposition};
use crate::Failure;

/// NPB's `%.12e`: a mantissa with 12 decimals and a signed exponent of at least two digits.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub fn npb_e(x: f64) -> String {
    let s = format!("{x:.12e}");
    let (mantissa, exp) = s.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `fj ft-predict`: FT and FT_T on N nodes of C cores, from this machine's phase costs.
pub fn ft_predict(args: &FtPredictArgs) -> Result<ExitCode, Failure> {
    let class = args.class;
    let net = Network::lookup(&args.network, &args.network_file)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let local = match Network::lookup("local", &args.network_file) {
        Ok(l) => l,
        Err(_) => {
            println!(
                "note: no `local` profile in {} (`mpiexec -n 2 fj calibrate-network` writes it): messages within a node are charged as {}",
                args.network_file.display(),
                net.name
            );
            net.clone()
        }
    };
    let costs = crate::commands::profile::load_costs(args.costs.as_deref())?;
    println!("fj ft-predict: NAS FT class {}, nodes of {} cores, network {} (alpha {:.2} us, {:.2} GB/s)", class.name(), args.cores, net.name, net.alpha_s * 1e6, 1e-9 / net.beta_s_per_byte.max(1e-30));
    println!("  network source: {}", net.source);
    println!(
        "  within a node: {} (alpha {:.2} us, {:.2} GB/s in exchanges)",
        local.name,
        local.alpha_s * 1e6,
        1e-9 / local.exchange_beta().max(1e-30)
    );
    println!(
        "measuring the phase costs here (class {}, one worker)...",
        class.name()
    );
    let phase = cluster::measure(class, 3);
    let model = cluster::Model {
        phase: &phase,
        local: &local,
        net: &net,
        costs: &costs,
    };
    println!(
        "  ns per point: init {:.2}, FFT x {:.2}, y {:.2}, z {:.2}, evolve+copy {:.2}, transpose copy {:.2}",
        phase.init, phase.fft[0], phase.fft[1], phase.fft[2], phase.evolve, phase.copy
    );
    // The baseline: one process, one worker, slabs (one transpose per FFT, a local copy).
    let one =
        cluster::predict(class, Decomposition::Slabs, 1, 1, &model).map_err(Failure::Usage)?;
    println!("one core (one process, one worker): {one:.3} s; speedups are over it\n");
    println!(
        "{:>6} {:>7} {:>12} {:>9} {:>12} {:>9} {:>10}",
        "nodes", "cores", "FT (s)", "speedup", "FT_T (s)", "speedup", "FT_T/FT"
    );
    let mut rows = Vec::new();
    let (mut ft_line, mut ftt_line, mut perfect) = (Vec::new(), Vec::new(), Vec::new());
    for &nodes in &args.nodes.0 {
        let ft = cluster::predict(class, Decomposition::Pencils, nodes, args.cores, &model);
        let ftt = cluster::predict(class, Decomposition::Slabs, nodes, args.cores, &model);
        let cell = |t: &Result<f64, String>| match t {
            Ok(t) => (format!("{t:12.4}"), format!("{:9.1}", one / t)),
            Err(_) => (format!("{:>12}", "n/a"), format!("{:>9}", "-")),
        };
        let (a, b) = (cell(&ft), cell(&ftt));
        let ratio = match (&ft, &ftt) {
            (Ok(f), Ok(t)) => format!("{:10.3}", t / f),
            _ => format!("{:>10}", "-"),
        };
        println!(
            "{nodes:>6} {:>7} {} {} {} {} {ratio}",
            nodes * args.cores,
            a.0,
            a.1,
            b.0,
            b.1
        );
        if let Ok(t) = ft {
            ft_line.push((nodes, one / t));
        }
        if let Ok(t) = ftt {
            ftt_line.push((nodes, one / t));
        }
        perfect.push((nodes, (nodes * args.cores) as f64));
        rows.push(serde_json::json!({
            "class": class.name().to_string(), "network": net.name, "nodes": nodes, "cores": args.cores,
            "ft_seconds": ft.as_ref().ok(), "ft_t_seconds": ftt.as_ref().ok(),
            "ft_speedup": ft.as_ref().ok().map(|t| one / t), "ft_t_speedup": ftt.as_ref().ok().map(|t| one / t),
            "one_core_seconds": one,
        }));
    }
    println!("n/a: the class's grid does not divide among that many processes");
    let title = format!(
        "FT class {} on nodes of {} cores, {}",
        class.name(),
        args.cores,
        net.name
    );
    let svg = crate::plots::cluster(
        &title,
        &[
            ("FT (pencils)".into(), ft_line),
            ("FT_T (slabs + pool)".into(), ftt_line),
        ],
        &perfect,
    )
    .map_err(Failure::Other)?;
    std::fs::write(&args.svg, svg)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", args.svg.display())))?;
    println!("plot: {}", args.svg.display());
    if let Some(path) = &args.json {
        std::fs::write(
            path,
            serde_json::to_string_pretty(&rows).expect("plain JSON") + "\n",
        )
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))?;
        println!("json: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "mpi"))]
const NO_MPI: &str = "this fj was built without MPI: install Open MPI (apt-get install libopenmpi-dev openmpi-bin libclang1-14 libclang-common-14-dev pkg-config) and build with `cargo build --release -p forkjoin-bench --features mpi`";

#[cfg(not(feature = "mpi"))]
pub fn ft(_args: &FtArgs) -> Result<ExitCode, Failure> {
    Err(Failure::Other(NO_MPI.into()))
}

#[cfg(not(feature = "mpi"))]
pub fn calibrate_network(_args: &CalibrateNetworkArgs) -> Result<ExitCode, Failure> {
    Err(Failure::Other(NO_MPI.into()))
}

#[cfg(feature = "mpi")]
pub use with_mpi::{calibrate_network, ft};

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use std::path::Path;
    use std::time::Instant;

    use forkjoin::profile::Costs;
    use forkjoin_mpi::{start, Comm, StartOptions};

    use crate::commands::profile::DEFAULT_COSTS;
    use crate::ft::dist::{self, Mode};
    use crate::ft::{self as kernel};
    use forkjoin_mpi::mpi::topology::Communicator;

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

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_print_as_npb_prints_them() {
        assert_eq!(super::npb_e(554.6087004964), "5.546087004964e+02");
        assert_eq!(super::npb_e(-0.00012), "-1.200000000000e-04");
        assert_eq!(super::npb_e(1e100), "1.000000000000e+100");
        assert_eq!(super::npb_e(0.0), "0.000000000000e+00");
    }
}
