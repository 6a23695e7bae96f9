//! The threshold ratchet: compare a pull request's `thresholds.toml` with the base branch's
//! and report every rule that got looser — a lower floor, a higher ceiling, a larger allowed
//! regression, significance or severity relaxed, a rule removed, a larger drift budget or
//! the drift reference removed, moved or re-pinned — so a PR cannot quietly lower its own
//! bar.

use std::cmp::Ordering;
use std::path::Path;
use std::process::Command;

use super::rule::{drift_for, rule_for};
use super::thresholds::{Regression, Severity, Thresholds};
use crate::error::{Error, Result};
use crate::metrics::SchemaMode;

/// The thresholds file at `path` as of `revision`; `None` when the file did not exist then.
pub fn at_revision(revision: &str, path: &Path) -> Result<Option<Thresholds>> {
    let Some((text, spec)) = text_at_revision(revision, path)? else {
        // The base branch has no thresholds file yet: nothing can have been loosened.
        return Ok(None);
    };
    Thresholds::parse_unchecked(&text, Path::new(&spec)).map(Some)
}

/// The text of the file at `path` as of `revision`, with the `REV:path` it was read as;
/// `None` when the file did not exist then.
pub fn text_at_revision(revision: &str, path: &Path) -> Result<Option<(String, String)>> {
    let spec = spec_at(revision, path);
    let out = Command::new("git")
        .args(["show", &spec])
        .output()
        .map_err(|e| {
            Error::usage(
                format!("cannot run git: {e}"),
                "install git, or pass --base-thresholds FILE",
            )
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("does not exist in") || stderr.contains("exists on disk, but not in") {
            return Ok(None);
        }
        return Err(Error::usage(
            format!("cannot read {spec}: {}", stderr.trim()),
            "fetch the base branch first (actions/checkout with fetch-depth: 0), or pass --base-thresholds FILE",
        ));
    }
    Ok(Some((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        spec,
    )))
}

/// `REV:./path` for a path relative to the working directory (git reads `./` as the working
/// directory); an absolute path is taken relative to the repository's root, which
/// `REV:/abs/path` would not be.
fn spec_at(revision: &str, path: &Path) -> String {
    if path.is_absolute() {
        let root = Command::new("git")
            .args(["rev-parse", "--show-toplevel"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
        let inside = root.and_then(|root| {
            let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            real(path)
                .strip_prefix(real(&root))
                .ok()
                .map(Path::to_path_buf)
        });
        if let Some(relative) = inside {
            return format!("{revision}:{}", relative.display());
        }
    }
    match path.is_relative() && !path.starts_with(".") {
        true => format!("{revision}:./{}", path.display()),
        false => format!("{revision}:{}", path.display()),
    }
}

/// Every way `current` is looser than `base`.
pub fn loosened(base: &Thresholds, current: &Thresholds) -> Vec<String> {
    let mut findings = Vec::new();
    let (bd, cd) = (base.defaults(), current.defaults());
    // Every comparison asks "at least as strict?", so a value that compares false (`nan`)
    // is reported as loosened rather than slipping through.
    if !at_least(cd.sample_pass, bd.sample_pass) {
        findings.push(format!(
            "defaults.sample_pass lowered from {} to {}",
            bd.sample_pass, cd.sample_pass
        ));
    }
    for metric in crate::kinds::catalog(base.rule_names().chain(current.rule_names())) {
        let (Some((b, b_reg, b_sev)), now) = (rule_for(metric, base), rule_for(metric, current))
        else {
            continue;
        };
        let name = metric.name;
        let Some((c, c_reg, c_sev)) = now else {
            findings.push(format!("{name}: the rule was removed"));
            continue;
        };
        match (b.min, c.min) {
            (Some(x), Some(y)) if !at_least(y, x) => {
                findings.push(format!("{name}: floor lowered from {x} to {y}"))
            }
            (Some(x), None) => findings.push(format!("{name}: floor {x} removed")),
            _ => {}
        }
        match (b.max, c.max) {
            (Some(x), Some(y)) if !at_most(y, x) => {
                findings.push(format!("{name}: ceiling raised from {x} to {y}"))
            }
            (Some(x), None) => findings.push(format!("{name}: ceiling {x} removed")),
            _ => {}
        }
        if let Some(finding) = regression_loosened(b_reg, c_reg) {
            let key = match metric.is_bounded() {
                true => "max_regression",
                false => "max_increase",
            };
            findings.push(format!("{name}: {key} {finding}"));
        }
        if !b.require_significance && c.require_significance {
            findings.push(format!("{name}: now requires significance before failing"));
        }
        if c.require_significance && !at_most(c.confidence, b.confidence) && b.require_significance
        {
            findings.push(format!(
                "{name}: confidence raised from {} to {} (a regression must be surer to fail)",
                b.confidence, c.confidence
            ));
        }
        if b_sev == Severity::Fail && c_sev == Severity::Warn {
            findings.push(format!("{name}: severity lowered from fail to warn"));
        }
        let drift = (drift_for(metric, base), drift_for(metric, current));
        if let Some(finding) = regression_loosened(drift.0, drift.1) {
            findings.push(format!("{name}: max_drift {finding}"));
        }
    }
    findings.extend(drift_loosened(base, current));
    findings.extend(matching_loosened(base, current));
    findings
}

/// A path as written, without its `./` parts: `./baselines/r.json` and `baselines/r.json`
/// name one file.
pub fn normal(path: &Path) -> std::path::PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// The drift reference removed or pointed elsewhere.
fn drift_loosened(base: &Thresholds, current: &Thresholds) -> Option<String> {
    let named = |t: &Thresholds| {
        t.drift.as_ref().map(|d| {
            let written = d.get_ref().reference.get_ref();
            (written.clone(), normal(Path::new(written)))
        })
    };
    match (named(base), named(current)) {
        (Some(_), None) => Some("[drift]: the drift budget was removed".into()),
        (Some((was, a)), Some((now, b))) if a != b => Some(format!(
            "[drift] reference moved from {was} to {now}: check the new reference is not lower"
        )),
        _ => None,
    }
}

/// The pinned reference as of `revision` (the base branch), when the change re-pinned it:
/// its text there, and the finding that says so. `None` when the file is unchanged (its
/// blob, as git would store the working copy, is the same: line endings and filters do not
/// count) or did not exist then. A pull request that re-pins its own reference is held to
/// the base branch's.
pub fn reference_at(revision: &str, path: &Path) -> Result<Option<(String, String)>> {
    let Some((was, current)) = changed_at(revision, path)? else {
        return Ok(None);
    };
    let finding = format!(
        "[drift] reference {} re-pinned by this change (made {}; at {revision} it was made {}): drift is measured against {revision}'s",
        path.display(),
        made(&current),
        made(&was)
    );
    Ok(Some((was, finding)))
}

/// The finding when the change replaced the baseline itself (its blob differs from the one
/// at `revision`): the gate compares with the change's own baseline, which a reviewer
/// should see. `None` when it is unchanged or did not exist then.
pub fn baseline_changed(revision: &str, path: &Path) -> Result<Option<String>> {
    let Some((was, current)) = changed_at(revision, path)? else {
        return Ok(None);
    };
    Ok(Some(format!(
        "baseline {} replaced by this change (made {}; at {revision} it was made {}): the change is compared with its own baseline",
        path.display(),
        made(&current),
        made(&was)
    )))
}

/// A score file's `provenance.created_at`, or "unknown".
fn made(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v["provenance"]["created_at"].as_str().map(String::from))
        .unwrap_or_else(|| "unknown".into())
}

/// The file's text at `revision` and now, when its blob (as git would store the working
/// copy: line endings and filters do not count) differs; `None` when it is the same or did
/// not exist then.
fn changed_at(revision: &str, path: &Path) -> Result<Option<(String, String)>> {
    let Some((was, spec)) = text_at_revision(revision, path)? else {
        return Ok(None);
    };
    let blob = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let path_text = path.display().to_string();
    let now = blob(&["hash-object", "--path", &path_text, &path_text]);
    if now.is_some() && now == blob(&["rev-parse", &spec]) {
        return Ok(None);
    }
    let current = crate::io::read_capped(path, crate::score::file::MAX_BYTES).unwrap_or_default();
    Ok(Some((was, current)))
}

/// Matching made more lenient: a lower threshold (as it applies, defaults included), the
/// type or actor rule switched off, a schema check reduced to syntax; or another similarity,
/// whose thresholds mean something else and whose scores are not comparable.
fn matching_loosened(base: &Thresholds, current: &Thresholds) -> Vec<String> {
    if base.similarity() != current.similarity() {
        return vec![format!(
            "matching.similarity changed from {} to {} (its thresholds mean something else, and scores are not comparable)",
            base.similarity(),
            current.similarity()
        )];
    }
    let (b, c) = (base.scoring(), current.scoring());
    let mut out = Vec::new();
    for (key, was, now) in [
        (
            "requirement_threshold",
            b.requirement_threshold,
            c.requirement_threshold,
        ),
        ("ac_threshold", b.ac_threshold, c.ac_threshold),
    ] {
        if !at_least(now, was) {
            out.push(format!("matching.{key} lowered from {was} to {now}"));
        }
    }
    for (key, was, now) in [
        ("type_rule", b.type_rule, c.type_rule),
        ("actor_rule", b.actor_rule, c.actor_rule),
    ] {
        if was && !now {
            out.push(format!("matching.{key} turned off"));
        }
    }
    if b.schema == SchemaMode::Strict && c.schema == SchemaMode::SyntaxOnly {
        out.push("matching.schema relaxed from schema_strict to syntax_only".to_string());
    }
    out
}

/// `now >= was`; never when either is `nan`.
fn at_least(now: f64, was: f64) -> bool {
    matches!(
        now.partial_cmp(&was),
        Some(Ordering::Greater | Ordering::Equal)
    )
}

/// `now <= was`; never when either is `nan`.
fn at_most(now: f64, was: f64) -> bool {
    matches!(
        now.partial_cmp(&was),
        Some(Ordering::Less | Ordering::Equal)
    )
}

fn regression_loosened(base: Option<Regression>, current: Option<Regression>) -> Option<String> {
    use Regression::{Absolute, Relative};
    match (base, current) {
        (Some(Absolute(x)), Some(Absolute(y))) if !at_most(y, x) => {
            Some(format!("raised from {x} to {y}"))
        }
        (Some(Relative(x)), Some(Relative(y))) if !at_most(y, x) => {
            Some(format!("raised from {}% to {}%", x * 100.0, y * 100.0))
        }
        (Some(Absolute(x)), Some(Relative(y))) => Some(format!(
            "changed from {x} (absolute) to {}% (relative): check it is not looser",
            y * 100.0
        )),
        (Some(Relative(x)), Some(Absolute(y))) => Some(format!(
            "changed from {}% (relative) to {y} (absolute): check it is not looser",
            x * 100.0
        )),
        (Some(x), None) => Some(format!("{x} removed")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::metric;

    fn t(text: &str) -> Thresholds {
        Thresholds::parse(text, Path::new("t.toml")).unwrap()
    }

    /// `text` with each `KIND.` the test kind's name: its metrics `KIND.f1`, `KIND.recall`
    /// (higher is better) and `KIND.ece` (lower is better).
    fn with_test_kind(text: &str) -> String {
        text.replace("KIND.", &format!("{}.", crate::testkit::test_kind().name()))
    }

    #[test]
    fn a_more_lenient_matching_is_called_out() {
        let base = t("version = 1\n[matching]\nsimilarity = \"minilm\"\n");
        let lower = t("version = 1\n[matching]\nsimilarity = \"minilm\"\nrequirement_threshold = 0.7\nac_threshold = 0.9\ntype_rule = false\nschema = \"syntax_only\"\n");
        let found = loosened(&base, &lower);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found
            .iter()
            .any(|f| f.contains("matching.requirement_threshold lowered from 0.85 to 0.7")));
        assert!(found
            .iter()
            .any(|f| f.contains("matching.type_rule turned off")));
        assert!(found.iter().any(|f| f.contains("matching.schema")));
        // Another similarity: its thresholds mean something else.
        let lexical = t("version = 1\n");
        let found = loosened(&base, &lexical);
        assert!(
            found
                .iter()
                .any(|f| f.contains("matching.similarity changed from minilm to lexical")),
            "{found:?}"
        );
        let stricter =
            t("version = 1\n[matching]\nsimilarity = \"minilm\"\nrequirement_threshold = 0.9\n");
        assert!(loosened(&base, &stricter).is_empty(), "stricter is fine");
    }

    #[test]
    fn every_loosening_is_reported_and_tightening_is_not() {
        let t = |text: &str| t(&with_test_kind(text));
        let base = t("version = 1\n[metrics.\"KIND.f1\"]\nmin = 0.8\nmax_regression = 0.02\n[metrics.\"KIND.ece\"]\nmax = 0.1\n[metrics.\"KIND.recall\"]\nmin = 0.5\nseverity = \"fail\"\n");
        let looser = t("version = 1\n[metrics.\"KIND.f1\"]\nmin = 0.7\nmax_regression = 0.05\n[metrics.\"KIND.ece\"]\nmax = 0.2\n[metrics.\"KIND.recall\"]\nmin = 0.5\nseverity = \"warn\"\n");
        let found = loosened(&base, &looser);
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(found
            .iter()
            .any(|f| f.contains("floor lowered from 0.8 to 0.7")));
        assert!(found
            .iter()
            .any(|f| f.contains("max_regression raised from 0.02 to 0.05")));
        assert!(found
            .iter()
            .any(|f| f.contains("ceiling raised from 0.1 to 0.2")));
        assert!(found.iter().any(|f| f.contains("severity lowered")));
        let tighter = t("version = 1\n[metrics.\"KIND.f1\"]\nmin = 0.85\nmax_regression = 0.01\n[metrics.\"KIND.ece\"]\nmax = 0.05\n[metrics.\"KIND.recall\"]\nmin = 0.6\n");
        assert!(loosened(&base, &tighter).is_empty());
        let removed = t("version = 1\n[metrics.\"KIND.f1\"]\nmin = 0.8\nmax_regression = 0.02\n");
        assert!(loosened(&base, &removed)
            .iter()
            .any(|f| f.contains(&with_test_kind("KIND.ece: the rule was removed"))));
    }

    /// A larger drift budget (written, or derived from a larger allowed regression), and a
    /// drift reference removed or moved, are looser.
    #[test]
    fn a_looser_drift_budget_is_called_out() {
        let t = |text: &str| t(&with_test_kind(text));
        let drift = "[drift]\nreference = \"baselines/reference.json\"\n";
        let base = t(&format!(
            "version = 1\n{drift}[metrics.\"KIND.f1\"]\nmax_drift = 0.05\n"
        ));
        let looser = t(&format!(
            "version = 1\n{drift}[metrics.\"KIND.f1\"]\nmax_drift = 0.1\n"
        ));
        let found = loosened(&base, &looser);
        assert!(
            found
                .iter()
                .any(|f| f.contains("max_drift raised from 0.05 to 0.1")),
            "{found:?}"
        );
        // Derived: 2.5 times a larger allowed regression.
        let derived = t(&format!(
            "version = 1\n{drift}[metrics.\"KIND.f1\"]\nmax_regression = 0.04\n"
        ));
        let found = loosened(&base, &derived);
        assert!(
            found
                .iter()
                .any(|f| f.contains("max_drift raised from 0.05 to 0.1")),
            "{found:?}"
        );
        let gone = t("version = 1\n[metrics.\"KIND.f1\"]\n");
        let found = loosened(&base, &gone);
        assert!(
            found
                .iter()
                .any(|f| f.contains("the drift budget was removed")),
            "{found:?}"
        );
        let moved = t("version = 1\n[drift]\nreference = \"old.json\"\n[metrics.\"KIND.f1\"]\nmax_drift = 0.05\n");
        let found = loosened(&base, &moved);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("moved from baselines/reference.json to old.json"));
        let tighter = t(&format!(
            "version = 1\n{drift}[metrics.\"KIND.f1\"]\nmax_drift = 0.03\n"
        ));
        assert!(loosened(&base, &tighter).is_empty());
    }

    /// A value that compares false with everything (`nan`) is looser, never "not tighter":
    /// parsing refuses it, and the ratchet does not depend on that.
    #[test]
    fn nan_is_reported_as_loosened() {
        let f1 = metric("f1");
        let t = |text: &str| t(&with_test_kind(text));
        let base = t("version = 1\n[defaults]\nsample_pass = 0.8\n[metrics.\"KIND.f1\"]\nmin = 0.8\nmax_regression = 0.02\nconfidence = 0.9\n[metrics.\"KIND.ece\"]\nmax = 0.1\nmax_regression = \"5%\"\n");
        let mut nan = base.clone();
        let spanned = |v: f64| Some(toml::Spanned::new(0..0, v));
        for (name, rule) in nan.metrics.iter_mut() {
            if *name.get_ref() == f1 {
                rule.min = spanned(f64::NAN);
                rule.confidence = spanned(f64::NAN);
                rule.max_regression =
                    Some(toml::Spanned::new(0..0, Regression::Absolute(f64::NAN)));
            } else {
                rule.max = spanned(f64::NAN);
                rule.max_regression =
                    Some(toml::Spanned::new(0..0, Regression::Relative(f64::NAN)));
            }
        }
        if let Some(d) = nan.defaults.as_mut() {
            d.get_mut().sample_pass = f64::NAN;
        }
        let found = loosened(&base, &nan);
        for expected in [
            "defaults.sample_pass lowered from 0.8 to NaN",
            "KIND.f1: floor lowered from 0.8 to NaN",
            "KIND.f1: max_regression raised from 0.02 to NaN",
            "KIND.f1: confidence raised from 0.9 to NaN",
            "KIND.ece: ceiling raised from 0.1 to NaN",
            "KIND.ece: max_regression raised from 5% to NaN%",
        ]
        .map(with_test_kind)
        {
            assert!(
                found.iter().any(|f| f.contains(&expected)),
                "{expected}: {found:?}"
            );
        }
        assert_eq!(found.len(), 6, "{found:?}");
        assert!(loosened(&base, &base).is_empty());
    }
}
