//! The labelling rules of `kind: tuples` samples (docs/tuples.md): the task they name,
//! their `text`, and every gold tuple against the task — its fields, its label values
//! against the task's values, its offsets against the text — and the rule that a sample of
//! another kind carries no tuple fields.

use std::collections::HashSet;

use serde_json::Value;

use crate::sample::findings::{child, Findings};
use crate::sample::task::{Role, SupportMode, Task, Tasks};
use crate::sample::{LabelList, LabelShape, RawSample};
use crate::text::{did_you_mean, norm};

/// `labels.tuples`: objects holding the task's fields, as written (checked against the
/// task by [`check_tuples_sample`], since the fields are the task's). Only tuples samples
/// carry them.
pub struct TupleLabels;

impl LabelShape for TupleLabels {
    fn key(&self) -> &'static str {
        "tuples"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<Value>::new())
    }

    fn check(&self, _: &dyn LabelList, _: &str, _: usize, _: &mut Findings) {}

    fn exclusive(&self) -> bool {
        true
    }

    fn write_order(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[("", &[])]
    }
}

/// A sample of another kind carries none of the tuple fields.
pub(super) fn check_no_tuples_fields(raw: &RawSample, findings: &mut Findings) {
    let given = [
        ("/task", raw.task.is_some()),
        ("/text", raw.text.is_some()),
        ("/labels/tuples", raw.labels.len(TupleLabels.key()) > 0),
    ]
    .into_iter()
    .filter(|(_, present)| *present)
    .map(|(pointer, _)| pointer.to_string());
    let annotated = raw
        .annotations
        .iter()
        .enumerate()
        .filter(|(_, a)| a.labels.len(TupleLabels.key()) > 0)
        .map(|(i, _)| format!("/annotations/{i}/tuples"));
    for pointer in given.chain(annotated) {
        findings.error(
            &pointer,
            format!(
                "`{}` is only read from samples of `kind: tuples`",
                &pointer[1..].replace('/', ".")
            ),
            Some("remove it, or make the sample `kind: tuples`".into()),
        );
    }
}

/// Everything a tuples sample is held to.
pub(super) fn check_tuples_sample(raw: &RawSample, tasks: &Tasks, findings: &mut Findings) {
    let inputs = [
        ("conversation", raw.conversation.is_some()),
        ("user_input", raw.user_input.is_some()),
        ("requirements", raw.requirements.is_some()),
        ("reference_srs", raw.reference_srs.is_some()),
    ];
    for (key, present) in inputs {
        if present {
            findings.error(
                &format!("/{key}"),
                format!("a tuples sample does not read `{key}`"),
                Some("its input is `text`; remove the field".into()),
            );
        }
    }
    let task = match raw.task.as_deref() {
        None => {
            findings.error(
                "",
                "a tuples sample needs a `task`".into(),
                Some(task_hint(tasks, "")),
            );
            None
        }
        Some(name) => {
            let found = tasks.get(name);
            if found.is_none() {
                findings.error(
                    "/task",
                    format!("no task `{name}` in suite.toml"),
                    Some(task_hint(tasks, name)),
                );
            }
            found
        }
    };
    let text = match raw.text.as_deref() {
        Some(t) if !t.trim().is_empty() => Some(t),
        Some(_) => {
            findings.error(
                "/text",
                "empty `text`".into(),
                Some("the text is what the pipeline reads".into()),
            );
            None
        }
        None => {
            findings.error(
                "",
                "a tuples sample needs a `text`".into(),
                Some("add the input text the tuples are taken from".into()),
            );
            None
        }
    };
    let labels = &raw.labels;
    let other = |labels: &'_ crate::sample::Labels| -> Vec<(&'static str, bool)> {
        labels
            .iter()
            .filter(|(key, _)| *key != TupleLabels.key())
            .map(|(key, list)| (key, list.is_empty()))
            .collect()
    };
    for (key, empty) in other(labels) {
        if !empty {
            findings.error(
                &format!("/labels/{key}"),
                format!("`labels.{key}` is not scored for tuples samples"),
                Some("a tuples sample's gold is `labels.tuples`".into()),
            );
        }
    }
    for (i, annotation) in raw.annotations.iter().enumerate() {
        for (key, _) in other(&annotation.labels)
            .into_iter()
            .filter(|(_, empty)| !empty)
        {
            findings.error(
                &format!("/annotations/{i}/{key}"),
                format!("`{key}` is not labelled on tuples samples"),
                Some("an annotator's labels of a tuples sample are its `tuples`".into()),
            );
        }
    }
    if let Some(task) = task {
        let text = text.unwrap_or_default();
        let normed = norm(text);
        let lists = std::iter::once((
            "/labels/tuples".to_string(),
            labels.list::<Value>(TupleLabels.key()),
        ))
        .chain(raw.annotations.iter().enumerate().map(|(i, a)| {
            (
                format!("/annotations/{i}/tuples"),
                a.labels.list::<Value>(TupleLabels.key()),
            )
        }));
        for (base, tuples) in lists {
            let mut keys = HashSet::new();
            for (i, tuple) in tuples.iter().enumerate() {
                let pointer = format!("{base}/{i}");
                if let Some(key) = check_tuple(tuple, &pointer, task, (text, &normed), findings) {
                    if !keys.insert(key) {
                        findings.warn(
                            &pointer,
                            "the same tuple is labelled twice".into(),
                            "tuples are compared as sets, so the copy counts once; remove it",
                        );
                    }
                }
            }
        }
    }
}

