//! The e2e kind: a whole SRS document from a stakeholder's input (answer keys
//! `requirements` and `srs_markdown`). Coverage (recall) and accuracy (precision) of generated
//! requirements, IEEE 830 structure of the generated SRS (CommonMark headings), traceability
//! of requirement ids into the document, and their weighted mean, the RD score.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::kinds::extraction::{match_requirements, pred_items, Extraction, GoldRequirements};
use crate::metrics::stats::Stats;
use crate::metrics::{precision, recall, ScoringConfig};
use crate::parse::json::Json;

use super::extraction::prediction::{self, PredRequirement};
use crate::metrics::registry::Metric;
use crate::parse::answer::{object, string};
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{RawSample, Sample};
use crate::text::norm;

/// The 12 IEEE 830 section keywords looked for in headings.
pub const SECTIONS: [&str; 12] = [
    "introduction",
    "purpose",
    "scope",
    "definitions",
    "references",
    "overview",
    "overall description",
    "product perspective",
    "product functions",
    "user characteristics",
    "constraints",
    "specific requirements",
];

/// The document of an answer: its `srs_markdown` string.
pub fn srs_markdown<'a>(value: Option<&'a Json<'_>>) -> Option<&'a str> {
    object(value).and_then(|map| string(map, "srs_markdown"))
}

/// Score one e2e record. Returns its sums and its RD score.
pub fn score(
    sample: &Sample,
    gold: &GoldRequirements,
    preds: &[PredRequirement],
    markdown: Option<&str>,
    cfg: &ScoringConfig,
) -> super::Record {
    let items = pred_items(preds, &cfg.similarity);
    let (pairs, matching) = match_requirements(gold, preds, &items, cfg);
    let tp = pairs.len() as f64;
    let (fp, fn_) = (items.len() as f64 - tp, gold.items.len() as f64 - tp);
    let coverage = recall(tp, fp, fn_);
    let accuracy = precision(tp, fp, fn_);
    let markdown = markdown.unwrap_or("");
    let structure = structure(markdown);
    let messages = sample
        .has_conversation()
        .then_some(sample.conversation.len());
    let traceability = traceability(preds, markdown, messages);
    let w = cfg.rd_weights;
    let rd = w.coverage * coverage
        + w.accuracy * accuracy
        + w.structure * structure
        + w.traceability * traceability;
    let mut s = Stats::default();
    s.add("e2e.records", 1.0);
    s.add("e2e.coverage", coverage);
    s.add("e2e.accuracy", accuracy);
    s.add("e2e.structure", structure);
    s.add("e2e.traceability", traceability);
    s.add("e2e.rd_score", rd);
    super::Record {
        stats: s,
        primary: rd,
        matching: Some(matching),
        pairs: crate::kinds::extraction::paired(&pairs),
        violations: Default::default(),
    }
}

/// Share of the 12 IEEE 830 sections present as headings of `markdown`.
pub fn structure(markdown: &str) -> f64 {
    let headings = headings(markdown);
    let found = SECTIONS
        .iter()
        .filter(|k| headings.iter().any(|h| h.contains(&norm(k))))
        .count();
    found as f64 / SECTIONS.len() as f64
}

/// `norm`'d text content of every heading (text and inline code; no link targets or markup).
pub fn headings(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(text) = current.take() {
                    out.push(norm(&text));
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(text) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(text) = current.as_mut() {
                    text.push(' ');
                }
            }
            _ => {}
        }
    }
    out
}

/// Share of predicted requirements whose id occurs in the document as a whole token and
/// whose `source_messages` are non-empty and in range (`messages`: the conversation length,
/// `None` for samples without one, where the id alone counts). 0.0 without predictions.
pub fn traceability(preds: &[PredRequirement], markdown: &str, messages: Option<usize>) -> f64 {
    if preds.is_empty() {
        return 0.0;
    }
    let traced = preds
        .iter()
        .filter(|r| {
            let id_ok = r.id.is_some_and(|id| occurs_as_token(markdown, id));
            let sources_ok = match messages {
                None => true,
                Some(n) => {
                    r.source_messages_clean
                        && !r.source_messages.is_empty()
                        && r.source_messages
                            .iter()
                            .all(|&i| i >= 0 && (i as u64) < n as u64)
                }
            };
            id_ok && sources_ok
        })
        .count();
    traced as f64 / preds.len() as f64
}

