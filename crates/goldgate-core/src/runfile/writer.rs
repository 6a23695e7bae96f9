//! Writing run records: each record is appended to `OUTPUT.partial` and flushed as soon as
//! it finishes, so an interrupted run loses nothing it finished; a completed run's file is
//! renamed to `OUTPUT` in one step. The file's first record carries the run's
//! [`RunProvenance`] (written once, not with every record). `--resume` picks an interrupted
//! file up again: its finished records are read first ([`RecordWriter::earlier`]), so the
//! caller can refuse them or choose which to keep, before anything on disk changes.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::record::{RunProvenance, RunRecord};
use crate::error::{Error, Result};

/// Appends records; see the module docs.
pub struct RecordWriter {
    output: PathBuf,
    partial: PathBuf,
    file: File,
    /// The provenance the next record carries: the file has no record yet.
    pending: Option<RunProvenance>,
}

/// The finished records of an earlier, interrupted run, read from its partial file (or from
/// a finished file at the output).
#[derive(Debug)]
pub struct Earlier {
    /// The file they were read from.
    pub path: PathBuf,
    pub records: Vec<Finished>,
    /// The run that started the file, as its first record says (none in files of older
    /// versions).
    pub provenance: Option<RunProvenance>,
}

/// One finished record of an earlier run.
#[derive(Debug)]
pub struct Finished {
    pub sample_id: String,
    pub repeat: u32,
    pub pipeline_fingerprint: Option<String>,
    pub cache_key: Option<String>,
    /// Whether its call failed.
    pub failed: bool,
    /// The record as written.
    line: Vec<u8>,
}

/// How to resume: the earlier run's records, and which of them to keep.
pub struct Resume<'a> {
    pub earlier: Earlier,
    /// Whether a finished record is still wanted.
    pub keep: &'a dyn Fn(&Finished) -> bool,
}

/// What a resumed run kept.
#[derive(Debug, Default)]
pub struct Resumed {
    /// The (sample, repeat) pairs already done.
    pub done: HashSet<(String, u32)>,
    /// How many of them failed.
    pub errors: usize,
    /// Records of the earlier run that were not kept.
    pub dropped: usize,
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
        crate::io::with_suffix(output, ".partial")
    }

    /// The finished records of an interrupted run of `output` (or of a finished regular file
    /// at `output` when there is no partial file), changing nothing; `None` when there is
    /// neither. A torn last line (the process was killed mid-write) and any line that is not
    /// a record are left out.
    pub fn earlier(output: &Path) -> Result<Option<Earlier>> {
        let partial = Self::partial_path(output);
        // Only a regular file is read back: a FIFO or a device at the output is written to,
        // never read (reading a FIFO would wait for a writer).
        let path = match (partial.exists(), output.is_file()) {
            (true, _) => partial,
            (false, true) => output.to_path_buf(),
            (false, false) => return Ok(None),
        };
        let read_err = |source| Error::Read {
            path: path.clone(),
            source,
        };
        let file = File::open(&path).map_err(read_err)?;
        let mut earlier = Earlier {
            path: path.clone(),
            records: Vec::new(),
            provenance: None,
        };
        for line in BufReader::new(file).split(b'\n') {
            let line = line.map_err(read_err)?;
            let Ok(head) = serde_json::from_slice::<RunRecord>(&line) else {
                continue;
            };
            if earlier.provenance.is_none() {
                earlier.provenance = head.provenance;
            }
            earlier.records.push(Finished {
                sample_id: head.sample_id,
                repeat: head.repeat,
                pipeline_fingerprint: head.pipeline_fingerprint,
                cache_key: head.cache_key,
                failed: head.error.is_some(),
                line,
            });
        }
        Ok(Some(earlier))
    }

    /// Start writing. With `resume`, keep the first record of each (sample, repeat) of the
    /// earlier run that it wants, and report which they are; otherwise start empty. The
    /// file's first record carries the provenance: the earlier run's when records are kept,
    /// else `provenance`.
    pub fn open(
        output: &Path,
        provenance: &RunProvenance,
        resume: Option<Resume<'_>>,
    ) -> Result<(RecordWriter, Resumed)> {
        let partial = Self::partial_path(output);
        if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::io::create_dir_all(parent)?;
        }
        // A directory at the output fails now, not after the whole run.
        crate::io::output_target(output).map_err(write_err(output))?;
        let mut resumed = Resumed::default();
        let mut pending = Some(provenance.clone());
        match resume {
            Some(Resume { earlier, keep }) => {
                let mut kept = Vec::new();
                for record in &earlier.records {
                    let key = (record.sample_id.clone(), record.repeat);
                    if resumed.done.contains(&key) {
                        continue; // a duplicate line: the first one stands
                    }
                    if !keep(record) {
                        resumed.dropped += 1;
                        continue;
                    }
                    resumed.done.insert(key);
                    resumed.errors += usize::from(record.failed);
                    match pending.take() {
                        // The first kept record carries the run's provenance.
                        Some(_) => {
                            let mut first: RunRecord = serde_json::from_slice(&record.line)
                                .map_err(|e| Error::Write {
                                    path: partial.clone(),
                                    source: e.into(),
                                })?;
                            first.provenance =
                                earlier.provenance.clone().or(Some(provenance.clone()));
                            kept.extend(serde_json::to_vec(&first).map_err(|e| Error::Write {
                                path: partial.clone(),
                                source: e.into(),
                            })?);
                        }
                        None => kept.extend_from_slice(&record.line),
                    }
                    kept.push(b'\n');
                }
                crate::io::write_atomic(&partial, |w| w.write_all(&kept))?;
            }
            None if partial.exists() => {
                std::fs::remove_file(&partial).map_err(write_err(&partial))?;
            }
            None => {}
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
                pending,
            },
            resumed,
        ))
    }

    /// Append one record and flush it to the file (the file's first record with the run's
    /// provenance).
    pub fn write(&mut self, record: &RunRecord) -> Result<()> {
        let serialized = match self.pending.take() {
            Some(provenance) => serde_json::to_vec(&RunRecord {
                provenance: Some(provenance),
                ..record.clone()
            }),
            None => serde_json::to_vec(record),
        };
        let mut line = serialized.map_err(|e| Error::Write {
            path: self.partial.clone(),
            source: e.into(),
        })?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(write_err(&self.partial))
    }

    /// The run is complete: make the file final.
    pub fn finish(self) -> Result<PathBuf> {
        self.file.sync_all().map_err(write_err(&self.partial))?;
        drop(self.file);
        crate::io::move_output(&self.partial, &self.output)?;
        Ok(self.output)
    }

    /// The run stopped early: keep what is written for `--resume`.
    pub fn abandon(self) -> Result<PathBuf> {
        self.file.sync_all().map_err(write_err(&self.partial))?;
        Ok(self.partial)
    }
}
