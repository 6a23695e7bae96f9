//! File input and output shared by every step: reading a text file with its path in the
//! error, lines read with a cap in bytes ([`read_line`]), positioned reads that threads can
//! share, atomic writes (a temporary file beside the target, synced, then renamed), so a
//! reader never sees half a file and an interrupted write leaves the old file in place, and
//! the writes of the paths a user names ([`write_output`]): atomic for a new path or a
//! regular file only, straight to anything else (a device such as `/dev/null`, a FIFO, a
//! link such as `/dev/stdout`), which a rename would replace.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Read a whole text file of at most `max` bytes, refusing a device (a link committed to
/// the repository can point at `/dev/zero`, which never ends) and a directory. A FIFO is
/// read, as a shell's process substitution (`<(git show …)`) is one, but never more than
/// `max` bytes of it.
pub fn read_capped(path: &Path, max: u64) -> Result<String> {
    let refuse = |why: String| Error::Read {
        path: path.to_path_buf(),
        source: std::io::Error::other(why),
    };
    let meta = std::fs::metadata(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    #[cfg(unix)]
    let device = {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_char_device() || meta.file_type().is_block_device()
    };
    #[cfg(not(unix))]
    let device = false;
    if device || meta.is_dir() {
        return Err(refuse("not a file (a device or a directory)".into()));
    }
    if meta.is_file() && meta.len() > max {
        return Err(refuse(format!(
            "{} bytes, more than the {} this file may hold",
            meta.len(),
            max
        )));
    }
    let file = std::fs::File::open(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut text = String::new();
    file.take(max + 1)
        .read_to_string(&mut text)
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if text.len() as u64 > max {
        return Err(refuse(format!(
            "more than the {max} bytes this file may hold"
        )));
    }
    Ok(text)
}

/// Read a whole text file.
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Fill `buf` from `file` at `offset`, without moving a shared cursor (so many threads can
/// read one open file).
pub fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// How [`write_output`] writes a path, by what is there now ([`output_target`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputTarget {
    /// A new path or a regular file: replaced atomically ([`write_atomic`]).
    Replace,
    /// A device, a FIFO, a socket, a link to one of those, or a link under `/dev` or
    /// `/proc` (`/dev/stdout`): opened and written in place (through the link, which
    /// stays); truncated first when it leads to a regular file.
    InPlace { truncate: bool },
}

/// Links of the system's streams (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`), which
/// are written through whatever they lead to: a shell's redirection of stdout to a file
/// makes `/dev/stdout` lead to that file.
fn system_link(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc")
}

/// What [`write_output`] does with `path`; a directory (or a link to one) is an error.
pub fn output_target(path: &Path) -> std::io::Result<OutputTarget> {
    let here = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OutputTarget::Replace),
        other => other?,
    };
    if here.is_file() {
        return Ok(OutputTarget::Replace);
    }
    let link = here.file_type().is_symlink();
    match std::fs::metadata(path) {
        Ok(end) if end.is_dir() => Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory; name a file to write",
        )),
        // A link elsewhere to a regular file (or to nothing) is replaced, never written
        // through: a link committed at an output path must not make goldgate write to a
        // file outside the project.
        Ok(end) if link && end.is_file() && !system_link(path) => Ok(OutputTarget::Replace),
        Ok(end) => Ok(OutputTarget::InPlace {
            truncate: end.is_file(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && system_link(path) => {
            Ok(OutputTarget::InPlace { truncate: true })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(OutputTarget::Replace),
        Err(e) => Err(e),
    }
}

/// Write a path a user named (`--output`, `--out-dir`'s files, a baseline): atomically
/// when it is new or a regular file, else straight to it ([`output_target`]), so writing
/// to `/dev/null`, a FIFO or `/dev/stdout` never replaces it.
pub fn write_output(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let err = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    match output_target(path).map_err(err)? {
        OutputTarget::Replace => write_atomic(path, write),
        OutputTarget::InPlace { truncate } => write_in_place(path, truncate, write).map_err(err),
    }
}

/// Move a finished file to a path a user named: renamed over it when [`output_target`]
/// says `Replace`, else copied into it and removed.
pub fn move_output(from: &Path, to: &Path) -> Result<()> {
    let err = |source| Error::Write {
        path: to.to_path_buf(),
        source,
    };
    match output_target(to).map_err(err)? {
        OutputTarget::Replace => std::fs::rename(from, to).map_err(err),
        OutputTarget::InPlace { truncate } => {
            let mut file = std::fs::File::open(from).map_err(|source| Error::Read {
                path: from.to_path_buf(),
                source,
            })?;
            write_in_place(to, truncate, |w| std::io::copy(&mut file, w).map(drop)).map_err(err)?;
            std::fs::remove_file(from).map_err(|source| Error::Write {
                path: from.to_path_buf(),
                source,
            })
        }
    }
}

fn write_in_place(
    path: &Path,
    truncate: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(truncate)
        .open(path)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    match truncate {
        true => file.sync_all(),
        false => Ok(()),
    }
}

/// Write a file atomically, streaming through `write`; creates missing parent directories.
/// Whatever is at `path` is replaced (a link or a FIFO too): for files goldgate owns (its
/// caches, the files `init` writes, suite samples); paths a user names go through
/// [`write_output`].
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    write_atomic_io(path, write).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// [`write_atomic`] for callers that treat a failed write as non-fatal (the answer cache).
pub fn write_atomic_io(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dirs(parent)?;
    }
    let tmp = temporary_beside(path);
    let written = std::fs::File::create(&tmp).and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// Create `dir` and its missing parents; a file already there is an error naming it.
pub fn create_dir_all(dir: &Path) -> Result<()> {
    create_dirs(dir).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// [`std::fs::create_dir_all`], saying so when something that is not a directory is in
/// the way (not only "File exists").
fn create_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "it is not a directory; name a directory to write into",
        ),
        _ => e,
    })
}

