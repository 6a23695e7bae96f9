//! GitHub Actions' file and log interfaces: the job summary (`GITHUB_STEP_SUMMARY`, at most
//! 1 MiB), step outputs (`GITHUB_OUTPUT`, multiline-safe), and `::error` / `::warning`
//! annotations for broken rules (at most 10 of each, as GitHub shows no more).

use std::io::Write;
use std::path::Path;

use goldgate_core::error::{Error, Result};
use goldgate_core::escape::workflow_command;
use goldgate_core::gate::verdict::{Status, Verdict};

/// GitHub's limit on a job summary, in bytes.
pub const SUMMARY_LIMIT: usize = crate::report::markdown::SUMMARY_LIMIT;
/// Annotations of one level GitHub shows per step.
pub const ANNOTATIONS_PER_LEVEL: usize = 10;

/// Whether goldgate runs inside GitHub Actions.
pub fn in_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

fn append(path: &Path, text: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })?;
    file.write_all(text.as_bytes())
        .map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// Append a report to the job summary, cut (and saying so) to stay under 1 MiB.
pub fn write_summary(path: &Path, markdown: &str) -> Result<()> {
    let note = "\n\n_…the report was cut to fit GitHub's 1 MiB job summary; see verdict.json._\n";
    let text = if markdown.len() <= SUMMARY_LIMIT {
        markdown.to_string()
    } else {
        let mut cut = SUMMARY_LIMIT - note.len();
        while !markdown.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{note}", &markdown[..cut])
    };
    append(path, &text)
}

/// Append step outputs. Values use the heredoc form with a delimiter that cannot occur in
/// them, so multiline values are safe.
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> Result<()> {
    let mut text = String::new();
    for (name, value) in outputs {
        let mut delimiter = format!(
            "goldgate_{:x}",
            goldgate_core::rng::label_hash(value) ^ std::process::id() as u64
        );
        while value.contains(&delimiter) {
            delimiter.push('_');
        }
        text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    append(path, &text)
}

/// `::error` for failed and incomplete rules, `::warning` for warned ones and ratchet findings.
/// Every value is escaped by GitHub's rules ([`workflow_command`]): a metric name or a
/// reason from a forged verdict cannot end its command or start another.
pub fn annotations(v: &Verdict) -> String {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for m in &v.metrics {
        let line = |level: &str| {
            workflow_command(
                level,
                &format!("goldgate: {}", m.name),
                &m.reasons.join("; "),
            )
        };
        match m.status {
            Status::Fail | Status::Incomplete => errors.push(line("error")),
            Status::Warn => warnings.push(line("warning")),
            _ => {}
        }
    }
    for finding in &v.ratchet {
        warnings.push(workflow_command(
            "warning",
            "goldgate: threshold loosened",
            finding,
        ));
    }
    let mut out: String = errors.iter().take(ANNOTATIONS_PER_LEVEL).cloned().collect();
    out.extend(warnings.iter().take(ANNOTATIONS_PER_LEVEL).cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_survive_values_with_newlines_and_lookalike_delimiters() {
        let path = std::env::temp_dir().join(format!("goldgate-output-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        write_outputs(
            &path,
            &[
                ("verdict", "fail".into()),
                ("summary", "line one\nline two".into()),
            ],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        let delimiter = header.strip_prefix("verdict<<").unwrap();
        assert_eq!(lines.next(), Some("fail"));
        assert_eq!(lines.next(), Some(delimiter));
        assert!(text.contains("line one\nline two\n"));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_big_summary_is_cut_and_says_so() {
        let path = std::env::temp_dir().join(format!("goldgate-summary-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        write_summary(&path, &"é".repeat(SUMMARY_LIMIT)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() <= SUMMARY_LIMIT && text.ends_with("see verdict.json._\n"));
        let _ = std::fs::remove_file(&path);
    }
}
