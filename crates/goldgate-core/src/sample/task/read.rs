//! Reading `[tasks.NAME]` tables: the TOML as written, with the place of every key, then
//! resolved with their defaults and checked — every problem of the file at once, each at
//! its line with a hint.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::{Cot, Field, Lookup, MatchMode, Relaxed, Role, SupportMode, Task, Tasks};
use crate::error::{Location, Problem};
use crate::metrics::SchemaMode;
use crate::text::norm;

/// A `[tasks.NAME]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTask {
    fields: Spanned<Vec<Spanned<RawField>>>,
    #[serde(default)]
    type_field: Option<Spanned<String>>,
    #[serde(default)]
    relaxed: Option<RawRelaxed>,
    #[serde(default)]
    hallucination: Option<RawHallucination>,
    #[serde(default)]
    schema: Option<SchemaMode>,
    #[serde(default)]
    cot: Option<RawCot>,
    #[serde(default)]
    final_paths: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    stage1_paths: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    label_conflicts: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Spanned<String>,
    role: Role,
    #[serde(default)]
    values: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    synonyms: Option<Spanned<BTreeMap<String, Vec<String>>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRelaxed {
    #[serde(default)]
    match_mode: Option<MatchMode>,
    #[serde(default)]
    char_overlap_threshold: Option<Spanned<f64>>,
    #[serde(default)]
    span_iou_threshold: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHallucination {
    match_mode: SupportMode,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCot {
    #[serde(default)]
    enabled: bool,
    #[serde(default = "yes")]
    require_thought_block: bool,
}

fn yes() -> bool {
    true
}

/// Members of a tuple that carry meaning beside its fields: no field may take their name.
pub const RESERVED: &[&str] = &["implicit", "start", "end", "confidence", "drop_reason"];

/// The pointers tried for the final tuples when a task names none.
pub const DEFAULT_FINAL_PATHS: [&str; 2] = ["/final_tuples", "/tuples"];

/// Resolve and check every task; `at` turns a byte offset of `suite.toml` into a location.
pub(crate) fn resolve(
    raw: BTreeMap<String, Spanned<RawTask>>,
    at: &dyn Fn(usize) -> Location,
) -> Result<Tasks, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut tasks = BTreeMap::new();
    for (name, spanned) in raw {
        let start = spanned.span().start;
        let mut check = Check {
            task: &name,
            at,
            problems: &mut problems,
        };
        if let Some(task) = check.task(name.clone(), start, spanned.into_inner()) {
            tasks.insert(name, Arc::new(task));
        }
    }
    if problems.is_empty() {
        Ok(Tasks(tasks))
    } else {
        Err(problems)
    }
}

/// Collects the problems of one task.
struct Check<'a> {
    task: &'a str,
    at: &'a dyn Fn(usize) -> Location,
    problems: &'a mut Vec<Problem>,
}