/// What reading one line of a JSON Lines file gave ([`read_line`]).
pub enum Line {
    /// The end of the file.
    End,
    /// The line's bytes (with its newline, if it had one).
    Text(Vec<u8>),
    /// A line over the cap, skipped; its length in bytes without the newline.
    TooLong(u64),
}

/// Read the next line of at most `cap` bytes (without its newline); a longer line is
/// skipped to its end, never held in memory.
pub fn read_line(reader: &mut impl BufRead, cap: u64) -> std::io::Result<Line> {
    let mut bytes = Vec::new();
    let n = reader
        .by_ref()
        .take(cap + 1)
        .read_until(b'\n', &mut bytes)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if bytes.last() == Some(&b'\n') || (bytes.len() as u64) <= cap {
        return Ok(Line::Text(bytes));
    }
    let mut length = bytes.len() as u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Line::TooLong(length));
        }
        match memchr::memchr(b'\n', buf) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(Line::TooLong(length + i as u64));
            }
            None => {
                let all = buf.len();
                length += all as u64;
                reader.consume(all);
            }
        }
    }
}

/// A size as people read it: `16 MiB`, or bytes when it is not a whole number of MiB.
pub fn describe_bytes(cap: u64) -> String {
    if cap >= 1 << 20 && cap.is_multiple_of(1 << 20) {
        format!("{} MiB", cap >> 20)
    } else {
        format!("{cap} bytes")
    }
}

