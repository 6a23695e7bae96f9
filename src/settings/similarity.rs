//! The similarity backend `[matching]` of `thresholds.toml` selects, with every default it
//! takes and the environment it reads: a `minilm` model directory is relative to the rules
//! file, else a Hugging Face model id; `openai` takes `OPENAI_BASE_URL` and the key variable.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli;
use goldgate_core::error::Error;
use goldgate_core::gate::thresholds::{RulesSource, Thresholds};
use goldgate_embed::{openai, Backend, DEFAULT_MINILM_MODEL};

/// `goldgate similarity`: what to compare, and under which similarity and thresholds.
#[derive(Clone, Debug)]
pub struct SimilaritySettings {
    pub backend: Backend,
    /// The requirement and acceptance-criterion match thresholds.
    pub requirement_threshold: f64,
    pub ac_threshold: f64,
    /// Where the rules came from.
    pub rules: RulesSource,
    pub cache_dir: PathBuf,
    pub input: PairsInput,
}

/// Two texts from the command line, or a file of pairs.
#[derive(Clone, Debug)]
pub enum PairsInput {
    Two(String, String),
    File {
        pairs: PathBuf,
        output: Option<PathBuf>,
        /// The longest line read.
        max_line_bytes: u64,
    },
}

impl TryFrom<cli::SimilarityArgs> for SimilaritySettings {
    type Error = Error;

    /// `--thresholds`, else ./thresholds.toml when it exists, else the built-in (lexical)
    /// matching.
    fn try_from(a: cli::SimilarityArgs) -> Result<Self, Error> {
        let thresholds = super::rules(super::rules_file(a.thresholds.as_deref(), None).as_deref())?;
        let scoring = thresholds.scoring();
        let input = match (a.pairs, a.a, a.b) {
            (Some(pairs), _, _) => PairsInput::File {
                pairs,
                output: a.output,
                max_line_bytes: super::defaults::MAX_PAIR_LINE_BYTES,
            },
            (None, Some(x), Some(y)) => PairsInput::Two(x, y),
            _ => {
                return Err(Error::usage(
                    "two texts to compare, or --pairs FILE",
                    "goldgate similarity \"first text\" \"second text\"",
                ))
            }
        };
        Ok(SimilaritySettings {
            backend: backend(&thresholds),
            requirement_threshold: scoring.requirement_threshold,
            ac_threshold: scoring.ac_threshold,
            rules: thresholds.source.clone(),
            cache_dir: a
                .cache_dir
                .unwrap_or_else(|| super::defaults::CACHE_DIR.into()),
            input,
        })
    }
}

/// The API root of the `openai` similarity without `embedding_base_url` or `OPENAI_BASE_URL`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The key variable of the `openai` similarity without `embedding_api_key_env`.
pub const OPENAI_API_KEY_ENV: &str = "OPENAI_API_KEY";
/// The embedding model of the `openai` similarity without `embedding_model`.
pub const OPENAI_EMBEDDING_MODEL: &str = "text-embedding-3-small";
/// Texts per `/embeddings` request without `embedding_batch_size`.
pub const OPENAI_BATCH_SIZE: usize = 256;

/// The backend the rules ask for (they were checked when loaded).
pub fn backend(t: &Thresholds) -> Backend {
    let matching = t.matching.as_ref().map(|m| m.get_ref());
    let text = |v: Option<&toml::Spanned<String>>| v.map(|v| v.get_ref().trim().to_string());
    match t.similarity() {
        "minilm" => {
            let model = text(matching.and_then(|m| m.model.as_ref()));
            Backend::Minilm {
                model: model.map_or_else(
                    || DEFAULT_MINILM_MODEL.to_string(),
                    |m| model_location(&m, &t.source),
                ),
            }
        }
        "openai" => {
            let m = matching.cloned().unwrap_or_default();
            let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
            Backend::OpenAi(openai::Settings {
                base_url: text(m.embedding_base_url.as_ref())
                    .or_else(|| env("OPENAI_BASE_URL"))
                    .unwrap_or_else(|| OPENAI_BASE_URL.to_string()),
                api_key_env: text(m.embedding_api_key_env.as_ref())
                    .unwrap_or_else(|| OPENAI_API_KEY_ENV.to_string()),
                model: text(m.embedding_model.as_ref())
                    .unwrap_or_else(|| OPENAI_EMBEDDING_MODEL.to_string()),
                batch_size: m
                    .embedding_batch_size
                    .map_or(OPENAI_BATCH_SIZE, |b| *b.get_ref() as usize),
                requests_per_minute: m.embedding_requests_per_minute.map(|r| *r.get_ref()),
                timeout: Duration::from_secs(60),
                retries: 5,
                backoff: super::retry_backoff(),
            })
        }
        _ => Backend::Lexical,
    }
}

/// A model directory written relative to the rules file, made usable from anywhere; a
/// value naming no directory there is a Hugging Face model id, kept as written.
fn model_location(model: &str, source: &RulesSource) -> String {
    let written = Path::new(model);
    let base = match source {
        RulesSource::File(path) => path.parent().unwrap_or(Path::new("")),
        RulesSource::BuiltIn => Path::new(""),
    };
    let relative = base.join(written);
    let looks_like_path = model.starts_with(['.', '/', '~']) || written.is_absolute();
    if written.is_absolute() {
        model.to_string()
    } else if relative.is_dir() || looks_like_path {
        relative.display().to_string()
    } else {
        model.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_directory_is_relative_to_the_rules_file_and_an_id_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("model")).unwrap();
        let source = RulesSource::File(dir.path().join("thresholds.toml"));
        assert_eq!(
            model_location("model", &source),
            dir.path().join("model").display().to_string()
        );
        assert_eq!(
            model_location("./missing", &source),
            dir.path().join("./missing").display().to_string()
        );
        assert_eq!(
            model_location("sentence-transformers/all-MiniLM-L6-v2", &source),
            "sentence-transformers/all-MiniLM-L6-v2"
        );
    }
}