/// Whether `token` occurs in `text` with no alphanumeric character right before or after.
pub fn occurs_as_token(text: &str, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    text.match_indices(token).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + token.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

pub mod metrics;

/// A whole SRS document generated from a stakeholder's input.
pub struct E2e;

impl super::TaskKind for E2e {
    fn name(&self) -> &'static str {
        "e2e"
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::Keys {
            keys: &[
                ("requirements", super::keys::Shape::List),
                ("srs_markdown", super::keys::Shape::Text),
            ],
            bare_list: true,
        }
    }

    fn label_shapes(&self) -> &'static [&'static dyn crate::sample::LabelShape] {
        &[&super::extraction::labels::Requirements]
    }

    fn check_sample(&self, raw: &RawSample, _tasks: &Tasks, findings: &mut Findings) {
        let messages = raw.conversation.as_ref().map_or(0, Vec::len);
        if messages == 0
            && raw
                .user_input
                .as_deref()
                .is_none_or(|s| s.trim().is_empty())
        {
            findings.error(
                "",
                "an e2e sample needs a `conversation` or a `user_input`".to_string(),
                Some(
                    "add the stakeholder conversation or a free-text requirement statement"
                        .to_string(),
                ),
            );
        }
        if raw.reference_srs.is_none() {
            findings.warn(
                "",
                "e2e sample without `reference_srs`".to_string(),
                "the reference SRS is what a generated SRS is judged against",
            );
        }
    }

    fn suite_target(&self) -> Option<usize> {
        Some(20)
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["requirements", "srs_markdown"]
    }

    /// Its own metrics, then its judge's (`judge.*`, with values where a judge reviewed the
    /// samples).
    fn metrics(&self) -> &'static [Metric] {
        static ALL: std::sync::LazyLock<Vec<Metric>> = std::sync::LazyLock::new(|| {
            metrics::METRICS
                .iter()
                .chain(&crate::judge::metrics::METRICS)
                .copied()
                .collect()
        });
        &ALL
    }

    fn primary_metric(&self) -> &'static str {
        "e2e.rd_score"
    }

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "a whole SRS document from a stakeholder's statement"
    }

    /// An SRS answer's requirements read back as extraction's do.
    fn labels_from_answer(
        &self,
        sample: &Sample,
        answer: &serde_json::Value,
    ) -> serde_json::Map<String, serde_json::Value> {
        Extraction.labels_from_answer(sample, answer)
    }

    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value {
        serde_json::json!({
            "requirements": super::confident(sample, "requirements", confidence),
            "srs_markdown": sample["reference_srs"].as_str().unwrap_or_default().trim_end(),
        })
    }

    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts::built_in(include_str!("prompt.j2"))
    }

    /// The RD score is a weighted sum of four scores in [0, 1].
    fn record_bound(&self, key: &str, _sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let w = cfg.rd_weights;
        match key {
            "e2e.rd_score" => Some(w.coverage + w.accuracy + w.structure + w.traceability),
            "e2e.records" => Some(1.0),
            _ => None,
        }
    }

    /// An SRS's requirements are matched to the gold ones exactly as extraction's are.
    fn prepare(&self, sample: &Sample, cfg: &ScoringConfig) -> super::Gold {
        Extraction.prepare(sample, cfg)
    }

    fn texts(&self, sample: &Sample, answers: &[Option<&Json<'_>>], out: &mut Vec<String>) {
        Extraction.texts(sample, answers, out)
    }

    fn score(
        &self,
        sample: &Sample,
        gold: &super::Gold,
        parsed: &super::Parsed<'_>,
        cfg: &ScoringConfig,
    ) -> super::Record {
        let answer = parsed.value;
        let preds = prediction::requirements(answer);
        score(sample, super::gold(gold), &preds, srs_markdown(answer), cfg)
    }

    fn aligned(
        &self,
        sample: &Sample,
        answer: Option<&Json<'_>>,
        pairs: &[super::aligned::Paired],
    ) -> super::aligned::Aligned {
        Extraction.aligned(sample, answer, pairs)
    }

    fn judged_document(&self) -> Option<super::JudgedDocument> {
        Some(super::JudgedDocument {
            reference: "reference_srs",
            answer: "srs_markdown",
        })
    }

    fn annotate_form(&self) -> &'static str {
        include_str!("annotate.js")
    }

    fn init_files(&self) -> super::InitFiles {
        super::InitFiles {
            thresholds: include_str!("init/thresholds.toml.j2"),
            settings: Some(include_str!("init/settings.toml.j2")),
            matching: true,
            stub: include_str!("init/pipeline.py.j2"),
            suite: None,
            guide: None,
            example: ("RD score", "extracted_requirements"),
        }
    }
}

