//! The encoder's element-wise arithmetic on 16 lanes of AVX-512: the exact GELU (with a
//! rational approximation of erf accurate to a few units in the last place), `exp` for the
//! softmax, and layer normalisation of a row. Accuracy, not speed, is the contract: the
//! vectors must agree with PyTorch's to about 1e-6.

use std::arch::x86_64::*;

/// `x·½·(1 + erf(x/√2))`, GELU as BERT defines it.
#[target_feature(enable = "avx512f")]
#[inline]
pub unsafe fn gelu(x: __m512) -> __m512 {
    let half = _mm512_set1_ps(0.5);
    let erf = erf(_mm512_mul_ps(
        x,
        _mm512_set1_ps(std::f32::consts::FRAC_1_SQRT_2),
    ));
    _mm512_mul_ps(
        _mm512_mul_ps(half, x),
        _mm512_add_ps(_mm512_set1_ps(1.0), erf),
    )
}

/// erf: an odd rational function on [-4, 4] (outside it erf is ±1 in `f32`).
#[target_feature(enable = "avx512f")]
#[inline]
pub unsafe fn erf(x: __m512) -> __m512 {
    let x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-4.0)), _mm512_set1_ps(4.0));
    let x2 = _mm512_mul_ps(x, x);
    let p = _mm512_mul_ps(
        x,
        horner(
            x2,
            &[
                -2.726_142_3e-10,
                2.770_681_4e-8,
                -2.101_024e-6,
                -5.692_506_4e-5,
                -7.349_906_3e-4,
                -2.954_6e-3,
                -1.609_603_3e-2,
            ],
        ),
    );
    let q = horner(
        x2,
        &[
            -1.456_607_2e-5,
            -2.133_740_6e-4,
            -1.682_827e-3,
            -7.373_329_2e-3,
            -1.426_473_9e-2,
        ],
    );
    _mm512_div_ps(p, q)
}

/// The polynomial with `coefficients` (highest power first) at `x`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn horner(x: __m512, coefficients: &[f32]) -> __m512 {
    let mut p = _mm512_set1_ps(coefficients[0]);
    for &c in &coefficients[1..] {
        p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(c));
    }
    p
}

/// `exp(x)` (Cephes' polynomial after reducing by powers of two), 0 for very negative `x`.
#[target_feature(enable = "avx512f")]
#[inline]
pub unsafe fn exp(x: __m512) -> __m512 {
    let x = _mm512_min_ps(
        _mm512_max_ps(x, _mm512_set1_ps(-104.0)),
        _mm512_set1_ps(88.7),
    );
    let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
        _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)),
    );
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693_359_4), x);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.121_944_4e-4), r);
    let mut p = _mm512_set1_ps(1.987_569_1e-4);
    for c in [
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ] {
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
    }
    let p = _mm512_fmadd_ps(
        p,
        _mm512_mul_ps(r, r),
        _mm512_add_ps(r, _mm512_set1_ps(1.0)),
    );
    _mm512_scalef_ps(p, n)
}

