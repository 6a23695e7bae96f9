//! Every committed version of one file, read from git without checking anything out: the
//! commits that touched it (`git log`, newest first, pathspecs taken literally) and its
//! content at each, streamed one version at a time through one `git cat-file --batch`. No
//! git or no repository is an answer ([`Unavailable`]), never a panic; a shallow clone is
//! said so.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use goldgate_core::error::{Error, Result};

/// One commit that changed the file.
#[derive(Clone, Debug)]
pub struct Committed {
    pub commit: String,
    /// Commit time, seconds since the Unix epoch.
    pub committed_at: u64,
    pub author: String,
    pub subject: String,
}

/// Why a file's history cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    NoGit,
    NotARepository,
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unavailable::NoGit => "git is not installed",
            Unavailable::NotARepository => "this is not a git repository",
        })
    }
}

/// The commits that changed one file, newest first; their texts are read one at a time
/// ([`FileLog::each_text`]), never all at once.
#[derive(Clone, Debug)]
pub struct FileLog {
    pub versions: Vec<Committed>,
    /// The clone is shallow: older versions may be missing.
    pub shallow: bool,
    dir: PathBuf,
    name: String,
}

/// `git` in `dir`, with pathspecs taken literally (a path with `*` or `[` is a path).
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir).env("GIT_LITERAL_PATHSPECS", "1");
    command
}

/// The commits that changed `path` (relative to the working directory, or absolute), the
/// newest `limit` of them when given.
pub fn file_log(
    path: &Path,
    limit: Option<usize>,
) -> Result<std::result::Result<FileLog, Unavailable>> {
    let dir = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) if p.is_dir() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = match dir.as_os_str() == "." {
        true => path.to_path_buf(),
        false => path.file_name().map(Into::into).unwrap_or_default(),
    };
    let name = name.to_string_lossy().to_string();
    if name.contains('\n') {
        return Err(git_failed(
            "a path with a line break cannot be read from git",
        ));
    }
    let inside = match git(&dir)
        .args([
            "rev-parse",
            "--is-inside-work-tree",
            "--is-shallow-repository",
        ])
        .output()
    {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Err(Unavailable::NoGit)),
        Err(e) => return Err(git_failed(&e.to_string())),
        Ok(out) => out,
    };
    if !inside.status.success() {
        return Ok(Err(Unavailable::NotARepository));
    }
    let shallow = String::from_utf8_lossy(&inside.stdout).lines().nth(1) == Some("true");
    let count = limit.map(|n| format!("--max-count={n}"));
    let mut args = vec!["log", "--format=%H%x1f%ct%x1f%an%x1f%s"];
    args.extend(count.as_deref());
    args.extend(["--", &name]);
    let log = git(&dir)
        .args(&args)
        .output()
        .map_err(|e| git_failed(&e.to_string()))?;
    if !log.status.success() {
        return Err(git_failed(String::from_utf8_lossy(&log.stderr).trim()));
    }
    let versions = String::from_utf8_lossy(&log.stdout)
        .lines()
        .filter_map(|line| {
            let mut f = line.split('\x1f');
            Some(Committed {
                commit: f.next()?.to_string(),
                committed_at: f.next()?.parse().ok()?,
                author: f.next()?.to_string(),
                subject: f.next().unwrap_or_default().to_string(),
            })
        })
        .collect();
    Ok(Ok(FileLog {
        versions,
        shallow,
        dir,
        name,
    }))
}

/// A version's bytes, or why they were not read (larger than a score file may be).
pub type Version = std::result::Result<Vec<u8>, String>;

