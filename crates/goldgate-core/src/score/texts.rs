//! Embedding before scoring: with an embedding backend, every text the kinds compare (gold
//! and answers, as [`crate::kinds::TaskKind::texts`] lists them) is embedded — from the
//! cache when it can be — before the first sample is scored, so scoring itself stays a
//! plain function over data. A document or answer that does not read is skipped here:
//! scoring reports it.

use rayon::prelude::*;

use super::ScoreRequest;
use crate::cachedir::CacheDir;
use crate::embed::{cache, Embedder};
use crate::error::Result;
use crate::kinds;
use crate::metrics::texts::Similarity;
use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::runfile::reader::{AnswerReader, RunIndex};
use crate::suite::RawDocument;

/// An embedding backend to score with, and where its vectors are cached.
#[derive(Clone, Copy)]
pub struct Embedding<'a> {
    pub embedder: &'a dyn Embedder,
    /// The goldgate cache directory (`None`: keep no vectors on disk).
    pub cache_dir: Option<&'a CacheDir>,
}

impl<'a> Embedding<'a> {
    /// Scoring with `embedder` (`None`: lexical), its vectors cached under `cache_dir`.
    pub fn of(embedder: Option<&'a dyn Embedder>, cache_dir: &'a CacheDir) -> Option<Self> {
        embedder.map(|embedder| Embedding {
            embedder,
            cache_dir: Some(cache_dir),
        })
    }
}

/// The similarity to score with: lexical without an embedding backend, else the vectors of
/// every text the suite's kinds compare, with what the cache did.
pub(super) fn similarity(
    req: &ScoreRequest<'_>,
    index: &RunIndex,
    answers: &AnswerReader,
) -> Result<(Similarity, Option<cache::Stats>)> {
    let Some(embedding) = req.embedding else {
        return Ok((Similarity::Lexical, None));
    };
    let mut texts: Vec<String> = Vec::new();
    let mut documents = req.suite.documents();
    loop {
        let round: Vec<RawDocument> = documents.by_ref().take(super::ROUND).collect();
        if round.is_empty() {
            break;
        }
        let found: Vec<Vec<String>> = round
            .into_par_iter()
            .map(|document| sample_texts(document, index, answers))
            .collect();
        texts.extend(found.into_iter().flatten());
    }
    let (vectors, stats) = cache::vectors(embedding.embedder, embedding.cache_dir, texts)?;
    Ok((
        Similarity::Embedded(std::sync::Arc::new(vectors)),
        Some(stats),
    ))
}

/// The texts one document's sample and its answers compare.
fn sample_texts(document: RawDocument, index: &RunIndex, answers: &AnswerReader) -> Vec<String> {
    let Some(sample) = document.load().sample else {
        return Vec::new();
    };
    let texts: Vec<String> = index
        .entries(&sample.id)
        .unwrap_or_default()
        .iter()
        .filter_map(|entry| answers.read(entry).ok())
        .map(|answer| answer.text)
        .collect();
    let parsed: Vec<_> = texts.iter().map(|t| parse_answer_as::<Json>(t)).collect();
    let values: Vec<Option<&Json<'_>>> = parsed.iter().map(|p| p.value.as_ref()).collect();
    let mut out = Vec::new();
    kinds::of(sample.kind).texts(&sample, &values, &mut out);
    out
}
