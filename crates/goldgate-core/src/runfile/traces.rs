//! The traces of a run file read back for the reports that show them (the HTML report,
//! `compare`, a replayed run): each record's trace with what identifies the record, the
//! first few of them, lines over the run file's cap skipped unread.

use std::path::Path;

/// One record's trace, with what identifies the record.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleTrace {
    pub sample_id: String,
    pub repeat: u32,
    /// Why the record's call failed, if it did.
    pub error: Option<super::record::RecordError>,
    pub trace: super::trace::Trace,
}

/// The traces of a run file, at most a number of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Traces {
    pub samples: Vec<SampleTrace>,
    /// Records with a trace left out.
    pub omitted: usize,
}

/// The traces of the first `limit` records that have one, in the file's order (lines that
/// are not run records, such as an outputs file's, have none).
pub fn traces(path: &Path, limit: usize) -> crate::error::Result<Traces> {
    let file = std::fs::File::open(path).map_err(|source| crate::error::Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut traces = Traces::default();
    let mut reader = std::io::BufReader::new(file);
    loop {
        // A line over the cap is never held (the index refuses it).
        let line = match crate::io::read_line(&mut reader, super::reader::MAX_LINE_BYTES as u64) {
            Ok(crate::io::Line::End) => break,
            Ok(crate::io::Line::TooLong(_)) => continue,
            Ok(crate::io::Line::Text(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(source) => {
                return Err(crate::error::Error::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        if !line.contains("\"trace\"") {
            continue;
        }
        let Ok(record) = serde_json::from_str::<super::record::RunRecord>(&line) else {
            continue;
        };
        let Some(trace) = record.trace else { continue };
        if traces.samples.len() == limit {
            traces.omitted += 1;
            continue;
        }
        traces.samples.push(SampleTrace {
            sample_id: record.sample_id,
            repeat: record.repeat,
            error: record.error,
            trace,
        });
    }
    Ok(traces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_are_read_from_the_records_that_have_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let with = |id: &str| {
            format!(
                "{{\"sample_id\": \"{id}\", \"error\": {{\"kind\": \"output\", \"message\": \"m\"}}, \"trace\": {{\"calls\": [{{\"agent\": \"ReqParse\", \"iteration\": 0, \"temperature\": 0.2, \"messages\": [], \"latency_ms\": 1.0}}]}}}}\n"
            )
        };
        let text = with("a")
            + "{\"sample_id\": \"b\", \"raw_output\": \"x\"}\n"
            + "{\"id\": \"c\", \"output\": \"\\\"trace\\\"\"}\n"
            + &with("d")
            + &with("e");
        std::fs::write(&path, text).unwrap();
        let traces = traces(&path, 2).unwrap();
        let ids: Vec<&str> = traces
            .samples
            .iter()
            .map(|s| s.sample_id.as_str())
            .collect();
        assert_eq!(ids, ["a", "d"]);
        assert_eq!(traces.omitted, 1);
        assert_eq!(traces.samples[0].trace.calls[0].agent, "ReqParse");
        assert_eq!(traces.samples[0].error.as_ref().unwrap().message, "m");
    }
}