impl Check<'_> {
    fn problem(&mut self, offset: usize, key: &str, message: String, hint: &str) {
        let field = format!("tasks.{}.{key}", self.task);
        self.problems
            .push(Problem::new((self.at)(offset), Some(field), message).with_hint(hint));
    }

    fn task(&mut self, name: String, start: usize, raw: RawTask) -> Option<Task> {
        let before = self.problems.len();
        if !is_task_name(&name) {
            self.problem(
                start,
                "",
                format!("task name `{name}` is not of the form [A-Za-z0-9._-]+"),
                "use letters, digits, `.`, `_` and `-`, e.g. `[tasks.absa]`",
            );
        }
        let fields_at = raw.fields.span().start;
        let fields = self.fields(raw.fields.into_inner());
        if fields.is_empty() && self.problems.len() == before {
            self.problem(
                fields_at,
                "fields",
                "a task needs at least one field".into(),
                "list its fields, e.g. `fields = [{ name = \"aspect_term\", role = \"span\" }]`",
            );
        }
        let labels: Vec<usize> = (0..fields.len())
            .filter(|&i| fields[i].role == Role::Label)
            .collect();
        let type_field = match raw.type_field {
            None => labels.first().copied(),
            Some(t) => {
                let found = labels
                    .iter()
                    .copied()
                    .find(|&i| fields[i].name == *t.get_ref());
                if found.is_none() {
                    let names: Vec<&str> =
                        labels.iter().map(|&i| fields[i].name.as_str()).collect();
                    let hint = match names.as_slice() {
                        [] => "the task has no label field; remove `type_field`".to_string(),
                        _ => format!("name one of its label fields: {}", names.join(", ")),
                    };
                    self.problem(
                        t.span().start,
                        "type_field",
                        format!("`{}` is not a label field of this task", t.get_ref()),
                        &hint,
                    );
                }
                found
            }
        };
        let relaxed = self.relaxed(raw.relaxed);
        let final_paths = match raw.final_paths {
            Some(p) => self.pointers(p, "final_paths", false),
            None => DEFAULT_FINAL_PATHS.iter().map(|s| s.to_string()).collect(),
        };
        let stage1_paths = match raw.stage1_paths {
            Some(p) => self.pointers(p, "stage1_paths", true),
            None => Vec::new(),
        };
        let label_conflicts = match raw.label_conflicts {
            Some(on) if *on.get_ref() && labels.is_empty() => {
                self.problem(
                    on.span().start,
                    "label_conflicts",
                    "label conflicts need a label field, and this task has none".into(),
                    "remove `label_conflicts` or add a field with `role = \"label\"`",
                );
                false
            }
            Some(on) => *on.get_ref(),
            None => labels.len() == 1,
        };
        let cot = raw.cot.map_or(
            Cot {
                enabled: false,
                require_thought_block: true,
            },
            |c| Cot {
                enabled: c.enabled,
                require_thought_block: c.require_thought_block,
            },
        );
        let lookup = fields.iter().map(lookup_of).collect();
        (self.problems.len() == before).then_some(Task {
            name,
            fields,
            type_field,
            relaxed,
            hallucination: raw
                .hallucination
                .map_or(SupportMode::NormalizedSubstring, |h| h.match_mode),
            schema: raw.schema.unwrap_or_default(),
            cot,
            final_paths,
            stage1_paths,
            label_conflicts,
            lookup,
        })
    }

    fn fields(&mut self, raw: Vec<Spanned<RawField>>) -> Vec<Field> {
        let mut out: Vec<Field> = Vec::new();
        for spanned in raw {
            let at = spanned.span().start;
            let f = spanned.into_inner();
            let name = f.name.get_ref().clone();
            let name_at = f.name.span().start;
            if name.trim().is_empty() {
                self.problem(
                    name_at,
                    "fields",
                    "a field needs a name".into(),
                    "e.g. `name = \"polarity\"`",
                );
            } else if RESERVED.contains(&name.as_str()) {
                self.problem(
                    name_at,
                    "fields",
                    format!("`{name}` cannot be a field: tuples use it for their own member"),
                    &format!(
                        "rename the field; {} keep their meaning on every tuple",
                        RESERVED.join(", ")
                    ),
                );
            } else if out.iter().any(|o| o.name == name) {
                self.problem(
                    name_at,
                    "fields",
                    format!("field `{name}` is listed twice"),
                    "give every field its own name",
                );
            }
            let values = f.values.map(|v| (v.span().start, v.into_inner()));
            let synonyms = f.synonyms.map(|s| (s.span().start, s.into_inner()));
            if f.role == Role::Span {
                for (offset, key) in [
                    (values.as_ref().map(|v| v.0), "values"),
                    (synonyms.as_ref().map(|s| s.0), "synonyms"),
                ] {
                    if let Some(offset) = offset {
                        self.problem(
                            offset,
                            "fields",
                            format!("span field `{name}` cannot have `{key}`"),
                            "a span is text from the input; give `values` and `synonyms` to a field with `role = \"label\"`",
                        );
                    }
                }
                out.push(Field {
                    name,
                    role: f.role,
                    values: Vec::new(),
                    synonyms: Vec::new(),
                });
                continue;
            }
            let (values_at, values) = values.unwrap_or((at, Vec::new()));
            let mut seen = std::collections::HashSet::new();
            for v in &values {
                if !seen.insert(v.as_str()) {
                    self.problem(
                        values_at,
                        "fields",
                        format!("value `{v}` of field `{name}` is listed twice"),
                        "list each value once",
                    );
                }
            }
            let mut by_value = vec![Vec::new(); values.len()];
            if let Some((syn_at, synonyms)) = synonyms {
                for (canonical, alternatives) in synonyms {
                    match values.iter().position(|v| *v == canonical) {
                        Some(i) => by_value[i] = alternatives,
                        None => {
                            let hint = match values.is_empty() {
                                true => {
                                    "give the field `values`; synonyms map onto them".to_string()
                                }
                                false => format!(
                                    "synonyms are keyed by one of the values: {}",
                                    values.join(", ")
                                ),
                            };
                            self.problem(syn_at, "fields", format!("synonyms of `{canonical}`, which is not a value of field `{name}`"), &hint);
                        }
                    }
                }
            }
            self.ambiguous(&name, &values, &by_value, values_at);
            out.push(Field {
                name,
                role: f.role,
                values,
                synonyms: by_value,
            });
        }
        out
    }

    /// Two canonical values sharing a spelling, exactly or by non-empty norm, would make a
    /// label map to either.
    fn ambiguous(&mut self, field: &str, values: &[String], synonyms: &[Vec<String>], at: usize) {
        let spellings = |i: usize| std::iter::once(&values[i]).chain(&synonyms[i]);
        for a in 0..values.len() {
            for b in a + 1..values.len() {
                let shared = spellings(a).find(|x| {
                    let nx = norm(x);
                    spellings(b)
                        .any(|y| x.as_str() == y.as_str() || (!nx.is_empty() && nx == norm(y)))
                });
                if let Some(x) = shared {
                    self.problem(
                        at,
                        "fields",
                        format!("`{x}` in field `{field}` would map to both `{}` and `{}`", values[a], values[b]),
                        "spellings compare exactly and after norm (case, punctuation); give each value its own",
                    );
                }
            }
        }
    }

    fn relaxed(&mut self, raw: Option<RawRelaxed>) -> Relaxed {
        let mut relaxed = Relaxed {
            match_mode: MatchMode::IncludeOrCharOverlap,
            char_overlap_threshold: 0.5,
            span_iou_threshold: 0.5,
        };
        let Some(raw) = raw else { return relaxed };
        relaxed.match_mode = raw.match_mode.unwrap_or(relaxed.match_mode);
        for (value, slot, key) in [
            (
                raw.char_overlap_threshold,
                &mut relaxed.char_overlap_threshold,
                "relaxed.char_overlap_threshold",
            ),
            (
                raw.span_iou_threshold,
                &mut relaxed.span_iou_threshold,
                "relaxed.span_iou_threshold",
            ),
        ] {
            if let Some(v) = value {
                if (0.0..=1.0).contains(v.get_ref()) {
                    *slot = *v.get_ref();
                } else {
                    self.problem(
                        v.span().start,
                        key,
                        format!("{} is outside [0, 1]", v.get_ref()),
                        "a share of characters: 0.5 is the default",
                    );
                }
            }
        }
        relaxed
    }

    fn pointers(
        &mut self,
        raw: Spanned<Vec<Spanned<String>>>,
        key: &str,
        may_be_empty: bool,
    ) -> Vec<String> {
        let at = raw.span().start;
        let list = raw.into_inner();
        if list.is_empty() && !may_be_empty {
            self.problem(
                at,
                key,
                "no pointer: no answer could be read".into(),
                "e.g. `final_paths = [\"/final_tuples\", \"/tuples\"]`",
            );
        }
        let mut out = Vec::new();
        for p in list {
            if let Err(why) = check_pointer(p.get_ref()) {
                self.problem(
                    p.span().start,
                    key,
                    format!("`{}` is not a JSON pointer: {why}", p.get_ref()),
                    "a pointer is empty (the whole answer) or `/key/0/…`; write `~0` for `~` and `~1` for `/`",
                );
            }
            out.push(p.into_inner());
        }
        out
    }
}

fn is_task_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Whether `p` is a JSON pointer (RFC 6901).
fn check_pointer(p: &str) -> Result<(), &'static str> {
    if !p.is_empty() && !p.starts_with('/') {
        return Err("it must be empty or start with `/`");
    }
    let bytes = p.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'~' && !matches!(bytes.get(i + 1), Some(b'0' | b'1')) {
            return Err("`~` must be followed by 0 or 1");
        }
    }
    Ok(())
}

fn lookup_of(field: &Field) -> Lookup {
    let mut lookup = Lookup {
        keys: field.values.iter().map(|v| norm(v)).collect(),
        ..Lookup::default()
    };
    for (i, value) in field.values.iter().enumerate() {
        for spelling in std::iter::once(value).chain(&field.synonyms[i]) {
            lookup.exact.entry(spelling.clone()).or_insert(i);
            let n = norm(spelling);
            if !n.is_empty() {
                lookup.normed.entry(n).or_insert(i);
            }
        }
    }
    lookup
}
