//! A communicator with a model clock: the real MPI call, and beside it the time the call
//! would take on the modelled network (`clock`), so that one run gives both its measured
//! time and its predicted one.
//!
//! Compute between calls advances the clock by the CPU time the calling thread used (so a
//! process sharing a core with others is still charged its own cost, not the wall time);
//! compute run on the pool through [`Comm::compute`] is charged the pool's time at its
//! number of workers: its CPU time with one worker, and with more the predictor's time
//! (`forkjoin_profile`) from a profile of that very phase. MPI's own time (Open MPI polls
//! while it waits) is charged by the network model only.

use std::cell::RefCell;
use std::rc::Rc;

use forkjoin::Pool;
use forkjoin_profile::{self as profile, Costs};
use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::topology::{Color, Communicator, SimpleCommunicator};

use crate::clock;
use crate::network::Network;

/// The model state of one process, shared by all its communicators.
struct Model {
    net: Network,
    costs: Costs,
    /// Model seconds since the last `reset_clock`.
    clock: f64,
    /// The part of `clock` spent in communication (waiting for the last member included).
    communication: f64,
    /// The calling thread's CPU time at the end of the last charged event.
    last_cpu: f64,
}

/// A communicator, with the process's model clock when a network model was asked for.
pub struct Comm {
    pub raw: SimpleCommunicator,
    model: Option<Rc<RefCell<Model>>>,
}

/// CPU seconds the calling thread has used.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_THREAD_CPUTIME_ID always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

impl Comm {
    /// `model`: the network and the runtime's costs to model with, or `None` for plain MPI.
    pub fn new(raw: SimpleCommunicator, model: Option<(Network, Costs)>) -> Comm {
        let model = model.map(|(net, costs)| {
            Rc::new(RefCell::new(Model {
                net,
                costs,
                clock: 0.0,
                communication: 0.0,
                last_cpu: thread_cpu_seconds(),
            }))
        });
        Comm { raw, model }
    }

    pub fn rank(&self) -> usize {
        self.raw.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.raw.size() as usize
    }

    pub fn modelled(&self) -> bool {
        self.model.is_some()
    }

    /// The sub-communicator of the members with the same `color`, ordered by `key`; it
    /// shares this process's model clock.
    pub fn split(&self, color: usize, key: usize) -> Comm {
        let raw = self
            .raw
            .split_by_color_with_key(Color::with_value(color as i32), key as i32)
            .expect("a defined color always yields a communicator");
        Comm {
            raw,
            model: self.model.clone(),
        }
    }

    /// Charges the calling thread's CPU time since the last event.
    fn charge_cpu(m: &mut Model) {
        let now = thread_cpu_seconds();
        m.clock += now - m.last_cpu;
        m.last_cpu = now;
    }

    /// The model clock now (compute so far charged), or `None` without a model.
    pub fn clock(&self) -> Option<f64> {
        self.model.as_ref().map(|m| {
            let mut m = m.borrow_mut();
            Self::charge_cpu(&mut m);
            m.clock
        })
    }

    /// Of the model clock, the seconds spent communicating (waiting for the last member of
    /// a collective included); the rest is compute.
    pub fn communication(&self) -> Option<f64> {
        self.model.as_ref().map(|m| m.borrow().communication)
    }

    /// A barrier, then every clock at zero: the start of a timed region.
    pub fn reset_clock(&self) {
        self.raw.barrier();
        if let Some(m) = &self.model {
            let mut m = m.borrow_mut();
            m.clock = 0.0;
            m.communication = 0.0;
            m.last_cpu = thread_cpu_seconds();
        }
    }

    /// Gathers every member's clock (after charging compute), runs `op`, then sets this
    /// process's clock to `exit(entry clocks, network)`.
    fn collective<R>(
        &self,
        op: impl FnOnce() -> R,
        exit: impl FnOnce(&[f64], &Network) -> f64,
    ) -> R {
        let Some(model) = &self.model else {
            return op();
        };
        let mine = {
            let mut m = model.borrow_mut();
            Self::charge_cpu(&mut m);
            m.clock
        };
        let mut entry = vec![0.0f64; self.size()];
        self.raw.all_gather_into(&mine, &mut entry[..]);
        let r = op();
        let mut m = model.borrow_mut();
        let after = exit(&entry, &m.net);
        m.communication += after - mine;
        m.clock = after;
        m.last_cpu = thread_cpu_seconds();
        r
    }

