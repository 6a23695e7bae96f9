//! Typed errors with their context (file, line, field, hint), the gate's outcome, and the
//! one place both are mapped to exit codes: 0 pass, 1 gate failed, 2 usage, configuration or
//! input error, 3 incomplete run, 101 an internal error (a bug in goldgate).

use std::fmt;
use std::path::{Path, PathBuf};

/// Process exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Pass (warnings included), or a command that succeeded.
    Ok = 0,
    /// The gate failed (or a check such as `suite agreement --min-kappa` did not hold).
    Failed = 1,
    /// Usage, configuration or input error.
    Input = 2,
    /// Incomplete run: pipeline unreachable, too many errors, fewer samples than expected.
    Incomplete = 3,
    /// A bug in goldgate (the same code a Rust panic exits with).
    Internal = 101,
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// What the gate decided, as far as the build is concerned.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Warn,
    Fail,
    /// The run itself is broken (errors, missing samples): not a quality verdict.
    Incomplete,
}

impl From<Outcome> for Exit {
    fn from(outcome: Outcome) -> Exit {
        match outcome {
            Outcome::Pass | Outcome::Warn => Exit::Ok,
            Outcome::Fail => Exit::Failed,
            Outcome::Incomplete => Exit::Incomplete,
        }
    }
}

/// Where to report a bug.
pub const BUG_REPORTS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/issues");

/// A place in a file: path, 1-based line and column (0 when unknown).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Location {
    pub fn new(path: &Path, line: usize, column: usize) -> Self {
        Location {
            path: path.to_path_buf(),
            line,
            column,
        }
    }

    /// A whole file, no line.
    pub fn file(path: &Path) -> Self {
        Location::new(path, 0, 0)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        Ok(())
    }
}

/// How bad a problem is: errors block loading; warnings are labelling-guide rules that
/// `suite lint` reports (and fails on) but that do not stop scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in an input file: where, which field, what, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub location: Location,
    /// The field path inside the document (`labels.requirements[2].type`), when known.
    pub field: Option<String>,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    pub fn new(location: Location, field: Option<String>, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Error,
            location,
            field,
            message: message.into(),
            hint: None,
        }
    }

    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // The field, message and hint echo suite text: one line each, control characters
        // shown as pictures (escape::one_line), so an echoed value cannot start a line.
        use crate::escape::one_line;
        write!(f, "{}: {label}: ", self.location)?;
        if let Some(field) = &self.field {
            write!(f, "`{}`: ", one_line(field))?;
        }
        write!(f, "{}", one_line(&self.message))?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {}", one_line(hint))?;
        }
        Ok(())
    }
}

/// Every error goldgate reports. Each variant carries enough context to act on it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// One or more problems in input files (suite, run file, config).
    #[error("{}", render_problems(what, problems))]
    Invalid {
        what: &'static str,
        problems: Vec<Problem>,
    },
    /// Bad command-line usage.
    #[error("{message}\n  hint: {hint}")]
    Usage { message: String, hint: String },
    /// The machine refused something a run needs (starting the async runtime, spawning
    /// threads): neither the user's input nor a bug.
    #[error("{message}\n  hint: {hint}")]
    Environment { message: String, hint: String },
    /// A budget (`--max-cost`) the run cannot keep: said before any call is made.
    #[error("{message}\n  hint: {hint}")]
    OverBudget { message: String, hint: String },
    /// A bug in goldgate: an invariant did not hold.
    #[error("internal error: {message}\n  this is a bug in goldgate {version}; please report it at {url}", version = env!("CARGO_PKG_VERSION"), url = BUG_REPORTS)]
    Internal { message: String },
}

impl Error {
    /// A single invalid-input problem.
    pub fn invalid(what: &'static str, problem: Problem) -> Self {
        Error::Invalid {
            what,
            problems: vec![problem],
        }
    }

    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn environment(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Environment {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// A bug: say what did not hold.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal {
            message: message.into(),
        }
    }

    /// The exit code this error maps to: bad input is 2; an environment that refused what
    /// the run needs, or a budget it cannot keep, is 3, like any run that could not
    /// complete; a bug is 101, so no script
    /// mistakes it for bad input.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Read { .. }
            | Error::Write { .. }
            | Error::Invalid { .. }
            | Error::Usage { .. } => Exit::Input,
            Error::Environment { .. } | Error::OverBudget { .. } => Exit::Incomplete,
            Error::Internal { .. } => Exit::Internal,
        }
    }
}

/// A panic, reported as the bug it is (the binary's panic hook prints this).
pub fn bug(info: &std::panic::PanicHookInfo<'_>) -> Error {
    let what = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    let place = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    Error::internal(format!("{what}{place}"))
}

fn render_problems(what: &str, problems: &[Problem]) -> String {
    let mut out = match problems.len() {
        1 => format!("invalid {what}:\n"),
        n => format!("invalid {what} ({n} problems):\n"),
    };
    for p in problems {
        out.push_str(&format!("  {}\n", p.to_string().replace('\n', "\n  ")));
    }
    out.trim_end().to_string()
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_error_has_its_exit_code_and_a_bug_says_it_is_one() {
        assert_eq!(Error::usage("x", "y").exit(), Exit::Input);
        assert_eq!(Error::environment("x", "y").exit(), Exit::Incomplete);
        let bug = Error::internal("an invariant did not hold");
        assert_eq!(bug.exit().code(), 101);
        let text = bug.to_string();
        assert!(
            text.contains("this is a bug in goldgate") && text.contains("/issues"),
            "{text}"
        );
        assert_eq!(Exit::from(Outcome::Warn), Exit::Ok);
        assert_eq!(Exit::from(Outcome::Fail).code(), 1);
        assert_eq!(Exit::from(Outcome::Incomplete).code(), 3);
    }
}
