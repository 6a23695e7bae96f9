//! Where goldgate writes: every `--output`, `-o`, `--out-dir` and `--baseline` path of every
//! command. A new path, a regular file or a link to one elsewhere is replaced atomically;
//! anything else (a FIFO, a device such as `/dev/null`, a link to one, a stream link such
//! as `/dev/stdout`) is written straight to and stays what it was; a directory is an error
//! naming it.
//!
//! Devices are never written here (the tests run as root in CI containers, where replacing
//! `/dev/null` would break the machine): FIFOs made in a temporary directory stand in for
//! them, and the unit tests of `goldgate_core::io` check which way a device is written.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::support::output::said;
use crate::support::project::goldgate;
use crate::support::{example, TempDir};

/// The example project's suite, main answers and baseline.
fn inputs() -> (String, String, String) {
    (
        example("suite"),
        example("answers/main.jsonl"),
        example("baselines/main.json"),
    )
}

/// `dir/pairs.jsonl` holding one pair of texts for `goldgate similarity`.
fn pairs(dir: &Path, a: &str, b: &str) {
    let line = serde_json::json!({"a": a, "b": b});
    std::fs::write(dir.join("pairs.jsonl"), format!("{line}\n")).unwrap();
}

/// A FIFO at `path` and a reader draining it while a command runs. The reader holds both
/// ends (a FIFO opened for reading and writing never blocks), so it never waits for a
/// writer that does not come: a command that replaced the FIFO leaves it with nothing.
struct Fifo {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    reader: JoinHandle<Vec<u8>>,
}

