//! The suite as `goldgate annotate` holds it while serving: every sample with the file
//! (and JSONL line) it lives in and the fingerprint of its document as last read, the
//! samples this annotator skipped in this session, and the drafts of `--prefill`. A sample
//! is read from disk again whenever the page asks for it, so the page always shows the
//! file's version and a save is checked against what the page saw.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use regex::Regex;

use super::prefill::Draft;
use super::refusal::Refusal;
use goldgate_core::error::{Error, Result};
use goldgate_core::sample::{Kind, Sample};
use goldgate_core::suite::agreement::{message_marks, Agreement, AgreementBuilder};
use goldgate_core::suite::edit::{self, Format};
use goldgate_core::suite::{RawDocument, Suite, UniqueIds};

/// What the server is started with.
#[derive(Clone, Debug)]
pub struct Options {
    pub suite: PathBuf,
    pub annotator: String,
    pub id_pattern: Regex,
    pub min_kappa: f64,
    pub max_sample_bytes: u64,
    pub prefill: Option<PathBuf>,
}

/// One sample and where it lives.
#[derive(Clone, Debug)]
pub struct Entry {
    pub sample: Sample,
    pub path: PathBuf,
    /// The JSONL line, or `None` for a YAML or JSON file.
    pub line: Option<usize>,
    /// The fingerprint of the sample's document as last read or written.
    pub fingerprint: String,
    /// Observed disagreement on message-level marks (1 − p_o over annotator pairs); `None`
    /// with fewer than two annotations or no conversation.
    pub disagreement: Option<f64>,
    /// The agreement of this sample alone, as `suite agreement` computes it (its headline:
    /// Fleiss' kappa with 3+ annotators, else the mean pairwise Cohen's kappa).
    pub agreement: Agreement,
}

/// The suite being labelled.
#[derive(Debug)]
pub struct Workspace {
    pub suite: Suite,
    pub options: Options,
    pub entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Samples this annotator skipped in this session (nothing is written for a skip).
    pub skipped: HashSet<String>,
    pub drafts: HashMap<String, Draft>,
    /// Each sample file, the entries it holds, and its size and modification time as last
    /// read: [`Workspace::sync`] reads again the files that changed since.
    files: Vec<(PathBuf, Vec<usize>, Option<Stamp>)>,
}

