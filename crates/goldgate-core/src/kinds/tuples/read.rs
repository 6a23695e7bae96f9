//! Reading tuples out of a JSON value (an answer, or a sample's gold): JSON pointers
//! (RFC 6901) tried in order, and a list's elements turned into a set of tuple keys. An
//! element is well-formed when it is an object holding every field of the task as a
//! string; the set keeps each key once (a repeated tuple counts once), with the attributes
//! (raw values, offsets, `implicit`, `confidence`, `drop_reason`) of its first element;
//! every element that is not well-formed — each one, even when it repeats another — is a
//! tuple that never matches and only adds to the count.

use crate::hash::FastSet;
use crate::kinds::compliance::{quoted, token, what, Violations};
use crate::parse::json::Json;
use crate::sample::task::{Role, Task};

/// One member of a tuple set.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The key of each field, in field order.
    pub key: Vec<String>,
    /// Each field's value as written.
    pub raw: Vec<String>,
    /// `start` and `end`, when both are non-negative JSON integers.
    pub offsets: Option<(u64, u64)>,
    /// `implicit: true` (the tuple claims no span in the text).
    pub implicit: bool,
    /// `confidence`, when it is a finite number in [0, 1].
    pub confidence: Option<f64>,
    /// A `drop_reason` member that is present and not null.
    pub dropped: bool,
}

/// The tuples of one list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TupleSet {
    /// Distinct keys in the order of their first element.
    pub members: Vec<Member>,
    /// Elements that are not well-formed: each a tuple that never matches.
    pub malformed: usize,
    /// Whether every label value of every well-formed element maps to one of its field's
    /// values (fields without `values` take any).
    pub labels_known: bool,
}

impl TupleSet {
    /// The members and the malformed elements: what precision (or recall) counts against.
    pub fn count(&self) -> usize {
        self.members.len() + self.malformed
    }

    /// Read a list against a task.
    pub fn read(task: &Task, list: &[Json<'_>]) -> TupleSet {
        let mut set = TupleSet {
            labels_known: true,
            ..TupleSet::default()
        };
        let mut all = Vec::with_capacity(list.len());
        for element in list {
            match member(task, element, &mut set.labels_known) {
                Some(member) => all.push(member),
                None => set.malformed += 1,
            }
        }
        let first: Vec<bool> = {
            let mut seen = FastSet::default();
            all.iter().map(|m| seen.insert(m.key.as_slice())).collect()
        };
        set.members = all
            .into_iter()
            .zip(first)
            .filter_map(|(m, first)| first.then_some(m))
            .collect();
        set
    }

    /// The distinct keys, for set operations.
    pub fn keys(&self) -> FastSet<&[String]> {
        self.members.iter().map(|m| m.key.as_slice()).collect()
    }
}

/// An element as a member, when it is well-formed; clears `labels_known` when one of its
/// label values maps to none of its field's values.
fn member(task: &Task, element: &Json<'_>, labels_known: &mut bool) -> Option<Member> {
    let object = element.as_object()?;
    let mut key = Vec::with_capacity(task.fields.len());
    let mut raw = Vec::with_capacity(task.fields.len());
    for field in &task.fields {
        raw.push(object.get(&field.name)?.as_str()?.to_string());
    }
    for (i, value) in raw.iter().enumerate() {
        let mapped = task.label_key(i, value);
        let field = &task.fields[i];
        if field.role == Role::Label && !field.values.is_empty() && !mapped.mapped {
            *labels_known = false;
        }
        key.push(mapped.key);
    }
    let integer = |name: &str| match object.get(name) {
        Some(Json::Number(n)) => n.as_u64(),
        _ => None,
    };
    Some(Member {
        key,
        raw,
        offsets: integer("start").zip(integer("end")),
        implicit: matches!(object.get("implicit"), Some(Json::Bool(true))),
        confidence: match object.get("confidence") {
            Some(Json::Number(n)) => n.as_f64().filter(|c| (0.0..=1.0).contains(c)),
            _ => None,
        },
        dropped: !matches!(object.get("drop_reason"), None | Some(Json::Null)),
    })
}

/// Why an answer is not schema-compliant (`tuples.schema_compliance`): no list at any of
/// the task's final pointers, or elements of the list `found` that are not objects holding
/// every field as a string, or whose label values are none of their field's values.
pub fn violations(task: &Task, found: Option<(usize, &[Json<'_>])>) -> Violations {
    let mut v = Violations::default();
    let Some((i, list)) = found else {
        v.add(String::new, || {
            let places: Vec<&str> = task
                .final_paths
                .iter()
                .map(|p| if p.is_empty() { "the top level" } else { p })
                .collect();
            format!("no list at {}", places.join(", "))
        });
        return v;
    };
    let at = task.final_paths[i].as_str();
    for (j, element) in list.iter().enumerate() {
        let Some(object) = element.as_object() else {
            v.add(
                || format!("{at}/{j}"),
                || format!("not an object ({})", what(element)),
            );
            continue;
        };
        for (k, field) in task.fields.iter().enumerate() {
            let path = || format!("{at}/{j}/{}", token(&field.name));
            match object.get(&field.name) {
                None => v.add(path, || "missing".into()),
                Some(value) => match value.as_str() {
                    None => v.add(path, || format!("not a string ({})", what(value))),
                    Some(s) => {
                        let label = field.role == Role::Label && !field.values.is_empty();
                        if label && !task.label_key(k, s).mapped {
                            v.add(path, || {
                                format!("{} is not one of {}", quoted(s), field.values.join(", "))
                            });
                        }
                    }
                },
            }
        }
    }
    v
}

/// The first of `pointers` that resolves to a list: its index among them, and the list.
pub fn first_list<'v, 'a>(
    root: Option<&'v Json<'a>>,
    pointers: &[String],
) -> Option<(usize, &'v [Json<'a>])> {
    let root = root?;
    pointers
        .iter()
        .enumerate()
        .find_map(|(i, p)| Some((i, root.pointer(p)?.as_array()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json<'static> {
        Json::parse_owned(text).unwrap()
    }

    #[test]
    fn pointers_follow_rfc_6901() {
        let doc = json(r#"{"a/b": {"~x": [10, 20]}, "": 1, "list": [[1], {"k": 2}]}"#);
        let at = |p: &str| doc.pointer(p).map(|v| v.as_f64());
        assert_eq!(at("/a~1b/~0x/1"), Some(Some(20.0)));
        assert_eq!(at("/"), Some(Some(1.0)), "the empty key");
        assert_eq!(at("/list/1/k"), Some(Some(2.0)));
        assert_eq!(at("/list/01"), None, "no leading zeros");
        assert_eq!(at("/list/-"), None);
        assert_eq!(at("/list/2"), None);
        assert_eq!(at("/missing"), None);
        assert!(doc.pointer("").is_some_and(|v| v.as_object().is_some()));
        let list = json("[1, 2]");
        let pointers = ["/final_tuples".to_string(), "".to_string()];
        assert_eq!(
            first_list(Some(&list), &pointers).map(|(i, l)| (i, l.len())),
            Some((1, 2))
        );
        let object = json(r#"{"final_tuples": 3, "tuples": []}"#);
        let pointers = ["/final_tuples".to_string(), "/tuples".to_string()];
        assert_eq!(
            first_list(Some(&object), &pointers).map(|(i, _)| i),
            Some(1),
            "a non-list is skipped"
        );
    }
}