/// `path` with `suffix` added to its file name (`run.jsonl` → `run.jsonl.lock`): the files
/// that go with a file, beside it.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// A temporary name beside `path` that no other writer (process or thread) uses.
fn temporary_beside(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "goldgate".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link to a device (one a repository can hold: `/dev/zero` never ends) and a
    /// directory are refused before anything is read, a file over the limit by its size, a
    /// FIFO (a shell's process substitution) is read up to the limit, and a file within it
    /// whole.
    #[cfg(unix)]
    #[test]
    fn read_capped_reads_files_and_pipes_within_the_limit_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let zero = dir.join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_capped(&zero, 1 << 30).unwrap_err().to_string();
        assert!(e.contains("not a file (a device or a directory)"), "{e}");
        assert!(read_capped(dir, 100).is_err(), "a directory");
        let big = dir.join("big.json");
        std::fs::write(&big, "x".repeat(101)).unwrap();
        let e = read_capped(&big, 100).unwrap_err().to_string();
        assert!(e.contains("101 bytes, more than the 100"), "{e}");
        assert_eq!(read_capped(&big, 101).unwrap().len(), 101);
        let fifo = dir.join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                let _ = f.write_all("y".repeat(500).as_bytes());
            })
        };
        let e = read_capped(&fifo, 100).unwrap_err().to_string();
        assert!(e.contains("more than the 100 bytes"), "{e}");
        writer.join().unwrap();
    }

    #[test]
    fn atomic_write_replaces_whole_files_and_leaves_no_temporaries() {
        let dir = std::env::temp_dir().join(format!("goldgate-io-{}", std::process::id()));
        let path = dir.join("nested/out.json");
        write_atomic(&path, |w| w.write_all(b"first")).unwrap();
        write_atomic(&path, |w| w.write_all(b"second")).unwrap();
        assert_eq!(read(&path).unwrap(), "second");
        let failed = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.unwrap_err().to_string().contains("out.json"));
        assert_eq!(
            read(&path).unwrap(),
            "second",
            "a failed write keeps the old file"
        );
        let left: Vec<_> = std::fs::read_dir(dir.join("nested")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary files are left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lines_over_the_cap_are_skipped_and_measured() {
        let text = "short\n0123456789abcdef\nlast";
        let mut reader = std::io::BufReader::with_capacity(4, text.as_bytes());
        let mut seen = Vec::new();
        loop {
            match read_line(&mut reader, 8).unwrap() {
                Line::End => break,
                Line::Text(t) => seen.push(String::from_utf8(t).unwrap()),
                Line::TooLong(n) => seen.push(format!("too long: {n}")),
            }
        }
        assert_eq!(seen, ["short\n", "too long: 16", "last"]);
        let mut exact = "12345678\n".as_bytes();
        assert!(matches!(read_line(&mut exact, 8).unwrap(), Line::Text(t) if t.len() == 9));
    }

    #[test]
    fn caps_read_as_people_write_them() {
        assert_eq!(describe_bytes(16 << 20), "16 MiB");
        assert_eq!(describe_bytes(100), "100 bytes");
        assert_eq!(describe_bytes((1 << 20) + 1), "1048577 bytes");
    }

    /// Which way each kind of path is written. Devices are only looked at, never written:
    /// replacing `/dev/null` as root breaks the machine (the integration tests write FIFOs).
    #[test]
    fn only_new_paths_regular_files_and_links_to_them_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (file, link, dangling) = (
            dir.path().join("f"),
            dir.path().join("l"),
            dir.path().join("d"),
        );
        std::fs::write(&file, "x").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        let target = |p: &Path| output_target(p).map_err(|e| e.kind());
        assert_eq!(target(&dir.path().join("new")), Ok(OutputTarget::Replace));
        assert_eq!(target(&file), Ok(OutputTarget::Replace));
        let in_place = |truncate| Ok(OutputTarget::InPlace { truncate });
        // A link to a regular file or to nothing is replaced, never written through (it may
        // have been committed to lead outside the project) ...
        assert_eq!(target(&link), Ok(OutputTarget::Replace));
        assert_eq!(target(&dangling), Ok(OutputTarget::Replace));
        // ... a link to a device or a FIFO is written through and stays.
        let to_null = dir.path().join("n");
        std::os::unix::fs::symlink("/dev/null", &to_null).unwrap();
        assert_eq!(
            target(&to_null),
            in_place(false),
            "a link to a device stays"
        );
        assert_eq!(target(Path::new("/dev/null")), in_place(false));
        if Path::new("/dev/stdout").exists() {
            assert!(
                matches!(
                    target(Path::new("/dev/stdout")),
                    Ok(OutputTarget::InPlace { .. })
                ),
                "/dev/stdout is a link (or a device): never replaced"
            );
        }
        assert_eq!(target(dir.path()), Err(std::io::ErrorKind::IsADirectory));
        let err = write_output(dir.path(), |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("it is a directory"), "{err}");
    }
}
