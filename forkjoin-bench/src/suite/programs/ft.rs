//! `ft`: NAS FT (NPB 3.3) in one process, the pool only: a 3-D FFT PDE solver, its
//! parallelism a recursive join over blocks of 1-D FFT lines (the kernel is `crate::ft`).
//! Checked against NPB's reference checksums (relative error at most 1e-12).
//!
//! Sizes: Test class S (64^3), Default class W (128 x 128 x 32), Paper class A
//! (256 x 256 x 128). The MPI decompositions of the same kernel are `fj ft`.

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::ft::{self, Class, Solver};
use crate::join::{Chili, Fj, Rayon, Seq};
use rustfft::num_complex::Complex64;

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "ft",
        about: "NAS FT: 3-D FFT PDE solver, NPB 3.3 checksums (S/W/A by size)",
        make: |size| {
            Box::new(FtWorkload {
                solver: Solver::new(match size {
                    Size::Test => Class::S,
                    Size::Default => Class::W,
                    Size::Paper => Class::A,
                }),
                sums: Vec::new(),
            })
        },
    }]
}

struct FtWorkload {
    solver: Solver,
    sums: Vec<Complex64>,
}

impl Workload for FtWorkload {
    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        self.sums = match ctx {
            Ctx::Sequential => self.solver.run(&mut Seq),
            Ctx::Forkjoin => self.solver.run(&mut Fj),
            Ctx::Rayon => self.solver.run(&mut Rayon),
            Ctx::Chili(s) => self.solver.run(&mut Chili(s)),
            Ctx::Split(r) => self.solver.run(&mut r.join()),
        };
    }

    fn verify(&self) -> Result<(), String> {
        ft::verify(self.solver.class, &self.sums).map_err(|e| format!("ft: {e}"))
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ft_verifies_on_every_runtime() {
        let mut w = (super::programs()[0].make)(super::Size::Test);
        super::super::testkit::check_all_runtimes(w.as_mut());
    }
}
