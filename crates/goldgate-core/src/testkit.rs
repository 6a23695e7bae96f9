//! Helpers the tests of every goldgate crate share: the test kind (registered only in test
//! builds, listed nowhere) and its metrics' names, score files made from per-sample counts,
//! rules and comparison options as the gate's tests use them, and a git repository with a
//! fixed identity. Compiled for this crate's own tests and, through the
//! `test-support` feature (which only test builds turn on), for the crates above it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::gate::compare::CompareOptions;
use crate::gate::thresholds::Thresholds;
use crate::metrics::bootstrap::{aggregate, BootstrapConfig, Prepared};
use crate::metrics::stats::Stats;
use crate::score::file::{Provenance, SampleScore, ScoreFile, ScoringSummary};

/// Counts of one sample: (tp, fp, fn, flagged?).
type Counts = (f64, f64, f64, bool);

/// [`test_kind_file`] with every record parsed, as every scored record has a parse outcome:
/// what the sequential gate's tests decide on (its built-in ceiling on answers holding none
/// of the kind's keys reads the parse counts).
pub fn parsed_test_kind_file(samples: &[Counts]) -> ScoreFile {
    let mut file = test_kind_file(samples, "1");
    for s in &mut file.samples {
        s.stats.add("parse.records", 1.0);
        s.stats.add("parse.raw", 1.0);
    }
    file
}

/// Sample `id` of the test kind as the sequential gate plans it, sent in `stratum`: with
/// `gold` marks and answers of at most `max_items`, each of `keys` bounded as the test
/// kind bounds a record (found and missed marks at most the gold's, extra ones at most
/// `max_items`, every other count at most 1).
pub fn planned_test_kind(
    id: &str,
    stratum: &str,
    gold: f64,
    max_items: f64,
    keys: &[&str],
) -> crate::gate::sequential::decide::Planned {
    let bound = |key: &&str| match key.rsplit('.').next() {
        Some("tp" | "fn") => Some(gold),
        Some("fp") => Some(max_items),
        _ => Some(1.0),
    };
    crate::gate::sequential::decide::Planned {
        id: id.to_string(),
        kind: crate::kinds::kind_of(test_kind()),
        stratum: stratum.to_string(),
        bounds: keys.iter().map(bound).collect(),
    }
}

/// Samples of the test kind of 5 gold marks each, `found[i]` of sample i's found and no
/// false positive, scored under metrics version "1".
pub fn found_marks(found: &[usize]) -> ScoreFile {
    let samples: Vec<Counts> = found
        .iter()
        .map(|&f| (f as f64, 0.0, (5 - f) as f64, false))
        .collect();
    test_kind_file(&samples, "1")
}

