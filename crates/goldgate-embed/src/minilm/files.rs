//! The files of a sentence-transformers model directory: which must be there, the settings
//! read from them (the BERT configuration, the sequence length, lower-casing, the pooling
//! and normalisation modules), and the fingerprint of everything that decides the vectors.
//! Reading them is cheap (a few small JSON files and one pass of SHA-256 over the weights);
//! the weights and the tokenizer are loaded later, by [`super::model`] and
//! [`super::tokenize`].

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::config::Config;
use goldgate_core::error::{Error, Location, Problem, Result};

/// The files every model needs.
pub const REQUIRED: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];
/// The sentence-transformers files read when present (the pooling configuration's folder
/// is the one `modules.json` names; `1_Pooling` by default).
pub const SENTENCE_BERT_CONFIG: &str = "sentence_bert_config.json";
pub const MODULES: &str = "modules.json";
pub const DEFAULT_POOLING_DIR: &str = "1_Pooling";

/// Bumped when the way goldgate turns these files into vectors changes, so vectors cached
/// under the old fingerprint are not reused.
const PIPELINE_VERSION: &str = "goldgate-minilm-1";

/// A model directory, checked and fingerprinted.
#[derive(Clone, Debug)]
pub struct ModelFiles {
    pub dir: PathBuf,
    /// The BERT configuration (`config.json`).
    pub config: Config,
    /// Tokens per text, `[CLS]` and `[SEP]` included: `max_seq_length` of
    /// `sentence_bert_config.json`, or the model's `max_position_embeddings` without it.
    pub max_seq_length: usize,
    /// `do_lower_case` of `sentence_bert_config.json`: sentence-transformers lower-cases
    /// the text itself before the tokenizer (which may lower-case again).
    pub lower_case: bool,
    /// Whether `modules.json` ends with a `Normalize` module (without `modules.json`,
    /// vectors are normalised: cosines do not depend on it).
    pub normalize: bool,
    /// SHA-256 (hex) over the files that decide the vectors.
    pub fingerprint: String,
}

impl ModelFiles {
    /// Check `dir` holds a model goldgate can run, read its settings and fingerprint it.
    pub fn read(dir: &Path) -> Result<ModelFiles> {
        match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(problem(
                    dir,
                    None,
                    "is not a directory",
                    "`[matching] model` is a model directory (with config.json, tokenizer.json and model.safetensors) or a Hugging Face model id",
                ))
            }
            Err(e) => {
                return Err(problem(
                    dir,
                    None,
                    format!("cannot read the model directory: {e}"),
                    fetch_hint(),
                ))
            }
        }
        for name in REQUIRED {
            let path = dir.join(name);
            if !path.is_file() {
                return Err(problem(
                    &path,
                    None,
                    format!("the model directory has no {name}"),
                    format!(
                        "a model directory holds {}; {}",
                        REQUIRED.join(", "),
                        fetch_hint()
                    ),
                ));
            }
        }
        let config_path = dir.join("config.json");
        let config: Config = read_json(&config_path)?;
        check_config(&config_path, &config)?;
        let st = SentenceBertConfig::read(dir)?;
        let modules = Modules::read(dir)?;
        let pooling = dir.join(&modules.pooling_dir).join("config.json");
        check_pooling(&pooling, &config)?;
        let max_seq_length = st.max_seq_length.unwrap_or(config.max_position_embeddings);
        if max_seq_length < 2 || max_seq_length > config.max_position_embeddings {
            return Err(problem(
                &dir.join(SENTENCE_BERT_CONFIG),
                Some("max_seq_length"),
                format!(
                    "max_seq_length is {max_seq_length}, outside 2..={} (the model's max_position_embeddings)",
                    config.max_position_embeddings
                ),
                "the model cannot read longer texts than its position embeddings allow: fix the value or fetch the model again",
            ));
        }
        let mut files: Vec<PathBuf> = REQUIRED.iter().map(|name| dir.join(name)).collect();
        files.push(dir.join(SENTENCE_BERT_CONFIG));
        files.push(dir.join(MODULES));
        files.push(pooling);
        let fingerprint = fingerprint(dir, &files)?;
        Ok(ModelFiles {
            dir: dir.to_path_buf(),
            config,
            max_seq_length,
            lower_case: st.do_lower_case,
            normalize: modules.normalize,
            fingerprint,
        })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// What to do about a missing or damaged model.
