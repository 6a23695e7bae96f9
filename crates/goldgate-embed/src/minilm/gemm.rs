//! The encoder's linear layers, `y = x·Wᵀ + b`, on x86-64 with AVX-512: the weights are
//! packed once, at load, into panels of 32 output columns stored k-major (so the kernel
//! reads them front to back), and a 12×32 register-blocked kernel (24 accumulators) runs
//! over the whole depth, reading 12 input rows where they are. The kernel
//! is written in assembly: it is the one loop that decides the speed, and so it runs at
//! full speed in unoptimised (test) builds too. The epilogue adds the bias and then
//! applies GELU or adds a residual while the tile is in cache. [`Avx512`] is the proof
//! that the CPU has the instructions.

use std::arch::x86_64::*;

use super::math;

/// Output columns per panel (two vectors of 16).
const NR: usize = 32;
/// Input rows per kernel call.
const MR: usize = 12;

/// Proof that this CPU runs AVX-512F: only [`Avx512::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx512 {
    pub fn detect() -> Option<Avx512> {
        std::arch::is_x86_feature_detected!("avx512f").then_some(Avx512(()))
    }
}

/// What happens to `x·Wᵀ + b` before it is stored.
#[derive(Clone, Copy)]
pub enum Epilogue<'a> {
    /// Nothing more.
    Bias,
    /// GELU (the exact one, with erf).
    Gelu,
    /// Add this matrix (same shape as the output).
    Residual(&'a [f32]),
}

/// A linear layer with its weights packed for the kernel.
pub struct Linear {
    pub n: usize,
    pub k: usize,
    /// `ceil(n / 32)` panels of `k × 32`, columns past `n` zero.
    panels: Vec<f32>,
    /// The bias, padded with zeros to a whole panel.
    bias: Vec<f32>,
}

impl Linear {
    /// Pack `weight` (`n × k`, row-major, as PyTorch stores a linear layer) and `bias`.
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Linear {
        assert_eq!(weight.len(), n * k);
        assert_eq!(bias.len(), n);
        let count = n.div_ceil(NR);
        let mut panels = vec![0f32; count * k * NR];
        for p in 0..count {
            let panel = &mut panels[p * k * NR..(p + 1) * k * NR];
            for j in 0..NR.min(n - p * NR) {
                let row = &weight[(p * NR + j) * k..(p * NR + j + 1) * k];
                for (kk, w) in row.iter().enumerate() {
                    panel[kk * NR + j] = *w;
                }
            }
        }
        let mut padded = bias.to_vec();
        padded.resize(count * NR, 0.0);
        Linear {
            n,
            k,
            panels,
            bias: padded,
        }
    }

    /// `out[m × n] = x[m × k]·Wᵀ + b`, then `epilogue`. `x` has room for
    /// [`padded_rows`]`(m)` rows (the rows past `m` are read, whatever they hold, and
    /// their results dropped).
    pub fn forward(&self, cpu: Avx512, x: &[f32], m: usize, out: &mut [f32], epilogue: Epilogue) {
        let _ = cpu;
        assert!(x.len() >= padded_rows(m) * self.k && out.len() >= m * self.n);
        if let Epilogue::Residual(r) = epilogue {
            assert!(r.len() >= m * self.n);
        }
        // SAFETY: `cpu` proves AVX-512F; the sizes were checked above.
        unsafe { self.forward_avx512(x, m, out, epilogue) }
    }

    #[target_feature(enable = "avx512f")]
    unsafe fn forward_avx512(&self, x: &[f32], m: usize, out: &mut [f32], epilogue: Epilogue) {
        let k = self.k;
        // Panel by panel (the panel stays in cache), every block of rows through it.
        let mut tile = [0f32; MR * NR];
        for p in 0..self.n.div_ceil(NR) {
            let panel = self.panels.as_ptr().add(p * k * NR);
            for i0 in (0..m).step_by(MR) {
                kernel(x.as_ptr().add(i0 * k), k, panel, &mut tile);
                self.store(&tile, i0, MR.min(m - i0), p, out, epilogue);
            }
        }
    }

    /// Add the bias, apply the epilogue and store the tile's `rows` rows.
    #[target_feature(enable = "avx512f")]
    unsafe fn store(
        &self,
        tile: &[f32; MR * NR],
        i0: usize,
        rows: usize,
        p: usize,
        out: &mut [f32],
        epilogue: Epilogue,
    ) {
        let n = self.n;
        let col = p * NR;
        let bias = [
            _mm512_loadu_ps(self.bias.as_ptr().add(col)),
            _mm512_loadu_ps(self.bias.as_ptr().add(col + 16)),
        ];
        let masks: [__mmask16; 2] = [
            lanes(n.saturating_sub(col)),
            lanes(n.saturating_sub(col + 16)),
        ];
        for r in 0..rows {
            let at = (i0 + r) * n + col;
            for h in 0..2 {
                if masks[h] == 0 {
                    continue;
                }
                let sum = _mm512_loadu_ps(tile.as_ptr().add(r * NR + h * 16));
                let mut v = _mm512_add_ps(sum, bias[h]);
                match epilogue {
                    Epilogue::Bias => {}
                    Epilogue::Gelu => v = math::gelu(v),
                    Epilogue::Residual(res) => {
                        let add = _mm512_maskz_loadu_ps(masks[h], res.as_ptr().add(at + h * 16));
                        v = _mm512_add_ps(v, add);
                    }
                }
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(at + h * 16), masks[h], v);
            }
        }
    }
}

