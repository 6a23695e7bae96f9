//! What the HTML report shows around its metric table, as template data: the run context
//! at the top (from the score's provenance), the per-sample rows with what the search box
//! and the filters read (outcome, kind, tags), each diff's lines by what they are (added,
//! removed, header, context), and the traces of a multi-step pipeline's records. Every text
//! here is plain: the template escapes all of it.

use std::collections::{BTreeSet, HashMap};

use minijinja::{context, Value};

use goldgate_core::gate::samples::passes;
use goldgate_core::gate::verdict::{ProvenanceReport, SampleResult, Verdict};
use goldgate_core::runfile::trace::TraceCall;
use goldgate_core::runfile::traces::{SampleTrace, Traces};
use goldgate_core::score::file::{Provenance, ScoreFile};

/// A fingerprint as the report shows it: `sha256:` and its first twelve digits.
fn short(fingerprint: &str) -> String {
    let digits = fingerprint.strip_prefix("sha256:").unwrap_or(fingerprint);
    let cut: String = digits.chars().take(12).collect();
    if fingerprint.starts_with("sha256:") {
        format!("sha256:{cut}")
    } else {
        cut
    }
}

/// `2026-11-26T13:22:53Z` as `2026-11-26 13:22:53 UTC`; any other text as it is.
fn date(created_at: &str) -> String {
    match created_at.strip_suffix('Z').and_then(|t| t.split_once('T')) {
        Some((day, time)) if day.len() == 10 && !time.contains(['T', 'Z']) => {
            format!("{day} {time} UTC")
        }
        _ => created_at.to_string(),
    }
}

/// The commit of a score: its sha's first twelve digits.
fn commit(p: &Provenance) -> Option<String> {
    Some(p.git_sha.as_deref()?.chars().take(12).collect())
}

/// One entry of the run context: a label, what is shown and the whole value (a tooltip).
fn item(label: &str, value: String, full: Option<String>) -> Value {
    context! { label => label, value => value, full => full }
}

/// [`item`] with a second, smaller line under the value.
fn item_with(label: &str, value: String, detail: String, full: Option<String>) -> Value {
    context! { label => label, value => value, detail => detail, full => full }
}

/// The run context the report opens with: the suite (name, path and fingerprint), the
/// commit and date of the score, the model and pipeline, the records, the scoring's
/// similarity and judge, and the baseline's commit and date.
pub fn run_context(p: &ProvenanceReport) -> Vec<Value> {
    let c = &p.candidate;
    let mut out = vec![item(
        "Suite",
        c.suite_name.clone().unwrap_or_else(|| c.suite_path.clone()),
        Some(c.suite_path.clone()),
    )];
    out.push(item(
        "Suite fingerprint",
        short(&c.suite_fingerprint),
        Some(c.suite_fingerprint.clone()),
    ));
    if let Some(commit) = commit(c) {
        out.push(match &c.git_ref {
            Some(r) => item_with("Commit", commit, format!("on {r}"), c.git_sha.clone()),
            None => item("Commit", commit, c.git_sha.clone()),
        });
    }
    out.push(item("Date", date(&c.created_at), None));
    if let Some(model) = &c.model {
        out.push(item("Model", model.clone(), None));
    }
    if let Some(fp) = &c.pipeline_fingerprint {
        out.push(item("Pipeline", short(fp), Some(fp.clone())));
    }
    let repeats = match c.repeats {
        0 | 1 => String::new(),
        n => format!(" ({n} repeats)"),
    };
    out.push(item(
        "Records",
        format!(
            "{}{repeats}",
            goldgate_core::number::count(c.records as u64)
        ),
        None,
    ));
    let scoring = &c.scoring;
    let similarity = match &scoring.model {
        Some(model) => format!("{} ({model})", scoring.similarity),
        None => scoring.similarity.clone(),
    };
    out.push(item(
        "Similarity",
        similarity,
        scoring.model_fingerprint.clone(),
    ));
    if let Some(judge) = &scoring.judge {
        out.push(item(
            "Judge",
            judge.model.clone(),
            Some(judge.prompt_fingerprint.clone()),
        ));
    }
    out.push(match &p.baseline {
        // The baseline's commit, its ref and date under it.
        Some(b) => {
            let when = date(&b.created_at);
            match commit(b) {
                Some(commit) => {
                    let detail = match &b.git_ref {
                        Some(r) => format!("on {r} · {when}"),
                        None => when,
                    };
                    item_with("Baseline", commit, detail, b.git_sha.clone())
                }
                None => item("Baseline", when, None),
            }
        }
        None => item("Baseline", "none: the absolute rules only".into(), None),
    });
    out
}

/// What a line of a diff is, by its first character: `d-file` for the `---`/`+++` header
/// of a unified diff (its first two lines), `d-add` (`+`), `d-del` (`-`), `d-hunk` (`@`),
/// `d-note` for a cut said on a `…` line, `d-ctx` for the rest.
pub fn diff_lines(text: &str) -> Vec<Value> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let class = if i < 2 && (line.starts_with("--- ") || line.starts_with("+++ ")) {
                "d-file"
            } else {
                match line.chars().next() {
                    Some('+') => "d-add",
                    Some('-') => "d-del",
                    Some('@') => "d-hunk",
                    Some('…') => "d-note",
                    _ => "d-ctx",
                }
            };
            context! { class => class, text => line }
        })
        .collect()
}

