//! What the page writes into the suite: the annotator's `annotations` entry, their
//! "needs discussion" note, and a reviewer's promotion of labels to gold (with `review`).
//! Every write is checked before anything reaches the disk: the page's fingerprint must
//! still be the sample's on disk, and the edited sample must load with no error and no
//! labelling-guide warning in what was edited (the rules of `goldgate suite lint`), its
//! requirement ids matching the id pattern and unique; a promotion holds only items the
//! annotators it names wrote. The file is then replaced atomically, every other byte kept
//! ([`goldgate_core::suite::edit`]), and only while it is a regular file inside the suite.

use serde_json::{Map, Value};

use super::refusal::{FieldProblem, Refusal};
use super::workspace::{Entry, Workspace};
use goldgate_core::document::pointer_of_field;
use goldgate_core::sample::Kind;
use goldgate_core::suite::edit::{self, Format};
use goldgate_core::suite::RawDocument;

type Refused<T> = std::result::Result<T, Refusal>;

/// Longest "needs discussion" note.
const MAX_NOTE: usize = 4000;

impl Workspace {
    /// Write the annotator's labels of sample `id` as their `annotations` entry.
    pub fn save_annotation(&mut self, id: &str, fingerprint: &str, sent: &Value) -> Refused<()> {
        let index = self.index(id)?;
        self.current(index, fingerprint)?;
        let entry = &self.entries[index];
        let kind = entry.kind();
        let me = self.options.annotator.clone();
        let position = entry
            .sample
            .annotations
            .iter()
            .position(|a| a.annotator == me)
            .unwrap_or(entry.sample.annotations.len());
        let mut annotation = Map::new();
        annotation.insert("annotator".into(), Value::from(me.as_str()));
        annotation.extend(labels_of(kind, sent)?);
        let annotation = Value::Object(annotation);
        let scope = format!("/annotations/{position}");
        self.write(
            index,
            fingerprint,
            &scope,
            &annotation,
            |text, format, line| edit::upsert_annotation(text, format, line, &annotation),
        )
    }

    /// Set (or, with an empty note, remove) the annotator's "needs discussion" note.
    pub fn set_discussion(&mut self, id: &str, fingerprint: &str, note: &str) -> Refused<()> {
        let note = note.trim();
        if note.chars().count() > MAX_NOTE {
            return Err(Refusal::BadRequest(format!(
                "the note is longer than {MAX_NOTE} characters"
            )));
        }
        let index = self.index(id)?;
        self.current(index, fingerprint)?;
        let entry = &self.entries[index];
        let me = &self.options.annotator;
        let mut notes: Vec<Value> = entry
            .sample
            .discussion
            .iter()
            .filter(|n| n.annotator != *me)
            .map(|n| serde_json::json!({"annotator": n.annotator, "note": n.note}))
            .collect();
        if notes.len() == entry.sample.discussion.len() && note.is_empty() {
            return Ok(());
        }
        if !note.is_empty() {
            notes.push(serde_json::json!({"annotator": me, "note": note}));
        }
        let notes = Value::Array(notes);
        self.write(
            index,
            fingerprint,
            "/discussion",
            &notes,
            |text, format, line| edit::set_top_level(text, format, line, "discussion", &notes),
        )
    }

    /// Make `sent` the sample's gold labels, recording who promoted them from whom.
    pub fn promote(
        &mut self,
        id: &str,
        fingerprint: &str,
        from: &[String],
        sent: &Value,
        at: String,
    ) -> Refused<()> {
        let index = self.index(id)?;
        self.current(index, fingerprint)?;
        let entry = &self.entries[index];
        let mut from = from.to_vec();
        from.sort();
        from.dedup();
        if from.is_empty() {
            return Err(Refusal::BadRequest(
                "name the annotators the labels come from (`from`)".into(),
            ));
        }
        if let Some(unknown) = from
            .iter()
            .find(|f| !entry.sample.annotations.iter().any(|a| a.annotator == **f))
        {
            return Err(Refusal::BadRequest(format!(
                "`{unknown}` has not annotated sample `{id}`"
            )));
        }
        let labels = labels_of(entry.kind(), sent)?;
        let foreign = not_from(entry, &from, &labels)?;
        if !foreign.is_empty() {
            let names: Vec<String> = from.iter().map(|f| format!("`{f}`")).collect();
            return Err(Refusal::Invalid {
                message: format!(
                    "not promoted: {} item{} not in the annotations of {}",
                    foreign.len(),
                    if foreign.len() == 1 { " is" } else { "s are" },
                    names.join(" or ")
                ),
                problems: foreign,
            });
        }
        let labels = Value::Object(labels);
        let review = serde_json::json!({
            "promoted_by": self.options.annotator,
            "from": from,
            "at": at,
        });
        self.write(
            index,
            fingerprint,
            "/labels",
            &labels,
            |text, format, line| {
                let text = edit::set_top_level(text, format, line, "labels", &labels)?;
                edit::set_top_level(&text, format, line, "review", &review)
            },
        )
    }