/// What tells a file changed without reading it.
type Stamp = (u64, std::time::SystemTime);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl Workspace {
    /// Open the suite; a suite with errors is refused with all of them.
    pub fn open(options: Options) -> Result<Workspace> {
        let suite = Suite::open(&options.suite, options.max_sample_bytes)?;
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        // The suite reader's own steps, so that each document's text is fingerprinted as it
        // is read (a JSONL document's text is its line alone: line 1 of itself).
        let mut unique = UniqueIds::default();
        for document in suite.documents() {
            let line = document.line();
            let fingerprint = document
                .text()
                .and_then(|text| {
                    let span = edit::document_span(text, document.format(), line.map(|_| 1));
                    span.ok().map(|span| edit::fingerprint(&text[span]))
                })
                .unwrap_or_default();
            let loaded = unique.check(document.load());
            errors.extend(loaded.problems.into_iter().filter(|p| p.is_error()));
            if let Some(sample) = loaded.sample {
                let path = sample.origin.path.clone();
                entries.push(Entry::new(sample, path, line, fingerprint));
            }
        }
        if !errors.is_empty() {
            return Err(Error::Invalid {
                what: "suite",
                problems: errors,
            });
        }
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.sample.id.clone(), i))
            .collect();
        let mut files: Vec<(PathBuf, Vec<usize>, Option<Stamp>)> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            match files.last_mut() {
                Some((path, indexes, _)) if *path == entry.path => indexes.push(i),
                _ => files.push((entry.path.clone(), vec![i], stamp(&entry.path))),
            }
        }
        let drafts = match &options.prefill {
            Some(run) => super::prefill::drafts(run, entries.iter().map(|e| &e.sample))?,
            None => HashMap::new(),
        };
        Ok(Workspace {
            suite,
            options,
            entries,
            by_id,
            skipped: HashSet::new(),
            drafts,
            files,
        })
    }

    /// The index of sample `id`.
    pub fn index(&self, id: &str) -> std::result::Result<usize, Refusal> {
        self.by_id
            .get(id)
            .copied()
            .ok_or_else(|| Refusal::NotFound(format!("no sample `{id}` in this suite")))
    }

    /// Read sample `index` from disk again (when its document changed) and return it. Only
    /// a regular file inside the suite is read: a sample file replaced by a link leading
    /// out of the suite (or by anything but a regular file) is refused, never followed.
    pub fn refresh(&mut self, index: usize) -> std::result::Result<&Entry, Refusal> {
        let path = &self.entries[index].path;
        let text = edit::read_inside(&self.suite.root, path).map_err(|e| match e {
            edit::EditError::Gone { .. } => Refusal::Changed(format!(
                "{} is gone from the suite; restart goldgate annotate",
                path.display()
            )),
            other => Refusal::from(other),
        })?;
        self.refresh_from(index, &text)?;
        Ok(&self.entries[index])
    }

    /// Bring every sample up to date with its file: the files whose size or modification
    /// time changed since they were read (another annotator's server saved, someone edited
    /// them) are read again. A sample that no longer loads keeps its last good version
    /// here; opening it says what is wrong.
    pub fn sync(&mut self) {
        for f in 0..self.files.len() {
            let now = stamp(&self.files[f].0);
            if now.is_some() && now == self.files[f].2 {
                continue;
            }
            let Ok(text) = edit::read_inside(&self.suite.root, &self.files[f].0) else {
                continue;
            };
            self.files[f].2 = now;
            for index in self.files[f].1.clone() {
                let _ = self.refresh_from(index, &text);
            }
        }
    }

    /// Sample `index` as `text` (its file's content) holds it now.
    fn refresh_from(&mut self, index: usize, text: &str) -> std::result::Result<(), Refusal> {
        let entry = &self.entries[index];
        let format = edit::format_of(&entry.path).unwrap_or(Format::Yaml);
        let span = edit::document_span(text, format, entry.line).map_err(|_| Refusal::Invalid {
            message: format!(
                "line {} of {} no longer holds sample `{}`; restart goldgate annotate",
                entry.line.unwrap_or(1),
                entry.path.display(),
                entry.sample.id
            ),
            problems: Vec::new(),
        })?;
        let document = &text[span];
        let fingerprint = edit::fingerprint(document);
        if fingerprint != entry.fingerprint {
            let sample = self.load(index, document.to_string())?;
            self.replace(index, sample, fingerprint);
        }
        Ok(())
    }

    /// Make sure sample `index` is the version the page read (`fingerprint`) before an
    /// edit: when the workspace already holds that version, the file is not read again (the
    /// edit checks the fingerprint against the disk itself); otherwise it is read again.
    pub fn current(&mut self, index: usize, fingerprint: &str) -> std::result::Result<(), Refusal> {
        if self.entries[index].fingerprint != fingerprint {
            self.refresh(index)?;
        }
        Ok(())
    }

    /// Check `document` as sample `index`'s new text: the sample it holds, or the problems
    /// that keep it from loading.
    pub fn load(&self, index: usize, document: String) -> std::result::Result<Sample, Refusal> {
        let entry = &self.entries[index];
        let loaded = RawDocument::in_memory(&self.suite, &entry.path, entry.line, document).load();
        match loaded.sample {
            Some(sample) if sample.id == entry.sample.id => Ok(sample),
            Some(sample) => Err(Refusal::Invalid {
                message: format!(
                    "the sample in {} is now `{}`, not `{}`; restart goldgate annotate",
                    entry.path.display(),
                    sample.id,
                    entry.sample.id
                ),
                problems: Vec::new(),
            }),
            None => Err(Refusal::broken_on_disk(&entry.sample.id, &loaded.problems)),
        }
    }

    /// Put a freshly read or written sample in place.
    pub fn replace(&mut self, index: usize, sample: Sample, fingerprint: String) {
        let entry = &mut self.entries[index];
        *entry = Entry::new(sample, entry.path.clone(), entry.line, fingerprint);
    }

    /// Note that this server just wrote sample `index`'s file (so [`Workspace::sync`] does
    /// not read it again for that).
    pub fn wrote(&mut self, index: usize) {
        let path = &self.entries[index].path;
        if let Some(file) = self.files.iter_mut().find(|(p, ..)| p == path) {
            file.2 = stamp(path);
        }
    }

    /// The suite's files relative to its root, for display.
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.suite.root).unwrap_or(path)
    }

    /// The first sample after `index` (in suite order, wrapping around) that the current
    /// annotator has neither labelled nor skipped.
    pub fn next_todo(&self, index: usize) -> Option<String> {
        let n = self.entries.len();
        (1..n)
            .map(|step| (index + step) % n)
            .find(|&i| !self.labelled(i) && !self.skipped.contains(&self.entries[i].sample.id))
            .map(|i| self.entries[i].sample.id.clone())
    }

    /// Whether the current annotator has labelled sample `index`.
    pub fn labelled(&self, index: usize) -> bool {
        let me = &self.options.annotator;
        self.entries[index]
            .sample
            .annotations
            .iter()
            .any(|a| a.annotator == *me)
    }
}

impl Entry {
    fn new(sample: Sample, path: PathBuf, line: Option<usize>, fingerprint: String) -> Entry {
        let (disagreement, agreement) = sample_agreement(&sample);
        Entry {
            sample,
            path,
            line,
            fingerprint,
            disagreement,
            agreement,
        }
    }

    pub fn kind(&self) -> Kind {
        self.sample.kind
    }
}

/// A sample's observed disagreement on message-level marks, and its agreement.
fn sample_agreement(sample: &Sample) -> (Option<f64>, Agreement) {
    let mut builder = AgreementBuilder::default();
    builder.add(sample);
    let agreement = builder.finish();
    let marks = message_marks(sample);
    if marks.len() < 2 || sample.conversation.is_empty() {
        return (None, agreement);
    }
    let (mut cells, mut differ) = (0usize, 0usize);
    for (i, (_, a)) in marks.iter().enumerate() {
        for (_, b) in &marks[i + 1..] {
            cells += a.len();
            differ += a.iter().zip(b).filter(|(x, y)| x != y).count();
        }
    }
    (Some(differ as f64 / cells.max(1) as f64), agreement)
}
