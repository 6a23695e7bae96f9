//! A new project's `.gitignore`: `.goldgate/` (goldgate's answer cache and outputs) is
//! ignored, so the cache is never committed. A missing file is created; an existing one gets
//! the lines appended unless a line already ignores the directory, and its own lines are
//! never changed; a `.gitignore` that is not a regular file (a link, a directory) is left
//! alone.

use std::io::Write;
use std::path::Path;

use goldgate_core::error::{Error, Result};

/// Its name in the project directory.
pub const FILE: &str = ".gitignore";

/// What is added: a comment and the directory.
const LINES: &str = include_str!("../../templates/init/gitignore");

/// Lines that already ignore the directory.
const IGNORING: [&str; 6] = [
    ".goldgate",
    ".goldgate/",
    "/.goldgate",
    "/.goldgate/",
    ".goldgate/*",
    "/.goldgate/*",
];

/// What happened to `.gitignore`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignore {
    Created,
    Appended,
    /// A line already ignores `.goldgate/`, or the file is not a regular one: unchanged.
    Unchanged,
}

/// Make `.gitignore` in `dir` ignore `.goldgate/`.
pub fn ignore_own_files(dir: &Path) -> Result<Ignore> {
    let path = dir.join(FILE);
    let write_err = |source| Error::Write {
        path: path.clone(),
        source,
    };
    match std::fs::symlink_metadata(&path) {
        Err(_) => {
            goldgate_core::io::write_atomic(&path, |out| out.write_all(LINES.as_bytes()))?;
            return Ok(Ignore::Created);
        }
        Ok(meta) if !meta.is_file() => return Ok(Ignore::Unchanged),
        Ok(_) => {}
    }
    let mut file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .map_err(write_err)?
    };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text).map_err(|source| Error::Read {
        path: path.clone(),
        source,
    })?;
    if text.lines().any(|l| IGNORING.contains(&l.trim())) {
        return Ok(Ignore::Unchanged);
    }
    let newline = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    file.write_all(format!("{newline}{LINES}").as_bytes())
        .map_err(write_err)?;
    Ok(Ignore::Appended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_appended_once_and_kept_when_already_ignoring() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        assert_eq!(ignore_own_files(d).unwrap(), Ignore::Created);
        assert_eq!(std::fs::read_to_string(d.join(FILE)).unwrap(), LINES);
        assert_eq!(ignore_own_files(d).unwrap(), Ignore::Unchanged);
        std::fs::write(d.join(FILE), "target").unwrap();
        assert_eq!(ignore_own_files(d).unwrap(), Ignore::Appended);
        assert_eq!(
            std::fs::read_to_string(d.join(FILE)).unwrap(),
            format!("target\n{LINES}")
        );
        std::fs::write(d.join(FILE), "  /.goldgate/  \n").unwrap();
        assert_eq!(ignore_own_files(d).unwrap(), Ignore::Unchanged);
        std::fs::remove_file(d.join(FILE)).unwrap();
        std::fs::create_dir(d.join(FILE)).unwrap();
        assert_eq!(ignore_own_files(d).unwrap(), Ignore::Unchanged);
    }
}
