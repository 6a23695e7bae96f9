//! Cosines of text pairs under a configured similarity, for `goldgate similarity`: the
//! texts are prepared (or embedded, from the cache when it can) once each, then compared
//! exactly as matching compares them.

use std::sync::Arc;

use super::{cache, Embedder};
use crate::cachedir::CacheDir;
use crate::error::Result;
use crate::metrics::texts::Similarity;

/// The cosine of each pair, in order: lexical without an embedder, else with its vectors.
pub fn cosines(
    embedder: Option<&dyn Embedder>,
    cache_dir: Option<&CacheDir>,
    pairs: &[(String, String)],
) -> Result<(Vec<f64>, Option<cache::Stats>)> {
    let (similarity, stats) = match embedder {
        None => (Similarity::Lexical, None),
        Some(embedder) => {
            let texts = pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]);
            let (vectors, stats) = cache::vectors(embedder, cache_dir, texts)?;
            (Similarity::Embedded(Arc::new(vectors)), Some(stats))
        }
    };
    let cosines = pairs
        .iter()
        .map(|(a, b)| similarity.cosine(&similarity.text(&[a]), &similarity.text(&[b])))
        .collect();
    Ok((cosines, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_pairs_are_trigram_cosines_and_empty_text_matches_nothing() {
        let pairs = vec![
            ("Track orders".to_string(), "track   ORDERS!".to_string()),
            (String::new(), String::new()),
        ];
        let (c, stats) = cosines(None, None, &pairs).unwrap();
        assert!((c[0] - 1.0).abs() < 1e-12);
        assert_eq!(c[1], 0.0);
        assert!(stats.is_none());
    }
}
