//! Predicting NAS FT on N nodes of C cores: the SPMD program replayed with a model clock per
//! process (ParJava's logical processes), without running it there.
//!
//! The compute costs are measured here, per point of the local block, for each kind of
//! phase the distributed code runs (initial conditions, a 1-D FFT along x, y or z, evolve,
//! the copies that pack and unpack a transpose), on one worker. Each process's clock then
//! advances through exactly the phases `dist` runs, in its order:
//!
//! - a compute phase: on one worker (FT) its cost per point times the local points; on a
//!   pool of C workers (FT_T) the predictor's time for C workers
//!   (`forkjoin_profile`'s simulation) over the phase's join tree, whose leaves are the
//!   code's leaves, each with its measured work;
//! - an all-to-all within a group: the pairwise exchange of `forkjoin_mpi::clock`, starting at
//!   the group's last arrival, a partner on the same node costing the `local` profile and the
//!   others the network's, with the bytes a node sends off-node sharing its one link;
//! - the checksum's all-reduce: a binomial tree on the network.

use std::time::Instant;

use forkjoin_mpi::clock;
use forkjoin_mpi::Network;
use forkjoin_profile::{Costs, Prediction, Profile, TaskNode};
use rustfft::num_complex::Complex64;

use super::{
    evolve, fft_axis, initial_conditions, Class, Direction, Layout, Plans, Twiddle, GATHER,
    LEAF_POINTS,
};
use crate::join::Seq;

/// Measured cost of each kind of phase, nanoseconds per point of the local block, with the
/// points per leaf of the code's join tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PhaseCosts {
    pub init: f64,
    pub fft: [f64; 3],
    pub evolve: f64,
    pub copy: f64,
}

/// Measures the phase costs on the whole class-`class` array, one worker, best of `reps`.
pub(crate) fn measure(class: Class, reps: usize) -> PhaseCosts {
    let n = class.dims();
    let layout = Layout::whole(n);
    let points = layout.len() as f64;
    let plans = Plans::new(n);
    let tw = Twiddle::new(n);
    let mut u = vec![Complex64::default(); layout.len()];
    let mut v = vec![Complex64::default(); layout.len()];
    let best = |f: &mut dyn FnMut()| {
        (0..reps.max(1))
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as f64 / points
            })
            .fold(f64::INFINITY, f64::min)
    };
    let init = best(&mut || initial_conditions(&mut Seq, &mut u, &layout, n));
    let fft = [0, 1, 2].map(|axis| {
        best(&mut || fft_axis(&mut Seq, &mut u, &layout, axis, Direction::Forward, &plans))
    });
    let evolve = best(&mut || {
        evolve(&mut Seq, &mut u, &mut v, &layout, &tw);
        std::hint::black_box(&mut v);
    });
    // The transposes copy rows of nx points, in both directions.
    let nx = n[0];
    let copy = best(&mut || {
        for (a, b) in u.chunks(nx).zip(v.chunks_mut(nx).rev()) {
            b.copy_from_slice(a);
        }
        // The copy is never read: without this, the compiler may drop it.
        std::hint::black_box(&mut v);
    });
    PhaseCosts {
        init,
        fft,
        evolve,
        copy,
    }
}

/// The two decompositions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decomposition {
    /// FT: N C processes on a pencil grid, one worker each.
    Pencils,
    /// FT_T: N processes on slabs, a pool of C workers each.
    Slabs,
}

/// Which of a pool phase's predicted times (over the simulation's seeds) the replay uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    Min,
    Median,
    Max,
}

impl Pick {
    fn of(self, p: &Prediction) -> f64 {
        match self {
            Pick::Min => p.seconds_min,
            Pick::Median => p.seconds,
            Pick::Max => p.seconds_max,
        }
    }
}

/// One kind of compute: (ns per point, points per leaf).
type Work = (f64, usize);

