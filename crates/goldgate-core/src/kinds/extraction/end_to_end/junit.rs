//! JUnit XML as CI reporters read it: only what makes the gate fail is a `<failure>` (a
//! failed rule, a broken sample of a failing gate), a failed pipeline call is an `<error>`
//! carrying its cause, tolerated samples are neither; and the file validates against the
//! strict Apache Ant schema and Jenkins' (`tests/fixtures/junit/`) with `xmllint` when the
//! machine has it (CI sets `GOLDGATE_REQUIRE_XMLLINT` so a missing validator fails there),
//! and against the attributes those schemas require in any case.

use std::path::Path;
use std::process::Command;

use goldgate::report::junit;
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::thresholds::Thresholds;

use super::failures::{failing_calls, TIMED_OUT, UNAUTHORIZED};
use super::terminal::{options, scores};
use crate::support::TempDir;

/// Values of `attribute` on every `<element ` tag.
fn attributes<'a>(xml: &'a str, element: &str, attribute: &str) -> Vec<Option<&'a str>> {
    xml.match_indices(&format!("<{element} "))
        .chain(xml.match_indices(&format!("<{element}>")))
        .map(|(at, _)| {
            let tag = &xml[at..at + xml[at..].find('>').unwrap()];
            let key = format!(" {attribute}=\"");
            tag.find(&key).map(|i| {
                let value = &tag[i + key.len()..];
                &value[..value.find('"').unwrap()]
            })
        })
        .collect()
}

/// The attributes the strict schema requires, present with values of the right form.
fn assert_required_attributes(xml: &str) {
    let suites = attributes(xml, "testsuite", "name");
    assert!(!suites.is_empty(), "no test suite:\n{xml}");
    for attribute in [
        "name",
        "tests",
        "failures",
        "errors",
        "time",
        "timestamp",
        "hostname",
        "id",
        "package",
    ] {
        for value in attributes(xml, "testsuite", attribute) {
            let value =
                value.unwrap_or_else(|| panic!("a <testsuite> without `{attribute}`:\n{xml}"));
            assert!(!value.is_empty(), "an empty `{attribute}`:\n{xml}");
        }
    }
    for stamp in attributes(xml, "testsuite", "timestamp")
        .into_iter()
        .flatten()
    {
        let shape: String = stamp
            .chars()
            .map(|c| if c.is_ascii_digit() { 'd' } else { c })
            .collect();
        assert_eq!(
            shape, "dddd-dd-ddTdd:dd:dd",
            "a timestamp without a zone: {stamp}"
        );
    }
    for time in attributes(xml, "testcase", "time") {
        let time = time.unwrap_or_else(|| panic!("a <testcase> without `time`:\n{xml}"));
        assert!(time.parse::<f64>().is_ok(), "time is a decimal: {time}");
    }
    for element in ["failure", "error"] {
        for kind in attributes(xml, element, "type") {
            assert!(
                kind.is_some_and(|t| !t.is_empty()),
                "a <{element}> without a `type`:\n{xml}"
            );
        }
    }
    assert!(
        attributes(xml, "testsuites", "name")
            .iter()
            .all(Option::is_none),
        "the strict schema allows no attributes on <testsuites>:\n{xml}"
    );
    assert_eq!(xml.matches("<properties>").count(), suites.len(), "{xml}");
    assert_eq!(
        xml.matches("<system-out>").count() + xml.matches("<system-out/>").count(),
        suites.len(),
        "{xml}"
    );
    assert_eq!(
        xml.matches("<system-err>").count() + xml.matches("<system-err/>").count(),
        suites.len(),
        "{xml}"
    );
}

