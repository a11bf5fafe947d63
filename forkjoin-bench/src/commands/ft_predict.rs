//! `fj ft-predict`: NAS FT's run time on N nodes of C cores, FT (pencils, a process per core)
//! against FT_T (slabs, a pool per node), predicted from phase costs measured here and a
//! network profile (`ft::cluster`): a table and an SVG plot. Needs no MPI.

use std::process::ExitCode;

use forkjoin_mpi::Network;

use super::calibrate::load_costs;
use super::Failure;
use crate::cli::FtPredictArgs;
use crate::ft::cluster::{self, Decomposition, Pick};

/// `fj ft-predict`: FT and FT_T on N nodes of C cores, from this machine's phase costs.
pub(crate) fn run(args: &FtPredictArgs) -> Result<ExitCode, Failure> {
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
    let costs = load_costs(args.costs.as_deref())?;
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
        pick: Pick::Median,
    };
    // The same with parked workers woken for free (a pool that spins rather than parks).
    let no_wake = forkjoin_profile::Costs {
        wake_ns: 0.0,
        ..costs.clone()
    };
    // Every cost at the low and at the high end of its calibrated spread (p25, p75).
    let (costs_low, costs_high) = (costs.low_end(), costs.high_end());
    if costs.spread.is_empty() {
        println!("note: the costs carry no spread (saved before `fj calibrate` kept it): the range over the costs is one figure");
    }
    println!(
        "  ns per point: init {:.2}, FFT x {:.2}, y {:.2}, z {:.2}, evolve+copy {:.2}, transpose copy {:.2}",
        phase.init, phase.fft[0], phase.fft[1], phase.fft[2], phase.evolve, phase.copy
    );
    // The baseline: one process, one worker, slabs (one transpose per FFT, a local copy).
    let one =
        cluster::predict(class, Decomposition::Slabs, 1, 1, &model).map_err(Failure::Usage)?;
    println!("one core (one process, one worker): {one:.3} s; speedups are over it\n");
    println!(
        "{:>6} {:>7} {:>9} {:>8} {:>26} {:>8} {:>22} {:>18} {:>13}",
        "nodes",
        "cores",
        "FT (s)",
        "speedup",
        "FT_T (s) median [min-max]",
        "speedup",
        "FT_T/FT median [range]",
        "costs p25-p75",
        "FT_T/FT wake=0"
    );
    let mut rows = Vec::new();
    let (mut ft_line, mut ftt_line, mut perfect) = (Vec::new(), Vec::new(), Vec::new());
    for &nodes in &args.nodes.0 {
        let ft = cluster::predict(class, Decomposition::Pencils, nodes, args.cores, &model);
        let slabs = |m: &cluster::Model| {
            cluster::predict(class, Decomposition::Slabs, nodes, args.cores, m)
        };
        let ftt = slabs(&model);
        // The seeds' fastest and slowest pool phases, and no wake-ups (each phase's pool
        // starts parked: a chain of wake-ups, then lazy promotion).
        let ftt_min = slabs(&cluster::Model {
            pick: Pick::Min,
            ..model
        });
        let ftt_max = slabs(&cluster::Model {
            pick: Pick::Max,
            ..model
        });
        let ftt_no_wake = slabs(&cluster::Model {
            costs: &no_wake,
            ..model
        });
        let ftt_low = slabs(&cluster::Model {
            costs: &costs_low,
            ..model
        });
        let ftt_high = slabs(&cluster::Model {
            costs: &costs_high,
            ..model
        });
        let a = match &ft {
            Ok(t) => format!("{t:9.4} {:8.1}", one / t),
            Err(_) => format!("{:>9} {:>8}", "n/a", "-"),
        };
        let b = match (&ftt, &ftt_min, &ftt_max) {
            (Ok(t), Ok(lo), Ok(hi)) => {
                format!(
                    "{:>26} {:8.1}",
                    format!("{t:.4} [{lo:.4}-{hi:.4}]"),
                    one / t
                )
            }
            _ => format!("{:>26} {:>8}", "n/a", "-"),
        };
        let over_costs = match (&ft, &ftt_low, &ftt_high) {
            (Ok(f), Ok(l), Ok(h)) => format!("{:.3}-{:.3}", l.min(*h) / f, l.max(*h) / f),
            _ => "-".into(),
        };
        let ratio = match (&ft, &ftt, &ftt_min, &ftt_max, &ftt_no_wake) {
            (Ok(f), Ok(t), Ok(lo), Ok(hi), Ok(z)) => format!(
                "{:>22} {over_costs:>18} {:13.3}",
                format!("{:.3} [{:.3}-{:.3}]", t / f, lo / f, hi / f),
                z / f
            ),
            _ => format!("{:>22} {:>18} {:>13}", "-", "-", "-"),
        };
        println!("{nodes:>6} {:>7} {a} {b} {ratio}", nodes * args.cores);
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
            "ft_t_seconds_min": ftt_min.as_ref().ok(), "ft_t_seconds_max": ftt_max.as_ref().ok(),
            "ft_t_seconds_no_wake": ftt_no_wake.as_ref().ok(),
            "ft_t_seconds_costs_low": ftt_low.as_ref().ok(), "ft_t_seconds_costs_high": ftt_high.as_ref().ok(),
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
    let svg = crate::report::plots::cluster(
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