/// A score file of samples of the test kind ([`test_kind`]) given as (tp, fp, fn,
/// flagged?): each sample's marks found, marks named that are not gold, gold marks missed,
/// and whether its answer named a mark the conversation does not (its `flagged_rate`, a
/// rate where lower is better). Its primary score is the marks' F1. What tests of generic
/// code (rules, verdicts, reports) score, so they name no kind.
pub fn test_kind_file(samples: &[Counts], version: &str) -> ScoreFile {
    let kind = test_kind();
    let stat = |name: &str| format!("{}.{name}", kind.name());
    let scores: Vec<SampleScore> = samples
        .iter()
        .enumerate()
        .map(|(i, &(tp, fp, fn_, flagged))| {
            let mut stats = Stats::default();
            for (k, v) in [
                ("records", 1.0),
                ("tp", tp),
                ("fp", fp),
                ("fn", fn_),
                ("flagged_records", f64::from(u8::from(flagged))),
            ] {
                stats.add_dynamic(stat(k), v);
            }
            stats.add("run.records", 1.0);
            let p = crate::metrics::precision(tp, fp, fn_);
            let r = crate::metrics::recall(tp, fp, fn_);
            SampleScore {
                id: format!("s-{i}"),
                kind: crate::kinds::kind_of(kind),
                domain: "d".into(),
                difficulty: crate::sample::Difficulty::Medium,
                task: None,
                tags: Vec::new(),
                repeats: 1,
                primary: crate::metrics::f1(p, r),
                primary_std: 0.0,
                primary_runs: vec![],
                earlier_runs: vec![],
                failed: 0,
                errors: vec![],
                parse: vec![],
                latency_ms: vec![],
                matching: Vec::new(),
                judge_failure: None,
                judge_suspect: Vec::new(),
                schema_violations: None,
                metrics: Default::default(),
                stats,
            }
        })
        .collect();
    let refs: Vec<&Stats> = scores.iter().map(|s| &s.stats).collect();
    let catalog = crate::kinds::catalog(refs.iter().flat_map(|s| s.iter().map(|(k, _)| k)));
    let prepared = Prepared::new(catalog, &refs, vec![&[][..]; scores.len()]);
    let members: Vec<usize> = (0..scores.len()).collect();
    let cfg = BootstrapConfig {
        resamples: 0,
        ..BootstrapConfig::default()
    };
    let metrics = aggregate(&prepared, &members, &cfg, "all")
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    ScoreFile {
        schema: crate::score::file::SCHEMA.into(),
        metrics_version: version.into(),
        protocol_version: "1".into(),
        provenance: Provenance {
            suite_name: None,
            suite_path: "s".into(),
            suite_fingerprint: "sha256:x".into(),
            run_path: "r".into(),
            pipeline_fingerprint: None,
            pipeline: None,
            model: None,
            git_sha: None,
            git_ref: None,
            created_at: "1970-01-01T00:00:00Z".into(),
            goldgate_version: "0".into(),
            repeats: 1,
            records: samples.len(),
            bootstrap: cfg,
            scoring: ScoringSummary {
                similarity: "lexical".into(),
                model: None,
                model_fingerprint: None,
                requirement_threshold: 0.6,
                ac_threshold: 0.5,
                type_rule: true,
                actor_rule: true,
                schema: Default::default(),
                id_pattern: String::new(),
                rd_weights: [0.4, 0.3, 0.2, 0.1],
                judge: None,
            },
            accepted_drift: None,
        },
        metrics,
        groups: Default::default(),
        samples: scores,
        missing: vec![],
        keyless: vec![],
    }
}

pub fn rules(text: &str) -> Thresholds {
    Thresholds::parse(&format!("version = 1\n{text}"), Path::new("t.toml")).unwrap()
}

/// The built-in rules ([`Thresholds::built_in`]), gating the test kind's primary metric as
/// they gate every listed kind's (the real ones leave out a kind that is listed nowhere).
pub fn built_in_rules() -> Thresholds {
    let mut rules = Thresholds::built_in();
    let primary = test_kind().primary_metric().to_string();
    rules
        .metrics
        .insert(toml::Spanned::new(0..0, primary), Default::default());
    rules
}

pub fn options() -> CompareOptions {
    CompareOptions {
        bootstrap: BootstrapConfig {
            resamples: 400,
            ..BootstrapConfig::default()
        },
        allow_version_change: false,
        ratchet: vec![],
        reference: None,
    }
}

/// Run `git args` in `dir` with a fixed identity and no system or global
/// configuration, failing the test when git fails: the one helper for unit tests that
/// build a repository (the answer and embedding caches, the fingerprint).
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The repository's root (the workspace's): where `examples/` and `tests/cases/` are.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The labels of a JSON mapping of label lists, read by the kinds' shapes (a test's gold).
pub fn labels(value: serde_json::Value) -> crate::sample::Labels {
    let lists = value.as_object().cloned().unwrap_or_default();
    crate::kinds::read_labels(lists)
        .unwrap_or_else(|(key, e)| panic!("labels.{key} do not read: {e}"))
}