/// How a sample came out against the baseline: the filter's category (`broken`,
/// `no answer`, `fixed`, `failing`, `pass`), the word shown (a sample without an answer
/// named by what happened to its calls) and its style.
fn outcome(
    s: &SampleResult,
    sample_pass: f64,
    flaky: bool,
) -> (&'static str, String, &'static str) {
    if let Some(e) = &s.error {
        return ("no answer", e.kind.outcome().to_string(), "fail");
    }
    if flaky {
        return ("flaky", "flaky flip".into(), "warn");
    }
    let (category, css) = match (s.baseline.map(|b| passes(b, sample_pass)), s.pass) {
        (Some(true), false) => ("broken", "fail"),
        (Some(false), true) => ("fixed", "pass"),
        (_, true) => ("pass", "pass"),
        (_, false) => ("failing", "warn"),
    };
    (category, category.to_string(), css)
}

/// The samples whose flip stays within their observed spread (see `report::flaky`).
fn flaky_ids(v: &Verdict) -> std::collections::HashSet<&str> {
    v.samples
        .iter()
        .flat_map(|s| s.flaky.iter().map(|f| f.id.as_str()))
        .collect()
}

/// The categories of outcome, in the order the filter offers them.
const OUTCOMES: [&str; 6] = ["broken", "no answer", "fixed", "flaky", "failing", "pass"];

/// The per-sample table: its rows (worst first), and the outcomes, kinds and tags they
/// hold, for the filters.
pub struct SampleRows {
    pub rows: Vec<Value>,
    pub outcomes: Vec<&'static str>,
    pub kinds: Vec<&'static str>,
    pub tags: Vec<String>,
}

/// The per-sample rows: each sample's kind, domain and tags (from the candidate's score
/// file), its scores and outcome, and the anchors of its diff (`diff-N`) and trace
/// (`trace-N`) when the report has them.
pub fn sample_rows(v: &Verdict, candidate: &ScoreFile, traces: Option<&Traces>) -> SampleRows {
    let sample_pass = v.samples.as_ref().map_or(0.8, |s| s.sample_pass);
    let scores: HashMap<&str, &goldgate_core::score::file::SampleScore> = candidate
        .samples
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let diffs: HashMap<&str, usize> = v
        .diffs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i + 1))
        .collect();
    let mut trace_of: HashMap<&str, usize> = HashMap::new();
    for (i, t) in traces.map(in_order).unwrap_or_default().iter().enumerate() {
        trace_of.entry(t.sample_id.as_str()).or_insert(i + 1);
    }
    // What changed first (broken, fixed), then what still fails, then the rest.
    let flaky = flaky_ids(v);
    let mut sorted: Vec<_> = v
        .sample_results
        .iter()
        .map(|s| (s, outcome(s, sample_pass, flaky.contains(s.id.as_str()))))
        .collect();
    sorted.sort_by_key(|(_, (category, _, _))| OUTCOMES.iter().position(|o| o == category));
    let (mut outcomes, mut kinds, mut tags) = (BTreeSet::new(), Vec::new(), BTreeSet::new());
    let rows = sorted
        .into_iter()
        .map(|(s, (category, word, css))| {
            outcomes.insert(category);
            if !kinds.contains(&s.kind.as_str()) {
                kinds.push(s.kind.as_str());
            }
            let score = scores.get(s.id.as_str());
            let sample_tags = score.map_or(&[][..], |s| &s.tags[..]);
            tags.extend(sample_tags.iter().cloned());
            // A sample without an answer has no score of its own to show.
            let answered = s.error.is_none();
            let delta = s.baseline.filter(|_| answered).map(|b| s.primary - b);
            context! {
                id => s.id.clone(), kind => s.kind.as_str(),
                domain => score.map(|s| s.domain.clone()), tags => sample_tags.to_vec(),
                baseline => goldgate_core::number::optional(s.baseline, 4),
                candidate => if answered { goldgate_core::number::value(s.primary, 4) } else { "–".to_string() },
                cause => s.error.as_ref().map(|e| e.message.clone()),
                delta => goldgate_core::number::delta(delta, None, 4),
                category => category, outcome => word, css => css,
                diff => diffs.get(s.id.as_str()).map(|i| format!("diff-{i}")),
                trace => trace_of.get(s.id.as_str()).map(|i| format!("trace-{i}")),
            }
        })
        .collect();
    SampleRows {
        rows,
        outcomes: OUTCOMES
            .into_iter()
            .filter(|o| outcomes.contains(o))
            .collect(),
        kinds,
        tags: tags.into_iter().collect(),
    }
}

fn pretty(value: &Option<serde_json::Value>) -> Option<String> {
    value
        .as_ref()
        .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
}

