//! A sequential verdict through the library, as `check --sequential` makes it: the rules'
//! questions decided on the first samples of a 400-sample suite of the test kind, the
//! verdict of the samples that ran made the full suite's (`sequential::report::apply`), and
//! the artefacts it renders — the PR comment, the terminal verdict and JUnit XML as
//! snapshots, the HTML report's notice escaped. Judged again from the file alone (`publish`
//! on a fork's verdict), the samples it did not send count as missing.

use goldgate::report::{html, junit, markdown, terminal};
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::sequential::decide::{Decisions, Planned};
use goldgate_core::gate::sequential::questions::{keys, questions};
use goldgate_core::gate::sequential::report::{apply, SequentialReport};
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};
use goldgate_core::testkit::{
    metric, options, parsed_test_kind_file, planned_test_kind, rules, test_kind,
};

use crate::snapshots::settings;

const SAMPLES: usize = 400;

/// (tp, fp, fn) of sample `i` of 4 gold marks: all found, or one when `dropped` and the
/// sample is among the 30% a drop picks; an extra mark in every fifth sample.
fn counts(dropped: bool) -> Vec<(f64, f64, f64, bool)> {
    (0..SAMPLES)
        .map(|i| {
            let tp = if dropped && (i * 7) % 10 < 3 {
                1.0
            } else {
                4.0
            };
            let fp = f64::from(u8::from(i % 5 == 0));
            (tp, fp, 4.0 - tp, false)
        })
        .collect()
}

/// The verdict of a sequential check of a clear drop: the samples fed in order until every
/// question is decided, the verdict of those that ran made the full suite's.
fn sequential_verdict() -> (
    Verdict,
    goldgate_core::gate::thresholds::Thresholds,
    goldgate_core::score::ScoreFile,
    usize,
) {
    let text = format!(
        "[matching]\nmax_items = 6\n[metrics.\"{}\"]\nmax_regression = 0.02\nrequire_significance = true\n",
        metric("f1")
    );
    let rules = rules(&text);
    let baseline = parsed_test_kind_file(&counts(false));
    let candidate = parsed_test_kind_file(&counts(true));
    let kind = goldgate_core::kinds::kind_of(test_kind());
    let asked = questions(&rules, Some(&baseline), None, &[kind]);
    let keys = keys(&asked);
    let planned: Vec<Planned> = candidate
        .samples
        .iter()
        .map(|s| planned_test_kind(&s.id, "all", 4.0, 6.0, &keys))
        .collect();
    let mut decisions = Decisions::new(asked, keys, planned, &[], (Some(&baseline), None));
    for sample in &candidate.samples {
        if decisions.all_decided() {
            break;
        }
        decisions.observe(sample);
    }
    let ran = decisions.answered();
    assert!(ran < SAMPLES / 2, "decided after {ran} samples");
    let partial = parsed_test_kind_file(&counts(true)[..ran]);
    let mut verdict = compare(&partial, Some(&baseline), &rules, &options()).unwrap();
    let mut report = SequentialReport::of(&decisions, 0x3f2a_0000_0000_0001, 8, 0);
    report.not_needed = candidate.samples[ran..]
        .iter()
        .map(|s| s.id.clone())
        .collect();
    report.calls_not_made = SAMPLES - ran;
    report.cost_not_spent_usd = Some(0.005 * (SAMPLES - ran) as f64);
    apply(&mut verdict, &decisions, report);
    (verdict, rules, baseline, ran)
}

#[test]
fn a_sequential_verdict_is_the_full_suites_and_says_what_was_not_needed() {
    let (verdict, _, _, ran) = sequential_verdict();
    assert_eq!(verdict.verdict, Outcome::Fail, "{}", verdict.summary);
    let f1 = verdict
        .metrics
        .iter()
        .find(|m| m.name == metric("f1"))
        .unwrap();
    assert_eq!(f1.status, Status::Fail);
    assert!(
        f1.reasons[0].contains("on the full suite"),
        "{:?}",
        f1.reasons
    );
    // The samples not sent are neither missing nor removed since the baseline.
    assert!(verdict.missing.is_empty() && verdict.removed.is_empty());
    let s = verdict.sequential.as_ref().unwrap();
    assert!(s.stopped_early);
    assert_eq!(s.not_needed.len(), SAMPLES - ran);
    assert!(
        verdict
            .summary
            .ends_with(&format!("(decided after {ran} of {SAMPLES} samples)")),
        "{}",
        verdict.summary
    );
    // It reads back as written, and its schema holds it.
    let text = serde_json::to_string(&verdict).unwrap();
    let back: Verdict = serde_json::from_str(&text).unwrap();
    assert_eq!(back.sequential, verdict.sequential);
}

