//! Which files of a suite directory hold samples, and reading them without trusting the
//! directory: the walk follows a link only when it stays inside the suite, names a
//! directory cycle (and a directory reached twice) instead of walking it, and refuses a
//! sample name that is not a regular file (a FIFO, a socket, a device) before anything opens
//! it; a sample is read with a size cap enforced while reading, so `/dev/zero` or a huge
//! file never grows in memory.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Problem, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
    Jsonl,
}

/// The format of a sample file by its name; `None` for files the suite does not read.
pub fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()? {
        "yaml" | "yml" => Some(Format::Yaml),
        "json" => Some(Format::Json),
        "jsonl" => Some(Format::Jsonl),
        _ => None,
    }
}

/// The sample files below `root`, sorted, or every problem the walk found (links leaving
/// the suite, cycles, directories reached twice, sample names that are not regular files).
pub(super) fn sample_files(root: &Path) -> Result<Vec<PathBuf>> {
    let real = root.canonicalize().map_err(|source| Error::Read {
        path: root.to_path_buf(),
        source,
    })?;
    let mut walk = Walk {
        seen: HashMap::from([(real.clone(), root.to_path_buf())]),
        root: real.clone(),
        files: Vec::new(),
        problems: Vec::new(),
    };
    walk.directory(root, &mut vec![real])?;
    if !walk.problems.is_empty() {
        return Err(Error::Invalid {
            what: "suite",
            problems: walk.problems,
        });
    }
    walk.files.sort();
    Ok(walk.files)
}

struct Walk {
    /// The suite root, canonical.
    root: PathBuf,
    /// Every directory walked (canonical) and the path it was reached as.
    seen: HashMap<PathBuf, PathBuf>,
    files: Vec<PathBuf>,
    problems: Vec<Problem>,
}

impl Walk {
    /// Walk `dir` (as shown to people), whose canonical path is the last of `ancestors`.
    fn directory(&mut self, dir: &Path, ancestors: &mut Vec<PathBuf>) -> Result<()> {
        let read_err = |source| Error::Read {
            path: dir.to_path_buf(),
            source,
        };
        let mut entries = std::fs::read_dir(dir)
            .map_err(read_err)?
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(read_err)?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let own = ancestors
                .last()
                .map_or_else(PathBuf::new, |a| a.join(entry.file_name()));
            let (real, meta) = match entry.file_type() {
                Ok(t) if t.is_symlink() => match self.follow(&path) {
                    Some(found) => found,
                    None => continue,
                },
                _ => match std::fs::symlink_metadata(&path) {
                    Ok(meta) => (own, meta),
                    Err(source) => return Err(Error::Read { path, source }),
                },
            };
            if meta.is_dir() {
                if ancestors.contains(&real) {
                    self.problems.push(
                        Problem::new(
                            Location::file(&path),
                            None,
                            format!(
                                "directory cycle: this link leads back to {}, which contains it",
                                self.shown(&real)
                            ),
                        )
                        .with_hint("remove the link; a suite directory must be a tree"),
                    );
                } else if let Some(first) = self.seen.get(&real) {
                    self.problems.push(
                        Problem::new(
                            Location::file(&path),
                            None,
                            format!(
                                "the directory {} again (through a link): its samples would be read twice",
                                first.display()
                            ),
                        )
                        .with_hint("remove the link, or the directory it duplicates"),
                    );
                } else {
                    self.seen.insert(real.clone(), path.clone());
                    ancestors.push(real);
                    self.directory(&path, ancestors)?;
                    ancestors.pop();
                }
            } else if format_of(&path).is_some() {
                if meta.is_file() {
                    self.files.push(path);
                } else {
                    self.problems.push(not_regular(&path, &meta));
                }
            }
        }
        Ok(())
    }

    /// Where the link at `path` leads, when it is inside the suite: its canonical target and
    /// the target's metadata. A link leaving the suite, or a broken one, is a problem when
    /// the walk would read it (a directory, or a sample file name), and skipped otherwise.
    fn follow(&mut self, path: &Path) -> Option<(PathBuf, Metadata)> {
        let would_read = format_of(path).is_some();
        let target = match path.canonicalize() {
            Ok(target) => target,
            Err(e) => {
                if would_read {
                    let to = std::fs::read_link(path)
                        .map_or_else(|_| "?".to_string(), |t| t.display().to_string());
                    self.problems.push(
                        Problem::new(
                            Location::file(path),
                            None,
                            format!("the link to {to} cannot be followed: {e}"),
                        )
                        .with_hint("fix or remove the link"),
                    );
                }
                return None;
            }
        };
        let meta = std::fs::metadata(&target).ok()?;
        if !target.starts_with(&self.root) {
            if would_read || meta.is_dir() {
                self.problems.push(
                    Problem::new(
                        Location::file(path),
                        None,
                        format!(
                            "links outside the suite, to {}; goldgate does not follow it",
                            target.display()
                        ),
                    )
                    .with_hint(
                        "a suite reads only files inside its directory: copy the file in, or remove the link",
                    ),
                );
            }
            return None;
        }
        Some((target, meta))
    }

    /// A canonical path inside the suite as people know it (below the root they gave).
    fn shown(&self, real: &Path) -> String {
        let root = &self.seen[&self.root];
        match real.strip_prefix(&self.root) {
            Ok(rest) if rest.as_os_str().is_empty() => {
                format!("{} (the suite directory)", root.display())
            }
            Ok(rest) => root.join(rest).display().to_string(),
            Err(_) => real.display().to_string(),
        }
    }
}

