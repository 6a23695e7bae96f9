//! `goldgate similarity`: the cosine of two texts, or of every pair in a JSON Lines file,
//! under the configured similarity — what a user tunes thresholds with, and how a reviewer
//! checks a matching's numbers.

use crate::cachedir::CacheDir;
use crate::embed::{self, pairs};
use crate::error::{Error, Exit, Location, Problem, Result};
use crate::io::write_output;
use crate::number;
use crate::output::Reporter;
use crate::settings::similarity::{PairsInput, SimilaritySettings};

/// Most problems reported from one pairs file.
const MAX_PROBLEMS: usize = 20;

pub fn similarity(s: SimilaritySettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let embedder = embed::open(&s.backend)?;
    let cache_dir = CacheDir::new(&s.cache_dir);
    let cache = Some(&cache_dir);
    match &s.input {
        PairsInput::Two(a, b) => {
            let pair = [(a.clone(), b.clone())];
            let (cosines, _) = pairs::cosines(embedder.as_deref(), cache, &pair)?;
            let cosine = cosines[0];
            let name = match embedder.as_deref() {
                Some(e) => format!("{} {}", e.identity().backend, e.identity().model),
                None => "lexical".to_string(),
            };
            let verdict = |threshold: f64| {
                let yes = if cosine >= threshold { "yes" } else { "no " };
                format!("{yes} (threshold {})", number::value(threshold, 2))
            };
            reporter.out(&format!(
                "cosine {}  ({name}; rules: {})\n  requirement match  {}\n  criterion match    {}\n",
                number::value(cosine, 4),
                s.rules,
                verdict(s.requirement_threshold),
                verdict(s.ac_threshold),
            ));
        }
        PairsInput::File {
            pairs: path,
            output,
        } => {
            let text = crate::io::read(path)?;
            let objects = read_pairs(&text, path)?;
            let list: Vec<(String, String)> = objects.iter().map(texts_of).collect();
            let (cosines, _) = pairs::cosines(embedder.as_deref(), cache, &list)?;
            let mut lines = String::new();
            for (mut object, cosine) in objects.into_iter().zip(cosines) {
                object.insert("cosine".into(), cosine.into());
                lines.push_str(&serde_json::Value::Object(object).to_string());
                lines.push('\n');
            }
            match output {
                Some(out) => {
                    write_output(out, |w| w.write_all(lines.as_bytes()))?;
                    reporter.note(&format!(
                        "wrote {} cosines to {}\n",
                        list.len(),
                        out.display()
                    ));
                }
                None => reporter.out(&lines),
            }
        }
    }
    let ignored = cache_dir.ignored();
    reporter.note(&crate::report::terminal::ignored_cache_entries(&ignored));
    Ok(Exit::Ok)
}

type Object = serde_json::Map<String, serde_json::Value>;

/// The texts of a checked pair.
fn texts_of(object: &Object) -> (String, String) {
    let text = |k: &str| object[k].as_str().unwrap_or_default().to_string();
    (text("a"), text("b"))
}

/// The pairs of a JSON Lines file (blank lines skipped): objects with the texts `a` and
/// `b`, their other keys (a reviewer's label, an id) kept for the output. Every bad line is
/// reported with its number.
fn read_pairs(text: &str, path: &std::path::Path) -> Result<Vec<Object>> {
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |column| Location::new(path, i + 1, column);
        let problem = match serde_json::from_str::<Object>(line) {
            Ok(object) => {
                let is_text = |k: &&str| object.get(*k).is_some_and(|v| v.is_string());
                match ["a", "b"].iter().find(|k| !is_text(k)) {
                    None => {
                        pairs.push(object);
                        continue;
                    }
                    Some(key) => Problem::new(
                        at(1),
                        Some(key.to_string()),
                        format!("`{key}` is missing or not a string"),
                    ),
                }
            }
            Err(e) => Problem::new(at(e.column()), None, serde_message(&e)),
        };
        if problems.len() < MAX_PROBLEMS {
            problems.push(problem.with_hint(
                r#"one JSON object per line: {"a": "first text", "b": "second text"} (other keys are kept)"#,
            ));
        }
    }
    if !problems.is_empty() {
        return Err(Error::Invalid {
            what: "pairs file",
            problems,
        });
    }
    Ok(pairs)
}

/// serde_json's message without the position it appends (the location says it).
fn serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