impl super::ReadsLabels for E2e {
    fn has(key: &str) -> bool {
        <super::extraction::Extraction as super::ReadsLabels>::has(key)
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        <super::extraction::Extraction as super::ReadsLabels>::read_de(key, de)
    }
}

#[cfg(test)]
mod prompt_tests;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_a_string_or_nothing() {
        let read = |v: serde_json::Value| {
            let text = v.to_string();
            let json = Json::parse(&text).unwrap();
            srs_markdown(Some(&json)).map(str::to_string)
        };
        assert_eq!(read(serde_json::json!({"srs_markdown": 3})), None);
        assert_eq!(
            read(serde_json::json!({"srs_markdown": "# S"})).as_deref(),
            Some("# S")
        );
        assert_eq!(srs_markdown(None), None);
    }

    #[test]
    fn headings_as_commonmark_parses_them() {
        let md = "# 1. Introduction\n\nText\n\nPurpose\n=======\n\n```\n# Scope\n```\n\n## [Definitions](http://x/references) and `overview`\n\n    # indented code, not a heading\n";
        let h = headings(md);
        assert_eq!(
            h,
            vec!["1 introduction", "purpose", "definitions and overview"]
        );
        // introduction, purpose, definitions, overview: 4 of 12 (scope is in a code block,
        // references only in a link target).
        assert!((structure(md) - 4.0 / 12.0).abs() < 1e-15);
    }

    #[test]
    fn full_ieee_outline_scores_one() {
        let md = SECTIONS
            .iter()
            .map(|s| format!("## {s}\n"))
            .collect::<String>();
        assert_eq!(structure(&md), 1.0);
        assert_eq!(structure(""), 0.0);
    }

    #[test]
    fn ids_as_whole_tokens() {
        assert!(occurs_as_token("see FR-01.", "FR-01"));
        assert!(occurs_as_token("(FR-01)", "FR-01"));
        assert!(!occurs_as_token("FR-011", "FR-01"));
        assert!(!occurs_as_token("XFR-01", "FR-01"));
        assert!(occurs_as_token("FR-011 and FR-01", "FR-01"));
        assert!(!occurs_as_token("é", ""));
        assert!(!occurs_as_token("éFR-01", "FR-01"));
    }

    #[test]
    fn traceability_rules() {
        fn req(id: &str, sources: Vec<i64>) -> PredRequirement<'_> {
            PredRequirement {
                is_object: true,
                id: Some(id),
                source_messages_clean: true,
                source_messages: sources,
                ..PredRequirement::default()
            }
        }
        let preds = vec![
            req("FR-01", vec![0]),
            req("FR-02", vec![]),
            req("FR-03", vec![9]),
            req("FR-04", vec![1]),
        ];
        let md = "FR-01 FR-02 FR-03";
        assert_eq!(traceability(&preds, md, Some(3)), 0.25);
        assert_eq!(traceability(&preds, md, None), 0.75);
        assert_eq!(traceability(&[], md, None), 0.0);
    }
}