/// What kind of file `meta` describes, for a message ("a FIFO").
fn kind_of(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        return "a directory";
    }
    "not a regular file"
}

fn not_regular(path: &Path, meta: &Metadata) -> Problem {
    Problem::new(
        Location::file(path),
        None,
        format!(
            "is {}, not a regular file; goldgate does not read it",
            kind_of(meta)
        ),
    )
    .with_hint("a sample file must be a regular file inside the suite directory")
}

/// The problem of a sample (a file, or a JSONL line at `location`) of `size` bytes over `cap`.
pub(super) fn too_large(location: Location, what: &str, size: u64, cap: u64) -> Problem {
    Problem::new(
        location,
        None,
        format!(
            "{what} is {size} bytes; a sample may be at most {}",
            crate::io::describe_bytes(cap)
        ),
    )
    .with_hint(
        "raise the cap with --max-sample-bytes BYTES, or `max_sample_bytes` under [suite] in goldgate.toml (a sample is a YAML or JSON file, or one JSONL line)",
    )
}

/// Open a sample file for reading: only a regular file (checked before opening, since
/// opening a FIFO blocks, and again on the open file).
pub(super) fn open_regular(path: &Path) -> std::result::Result<(File, u64), Problem> {
    let io_problem = |e: std::io::Error| {
        Problem::new(Location::file(path), None, format!("cannot read it: {e}"))
            .with_hint("suite files must be readable UTF-8 text")
    };
    let meta = std::fs::metadata(path).map_err(io_problem)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    let file = File::open(path).map_err(io_problem)?;
    let meta = file.metadata().map_err(io_problem)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    Ok((file, meta.len()))
}

/// Read a whole sample file of at most `cap` bytes as text.
pub(super) fn read_sample(path: &Path, cap: u64) -> std::result::Result<String, Problem> {
    let (file, size) = open_regular(path)?;
    if size > cap {
        return Err(too_large(Location::file(path), "the file", size, cap));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| {
        Problem::new(Location::file(path), None, format!("cannot read it: {e}"))
            .with_hint("suite files must be readable UTF-8 text")
    })?;
    if bytes.len() as u64 > cap {
        return Err(too_large(
            Location::file(path),
            "the file",
            bytes.len() as u64,
            cap,
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        Problem::new(
            Location::file(path),
            None,
            "cannot read it: stream did not contain valid UTF-8",
        )
        .with_hint("suite files must be readable UTF-8 text")
    })
}
