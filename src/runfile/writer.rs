//! Writing run records: each record is appended to `OUTPUT.partial` and flushed as soon as
//! it finishes, so an interrupted run loses nothing it finished; a completed run's file is
//! renamed to `OUTPUT` in one step. `--resume` picks an interrupted file up again.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::record::RunRecord;
use crate::error::{Error, Result};

/// Appends records; see the module docs.
pub struct RecordWriter {
    output: PathBuf,
    partial: PathBuf,
    file: File,
}

/// The records an earlier, interrupted run already finished.
#[derive(Debug, Default)]
pub struct Resumed {
    pub done: HashSet<(String, u32)>,
    /// How many of them failed.
    pub errors: usize,
}

fn write_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

impl RecordWriter {
    /// The file records are appended to while the run is under way.
    pub fn partial_path(output: &Path) -> PathBuf {
        let mut name = output
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(".partial");
        output.with_file_name(name)
    }

    /// Start writing. With `resume`, keep the finished records of an interrupted run (or of a
    /// finished file at `output`) and report which they are; otherwise start empty.
    pub fn open(output: &Path, resume: bool) -> Result<(RecordWriter, Resumed)> {
        let partial = Self::partial_path(output);
        if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(write_err(parent))?;
        }
        let mut resumed = Resumed::default();
        if resume {
            if !partial.exists() && output.exists() {
                std::fs::copy(output, &partial).map_err(write_err(&partial))?;
            }
            if partial.exists() {
                resumed = keep_complete_lines(&partial)?;
            }
        } else if partial.exists() {
            std::fs::remove_file(&partial).map_err(write_err(&partial))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&partial)
            .map_err(write_err(&partial))?;
        Ok((
            RecordWriter {
                output: output.to_path_buf(),
                partial,
                file,
            },
            resumed,
        ))
    }

    /// Append one record and flush it to the file.
    pub fn write(&mut self, record: &RunRecord) -> Result<()> {
        let mut line = serde_json::to_vec(record).map_err(|e| Error::Write {
            path: self.partial.clone(),
            source: e.into(),
        })?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(write_err(&self.partial))
    }

    /// The run is complete: make the file final.
    pub fn finish(self) -> Result<PathBuf> {
        self.file.sync_all().map_err(write_err(&self.partial))?;
        std::fs::rename(&self.partial, &self.output).map_err(write_err(&self.output))?;
        Ok(self.output)
    }

    /// The run stopped early: keep what is written for `--resume`.
    pub fn abandon(self) -> Result<PathBuf> {
        self.file.sync_all().map_err(write_err(&self.partial))?;
        Ok(self.partial)
    }
}

/// Read a partial file, drop a torn last line (the process was killed mid-write) and any
/// line that is not a record, and return the finished (sample, repeat) pairs.
fn keep_complete_lines(path: &Path) -> Result<Resumed> {
    let file = File::open(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (mut kept, mut resumed) = (Vec::new(), Resumed::default());
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if let Ok(record) = serde_json::from_slice::<RunRecord>(&line) {
            if resumed
                .done
                .insert((record.sample_id.clone(), record.repeat))
            {
                resumed.errors += usize::from(record.error.is_some());
                kept.extend_from_slice(&line);
                kept.push(b'\n');
            }
        }
    }
    crate::io::write_atomic(path, |w| w.write_all(&kept))?;
    Ok(resumed)
}
