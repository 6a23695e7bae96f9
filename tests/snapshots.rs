//! Snapshots (insta) of rendered artefacts: the settings every snapshot test uses (all
//! snapshots live in `tests/snapshots/`, wherever the test is; temporary paths and the
//! version are redacted), and the suite tables of the example project. Each kind's folder
//! snapshots what its gates render (`kinds/<kind>/end_to_end/`). Review a change with
//! `cargo insta review`, or accept it with `INSTA_UPDATE=always cargo test`.

use std::path::Path;

use goldgate::report::terminal;
use goldgate_core::suite::agreement::AgreementBuilder;
use goldgate_core::suite::stats::SuiteStats;
use goldgate_core::suite::Suite;

/// Snapshot settings: the repository's directory, temporary directories and the version
/// redacted (see [`redacting`]).
pub(crate) fn settings() -> insta::Settings {
    redacting(
        env!("CARGO_MANIFEST_DIR"),
        &std::env::temp_dir().display().to_string(),
    )
}

/// Snapshot settings redacting the checkout `root` as `[ROOT]` and goldgate's temporary
/// directories under `tmp` as `[TMP]`, in that order: insta applies filters in the order
/// they are added, and a clone that lives under the temporary directory
/// (`/tmp/goldgate-ci/examples/…`) must still read `[ROOT]/examples/…`.
pub(crate) fn redacting(root: &str, tmp: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&regex_escape(root), "[ROOT]");
    s.add_filter(
        &format!(r"{}/goldgate-[A-Za-z0-9_.-]+", regex_escape(tmp)),
        "[TMP]",
    );
    s.add_filter(&regex_escape(env!("CARGO_PKG_VERSION")), "[VERSION]");
    s
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

#[test]
fn the_suite_tables_of_the_example_project() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/requirements/suite");
    let suite = Suite::open(&root, goldgate::settings::defaults::MAX_SAMPLE_BYTES).unwrap();
    let (mut stats, mut agreement) = (SuiteStats::default(), AgreementBuilder::default());
    suite
        .each_sample(|s| {
            stats.add(s);
            agreement.add(s);
        })
        .unwrap();
    let agreement = agreement.finish();
    settings().bind(|| {
        insta::assert_snapshot!("suite_stats", terminal::stats_table(&stats));
        insta::assert_snapshot!(
            "suite_agreement",
            terminal::agreement_table(&agreement, 0.75)
        );
    });
}

/// A checkout under the temporary directory is still `[ROOT]`, and goldgate's own
/// temporary directories beside it are still `[TMP]`.
#[test]
fn a_checkout_under_the_temporary_directory_is_redacted_as_the_root() {
    let text = "/tmp/goldgate-ci.x1/examples/events/suite and /tmp/goldgate-run-7/run.jsonl";
    redacting("/tmp/goldgate-ci.x1", "/tmp").bind(|| {
        insta::assert_snapshot!(
            text,
            @"[ROOT]/examples/events/suite and [TMP]/run.jsonl"
        )
    });
}