/// The kind test builds register and list nowhere: what tests of generic code (rules,
/// verdicts, reports) use where they need a kind, so they name none.
pub fn test_kind() -> &'static dyn crate::kinds::TaskKind {
    *crate::kinds::ALL
        .iter()
        .find(|k| !k.listed())
        .expect("test builds register a kind they do not list")
}

/// The full name of the test kind's metric `name` (`f1`, `recall`, `flagged_rate`, `ece`):
/// what tests of rules and verdicts gate, so they name no kind.
pub fn metric(name: &str) -> String {
    let kind = test_kind();
    let full = format!("{}.{name}", kind.name());
    assert!(
        kind.metrics().iter().any(|m| m.name == full),
        "the test kind has no metric `{full}`"
    );
    full
}

/// The documents of a suite made of `files` (name, text) in `dir`, loaded one by one (each
/// with its sample and problems).
pub fn load_documents(dir: &Path, files: &[(&str, &str)]) -> Vec<crate::suite::Loaded> {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let suite = crate::suite::Suite::open(dir, 16 << 20).unwrap();
    suite.reader().collect()
}

/// Every problem of `loaded` as `file:line:col: severity: field: message`, file names only.
pub fn problem_lines(loaded: &[crate::suite::Loaded]) -> Vec<String> {
    use crate::error::Severity;
    loaded
        .iter()
        .flat_map(|l| &l.problems)
        .map(|p| {
            let file = p.location.path.file_name().unwrap().to_string_lossy();
            let severity = match p.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            format!(
                "{file}:{}:{}: {severity}: {}: {}",
                p.location.line,
                p.location.column,
                p.field.as_deref().unwrap_or("-"),
                p.message
            )
        })
        .collect()
}

/// A sample of `kind` whose conversation is one user message, `said`, and whose gold is
/// `labels` (a JSON mapping of label lists).
pub fn sample(
    kind: crate::sample::Kind,
    said: &str,
    labels: serde_json::Value,
) -> crate::sample::Sample {
    use crate::sample::{Difficulty, Message, Sample, Written};
    Sample {
        id: "s".into(),
        kind,
        domain: "d".into(),
        difficulty: Difficulty::Medium,
        conversation: vec![Message {
            role: "user".into(),
            content: said.into(),
        }],
        user_input: None,
        reference_srs: None,
        task: None,
        text: None,
        tags: vec![],
        labels: self::labels(labels),
        annotations: vec![],
        discussion: vec![],
        review: None,
        written: Written::default(),
        origin: crate::error::Location::file(Path::new("s.yaml")),
    }
}

/// The record `kind` scores for the answer `text` to `sample`, as the scorer makes one: the
/// text parsed, the gold prepared.
pub fn scored(
    kind: &dyn crate::kinds::TaskKind,
    sample: &crate::sample::Sample,
    text: &str,
) -> crate::kinds::Record {
    let cfg = crate::metrics::ScoringConfig::default();
    let parsed = crate::parse::parse_answer_as::<crate::parse::json::Json>(text);
    let answer = crate::kinds::Parsed {
        value: parsed.value.as_ref(),
        outcome: parsed.outcome,
        text,
        region: parsed.region.as_ref(),
    };
    let gold = kind.prepare(sample, &cfg);
    kind.score(sample, &gold, &answer, &cfg)
}

/// The items of the answer `text` to `sample` and of its gold, lined up by the pairs
/// [`scored`]'s record matched: what the diff of a broken sample shows.
pub fn lined_up(
    kind: &dyn crate::kinds::TaskKind,
    sample: &crate::sample::Sample,
    text: &str,
) -> crate::kinds::aligned::Aligned {
    let record = scored(kind, sample, text);
    let parsed = crate::parse::parse_answer_as::<crate::parse::json::Json>(text);
    kind.aligned(sample, parsed.value.as_ref(), &record.pairs)
}
