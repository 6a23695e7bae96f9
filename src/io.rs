//! File input and output shared by every step: reading a text file with its path in the
//! error, positioned reads that threads can share, and atomic writes (a temporary file
//! beside the target, synced, then renamed), so a reader never sees half a file and an
//! interrupted write leaves the old file in place.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

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

/// Write a file atomically, streaming through `write`; creates missing parent directories.
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
        std::fs::create_dir_all(parent)?;
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
}