    /// Edit sample `index`'s file with `change`, check the result (problems under `scope`
    /// are reported relative to it), and write it.
    fn write(
        &mut self,
        index: usize,
        fingerprint: &str,
        scope: &str,
        written: &Value,
        change: impl FnOnce(&str, Format, Option<usize>) -> edit::Result<String>,
    ) -> Refused<()> {
        let entry = &self.entries[index];
        let edited = edit::edit_file(
            &self.suite.root,
            &entry.path,
            entry.line,
            Some(fingerprint),
            change,
        )?;
        let loaded = RawDocument::in_memory(
            &self.suite,
            &entry.path,
            entry.line,
            edited.document().into(),
        )
        .load();
        let mut problems: Vec<FieldProblem> = loaded
            .problems
            .iter()
            .map(|p| (p, pointer_of_field(p.field.as_deref())))
            .filter(|(p, pointer)| p.is_error() || within(pointer, scope))
            .map(|(p, pointer)| FieldProblem {
                pointer: relative(&pointer, scope),
                message: p.message.clone(),
                hint: p.hint.clone(),
            })
            .collect();
        problems.extend(self.id_problems(written));
        let sample = match loaded.sample {
            Some(sample) if problems.is_empty() => sample,
            _ => {
                return Err(Refusal::Invalid {
                    message: format!(
                        "not saved: {} problem{} to fix first",
                        problems.len().max(1),
                        if problems.len() == 1 { "" } else { "s" }
                    ),
                    problems,
                })
            }
        };
        let fingerprint = edited.write()?;
        self.replace(index, sample, fingerprint);
        self.wrote(index);
        Ok(())
    }

    /// Requirement ids that do not match the id pattern, in every list the kinds' shapes
    /// say hold them (an id used twice is the shape's own `suite lint` rule, reported by
    /// the load above).
    fn id_problems(&self, written: &Value) -> Vec<FieldProblem> {
        let pattern = &self.options.id_pattern;
        let mut problems = Vec::new();
        let lists = written.as_object().into_iter().flatten();
        for (key, list) in lists {
            let Some(shape) = goldgate_core::kinds::label_shapes()
                .iter()
                .find(|s| s.key() == key)
            else {
                continue;
            };
            for (pointer, id) in shape.requirement_ids(list) {
                if !pattern.is_match(id) {
                    problems.push(FieldProblem {
                        pointer: format!("/{key}{pointer}"),
                        message: format!(
                            "id `{id}` does not match the id pattern {}",
                            pattern.as_str()
                        ),
                        hint: Some(
                            "e.g. REQ-001; the pattern is [matching] id_pattern of the rules"
                                .into(),
                        ),
                    });
                }
            }
        }
        problems
    }
}

/// The promoted items (`labels`, as [`labels_of`] made them) that are not, field for
/// field, an item of the same list in the annotations of one of `from` (read the same way):
/// gold labels are promoted from what annotators wrote, never made up on the way.
fn not_from(
    entry: &Entry,
    from: &[String],
    labels: &Map<String, Value>,
) -> Refused<Vec<FieldProblem>> {
    let mut theirs = Vec::new();
    for annotation in entry
        .sample
        .annotations
        .iter()
        .filter(|a| from.contains(&a.annotator))
    {
        let value = serde_json::to_value(annotation)
            .map_err(|e| Refusal::Internal(format!("cannot read an annotation: {e}")))?;
        theirs.push(labels_of(entry.kind(), &value)?);
    }
    let names: Vec<String> = from.iter().map(|f| format!("`{f}`")).collect();
    let mut problems = Vec::new();
    for (key, items) in labels {
        for (i, item) in items.as_array().into_iter().flatten().enumerate() {
            let written = theirs.iter().any(|t| {
                t.get(key)
                    .and_then(Value::as_array)
                    .is_some_and(|list| list.contains(item))
            });
            if !written {
                problems.push(FieldProblem {
                    pointer: format!("/{key}/{i}"),
                    message: format!(
                        "this item is not in the annotations of {}",
                        names.join(" or ")
                    ),
                    hint: Some(
                        "promote items as the annotators wrote them (pick them in the review), and name every annotator they come from"
                            .into(),
                    ),
                });
            }
        }
    }
    Ok(problems)
}