/// Validate with xmllint against both schemas, where the machine has xmllint.
fn assert_valid(xml: &str, name: &str) {
    assert_required_attributes(xml);
    let found = Command::new("xmllint").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("GOLDGATE_REQUIRE_XMLLINT").is_none(),
            "xmllint is not installed (apt-get install libxml2-utils) and GOLDGATE_REQUIRE_XMLLINT is set"
        );
        return;
    }
    let dir = TempDir::new(&format!("junit-{name}"));
    let file = dir.0.join("junit.xml");
    std::fs::write(&file, xml).unwrap();
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit");
    for schema in ["ant-junit.xsd", "jenkins-junit.xsd"] {
        let out = Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(schemas.join(schema))
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name} does not validate against {schema}:\n{}\n{xml}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_passing_gate_with_tolerated_failing_samples_has_no_failure() {
    // Every sample is below sample_pass in both runs (recall 0.5), and no rule minds.
    let (base, cand) = (scores("junit-pass-base", 1), scores("junit-pass-cand", 1));
    let rules = Thresholds::parse(
        "version = 1\n[metrics.\"extraction.recall\"]\nmax_regression = 0.02\n",
        Path::new("thresholds.toml"),
    )
    .unwrap();
    let v = compare(&cand, Some(&base), &rules, &options()).unwrap();
    assert_eq!(v.exit_code, 0, "{}", v.summary);
    let xml = junit::junit(&v);
    assert!(
        !xml.contains("<failure"),
        "a passing gate shows no failure:\n{xml}"
    );
    assert!(!xml.contains("<error"), "{xml}");
    for failures in attributes(&xml, "testsuite", "failures") {
        assert_eq!(failures, Some("0"), "{xml}");
    }
    assert!(
        xml.contains("still failing"),
        "tolerated samples are still reported (in system-out):\n{xml}"
    );
    assert_valid(&xml, "pass");
}

#[test]
fn failed_rules_and_broken_samples_fail_and_failed_calls_are_errors_with_their_cause() {
    let v = failing_calls(
        "junit-fail",
        "version = 1\n[metrics.\"run.error_rate\"]\nmax = 0.9\nmax_regression = 1\n[metrics.\"extraction.recall\"]\nmin = 0.9\n",
    );
    assert_eq!(v.exit_code, 1, "{}", v.summary);
    let xml = junit::junit(&v);
    assert!(
        xml.contains("<failure type=\"rule\""),
        "the failed rule is a failure:\n{xml}"
    );
    // s5 broke without a failed call: a failure; s1, s2 crashed and s3, s4 timed out: errors.
    let case = |id: &str| {
        let at = xml
            .find(&format!("name=\"{id}\""))
            .unwrap_or_else(|| panic!("no test case {id}:\n{xml}"));
        // To the end of a self-closing case, or of one with a child.
        let end = ["/>", "</testcase>"]
            .iter()
            .filter_map(|close| xml[at..].find(close))
            .min()
            .map_or(xml.len(), |e| at + e);
        &xml[at..end]
    };
    assert!(
        case("s5").contains("<failure type=\"broken\""),
        "{}",
        case("s5")
    );
    for id in ["s1", "s2"] {
        assert!(
            case(id).contains(&format!(
                "<error type=\"exit\" message=\"crashed: {UNAUTHORIZED}\""
            )),
            "{}",
            case(id)
        );
    }
    for id in ["s3", "s4"] {
        assert!(
            case(id).contains(&format!(
                "<error type=\"timeout\" message=\"timed out: {TIMED_OUT}\""
            )),
            "{}",
            case(id)
        );
    }
    assert!(!case("s0").contains("<failure") && !case("s0").contains("<error"));
    let samples = xml.find("name=\"samples\"").unwrap();
    let tag = &xml[samples..samples + xml[samples..].find('>').unwrap()];
    assert!(
        tag.contains("failures=\"1\"") && tag.contains("errors=\"4\""),
        "the counts match the elements: {tag}"
    );
    assert_valid(&xml, "fail");
}

#[test]
fn hostile_text_and_an_incomplete_run_still_validate() {
    let v = failing_calls("junit-incomplete", "version = 1\n");
    assert_eq!(v.exit_code, 3, "{}", v.summary);
    let xml = junit::junit(&v);
    assert!(
        xml.contains("<error type=\"incomplete\""),
        "a broken run-health rule is an error, not a failure:\n{xml}"
    );
    assert_valid(&xml, "incomplete");
}