#[test]
fn the_artefacts_of_a_sequential_verdict() {
    let (verdict, _, _, _) = sequential_verdict();
    settings().bind(|| {
        let comment = markdown::comment(&verdict, "goldgate", None).unwrap();
        insta::assert_snapshot!("sequential_comment", comment);
        insta::assert_snapshot!("sequential_verdict_text", terminal::verdict(&verdict));
        insta::assert_snapshot!("sequential_junit", junit::junit(&verdict));
    });
    let candidate = parsed_test_kind_file(&counts(true)[..10]);
    let page = html::report(&verdict, &candidate, None).unwrap();
    assert!(
        page.contains("<strong>Sequential check</strong>: Decided after"),
        "no notice"
    );
}

#[test]
fn judged_again_from_the_file_the_samples_not_sent_are_missing() {
    // A sequential pass cannot be checked from a verdict file: nothing in it shows the
    // samples it did not send would have kept the rules.
    let (mut verdict, rules, baseline, _) = sequential_verdict();
    verdict.verdict = Outcome::Pass;
    let options = goldgate_core::gate::rederive::RederiveOptions {
        ratchet: &[],
        allow_version_change: false,
        reference: None,
    };
    let again = goldgate_core::gate::rederive::rederive(&verdict, Some(&baseline), &rules, options)
        .unwrap();
    assert_eq!(
        again.verdict.verdict,
        Outcome::Incomplete,
        "{}",
        again.verdict.summary
    );
    let not_needed = verdict.sequential.as_ref().unwrap().not_needed.len();
    assert_eq!(again.verdict.missing.len(), not_needed);
}

#[test]
fn a_sequential_check_stopped_by_its_budget_ends_and_names_what_it_decided() {
    // The pipeline reports no cost and there are no prices: the budget cannot be kept, and
    // the run stops at its first answer. The calls still waiting for their turn must find
    // the budget closed, not wait for samples that will never be answered.
    let tmp = crate::support::TempDir::new("sequential-budget");
    let suite = crate::support::project::test_suite(&tmp.0, 120);
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pipelines/jsonl_echo.py"),
        tmp.0.join("p.py"),
    )
    .unwrap();
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg(env!("CARGO_BIN_EXE_goldgate"))
        .args(["check", "--suite"])
        .arg(&suite)
        .args([
            "--command",
            "python3 p.py",
            "--mode",
            "jsonl",
            "--jobs",
            "2",
        ])
        .args(["--sequential", "--max-cost", "1"])
        .current_dir(&tmp.0)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let said = crate::support::output::text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains("budget"), "{said}");
    assert!(said.contains("sequential check stopped after"), "{said}");
    // A sequential check cannot go on from a partial run: it is not told to.
    assert!(!said.contains("--resume"), "{said}");
    assert!(said.contains("a sequential check starts over"), "{said}");
}

/// `check --sequential` of a fresh project of `n` samples answered by `jsonl_echo.py`, with
/// `env`: its verdict file, and everything it wrote.
fn echo_check(name: &str, env: &[(&str, &str)]) -> (serde_json::Value, String) {
    let tmp = crate::support::TempDir::new(name);
    let suite = crate::support::project::test_suite(&tmp.0, 60);
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pipelines/jsonl_echo.py"),
        tmp.0.join("p.py"),
    )
    .unwrap();
    let suite = suite.display().to_string();
    let args = [
        "check",
        "--suite",
        &suite,
        "--command",
        "python3 p.py",
        "--mode",
        "jsonl",
        "--sequential",
    ];
    let out = crate::support::project::goldgate(&tmp.0, &args, env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::output::text(&out.stderr)
    );
    let dir = tmp.0.join(".goldgate/out");
    let verdict = std::fs::read_to_string(dir.join("verdict.json")).unwrap();
    let mut written = format!(
        "{}{}",
        crate::support::output::text(&out.stdout),
        crate::support::output::text(&out.stderr)
    );
    for file in crate::support::files_below(&tmp.0) {
        written.push_str(&String::from_utf8_lossy(&std::fs::read(file).unwrap()));
    }
    (serde_json::from_str(&verdict).unwrap(), written)
}

