//! Whether an interrupted run may be resumed: its records must come from the same pipeline
//! (fingerprint) and the same repeat count as this run, or `--resume` is refused with what
//! changed — mixing answers of two pipelines would gate neither. Which of its records are
//! kept is a per-record question: the sample must still be in this run with the same
//! request (the record's cache key says so), so records of samples that left the suite, or
//! whose input changed, are dropped and run again.

use crate::error::{Error, Result};
use crate::runfile::record::{FingerprintParts, RunProvenance};
use crate::runfile::writer::Earlier;

/// Refuse to resume `earlier` when it was made by another pipeline or repeat count than
/// `now` describes (`fingerprint` is this run's pipeline fingerprint).
pub fn check(earlier: &Earlier, now: &RunProvenance, fingerprint: &str) -> Result<()> {
    if earlier.records.is_empty() {
        return Ok(());
    }
    let path = earlier.path.display();
    let start_again = "run without --resume to start again (the partial file is replaced)";
    let Some(then) = &earlier.provenance else {
        return Err(Error::usage(
            format!("cannot resume {path}: it does not say which pipeline, suite and repeat count made its records (written by an older goldgate)"),
            start_again,
        ));
    };
    if earlier
        .records
        .iter()
        .any(|r| r.pipeline_fingerprint.as_deref() != Some(fingerprint))
    {
        return Err(Error::usage(
            format!(
                "cannot resume {path}: the pipeline changed since that run started ({}), so its answers came from another pipeline",
                changes(&then.fingerprint, &now.fingerprint)
            ),
            format!("{start_again}, or put back the pipeline it was started with"),
        ));
    }
    if then.repeats != now.repeats {
        return Err(Error::usage(
            format!(
                "cannot resume {path}: it was started with {} per sample and this run asks for --repeat {}",
                crate::text::plural(then.repeats, "repeat"),
                now.repeats
            ),
            format!("resume with --repeat {}, or {start_again}", then.repeats),
        ));
    }
    Ok(())
}

/// What differs between two fingerprints, for people.
fn changes(then: &FingerprintParts, now: &FingerprintParts) -> String {
    let mut out = Vec::new();
    if then.adapter != now.adapter {
        out.push(format!("the adapter: {} → {}", then.adapter, now.adapter));
    } else if then.config != now.config {
        out.push(match now.adapter.as_str() {
            "command" => "the command or its mode".to_string(),
            "http" => "the URL or the headers".to_string(),
            "srs-agents" => "the agents' settings or prompts".to_string(),
            "replay" => "the replay file".to_string(),
            other => format!("the {other} settings or prompts"),
        });
    }
    if then.model != now.model {
        let name = |m: &Option<String>| m.clone().unwrap_or_else(|| "none".into());
        out.push(format!(
            "the model: {} → {}",
            name(&then.model),
            name(&now.model)
        ));
    }
    if then.source != now.source {
        out.push(format!(
            "what stands for its code: {} → {}",
            then.source, now.source
        ));
    } else {
        if then.git_index != now.git_index {
            out.push("the repository's tracked files".into());
        }
        if then.git_worktree != now.git_worktree {
            out.push("the uncommitted changes to tracked files".into());
        }
        let names: std::collections::BTreeSet<&String> =
            then.files.keys().chain(now.files.keys()).collect();
        out.extend(
            names
                .into_iter()
                .filter(|name| then.files.get(*name) != now.files.get(*name))
                .map(|name| format!("fingerprint file {name}")),
        );
    }
    match out.is_empty() {
        true => "its fingerprint".into(),
        false => out.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_named() {
        let then = FingerprintParts {
            adapter: "command".into(),
            config: "sha256:a".into(),
            source: "files".into(),
            files: [("prompt.txt".to_string(), "sha256:1".to_string())].into(),
            ..FingerprintParts::default()
        };
        let mut now = then.clone();
        assert_eq!(changes(&then, &now), "its fingerprint");
        now.files.insert("prompt.txt".into(), "sha256:2".into());
        now.model = Some("m".into());
        assert_eq!(
            changes(&then, &now),
            "the model: none → m, fingerprint file prompt.txt"
        );
        let git = FingerprintParts {
            source: "git".into(),
            git_index: Some("sha256:i".into()),
            ..then.clone()
        };
        let dirty = FingerprintParts {
            git_worktree: Some("sha256:w".into()),
            config: "sha256:b".into(),
            ..git.clone()
        };
        assert_eq!(
            changes(&git, &dirty),
            "the command or its mode, the uncommitted changes to tracked files"
        );
        assert_eq!(
            changes(&then, &git),
            "what stands for its code: files → git"
        );
        let agents = FingerprintParts {
            adapter: "srs-agents".into(),
            source: "prompts".into(),
            ..FingerprintParts::default()
        };
        let edited = FingerprintParts {
            config: "sha256:c".into(),
            ..agents.clone()
        };
        assert_eq!(changes(&agents, &edited), "the agents' settings or prompts");
    }
}
