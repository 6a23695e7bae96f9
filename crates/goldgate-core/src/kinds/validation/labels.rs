//! Validation's labels: the quality issues and the PII strings a labeller writes, their
//! keys, enums and the checks `suite lint` holds them to.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::sample::findings::{check_confidence, check_enum, check_keys, child, Findings};
use crate::sample::{LabelList, LabelShape};
use crate::text::norm;

/// Allowed values of an issue's enum fields (compared after `norm`).
pub mod enums {
    pub const ISSUE_TYPE: &[&str] = &[
        "ambiguous_verb",
        "missing_actor",
        "too_broad",
        "contradictory",
        "pii",
        "untestable",
    ];
    pub const SEVERITY: &[&str] = &["error", "warning", "info"];
}

/// A quality issue in a requirement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub issue_type: String,
    pub severity: String,
    #[serde(default)]
    pub field: Option<String>,
    #[serde(default)]
    pub location: Option<Value>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub suggested_fix: Option<String>,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// In the order the labelling schema lists them (and an edit writes them).
pub const ISSUE_KEYS: &[&str] = &[
    "issue_type",
    "severity",
    "field",
    "location",
    "message",
    "suggested_fix",
    "confidence",
];

/// `labels.issues`.
pub struct Issues;

impl LabelShape for Issues {
    fn key(&self) -> &'static str {
        "issues"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<Issue>::new())
    }

    fn walk_keys(&self, list: &Value, pointer: &str, findings: &mut Findings) -> Vec<String> {
        super::super::each_item(list, pointer)
            .flat_map(|(p, issue)| {
                check_keys(issue, &p, ISSUE_KEYS, &["issue_type", "severity"], findings)
            })
            .collect()
    }

    fn check(
        &self,
        list: &dyn LabelList,
        pointer: &str,
        _messages: usize,
        findings: &mut Findings,
    ) {
        for (i, issue) in super::super::items::<Issue>(list).iter().enumerate() {
            let p = format!("{pointer}/{i}");
            check_enum(
                &issue.issue_type,
                enums::ISSUE_TYPE,
                || child(&p, "issue_type"),
                "issue_type",
                findings,
            );
            check_enum(
                &issue.severity,
                enums::SEVERITY,
                || child(&p, "severity"),
                "severity",
                findings,
            );
            check_confidence(issue.confidence, || child(&p, "confidence"), findings);
        }
    }

    fn write_order(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[("", ISSUE_KEYS)]
    }

    fn enums(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[
            ("issue_type", enums::ISSUE_TYPE),
            ("severity", enums::SEVERITY),
        ]
    }
}

/// `labels.pii`: the PII strings of the input, exactly as written there.
pub struct Pii;

impl LabelShape for Pii {
    fn key(&self) -> &'static str {
        "pii"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<String>::new())
    }

    fn check(
        &self,
        list: &dyn LabelList,
        pointer: &str,
        _messages: usize,
        findings: &mut Findings,
    ) {
        for (i, pii) in super::super::items::<String>(list).iter().enumerate() {
            if norm(pii).is_empty() {
                findings.warn(
                    &format!("{pointer}/{i}"),
                    "empty PII string".to_string(),
                    "list the PII text exactly as it appears in the input",
                );
            }
        }
    }
}