pub fn fetch_hint() -> &'static str {
    "fetch the model again: `scripts/fetch-minilm.sh DIR` installs it into DIR (then set `[matching] model = \"DIR\"`), or delete it from the Hugging Face cache so goldgate downloads it again"
}

/// An invalid-model error at `path` (and `field`).
pub fn problem(
    path: &Path,
    field: Option<&str>,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> Error {
    Error::invalid(
        "model",
        Problem::new(Location::file(path), field.map(str::to_string), message).with_hint(hint),
    )
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| problem(path, None, format!("cannot read it: {e}"), fetch_hint()))
}

/// Read a JSON file of the model into `T`, a syntax or shape error at its line and column.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = read_bytes(path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let at = Location::new(path, e.line(), e.column());
        Error::invalid(
            "model",
            Problem::new(at, None, format!("not a valid model file: {e}")).with_hint(fetch_hint()),
        )
    })
}

fn check_config(path: &Path, config: &Config) -> Result<()> {
    let positive = [
        ("vocab_size", config.vocab_size),
        ("hidden_size", config.hidden_size),
        ("num_hidden_layers", config.num_hidden_layers),
        ("num_attention_heads", config.num_attention_heads),
        ("intermediate_size", config.intermediate_size),
        ("max_position_embeddings", config.max_position_embeddings),
        ("type_vocab_size", config.type_vocab_size),
    ];
    for (field, value) in positive {
        if value == 0 {
            return Err(problem(
                path,
                Some(field),
                format!("{field} is 0"),
                fetch_hint(),
            ));
        }
    }
    if !config
        .hidden_size
        .is_multiple_of(config.num_attention_heads)
    {
        return Err(problem(
            path,
            Some("num_attention_heads"),
            format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                config.hidden_size, config.num_attention_heads
            ),
            fetch_hint(),
        ));
    }
    if let Some(kind) = config
        .position_embedding_type
        .as_deref()
        .filter(|kind| *kind != "absolute")
    {
        return Err(problem(
            path,
            Some("position_embedding_type"),
            format!("the model's position embeddings are `{kind}`; goldgate computes `absolute` ones (BERT's)"),
            "use a sentence-transformers BERT model such as all-MiniLM-L6-v2, or `similarity = \"openai\"`",
        ));
    }
    if let Some(kind) = &config.model_type {
        if kind != "bert" {
            return Err(problem(
                path,
                Some("model_type"),
                format!("the model is a `{kind}`; goldgate runs BERT models (`model_type: bert`) such as all-MiniLM-L6-v2"),
                "use a sentence-transformers BERT model, or `similarity = \"openai\"` for other models",
            ));
        }
    }
    Ok(())
}

/// `sentence_bert_config.json`.
#[derive(Default, Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
    #[serde(default)]
    do_lower_case: bool,
}

impl SentenceBertConfig {
    fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(SENTENCE_BERT_CONFIG);
        if !path.exists() {
            return Ok(SentenceBertConfig::default());
        }
        read_json(&path)
    }
}