/// The replay of one run: clocks per process.
struct Replay<'a> {
    clocks: Vec<f64>,
    /// Processes per node.
    per_node: usize,
    workers: usize,
    local: &'a Network,
    net: &'a Network,
    costs: &'a Costs,
    pick: Pick,
}

impl Replay<'_> {
    /// All processes compute the same phase on `points` local points.
    fn compute(&mut self, points: usize, parts: &[Work]) {
        let seconds = if self.workers == 1 {
            parts.iter().map(|(ns, _)| ns * points as f64).sum::<f64>() * 1e-9
        } else {
            // The phase's join trees one after another, each a balanced tree over its leaves.
            parts
                .iter()
                .map(|&(ns, leaf_points)| {
                    let leaves = points.div_ceil(leaf_points).max(1);
                    let leaf_ns = (ns * points as f64 / leaves as f64) as u64;
                    let tree = balanced(leaves, leaf_ns);
                    let p = Profile::from_graph(tree, self.costs).predict(self.workers, self.costs);
                    self.pick.of(&p)
                })
                .sum()
        };
        for c in &mut self.clocks {
            *c += seconds;
        }
    }

    /// An all-to-all in every group of `groups` (each a list of ranks, all exchanging at
    /// once), `bytes` to each other member. A member's exit is its group's last arrival
    /// plus its messages: within its node as the `local` profile's pairwise exchange
    /// (`clock::all_to_all`), and between nodes alpha per message plus beta times the bytes
    /// its whole node sends off-node in this step, since the processes of a node share its
    /// network link. With one process per node that is exactly the pairwise formula.
    fn all_to_all(&mut self, groups: &[Vec<usize>], bytes: usize) {
        let node = |r: usize| r / self.per_node;
        let nodes = self.clocks.len().div_ceil(self.per_node);
        let mut off_node = vec![0usize; nodes];
        for g in groups {
            for &a in g {
                off_node[node(a)] += g.iter().filter(|&&b| node(b) != node(a)).count() * bytes;
            }
        }
        let mut exits = Vec::new();
        for g in groups {
            let start = g
                .iter()
                .map(|&r| self.clocks[r])
                .fold(f64::NEG_INFINITY, f64::max);
            for &r in g {
                let others = g.iter().filter(|&&q| q != r);
                let within: f64 = others
                    .clone()
                    .filter(|&&q| node(q) == node(r))
                    .map(|_| self.local.exchange_seconds(bytes))
                    .sum();
                let remote = others.filter(|&&q| node(q) != node(r)).count();
                let across = if remote == 0 {
                    0.0
                } else {
                    remote as f64 * self.net.alpha_s
                        + off_node[node(r)] as f64 * self.net.exchange_beta()
                };
                exits.push((r, start + within + across));
            }
        }
        for (r, e) in exits {
            self.clocks[r] = e;
        }
    }

    fn all_reduce(&mut self, bytes: usize) {
        let p = self.clocks.len();
        let net = if p > self.per_node {
            self.net
        } else {
            self.local
        };
        let exit = clock::all_reduce(&self.clocks, bytes, net);
        self.clocks.iter_mut().for_each(|c| *c = exit);
    }

    fn time(&self) -> f64 {
        self.clocks.iter().copied().fold(0.0, f64::max)
    }
}

/// A balanced join tree over `leaves` leaves of `ns` each (the code's `par_range`).
fn balanced(leaves: usize, ns: u64) -> TaskNode {
    if leaves <= 1 {
        return TaskNode::new().work(ns);
    }
    let half = leaves / 2;
    TaskNode::new().join(balanced(half, ns), balanced(leaves - half, ns))
}

/// Why a decomposition cannot run at this size.
pub(crate) fn check(class: Class, d: Decomposition, processes: usize) -> Result<(), String> {
    let [nx, ny, nz] = class.dims();
    let ok = match d {
        Decomposition::Slabs => ny % processes == 0 && nz % processes == 0,
        Decomposition::Pencils => {
            let (pr, pc) = super::grid(processes);
            nx % pr == 0 && ny % pr == 0 && ny % pc == 0 && nz % pc == 0
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "class {} does not divide among {processes} processes",
            class.name()
        ))
    }
}

