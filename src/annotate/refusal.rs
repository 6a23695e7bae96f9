//! Why the server refused a request: each kind with its HTTP status and the JSON body the
//! page reads (`{"error", "message", "problems"}`).

use serde::Serialize;

use goldgate_core::error::Problem;
use goldgate_core::suite::edit::EditError;

/// One problem of an edit, at a JSON pointer relative to what the page sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldProblem {
    pub pointer: String,
    pub message: String,
    pub hint: Option<String>,
}

/// A refused request.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    NotFound(String),
    /// The edit breaks the labelling schema; nothing was written.
    Invalid {
        message: String,
        problems: Vec<FieldProblem>,
    },
    /// The sample changed on disk since the page read it; nothing was written.
    Changed(String),
    /// The file uses something the editor does not rewrite in place.
    Unsupported(String),
    BadRequest(String),
    /// The request body is larger than the server accepts.
    TooLarge(String),
    /// The request body did not arrive in time.
    Timeout(String),
    /// The sample's path is no longer a regular file inside the suite; nothing was read
    /// or written through it.
    NotInSuite(String),
    Internal(String),
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::NotFound(_) => 404,
            Refusal::Invalid { .. } | Refusal::Unsupported(_) => 422,
            Refusal::Changed(_) => 409,
            Refusal::BadRequest(_) => 400,
            Refusal::TooLarge(_) => 413,
            Refusal::Timeout(_) => 408,
            Refusal::NotInSuite(_) => 403,
            Refusal::Internal(_) => 500,
        }
    }

    /// The JSON body.
    pub fn body(&self) -> serde_json::Value {
        let (code, message) = match self {
            Refusal::NotFound(m) => ("not_found", m),
            Refusal::Invalid { message, .. } => ("invalid", message),
            Refusal::Changed(m) => ("changed", m),
            Refusal::Unsupported(m) => ("unsupported", m),
            Refusal::BadRequest(m) => ("bad_request", m),
            Refusal::TooLarge(m) => ("too_large", m),
            Refusal::Timeout(m) => ("timeout", m),
            Refusal::NotInSuite(m) => ("not_in_suite", m),
            Refusal::Internal(m) => ("internal", m),
        };
        let mut body = serde_json::json!({ "error": code, "message": message });
        if let Refusal::Invalid { problems, .. } = self {
            body["problems"] = serde_json::to_value(problems).unwrap_or_default();
        }
        body
    }

    /// The sample's problems on disk (the file was edited into something that does not load).
    pub fn broken_on_disk(id: &str, problems: &[Problem]) -> Refusal {
        Refusal::Invalid {
            message: format!(
                "sample `{id}` no longer loads from its file; fix the file (goldgate suite lint lists the problems) and reload"
            ),
            problems: problems
                .iter()
                .filter(|p| p.is_error())
                .map(|p| FieldProblem {
                    pointer: goldgate_core::document::pointer_of_field(p.field.as_deref()),
                    message: format!("{}:{}: {}", p.location.path.display(), p.location.line, p.message),
                    hint: p.hint.clone(),
                })
                .collect(),
        }
    }
}

impl From<EditError> for Refusal {
    fn from(e: EditError) -> Self {
        match e {
            EditError::Changed { .. } => Refusal::Changed(
                "the sample changed on disk since this page loaded it; nothing was saved. Reload the sample to see the file's version".into(),
            ),
            EditError::Unsupported { .. } => Refusal::Unsupported(e.to_string()),
            EditError::Busy { .. } => Refusal::Changed(format!(
                "{e}; nothing was saved. Reload the sample and save again"
            )),
            EditError::Gone { .. } => Refusal::Changed(format!(
                "{e}; nothing was saved. Restart goldgate annotate to read the suite again"
            )),
            EditError::NotInSuite { .. } => {
                Refusal::NotInSuite(format!("{e}; nothing was read or saved"))
            }
            EditError::Io { .. } => Refusal::Internal(e.to_string()),
            // The file's layout around the edit is one the editor cannot rewrite in place
            // (the check that reads the result back caught it; nothing was written).
            EditError::Verify(_) => Refusal::Unsupported(format!(
                "{e}; edit this part of the file by hand"
            )),
            other => Refusal::BadRequest(other.to_string()),
        }
    }
}
