//! The `minilm` backend's forward passes. With the real all-MiniLM-L6-v2 (its directory
//! in `GOLDGATE_MINILM_DIR`): agreement with sentence-transformers on the fixture of
//! tests/fixtures/minilm (every vector, and the cosine of every pair of texts, within 1e-4)
//! for each forward pass: the AVX2 one on every x86-64 CPU (a CPU without AVX2 fails it),
//! the AVX-512 one where the CPU has AVX-512F (elsewhere it checks that asking for it is
//! refused and says it does not apply, and fails if `GOLDGATE_REQUIRE_AVX512` is set), and
//! the one chosen by default, which must be the fastest the CPU has. Without the model
//! those say why they are skipped and pass, unless `GOLDGATE_REQUIRE_MINILM` is set (CI sets
//! both). Everywhere: every forward pass this CPU runs, on tiny models
//! (tests/support/tiny_bert.rs), against BERT's definition computed in `f64`
//! (tests/support/reference_bert.rs).

use std::path::Path;

use goldgate_core::embed::Embedder;
use goldgate_embed::minilm::{MiniLm, Simd};

use crate::minilm::{cosine, message, open, real_model_dir};
use crate::support::reference_bert::Reference;
use crate::support::tiny_bert::{self, Variant};
use crate::support::TempDir;

/// The fixture: its texts and sentence-transformers' vectors of them.
pub(crate) fn fixture() -> (Vec<String>, Vec<Vec<f32>>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm");
    let texts: Vec<String> = std::fs::read_to_string(dir.join("texts.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let bytes = std::fs::read(dir.join("embeddings.f32")).unwrap();
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(floats.len() % texts.len(), 0);
    let dim = floats.len() / texts.len();
    let vectors = floats.chunks(dim).map(|c| c.to_vec()).collect();
    (texts, vectors)
}

/// The real model on the forward pass `simd`, which must run here: it embeds the fixture
/// as sentence-transformers does, every component and every cosine within 1e-4.
fn agrees_with_sentence_transformers(dir: &str, simd: Simd) {
    let model = MiniLm::open(dir)
        .unwrap_or_else(|e| panic!("GOLDGATE_MINILM_DIR does not hold a usable model: {e}"))
        .with_simd(simd)
        .unwrap_or_else(|e| panic!("the {simd} forward pass cannot run on this CPU: {e}"));
    assert_eq!(
        model.loaded_simd().unwrap(),
        simd,
        "the forward pass that ran"
    );
    let (texts, reference) = fixture();
    assert!(texts.len() >= 500, "the fixture has {} texts", texts.len());
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let ours = model.embed(&refs).unwrap();
    assert_eq!(ours.len(), texts.len());
    let mut worst_vector = (0f64, 0);
    for (i, (a, b)) in ours.iter().zip(&reference).enumerate() {
        assert_eq!(a.len(), b.len(), "dimension of text {i}");
        let error = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() as f64)
            .fold(0f64, f64::max);
        if error > worst_vector.0 {
            worst_vector = (error, i);
        }
    }
    let mut worst_pair = (0f64, 0, 0);
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            let error = (cosine(&ours[i], &ours[j]) - cosine(&reference[i], &reference[j])).abs();
            if error > worst_pair.0 {
                worst_pair = (error, i, j);
            }
        }
    }
    eprintln!(
        "{simd}: {} texts: largest component error {:.2e} (text {}), largest cosine error {:.2e} (texts {} and {})",
        texts.len(),
        worst_vector.0,
        worst_vector.1,
        worst_pair.0,
        worst_pair.1,
        worst_pair.2
    );
    assert!(
        worst_vector.0 <= 1e-4,
        "text {} {:?}: a component differs by {}",
        worst_vector.1,
        texts[worst_vector.1],
        worst_vector.0
    );
    assert!(
        worst_pair.0 <= 1e-4,
        "texts {:?} and {:?}: the cosine differs by {}",
        texts[worst_pair.1],
        texts[worst_pair.2],
        worst_pair.0
    );
}

/// Every x86-64 CPU CI runs on has AVX2 and FMA: this path is checked there for sure.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx2_forward_pass_agrees_with_sentence_transformers() {
    let Some(dir) = real_model_dir("the_avx2_forward_pass_agrees_with_sentence_transformers")
    else {
        return;
    };
    agrees_with_sentence_transformers(&dir, Simd::Avx2);
}

