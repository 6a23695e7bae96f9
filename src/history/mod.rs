//! The baseline over time: every committed version of the baseline (and of the pinned
//! reference) read from git without checking anything out ([`git`]), each version's
//! provenance and metric values as [`Point`]s, the refreshes since the reference was pinned,
//! and the pinned reference itself, read for `[drift]` ([`reference`]).

pub mod git;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use goldgate_core::error::{Error, Problem, Result};
use goldgate_core::gate::drift::{Reference, Trend};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::score::file::{AcceptedDrift, Provenance, MAX_BYTES};
use goldgate_core::score::rfc3339;

/// The schema of `goldgate history --format json`.
pub const HISTORY_SCHEMA: &str = "goldgate.history/1";

/// A metric's value in one version, with its interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Value {
    pub value: Option<f64>,
    pub ci: Option<[f64; 2]>,
}

/// One version of the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The commit that wrote it; `None` for the working copy, not committed yet.
    pub commit: Option<String>,
    /// When it was committed (RFC 3339).
    pub committed_at: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    /// When its score was made (its provenance).
    pub created_at: String,
    pub pipeline_fingerprint: Option<String>,
    /// Pinned as the reference: a committed reference has this version's `created_at`.
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_drift: Option<AcceptedDrift>,
    pub metrics: BTreeMap<String, Value>,
}

/// A version git has that is not a score file this goldgate reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub commit: String,
    pub why: String,
}

/// Every version of a baseline, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub schema: String,
    pub baseline: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The clone is shallow: older versions may be missing (`fetch-depth: 0` fetches them).
    pub shallow: bool,
    pub points: Vec<Point>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
}

/// What a version's head says: its provenance and metrics (its samples are skipped unread).
#[derive(Deserialize)]
struct Head {
    schema: String,
    provenance: Provenance,
    metrics: BTreeMap<String, goldgate_core::metrics::aggregate::Aggregate>,
}

fn head(text: &[u8]) -> std::result::Result<Head, String> {
    let head: Head = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    match head.schema == goldgate_core::score::file::SCHEMA {
        true => Ok(head),
        false => Err(format!("unknown schema `{}`", head.schema)),
    }
}

/// The history of the baseline at `baseline` (its newest `limit` committed versions when
/// given) and of the reference at `reference`, from git; the working copy is the newest
/// point when it differs from the last commit. Not a repository, or git missing: a usage
/// error saying so.
pub fn read(baseline: &Path, reference: Option<&Path>, limit: Option<usize>) -> Result<History> {
    let log = match git::file_log(baseline, limit)? {
        Ok(log) => log,
        Err(why) => {
            return Err(Error::usage(
                format!("cannot read the history of {}: {why}", baseline.display()),
                "goldgate history reads the baseline's committed versions: run it inside the repository that commits the baseline",
            ))
        }
    };
    let pins = reference.map(pins).transpose()?.unwrap_or_default();
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    let mut newest: Option<Vec<u8>> = None;
    log.each_text(MAX_BYTES, |version, text| {
        let Some(text) = text else { return true };
        let text = match text {
            Ok(text) => text,
            Err(why) => {
                skipped.push(Skipped {
                    commit: version.commit.clone(),
                    why,
                });
                return true;
            }
        };
        match head(&text) {
            Ok(h) => points.push(point(h, Some(version), &pins)),
            Err(why) => skipped.push(Skipped {
                commit: version.commit.clone(),
                why,
            }),
        }
        if newest.is_none() {
            newest = Some(text);
        }
        true
    })?;
    points.reverse();
    skipped.reverse();
    // The working copy, when it is a file that differs from the last commit.
    if let Some(text) = regular_file(baseline) {
        if newest.as_deref() != Some(text.as_slice()) {
            match head(&text) {
                Ok(h) => points.push(point(h, None, &pins)),
                Err(why) => skipped.push(Skipped {
                    commit: "working copy".into(),
                    why,
                }),
            }
        }
    }
    Ok(History {
        schema: HISTORY_SCHEMA.into(),
        baseline: baseline.display().to_string(),
        reference: reference.map(|r| r.display().to_string()),
        shallow: log.shallow,
        points,
        skipped,
    })
}

/// The bytes of `path` when it is a regular file no larger than a score file may be (a
/// FIFO or a device is never read).
fn regular_file(path: &Path) -> Option<Vec<u8>> {
    let small = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_BYTES);
    small.then(|| std::fs::read(path).ok()).flatten()
}

