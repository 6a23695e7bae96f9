//! Facts from outside the inputs, gathered once: where and when a score is made.

use goldgate_core::score::Facts;

/// Where and when this score is made: `GITHUB_SHA`/`GITHUB_REF` inside GitHub Actions, else
/// what git says of the working directory; `SOURCE_DATE_EPOCH` makes the time reproducible.
pub fn provenance_facts() -> Facts {
    fn env_or_git(var: &str, args: &[&str]) -> Option<String> {
        if let Some(v) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
            return Some(v);
        }
        let out = std::process::Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !text.is_empty()).then_some(text)
    }
    let created_at = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    Facts {
        git_sha: env_or_git("GITHUB_SHA", &["rev-parse", "HEAD"]),
        git_ref: env_or_git("GITHUB_REF", &["rev-parse", "--abbrev-ref", "HEAD"]),
        created_at,
    }
}
