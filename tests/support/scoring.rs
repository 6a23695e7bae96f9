//! Scoring through the library, as the kinds' scoring tests use it: a small suite written
//! to a temporary directory (its samples as JSON lines), answers as an outputs file, and
//! the score file the library makes of them.

use std::path::Path;

use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::metrics::ScoringConfig;
use goldgate_core::score::{score, ScoreFile, ScoreRequest};
use goldgate_core::suite::Suite;
use serde_json::{json, Value};

use super::TempDir;

/// `lines` as a JSON-lines file at `path`.
pub fn write_jsonl(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// A conversation of `n` user messages about orders and reports.
pub fn conversation(n: usize) -> Value {
    Value::Array((0..n).map(|i| json!({"role": "user", "content": format!("message {i}: the customer tracks orders and the admin exports reports")})).collect())
}

/// The score file of `samples` answered by `outputs` (sample id, answer), with the default
/// scoring and 200 resamples.
pub fn run(name: &str, samples: &[Value], outputs: &[(&str, Value)]) -> ScoreFile {
    let dir = TempDir::new(name);
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    write_jsonl(&dir.0.join("suite/samples.jsonl"), samples);
    let lines: Vec<Value> = outputs
        .iter()
        .map(|(id, out)| json!({"id": id, "output": out}))
        .collect();
    write_jsonl(&dir.0.join("answers.jsonl"), &lines);
    let suite = Suite::open(
        &dir.0.join("suite"),
        goldgate::settings::defaults::MAX_SAMPLE_BYTES,
    )
    .unwrap();
    let run = dir.0.join("answers.jsonl");
    let bootstrap = BootstrapConfig {
        resamples: 200,
        ..BootstrapConfig::default()
    };
    score(&ScoreRequest {
        suite: &suite,
        run: &run,
        scoring: &ScoringConfig::default(),
        bootstrap,
        facts: &goldgate_core::score::Facts::default(),
        keep_view: None,
        embedding: None,
    })
    .unwrap()
    .file
}

/// The value of `metric` in `file` (none when it had no data).
pub fn value(file: &ScoreFile, metric: &str) -> Option<f64> {
    file.metrics[metric].value
}
