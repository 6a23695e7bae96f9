//! The encoder's linear layers, `y = x·Wᵀ + b`, then GELU or a residual: the product is
//! gemm's (the `gemm-f32` kernels for the [`Isa`] chosen: AVX-512, AVX2+FMA, NEON or
//! plain), the epilogue plain Rust. The weights are stored transposed at load (`k × n`), so
//! gemm reads them as a column-major matrix and writes the output, token rows of `n`,
//! where it belongs; gemm packs what it needs itself. The epilogue is one pass over the
//! rows: the bias, then the residual or the activation. (Blocks of rows, each finished
//! while in cache, measured slower: gemm then packs the weights once per block.)

use gemm_common::gemm::gemm_basic_generic;
use gemm_common::Parallelism;

use super::config::HiddenAct;
use super::math;
use super::simd::Isa;

/// What happens to `x·Wᵀ + b` before it is stored.
#[derive(Clone, Copy)]
pub enum Epilogue<'a> {
    /// Nothing more.
    Bias,
    /// The activation.
    Activation(HiddenAct),
    /// Add this matrix (same shape as the output).
    Residual(&'a [f32]),
}

/// A linear layer with its weights transposed for gemm.
pub struct Linear {
    /// Outputs.
    pub n: usize,
    /// Inputs.
    pub k: usize,
    /// `Wᵀ`: `k` rows of `n`.
    transposed: Vec<f32>,
    bias: Vec<f32>,
}

impl Linear {
    /// Take `weight` (`n × k`, row-major, as PyTorch stores a linear layer) and `bias`.
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Linear {
        assert_eq!(weight.len(), n * k);
        assert_eq!(bias.len(), n);
        let mut transposed = vec![0f32; k * n];
        for (j, row) in weight.chunks_exact(k).enumerate() {
            for (kk, w) in row.iter().enumerate() {
                transposed[kk * n + j] = *w;
            }
        }
        Linear {
            n,
            k,
            transposed,
            bias: bias.to_vec(),
        }
    }

    /// `out[m × n] = x[m × k]·Wᵀ + b`, then `epilogue`.
    pub fn forward(&self, isa: Isa, x: &[f32], m: usize, out: &mut [f32], epilogue: Epilogue) {
        let (n, k) = (self.n, self.k);
        let out = &mut out[..m * n];
        product(isa, &x[..m * k], &self.transposed, out, n, k);
        let (residual, act) = match epilogue {
            Epilogue::Bias => (None, None),
            Epilogue::Activation(act) => (None, Some(act)),
            Epilogue::Residual(residual) => (Some(&residual[..m * n]), None),
        };
        if isa.has_fma() {
            isa.vectorize(
                #[inline(always)]
                || self.finish::<true>(out, residual, act),
            );
        } else {
            isa.vectorize(
                #[inline(always)]
                || self.finish::<false>(out, residual, act),
            );
        }
    }

    /// The epilogue of rows holding `x·Wᵀ`, in one pass: add the bias, then the residual
    /// (in PyTorch's order) or the activation, a row at a time.
    #[inline(always)]
    fn finish<const FMA: bool>(
        &self,
        rows: &mut [f32],
        residual: Option<&[f32]>,
        act: Option<HiddenAct>,
    ) {
        let n = self.n;
        for (i, row) in rows.chunks_exact_mut(n).enumerate() {
            match residual {
                Some(residual) => {
                    let residual = &residual[i * n..(i + 1) * n];
                    for ((y, b), r) in row.iter_mut().zip(&self.bias).zip(residual) {
                        *y = (*y + b) + r;
                    }
                }
                None => row.iter_mut().zip(&self.bias).for_each(|(y, b)| *y += b),
            }
            if let Some(act) = act {
                math::activate::<FMA>(act, row);
            }
        }
    }
}