/// When each committed version of the reference (and its working copy) was made: the
/// baseline versions pinned.
fn pins(reference: &Path) -> Result<Vec<String>> {
    let mut made = Vec::new();
    if let Ok(log) = git::file_log(reference, None)? {
        log.each_text(MAX_BYTES, |_, text| {
            if let Some(h) = text.and_then(|t| head(&t.ok()?).ok()) {
                made.push(h.provenance.created_at);
            }
            true
        })?;
    }
    if let Some(h) = regular_file(reference).and_then(|t| head(&t).ok()) {
        made.push(h.provenance.created_at);
    }
    Ok(made)
}

fn point(h: Head, commit: Option<&git::Committed>, pins: &[String]) -> Point {
    Point {
        commit: commit.map(|c| c.commit.clone()),
        committed_at: commit.map(|c| rfc3339(c.committed_at)),
        author: commit.map(|c| c.author.clone()),
        subject: commit.map(|c| c.subject.clone()),
        pinned: pins.contains(&h.provenance.created_at),
        created_at: h.provenance.created_at,
        pipeline_fingerprint: h.provenance.pipeline_fingerprint,
        accepted_drift: h.provenance.accepted_drift,
        metrics: h
            .metrics
            .into_iter()
            .map(|(name, a)| {
                (
                    name,
                    Value {
                        value: a.value,
                        ci: a.ci,
                    },
                )
            })
            .collect(),
    }
}

/// How many times the baseline at `baseline` was refreshed since a reference made at
/// `created_at`: its versions (committed, and the working copy) made later, read newest
/// first until one as old as the reference. `None` when git cannot say (no repository, or
/// a shallow clone whose history stops before the reference).
pub fn refreshes_since(baseline: &Path, created_at: &str) -> Result<Option<usize>> {
    let Ok(log) = git::file_log(baseline, None)? else {
        return Ok(None);
    };
    let mut later: Vec<String> = Vec::new();
    let mut reached = false;
    let mut newest: Option<Vec<u8>> = None;
    log.each_text(MAX_BYTES, |_, text| {
        let Some(Ok(text)) = text else { return true };
        let made = head(&text).ok().map(|h| h.provenance.created_at);
        if newest.is_none() {
            newest = Some(text);
        }
        match made {
            Some(made) if made.as_str() <= created_at => {
                reached = true;
                false
            }
            Some(made) => {
                later.push(made);
                true
            }
            None => true,
        }
    })?;
    if let Some(text) = regular_file(baseline).filter(|t| newest.as_deref() != Some(t.as_slice())) {
        if let Some(made) = head(&text).ok().map(|h| h.provenance.created_at) {
            later.push(made);
        }
    }
    if log.shallow && !reached {
        return Ok(None);
    }
    later.sort();
    later.dedup();
    Ok(Some(
        later.iter().filter(|c| c.as_str() > created_at).count(),
    ))
}

/// The last `n` values of each of `metrics` in the baseline's versions, oldest first, with
/// when each version was made: what the PR comment shows of a failing or drifting metric.
/// Empty when git has no history of the baseline.
pub fn trends(baseline: &Path, metrics: &[&str], n: usize) -> Vec<Trend> {
    if metrics.is_empty() {
        return Vec::new();
    }
    let Ok(history) = read(baseline, None, Some(n)) else {
        return Vec::new();
    };
    let points = &history.points[history.points.len().saturating_sub(n)..];
    metrics
        .iter()
        .filter_map(|name| {
            let values: Vec<(String, f64)> = points
                .iter()
                .filter_map(|p| Some((p.created_at.clone(), p.metrics.get(*name)?.value?)))
                .collect();
            (values.len() >= 2).then(|| Trend {
                metric: name.to_string(),
                created_at: values.iter().map(|(c, _)| c.clone()).collect(),
                values: values.iter().map(|(_, v)| *v).collect(),
            })
        })
        .collect()
}

