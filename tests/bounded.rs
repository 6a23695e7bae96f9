//! Bounded work on hostile input. Every reader has a cap in bytes: a huge line of a pairs
//! file, or YAML aliases that multiply a long string, are input errors (exit 2) naming the
//! file and line, found quickly and within a memory limit, never an aborted process. And
//! matching takes at most `[matching] max_items` items from one sample: longer gold is a
//! suite error, a longer answer is scored as unreadable and can never pass.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{test_kind, TempDir};

/// Address space the binary may use: plenty for goldgate, far less than the inputs below
/// would take when read or expanded whole.
const MEMORY_LIMIT: u64 = 1 << 30;

/// `goldgate ARGS` in `dir` under [`MEMORY_LIMIT`]; with the time it took.
fn goldgate_limited(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS");
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read while it runs (a full pipe would stall it); kill it after a minute.
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        stdout.read_to_end(&mut text).map(|_| text)
    });
    let err = std::thread::spawn(move || {
        let mut text = Vec::new();
        stderr.read_to_end(&mut text).map(|_| text)
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    };
    (output, started.elapsed())
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_huge_line_in_a_pairs_file_is_an_input_error_not_an_abort() {
    let dir = TempDir::new("bounded-pairs");
    // A 128 MiB line, written in pieces (the test itself holds little of it).
    let mut file =
        std::io::BufWriter::new(std::fs::File::create(dir.0.join("pairs.jsonl")).unwrap());
    file.write_all(b"{\"a\": \"short\", \"b\": \"short\"}\n{\"a\": \"")
        .unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..128 {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(b"\", \"b\": \"y\"}\n").unwrap();
    file.flush().unwrap();
    drop(file);
    let (out, took) = goldgate_limited(&dir.0, &["similarity", "--pairs", "pairs.jsonl"]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("pairs.jsonl:2") && text.contains("1 MiB"),
        "the file, the line and the cap: {text}"
    );
    assert!(!text.contains("memory allocation"), "{text}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn yaml_aliases_that_multiply_a_long_string_are_an_input_error_not_an_abort() {
    let dir = TempDir::new("bounded-yaml");
    let suite = dir.0.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    // A 4 MB string, then five levels of lists of ten aliases of the level below: a few
    // hundred values, but 4 MB × 10^5 of text once expanded.
    let mut yaml = format!(
        "id: ext-001\nkind: {}\nconversation:\n  - role: user\n    content: &s0 \"{}\"\n",
        test_kind::name(),
        "a".repeat(4 << 20)
    );
    yaml.push_str("bomb:\n");
    for level in 1..=5 {
        let aliases = vec![format!("*s{}", level - 1); 10].join(", ");
        yaml.push_str(&format!("  l{level}: &s{level} [{aliases}]\n"));
    }
    yaml.push_str(&format!("labels:\n  {}: []\n", label_key()));
    std::fs::write(suite.join("ext-001.yaml"), yaml).unwrap();
    let (out, took) = goldgate_limited(&dir.0, &["suite", "lint", "suite"]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("ext-001.yaml:7") && text.contains("aliases copy more than 16 MiB"),
        "the file, the alias's line and the cap: {text}"
    );
    assert!(!text.contains("memory allocation"), "{text}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// The test kind's marks `0` … `n - 1`.
fn marks(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("feature {i}")).collect()
}

/// A sample `id` of the test kind whose gold holds `gold` marks, as one JSON line.
fn sample(id: &str, gold: usize) -> String {
    let marks = marks(gold);
    let marks: Vec<&str> = marks.iter().map(String::as_str).collect();
    test_kind::sample(id, "Customers want a shop with features.", &marks).to_string()
}

/// An outputs-file line: `id` answered with `n` marks.
fn answer(id: &str, n: usize) -> String {
    let marks = marks(n);
    let marks: Vec<&str> = marks.iter().map(String::as_str).collect();
    let answer = test_kind::answer(&marks);
    serde_json::json!({"id": id, "output": answer.to_string()}).to_string()
}

/// A project in `dir`: samples (id, gold size) in `suite/`, their answers (id, size) in
/// `answers.jsonl`, and `thresholds` in `thresholds.toml` when given.
fn matching_project(
    dir: &Path,
    samples: &[(&str, usize)],
    answers: &[(&str, usize)],
    thresholds: Option<&str>,
) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let lines: Vec<String> = samples.iter().map(|(id, n)| sample(id, *n)).collect();
    std::fs::write(dir.join("suite/samples.jsonl"), lines.join("\n") + "\n").unwrap();
    let lines: Vec<String> = answers.iter().map(|(id, n)| answer(id, *n)).collect();
    std::fs::write(dir.join("answers.jsonl"), lines.join("\n") + "\n").unwrap();
    if let Some(t) = thresholds {
        std::fs::write(dir.join("thresholds.toml"), t).unwrap();
    }
}

/// The test kind's one label list.
fn label_key() -> &'static str {
    goldgate_core::testkit::test_kind().label_keys()[0]
}

const SCORE: &[&str] = &[
    "score",
    "--suite",
    "suite",
    "--run",
    "answers.jsonl",
    "--resamples",
    "0",
    "-o",
    "score.json",
];

fn scored(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("score.json")).unwrap()).unwrap()
}

