//! The pipeline fingerprint, computed once per run: what an answer depends on besides the
//! sample. That is the adapter's settings (command and mode, URL and header templates — never
//! an expanded secret — or the replay file), the model, and the pipeline's code: for a
//! `command` pipeline, the repository's tracked files as git stages them plus the uncommitted
//! changes to them (goldgate's own inputs and outputs left out), or only the
//! `fingerprint_files` when they are given (the repository is read by [`super::repository`]);
//! for a `chat` pipeline, its API address, model, sampling settings and prompt templates;
//! and the environment variables the pipeline is configured by ([`super::envkey`]: their
//! values hashed, their names listed). Also decides whether the answers may be cached at
//! all, and says why not.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::config::{Adapter, PipelineConfig};
use super::repository::repository;
pub use super::repository::Git;
use goldgate_core::error::{Error, Result};
use goldgate_core::runfile::record::{CacheUse, FingerprintParts};

/// A pipeline's fingerprint and its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Fingerprint {
    /// `sha256:…` of the parts: part of every cache key.
    pub value: String,
    pub parts: FingerprintParts,
    /// Why the answers cannot be keyed on the pipeline's code (a `command` pipeline outside
    /// git without fingerprint files), so must not be cached.
    pub unkeyed: Option<String>,
    /// A `chat` pipeline whose user prompt is chosen by kind: each kind's answers are keyed
    /// on its own templates, not the others' (see [`super::chat::key_fingerprints`] and
    /// [`super::cache::Cache::key_by_kind`]).
    /// Empty: every sample's answers are keyed on `value`.
    pub by_kind: std::collections::BTreeMap<String, String>,
}

/// Fingerprint the pipeline; `own_files` (the suite, rules, baseline, outputs, the cache)
/// are left out of the repository's content.
pub fn fingerprint(
    config: &PipelineConfig,
    own_files: &[PathBuf],
    git: Git<'_>,
) -> Result<Fingerprint> {
    let mut parts = FingerprintParts {
        adapter: config.adapter.kind().to_string(),
        model: config.model.clone(),
        source: "none".into(),
        ..FingerprintParts::default()
    };
    // The value hashes the parts in the form earlier versions did (adapter, settings,
    // model, fingerprint files), so their cached answers stay valid; the repository's
    // content comes last, where it counts.
    let mut value = Sha256::new();
    value.update(config.adapter.kind().as_bytes());
    let mut settings = Sha256::new();
    // A chat pipeline's per-kind keys: what every call uses, and each kind's templates.
    let mut common: Option<(Sha256, super::chat::PromptsByKind)> = None;
    match &config.adapter {
        Adapter::Command { command, mode } => {
            let text = format!("\0{command}\0{mode:?}");
            value.update(text.as_bytes());
            settings.update(text.as_bytes());
        }
        Adapter::Http { url, headers } => {
            let mut text = format!("\0{url}");
            for (name, template) in headers {
                text.push_str(&format!("\0{name}: {template}"));
            }
            value.update(text.as_bytes());
            settings.update(text.as_bytes());
        }
        Adapter::Replay { file } => {
            value.update(b"\0");
            hash_path(file, &mut [&mut value, &mut settings])?;
        }
        Adapter::Chat(chat) => {
            let mut text = chat.fingerprint_text();
            let prompts = super::chat::prompts::Prompts::load(&chat.prompts)?;
            common = prompts.fingerprints_by_kind().map(|by_kind| {
                (
                    Sha256::new_with_prefix(format!("chat-by-kind{text}")),
                    by_kind,
                )
            });
            for prompt in prompts.fingerprints() {
                text.push_str(&format!("\0prompt={prompt}"));
            }
            value.update(text.as_bytes());
            settings.update(text.as_bytes());
            let p = &chat.prompts;
            let files = p.system.iter().chain(&p.prompt);
            let files = files.chain(p.by_kind.iter().map(|(_, f)| f));
            prompt_files(files.chain(p.messages.iter().map(|(_, f)| f)), &mut parts)?;
        }
        Adapter::SrsAgents(options) => {
            let text = super::agents::settings_text(options)?;
            value.update(text.as_bytes());
            settings.update(text.as_bytes());
            let files = options.agents.iter();
            prompt_files(
                files.flat_map(|a| a.system.iter().chain(&a.prompt)),
                &mut parts,
            )?;
        }
    }
    parts.config = goldgate_core::text::sha256_of(settings);
    parts.settings = super::settings_hashes::settings(&config.adapter)
        .into_iter()
        .collect();
    if matches!(config.adapter, Adapter::Replay { .. }) {
        parts
            .settings
            .insert("the replay file".into(), parts.config.clone());
    }
    let model = format!("\0model={}", config.model.as_deref().unwrap_or(""));
    value.update(model.as_bytes());
    // (Without variables, the value is what earlier versions computed.)
    parts.env = super::envkey::names(config);
    super::envkey::hash(&parts.env, &mut value);
    if let Some((shared, _)) = common.as_mut() {
        shared.update(model.as_bytes());
        super::envkey::hash(&parts.env, shared);
    }
    let mut unkeyed = None;
    if !config.fingerprint_files.is_empty() {
        parts.source = "files".into();
        for file in &config.fingerprint_files {
            // The name, not the whole path: the same file reached from another working
            // directory (`--config sub/goldgate.toml` vs `cd sub`) is the same pipeline.
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            value.update(format!("\0{name}\0").as_bytes());
            let mut h = Sha256::new();
            let mut into: Vec<&mut Sha256> = vec![&mut value, &mut h];
            if let Some((shared, _)) = common.as_mut() {
                shared.update(format!("\0{name}\0").as_bytes());
                into.push(shared);
            }
            hash_path(file, &mut into)?;
            let key = match parts.files.contains_key(&name) {
                true => file.display().to_string(),
                false => name,
            };
            parts.files.insert(key, goldgate_core::text::sha256_of(h));
        }
    } else if matches!(config.adapter, Adapter::Command { .. }) {
        match repository(own_files, git) {
            Ok(repo) => {
                // Which own files were left out is shown, not hashed: it differs between
                // `run`, `check` and `baseline refresh`; the content decides.
                value.update(format!("\0git-index={}", repo.index).as_bytes());
                if let Some(worktree) = &repo.worktree {
                    value.update(format!("\0git-worktree={worktree}").as_bytes());
                }
                parts.source = "git".into();
                parts.git_index = Some(repo.index);
                parts.git_worktree = repo.worktree;
                parts.git_files = Some(repo.files);
                parts.git_excluded = repo.excluded;
            }
            Err(why) => unkeyed = Some(why),
        }
    }
    Ok(Fingerprint {
        value: goldgate_core::text::sha256_of(value),
        parts,
        unkeyed,
        by_kind: common.map_or_else(Default::default, |(shared, kinds)| {
            super::chat::key_fingerprints(&shared, kinds)
        }),
    })
}

