//! `goldgate similarity`: the cosine of two texts, or of every pair in a JSON Lines file,
//! under the configured similarity — what a user tunes thresholds with, and how a reviewer
//! checks a matching's numbers. A pairs file is read a line at a time, each line capped in
//! bytes.

use std::path::Path;

use crate::output::Reporter;
use crate::settings::similarity::{PairsInput, SimilaritySettings};
use goldgate_core::cachedir::CacheDir;
use goldgate_core::embed::pairs;
use goldgate_core::error::{Error, Exit, Location, Problem, Result};
use goldgate_core::io::{describe_bytes, read_line, write_output, Line};
use goldgate_core::number;

/// Most problems reported from one pairs file.
const MAX_PROBLEMS: usize = 20;

pub fn similarity(s: SimilaritySettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let embedder = goldgate_embed::open(&s.backend)?;
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
            max_line_bytes,
        } => {
            let objects = read_pairs(path, *max_line_bytes)?;
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
/// `b`, their other keys (a reviewer's label, an id) kept for the output. Lines are read one
/// at a time, each of at most `max_line_bytes`. Every bad line is reported with its number.
fn read_pairs(path: &Path, max_line_bytes: u64) -> Result<Vec<Object>> {
    let read_error = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(read_error)?);
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    for i in 0.. {
        let at = |column| Location::new(path, i + 1, column);
        let problem = match read_line(&mut reader, max_line_bytes).map_err(read_error)? {
            Line::End => break,
            Line::TooLong(size) => Problem::new(
                at(1),
                None,
                format!(
                    "the line is {size} bytes; a line may be at most {}",
                    describe_bytes(max_line_bytes)
                ),
            ),
            Line::Text(bytes) => match pair(&bytes) {
                Ok(None) => continue,
                Ok(Some(object)) => {
                    pairs.push(object);
                    continue;
                }
                Err((column, field, message)) => Problem::new(at(column), field, message),
            },
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

/// One line's pair; `None` for a blank line; else the column, the field and what is wrong.
fn pair(bytes: &[u8]) -> std::result::Result<Option<Object>, (usize, Option<String>, String)> {
    let line = std::str::from_utf8(bytes)
        .map_err(|_| (1, None, "the line is not UTF-8 text".to_string()))?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let object =
        serde_json::from_str::<Object>(line).map_err(|e| (e.column(), None, serde_message(&e)))?;
    let is_text = |k: &&str| object.get(*k).is_some_and(|v| v.is_string());
    match ["a", "b"].iter().find(|k| !is_text(k)) {
        None => Ok(Some(object)),
        Some(key) => Err((
            1,
            Some(key.to_string()),
            format!("`{key}` is missing or not a string"),
        )),
    }
}

/// serde_json's message without the position it appends (the location says it).
fn serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