/// What a prediction is made from: the phase costs measured here, the links within and
/// between nodes, and the runtime's costs for the pool's simulation.
pub(crate) struct Model<'a> {
    pub phase: &'a PhaseCosts,
    pub local: &'a Network,
    pub net: &'a Network,
    pub costs: &'a Costs,
    /// Which of each pool phase's simulated times to use.
    pub pick: Pick,
}

/// Predicted seconds of one FT run on `nodes` nodes of `cores` cores.
pub(crate) fn predict(
    class: Class,
    d: Decomposition,
    nodes: usize,
    cores: usize,
    m: &Model,
) -> Result<f64, String> {
    let Model {
        phase,
        local,
        net,
        costs,
        pick,
    } = *m;
    let [nx, ny, nz] = class.dims();
    let total = nx * ny * nz;
    let (processes, per_node, workers) = match d {
        Decomposition::Pencils => (nodes * cores, cores, 1),
        Decomposition::Slabs => (nodes, 1, cores),
    };
    check(class, d, processes)?;
    let n_loc = total / processes;
    let mut r = Replay {
        clocks: vec![0.0; processes],
        per_node,
        workers,
        local,
        net,
        costs,
        pick,
    };
    let line = |axis: usize| -> Work {
        let len = class.dims()[axis];
        (
            phase.fft[axis],
            if axis == 0 {
                (LEAF_POINTS / len).max(1) * len
            } else {
                GATHER * len
            },
        )
    };
    let copy: Work = (phase.copy, LEAF_POINTS);
    // `evolve` and the initial conditions take one plane (local axes 0 and 1) per leaf.
    let (pr, pc) = super::grid(processes);
    let (init_leaf, evolve_leaf) = match d {
        Decomposition::Slabs => (nx * ny, nx * nz),
        Decomposition::Pencils => (nx * ny / pr, nx / pr * ny / pc),
    };
    let evolve: Work = (phase.evolve, evolve_leaf);
    let init: Work = (phase.init, init_leaf);
    let bytes = |members: usize| n_loc * 16 / members;
    match d {
        Decomposition::Slabs => {
            let all: Vec<Vec<usize>> = vec![(0..processes).collect()];
            let exchange = |r: &mut Replay| {
                r.compute(n_loc, &[copy]);
                if processes > 1 {
                    r.all_to_all(&all, bytes(processes));
                }
                r.compute(n_loc, &[copy]);
            };
            r.compute(n_loc, &[init, line(0), line(1)]);
            exchange(&mut r);
            r.compute(n_loc, &[line(2)]);
            for _ in 0..class.iterations() {
                r.compute(n_loc, &[evolve, line(2)]);
                exchange(&mut r);
                r.compute(n_loc, &[line(1), line(0)]);
                r.all_reduce(16);
            }
        }
        Decomposition::Pencils => {
            let columns: Vec<Vec<usize>> = (0..pc)
                .map(|c| (0..pr).map(|row| row * pc + c).collect())
                .collect();
            let rows: Vec<Vec<usize>> = (0..pr)
                .map(|row| (0..pc).map(|c| row * pc + c).collect())
                .collect();
            let exchange = |r: &mut Replay, groups: &[Vec<usize>], members: usize| {
                r.compute(n_loc, &[copy]);
                if members > 1 {
                    r.all_to_all(groups, bytes(members));
                }
                r.compute(n_loc, &[copy]);
            };
            r.compute(n_loc, &[init, line(0)]);
            exchange(&mut r, &columns, pr);
            r.compute(n_loc, &[line(1)]);
            exchange(&mut r, &rows, pc);
            r.compute(n_loc, &[line(2)]);
            for _ in 0..class.iterations() {
                r.compute(n_loc, &[evolve, line(2)]);
                exchange(&mut r, &rows, pc);
                r.compute(n_loc, &[line(1)]);
                exchange(&mut r, &columns, pr);
                r.compute(n_loc, &[line(0)]);
                r.all_reduce(16);
            }
        }
    }
    Ok(r.time())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free() -> Network {
        Network {
            name: "free".into(),
            alpha_s: 0.0,
            beta_s_per_byte: 0.0,
            exchange_beta_s_per_byte: None,
            source: "test".into(),
        }
    }

    fn unit() -> PhaseCosts {
        PhaseCosts {
            init: 1.0,
            fft: [1.0; 3],
            evolve: 1.0,
            copy: 1.0,
        }
    }

    #[test]
    fn free_network_one_worker_counts_phases() {
        // Class S on one process, every phase 1 ns per point: FT_T runs init, x, y, pack,
        // unpack, z (6 passes) then per iteration evolve, z, pack, unpack, y, x (6 passes):
        // 6 + 6 * 6 = 42 passes over 64^3 points.
        let n = 64.0 * 64.0 * 64.0;
        let (phase, net, costs) = (unit(), free(), Costs::zero());
        let model = Model {
            phase: &phase,
            local: &net,
            net: &net,
            costs: &costs,
            pick: Pick::Median,
        };
        let t = predict(Class::S, Decomposition::Slabs, 1, 1, &model).unwrap();
        assert!((t - 42.0 * n * 1e-9).abs() < 1e-12, "{t}");
        // FT: init, x, (pack, unpack, y), (pack, unpack, z) = 8, per iteration evolve, z,
        // 2 x (pack, unpack), y, x = 8: 8 + 6 * 8 = 56 passes.
        let t = predict(Class::S, Decomposition::Pencils, 1, 1, &model).unwrap();
        assert!((t - 56.0 * n * 1e-9).abs() < 1e-12, "{t}");
        // Four nodes on a free network: a quarter of the time each.
        let t4 = predict(Class::S, Decomposition::Pencils, 4, 1, &model).unwrap();
        assert!((t4 - t / 4.0).abs() < 1e-12, "{t4}");
    }

    #[test]
    fn exchanges_cost_the_network() {
        // Class S on 2 nodes of 1 core, slabs: each process sends half its 64^3/2 points
        // (16 bytes each) to the other in each of 7 all-to-alls; the network costs 1 ns per
        // byte and 1 us per message, computing is free.
        let zero = PhaseCosts {
            init: 0.0,
            fft: [0.0; 3],
            evolve: 0.0,
            copy: 0.0,
        };
        let net = Network {
            alpha_s: 1e-6,
            beta_s_per_byte: 1e-9,
            ..free()
        };
        let t = predict(
            Class::S,
            Decomposition::Slabs,
            2,
            1,
            &Model {
                phase: &zero,
                local: &free(),
                net: &net,
                costs: &Costs::zero(),
                pick: Pick::Median,
            },
        )
        .unwrap();
        let bytes = 64.0 * 64.0 * 64.0 / 2.0 / 2.0 * 16.0;
        // Plus six all-reduces of 16 bytes, one tree round each.
        let expected = 7.0 * (1e-6 + bytes * 1e-9) + 6.0 * (1e-6 + 16e-9);
        assert!((t - expected).abs() < 1e-12, "{t} {expected}");
        // Within one node (two cores, pencils), the local profile is charged instead.
        let t = predict(
            Class::S,
            Decomposition::Pencils,
            1,
            2,
            &Model {
                phase: &zero,
                local: &net,
                net: &free(),
                costs: &Costs::zero(),
                pick: Pick::Median,
            },
        )
        .unwrap();
        assert!((t - expected).abs() < 1e-12, "{t} {expected}");
    }

    #[test]
    fn impossible_splits_are_refused() {
        assert!(check(Class::W, Decomposition::Slabs, 64).is_err()); // nz = 32
        assert!(check(Class::A, Decomposition::Pencils, 64).is_ok());
    }
}
