//! `fj ft`, `fj calibrate-network` and the model clocks under a real `mpiexec` (Open MPI).
//! Built only with the `mpi` feature: `cargo test -p forkjoin-bench --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::{assert_stderr_contains, scratch, text};

/// `mpiexec -n N fj ARGS`, allowed to run as root and to put more processes than cores.
///
/// Each call has its own `TMPDIR`, where Open MPI puts its session directory: the tests run
/// side by side, and two `mpiexec`s sharing `/tmp/ompi.HOST.UID` race, one removing it as it
/// ends while the other creates it ("mkdir: File exists").
fn mpiexec(n: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    // A short path: Open MPI's sockets live under it, and a socket's path has at most
    // 107 bytes.
    let tmp = std::env::temp_dir().join(format!(
        "fj-mpi.{}.{}",
        std::process::id(),
        // Relaxed: a unique number is all this needs; it orders nothing.
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&tmp).unwrap();
    let out = Command::new("mpiexec")
        .args(["-n", &n.to_string(), env!("CARGO_BIN_EXE_fj")])
        .args(args)
        .env("TMPDIR", &tmp)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .envs(env.iter().copied())
        .output()
        .expect("mpiexec runs (Open MPI: apt-get install openmpi-bin libopenmpi-dev)");
    let _ = std::fs::remove_dir_all(&tmp);
    out
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// NPB 3.3's class S and W checksums.
const CLASS_W: [(f64, f64); 6] = [
    (5.673612178944e+02, 5.293246849175e+02),
    (5.631436885271e+02, 5.282149986629e+02),
    (5.594024089970e+02, 5.270996558037e+02),
    (5.560698047020e+02, 5.260027904925e+02),
    (5.530898991250e+02, 5.249400845633e+02),
    (5.504159734538e+02, 5.239212247086e+02),
];
const CLASS_S: [(f64, f64); 6] = [
    (5.546087004964e+02, 4.845363331978e+02),
    (5.546385409189e+02, 4.865304269511e+02),
    (5.546148406171e+02, 4.883910722336e+02),
    (5.545423607415e+02, 4.901273169046e+02),
    (5.544255039624e+02, 4.917475857993e+02),
    (5.542683411902e+02, 4.932597244941e+02),
];

#[test]
fn classes_s_and_w_verify_in_both_modes_on_1_2_and_4_processes() {
    let dir = scratch("classes");
    for (class, reference, first) in [
        (
            "S",
            CLASS_S,
            " T =    1     Checksum = 5.546087004964e+02 4.845363331978e+02",
        ),
        (
            "W",
            CLASS_W,
            " T =    1     Checksum = 5.673612178944e+02 5.293246849175e+02",
        ),
    ] {
        for n in [1, 2, 4] {
            for mode in ["processes", "hybrid"] {
                let out_json = dir.join(format!("{class}-{mode}-{n}.json"));
                let n_text = n.to_string();
                let out = mpiexec(
                    n,
                    &[
                        "ft",
                        "--class",
                        class,
                        "--mode",
                        mode,
                        "--expect-processes",
                        &n_text,
                        "--json",
                        out_json.to_str().unwrap(),
                    ],
                    &[],
                );
                let stdout = text(&out.stdout);
                assert!(
                    out.status.success(),
                    "{mode} -n {n}: {stdout}{}",
                    text(&out.stderr)
                );
                // NPB's output: one line per iteration, then the verdict.
                assert_eq!(stdout.matches(" T = ").count(), 6, "{stdout}");
                assert!(stdout.contains(first), "{stdout}");
                assert!(stdout.contains("Verification    = SUCCESSFUL"), "{stdout}");
                let row = json(&out_json);
                assert_eq!(row["processes"], n);
                assert_eq!(row["ranks_reporting"], n, "every rank reached the end");
                assert_eq!(row["verified"], true);
                let sums = row["checksums"].as_array().unwrap();
                assert_eq!(sums.len(), 6);
                for (s, (re, im)) in sums.iter().zip(reference) {
                    let (r, i) = (s[0].as_f64().unwrap(), s[1].as_f64().unwrap());
                    assert!(
                        ((r - re) / re).abs() < 1e-12 && ((i - im) / im).abs() < 1e-12,
                        "{r} {i} vs {re} {im}"
                    );
                }
            }
        }
    }
}

#[test]
fn network_calibration_and_model_clock() {
    let dir = scratch("model");
    let net = dir.join("net.json");
    let net_s = net.to_str().unwrap();
    // Calibration needs exactly two processes.
    let out = mpiexec(1, &["calibrate-network", "--out", net_s], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_stderr_contains(&out, "mpiexec -n 2 fj calibrate-network");
    assert!(!net.exists());
    let out = mpiexec(2, &["calibrate-network", "--out", net_s], &[]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let profile = json(&net);
    assert_eq!(profile["name"], "local");
    assert!(
        profile["alpha_s"].as_f64().unwrap() > 0.0
            && profile["beta_s_per_byte"].as_f64().unwrap() > 0.0
    );
    assert!(profile["exchange_beta_s_per_byte"].as_f64().unwrap() > 0.0);
    // A modelled run verifies and reports a positive model time.
    let row = dir.join("row.json");
    let out = mpiexec(
        2,
        &[
            "ft",
            "--class",
            "S",
            "--mode",
            "processes",
            "--model",
            "local",
            "--network-file",
            net_s,
            "--json",
            row.to_str().unwrap(),
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(" Model time in seconds = "), "{stdout}");
    let row = json(&row);
    assert_eq!(row["verified"], true);
    assert!(row["model_seconds"].as_f64().unwrap() > 0.0);
    // An unknown profile is a usage error before MPI starts.
    let out = mpiexec(
        1,
        &["ft", "--model", "carrier-pigeon", "--network-file", net_s],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_contains(&out, "no network profile `carrier-pigeon`");
}

#[test]
fn clear_errors() {
    // Too low a thread level (asked for on purpose), an unknown mode, a size the
    // decomposition cannot split, a launcher mismatch.
    let out = mpiexec(1, &["ft"], &[("FJ_MPI_THREAD_LEVEL", "single")]);
    assert_eq!(out.status.code(), Some(1));
    assert_stderr_contains(&out, "granted thread level Single");
    let out = mpiexec(1, &["ft", "--mode", "threads"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_contains(&out, "unknown mode `threads`");
    let out = mpiexec(3, &["ft", "--class", "S", "--mode", "hybrid"], &[]);
    assert!(!out.status.success());
    assert_stderr_contains(&out, "to divide ny = 64 and nz = 64");
    let out = mpiexec(1, &["ft", "--expect-processes", "2"], &[]);
    assert_stderr_contains(&out, "sees 1 process(es), expected 2");
}

#[test]
fn pinned_pools_verify() {
    // Two processes, each pinned to its own core; one process with two pinned workers.
    for (n, extra) in [(2, &["--pin"][..]), (1, &["--pin", "--threads", "2"][..])] {
        let out = mpiexec(
            n,
            &[&["ft", "--class", "S", "--mode", "hybrid"][..], extra].concat(),
            &[],
        );
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("Verification    = SUCCESSFUL"), "{stdout}");
        assert!(
            stdout.contains(&format!("Workers per process :              {}", 3 - n)),
            "{stdout}"
        );
    }
}