/// The pinned reference the rules' `[drift]` names, read with the refreshes of `baseline`
/// since it was pinned; `None` when the rules name none. With `base` (the base branch of
/// a pull request, and the reference its rules name), a reference the change re-pinned or
/// moved is read as it is there, and the finding says so: a change is never measured
/// against a reference it moved itself. A
/// reference the rules name that is missing, or not a score file, is an error naming where
/// the rules name it: a missing input is never a quietly weaker gate.
pub fn reference(
    thresholds: &Thresholds,
    baseline: &Path,
    base: Option<(&str, &Path)>,
) -> Result<(Option<Arc<Reference>>, Option<String>)> {
    let Some((path, at)) = thresholds.reference() else {
        return Ok((None, None));
    };
    let refuse = |message: String, hint: &str| {
        let problem = Problem::new(at.clone(), Some("drift.reference".into()), message);
        Err(Error::invalid("thresholds file", problem.with_hint(hint)))
    };
    if !path.is_file() {
        return refuse(
            format!("the drift reference {} does not exist", path.display()),
            "pin the current baseline as the reference with `goldgate baseline pin` and commit it, or remove [drift] to gate without a drift budget",
        );
    }
    if same_file(&path, baseline) {
        return refuse(
            format!("the drift reference {} is the baseline itself", path.display()),
            "the reference is a pinned copy that only `goldgate baseline pin` moves: name another file, e.g. baselines/reference.json",
        );
    }
    let moved = match base {
        Some((rev, was)) => base_reference(rev, was, &path)?,
        None => None,
    };
    let (file, finding) = match moved {
        Some((spec, text, finding)) => (
            goldgate_core::score::file::parse(&text, Path::new(&spec))?,
            Some(finding),
        ),
        None => (goldgate_core::score::file::read(&path)?, None),
    };
    // The count is said when git knows it; a history git cannot read never stops the gate.
    let refreshes = refreshes_since(baseline, &file.provenance.created_at).unwrap_or(None);
    let reference = Reference {
        file,
        path: path.display().to_string(),
        refreshes,
    };
    Ok((Some(Arc::new(reference)), finding))
}

/// The base branch's reference `was` (where its rules name it) when the change moved or
/// re-pinned it: where it was read from (`REV:path`), its text, and the finding that says
/// so. A change that points `[drift]` at another file is measured against the one it left.
/// `None` when the base branch has the same reference, unchanged.
fn base_reference(rev: &str, was: &Path, path: &Path) -> Result<Option<(String, String, String)>> {
    use goldgate_core::gate::ratchet::{normal, reference_at, text_at_revision};
    if normal(was) == normal(path) {
        return Ok(reference_at(rev, path)?
            .map(|(text, finding)| (format!("{rev}:{}", path.display()), text, finding)));
    }
    let Some((text, spec)) = text_at_revision(rev, was)? else {
        return Ok(None);
    };
    let finding = format!(
        "[drift] reference moved by this change from {} to {}: drift is measured against {rev}'s",
        was.display(),
        path.display()
    );
    Ok(Some((spec, text, finding)))
}

/// Whether two paths name the same file (both resolved; a path that does not resolve is
/// compared as written).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::testkit::{git, test_kind_file};

    fn version(path: &Path, day: u32) {
        let mut file = test_kind_file(&[(4.0, 0.0, 1.0, false)], "1");
        file.provenance.created_at = format!("2026-10-{day:02}T00:00:00Z");
        std::fs::write(path, file.to_json().unwrap()).unwrap();
    }

    /// A path with spaces, a version deleted and added again, and an uncommitted working
    /// copy: every version is read, in order, and the refreshes since a reference counted.
    #[test]
    fn every_version_of_an_awkward_path() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        std::fs::create_dir(dir.join("my baselines")).unwrap();
        let path = dir.join("my baselines").join("main [1].json");
        for (day, message) in [(1, "one"), (2, "two")] {
            version(&path, day);
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", message]);
        }
        std::fs::remove_file(&path).unwrap();
        git(dir, &["commit", "-q", "-a", "-m", "gone"]);
        version(&path, 3);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "back"]);
        version(&path, 4);
        let history = read(&path, None, None).unwrap();
        let made: Vec<&str> = history.points.iter().map(|p| &p.created_at[..10]).collect();
        assert_eq!(
            made,
            ["2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04"]
        );
        assert_eq!(history.points[3].commit, None, "the working copy");
        assert_eq!(history.points[1].subject.as_deref(), Some("two"));
        assert!(history.skipped.is_empty());
        let since = refreshes_since(&path, "2026-10-01T00:00:00Z").unwrap();
        assert_eq!(since, Some(3));
        let last = read(&path, None, Some(1)).unwrap();
        assert_eq!(
            last.points.len(),
            2,
            "the newest commit and the working copy"
        );
    }
}
