//! `goldgate merge`: join run files (the shards of one run) into one. Two records for the
//! same (sample, repeat) or records from different pipelines are refused with the files and
//! lines involved: merging must never hide a conflict.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::record::RunRecord;
use crate::error::{Error, Location, Problem, Result};
use crate::text::explain_serde;

/// The merged records, as the JSON lines they were read as.
pub struct Merged {
    pub lines: Vec<String>,
}

/// Merge run files; every problem in every file is reported.
pub fn merge(inputs: &[PathBuf]) -> Result<Merged> {
    let mut seen: HashMap<(String, u32), Location> = HashMap::new();
    let mut fingerprint: Option<(Option<String>, Location)> = None;
    let (mut lines, mut problems) = (Vec::new(), Vec::new());
    for path in inputs {
        for (number, line) in read_lines(path)? {
            let at = Location::new(path, number, 0);
            let record: RunRecord = match serde_json::from_str(&line) {
                Ok(r) => r,
                Err(e) => {
                    let (message, hint) = explain_serde(&e.to_string());
                    let mut problem =
                        Problem::new(at, None, format!("not a run record: {message}"));
                    problem.hint = hint.or_else(|| {
                        Some("merge joins run.jsonl files written by goldgate run".into())
                    });
                    problems.push(problem);
                    continue;
                }
            };
            if let Some(first) = seen.insert((record.sample_id.clone(), record.repeat), at.clone())
            {
                problems.push(
                    Problem::new(at.clone(), Some("sample_id".into()), format!("sample `{}` repeat {} is also at {first}", record.sample_id, record.repeat))
                        .with_hint("shards must be disjoint: merge the outputs of one `run --shard i/N` series, each once"),
                );
            }
            match &fingerprint {
                None => fingerprint = Some((record.pipeline_fingerprint.clone(), at.clone())),
                Some((fp, first)) if *fp != record.pipeline_fingerprint => problems.push(
                    Problem::new(at.clone(), Some("pipeline_fingerprint".into()), format!("comes from another pipeline than {first}"))
                        .with_hint("every shard must run the same pipeline, model and fingerprint files; rerun the odd one out"),
                ),
                Some(_) => {}
            }
            lines.push(line);
        }
    }
    if problems.is_empty() {
        Ok(Merged { lines })
    } else {
        problems.truncate(50);
        Err(Error::Invalid {
            what: "run files to merge",
            problems,
        })
    }
}

fn read_lines(path: &Path) -> Result<Vec<(usize, String)>> {
    let file = std::fs::File::open(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    let mut reader = std::io::BufReader::new(file);
    let cap = super::reader::MAX_LINE_BYTES as u64;
    for number in 1.. {
        let read = crate::io::read_line(&mut reader, cap).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let line = match read {
            crate::io::Line::End => break,
            crate::io::Line::Text(bytes) => String::from_utf8(bytes).map_err(|e| Error::Read {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            })?,
            crate::io::Line::TooLong(length) => {
                return Err(Error::Invalid {
                    what: "run files to merge",
                    problems: vec![super::reader::line_too_long(path, number, length, cap)],
                });
            }
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if !line.trim().is_empty() {
            out.push((number, line.to_string()));
        }
    }
    Ok(out)
}
