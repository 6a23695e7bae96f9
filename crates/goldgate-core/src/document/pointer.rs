//! JSON pointers (RFC 6901): escaping a segment, and turning a pointer into the field path
//! people read in error messages (`/labels/requirements/0/type` →
//! `labels.requirements[0].type`).

/// RFC 6901 escaping of one pointer segment: `~` becomes `~0`, `/` becomes `~1`.
pub fn escape_pointer_segment(s: &str) -> String {
    let mut escaped = String::with_capacity(s.len());
    push_escaped(&mut escaped, s);
    escaped
}

pub(super) fn push_escaped(out: &mut String, segment: &str) {
    if !segment.contains(['~', '/']) {
        out.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
}

/// `/labels/requirements/0/type` → `labels.requirements[0].type`.
pub fn field_of(pointer: &str) -> Option<String> {
    if pointer.is_empty() {
        return None;
    }
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    Some(out)
}

/// The JSON pointer of a field path made by [`field_of`] (`labels.requirements[2].type` →
/// `/labels/requirements/2/type`); `None` gives the whole document, `""`.
pub fn pointer_of_field(field: Option<&str>) -> String {
    let mut out = String::new();
    for part in field
        .unwrap_or_default()
        .split('.')
        .filter(|p| !p.is_empty())
    {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push('/');
            out.push_str(&escape_pointer_segment(key));
        }
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            out.push('/');
            out.push_str(index.trim_end_matches(']'));
        }
    }
    out
}

/// The JSON pointer of the place a typed deserialization failed.
pub fn pointer_of(path: &serde_path_to_error::Path) -> String {
    path.iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => Some(format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => {
                Some(format!("/{}", escape_pointer_segment(key)))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_path_turns_back_into_its_pointer() {
        for pointer in [
            "",
            "/id",
            "/annotations/2/requirements/10/acceptance_criteria/0",
            "/labels/tuples/0/a~1b",
        ] {
            let field = field_of(pointer);
            assert_eq!(pointer_of_field(field.as_deref()), pointer, "{field:?}");
        }
    }
}
