//! Scoring samples as their answers come in, a batch at a time (the sequential gate decides
//! on them before the run is over): each sample with every record of it, scored exactly as
//! [`super::score`] scores it, its texts embedded first when the similarity is an
//! embedding's.

use std::sync::Arc;

use rayon::prelude::*;

use super::{score_sample, Embedding, SampleScore};
use crate::error::Result;
use crate::kinds;
use crate::metrics::texts::Similarity;
use crate::metrics::ScoringConfig;
use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::runfile::record::Answer;
use crate::sample::Sample;

/// The scores of `samples`, each given with all its answers, in the order given.
pub fn score_batch(
    samples: &[(&Sample, &[Answer])],
    scoring: &ScoringConfig,
    embedding: Option<Embedding<'_>>,
) -> Result<Vec<SampleScore>> {
    let scoring = match embedding {
        None => scoring.clone(),
        Some(embedding) => {
            let texts: Vec<String> = samples
                .par_iter()
                .flat_map_iter(|(sample, answers)| texts(sample, answers))
                .collect();
            let (vectors, _) =
                crate::embed::cache::vectors(embedding.embedder, embedding.cache_dir, texts)?;
            ScoringConfig {
                similarity: Similarity::Embedded(Arc::new(vectors)),
                ..scoring.clone()
            }
        }
    };
    Ok(samples
        .par_iter()
        .map(|(sample, answers)| {
            let (mut keyless, mut long) = (Vec::new(), Vec::new());
            score_sample(sample, answers, &scoring, &mut keyless, &mut long).0
        })
        .collect())
}

/// The texts a sample and its answers compare.
fn texts(sample: &Sample, answers: &[Answer]) -> Vec<String> {
    let parsed: Vec<_> = answers
        .iter()
        .map(|a| parse_answer_as::<Json>(&a.text))
        .collect();
    let values: Vec<Option<&Json<'_>>> = parsed.iter().map(|p| p.value.as_ref()).collect();
    let mut out = Vec::new();
    kinds::of(sample.kind).texts(sample, &values, &mut out);
    out
}
