//! Model clocks (ParJava's logical processes, SMPI's simulated time): every process keeps a
//! clock of the time its run would take on the modelled machine. Compute advances it by the
//! time the process really used; communication advances it by the network model:
//!
//! - a message: the receiver's clock becomes max(its own, the sender's clock at sending +
//!   alpha + beta bytes); the sender goes on at once (eager protocol);
//! - an all-to-all among p processes, modelled as a pairwise exchange: it starts when the
//!   last member arrives and takes the sum over the other members q of alpha_q + beta_q
//!   bytes_q, which is (p - 1) alpha + n beta on one network, n the bytes sent to others
//!   (beta as measured for exchanges, where the profile has it);
//! - an all-reduce or a barrier: a binomial tree, ceil(log2 p) rounds of one message after
//!   the last arrival.
//!
//! These are pure functions of the entry clocks, so every member computes the same exit
//! clocks from the gathered entry clocks, and the tests check them on hand-made exchanges.

use crate::network::Network;

/// The arrival time of a message sent at `send_clock`.
pub fn arrival(send_clock: f64, bytes: usize, net: &Network) -> f64 {
    send_clock + net.message_seconds(bytes)
}

/// The receiver's clock after receiving a message sent at `send_clock`.
pub fn receive(clock: f64, send_clock: f64, bytes: usize, net: &Network) -> f64 {
    clock.max(arrival(send_clock, bytes, net))
}

/// The exit clock of member `me` of an all-to-all whose members entered at `entry`, sending
/// `bytes_to[q]` bytes to member q over `link(q)` (its own part is a local copy, free).
pub fn all_to_all<'n>(
    entry: &[f64],
    me: usize,
    bytes_to: &[usize],
    link: impl Fn(usize) -> &'n Network,
) -> f64 {
    assert_eq!(entry.len(), bytes_to.len());
    let start = entry.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    start
        + (0..entry.len())
            .filter(|&q| q != me)
            .map(|q| link(q).exchange_seconds(bytes_to[q]))
            .sum::<f64>()
}

/// Rounds of a binomial tree over p members.
pub fn tree_rounds(p: usize) -> u32 {
    usize::BITS - (p.max(1) - 1).leading_zeros()
}

/// The exit clock of an all-reduce of `bytes` bytes (or a barrier, 0 bytes).
pub fn all_reduce(entry: &[f64], bytes: usize, net: &Network) -> f64 {
    let start = entry.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    start + tree_rounds(entry.len()) as f64 * net.message_seconds(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> Network {
        Network {
            name: "t".into(),
            alpha_s: 1e-6,
            beta_s_per_byte: 1e-9,
            exchange_beta_s_per_byte: None,
            source: "test".into(),
        }
    }

    #[test]
    fn ping_pong() {
        // A computes 5 us and sends 1000 bytes; B, at 2 us, receives at 5 + 1 + 1 = 7 us,
        // computes 3 us and answers 1000 bytes: A's clock is 10 + 2 = 12 us.
        let n = net();
        let b = receive(2e-6, 5e-6, 1000, &n);
        assert!((b - 7e-6).abs() < 1e-15);
        let a = receive(5e-6, b + 3e-6, 1000, &n);
        assert!((a - 12e-6).abs() < 1e-15);
        // A receiver that is already later does not wait.
        assert_eq!(receive(1.0, 0.0, 1000, &n), 1.0);
    }

    #[test]
    fn ring() {
        // Four processes pass a 0-byte token around a ring once: process i adds i us of
        // compute before passing it on. Token leaves 0 at 0, reaches 1 at 1 us, leaves 1 at
        // 2 us, reaches 2 at 3, leaves at 5, reaches 3 at 6, leaves at 9, back at 0 at 10 us.
        let n = net();
        let mut t = 0.0;
        for i in 1..4 {
            t = receive(0.0, t, 0, &n) + i as f64 * 1e-6;
        }
        let back = receive(0.0, t, 0, &n);
        assert!((back - 10e-6).abs() < 1e-15, "{back}");
    }

    #[test]
    fn all_to_all_of_known_sizes() {
        let n = net();
        // p = 4, 1 MB to each other member: (p-1) alpha + 3 MB beta after the last arrival.
        let entry = [0.0, 1e-3, 2e-3, 0.5e-3];
        let exit = all_to_all(&entry, 1, &[1_000_000; 4], |_| &n);
        assert!((exit - (2e-3 + 3e-6 + 3e-3)).abs() < 1e-12, "{exit}");
        // One member alone: a local copy, free.
        assert_eq!(all_to_all(&[0.25], 0, &[1 << 20], |_| &n), 0.25);
        // Two networks: member 0 sends 1000 bytes over a slow link to 1 and 2000 over a
        // fast one to 2.
        let slow = Network {
            alpha_s: 10e-6,
            beta_s_per_byte: 1e-8,
            ..net()
        };
        let fast = Network {
            alpha_s: 0.0,
            beta_s_per_byte: 0.0,
            ..net()
        };
        let exit = all_to_all(&[0.0; 3], 0, &[0, 1000, 2000], |q| {
            if q == 1 {
                &slow
            } else {
                &fast
            }
        });
        assert!((exit - 20e-6).abs() < 1e-15, "{exit}");
        // A profile measured for exchanges charges its exchange bandwidth, not ping-pong's.
        let shared = Network {
            exchange_beta_s_per_byte: Some(2e-9),
            ..net()
        };
        let exit = all_to_all(&[0.0; 2], 0, &[0, 1_000_000], |_| &shared);
        assert!((exit - (1e-6 + 2e-3)).abs() < 1e-15, "{exit}");
    }

    #[test]
    fn reductions_take_log_rounds() {
        assert_eq!(
            [1, 2, 3, 4, 5, 8, 9, 16].map(tree_rounds),
            [0, 1, 2, 2, 3, 3, 4, 4]
        );
        let n = net();
        let exit = all_reduce(&[0.0, 3e-6, 1e-6, 0.0, 0.0], 16, &n);
        assert!((exit - (3e-6 + 3.0 * (1e-6 + 16e-9))).abs() < 1e-15);
    }
}