impl FileLog {
    /// The file's text at each version in turn, newest first (`None` where the commit
    /// deleted it), through one `git cat-file --batch`; `each` returns whether to go on.
    /// Only one version's text is in memory at a time, and none over `max` bytes (a score
    /// file's limit, [`goldgate_core::score::file::MAX_BYTES`]): a larger one is passed over
    /// unread.
    pub fn each_text(
        &self,
        max: u64,
        mut each: impl FnMut(&Committed, Option<Version>) -> bool,
    ) -> Result<()> {
        if self.versions.is_empty() {
            return Ok(());
        }
        let mut child = git(&self.dir)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| git_failed(&e.to_string()))?;
        let mut stdin = child.stdin.take().ok_or_else(|| git_failed("no stdin"))?;
        let input: String = self
            .versions
            .iter()
            .map(|v| format!("{}:./{}\n", v.commit, self.name))
            .collect();
        // Written from a thread: git answers while it reads, and both pipes have a size. A
        // reader that stops early closes its end, and the writer's error is expected then.
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let stdout = child.stdout.take().ok_or_else(|| git_failed("no stdout"))?;
        let mut reader = BufReader::new(stdout);
        let mut outcome = Ok(());
        for version in &self.versions {
            let mut header = String::new();
            match reader.read_line(&mut header) {
                Err(e) => {
                    outcome = Err(git_failed(&e.to_string()));
                    break;
                }
                Ok(0) => {
                    let why = format!("git cat-file stopped before {}", version.commit);
                    outcome = Err(git_failed(&why));
                    break;
                }
                Ok(_) => {}
            }
            let header = header.trim_end_matches('\n');
            // `<object> missing` repeats the request, which may hold spaces.
            let text = if header.ends_with(" missing") || header.ends_with(" ambiguous") {
                None
            } else {
                let mut fields = header.rsplitn(3, ' ');
                let size = fields.next().and_then(|s| s.parse::<usize>().ok());
                match (size, fields.next()) {
                    // Passed over unread, a piece at a time (a version of any size costs no
                    // memory): one too large, or not a file in that commit (a directory).
                    (Some(size), Some(kind)) if kind != "blob" || size as u64 > max => {
                        let mut rest = (&mut reader).take(size as u64 + 1);
                        if let Err(e) = std::io::copy(&mut rest, &mut std::io::sink()) {
                            outcome = Err(git_failed(&e.to_string()));
                            break;
                        }
                        Some(Err(match kind {
                            "blob" => format!(
                                "{size} bytes, more than the {max} a score file may hold: not read"
                            ),
                            _ => format!("not a file in this commit (a {kind})"),
                        }))
                    }
                    (Some(size), Some("blob")) => {
                        let mut text = vec![0; size + 1];
                        if let Err(e) = reader.read_exact(&mut text) {
                            outcome = Err(git_failed(&e.to_string()));
                            break;
                        }
                        text.pop();
                        Some(Ok(text))
                    }
                    _ => {
                        outcome = Err(git_failed(header));
                        break;
                    }
                }
            };
            if !each(version, text) {
                break;
            }
        }
        drop(reader);
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        outcome
    }
}

fn git_failed(why: &str) -> Error {
    Error::environment(
        format!("cannot read the history from git: {why}"),
        "run goldgate inside the repository's work tree, with git installed",
    )
}

#[cfg(test)]
mod tests {
    use goldgate_core::testkit::git;

    /// A version over the limit, and one where the path was a directory, are passed over
    /// unread and said, and the versions before and after them are read whole: the stream
    /// stays in step.
    #[test]
    fn a_version_over_the_limit_is_passed_over_unread() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        let path = dir.join("main.json");
        for (text, message) in [
            ("first".to_string(), "one"),
            ("x".repeat(5000), "huge"),
            (String::new(), "a directory"),
            ("third".to_string(), "three"),
        ] {
            if message == "a directory" {
                std::fs::remove_file(&path).unwrap();
                std::fs::create_dir(&path).unwrap();
                std::fs::write(path.join("inside"), "x").unwrap();
            } else {
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).unwrap();
                }
                std::fs::write(&path, text).unwrap();
            }
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", message]);
        }
        let log = super::file_log(&path, None).unwrap().unwrap();
        let mut seen = Vec::new();
        log.each_text(1000, |version, text| {
            seen.push((version.subject.clone(), text));
            true
        })
        .unwrap();
        let subjects: Vec<&str> = seen.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(subjects, ["three", "a directory", "huge", "one"]);
        assert_eq!(seen[0].1, Some(Ok(b"third".to_vec())));
        let why = seen[1].1.clone().unwrap().unwrap_err();
        assert_eq!(why, "not a file in this commit (a tree)");
        let why = seen[2].1.clone().unwrap().unwrap_err();
        assert!(why.contains("5000 bytes, more than the 1000"), "{why}");
        assert_eq!(seen[3].1, Some(Ok(b"first".to_vec())));
    }
}
