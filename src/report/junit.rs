//! JUnit XML for CI systems other than GitHub (GitLab, Jenkins, Buildkite): one test case per
//! gate rule and one per sample, with the meaning CI reporters give the elements. Only what
//! makes the gate fail is a `<failure>`: a failed rule, and a broken sample (passing in the
//! baseline, failing now) of a failing gate. A failed pipeline call is an `<error>` carrying
//! its kind and cause, and so is a broken run-health rule (an incomplete run). Samples that
//! fail but are tolerated (failing in both runs, or broken while the gate still passes) pass
//! as test cases and are listed in their suite's `<system-out>`. The file validates against
//! the strict Apache Ant schema and Jenkins': a suite has `id`, `package`, `name`,
//! `timestamp` (without a zone), `hostname`, `tests`, `failures`, `errors` and `time`,
//! `properties` (at least one), then its cases, `system-out` and `system-err`; a case has a
//! `time` and at most one `failure` or `error`, which has a `type`.

use std::fmt::Write;

use goldgate_core::escape::{xml, xml_attribute};
use goldgate_core::gate::samples::passes;
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};

/// What one test case reports.
enum Verdicted {
    Pass,
    /// `<failure type=…>`: it makes the gate fail.
    Failure(&'static str, String, String),
    /// `<error type=…>`: the pipeline (or the run) did not do its part.
    Error(String, String, String),
}

/// One `<testsuite>` being written.
struct Suite {
    cases: String,
    tests: usize,
    failures: usize,
    errors: usize,
    notes: String,
}

impl Suite {
    fn new() -> Suite {
        Suite {
            cases: String::new(),
            tests: 0,
            failures: 0,
            errors: 0,
            notes: String::new(),
        }
    }

    fn case(&mut self, classname: &str, name: &str, outcome: Verdicted) {
        self.tests += 1;
        let _ = write!(
            self.cases,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
            xml_attribute(classname),
            xml_attribute(name)
        );
        let (element, kind, message, body) = match outcome {
            Verdicted::Pass => {
                self.cases.push_str("/>\n");
                return;
            }
            Verdicted::Failure(kind, message, body) => {
                self.failures += 1;
                ("failure", kind.to_string(), message, body)
            }
            Verdicted::Error(kind, message, body) => {
                self.errors += 1;
                ("error", kind, message, body)
            }
        };
        let _ = writeln!(
            self.cases,
            ">\n      <{element} type=\"{}\" message=\"{}\">{}</{element}>\n    </testcase>",
            xml_attribute(&kind),
            xml_attribute(&message),
            xml(&body)
        );
    }

    fn note(&mut self, line: &str) {
        self.notes.push_str(line);
        self.notes.push('\n');
    }

