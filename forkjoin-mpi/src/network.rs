//! Network profiles: the cost of one message, alpha + beta * bytes (Hockney's model), as
//! measured here by `fj calibrate-network` or as published for real interconnects.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One network: a message of `b` bytes costs `alpha_s + beta_s_per_byte * b` seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    pub name: String,
    /// Latency per message, seconds.
    pub alpha_s: f64,
    /// Inverse bandwidth, seconds per byte.
    pub beta_s_per_byte: f64,
    /// Inverse bandwidth per byte sent while every member sends at once (a pairwise
    /// exchange, the model of an all-to-all), where it differs from `beta_s_per_byte`: on
    /// one node the exchanging processes share the memory system, and both copy at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_beta_s_per_byte: Option<f64>,
    /// Where the figures come from.
    pub source: String,
}

/// The file `fj calibrate-network` writes and `--model local` reads, unless told otherwise.
pub const DEFAULT_FILE: &str = "fj-network.json";

impl Network {
    /// The time one message of `bytes` bytes takes.
    pub fn message_seconds(&self, bytes: usize) -> f64 {
        self.alpha_s + self.beta_s_per_byte * bytes as f64
    }

    /// The time one message of `bytes` bytes takes within a pairwise exchange.
    pub fn exchange_seconds(&self, bytes: usize) -> f64 {
        self.alpha_s + self.exchange_beta() * bytes as f64
    }

    /// Seconds per byte within a pairwise exchange.
    pub fn exchange_beta(&self) -> f64 {
        self.exchange_beta_s_per_byte
            .unwrap_or(self.beta_s_per_byte)
    }

    /// The built-in profiles of real interconnects.
    pub fn builtin() -> Vec<Network> {
        vec![
            Network {
                name: "infiniband".into(),
                alpha_s: 1.5e-6,
                beta_s_per_byte: 1.0 / 10e9,
                exchange_beta_s_per_byte: None,
                source: "InfiniBand-class (EDR, 100 Gb/s): 1.5 us MPI latency and 10 GB/s, the figures of \
                         issue 5, in line with the OSU micro-benchmarks (osu_latency, osu_bw) published \
                         for MVAPICH2 and Open MPI on EDR"
                    .into(),
            },
            Network {
                name: "ethernet-10g".into(),
                alpha_s: 20e-6,
                beta_s_per_byte: 1.0 / 1.1e9,
                exchange_beta_s_per_byte: None,
                source: "10-gigabit Ethernet with MPI over TCP: 20 us latency and 1.1 GB/s (about 9 Gb/s \
                         of goodput), the figures of issue 5, typical of osu_latency/osu_bw over TCP"
                    .into(),
            },
        ]
    }

    /// A profile by name: `local` (or any name that is not built in) from `file`, the others
    /// built in.
    pub fn lookup(name: &str, file: &Path) -> Result<Network, NetworkError> {
        if let Some(n) = Network::builtin().into_iter().find(|n| n.name == name) {
            return Ok(n);
        }
        let text = std::fs::read_to_string(file).map_err(|e| NetworkError::Missing {
            name: name.into(),
            file: file.display().to_string(),
            why: e.to_string(),
        })?;
        let n: Network = serde_json::from_str(&text).map_err(|e| NetworkError::Malformed {
            file: file.display().to_string(),
            why: e.to_string(),
        })?;
        if n.name != name {
            return Err(NetworkError::Missing {
                name: name.into(),
                file: file.display().to_string(),
                why: format!("it holds the profile `{}`", n.name),
            });
        }
        if !(n.alpha_s >= 0.0
            && n.beta_s_per_byte >= 0.0
            && n.alpha_s.is_finite()
            && n.beta_s_per_byte.is_finite())
        {
            return Err(NetworkError::Malformed {
                file: file.display().to_string(),
                why: "alpha and beta must be finite and not negative".into(),
            });
        }
        Ok(n)
    }

    pub fn save(&self, file: &Path) -> Result<(), NetworkError> {
        let text = serde_json::to_string_pretty(self).expect("a Network always serialises");
        std::fs::write(file, text + "\n").map_err(|e| NetworkError::Io {
            file: file.display().to_string(),
            why: e.to_string(),
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NetworkError {
    Missing {
        name: String,
        file: String,
        why: String,
    },
    Malformed {
        file: String,
        why: String,
    },
    Io {
        file: String,
        why: String,
    },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Missing { name, file, why } => write!(
                f,
                "no network profile `{name}` (built in: {}; `{file}`: {why}); measure this machine's with `mpiexec -n 2 fj calibrate-network`",
                Network::builtin().iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
            NetworkError::Malformed { file, why } => write!(f, "network profile `{file}` is malformed: {why}"),
            NetworkError::Io { file, why } => write!(f, "cannot write network profile `{file}`: {why}"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// Fits alpha and beta to ping-pong measurements (message size in bytes, one-way time in
/// seconds) by least squares; alpha is clamped at zero.
pub fn fit(samples: &[(usize, f64)]) -> (f64, f64) {
    let n = samples.len() as f64;
    let mx = samples.iter().map(|s| s.0 as f64).sum::<f64>() / n;
    let my = samples.iter().map(|s| s.1).sum::<f64>() / n;
    let sxy: f64 = samples.iter().map(|s| (s.0 as f64 - mx) * (s.1 - my)).sum();
    let sxx: f64 = samples.iter().map(|s| (s.0 as f64 - mx).powi(2)).sum();
    let beta = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    ((my - beta * mx).max(0.0), beta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_cost_and_fit() {
        let n = Network::lookup("infiniband", Path::new("/nonexistent")).unwrap();
        assert_eq!(n.message_seconds(0), 1.5e-6);
        assert!((n.message_seconds(10_000_000_000) - (1.5e-6 + 1.0)).abs() < 1e-12);
        // Exact points on a line come back exactly.
        let pts: Vec<(usize, f64)> = [8usize, 1024, 65536, 1 << 20]
            .iter()
            .map(|&b| (b, 2e-6 + 1e-10 * b as f64))
            .collect();
        let (a, b) = fit(&pts);
        assert!(
            (a - 2e-6).abs() < 1e-15 && (b - 1e-10).abs() < 1e-20,
            "{a} {b}"
        );
    }

    #[test]
    fn profiles_round_trip_and_errors_are_clear() {
        let dir = std::env::temp_dir().join(format!("fj-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("net.json");
        let missing = Network::lookup("local", &file).unwrap_err().to_string();
        assert!(
            missing.contains("no network profile `local`") && missing.contains("calibrate-network"),
            "{missing}"
        );
        let local = Network {
            name: "local".into(),
            alpha_s: 3e-7,
            beta_s_per_byte: 2e-10,
            exchange_beta_s_per_byte: Some(5e-10),
            source: "test".into(),
        };
        local.save(&file).unwrap();
        assert_eq!(Network::lookup("local", &file).unwrap(), local);
        assert!(Network::lookup("mars", &file)
            .unwrap_err()
            .to_string()
            .contains("holds the profile `local`"));
        std::fs::write(&file, "{\"name\": \"local\"").unwrap();
        assert!(Network::lookup("local", &file)
            .unwrap_err()
            .to_string()
            .contains("malformed"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
