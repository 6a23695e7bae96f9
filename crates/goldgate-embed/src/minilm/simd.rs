//! Which instructions the forward pass runs on. [`Simd`] names the choices: AVX-512 and
//! AVX2 (with FMA) on x86-64, NEON on ARM64, and plain Rust everywhere. Each is one set of
//! gemm's matrix kernels ([`super::gemm`]) plus goldgate's own loops (layer norm, GELU,
//! softmax, attention) compiled for the same instructions. By default the fastest this CPU
//! runs is used ([`Simd::detect`]); any other the CPU has can be asked for
//! ([`Simd::from_name`]), so each is tested and measured on a machine that has several.
//! [`Isa`] is the proof that the CPU has the instructions: only [`Simd::isa`] makes one,
//! after checking.

use goldgate_core::error::{Error, Result};

/// The instructions a forward pass runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    /// x86-64 with AVX-512F: 16 lanes.
    Avx512,
    /// x86-64 with AVX2 and FMA: 8 lanes.
    Avx2,
    /// ARM64's NEON: 4 lanes.
    Neon,
    /// No vector extension beyond the target's baseline: gemm's plain kernels, and goldgate's
    /// loops as the compiler vectorises them for the baseline (SSE2 on x86-64).
    Scalar,
}

impl Simd {
    /// Every choice, fastest first.
    pub const ALL: [Simd; 4] = [Simd::Avx512, Simd::Avx2, Simd::Neon, Simd::Scalar];

    /// The fastest this CPU runs.
    pub fn detect() -> Simd {
        Simd::ALL
            .into_iter()
            .find(|simd| simd.is_available())
            .unwrap_or(Simd::Scalar)
    }

    /// Whether this CPU (and this build's target) runs it.
    pub fn is_available(self) -> bool {
        self.isa().is_some()
    }

    /// Its name: `avx512`, `avx2`, `neon` or `scalar`.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx512 => "avx512",
            Simd::Avx2 => "avx2",
            Simd::Neon => "neon",
            Simd::Scalar => "scalar",
        }
    }

    /// The choice named `name`: `auto` ([`Simd::detect`]) or one of [`Simd::name`]'s. A
    /// choice this CPU cannot run is an error that says so (never an illegal instruction).
    pub fn from_name(name: &str) -> Result<Simd> {
        if name == "auto" {
            return Ok(Simd::detect());
        }
        let Some(simd) = Simd::ALL.into_iter().find(|s| s.name() == name) else {
            return Err(Error::usage(
                format!("unknown instruction set `{name}`"),
                "choose auto, avx512, avx2, neon or scalar",
            ));
        };
        simd.require()
    }

    /// `self` if this CPU runs it, else an error naming what the CPU lacks.
    pub fn require(self) -> Result<Simd> {
        self.proof().map(|_| self)
    }

    /// The proof that this CPU runs it, else an error naming what the CPU lacks.
    pub(super) fn proof(self) -> Result<Isa> {
        self.isa().ok_or_else(|| self.missing())
    }

    fn missing(self) -> Error {
        let needs = match self {
            Simd::Avx512 => "an x86-64 CPU with AVX-512F",
            Simd::Avx2 => "an x86-64 CPU with AVX2 and FMA",
            Simd::Neon => "an ARM64 CPU with NEON",
            Simd::Scalar => "nothing",
        };
        Error::usage(
            format!(
                "this CPU cannot run the `{}` forward pass: it needs {needs}",
                self.name()
            ),
            format!(
                "use `auto` (here: `{}`), or run on a CPU that has it",
                Simd::detect().name()
            ),
        )
    }

    /// The proof that this CPU runs it, or `None`.
    pub(super) fn isa(self) -> Option<Isa> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => gemm_common::simd::V4::try_new().map(Isa::Avx512),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => gemm_common::simd::V3::try_new().map(Isa::Avx2),
            #[cfg(target_arch = "aarch64")]
            Simd::Neon => std::arch::is_aarch64_feature_detected!("neon").then_some(Isa::Neon),
            Simd::Scalar => Some(Isa::Scalar),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl std::fmt::Display for Simd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A [`Simd`] this CPU was checked to run, with the token that proves it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Isa {
    #[cfg(target_arch = "x86_64")]
    Avx512(gemm_common::simd::V4),
    #[cfg(target_arch = "x86_64")]
    Avx2(gemm_common::simd::V3),
    #[cfg(target_arch = "aarch64")]
    Neon,
    Scalar,
}

impl Isa {
    /// Which choice this is.
    pub fn simd(self) -> Simd {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512(_) => Simd::Avx512,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(_) => Simd::Avx2,
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => Simd::Neon,
            Isa::Scalar => Simd::Scalar,
        }
    }

    /// Whether the instructions include a fused multiply-add (AVX2's FMA, AVX-512's, NEON's).
    pub fn has_fma(self) -> bool {
        !matches!(self, Isa::Scalar)
    }

    /// Run `f` compiled for these instructions. `f` must be `#[inline(always)]` (so it is
    /// compiled into the function that has them), and so must the functions it calls.
    #[inline(always)]
    pub fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512(simd) => simd.vectorize(f),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(simd) => simd.vectorize(f),
            // NEON is part of ARM64's baseline: the compiler uses it everywhere already.
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => f(),
            Isa::Scalar => f(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_a_missing_instruction_set_is_an_error() {
        assert_eq!(Simd::from_name("auto").unwrap(), Simd::detect());
        assert_eq!(Simd::from_name("scalar").unwrap(), Simd::Scalar);
        assert!(Simd::detect().is_available());
        for simd in Simd::ALL {
            match Simd::from_name(simd.name()) {
                Ok(got) => {
                    assert_eq!(got, simd);
                    assert_eq!(simd.isa().unwrap().simd(), simd);
                }
                Err(e) => {
                    assert!(!simd.is_available());
                    assert_eq!(e.exit(), goldgate_core::error::Exit::Input, "{e}");
                    assert!(e.to_string().contains(simd.name()), "{e}");
                }
            }
        }
        let e = Simd::from_name("avx1024").unwrap_err();
        assert!(e.to_string().contains("avx1024"), "{e}");
        #[cfg(target_arch = "x86_64")]
        {
            assert!(!Simd::Neon.is_available());
            assert_eq!(
                Simd::Avx512.is_available(),
                std::arch::is_x86_feature_detected!("avx512f")
            );
            assert_eq!(
                Simd::Avx2.is_available(),
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            );
        }
    }
}