/// `out[m × n] = x[m × k] · w[k × n]` (all row-major), by gemm's kernels for `isa`.
fn product(isa: Isa, x: &[f32], w: &[f32], out: &mut [f32], n: usize, k: usize) {
    let m = out.len() / n.max(1);
    assert!(x.len() == m * k && w.len() == k * n && out.len() == m * n);
    if m == 0 || n == 0 {
        return;
    }
    // gemm computes dst = lhs·rhs on strided matrices. Read column-major, `out` is
    // the n × m matrix outᵀ = wᵀ·xᵀ: dst outᵀ (row stride 1, column stride n), lhs wᵀ
    // (n × k: row stride 1, column stride n), rhs xᵀ (k × m: row stride 1, column stride k).
    macro_rules! gemm {
        ($simd:expr, $kernels:ident, $lanes:expr) => {{
            // SAFETY: gemm reads lhs at i + j·n for i < n, j < k (inside `w`, k·n long),
            // rhs at i + j·k for i < k, j < m (inside `x`, m·k long), and writes dst at
            // i + j·n for i < n, j < m (inside `out`, m·n long, which borrows nothing `x`
            // or `w` do); all were checked above. The lanes and tile sizes are the kernel
            // set's own (gemm's dispatcher instantiates each set with them), and `$simd` is
            // the token `Isa` holds only after checking the CPU has the instructions the
            // kernels use.
            unsafe {
                gemm_basic_generic::<
                    _,
                    f32,
                    { $lanes },
                    { $kernels::MR_DIV_N * $lanes },
                    { $kernels::NR },
                    { $kernels::MR_DIV_N },
                    { $kernels::H_M },
                    { $kernels::H_N },
                >(
                    $simd,
                    n,
                    m,
                    k,
                    out.as_mut_ptr(),
                    n as isize,
                    1,
                    false,
                    w.as_ptr(),
                    n as isize,
                    1,
                    x.as_ptr(),
                    k as isize,
                    1,
                    1.0,
                    1.0,
                    false,
                    false,
                    false,
                    |a, b, c| a * b + c,
                    &$kernels::UKR,
                    &$kernels::H_UKR,
                    false,
                    Parallelism::None,
                )
            }
        }};
    }
    // The lanes of each kernel set: f32 vectors of 16 (AVX-512), 8 (AVX2), 4 (NEON), 1.
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512(simd) => {
            use gemm_f32::microkernel::avx512f::f32 as kernels;
            gemm!(simd, kernels, 16)
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2(simd) => {
            use gemm_f32::microkernel::fma::f32 as kernels;
            gemm!(simd, kernels, 8)
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => {
            use gemm_f32::microkernel::neon::f32 as kernels;
            gemm!(gemm_common::simd::Scalar, kernels, 4)
        }
        Isa::Scalar => {
            use gemm_f32::microkernel::scalar::f32 as kernels;
            gemm!(gemm_common::simd::Scalar, kernels, 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minilm::simd::Simd;

    /// Every kernel set this CPU runs, on shapes that are whole vectors and panels and on
    /// shapes that are not, against the definition in f64.
    #[test]
    fn every_kernel_set_computes_the_linear_layer() {
        let mut rng = goldgate_core::rng::Rng::new(7);
        let mut next = move || (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
        let simds: Vec<Isa> = Simd::ALL.into_iter().filter_map(Simd::isa).collect();
        assert!(simds.len() >= 2 || !cfg!(target_arch = "x86_64"));
        for (m, n, k) in [
            (1, 1, 1),
            (7, 5, 3),
            (70, 96, 64),
            (33, 1536, 384),
            (300, 12, 48),
        ] {
            let x: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let w: Vec<f32> = (0..n * k).map(|_| next()).collect();
            let b: Vec<f32> = (0..n).map(|_| next()).collect();
            let r: Vec<f32> = (0..m * n).map(|_| next()).collect();
            let linear = Linear::new(&w, &b, n, k);
            let want = |i: usize, j: usize| -> f64 {
                b[j] as f64
                    + (0..k)
                        .map(|t| x[i * k + t] as f64 * w[j * k + t] as f64)
                        .sum::<f64>()
            };
            for isa in &simds {
                let mut out = vec![f32::NAN; m * n];
                linear.forward(*isa, &x, m, &mut out, Epilogue::Bias);
                let mut with_residual = vec![f32::NAN; m * n];
                linear.forward(*isa, &x, m, &mut with_residual, Epilogue::Residual(&r));
                let mut relu = vec![f32::NAN; m * n];
                let act = Epilogue::Activation(HiddenAct::Relu);
                linear.forward(*isa, &x, m, &mut relu, act);
                for i in 0..m {
                    for j in 0..n {
                        let (at, y) = (i * n + j, want(i, j));
                        let tolerance = 1e-5 * (1.0 + k as f64).sqrt();
                        let what = format!("{:?} {m}×{n}×{k} at {i},{j}", isa.simd());
                        assert!((out[at] as f64 - y).abs() < tolerance, "{what}");
                        let z = y + r[at] as f64;
                        assert!((with_residual[at] as f64 - z).abs() < tolerance, "{what}");
                        assert!((relu[at] as f64 - y.max(0.0)).abs() < tolerance, "{what}");
                    }
                }
            }
        }
    }
}