    /// All-to-all of equal blocks of f64 (`send.len() / size` to each member), except that
    /// this member's own block is not copied: the caller keeps its own part itself, and
    /// `recv`'s own block (and `send`'s, never read) is left as it was. (MPI_Alltoall
    /// would memcpy it: about a tenth of a 2-process FT's run time for nothing.)
    pub fn all_to_all(&self, send: &[f64], recv: &mut [f64]) {
        use mpi::datatype::{Partition, PartitionMut};
        assert_eq!(send.len(), recv.len());
        let p = self.size();
        let me = self.rank();
        let block = send.len() / p;
        let count = i32::try_from(block).expect("an all-to-all block of at most 2^31 - 1 f64");
        let counts: Vec<i32> = (0..p).map(|q| if q == me { 0 } else { count }).collect();
        let displs: Vec<i32> = (0..p).map(|q| q as i32 * count).collect();
        let bytes = block * std::mem::size_of::<f64>();
        self.collective(
            || {
                if p > 1 {
                    let s = Partition::new(send, &counts[..], &displs[..]);
                    let mut r = PartitionMut::new(recv, &counts[..], &displs[..]);
                    self.raw.all_to_all_varcount_into(&s, &mut r);
                }
            },
            |entry, net| clock::all_to_all(entry, me, &vec![bytes; p], |_| net),
        )
    }

    /// Element-wise sum over all members.
    pub fn all_reduce_sum(&self, send: &[f64], recv: &mut [f64]) {
        let bytes = std::mem::size_of_val(send);
        self.collective(
            || self.raw.all_reduce_into(send, recv, SystemOperation::sum()),
            |entry, net| clock::all_reduce(entry, bytes, net),
        )
    }

    pub fn barrier(&self) {
        self.collective(
            || self.raw.barrier(),
            |entry, net| clock::all_reduce(entry, 0, net),
        )
    }

    /// Runs `f` on `pool` and charges its time at the pool's size (see the module's doc).
    pub fn compute<R: Send>(&self, pool: &Pool, f: impl FnOnce() -> R + Send) -> R {
        let Some(model) = &self.model else {
            return pool.install(f);
        };
        Self::charge_cpu(&mut model.borrow_mut());
        let workers = pool.num_threads();
        let (r, seconds) = if workers == 1 {
            let (before, wall) = (pool.cpu_time(), std::time::Instant::now());
            let r = pool.install(f);
            // The worker's CPU time; its wall time only where the platform cannot tell.
            let used = match (before, pool.cpu_time()) {
                (Some(a), Some(b)) => (b - a).as_secs_f64(),
                _ => wall.elapsed().as_secs_f64(),
            };
            (r, used)
        } else {
            let (r, prof) = profile::run(pool, f);
            let seconds = prof.predict(workers, &model.borrow().costs).seconds;
            (r, seconds)
        };
        let mut m = model.borrow_mut();
        m.clock += seconds;
        m.last_cpu = thread_cpu_seconds();
        r
    }

    /// Sends `data` to `dest` (with this process's clock, when modelled).
    pub fn send(&self, dest: usize, data: &[f64]) {
        use mpi::point_to_point::Destination;
        let p = self.raw.process_at_rank(dest as i32);
        if let Some(model) = &self.model {
            let mut m = model.borrow_mut();
            Self::charge_cpu(&mut m);
            p.send_with_tag(&m.clock, 1);
        }
        p.send(data);
        if let Some(model) = &self.model {
            model.borrow_mut().last_cpu = thread_cpu_seconds();
        }
    }

    /// Receives into `buf` from `src`; the clock becomes max(own, sender's + message time).
    pub fn receive(&self, src: usize, buf: &mut [f64]) {
        use mpi::point_to_point::Source;
        let p = self.raw.process_at_rank(src as i32);
        let sent_at = self.model.as_ref().map(|model| {
            Self::charge_cpu(&mut model.borrow_mut());
            p.receive_with_tag::<f64>(1).0
        });
        p.receive_into(buf);
        if let (Some(model), Some(sent_at)) = (&self.model, sent_at) {
            let mut m = model.borrow_mut();
            let after = clock::receive(m.clock, sent_at, std::mem::size_of_val(buf), &m.net);
            m.communication += after - m.clock;
            m.clock = after;
            m.last_cpu = thread_cpu_seconds();
        }
    }
}
