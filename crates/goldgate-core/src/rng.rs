//! A small, seeded random number generator (SplitMix64) and a stable string hash for
//! deriving seeds: the bootstrap's resamples, the retry jitter and the sequential gate's
//! sending order. Its output must not change
//! with a dependency update (reports are reproducible), hence no external crate.

/// SplitMix64: small, fast, and stable across versions (reports must not change with a
/// dependency update).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(MIX1);
        z = (z ^ (z >> 27)).wrapping_mul(MIX2);
        z ^ (z >> 31)
    }

    /// Move `draws` values along the stream, as that many calls of [`Rng::next_u64`] would
    /// (the n-th value depends on n alone).
    pub fn skip(&mut self, draws: u64) {
        self.0 = self.0.wrapping_add(GAMMA.wrapping_mul(draws));
    }

    /// Uniform in 0..n (multiply-shift).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Put `items` in a uniformly random order (Fisher–Yates, from the end).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// Draw `draws` values in `0..counts.len()` and count each in `counts`: exactly
    /// `for _ in 0..draws { counts[self.below(counts.len())] += 1 }`, eight draws at a time
    /// where the CPU has AVX-512 (SplitMix64's n-th value depends on n alone).
    pub fn count_draws(&mut self, draws: usize, counts: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        if u32::try_from(counts.len()).is_ok()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            // SAFETY: the CPU has AVX-512F and AVX-512DQ (checked just above).
            unsafe { self.count_draws_avx512(draws, counts) };
            return;
        }
        self.count_draws_portable(draws, counts);
    }

    fn count_draws_portable(&mut self, draws: usize, counts: &mut [u32]) {
        let n = counts.len();
        for _ in 0..draws {
            counts[self.below(n)] += 1;
        }
    }

    /// [`Rng::count_draws`] for fewer than 2^32 counts: eight states at once, the mixing as
    /// in [`Rng::next_u64`], and the high half of `z · n` from two 32-bit products
    /// (`z · n = hi · n · 2^32 + lo · n`, so its high half is `(hi · n + (lo · n >> 32)) >> 32`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn count_draws_avx512(&mut self, draws: usize, counts: &mut [u32]) {
        use std::arch::x86_64::*;
        let n = counts.len() as u64;
        let lane = |k: u64| GAMMA.wrapping_mul(k) as i64;
        let mut states = _mm512_add_epi64(
            _mm512_set1_epi64(self.0 as i64),
            _mm512_setr_epi64(
                lane(1),
                lane(2),
                lane(3),
                lane(4),
                lane(5),
                lane(6),
                lane(7),
                lane(8),
            ),
        );
        let step = _mm512_set1_epi64(lane(8));
        let (mix1, mix2) = (
            _mm512_set1_epi64(MIX1 as i64),
            _mm512_set1_epi64(MIX2 as i64),
        );
        let nv = _mm512_set1_epi64(n as i64);
        let chunks = draws / 8;
        let mut drawn = [0u64; 8];
        for _ in 0..chunks {
            let mut z = states;
            states = _mm512_add_epi64(states, step);
            z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<30>(z)), mix1);
            z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<27>(z)), mix2);
            z = _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z));
            let low = _mm512_srli_epi64::<32>(_mm512_mul_epu32(z, nv));
            let high = _mm512_mul_epu32(_mm512_srli_epi64::<32>(z), nv);
            let at = _mm512_srli_epi64::<32>(_mm512_add_epi64(high, low));
            // SAFETY: `drawn` is 64 bytes, one unaligned vector.
            unsafe { _mm512_storeu_si512(drawn.as_mut_ptr().cast(), at) };
            for &i in &drawn {
                counts[i as usize] += 1;
            }
        }
        self.0 = self.0.wrapping_add(GAMMA.wrapping_mul(8 * chunks as u64));
        self.count_draws_portable(draws - 8 * chunks, counts);
    }
}

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
const MIX1: u64 = 0xBF58_476D_1CE4_E5B9;
const MIX2: u64 = 0x94D0_49BB_1331_11EB;

/// FNV-1a of a scope label, to derive per-scope seeds.
pub fn label_hash(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A seed for `message` under a secret `key`: the first 8 bytes of HMAC-SHA-256 (RFC 2104).
/// Unlike [`label_hash`], which can be run backwards, neither the key nor the seed of
/// another message can be worked out from seeds and messages seen, so an order seeded this
/// way is unknown to whoever does not hold the key.
pub fn keyed_seed(key: &str, message: &str) -> u64 {
    use sha2::{Digest, Sha256};
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key.as_bytes()));
    } else {
        block[..key.len()].copy_from_slice(key.as_bytes());
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message.as_bytes())
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    u64::from_be_bytes(outer[..8].try_into().expect("32 bytes"))
}

/// `bytes` random bytes from the operating system, as lower-case hex: an access token no
/// one can guess (`/dev/urandom`; elsewhere the OS-seeded keys of the standard library's
/// hasher, which come from the same source).
pub fn secret_hex(bytes: usize) -> String {
    use std::io::Read;
    let mut buf = vec![0u8; bytes];
    let from_os = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf));
    if from_os.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in buf.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    /// HMAC-SHA-256 as RFC 4231 gives it (test case 2) and as Python's `hmac` computes it
    /// for a key longer than a block.
    #[test]
    fn a_keyed_seed_is_hmac_sha256() {
        assert_eq!(
            super::keyed_seed("Jefe", "what do ya want for nothing?"),
            0x5bdc_c146_bf60_754e
        );
        assert_eq!(
            super::keyed_seed(&"k".repeat(100), "fp"),
            0x7408_1ede_aa72_9c25
        );
        assert_ne!(super::keyed_seed("a", "fp"), super::keyed_seed("b", "fp"));
    }

    use super::*;

    /// Counting draws in bulk gives the counts, and leaves the state, that drawing one at
    /// a time gives, for any number of draws and of counts.
    #[test]
    fn bulk_draws_are_the_single_draws() {
        for (seed, rows, draws) in [
            (1, 1, 1),
            (2, 7, 7),
            (3, 10_000, 10_000),
            (4, 13, 1000),
            (5, 3, 8),
            (6, 100, 9),
        ] {
            let (mut bulk, mut single) = (Rng::new(seed), Rng::new(seed));
            let (mut a, mut b) = (vec![0u32; rows], vec![0u32; rows]);
            bulk.count_draws(draws, &mut a);
            for _ in 0..draws {
                b[single.below(rows)] += 1;
            }
            assert_eq!(a, b, "seed {seed}, {rows} rows, {draws} draws");
            assert_eq!(bulk.next_u64(), single.next_u64());
        }
    }

    #[test]
    fn skipping_is_drawing() {
        let (mut skipped, mut drawn) = (Rng::new(9), Rng::new(9));
        skipped.skip(1234);
        (0..1234).for_each(|_| {
            drawn.next_u64();
        });
        assert_eq!(skipped.next_u64(), drawn.next_u64());
    }
}
