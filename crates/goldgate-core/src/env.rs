//! `${NAME}` in settings (a pipeline's URL, header values): expanded from the environment
//! when a run starts, so tokens stay out of files. A value in a URL's query is
//! percent-encoded; a variable that is not set is a usage error naming it. The values a
//! template names are secrets: [`values_in`] lists them for redaction. Also the names a
//! template or a shell command uses ([`names_in`], [`shell_names_in`]) and variable patterns
//! (`NAME`, or `PREFIX_*` for every variable starting with `PREFIX_`).

use crate::error::{Error, Result};

/// Expand `${NAME}` from the environment. A missing variable is a usage error naming it.
pub fn expand_env(template: &str, what: &str) -> Result<String> {
    expand(template, what, |value| value.to_string())
}

/// A URL template with `${NAME}` expanded: as [`expand_env`] before the query, and
/// percent-encoded from the `?` on, so a value in the query is one value (a `#`, `&` or `=`
/// in it would cut it short or add parameters, and send part of a secret unredacted).
pub fn expand_url(template: &str) -> Result<String> {
    let what = "the pipeline URL";
    match template.find('?') {
        Some(q) => Ok(expand_env(&template[..q], what)?
            + &expand(&template[q..], what, crate::secrets::percent_encode)?),
        None => expand_env(template, what),
    }
}

fn expand(template: &str, what: &str, encode: impl Fn(&str) -> String) -> Result<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find('}') else {
            return Err(Error::usage(
                format!("unclosed `${{` in {what}"),
                "write environment variables as ${NAME}",
            ));
        };
        let name = &rest[start + 2..start + 2 + len];
        let value = std::env::var(name).map_err(|_| {
            Error::usage(
                format!("{what} uses ${{{name}}}, which is not set"),
                format!("export {name}=... before running goldgate"),
            )
        })?;
        out.push_str(&encode(&value));
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The values of the set variables `${NAME}` in `template` names (to redact them).
pub fn values_in(template: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        if let Ok(value) = std::env::var(&rest[start + 2..start + 2 + len]) {
            values.push(value);
        }
        rest = &rest[start + 3 + len..];
    }
    values
}

/// The names `${NAME}` in `template` uses, in order of appearance.
pub fn names_in(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        names.push(rest[start + 2..start + 2 + len].to_string());
        rest = &rest[start + 3 + len..];
    }
    names
}

/// The variables a shell command uses: `$NAME` and `${NAME}` (also `${NAME:-default}` and
/// the like), in order of appearance.
pub fn shell_names_in(command: &str) -> Vec<String> {
    let is_start = |c: u8| c.is_ascii_alphabetic() || c == b'_';
    let is_name = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = command.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let start = i + 1 + usize::from(bytes.get(i + 1) == Some(&b'{'));
        let mut end = start;
        if bytes.get(start).copied().is_some_and(is_start) {
            while bytes.get(end).copied().is_some_and(is_name) {
                end += 1;
            }
            names.push(command[start..end].to_string());
        }
        i = end.max(i + 1);
    }
    names
}

/// Whether `pattern` names variables: `NAME`, or `PREFIX_*` (one `*`, at its end, after at
/// least one character; no `=`).
pub fn is_pattern(pattern: &str) -> bool {
    let body = pattern.strip_suffix('*').unwrap_or(pattern);
    !body.is_empty() && !body.contains(['=', '*'])
}

/// Whether the variable `name` is one `pattern` names (exactly, or by its prefix).
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_expanded_and_query_values_encoded() {
        std::env::set_var("GOLDGATE_TEST_TOKEN", "s3cret");
        assert_eq!(
            expand_env("Bearer ${GOLDGATE_TEST_TOKEN}", "x").unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(expand_env("no vars", "x").unwrap(), "no vars");
        let e = expand_env("${GOLDGATE_TEST_UNSET_VAR}", "header `Authorization`")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("GOLDGATE_TEST_UNSET_VAR") && e.contains("not set"),
            "{e}"
        );
        assert!(expand_env("${OPEN", "x").is_err());
        // In a URL's query, a value is one value: `#`, `&` and `=` in it are percent-encoded
        // (inserted raw, `#` cut the value short and sent only its start).
        std::env::set_var("GOLDGATE_TEST_QUERY_SECRET", "abc123secret#tail&admin=1");
        std::env::set_var("GOLDGATE_TEST_BASE", "http://127.0.0.1:9/v1");
        assert_eq!(
            expand_url("${GOLDGATE_TEST_BASE}/x?key=${GOLDGATE_TEST_QUERY_SECRET}").unwrap(),
            "http://127.0.0.1:9/v1/x?key=abc123secret%23tail%26admin%3D1"
        );
    }

    #[test]
    fn names_used_by_templates_commands_and_patterns() {
        assert_eq!(names_in("${A}/x?k=${B_2}&${A}"), ["A", "B_2", "A"]);
        assert_eq!(names_in("no ${unclosed"), Vec::<String>::new());
        assert_eq!(
            shell_names_in("X=${MODE:-fast} python3 p.py $FLAG_1 '$2' $$ ${#N} $"),
            ["MODE", "FLAG_1"]
        );
        assert!(is_pattern("NAME") && is_pattern("PREFIX_*"));
        assert!(!is_pattern("") && !is_pattern("A=B") && !is_pattern("A*B"));
        assert!(!is_pattern("*") && !is_pattern("A**"));
        assert!(matches("PREFIX_*", "PREFIX_X") && !matches("PREFIX_*", "OTHER"));
        assert!(matches("NAME", "NAME") && !matches("NAME", "NAMES"));
    }
}