/// A prompted pipeline (`chat`, `srs-agents`): its prompt templates stand for its code, and
/// each of the project's own template files is listed with the hash of its content.
fn prompt_files<'a>(
    files: impl Iterator<Item = &'a PathBuf>,
    parts: &mut FingerprintParts,
) -> Result<()> {
    parts.source = "prompts".into();
    for file in files {
        let mut h = Sha256::new();
        hash_path(file, &mut [&mut h])?;
        let hash = goldgate_core::text::sha256_of(h);
        parts.files.insert(file.display().to_string(), hash);
    }
    Ok(())
}

/// What the settings ask of the cache, before goldgate decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheWish {
    /// Reuse entries (false: `--refresh-cache`, `baseline refresh`).
    pub read: bool,
    /// `--no-cache`.
    pub off: bool,
    /// `cache = true | false` in `[pipeline]` (`--cache` is `true`).
    pub pipeline: Option<bool>,
}

/// How the run uses the cache, and why it is off when goldgate turned it off (to be said
/// once). Replay has nothing to cache; `--no-cache` and `cache = false` turn it off without
/// a word.
pub fn cache_use(
    adapter: &Adapter,
    fp: &Fingerprint,
    wish: CacheWish,
) -> (CacheUse, Option<String>) {
    let on = match wish.read {
        true => CacheUse::ReadWrite,
        false => CacheUse::WriteOnly,
    };
    match adapter {
        Adapter::Replay { .. } => (CacheUse::Off, None),
        _ if wish.off || wish.pipeline == Some(false) => (CacheUse::Off, None),
        Adapter::Http { .. } if wish.pipeline != Some(true) => (CacheUse::Off, Some(
            "http pipelines are not cached unless asked, since the service can change with no change in the repository: set cache = true under [pipeline] in goldgate.toml (or pass --cache), with cache_ttl = \"1h\" to reuse answers only that long".into(),
        )),
        _ => match &fp.unkeyed {
            // One line: said on every run outside git (README, The answer cache, says more).
            Some(why) => (CacheUse::Off, Some(format!(
                "{why} (see fingerprint_files in goldgate.toml)"
            ))),
            None => (on, None),
        },
    }
}