impl Fifo {
    fn new(path: PathBuf) -> Fifo {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let reader = std::thread::spawn(move || {
            let (mut got, mut buf) = (Vec::new(), vec![0u8; 1 << 16]);
            loop {
                match file.read(&mut buf) {
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if stopping.load(Ordering::SeqCst) {
                            return got;
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => panic!("reading the FIFO: {e}"),
                }
            }
        });
        Fifo { path, stop, reader }
    }

    /// What was written to it; fails when the path is no longer a FIFO.
    fn finish(self) -> String {
        self.stop.store(true, Ordering::SeqCst);
        let got = self.reader.join().unwrap();
        let kind = std::fs::symlink_metadata(&self.path).unwrap().file_type();
        assert!(
            kind.is_fifo(),
            "{} was replaced by a {kind:?} instead of being written to",
            self.path.display()
        );
        String::from_utf8(got).unwrap()
    }
}

/// `goldgate ARGS` in `dir` while the FIFOs `fifos` (names in `dir`) are read; what each got.
fn with_fifos(dir: &Path, fifos: &[&str], args: &[&str], status: i32) -> Vec<String> {
    let readers: Vec<Fifo> = fifos.iter().map(|f| Fifo::new(dir.join(f))).collect();
    let out = goldgate(dir, args, &[]);
    // Anything written is in the pipe before the writer's process exits.
    let got: Vec<String> = readers.into_iter().map(Fifo::finish).collect();
    assert_eq!(out.status.code(), Some(status), "{args:?}: {}", said(&out));
    got
}

#[test]
fn every_output_that_is_a_fifo_is_written_to_and_stays_a_fifo() {
    let dir = TempDir::new("out-fifo");
    let d = &dir.0;
    let (suite, answers, baseline) = inputs();
    pairs(d, "track orders", "track my orders");
    let got = with_fifos(
        d,
        &["cosines"],
        &["similarity", "--pairs", "pairs.jsonl", "-o", "cosines"],
        0,
    );
    assert!(got[0].contains("\"cosine\":"), "similarity: {got:?}");

    let got = with_fifos(
        d,
        &["score.json"],
        &[
            "score",
            "--suite",
            &suite,
            "--run",
            &answers,
            "--resamples",
            "50",
            "-o",
            "score.json",
        ],
        0,
    );
    assert!(got[0].contains("\"goldgate.score/1\""), "score: {got:?}");

    let got = with_fifos(
        d,
        &["run.jsonl"],
        &[
            "run",
            "--suite",
            &suite,
            "--replay",
            &answers,
            "-o",
            "run.jsonl",
        ],
        0,
    );
    assert!(got[0].lines().count() > 10, "run: {got:?}");
    assert!(got[0].contains("\"sample_id\""), "run: {got:?}");
    for leftover in ["run.jsonl.partial", "run.jsonl.lock"] {
        assert!(!d.join(leftover).exists(), "{leftover} is left behind");
    }

    let merged = example("baselines/main.run.jsonl");
    let got = with_fifos(d, &["merged"], &["merge", &merged, "-o", "merged"], 0);
    assert_eq!(
        got[0].lines().count(),
        std::fs::read_to_string(&merged).unwrap().lines().count(),
        "merge: {got:?}"
    );

    let got = with_fifos(
        d,
        &["verdict"],
        &[
            "compare",
            "--score",
            &baseline,
            "--baseline",
            &baseline,
            "-o",
            "verdict",
            "--format",
            "brief",
        ],
        0,
    );
    assert!(
        got[0].contains("\"goldgate.verdict/1\""),
        "compare: {got:?}"
    );

    std::fs::create_dir(d.join("out")).unwrap();
    let got = with_fifos(
        d,
        &["out/score.json", "out/verdict.json", "out/report.md"],
        &[
            "check",
            "--suite",
            &suite,
            "--replay",
            &answers,
            "--baseline",
            &baseline,
            "--out-dir",
            "out",
            "--resamples",
            "50",
        ],
        0,
    );
    assert!(
        got[0].contains("\"goldgate.score/1\""),
        "check score: {got:?}"
    );
    assert!(
        got[1].contains("\"goldgate.verdict/1\""),
        "check verdict: {got:?}"
    );
    assert!(got[2].contains("goldgate"), "check report: {got:?}");

    let got = with_fifos(
        d,
        &["stored.json", "stored.run.jsonl"],
        &[
            "baseline",
            "refresh",
            "--suite",
            &suite,
            "--replay",
            &answers,
            "--baseline",
            "stored.json",
        ],
        0,
    );
    assert!(got[0].contains("\"goldgate.score/1\""), "baseline: {got:?}");
    assert!(got[1].contains("\"sample_id\""), "baseline run: {got:?}");
}

#[test]
fn a_stream_link_is_written_through_and_a_link_to_a_file_is_replaced() {
    let dir = TempDir::new("out-link");
    let d = &dir.0;
    pairs(d, "x y z", "x y z");
    // Like `/dev/stdout` (a link to the process's stdout) when stdout is a pipe ...
    let fifo = Fifo::new(d.join("pipe"));
    std::os::unix::fs::symlink("pipe", d.join("stdout")).unwrap();
    let out = goldgate(
        d,
        &["similarity", "--pairs", "pairs.jsonl", "-o", "stdout"],
        &[],
    );
    let got = fifo.finish();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(got.contains("\"cosine\":1.0"), "{got:?}");
    // ... and `/dev/stdout` itself, whatever stdout is (here a pipe to this test).
    let out = goldgate(
        d,
        &["similarity", "--pairs", "pairs.jsonl", "-o", "/dev/stdout"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("\"cosine\":1.0"), "{}", said(&out));
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
    // A link elsewhere to a regular file (one a pull request committed at an output path,
    // say) is replaced, never written through: the file it leads to is left alone.
    let victim = "a file outside the project\n";
    std::fs::write(d.join("file.jsonl"), victim).unwrap();
    std::os::unix::fs::symlink("file.jsonl", d.join("link")).unwrap();
    let out = goldgate(
        d,
        &["similarity", "--pairs", "pairs.jsonl", "-o", "link"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("file.jsonl")).unwrap(),
        victim
    );
    let written = std::fs::read_to_string(d.join("link")).unwrap();
    assert!(
        std::fs::symlink_metadata(d.join("link")).unwrap().is_file(),
        "the link is now goldgate's own file"
    );
    assert!(written.contains("\"cosine\":1.0"), "{written}");
}

#[test]
fn an_output_that_is_a_directory_is_an_error_naming_it() {
    let dir = TempDir::new("out-dir");
    let d = &dir.0;
    pairs(d, "x", "y");
    std::fs::create_dir(d.join("taken")).unwrap();
    std::fs::write(d.join("a-file"), "keep me").unwrap();
    let (suite, answers, baseline) = inputs();
    let cases: [&[&str]; 5] = [
        &["similarity", "--pairs", "pairs.jsonl", "-o", "taken"],
        &[
            "score",
            "--suite",
            &suite,
            "--run",
            &answers,
            "--resamples",
            "0",
            "-o",
            "taken",
        ],
        &[
            "run", "--suite", &suite, "--replay", &answers, "-o", "taken",
        ],
        &[
            "compare",
            "--score",
            &baseline,
            "--baseline",
            &baseline,
            "-o",
            "taken",
        ],
        &[
            "check",
            "--suite",
            &suite,
            "--replay",
            &answers,
            "--baseline",
            &baseline,
            "--out-dir",
            "a-file",
        ],
    ];
    for args in cases {
        let out = goldgate(d, args, &[]);
        let said = said(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        let named = args.last().unwrap();
        assert!(
            said.contains(&format!("cannot write {named}")) && said.contains("directory"),
            "{args:?}: the path and why: {said}"
        );
    }
    assert!(d.join("taken").is_dir());
    assert_eq!(
        std::fs::read_to_string(d.join("a-file")).unwrap(),
        "keep me"
    );
    let left: Vec<_> = std::fs::read_dir(d.join("taken")).unwrap().collect();
    assert!(left.is_empty(), "nothing written inside: {left:?}");
}
