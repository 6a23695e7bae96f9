//! `--prefill run.jsonl`: a pipeline's answers as drafts. Each sample's first answer is
//! parsed as scoring parses it, and the keys its kind labels become the draft the page
//! loads into an empty form, marked as machine-made; nothing is written until the
//! annotator saves.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use goldgate_core::error::Result;
use goldgate_core::kinds::keys;
use goldgate_core::parse::parse_answer;
use goldgate_core::runfile::reader::RunIndex;
use goldgate_core::sample::Sample;

/// A machine-made draft of one sample's labels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Draft {
    /// The run file it came from, as given.
    pub source: String,
    /// The kind's keys of the answer (empty lists when the answer had none).
    pub labels: Value,
    /// Why the draft is empty or partial (a failed call, an answer that did not parse).
    pub problem: Option<String>,
}

/// The drafts of every sample the run file answers.
pub fn drafts<'a>(
    run: &Path,
    samples: impl Iterator<Item = &'a Sample>,
) -> Result<HashMap<String, Draft>> {
    let mut index = RunIndex::build(run)?;
    let reader = index.reader()?;
    let source = run.display().to_string();
    let mut out = HashMap::new();
    for sample in samples {
        let id = sample.id.as_str();
        let Some(first) = index.take(id).and_then(|e| e.into_iter().next()) else {
            continue;
        };
        let draft = match reader.read(&first) {
            Ok(answer) => match &answer.error {
                Some(error) => empty(
                    sample,
                    &source,
                    format!("the call failed: {}", error.message),
                ),
                None => draft(sample, &source, &answer.text),
            },
            Err(problem) => empty(sample, &source, problem.message),
        };
        out.insert(id.to_string(), draft);
    }
    Ok(out)
}

fn empty(sample: &Sample, source: &str, problem: String) -> Draft {
    let labels = sample
        .kind
        .label_keys()
        .iter()
        .map(|k| (k.to_string(), Value::Array(Vec::new())))
        .collect();
    Draft {
        source: source.to_string(),
        labels: Value::Object(labels),
        problem: Some(problem),
    }
}

/// The draft read from one answer text.
pub fn draft(sample: &Sample, source: &str, text: &str) -> Draft {
    let parsed = parse_answer(text);
    let Some(value) = parsed.value else {
        return empty(
            sample,
            source,
            format!("the answer did not parse: {}", parsed.detail),
        );
    };
    let labels = goldgate_core::kinds::of(sample.kind).labels_from_answer(sample, &value);
    let task = sample.task.as_deref();
    let problem = keys::missing(sample.kind, task, &value).map(|found| {
        let expected = keys::expected(sample.kind, task);
        let task = task.map(|t| t.name.as_str());
        format!(
            "the answer holds {}",
            keys::sentence(sample.kind, task, &expected, &found)
        )
    });
    Draft {
        source: source.to_string(),
        labels: Value::Object(labels),
        problem,
    }
}