fn task_hint(tasks: &Tasks, name: &str) -> String {
    if tasks.is_empty() {
        return "define the task in suite.toml: `[tasks.NAME]` with its `fields` (docs/tuples.md)"
            .into();
    }
    match did_you_mean(name, tasks.names()) {
        Some(close) if !name.is_empty() => format!("did you mean `{close}`?"),
        _ => format!(
            "the suite's tasks: {}",
            tasks.names().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// One gold tuple: its key when it is well-formed.
fn check_tuple(
    tuple: &Value,
    pointer: &str,
    task: &Task,
    (text, normed): (&str, &str),
    findings: &mut Findings,
) -> Option<Vec<String>> {
    let Some(map) = tuple.as_object() else {
        findings.error(
            pointer,
            "a tuple must be a mapping of its fields".into(),
            Some(format!("e.g. {{{}}}", example(task))),
        );
        return None;
    };
    let allowed: Vec<&str> = task
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain(["implicit", "start", "end"])
        .collect();
    for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
        let hint = match did_you_mean(key, allowed.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!(
                "a gold tuple of task `{}` holds: {}",
                task.name,
                allowed.join(", ")
            ),
        };
        findings.error(
            &child(pointer, key),
            format!("unknown field `{key}`"),
            Some(hint),
        );
    }
    let mut key = Vec::with_capacity(task.fields.len());
    let mut well_formed = true;
    for (i, field) in task.fields.iter().enumerate() {
        let at = child(pointer, &field.name);
        match map.get(&field.name) {
            Some(Value::String(v)) => {
                let mapped = task.label_key(i, v);
                if field.role == Role::Label && !field.values.is_empty() && !mapped.mapped {
                    let hint = match did_you_mean(v, field.values.iter().map(String::as_str)) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("one of: {}", field.values.join(", ")),
                    };
                    findings.error(
                        &at,
                        format!("`{v}` is not a value of `{}`", field.name),
                        Some(hint),
                    );
                }
                key.push(mapped.key);
            }
            Some(_) => {
                findings.error(&at, format!("`{}` must be a string", field.name), None);
                well_formed = false;
            }
            None => {
                findings.error(
                    pointer,
                    format!("missing field `{}`", field.name),
                    Some(format!(
                        "a gold tuple of task `{}` holds every field: {}",
                        task.name,
                        example(task)
                    )),
                );
                well_formed = false;
            }
        }
    }
    let implicit = match map.get("implicit") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            findings.error(
                &child(pointer, "implicit"),
                "`implicit` must be true or false".into(),
                None,
            );
            false
        }
    };
    check_offsets(map, pointer, task, text, findings);
    if well_formed && !implicit {
        check_spans_in_text(map, pointer, task, (text, normed), findings);
    }
    well_formed.then_some(key)
}

fn check_offsets(
    map: &serde_json::Map<String, Value>,
    pointer: &str,
    task: &Task,
    text: &str,
    findings: &mut Findings,
) {
    let offset = |key: &str| map.get(key).map(|v| (v.as_u64(), v));
    let (start, end) = match (offset("start"), offset("end")) {
        (None, None) => return,
        (Some((Some(s), _)), Some((Some(e), _))) => (s, e),
        (s, e) => {
            for (key, value) in [("start", s), ("end", e)] {
                let problem = match value {
                    None => format!("`{key}` is missing: give both offsets or neither"),
                    Some((None, v)) => format!("`{key}` is {v}, not a character offset"),
                    Some(_) => continue,
                };
                findings.error(
                    &child(pointer, key),
                    problem,
                    Some("offsets are 0-based character positions, `end` excluded".into()),
                );
            }
            return;
        }
    };
    let length = text.chars().count() as u64;
    if start > end || end > length {
        findings.error(
            &child(pointer, "start"),
            format!("offsets {start}..{end} do not fit the text ({length} characters)"),
            Some("0 ≤ start ≤ end ≤ the text's length in characters".into()),
        );
        return;
    }
    let spans: Vec<usize> = task.span_fields().collect();
    if let [only] = spans.as_slice() {
        let at: String = text
            .chars()
            .skip(start as usize)
            .take((end - start) as usize)
            .collect();
        let name = &task.fields[*only].name;
        if let Some(Value::String(v)) = map.get(name) {
            if *v != at {
                findings.error(
                    &child(pointer, "start"),
                    format!("offsets {start}..{end} point at `{at}`, not at {name} `{v}`"),
                    Some(
                        "offsets count characters from 0, `end` excluded; fix them or remove them"
                            .into(),
                    ),
                );
            }
        }
    } else {
        findings.warn(
            &child(pointer, "start"),
            "offsets are read only for tasks with exactly one span field".into(),
            "remove them; each span is found in the text by its value",
        );
    }
}

/// A span the annotator did not mark implicit should be in the text.
fn check_spans_in_text(
    map: &serde_json::Map<String, Value>,
    pointer: &str,
    task: &Task,
    (text, normed): (&str, &str),
    findings: &mut Findings,
) {
    for i in task.span_fields() {
        let name = &task.fields[i].name;
        let Some(Value::String(v)) = map.get(name) else {
            continue;
        };
        let key = norm(v);
        let found = !key.is_empty()
            && match task.hallucination {
                SupportMode::NormalizedSubstring => normed.contains(&key),
                SupportMode::ExactSpan => text.contains(v.as_str()),
            };
        if !found {
            findings.warn(
                &child(pointer, name),
                format!("{name} `{v}` is not in the text"),
                "copy the span exactly from the text, or mark the tuple `implicit: true`",
            );
        }
    }
}

/// `name: "…", …` for a hint.
fn example(task: &Task) -> String {
    task.fields
        .iter()
        .map(|f| match f.values.first() {
            Some(v) => format!("{}: {v}", f.name),
            None => format!("{}: …", f.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