#[test]
fn an_answer_longer_than_matching_takes_is_scored_as_unreadable_and_said() {
    let dir = TempDir::new("bounded-answer");
    // The default cap (1000): s-1's answer holds every gold requirement and 1,001 in all.
    matching_project(
        &dir.0,
        &[("s-0", 2), ("s-1", 2)],
        &[("s-0", 2), ("s-1", 1001)],
        None,
    );
    let (out, _) = goldgate_limited(&dir.0, SCORE);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("answers.jsonl:2")
            && text.contains("s-1")
            && text.contains("1001 items")
            && text.contains("at most 1000"),
        "the line, the sample, the list and the cap: {text}"
    );
    let score = scored(&dir.0);
    let samples = score["samples"].as_array().unwrap();
    assert_eq!(samples[0]["parse"], serde_json::json!(["raw"]));
    assert_eq!(samples[0]["primary"], 1.0);
    assert_eq!(
        samples[1]["parse"],
        serde_json::json!(["error"]),
        "unreadable"
    );
    assert_eq!(samples[1]["primary"], 0.0, "it can never pass");
    assert_eq!(score["metrics"]["parse.error_rate"]["value"], 0.5);
    // A cap of the rules file: 2 items still match, 3 do not.
    let dir = TempDir::new("bounded-answer-rules");
    let rules = "version = 1\n[matching]\nmax_items = 2\n";
    matching_project(
        &dir.0,
        &[("s-0", 2), ("s-1", 2)],
        &[("s-0", 2), ("s-1", 3)],
        Some(rules),
    );
    let mut args = SCORE.to_vec();
    args.extend(["--thresholds", "thresholds.toml"]);
    let (out, _) = goldgate_limited(&dir.0, &args);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let samples = scored(&dir.0)["samples"].clone();
    assert_eq!(samples[0]["parse"], serde_json::json!(["raw"]));
    assert_eq!(samples[1]["parse"], serde_json::json!(["error"]));
}

#[test]
fn gold_longer_than_matching_takes_is_a_suite_error() {
    let dir = TempDir::new("bounded-gold");
    let rules = "version = 1\n[matching]\nmax_items = 2\n";
    matching_project(
        &dir.0,
        &[("s-0", 2), ("s-1", 3)],
        &[("s-0", 2), ("s-1", 2)],
        Some(rules),
    );
    for args in [
        &["suite", "lint", "suite"][..],
        &[SCORE, &["--thresholds", "thresholds.toml"]].concat(),
    ] {
        let (out, _) = goldgate_limited(&dir.0, args);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(
            text.contains("samples.jsonl:2")
                && text.contains(&format!("labels.{}", label_key()))
                && text.contains("3 items")
                && text.contains("at most 2"),
            "{args:?}: the sample, the list and the cap: {text}"
        );
    }
    let e = goldgate_limited(&dir.0, &["thresholds", "check", "thresholds.toml"]).0;
    assert_eq!(e.status.code(), Some(0), "{}", said(&e));
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[matching]\nmax_items = 0\n",
    )
    .unwrap();
    let e = goldgate_limited(&dir.0, &["thresholds", "check", "thresholds.toml"]).0;
    assert_eq!(e.status.code(), Some(2), "{}", said(&e));
    assert!(said(&e).contains("matching.max_items"), "{}", said(&e));
}

#[test]
fn a_hostile_sample_never_takes_minutes() {
    // 10,000 gold against 10,000 predicted items took minutes and gigabytes.
    let dir = TempDir::new("bounded-hostile");
    matching_project(
        &dir.0,
        &[("s-0", 10_000), ("s-1", 3)],
        &[("s-0", 10_000), ("s-1", 10_000)],
        None,
    );
    let (out, took) = goldgate_limited(&dir.0, SCORE);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!("labels.{}", label_key())) && text.contains("10000 items"),
        "{text}"
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    // Small gold, a huge answer: scored at once as unreadable.
    matching_project(&dir.0, &[("s-1", 3)], &[("s-1", 10_000)], None);
    let (out, took) = goldgate_limited(&dir.0, SCORE);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        scored(&dir.0)["samples"][0]["parse"],
        serde_json::json!(["error"])
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
}