/// The mask of the first `count` lanes (all 16 when `count >= 16`).
fn lanes(count: usize) -> __mmask16 {
    if count >= 16 {
        0xFFFF
    } else {
        ((1u32 << count) - 1) as __mmask16
    }
}

/// `vxorps zmmI, zmmI, zmmI`.
macro_rules! zero {
    ($i:literal) => {
        concat!("vxorps zmm", $i, ", zmm", $i, ", zmm", $i)
    };
}

/// One row of the tile for one `k`: broadcast the row's element at `ADDRESS` into `zmmBC`,
/// multiply it by the panel's two vectors (zmm24, zmm25) into the row's accumulators
/// `zmmLO`, `zmmHI`.
#[rustfmt::skip]
macro_rules! row {
    ($lo:literal, $hi:literal, $bc:literal, $address:literal) => {
        concat!(
            "vbroadcastss zmm",
            $bc,
            ", dword ptr [",
            $address,
            "]\n",
            "vfmadd231ps zmm",
            $lo,
            ", zmm",
            $bc,
            ", zmm24\n",
            "vfmadd231ps zmm",
            $hi,
            ", zmm",
            $bc,
            ", zmm25"
        )
    };
}

/// `vmovups [c + OFFSET], zmmI`.
macro_rules! store {
    ($i:literal, $offset:literal) => {
        concat!("vmovups [{c} + ", $offset, "], zmm", $i)
    };
}

/// The 12×32 tile `a·b` over depth `k` into `tile` (row-major): `a` is the first of 12
/// rows of `k` values one after another, `b` a panel (`k × 32`). Accumulators zmm0–23 (row
/// r in zmm 2r and 2r+1), the panel's vectors in zmm24–25, the broadcast values rotate
/// through zmm26–31. Rows are read in place: rows 0, 3, 6 and 9 through their own pointers,
/// the two after each at one and two strides from it.
#[target_feature(enable = "avx512f")]
unsafe fn kernel(a: *const f32, k: usize, b: *const f32, tile: &mut [f32; MR * NR]) {
    std::arch::asm!(
        zero!(0), zero!(1), zero!(2), zero!(3), zero!(4), zero!(5),
        zero!(6), zero!(7), zero!(8), zero!(9), zero!(10), zero!(11),
        zero!(12), zero!(13), zero!(14), zero!(15), zero!(16), zero!(17),
        zero!(18), zero!(19), zero!(20), zero!(21), zero!(22), zero!(23),
        "lea {a3}, [{a} + {s} * 2]",
        "add {a3}, {s}",
        "lea {a6}, [{a3} + {s} * 2]",
        "add {a6}, {s}",
        "lea {a9}, [{a6} + {s} * 2]",
        "add {a9}, {s}",
        "test {k}, {k}",
        "jz 3f",
        "2:",
        "vmovups zmm24, [{b}]",
        "vmovups zmm25, [{b} + 64]",
        row!(0, 1, 26, "{a}"),
        row!(2, 3, 27, "{a} + {s}"),
        row!(4, 5, 28, "{a} + {s} * 2"),
        row!(6, 7, 29, "{a3}"),
        row!(8, 9, 30, "{a3} + {s}"),
        row!(10, 11, 31, "{a3} + {s} * 2"),
        row!(12, 13, 26, "{a6}"),
        row!(14, 15, 27, "{a6} + {s}"),
        row!(16, 17, 28, "{a6} + {s} * 2"),
        row!(18, 19, 29, "{a9}"),
        row!(20, 21, 30, "{a9} + {s}"),
        row!(22, 23, 31, "{a9} + {s} * 2"),
        "add {a}, 4",
        "add {a3}, 4",
        "add {a6}, 4",
        "add {a9}, 4",
        "add {b}, 128",
        "dec {k}",
        "jnz 2b",
        "3:",
        store!(0, 0), store!(1, 64), store!(2, 128), store!(3, 192),
        store!(4, 256), store!(5, 320), store!(6, 384), store!(7, 448),
        store!(8, 512), store!(9, 576), store!(10, 640), store!(11, 704),
        store!(12, 768), store!(13, 832), store!(14, 896), store!(15, 960),
        store!(16, 1024), store!(17, 1088), store!(18, 1152), store!(19, 1216),
        store!(20, 1280), store!(21, 1344), store!(22, 1408), store!(23, 1472),
        a = inout(reg) a => _,
        b = inout(reg) b => _,
        k = inout(reg) k => _,
        s = in(reg) k * 4,
        a3 = out(reg) _,
        a6 = out(reg) _,
        a9 = out(reg) _,
        c = in(reg) tile.as_mut_ptr(),
        out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
        out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
        out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
        out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
        out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
        out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
        out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
        out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
        options(nostack),
    );
}

/// Rows the buffers of `m` rows need for [`Linear::forward`]: whole blocks of 12.
pub fn padded_rows(m: usize) -> usize {
    m.div_ceil(MR) * MR
}
