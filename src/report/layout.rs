//! Where a report shows each metric: the main table — which leads with the headline of
//! each kind that has a layout of its own ([`kinds::ReportLayout`]) and data in the run —
//! and the kinds' diagnostics, which are never main rows and always come with their
//! coverage. Every renderer (terminal, Markdown, HTML) lays its metrics out through here.

use goldgate_core::gate::verdict::{MetricResult, Verdict};
use goldgate_core::kinds::{self, ReportLayout};

/// The layouts of the kinds that have one, in registry order.
fn layouts() -> impl Iterator<Item = ReportLayout> {
    kinds::ALL.iter().filter_map(|k| k.report_layout())
}

/// A report's metrics, by section.
pub struct Sections<'v> {
    /// The main table's rows, in order.
    pub main: Vec<&'v MetricResult>,
    /// The chain-of-thought rates (empty without chain-of-thought records).
    pub diagnostics: Vec<&'v MetricResult>,
    /// The candidate's coverage counts: checked, skipped, did not parse.
    pub coverage: Option<[usize; 3]>,
}

impl Sections<'_> {
    /// `checked 24, skipped 1 (no thought block), 0 did not parse`.
    pub fn coverage_text(&self) -> Option<String> {
        self.coverage.map(|[checked, skipped, failed]| {
            format!("{checked} checked, {skipped} without a thought block, {failed} did not parse")
        })
    }
}

fn has_value(m: &MetricResult) -> bool {
    m.candidate.is_some() || m.baseline.is_some()
}

/// Lay out `v`'s metrics; `shown` says which metrics outside the tuple headline the main
/// table holds (gated ones, say, or those that moved).
pub fn sections<'v>(v: &'v Verdict, shown: impl Fn(&MetricResult) -> bool) -> Sections<'v> {
    let find = |name: &str| v.metrics.iter().find(|m| m.name == name);
    let mut main: Vec<&MetricResult> = Vec::new();
    let mut headlines: Vec<&str> = Vec::new();
    for layout in layouts() {
        let present = layout
            .headline
            .first()
            .and_then(|n| find(n))
            .is_some_and(has_value);
        if present {
            main.extend(
                layout
                    .headline
                    .iter()
                    .filter_map(|n| find(n))
                    .filter(|m| has_value(m)),
            );
            headlines.extend(layout.headline.iter().copied());
        }
    }
    let diagnostic = |m: &MetricResult| layouts().any(|l| (l.is_diagnostic)(&m.name));
    main.extend(
        v.metrics
            .iter()
            .filter(|m| !diagnostic(m) && !headlines.contains(&m.name.as_str()) && shown(m)),
    );
    let mut diagnostics: Vec<&MetricResult> = Vec::new();
    let mut coverage = None;
    for layout in layouts() {
        diagnostics.extend(
            layout
                .diagnostics
                .iter()
                .filter_map(|n| find(n))
                .filter(|m| has_value(m)),
        );
        let count = |name: &str| find(name).and_then(|m| m.candidate).map(|c| c as usize);
        let [checked, skipped, failed] = layout.coverage.map(count);
        if let (Some(a), Some(b), Some(c)) = (checked, skipped, failed) {
            coverage = Some([a, b, c]);
        }
    }
    Sections {
        main,
        diagnostics,
        coverage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::gate::verdict::Status;

    fn metric(name: &str, candidate: Option<f64>, ruled: bool) -> MetricResult {
        let mut m: MetricResult = serde_json::from_value(serde_json::json!({
            "name": name, "direction": "higher", "baseline": null, "candidate": candidate,
            "delta": null, "delta_ci": null, "n": 3, "rule": null, "status": "info", "reasons": []
        }))
        .unwrap();
        if ruled {
            m.status = Status::Pass;
            m.rule = Some(goldgate_core::gate::rule::Rule {
                min: Some(0.5),
                max: None,
                max_regression: None,
                max_increase: None,
                require_significance: true,
                confidence: 0.95,
                severity: "fail".into(),
                unit: None,
            });
        }
        m
    }

    fn verdict(metrics: Vec<MetricResult>) -> Verdict {
        use goldgate_core::gate::compare::{compare, CompareOptions};
        use goldgate_core::testkit::file;
        let options = CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
        };
        let rules = goldgate_core::gate::thresholds::Thresholds::built_in();
        let mut v = compare(
            &file(&[(1.0, 0.0, 0.0, false)], "1"),
            None,
            &rules,
            &options,
        )
        .unwrap();
        v.metrics = metrics;
        v
    }

    #[test]
    fn a_tuples_suite_leads_with_its_headline_and_keeps_thoughts_apart() {
        let v = verdict(vec![
            metric("tuples.stage_break_rate", Some(0.2), true),
            metric("tuples.cot_faithfulness", Some(0.9), true),
            metric("parse.error_rate", Some(0.0), true),
            metric("tuples.type_f1", Some(0.8), false),
            metric("tuples.strict_f1", Some(0.7), true),
            metric("tuples.relaxed_f1", Some(0.75), false),
            metric("tuples.cot_coverage_rate", Some(0.96), false),
            metric("tuples.cot_checked", Some(24.0), false),
            metric("tuples.cot_skipped", Some(1.0), false),
            metric("tuples.cot_parse_fail", Some(0.0), false),
            metric("tuples.cot_type_consistency", None, false),
        ]);
        let s = sections(&v, |m| m.rule.is_some());
        let names: Vec<&str> = s.main.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tuples.strict_f1",
                "tuples.relaxed_f1",
                "tuples.type_f1",
                "parse.error_rate",
                "tuples.stage_break_rate"
            ]
        );
        let diagnostics: Vec<&str> = s.diagnostics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            diagnostics,
            ["tuples.cot_faithfulness", "tuples.cot_coverage_rate"]
        );
        assert_eq!(s.coverage, Some([24, 1, 0]));
    }

    #[test]
    fn other_suites_keep_their_order() {
        let v = verdict(vec![
            metric("extraction.f1", Some(0.9), true),
            metric("tuples.strict_f1", None, false),
            metric("extraction.recall", Some(0.8), false),
        ]);
        let s = sections(&v, |m| m.rule.is_some());
        let names: Vec<&str> = s.main.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["extraction.f1"]);
        assert!(s.diagnostics.is_empty() && s.coverage.is_none());
    }
}