fn tokens(n: Option<u64>) -> String {
    n.map_or_else(
        || "tokens not reported".to_string(),
        |t| format!("{} tokens", goldgate_core::number::count(t)),
    )
}

fn millis(ms: f64) -> String {
    format!("{} ms", goldgate_core::number::value(ms, 0))
}

/// One model call of a trace, for the template.
fn call_context(c: &TraceCall) -> Value {
    let attempts = c.retries.len() + usize::from(c.raw_output.is_some());
    let messages: Vec<Value> = c
        .messages
        .iter()
        .map(|m| {
            let chars = goldgate_core::number::count(m.content.chars().count() as u64);
            context! { role => m.role.clone(), content => m.content.clone(), chars => chars }
        })
        .collect();
    let retries: Vec<Value> = c
        .retries
        .iter()
        .map(|r| context! { error => r.error.clone(), raw_output => r.raw_output.clone(), waited => r.waited_ms.map(millis) })
        .collect();
    context! {
        agent => c.agent.clone(), iteration => c.iteration,
        attempts => match attempts { 1 => "1 attempt".to_string(), n => format!("{n} attempts") },
        tokens => tokens(c.usage.map(|u| u.total())),
        latency => millis(c.latency_ms),
        finish_reason => c.finish_reason.clone(), temperature => c.temperature,
        messages => messages, raw_output => c.raw_output.clone(), parsed => pretty(&c.parsed),
        effect => pretty(&c.effect), retries => retries,
    }
}

/// The traces by sample id and repeat (a run file holds its records in the order they
/// finished), so a report shows them in the same order whatever the concurrency.
fn in_order(traces: &Traces) -> Vec<&SampleTrace> {
    let mut sorted: Vec<&SampleTrace> = traces.samples.iter().collect();
    sorted.sort_by(|a, b| (&a.sample_id, a.repeat).cmp(&(&b.sample_id, b.repeat)));
    sorted
}

/// The traces of a multi-step pipeline's records, in [`in_order`]: one fold per record
/// (`trace-N`, the anchor the per-sample table links to) with the sample's outcome, its
/// calls' tokens and time, and one fold per call inside it.
pub fn traces(v: &Verdict, traces: &Traces) -> Vec<Value> {
    let sample_pass = v.samples.as_ref().map_or(0.8, |s| s.sample_pass);
    let flaky = flaky_ids(v);
    let results: HashMap<&str, &SampleResult> = v
        .sample_results
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    in_order(traces)
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let calls = &s.trace.calls;
            let used: Option<u64> = calls
                .iter()
                .map(|c| c.usage.map(|u| u.total()))
                .try_fold(0, |sum, t| t.map(|t| sum + t));
            let latency: f64 = calls.iter().map(|c| c.latency_ms).sum();
            let result = results.get(s.sample_id.as_str()).map(|r| {
                let (_, word, css) = outcome(r, sample_pass, flaky.contains(r.id.as_str()));
                context! { outcome => word, css => css, score => goldgate_core::number::value(r.primary, 4) }
            });
            context! {
                anchor => format!("trace-{}", i + 1),
                id => s.sample_id.clone(), repeat => s.repeat,
                error => s.error.as_ref().map(|e| format!("{}: {}", e.kind.as_str(), e.message)),
                calls => calls.iter().map(call_context).collect::<Vec<_>>(),
                tokens => (!calls.is_empty()).then(|| tokens(used)),
                latency => millis(latency),
                result => result,
                state => pretty(&s.trace.state),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<String> {
        diff_lines(text)
            .iter()
            .map(|l| l.get_attr("class").unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_diff_line_is_styled_by_its_first_character() {
        let unified = "--- gold\n+++ candidate\n@@ -1,2 +1,2 @@\n same\n-gone\n+new\n--- a gold line\n… 3 more lines";
        assert_eq!(
            classes(unified),
            ["d-file", "d-file", "d-hunk", "d-ctx", "d-del", "d-add", "d-del", "d-note"]
        );
        // The matching's alignment: pairs as context, unmatched gold and predictions.
        let aligned = "@ extraction: 2 matched, 1 unmatched gold, 1 unmatched prediction\n  REQ-001 ↔ REQ-002 (0.91)\n- REQ-003\n+ REQ-009";
        assert_eq!(classes(aligned), ["d-hunk", "d-ctx", "d-del", "d-add"]);
        let line = &diff_lines("+<b>x</b>")[0];
        assert_eq!(
            line.get_attr("text").unwrap().as_str(),
            Some("+<b>x</b>"),
            "kept as text"
        );
    }

    #[test]
    fn dates_and_fingerprints_are_shortened_for_reading() {
        assert_eq!(date("2026-11-26T13:22:53Z"), "2026-11-26 13:22:53 UTC");
        assert_eq!(date("yesterday"), "yesterday");
        assert_eq!(short("sha256:0123456789abcdef"), "sha256:0123456789ab");
        assert_eq!(short("0123456789abcdef"), "0123456789ab");
    }
}