/// Feed a file's bytes, or those of every file below a directory in name order each after
/// its path relative to the directory (what earlier versions hashed), to every hasher.
fn hash_path(path: &Path, hashers: &mut [&mut Sha256]) -> Result<()> {
    let read_err = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    fn update(hashers: &mut [&mut Sha256], bytes: &[u8]) {
        hashers.iter_mut().for_each(|h| h.update(bytes));
    }
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(read_err)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for entry in entries {
            update(
                hashers,
                entry
                    .strip_prefix(path)
                    .unwrap_or(&entry)
                    .to_string_lossy()
                    .as_bytes(),
            );
            hash_path(&entry, hashers)?;
        }
        Ok(())
    } else {
        update(hashers, &std::fs::read(path).map_err(read_err)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Mode;

    fn command_pipeline() -> PipelineConfig {
        PipelineConfig {
            adapter: Adapter::Command {
                command: "sh pipeline.sh".into(),
                mode: Mode::Oneshot,
            },
            timeout: std::time::Duration::from_secs(1),
            max_output_bytes: 1 << 20,
            retries: 0,
            model: None,
            fingerprint_files: Vec::new(),
            fingerprint_env: Vec::new(),
            origin: Default::default(),
            workdir: None,
            env: Default::default(),
        }
    }

    use goldgate_core::testkit::git;

    #[test]
    fn fingerprint_files_cover_their_content_and_the_model_counts() {
        let dir = tempfile::tempdir().unwrap();
        let prompt = dir.path().join("prompt.txt");
        std::fs::write(&prompt, "v1").unwrap();
        let mut config = command_pipeline();
        let no_git = Git {
            dir: dir.path(),
            program: "goldgate-test-no-such-git",
        };
        let plain = fingerprint(&config, &[], no_git).unwrap();
        assert_eq!(plain.unkeyed.as_deref(), Some("git is not installed"));
        config.model = Some("m".into());
        let with_model = fingerprint(&config, &[], no_git).unwrap();
        assert_ne!(plain.value, with_model.value);
        config.fingerprint_files = vec![dir.path().to_path_buf()];
        let v1 = fingerprint(&config, &[], no_git).unwrap();
        assert_eq!(
            (v1.parts.source.as_str(), v1.unkeyed.as_deref()),
            ("files", None)
        );
        std::fs::write(&prompt, "v2").unwrap();
        let v2 = fingerprint(&config, &[], no_git).unwrap();
        assert_ne!(v1.value, v2.value);
        assert_ne!(v1.parts.files, v2.parts.files);
        config.fingerprint_files = vec![dir.path().join("missing")];
        assert!(fingerprint(&config, &[], no_git).is_err());
    }

    /// Committed, staged and unstaged changes to tracked files all change the fingerprint;
    /// so do untracked files git does not ignore; goldgate's own files and ignored files do
    /// not.
    #[test]
    fn inside_git_the_tracked_content_is_the_pipelines_code() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("suite")).unwrap();
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::write(d.join("pipeline.sh"), "echo v1").unwrap();
        std::fs::write(d.join("src/lib.py"), "x = 1").unwrap();
        std::fs::write(d.join("suite/a.yaml"), "id: a").unwrap();
        std::fs::write(d.join("thresholds.toml"), "version = 1").unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "start"]);
        let own = [
            d.join("suite"),
            d.join("thresholds.toml"),
            d.join(".goldgate"),
        ];
        let repo = Git {
            dir: d,
            program: "git",
        };
        let fp = || fingerprint(&command_pipeline(), &own, repo).unwrap();
        let start = fp();
        assert_eq!(start.parts.source, "git");
        assert_eq!(
            start.parts.git_files,
            Some(2),
            "the suite and the rules are left out"
        );
        assert_eq!(
            start.parts.git_excluded,
            [".goldgate", "suite", "thresholds.toml"]
        );
        assert_eq!(start.parts.git_worktree, None);
        assert_eq!(start.unkeyed, None);
        assert_eq!(fp(), start, "the same content, the same fingerprint");

        std::fs::write(d.join("suite/a.yaml"), "id: b").unwrap();
        std::fs::write(d.join("thresholds.toml"), "version = 1\n").unwrap();
        assert_eq!(fp().value, start.value, "own files do not count");
        std::fs::create_dir_all(d.join(".goldgate/cache")).unwrap();
        std::fs::write(d.join(".goldgate/cache/x"), "answer").unwrap();
        std::fs::write(d.join(".gitignore"), ".env\n").unwrap();
        git(d, &["add", ".gitignore"]);
        git(d, &["commit", "-q", "-m", "ignore"]);
        let start = fp();
        std::fs::write(d.join(".env"), "KEY=1").unwrap();
        assert_eq!(fp(), start, "own and ignored files do not count");

        // A pipeline file not yet `git add`ed is still the pipeline: its content counts.
        std::fs::write(d.join("prompt.txt"), "v1").unwrap();
        let untracked = fp();
        assert_ne!(untracked.value, start.value, "an untracked file counts");
        assert_eq!(untracked.parts.git_index, start.parts.git_index);
        assert_eq!(untracked.parts.git_files, start.parts.git_files);
        assert!(untracked.parts.git_worktree.is_some());
        std::fs::write(d.join("prompt.txt"), "v2").unwrap();
        assert_ne!(fp().value, untracked.value, "its content counts");
        std::fs::remove_file(d.join("prompt.txt")).unwrap();
        assert_eq!(fp(), start);
        std::fs::create_dir_all(d.join("src/__pycache__")).unwrap();
        std::fs::write(d.join("src/__pycache__/lib.cpython-312.pyc"), "bytecode").unwrap();
        assert_eq!(
            fp(),
            start,
            "Python's bytecode cache of hashed sources does not count"
        );

        std::fs::write(d.join("src/lib.py"), "x = 2").unwrap();
        let unstaged = fp();
        assert_ne!(unstaged.value, start.value);
        assert!(unstaged.parts.git_worktree.is_some());
        assert_eq!(unstaged.parts.git_index, start.parts.git_index);
        git(d, &["add", "src/lib.py"]);
        let staged = fp();
        assert_ne!(staged.parts.git_index, start.parts.git_index);
        assert_eq!(staged.parts.git_worktree, None);
        git(d, &["commit", "-q", "-m", "x = 2"]);
        assert_eq!(
            fp(),
            staged,
            "committing what was staged changes no content"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let lib = d.join("src/lib.py");
            std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o755)).unwrap();
            let executable = fp();
            assert_ne!(executable.value, staged.value, "a mode change counts");
            std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(fp(), staged);
        }
        std::fs::remove_file(d.join("pipeline.sh")).unwrap();
        let deleted = fp();
        assert_ne!(deleted.value, staged.value, "a deleted file counts");
        assert_eq!(deleted.parts.git_index, staged.parts.git_index);

        // From a subdirectory, the whole repository counts and own files are still placed.
        let sub = Git {
            dir: &d.join("src"),
            program: "git",
        };
        let from_sub = fingerprint(&command_pipeline(), &own, sub).unwrap();
        assert_eq!(from_sub.parts.git_index, fp().parts.git_index);
        assert_eq!(from_sub.parts.git_excluded, start.parts.git_excluded);
    }

    /// Thousands of untracked files are a build's or a download's, not a pipeline's: the
    /// cache is off, with the reason, rather than every run reading them.
    #[test]
    fn too_many_untracked_files_turn_the_cache_off_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("pipeline.sh"), "echo v1").unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "start"]);
        std::fs::create_dir_all(d.join("build")).unwrap();
        for i in 0..=crate::repository::MAX_UNTRACKED_FILES {
            std::fs::write(d.join(format!("build/{i}.o")), "").unwrap();
        }
        let repo = Git {
            dir: d,
            program: "git",
        };
        let fp = fingerprint(&command_pipeline(), &[], repo).unwrap();
        let why = fp.unkeyed.expect("the cache is off");
        assert!(why.contains("untracked files"), "{why}");
        assert!(why.contains("fingerprint_files"), "{why}");
        std::fs::write(d.join(".gitignore"), "build/\n").unwrap();
        let fp = fingerprint(&command_pipeline(), &[], repo).unwrap();
        assert_eq!(fp.unkeyed, None, "ignored, they do not count");
    }

    #[test]
    fn a_file_touched_but_unchanged_does_not_change_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("pipeline.sh"), "echo v1").unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "start"]);
        let repo = Git {
            dir: d,
            program: "git",
        };
        let fp = || fingerprint(&command_pipeline(), &[], repo).unwrap();
        let start = fp();
        // New stat data, the same bytes and mode: git lists the file as changed until its
        // index is refreshed, which goldgate never does (it must not write the index).
        let file = std::fs::File::options()
            .write(true)
            .open(d.join("pipeline.sh"))
            .unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
        file.set_modified(later).unwrap();
        drop(file);
        assert_eq!(fp(), start, "touching a file changes nothing");
        std::fs::write(d.join("pipeline.sh"), "echo v2").unwrap();
        assert_ne!(fp().value, start.value, "an edit still counts");
    }

    #[test]
    fn the_cache_is_used_only_where_answers_can_be_keyed() {
        let keyed = Fingerprint {
            value: "sha256:x".into(),
            parts: FingerprintParts::default(),
            unkeyed: None,
            by_kind: Default::default(),
        };
        let unkeyed = Fingerprint {
            unkeyed: Some("not inside a git repository".into()),
            ..keyed.clone()
        };
        let command = command_pipeline().adapter;
        let http = Adapter::Http {
            url: "http://127.0.0.1:1/".into(),
            headers: Vec::new(),
        };
        let wish = |read, off, pipeline| CacheWish {
            read,
            off,
            pipeline,
        };
        let default = wish(true, false, None);
        assert_eq!(
            cache_use(&command, &keyed, default),
            (CacheUse::ReadWrite, None)
        );
        assert_eq!(
            cache_use(&command, &keyed, wish(false, false, None)).0,
            CacheUse::WriteOnly
        );
        let (off, why) = cache_use(&command, &unkeyed, default);
        assert_eq!(off, CacheUse::Off);
        assert_eq!(
            why.as_deref(),
            Some("not inside a git repository (see fingerprint_files in goldgate.toml)")
        );
        assert_eq!(
            cache_use(&command, &unkeyed, wish(true, true, None)),
            (CacheUse::Off, None)
        );
        assert_eq!(
            cache_use(&command, &keyed, wish(true, false, Some(false))),
            (CacheUse::Off, None)
        );
        let (off, why) = cache_use(&http, &keyed, default);
        assert_eq!(off, CacheUse::Off);
        assert!(why.unwrap().contains("cache = true"));
        assert_eq!(
            cache_use(&http, &keyed, wish(true, false, Some(true))),
            (CacheUse::ReadWrite, None)
        );
        let replay = Adapter::Replay {
            file: "run.jsonl".into(),
        };
        assert_eq!(cache_use(&replay, &keyed, default), (CacheUse::Off, None));
    }

    /// How long the fingerprint of a repository of 10,000 tracked files takes (one file
    /// changed, not staged). Run with `cargo test --release fingerprint_of_10000 -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore = "a timing, run by hand"]
    #[allow(clippy::print_stderr)] // the figure is what this test is for
    fn fingerprint_of_10000_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for i in 0..100 {
            std::fs::create_dir_all(d.join(format!("pkg{i}"))).unwrap();
            for j in 0..100 {
                std::fs::write(
                    d.join(format!("pkg{i}/m{j}.py")),
                    format!("x = {i} * {j}\n"),
                )
                .unwrap();
            }
        }
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "start"]);
        // Refresh the index as any git command a user runs does, a moment after the files
        // were written (entries as new as the index are re-read every time: racy git).
        std::thread::sleep(std::time::Duration::from_millis(1100));
        git(d, &["status", "-s"]);
        std::fs::write(d.join("pkg7/m7.py"), "x = 0\n").unwrap();
        let repo = Git {
            dir: d,
            program: "git",
        };
        let own = [d.join("suite"), d.join(".goldgate")];
        let mut times = Vec::new();
        for _ in 0..21 {
            let started = std::time::Instant::now();
            let fp = fingerprint(&command_pipeline(), &own, repo).unwrap();
            times.push(started.elapsed());
            assert_eq!(fp.parts.git_files, Some(10_000));
            assert!(fp.parts.git_worktree.is_some());
        }
        times.sort();
        eprintln!(
            "fingerprint of 10,000 tracked files: median {:?}, fastest {:?}, slowest {:?}",
            times[10], times[0], times[20]
        );
    }
}