/// Normalise `row` (a multiple of 16 long) to mean 0 and variance 1 (biased, `+ eps`),
/// then scale by `weight` and shift by `bias`, as `torch.nn.LayerNorm` does.
#[target_feature(enable = "avx512f")]
pub unsafe fn layer_norm(row: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let len = row.len();
    debug_assert!(len.is_multiple_of(16) && weight.len() == len && bias.len() == len);
    let ptr = row.as_mut_ptr();
    let mut sum = _mm512_setzero_ps();
    for i in (0..len).step_by(16) {
        sum = _mm512_add_ps(sum, _mm512_loadu_ps(ptr.add(i)));
    }
    let mean = _mm512_set1_ps(_mm512_reduce_add_ps(sum) / len as f32);
    let mut squares = _mm512_setzero_ps();
    for i in (0..len).step_by(16) {
        let d = _mm512_sub_ps(_mm512_loadu_ps(ptr.add(i)), mean);
        squares = _mm512_fmadd_ps(d, d, squares);
    }
    let variance = _mm512_reduce_add_ps(squares) / len as f32;
    let scale = _mm512_set1_ps(1.0 / (variance + eps).sqrt());
    for i in (0..len).step_by(16) {
        let d = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(ptr.add(i)), mean), scale);
        let y = _mm512_fmadd_ps(
            d,
            _mm512_loadu_ps(weight.as_ptr().add(i)),
            _mm512_loadu_ps(bias.as_ptr().add(i)),
        );
        _mm512_storeu_ps(ptr.add(i), y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf in `f64`, for reference: its Taylor series up to 3 (exact to ~1e-12), the
    /// asymptotic series of erfc past it (erfc(3) is 2e-5, so ~1e-10 absolute).
    fn erf_reference(x: f64) -> f64 {
        let a = x.abs();
        if a > 3.0 {
            let (mut term, mut sum) = (1.0, 1.0);
            for n in 1..8 {
                term *= -((2 * n - 1) as f64) / (2.0 * a * a);
                sum += term;
            }
            let erfc = (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * sum;
            return x.signum() * (1.0 - erfc);
        }
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    fn lanes(f: unsafe fn(__m512) -> __m512, xs: &[f32; 16]) -> [f32; 16] {
        let mut out = [0f32; 16];
        // SAFETY: only called after checking the CPU has AVX-512F.
        unsafe { _mm512_storeu_ps(out.as_mut_ptr(), f(_mm512_loadu_ps(xs.as_ptr()))) };
        out
    }

    #[test]
    fn gelu_and_exp_are_accurate() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let (mut worst_gelu, mut worst_exp) = (0f64, 0f64);
        let mut x = -12.0f32;
        while x < 12.0 {
            let xs: [f32; 16] = std::array::from_fn(|i| x + i as f32 * 1e-3);
            let g = lanes(gelu, &xs);
            let e = lanes(exp, &xs.map(|v| v * 8.0 - 20.0));
            for i in 0..16 {
                let v = xs[i] as f64;
                let want = 0.5 * v * (1.0 + erf_reference(v / std::f64::consts::SQRT_2));
                worst_gelu = worst_gelu.max((g[i] as f64 - want).abs() / (1.0 + want.abs()));
                let w = ((xs[i] * 8.0 - 20.0) as f64).exp();
                if w > f32::MIN_POSITIVE as f64 {
                    worst_exp = worst_exp.max((e[i] as f64 - w).abs() / w);
                }
            }
            x += 16e-3;
        }
        // At most 1e-6 off (absolute, for small values; relative for large ones): in the
        // far negative tail, where 1 + erf cancels, PyTorch's own GELU is 2e-7 off.
        assert!(worst_gelu < 1e-6, "GELU: relative error {worst_gelu:e}");
        assert!(worst_exp < 5e-7, "exp: relative error {worst_exp:e}");
        let e = lanes(exp, &[-200.0; 16]);
        assert!(e.iter().all(|v| *v < 1e-40));
    }

    #[test]
    fn layer_norm_matches_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let mut row: Vec<f32> = (0..48)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.7)
            .collect();
        let weight: Vec<f32> = (0..48).map(|i| 1.0 + i as f32 * 0.01).collect();
        let bias: Vec<f32> = (0..48).map(|i| i as f32 * -0.02).collect();
        let mean = row.iter().map(|v| *v as f64).sum::<f64>() / 48.0;
        let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / 48.0;
        let want: Vec<f64> = (0..48)
            .map(|i| {
                (row[i] as f64 - mean) / (var + 1e-12).sqrt() * weight[i] as f64 + bias[i] as f64
            })
            .collect();
        // SAFETY: AVX-512F checked above.
        unsafe { layer_norm(&mut row, &weight, &bias, 1e-12) };
        for i in 0..48 {
            assert!(
                (row[i] as f64 - want[i]).abs() < 1e-5,
                "{i}: {} vs {}",
                row[i],
                want[i]
            );
        }
    }
}
