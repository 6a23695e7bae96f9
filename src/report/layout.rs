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
                max_drift: None,
            });
        }
        m
    }

    fn verdict(metrics: Vec<MetricResult>) -> Verdict {
        use goldgate_core::gate::compare::{compare, CompareOptions};
        use goldgate_core::testkit::test_kind_file as file;
        let options = CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
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

    /// A kind that lays its metrics out itself, picked from the registry, with its layout.
    fn laid_out() -> (&'static dyn kinds::TaskKind, ReportLayout) {
        kinds::ALL
            .iter()
            .find_map(|k| Some((*k, k.report_layout()?)))
            .expect("a registered kind lays out its metrics")
    }

    #[test]
    fn a_suite_of_a_kind_with_a_layout_leads_with_its_headline_and_keeps_thoughts_apart() {
        let (kind, layout) = laid_out();
        let (headline, diagnostics) = (layout.headline, layout.diagnostics);
        let [checked, skipped, failed] = layout.coverage;
        // One of the kind's metrics that the layout neither leads with nor keeps apart.
        let other = kind
            .metrics()
            .iter()
            .map(|m| m.name)
            .find(|n| !headline.contains(n) && !(layout.is_diagnostic)(n))
            .expect("a metric outside the headline and the diagnostics");
        // Some of the headline's rows, given out of order; some diagnostics, one without a
        // value; the coverage counts.
        let v = verdict(vec![
            metric(other, Some(0.2), true),
            metric(diagnostics[0], Some(0.9), true),
            metric(headline[5], Some(0.0), true),
            metric(headline[2], Some(0.8), false),
            metric(headline[0], Some(0.7), true),
            metric(headline[1], Some(0.75), false),
            metric(diagnostics[3], Some(0.96), false),
            metric(checked, Some(24.0), false),
            metric(skipped, Some(1.0), false),
            metric(failed, Some(0.0), false),
            metric(diagnostics[1], None, false),
        ]);
        let s = sections(&v, |m| m.rule.is_some());
        let names: Vec<&str> = s.main.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [headline[0], headline[1], headline[2], headline[5], other]
        );
        let shown_apart: Vec<&str> = s.diagnostics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(shown_apart, [diagnostics[0], diagnostics[3]]);
        assert_eq!(s.coverage, Some([24, 1, 0]));
    }

    #[test]
    fn other_suites_keep_their_order() {
        let kind = goldgate_core::testkit::test_kind();
        assert!(kind.report_layout().is_none(), "a kind without a layout");
        let (f1, recall) = (
            format!("{}.f1", kind.name()),
            format!("{}.recall", kind.name()),
        );
        let (_, layout) = laid_out();
        let v = verdict(vec![
            metric(&f1, Some(0.9), true),
            metric(layout.headline[0], None, false),
            metric(&recall, Some(0.8), false),
        ]);
        let s = sections(&v, |m| m.rule.is_some());
        let names: Vec<&str> = s.main.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, [f1.as_str()]);
        assert!(s.diagnostics.is_empty() && s.coverage.is_none());
    }
}
