//! The bootstrap's inner loop: the sums of a block of resamples at once. Each resample's
//! sum of a column is `Σ_r count[r] · value[r]` over the scope's rows in row order, computed
//! exactly as one multiply and one add per row (never fused), so every lane gives the bits a
//! plain loop gives.
//!
//! Two things make it fast without changing a bit of the result:
//! - **Exact columns in `f32`.** A column whose values are all integers with
//!   `rows · max|value| < 2^24` has every product and partial sum an integer below 2^24,
//!   which `f32` holds exactly (as `f64` does): such columns (counts: true positives,
//!   records, confusion cells, bin counts) are summed in `f32`, twice the lanes per
//!   instruction. The other columns (sums of fractions) stay in `f64`, in row order.
//! - **The widest vectors the CPU has**, chosen at run time (AVX-512 or AVX2 on x86-64),
//!   with the same arithmetic in every lane.

use std::ops::{Add, Mul};

/// Resamples summed at once: each row is read once per block and added into every
/// resample of the block.
pub const BLOCK: usize = 16;

/// How often each row is drawn in each resample of a block.
pub struct Counts {
    /// `by_resample[b][r]`: the count of row r in resample b, as drawn (one small array per
    /// resample, so that random increments stay in cache).
    by_resample: Vec<Vec<u32>>,
    /// `drawn[r][b]`: the same counts by row, for summing. The kernels turn them into `f32`
    /// (exact: a count is at most the number of rows, and columns are only summed in `f32`
    /// when rows · max|value| < 2^24) or `f64` as they read them.
    pub drawn: Vec<[u32; BLOCK]>,
}

impl Counts {
    pub fn new(rows: usize) -> Self {
        // Counts are converted through `i32` (the conversion vectors have): at most `rows`.
        assert!(i32::try_from(rows).is_ok(), "at most 2^31 - 1 samples");
        Counts {
            by_resample: vec![vec![0; rows]; BLOCK],
            drawn: vec![[0; BLOCK]; rows],
        }
    }

    pub fn rows(&self) -> usize {
        self.drawn.len()
    }

    /// Set every count to zero.
    pub fn clear(&mut self) {
        self.by_resample.iter_mut().for_each(|c| c.fill(0));
    }

    /// The counts of resample `b`, to draw into.
    pub fn resample_mut(&mut self, b: usize) -> &mut [u32] {
        &mut self.by_resample[b]
    }

    /// Bring the by-row counts up to date (after the draws, before summing).
    pub fn finish(&mut self) {
        for (r, d) in self.drawn.iter_mut().enumerate() {
            *d = std::array::from_fn(|b| self.by_resample[b][r]);
        }
    }
}

/// A lane type of the kernel: made from a count exactly.
trait Lane: Copy + Default + Add<Output = Self> + Mul<Output = Self> {
    fn of_count(c: i32) -> Self;
}

impl Lane for f32 {
    fn of_count(c: i32) -> Self {
        c as f32
    }
}

impl Lane for f64 {
    fn of_count(c: i32) -> Self {
        f64::from(c)
    }
}

/// One scope's rows, split by column into the exact (`f32`) and the other (`f64`) columns,
/// as sparse rows. Read-only: threads summing different blocks share it, each with its own
/// [`BlockTotals`].
pub struct BlockSums {
    width: usize,
    exact: Sparse<f32>,
    wide: Sparse<f64>,
}

/// The sums of one block of resamples, per column of each part.
pub struct BlockTotals {
    exact: Vec<[f32; BLOCK]>,
    wide: Vec<[f64; BLOCK]>,
}

/// Sparse rows over some of the columns: row r is entries `starts[r]..starts[r + 1]` of
/// `columns` (indexes into `to_scope`) and `values`.
struct Sparse<T> {
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<T>,
    /// The scope column of each of this part's columns.
    to_scope: Vec<usize>,
}

impl<T> Sparse<T> {
    fn new(to_scope: Vec<usize>) -> Self {
        Sparse {
            starts: vec![0],
            columns: Vec::new(),
            values: Vec::new(),
            to_scope,
        }
    }
}

/// Largest magnitude for which every integer is exact in `f32`.
const F32_EXACT: f64 = 16_777_216.0;

impl BlockSums {
    /// `row(r)` yields row r's (scope column, value) entries, for r in `0..rows`; `width`
    /// is the number of scope columns. Rows are summed in that order.
    pub fn new<I>(width: usize, rows: usize, row: impl Fn(usize) -> I) -> Self
    where
        I: Iterator<Item = (usize, f64)>,
    {
        let (mut integral, mut largest) = (vec![true; width], vec![0.0f64; width]);
        for r in 0..rows {
            for (k, v) in row(r) {
                integral[k] &= v.is_finite() && v.fract() == 0.0;
                largest[k] = largest[k].max(v.abs());
            }
        }
        // Every resample draws `rows` rows in all, so a sum never exceeds rows · max|v|.
        let exact_column: Vec<bool> = (0..width)
            .map(|k| integral[k] && rows as f64 * largest[k] < F32_EXACT)
            .collect();
        let mut local = vec![0u32; width];
        let (mut exact_cols, mut wide_cols) = (Vec::new(), Vec::new());
        for k in 0..width {
            let part = if exact_column[k] {
                &mut exact_cols
            } else {
                &mut wide_cols
            };
            local[k] = part.len() as u32;
            part.push(k);
        }
        let (mut exact, mut wide) = (Sparse::new(exact_cols), Sparse::new(wide_cols));
        for r in 0..rows {
            for (k, v) in row(r) {
                if exact_column[k] {
                    exact.columns.push(local[k]);
                    exact.values.push(v as f32);
                } else {
                    wide.columns.push(local[k]);
                    wide.values.push(v);
                }
            }
            exact.starts.push(exact.columns.len());
            wide.starts.push(wide.columns.len());
        }
        BlockSums { width, exact, wide }
    }

