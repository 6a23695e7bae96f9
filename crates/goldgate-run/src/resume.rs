//! Whether an interrupted run may be resumed: its records must come from the same pipeline
//! (fingerprint) and the same repeat count as this run, or `--resume` is refused with what
//! changed — mixing answers of two pipelines would gate neither. Which of its records are
//! kept is a per-record question: the sample must still be in this run with the same
//! request (the record's cache key says so), so records of samples that left the suite, or
//! whose input changed, are dropped and run again.

use goldgate_core::error::{Error, Result};
use goldgate_core::runfile::record::{FingerprintParts, RunProvenance};
use goldgate_core::runfile::writer::Earlier;

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
                goldgate_core::text::plural(then.repeats, "repeat"),
                now.repeats
            ),
            format!("resume with --repeat {}, or {start_again}", then.repeats),
        ));
    }
    Ok(())
}

/// What differs between two fingerprints, for people.
fn changes(then: &FingerprintParts, now: &FingerprintParts) -> String {
    match now.changes_since(then) {
        list if list.is_empty() => "its fingerprint".into(),
        list => list.join(", "),
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
            "prompt.txt, [pipeline] model (none → m)"
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
            "the uncommitted changes to tracked files, the command or its mode"
        );
        assert_eq!(
            changes(&then, &git),
            "what stands for its code (files → git)"
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
        // Parts that record each setting name the settings that changed.
        let setting = |k: &str, v: &str| (k.to_string(), v.to_string());
        let chat = FingerprintParts {
            adapter: "chat".into(),
            source: "prompts".into(),
            model: Some("gpt-4o-mini".into()),
            settings: [
                setting("[pipeline] model", "sha256:m1"),
                setting("[pipeline] temperature", "sha256:t1"),
                setting("[pipeline] seed", "sha256:s"),
            ]
            .into(),
            files: [setting("prompts/answer.j2", "sha256:p1")].into(),
            ..FingerprintParts::default()
        };
        let mut tuned = chat.clone();
        tuned.model = Some("gpt-4.1-mini".into());
        tuned.settings = [
            setting("[pipeline] model", "sha256:m2"),
            setting("[pipeline] temperature", "sha256:t2"),
            setting("[pipeline] max_tokens", "sha256:x"),
        ]
        .into();
        tuned
            .files
            .insert("prompts/answer.j2".into(), "sha256:p2".into());
        assert_eq!(
            changes(&chat, &tuned),
            "prompts/answer.j2, [pipeline] max_tokens (new), [pipeline] seed (gone), [pipeline] temperature, [pipeline] model (gpt-4o-mini → gpt-4.1-mini)"
        );
    }
}
