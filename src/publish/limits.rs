//! GitHub's limits as the API reports them: a rate limit told from a permission problem (a
//! primary one, no requests left until `x-ratelimit-reset`; a secondary one, 429 or a 403
//! with `Retry-After`), a 422 about a text's size, and a check run's summary cut to
//! GitHub's 65,535 bytes at a character boundary.

use http::StatusCode;
use serde_json::Value;

/// A text to post, and a shorter rendering of it for when GitHub refuses the size (GitHub
/// counts some characters as more than one) or a check run's summary, limited to
/// [`CHECK_RUN_SUMMARY_BYTES`], would not hold it.
#[derive(Clone, Copy)]
pub struct Body<'a> {
    pub text: &'a str,
    /// Renders the shorter text (at most [`CHECK_RUN_SUMMARY_BYTES`]).
    pub shorter: &'a dyn Fn() -> String,
}

/// GitHub's limit on a check run's summary: 65,535, counted in bytes.
pub const CHECK_RUN_SUMMARY_BYTES: usize = 65_535;

/// The kind of rate limit an answer reports, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateLimit {
    /// No requests left in the window (`x-ratelimit-remaining: 0`): wait for its reset.
    Primary,
    /// Too many requests at once (429, or a 403 with `Retry-After`): back off.
    Secondary,
}

impl RateLimit {
    /// The rate limit of an answer with this status and `x-ratelimit-remaining` and
    /// `Retry-After` headers; `None` for every other answer (a 403 without them is about
    /// permissions).
    pub fn of(
        status: StatusCode,
        remaining: Option<&str>,
        retry_after: Option<&str>,
    ) -> Option<Self> {
        let limited = status == StatusCode::FORBIDDEN || status == StatusCode::TOO_MANY_REQUESTS;
        if limited && remaining.is_some_and(|r| r.trim() == "0") {
            return Some(RateLimit::Primary);
        }
        let secondary = status == StatusCode::TOO_MANY_REQUESTS
            || (status == StatusCode::FORBIDDEN && retry_after.is_some());
        secondary.then_some(RateLimit::Secondary)
    }
}

/// A 422 about the size of the text (`body is too long`, or an error on the body field).
pub fn too_long(status: StatusCode, body: &Value) -> bool {
    if status != StatusCode::UNPROCESSABLE_ENTITY {
        return false;
    }
    let about_body = body["errors"].as_array().is_some_and(|errors| {
        errors.iter().any(|e| {
            matches!(
                e["field"].as_str(),
                Some("body" | "summary" | "output.summary")
            )
        })
    });
    about_body || body.to_string().to_lowercase().contains("too long")
}

/// `text` cut to at most `max` bytes at a character boundary.
pub fn cut_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use http::StatusCode;

    #[test]
    fn a_check_run_summary_is_cut_in_bytes_at_a_character_boundary() {
        let wide = "検".repeat(30_000); // 90,000 bytes in 30,000 characters
        let cut = super::cut_bytes(&wide, super::CHECK_RUN_SUMMARY_BYTES);
        assert!(cut.len() <= super::CHECK_RUN_SUMMARY_BYTES && cut.len() > 65_530);
        assert!(cut.chars().all(|c| c == '検'));
        assert_eq!(super::cut_bytes("short", 10), "short");
    }

    #[test]
    fn rate_limits_are_told_from_permission_problems() {
        use super::RateLimit;
        let forbidden = StatusCode::FORBIDDEN;
        assert_eq!(
            RateLimit::of(forbidden, Some("0"), None),
            Some(RateLimit::Primary)
        );
        assert_eq!(
            RateLimit::of(StatusCode::TOO_MANY_REQUESTS, Some("0"), None),
            Some(RateLimit::Primary)
        );
        assert_eq!(
            RateLimit::of(forbidden, Some("12"), Some("30")),
            Some(RateLimit::Secondary)
        );
        assert_eq!(
            RateLimit::of(StatusCode::TOO_MANY_REQUESTS, None, None),
            Some(RateLimit::Secondary)
        );
        assert_eq!(
            RateLimit::of(forbidden, Some("12"), None),
            None,
            "a permission problem"
        );
        assert_eq!(RateLimit::of(forbidden, None, None), None);
    }

    #[test]
    fn a_422_about_size_is_told_from_other_422s() {
        use serde_json::json;
        let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
        let size = json!({"message": "Validation Failed", "errors": [{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}]});
        assert!(super::too_long(unprocessable, &size));
        assert!(super::too_long(
            unprocessable,
            &json!({"message": "Body is too long"})
        ));
        assert!(!super::too_long(
            unprocessable,
            &json!({"message": "Validation Failed", "errors": [{"field": "head_sha"}]})
        ));
        assert!(!super::too_long(StatusCode::BAD_REQUEST, &size));
    }
}
