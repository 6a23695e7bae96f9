//! `${NAME}` in settings (a pipeline's URL, header values): expanded from the environment
//! when a run starts, so tokens stay out of files. A value in a URL's query is
//! percent-encoded; a variable that is not set is a usage error naming it. The values a
//! template names are secrets: [`values_in`] lists them for redaction.

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
}
