//! Checking `[drift]` and every rule's `max_drift`: a reference path that names a file, a
//! budget that is a finite amount >= 0 in the metric's unit (a percentage for a metric
//! without an upper bound), on a metric that has a better direction, and no budget without
//! a reference to measure it against (a budget that does nothing would be a quietly weaker
//! gate).

use toml::Spanned;

use super::{Regression, Thresholds};
use crate::error::{Location, Problem};
use crate::metrics::registry::Direction;

const BUDGET_HINT: &str = "the cumulative worsening allowed against the reference: a number >= 0 in the metric's own units (e.g. 0.05) or a percentage (\"12.5%\")";

/// Every problem of `[drift]` and the rules' `max_drift`.
pub(super) fn check(t: &Thresholds, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some(reference) = t.drift.as_ref().map(|d| &d.get_ref().reference) {
        if reference.get_ref().trim().is_empty() {
            problems.push(
                Problem::new(
                    at(reference.span().start),
                    Some("drift.reference".into()),
                    "the reference is an empty path",
                )
                .with_hint("name the pinned baseline, e.g. reference = \"baselines/reference.json\" (`goldgate baseline pin` writes it)"),
            );
        }
    }
    for (name, rule) in &t.metrics {
        let Some(budget) = &rule.max_drift else {
            continue;
        };
        if let Some(problem) = check_budget(name, budget, t.drift.is_some(), at) {
            problems.push(problem);
        }
    }
    problems
}

/// The problem with one rule's `max_drift`, if any.
fn check_budget(
    name: &Spanned<String>,
    budget: &Spanned<Regression>,
    has_reference: bool,
    at: &dyn Fn(usize) -> Location,
) -> Option<Problem> {
    let here = at(budget.span().start);
    let field = Some(format!("metrics.\"{}\".max_drift", name.get_ref()));
    let problem = |message: String, hint: &str| {
        Some(Problem::new(here.clone(), field.clone(), message).with_hint(hint))
    };
    let value = *budget.get_ref();
    let amount = match value {
        Regression::Absolute(x) | Regression::Relative(x) => x,
    };
    if !(amount.is_finite() && amount >= 0.0) {
        return problem(
            format!("max_drift {value} must be a finite number >= 0"),
            BUDGET_HINT,
        );
    }
    if !has_reference {
        return problem(
            "a drift budget without a reference to measure it against".into(),
            "add [drift] reference = \"baselines/reference.json\" (written by `goldgate baseline pin`), or remove max_drift",
        );
    }
    let metric = crate::kinds::find(name.get_ref())?;
    if metric.direction == Direction::Neither {
        return problem(
            format!(
                "`{}` is better neither higher nor lower: it cannot drift worse",
                metric.name
            ),
            "bound it with `min` or `max`",
        );
    }
    if !metric.is_bounded() && matches!(value, Regression::Absolute(_)) {
        let unit = match metric.unit {
            "" => "its own units",
            unit => unit,
        };
        return problem(
            format!(
                "`{}` has no upper bound: a drift budget of {value} would be in {unit}, whatever the reference",
                metric.name
            ),
            "write max_drift = \"25%\" for a rise relative to the reference",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::thresholds::Thresholds;

    fn parse(text: &str) -> crate::error::Result<Thresholds> {
        Thresholds::parse(
            &format!("version = 1\n{text}"),
            Path::new("rules/thresholds.toml"),
        )
    }

    /// The reference is relative to the rules file; every bad budget is named at its line.
    #[test]
    fn a_reference_and_budgets_are_checked_where_they_are_written() {
        let f1 = crate::testkit::metric("f1");
        let t = parse(&format!(
            "[drift]\nreference = \"baselines/reference.json\"\n[metrics.\"{f1}\"]\nmax_drift = 0.05\n"
        ))
        .unwrap();
        let (path, at) = t.reference().unwrap();
        assert_eq!(path, Path::new("rules/baselines/reference.json"));
        assert_eq!(at.line, 3);
        for (text, line, says) in [
            (
                format!("[metrics.\"{f1}\"]\nmax_drift = 0.05\n"),
                3,
                "without a reference",
            ),
            (
                format!("[drift]\nreference = \"r.json\"\n[metrics.\"{f1}\"]\nmax_drift = -0.1\n"),
                5,
                ">= 0",
            ),
            (
                "[drift]\nreference = \"r.json\"\n[metrics.\"run.cost_usd\"]\nmax_drift = 0.5\n"
                    .to_string(),
                5,
                "no upper bound",
            ),
            ("[drift]\nreference = \" \"\n".to_string(), 3, "empty path"),
            (
                "[drift]\nrefrence = \"r.json\"\n".to_string(),
                3,
                "refrence",
            ),
        ] {
            let e = parse(&text).unwrap_err().to_string();
            assert!(
                e.contains(&format!("rules/thresholds.toml:{line}:")) && e.contains(says),
                "{text}: {e}"
            );
        }
    }
}