#[test]
fn a_secret_salt_changes_the_order_and_is_written_nowhere() {
    let salt = "salt-4b1d-never-written";
    let (plain, _) = echo_check("sequential-plain", &[]);
    let (salted_verdict, written) =
        echo_check("sequential-salted", &[("GOLDGATE_SEQUENTIAL_SALT", salt)]);
    let (plain, salted) = (&plain["sequential"], &salted_verdict["sequential"]);
    assert_eq!(plain["salted"], serde_json::Value::Null, "{plain}");
    assert_eq!(salted["salted"], true, "{salted}");
    assert_ne!(plain["seed"], salted["seed"], "the salt goes into the seed");
    assert!(!written.contains(salt), "the salt is written somewhere");
    // Keyed with HMAC-SHA-256, which no seed seen in a comment lets anyone run backwards
    // (a hash that can be, once the salt's state is worked out, gives every later order).
    let fingerprint = salted_verdict["provenance"]["candidate"]["pipeline_fingerprint"]
        .as_str()
        .expect("the candidate's fingerprint");
    let seed = |v: &serde_json::Value| v["seed"].as_str().expect("a seed").to_string();
    let hex = |n: u64| format!("{n:016x}");
    assert_eq!(
        seed(plain),
        hex(goldgate_core::rng::label_hash(fingerprint))
    );
    assert_eq!(
        seed(salted),
        hex(goldgate_core::rng::keyed_seed(salt, fingerprint))
    );
}

#[test]
fn a_change_that_switches_the_sequential_check_on_for_itself_is_a_loosened_rule() {
    let tmp = crate::support::TempDir::new("sequential-ratchet");
    let dir = &tmp.0;
    crate::support::project::test_suite(dir, 30);
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pipelines/jsonl_echo.py"),
        dir.join("p.py"),
    )
    .unwrap();
    let config = "[pipeline]\nkind = \"command\"\ncommand = \"python3 p.py\"\nmode = \"jsonl\"\n\n[check]\nsuite = \"suite\"\n";
    std::fs::write(dir.join("goldgate.toml"), config).unwrap();
    crate::support::project::git_repo(dir);
    crate::support::project::commit_all(dir, "the base branch");
    std::fs::write(
        dir.join("goldgate.toml"),
        format!("{config}sequential = true\n"),
    )
    .unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--base-ref", "HEAD", "--format", "json"];
        args.extend_from_slice(extra);
        let out = crate::support::project::goldgate(dir, &args, &[]);
        let verdict: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", crate::support::output::text(&out.stderr)));
        (out.status.code(), verdict)
    };
    let (code, verdict) = check(&[]);
    assert_eq!(code, Some(0), "a warning, not a failure: {verdict}");
    assert_eq!(verdict["verdict"], "warn", "{}", verdict["summary"]);
    let finding = verdict["ratchet"][0].as_str().unwrap_or_default();
    assert!(finding.contains("sequential = true"), "{finding}");
    // Asked for by the workflow (`--sequential`), it is the workflow's choice.
    let (_, verdict) = check(&["--sequential"]);
    assert_eq!(
        verdict["ratchet"],
        serde_json::json!([]),
        "{}",
        verdict["summary"]
    );
}

/// `[run] max_errors` counts the failed calls of the whole suite: a sequential check sends
/// every sample with it, and so trips where the full check trips (incomplete), instead of
/// deciding its rules before the failures past the limit come in.
#[test]
fn a_sequential_check_with_max_errors_trips_as_the_full_check_does() {
    let tmp = crate::support::TempDir::new("sequential-max-errors");
    let dir = &tmp.0;
    let suite = crate::support::project::test_suite(dir, 400);
    let suite = suite.display().to_string();
    std::fs::write(
        dir.join("ok.sh"),
        "cat >/dev/null\necho '{\"marks\": []}'\n",
    )
    .unwrap();
    // Eight of the 400 samples (2%) crash: their ids end in 13 or 57.
    std::fs::write(
        dir.join("some.sh"),
        "request=$(cat)\ncase \"$request\" in\n  *'\"id\":\"s-'*13'\"'*|*'\"id\":\"s-'*57'\"'*) exit 3 ;;\nesac\necho '{\"marks\": []}'\n",
    )
    .unwrap();
    let refresh = [
        "baseline",
        "refresh",
        "--suite",
        &suite,
        "--command",
        "sh ok.sh",
    ];
    let out = crate::support::project::goldgate(dir, &refresh, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::output::text(&out.stderr)
    );
    for mode in ["--full", "--sequential"] {
        let args = [
            "check",
            "--suite",
            &suite,
            "--command",
            "sh some.sh",
            "--max-errors",
            "5",
            "--retries",
            "0",
            mode,
        ];
        let out = crate::support::project::goldgate(dir, &args, &[]);
        let said = format!(
            "{}{}",
            crate::support::output::text(&out.stdout),
            crate::support::output::text(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(3), "{mode}: {said}");
    }
}