    /// Accumulators for the sums of one block.
    pub fn totals(&self) -> BlockTotals {
        BlockTotals {
            exact: vec![[0.0; BLOCK]; self.exact.to_scope.len()],
            wide: vec![[0.0; BLOCK]; self.wide.to_scope.len()],
        }
    }

    /// Sum the rows of every resample of the block, weighted by `counts`, into `totals`.
    pub fn sum(&self, counts: &Counts, totals: &mut BlockTotals) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked just above).
                unsafe { self.sum_avx512(counts, totals) };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { self.sum_avx2(counts, totals) };
                return;
            }
        }
        self.sum_portable(counts, totals);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn sum_avx512(&self, counts: &Counts, totals: &mut BlockTotals) {
        self.sum_portable(counts, totals);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sum_avx2(&self, counts: &Counts, totals: &mut BlockTotals) {
        self.sum_portable(counts, totals);
    }

    /// Inlined into [`BlockSums::sum_avx512`] and [`BlockSums::sum_avx2`] too, so it is
    /// compiled for that caller's vectors.
    #[inline(always)]
    fn sum_portable(&self, counts: &Counts, totals: &mut BlockTotals) {
        kernel(&self.exact, &counts.drawn, &mut totals.exact);
        kernel(&self.wide, &counts.drawn, &mut totals.wide);
    }

    /// Resample `b`'s sums in `totals`, one per scope column, into `dense`.
    pub fn resample(&self, totals: &BlockTotals, b: usize, dense: &mut [f64]) {
        debug_assert_eq!(dense.len(), self.width);
        for (s, &k) in totals.exact.iter().zip(&self.exact.to_scope) {
            dense[k] = f64::from(s[b]);
        }
        for (s, &k) in totals.wide.iter().zip(&self.wide.to_scope) {
            dense[k] = s[b];
        }
    }
}

/// `sums[k][b] = Σ_r counts[r][b] · value[r][k]`, rows in order, one multiply and one add
/// per row and lane. Inlined into each caller so it is compiled for that caller's vectors.
#[inline(always)]
fn kernel<T: Lane>(rows: &Sparse<T>, counts: &[[u32; BLOCK]], sums: &mut [[T; BLOCK]]) {
    sums.iter_mut().for_each(|s| *s = [T::default(); BLOCK]);
    if sums.is_empty() {
        return;
    }
    for (r, drawn) in counts.iter().enumerate() {
        let span = rows.starts[r]..rows.starts[r + 1];
        if span.is_empty() {
            continue;
        }
        let c = drawn.map(|d| T::of_count(d as i32));
        for (&k, &x) in rows.columns[span.clone()].iter().zip(&rows.values[span]) {
            // On copies, so that nothing can alias and the lanes vectorise.
            let mut acc = sums[k as usize];
            for b in 0..BLOCK {
                acc[b] = acc[b] + x * c[b];
            }
            sums[k as usize] = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block sums equal a plain f64 loop's, bit for bit, in exact and other columns.
    #[test]
    fn block_sums_are_the_plain_sums() {
        let rows: Vec<Vec<(usize, f64)>> = (0..300)
            .map(|r| {
                let mut row = vec![(0, 1.0), (1, (r % 7) as f64)];
                if r % 3 == 0 {
                    row.push((2, 0.1 * r as f64 + 1e-9));
                }
                row.push((3, if r == 5 { 2.0e7 } else { 2.0 }));
                row.push((4, -((r % 4) as f64)));
                row
            })
            .collect();
        let sums = BlockSums::new(5, rows.len(), |r| rows[r].iter().copied());
        let mut totals = sums.totals();
        assert_eq!(
            sums.exact.to_scope,
            vec![0, 1, 4],
            "column 3 is too large for f32"
        );
        let mut counts = Counts::new(rows.len());
        let mut rng = crate::rng::Rng::new(3);
        for b in 0..BLOCK {
            let drawn = counts.resample_mut(b);
            for _ in 0..rows.len() {
                drawn[rng.below(rows.len())] += 1;
            }
        }
        counts.finish();
        sums.sum(&counts, &mut totals);
        let mut dense = vec![0.0; 5];
        for b in 0..BLOCK {
            sums.resample(&totals, b, &mut dense);
            let mut plain = [0.0f64; 5];
            for (r, row) in rows.iter().enumerate() {
                for &(k, v) in row {
                    plain[k] += v * f64::from(counts.drawn[r][b]);
                }
            }
            for k in 0..5 {
                assert_eq!(
                    dense[k].to_bits(),
                    plain[k].to_bits(),
                    "resample {b} column {k}"
                );
            }
        }
    }
}