/// What `modules.json` says: where the pooling configuration is, and whether vectors are
/// normalised.
struct Modules {
    pooling_dir: String,
    normalize: bool,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

impl Modules {
    fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MODULES);
        if !path.exists() {
            return Ok(Modules {
                pooling_dir: DEFAULT_POOLING_DIR.into(),
                normalize: true,
            });
        }
        let modules: Vec<Module> = read_json(&path)?;
        let kinds: Vec<&str> = modules
            .iter()
            .map(|m| m.kind.rsplit('.').next().unwrap_or(""))
            .collect();
        let supported = matches!(
            kinds.as_slice(),
            ["Transformer", "Pooling"] | ["Transformer", "Pooling", "Normalize"]
        );
        if !supported {
            return Err(problem(
                &path,
                None,
                format!(
                    "the model's modules are {}; goldgate runs Transformer → Pooling (→ Normalize)",
                    kinds.join(" → ")
                ),
                "use a sentence-transformers model without extra modules (such as all-MiniLM-L6-v2), or `similarity = \"openai\"`",
            ));
        }
        let pooling_dir = &modules[1].path;
        if pooling_dir.is_empty()
            || Path::new(pooling_dir)
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(problem(
                &path,
                Some("[1].path"),
                format!("the pooling module's path `{pooling_dir}` is not a folder of the model directory"),
                fetch_hint(),
            ));
        }
        Ok(Modules {
            pooling_dir: pooling_dir.clone(),
            normalize: kinds.len() == 3,
        })
    }
}

/// Refuse every pooling but attention-masked mean pooling (what all-MiniLM-L6-v2 uses).
fn check_pooling(path: &Path, config: &Config) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let pooling: serde_json::Map<String, serde_json::Value> = read_json(path)?;
    let on = |key: &str| pooling.get(key).and_then(|v| v.as_bool()).unwrap_or(false);
    let others: Vec<&str> = pooling
        .iter()
        .filter(|(k, v)| {
            k.starts_with("pooling_mode_")
                && *k != "pooling_mode_mean_tokens"
                && v.as_bool() == Some(true)
        })
        .map(|(k, _)| k.as_str())
        .collect();
    let mode = pooling.get("pooling_mode").and_then(|v| v.as_str());
    if !on("pooling_mode_mean_tokens") || !others.is_empty() || mode.is_some_and(|m| m != "mean") {
        let what = match (mode, others.first()) {
            (Some(m), _) if m != "mean" => format!("`pooling_mode: {m}`"),
            (_, Some(other)) => format!("`{other}`"),
            _ => "no `pooling_mode_mean_tokens`".into(),
        };
        return Err(problem(
            path,
            None,
            format!("the model pools with {what}; goldgate computes mean pooling only"),
            "use a sentence-transformers model with mean pooling (such as all-MiniLM-L6-v2)",
        ));
    }
    if let Some(dim) = pooling
        .get("word_embedding_dimension")
        .and_then(|v| v.as_u64())
    {
        if dim != config.hidden_size as u64 {
            return Err(problem(
                path,
                Some("word_embedding_dimension"),
                format!(
                    "word_embedding_dimension is {dim} but config.json's hidden_size is {}: the files come from different models",
                    config.hidden_size
                ),
                fetch_hint(),
            ));
        }
    }
    Ok(())
}

/// SHA-256 over each file's name (relative to `dir`), length and bytes, in order; a file
/// that is not there counts as absent.
fn fingerprint(dir: &Path, files: &[PathBuf]) -> Result<String> {
    let mut all = Sha256::new();
    all.update(PIPELINE_VERSION.as_bytes());
    let mut buf = vec![0u8; 1 << 20];
    for path in files {
        let name = path.strip_prefix(dir).unwrap_or(path).to_string_lossy();
        all.update([0u8]);
        all.update(name.as_bytes());
        let mut file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                all.update(b"\0absent");
                continue;
            }
            Err(e) => {
                return Err(problem(
                    path,
                    None,
                    format!("cannot read it: {e}"),
                    fetch_hint(),
                ))
            }
        };
        let mut one = Sha256::new();
        let mut len = 0u64;
        loop {
            let n = file
                .read(&mut buf)
                .map_err(|e| problem(path, None, format!("cannot read it: {e}"), fetch_hint()))?;
            if n == 0 {
                break;
            }
            one.update(&buf[..n]);
            len += n as u64;
        }
        all.update(b"\0present");
        all.update(len.to_le_bytes());
        all.update(one.finalize());
    }
    Ok(goldgate_core::text::hex(&all.finalize()))
}
