//! The encoder's element-wise arithmetic in plain Rust, written so the compiler vectorises
//! it (no branches in the per-element functions; sums kept in [`LANES`] independent partial
//! sums, a fused multiply-add where the instructions have one): the exact GELU (a rational approximation of erf accurate to a few units in the
//! last place), GELU's tanh approximation, ReLU, `exp` for the softmax, sums, and layer
//! normalisation of a row. Every function is `#[inline(always)]`, so inside
//! [`super::simd::Isa::vectorize`] it is compiled for the chosen instructions. Accuracy,
//! not speed, is the contract: the vectors must agree with PyTorch's to about 1e-6.

use super::config::HiddenAct;

/// Partial sums kept side by side: one AVX-512 vector, two AVX2 or four NEON vectors.
pub const LANES: usize = 16;

/// `a·b + c`: one fused multiply-add where the instructions have it (`FMA`), else a
/// multiply and an add (a fused one would be a slow library call there).
#[inline(always)]
pub fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `x·½·(1 + erf(x/√2))`, GELU as BERT defines it.
#[inline(always)]
pub fn gelu<const FMA: bool>(x: f32) -> f32 {
    0.5 * x * (1.0 + erf::<FMA>(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// GELU's tanh approximation: `½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`.
#[inline(always)]
pub fn gelu_tanh<const FMA: bool>(x: f32) -> f32 {
    let y = 0.797_884_6 * (x + 0.044_715 * x * x * x);
    // tanh(y) = 1 − 2/(e^{2y} + 1); |y| ≤ 9 keeps e^{2y} finite (tanh(9) is 1 in f32).
    let e = exp::<FMA>(2.0 * y.clamp(-9.0, 9.0));
    0.5 * x * (2.0 - 2.0 / (e + 1.0))
}

/// Apply `act` to every element of `xs`.
#[inline(always)]
pub fn activate<const FMA: bool>(act: HiddenAct, xs: &mut [f32]) {
    match act {
        HiddenAct::Gelu => xs.iter_mut().for_each(|x| *x = gelu::<FMA>(*x)),
        HiddenAct::GeluTanh => xs.iter_mut().for_each(|x| *x = gelu_tanh::<FMA>(*x)),
        HiddenAct::Relu => xs.iter_mut().for_each(|x| *x = x.max(0.0)),
    }
}

/// erf: an odd rational function on [-4, 4] (outside it erf is ±1 in `f32`).
#[inline(always)]
pub fn erf<const FMA: bool>(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = madd::<FMA>(-2.726_142_3e-10, x2, 2.770_681_4e-8);
    let p = madd::<FMA>(p, x2, -2.101_024e-6);
    let p = madd::<FMA>(p, x2, -5.692_506_4e-5);
    let p = madd::<FMA>(p, x2, -7.349_906_3e-4);
    let p = madd::<FMA>(p, x2, -2.954_6e-3);
    let p = madd::<FMA>(p, x2, -1.609_603_3e-2);
    let q = madd::<FMA>(-1.456_607_2e-5, x2, -2.133_740_6e-4);
    let q = madd::<FMA>(q, x2, -1.682_827e-3);
    let q = madd::<FMA>(q, x2, -7.373_329_2e-3);
    let q = madd::<FMA>(q, x2, -1.426_473_9e-2);
    x * p / q
}

/// `exp(x)` (Cephes' polynomial after reducing by powers of two) for `x ≤ 88`; below -87
/// it is about 1e-38 instead of smaller (nothing next to the softmax's largest term, 1).
#[inline(always)]
pub fn exp<const FMA: bool>(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    // Round x·log₂e to the nearest integer by adding and removing 1.5·2²³.
    const ROUND: f32 = 12_582_912.0;
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * 0.693_359_4;
    let r = r - n * -2.121_944_4e-4;
    let p = madd::<FMA>(1.987_569_1e-4, r, 1.398_199_9e-3);
    let p = madd::<FMA>(p, r, 8.333_452e-3);
    let p = madd::<FMA>(p, r, 4.166_579_6e-2);
    let p = madd::<FMA>(p, r, 1.666_666_5e-1);
    let p = madd::<FMA>(p, r, 0.5);
    let p = madd::<FMA>(p, r * r, r + 1.0);
    // 2ⁿ from its exponent bits: n is within -126..=127 after the clamp, a normal number.
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// The sum of `xs`, in [`LANES`] partial sums (so it vectorises).
#[inline(always)]
pub fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let (groups, rest) = xs.as_chunks::<LANES>();
    for group in groups {
        for l in 0..LANES {
            acc[l] += group[l];
        }
    }
    acc.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

/// Normalise `row` to mean 0 and variance 1 (biased, `+ eps`), then scale by `weight` and
/// shift by `bias`, as `torch.nn.LayerNorm` does.
#[inline(always)]
pub fn layer_norm(row: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let len = row.len() as f32;
    let mean = sum(row) / len;
    let mut acc = [0f32; LANES];
    let (groups, rest) = row.as_chunks::<LANES>();
    let rest: f32 = rest.iter().map(|x| (x - mean) * (x - mean)).sum();
    for group in groups {
        for l in 0..LANES {
            acc[l] += (group[l] - mean) * (group[l] - mean);
        }
    }
    let variance = (acc.iter().sum::<f32>() + rest) / len;
    let scale = 1.0 / (variance + eps).sqrt();
    for ((x, w), b) in row.iter_mut().zip(weight).zip(bias) {
        *x = (*x - mean) * scale * w + b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf in `f64`, for reference: the integral of `2/√π·e^{-t²}` from 0, by Simpson's rule
    /// over steps of 1e-3 up to 12 (exact to ~1e-15), and between two steps a Taylor step of
    /// the second order from the nearest (~1e-10).
    struct Erf(Vec<f64>);

    const H: f64 = 1e-3;

    fn density(t: f64) -> f64 {
        2.0 / std::f64::consts::PI.sqrt() * (-t * t).exp()
    }

    impl Erf {
        fn new() -> Erf {
            let mut up = vec![0f64; 12_001];
            for i in 0..12_000 {
                let (a, b) = (i as f64 * H, (i + 1) as f64 * H);
                let simpson = H / 6.0 * (density(a) + 4.0 * density((a + b) / 2.0) + density(b));
                up[i + 1] = up[i] + simpson;
            }
            Erf(up)
        }

        fn at(&self, t: f64) -> f64 {
            let i = ((t.abs() / H).round() as usize).min(12_000);
            let (a, d) = (i as f64 * H, t.abs() - i as f64 * H);
            let v = self.0[i] + density(a) * d - a * density(a) * d * d;
            v.copysign(t)
        }
    }

    #[test]
    fn gelu_and_exp_are_accurate() {
        accurate::<false>();
        accurate::<true>();
    }

    fn accurate<const FMA: bool>() {
        let gelu = gelu::<FMA>;
        let gelu_tanh = gelu_tanh::<FMA>;
        let exp = exp::<FMA>;
        let (mut worst_gelu, mut worst_tanh, mut worst_exp) = (0f64, 0f64, 0f64);
        let mut worst_gelu_above_tail = 0f64;
        let erf = Erf::new();
        for i in -12_000..12_000 {
            let x = i as f32 * 1e-3;
            let v = x as f64;
            let want = 0.5 * v * (1.0 + erf.at(v / std::f64::consts::SQRT_2));
            let error = (gelu(x) as f64 - want).abs() / (1.0 + want.abs());
            worst_gelu = worst_gelu.max(error);
            if want.abs() > 1e-7 {
                worst_gelu_above_tail = worst_gelu_above_tail.max(error);
            }
            let inner = (2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v);
            let want = 0.5 * v * (1.0 + inner.tanh());
            worst_tanh = worst_tanh.max((gelu_tanh(x) as f64 - want).abs() / (1.0 + want.abs()));
            let e = x * 8.0 - 20.0;
            let w = (e as f64).exp();
            if e >= -87.0 {
                worst_exp = worst_exp.max((exp(e) as f64 - w).abs() / w);
            }
        }
        // At most 1e-6 off (absolute, for small values; relative for large ones), but in
        // the far negative tail, where 1 + erf cancels in f32 and GELU is below 1e-7: there
        // the worst is 1.1e-6, at x = -5.6 (PyTorch's own GELU is 2e-7 off there).
        assert!(worst_gelu < 1.2e-6, "GELU: relative error {worst_gelu:e}");
        assert!(
            worst_gelu_above_tail < 1e-6,
            "GELU: relative error {worst_gelu_above_tail:e}"
        );
        assert!(
            worst_tanh < 1e-6,
            "GELU (tanh): relative error {worst_tanh:e}"
        );
        assert!(worst_exp < 5e-7, "exp: relative error {worst_exp:e}");
        assert!(exp(-200.0) < 1e-37 && exp(-200.0) >= 0.0);
        assert!(exp(88.7).is_finite() && exp(88.0) > 1e38);
        assert_eq!(exp(0.0), 1.0);
        let mut xs = [-1.0, 0.0, 2.0];
        activate::<FMA>(HiddenAct::Relu, &mut xs);
        assert_eq!(xs, [0.0, 0.0, 2.0]);
    }

    #[test]
    fn layer_norm_matches_its_definition() {
        // 48 wide: whole groups of lanes; 37: a remainder too.
        for width in [48usize, 37] {
            let mut row: Vec<f32> = (0..width)
                .map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.7)
                .collect();
            let weight: Vec<f32> = (0..width).map(|i| 1.0 + i as f32 * 0.01).collect();
            let bias: Vec<f32> = (0..width).map(|i| i as f32 * -0.02).collect();
            let n = width as f64;
            let mean = row.iter().map(|v| *v as f64).sum::<f64>() / n;
            let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / n;
            let want: Vec<f64> = (0..width)
                .map(|i| {
                    (row[i] as f64 - mean) / (var + 1e-12).sqrt() * weight[i] as f64
                        + bias[i] as f64
                })
                .collect();
            layer_norm(&mut row, &weight, &bias, 1e-12);
            for i in 0..width {
                assert!(
                    (row[i] as f64 - want[i]).abs() < 1e-5,
                    "{i}: {} vs {}",
                    row[i],
                    want[i]
                );
            }
        }
    }
}
