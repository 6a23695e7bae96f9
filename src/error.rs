//! Typed errors with their context (file, line, field, hint), and the one place that maps
//! them to the exit codes of SPEC §6.

use std::fmt;
use std::path::{Path, PathBuf};

/// Process exit codes (SPEC §6).
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
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}

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
        write!(f, "{}: {label}: ", self.location)?;
        if let Some(field) = &self.field {
            write!(f, "`{field}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
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

    /// The exit code this error maps to (SPEC §6): every error a user can cause is 2.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Read { .. }
            | Error::Write { .. }
            | Error::Invalid { .. }
            | Error::Usage { .. } => Exit::Input,
        }
    }
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