    fn write(&self, out: &mut String, id: usize, name: &str, head: &SuiteHead) {
        let _ = writeln!(
            out,
            "  <testsuite id=\"{id}\" package=\"goldgate\" name=\"{name}\" timestamp=\"{}\" hostname=\"localhost\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"0\">",
            head.timestamp, self.tests, self.failures, self.errors
        );
        out.push_str("    <properties>\n");
        for (key, value) in &head.properties {
            let _ = writeln!(
                out,
                "      <property name=\"{key}\" value=\"{}\"/>",
                xml_attribute(value)
            );
        }
        out.push_str("    </properties>\n");
        out.push_str(&self.cases);
        match self.notes.is_empty() {
            true => out.push_str("    <system-out/>\n"),
            false => {
                let _ = writeln!(out, "    <system-out>{}</system-out>", xml(&self.notes));
            }
        }
        out.push_str("    <system-err/>\n  </testsuite>\n");
    }
}

/// What every suite repeats: when the gate ran and what it decided.
struct SuiteHead {
    timestamp: String,
    properties: Vec<(&'static str, String)>,
}

/// `YYYY-MM-DDTHH:MM:SS` of an RFC 3339 time (the schema allows no zone and no fraction);
/// the epoch when it is not one.
fn timestamp(rfc3339: &str) -> String {
    let head: String = rfc3339.chars().take(19).collect();
    let shape: String = head
        .chars()
        .map(|c| if c.is_ascii_digit() { 'd' } else { c })
        .collect();
    match shape == "dddd-dd-ddTdd:dd:dd" {
        true => head,
        false => "1970-01-01T00:00:00".into(),
    }
}

/// The verdict as JUnit XML.
pub fn junit(v: &Verdict) -> String {
    let word = match v.verdict {
        Outcome::Pass => "pass",
        Outcome::Warn => "warn",
        Outcome::Fail => "fail",
        Outcome::Incomplete => "incomplete",
    };
    let head = SuiteHead {
        timestamp: timestamp(&v.provenance.candidate.created_at),
        properties: vec![
            ("goldgate.verdict", word.to_string()),
            ("goldgate.summary", v.summary.clone()),
            (
                "goldgate.version",
                v.provenance.candidate.goldgate_version.clone(),
            ),
        ],
    };
    let mut head = head;
    if let Some(s) = &v.sequential {
        head.properties.extend([
            ("goldgate.sequential.answered", s.answered.to_string()),
            ("goldgate.sequential.samples", s.samples.to_string()),
            (
                "goldgate.sequential.calls_not_made",
                s.calls_not_made.to_string(),
            ),
        ]);
    }
    let mut rules = Suite::new();
    for line in super::sequential::lines(v) {
        rules.note(&line);
    }
    for m in v.metrics.iter().filter(|m| m.rule.is_some()) {
        let reasons = m.reasons.join("; ");
        let outcome = match m.status {
            Status::Fail => Verdicted::Failure("rule", reasons.clone(), reasons),
            Status::Incomplete => Verdicted::Error("incomplete".into(), reasons.clone(), reasons),
            Status::Warn => {
                rules.note(&format!("warning: {}: {reasons}", m.name));
                Verdicted::Pass
            }
            Status::Pass | Status::Info => Verdicted::Pass,
        };
        rules.case("goldgate.rules", &m.name, outcome);
    }
    let gate_fails = v.verdict == Outcome::Fail;
    let sample_pass = v.samples.as_ref().map(|a| a.sample_pass);
    let mut samples = Suite::new();
    for s in &v.sample_results {
        let classname = format!("goldgate.samples.{}", s.kind.as_str());
        let diff = v.diffs.iter().find(|d| d.id == s.id).map(|d| {
            let answers = d
                .baseline_vs_candidate
                .as_deref()
                .map(|a| format!("\n{a}"))
                .unwrap_or_default();
            let schema = match d.schema.is_empty() {
                true => String::new(),
                false => format!("not schema-compliant:\n  {}\n", d.schema.join("\n  ")),
            };
            format!("{}{schema}{answers}", d.gold_vs_candidate)
        });
        let broke = !s.pass
            && s.baseline
                .zip(sample_pass)
                .is_some_and(|(b, pass)| passes(b, pass));
        let scores = match s.baseline {
            Some(b) => format!("primary score {b:.3} → {:.3}", s.primary),
            None => format!("primary score {:.3}", s.primary),
        };
        let outcome = if let Some(e) = &s.error {
            let message = format!("{}: {}", e.kind.outcome(), e.message);
            let body = diff.map_or_else(|| message.clone(), |d| format!("{message}\n{d}"));
            Verdicted::Error(e.kind.as_str().into(), message, body)
        } else if broke && gate_fails {
            let message = format!("broken: {scores}");
            Verdicted::Failure("broken", message.clone(), diff.unwrap_or(message))
        } else {
            if broke {
                samples.note(&format!(
                    "{}: broken, tolerated by the rules: {scores}",
                    s.id
                ));
            } else if !s.pass {
                let what = match s.baseline {
                    Some(_) => "still failing",
                    None => "failing",
                };
                samples.note(&format!("{}: {what}: {scores}", s.id));
            }
            Verdicted::Pass
        };
        samples.case(&classname, &s.id, outcome);
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    rules.write(&mut out, 0, "gate rules", &head);
    samples.write(&mut out, 1, "samples", &head);
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_shows_what_xml_cannot_hold() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;␁"
        );
    }

    #[test]
    fn timestamps_lose_their_zone() {
        assert_eq!(timestamp("2024-05-01T12:30:00Z"), "2024-05-01T12:30:00");
        assert_eq!(
            timestamp("2024-05-01T12:30:00.123+02:00"),
            "2024-05-01T12:30:00"
        );
        assert_eq!(timestamp("yesterday"), "1970-01-01T00:00:00");
    }
}