fn within(pointer: &str, scope: &str) -> bool {
    pointer == scope || pointer.starts_with(&format!("{scope}/"))
}

fn relative(pointer: &str, scope: &str) -> String {
    match within(pointer, scope) {
        true => pointer[scope.len()..].to_string(),
        false => pointer.to_string(),
    }
}

/// The kind's label keys of what the page sent, each a list, items in the schema's field
/// order (their shape's [`LabelShape::write_order`]) without empty optional fields;
/// anything else sent is ignored.
///
/// [`LabelShape::write_order`]: goldgate_core::sample::LabelShape::write_order
fn labels_of(kind: Kind, sent: &Value) -> Refused<Map<String, Value>> {
    let Some(sent) = sent.as_object() else {
        return Err(Refusal::BadRequest(
            "the labels must be a JSON object".into(),
        ));
    };
    let mut out = Map::new();
    for shape in goldgate_core::kinds::of(kind).label_shapes() {
        let key = shape.key();
        let items = match sent.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => return Err(Refusal::BadRequest(format!("`{key}` must be a list"))),
        };
        let items = items
            .into_iter()
            .map(|item| {
                let mut item = item;
                for (field, order) in shape.write_order() {
                    match *field {
                        "" => item = ordered(item, order),
                        field => {
                            if let Some(inner) = item.get_mut(field) {
                                *inner = ordered(inner.take(), order);
                            }
                        }
                    }
                }
                item
            })
            .collect();
        out.insert(key.to_string(), Value::Array(items));
    }
    Ok(out)
}

/// An object with `order`'s keys first, in that order, then the others as sent; null
/// values, empty strings and `implicit: false` are left out. Anything else is kept as
/// sent (the loader reports it).
fn ordered(item: Value, order: &[&str]) -> Value {
    let Value::Object(mut map) = item else {
        return item;
    };
    map.retain(|key, v| match v {
        Value::Null => false,
        Value::String(s) => !(s.trim().is_empty() && key != "id"),
        Value::Bool(false) => key != "implicit",
        _ => true,
    });
    let mut out = Map::new();
    for key in order {
        if let Some(v) = map.remove(*key) {
            out.insert(key.to_string(), v);
        }
    }
    out.extend(map);
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object with `order`'s fields in reverse, after a field no order names and a blank
    /// one; `nested` fields hold such an object themselves.
    fn reversed(order: &[&str], nested: &[(&str, &[&str])]) -> Value {
        let mut item = Map::new();
        item.insert("unnamed".into(), Value::from("kept"));
        item.insert("blank".into(), Value::from(" "));
        for field in order.iter().rev() {
            let value = match nested.iter().find(|(f, _)| f == field) {
                Some((_, inner)) => reversed(inner, &[]),
                None => Value::from("x"),
            };
            item.insert(field.to_string(), value);
        }
        Value::Object(item)
    }

    fn fields(written: &Value) -> Vec<&str> {
        written
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// Every registered kind's label items are written in the field order its shapes give,
    /// the objects nested in them too, whatever order the page sent; blank fields are left
    /// out, fields no order names kept after the others.
    #[test]
    fn label_items_are_written_in_each_kinds_field_order() {
        let mut checked = 0;
        for kind in goldgate_core::kinds::all() {
            for shape in goldgate_core::kinds::of(kind).label_shapes() {
                let write = shape.write_order();
                let Some((_, order)) = write.iter().find(|(f, _)| f.is_empty()) else {
                    continue;
                };
                let nested: Vec<(&str, &[&str])> = write
                    .iter()
                    .filter(|(f, _)| !f.is_empty())
                    .copied()
                    .collect();
                let key = shape.key();
                let sent = serde_json::json!({ key: [reversed(order, &nested)] });
                let labels = labels_of(kind, &sent).unwrap();
                let written = &labels[key][0];
                let want: Vec<&str> = order.iter().copied().chain(["unnamed"]).collect();
                assert_eq!(fields(written), want, "{kind} `{key}`");
                for (field, inner) in &nested {
                    let want: Vec<&str> = inner.iter().copied().chain(["unnamed"]).collect();
                    assert_eq!(fields(&written[*field]), want, "{kind} `{key}.{field}`");
                }
                checked += 1;
            }
        }
        assert!(checked >= 4, "{checked} label keys checked");
    }
}