/// Required where the CPU has AVX-512F; elsewhere not applicable, which it says after
/// checking that the forward pass is refused (and fails if `GOLDGATE_REQUIRE_AVX512` is set).
#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx512_forward_pass_agrees_with_sentence_transformers() {
    let test = "the_avx512_forward_pass_agrees_with_sentence_transformers";
    let Some(dir) = real_model_dir(test) else {
        return;
    };
    if std::arch::is_x86_feature_detected!("avx512f") {
        agrees_with_sentence_transformers(&dir, Simd::Avx512);
        return;
    }
    assert!(
        std::env::var_os("GOLDGATE_REQUIRE_AVX512").is_none(),
        "GOLDGATE_REQUIRE_AVX512 is set but this CPU has no AVX-512F"
    );
    let refused = MiniLm::open(&dir).unwrap().with_simd(Simd::Avx512).err();
    let text = message(refused.expect("asking for AVX-512 on a CPU without it is an error"));
    assert!(
        text.contains("avx512") && text.contains("AVX-512F"),
        "{text}"
    );
    eprintln!(
        "{test}: not applicable, this CPU has no AVX-512F (asking for it is refused: checked)"
    );
}

/// The forward pass chosen by default is the fastest this CPU has, and agrees too.
#[test]
fn the_default_forward_pass_is_the_fastest_and_agrees_with_sentence_transformers() {
    let Some(dir) = real_model_dir(
        "the_default_forward_pass_is_the_fastest_and_agrees_with_sentence_transformers",
    ) else {
        return;
    };
    let chosen = MiniLm::open(&dir).unwrap().simd();
    #[cfg(target_arch = "x86_64")]
    let fastest = if std::arch::is_x86_feature_detected!("avx512f") {
        Simd::Avx512
    } else {
        assert!(
            std::arch::is_x86_feature_detected!("avx2"),
            "an x86-64 CPU without AVX2"
        );
        Simd::Avx2
    };
    #[cfg(target_arch = "aarch64")]
    let fastest = Simd::Neon;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let fastest = Simd::Scalar;
    assert_eq!(chosen, fastest);
    // On x86-64 the tests above checked this very pass; elsewhere, this is its check.
    if !cfg!(target_arch = "x86_64") {
        agrees_with_sentence_transformers(&dir, chosen);
    }
}

/// Each forward pass this CPU runs, on tiny models of whole vectors and not (heads of 6),
/// with each activation, gives what BERT's definition gives, in `f64`. On x86-64 the AVX2
/// pass must be among them.
#[test]
fn every_forward_pass_agrees_with_the_definition() {
    let simds: Vec<Simd> = Simd::ALL.into_iter().filter(|s| s.is_available()).collect();
    assert!(simds.contains(&Simd::Scalar) && simds.contains(&Simd::detect()));
    #[cfg(target_arch = "x86_64")]
    assert!(
        simds.contains(&Simd::Avx2),
        "an x86-64 CPU without AVX2 and FMA"
    );
    let texts: Vec<String> = (0..40)
        .map(|i| {
            "lock the account after five failed login attempts ".repeat(i % 7)
                + &format!("order {i}")
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    for variant in [
        Variant::DEFAULT,
        Variant {
            hidden: 12,
            heads: 2,
            act: "gelu",
        },
        Variant {
            act: "gelu_new",
            ..Variant::DEFAULT
        },
        Variant {
            act: "relu",
            ..Variant::DEFAULT
        },
    ] {
        let temp = TempDir::new("minilm-forward");
        let dir = temp.0.join("model");
        tiny_bert::write_variant(&dir, variant);
        let reference = Reference::new(variant);
        for &simd in &simds {
            let model = open(&dir).unwrap().with_simd(simd).unwrap();
            let vectors = model.embed(&texts).unwrap();
            assert_eq!(model.loaded_simd().unwrap(), simd);
            for (text, vector) in texts.iter().zip(&vectors) {
                let want = reference.embed(&model.token_ids(text).unwrap());
                let error = vector
                    .iter()
                    .zip(&want)
                    .map(|(a, b)| (*a as f64 - b).abs())
                    .fold(0f64, f64::max);
                assert!(error < 1e-5, "{variant:?} on {simd}, {text:?}: {error:e}");
            }
        }
    }
}
