//! JUnit XML for CI systems other than GitHub (GitLab, Jenkins, Buildkite): one test case per
//! gate rule (failed when the rule broke) and one per sample (failed when it is below
//! `sample_pass`, saying whether it broke since the baseline).

use std::fmt::Write;

use crate::gate::samples::passes;
use crate::gate::verdict::{Status, Verdict};

/// XML text: escaped, with characters XML 1.0 cannot hold dropped.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The verdict as JUnit XML.
pub fn junit(v: &Verdict) -> String {
    let rules: Vec<_> = v.metrics.iter().filter(|m| m.rule.is_some()).collect();
    let rule_failures = rules
        .iter()
        .filter(|m| matches!(m.status, Status::Fail | Status::Incomplete))
        .count();
    let sample_failures = v.sample_results.iter().filter(|s| !s.pass).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"goldgate\" tests=\"{}\" failures=\"{}\">",
        rules.len() + v.sample_results.len(),
        rule_failures + sample_failures
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"gate rules\" tests=\"{}\" failures=\"{rule_failures}\">",
        rules.len()
    );
    for m in rules {
        let _ = write!(
            out,
            "    <testcase classname=\"goldgate.rules\" name=\"{}\"",
            xml(&m.name)
        );
        let reasons = xml(&m.reasons.join("; "));
        match m.status {
            Status::Fail | Status::Incomplete => {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{reasons}\">{reasons}</failure>\n    </testcase>"
                );
            }
            Status::Warn => {
                let _ = writeln!(
                    out,
                    ">\n      <system-out>warning: {reasons}</system-out>\n    </testcase>"
                );
            }
            _ => out.push_str("/>\n"),
        }
    }
    out.push_str("  </testsuite>\n");
    let _ = writeln!(
        out,
        "  <testsuite name=\"samples\" tests=\"{}\" failures=\"{sample_failures}\">",
        v.sample_results.len()
    );
    for s in &v.sample_results {
        let _ = write!(
            out,
            "    <testcase classname=\"goldgate.samples.{}\" name=\"{}\"",
            s.kind.as_str(),
            xml(&s.id)
        );
        if s.pass {
            out.push_str("/>\n");
            continue;
        }
        let message = match s.baseline {
            Some(b) if v.samples.as_ref().is_some_and(|a| passes(b, a.sample_pass)) => {
                format!("broken: primary score {b:.3} → {:.3}", s.primary)
            }
            Some(b) => format!("still failing: primary score {b:.3} → {:.3}", s.primary),
            None => format!("failing: primary score {:.3}", s.primary),
        };
        let diff = v.diffs.iter().find(|d| d.id == s.id).map(|d| {
            let answers = d
                .baseline_vs_candidate
                .as_deref()
                .map(|a| format!("\n{a}"))
                .unwrap_or_default();
            format!("{}{answers}", d.gold_vs_candidate)
        });
        let _ = writeln!(
            out,
            ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
            xml(&message),
            xml(diff.as_deref().unwrap_or(""))
        );
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_drops_what_xml_cannot_hold() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
    }
}
