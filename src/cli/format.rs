//! What each command prints on stdout: one format enum per command, so a format a command
//! cannot produce (`score --format markdown`, `publish --format html`) is a usage error
//! listing the ones it has, never a silent fallback. Every `json` format prints one JSON
//! document; where the command writes or reads a file, it is that file's JSON.

use clap::ValueEnum;

/// What `score` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScoreFormat {
    /// The metrics table
    Text,
    /// The score file: the bytes written to --output
    Json,
}

/// What `baseline show` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BaselineFormat {
    /// The metrics and provenance
    Text,
    /// The baseline score file, as every command reads it
    Json,
}

/// What the `suite` commands print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteFormat {
    Text,
    Json,
}

/// How `compare` and `check` report the verdict on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    /// The verdict, the gated metrics, the per-sample analysis and provenance
    Text,
    /// The verdict file's JSON
    Json,
    /// The PR comment
    Markdown,
    /// JUnit XML: a test case per gate rule and per sample
    Junit,
    /// A self-contained HTML report with charts
    Html,
    /// One line when the gate passes, else only what broke (the pre-push hook's format)
    Brief,
}

/// How `publish` reports the verdict it publishes (judged again under the trusted rules)
/// on stdout. No HTML report: it needs the candidate's score file, which a verdict file
/// does not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PublishFormat {
    /// The verdict, the gated metrics, the per-sample analysis and provenance
    Text,
    /// The verdict file's JSON
    Json,
    /// The PR comment it posts
    Markdown,
    /// JUnit XML: a test case per gate rule and per sample
    Junit,
    /// One line when the gate passes, else only what broke
    Brief,
}
