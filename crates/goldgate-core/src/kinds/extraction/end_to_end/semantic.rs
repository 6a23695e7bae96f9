//! Semantic matching of requirements end to end, against a fake OpenAI-compatible
//! `/embeddings` server on 127.0.0.1 whose "model" puts paraphrases on one vector: a
//! paraphrased answer matches under `similarity = "openai"` where lexical matching misses
//! it, the embedding thresholds apply by default, vectors are cached (a second score asks
//! the server for nothing), provenance names the model and its fingerprint, a baseline
//! scored with another similarity is refused, and `goldgate similarity` prints the same
//! cosines.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::mock_http::{MockServer, Request, RequestLog, Response};
use crate::support::project::goldgate;
use crate::support::TempDir;

const KEY: &str = "sk-semantic-test-NEVER-WRITTEN";

/// The fake model: texts about locking accounts share one direction, texts about
/// exporting reports another; anything else a third. Close, not identical: cosines of
/// paraphrases are about 0.99, of unrelated texts 0.
fn vector_of(text: &str) -> [f32; 3] {
    let t = text.to_lowercase();
    if t.contains("lock") || t.contains("sign-in") {
        [1.0, 0.1 * (t.len() % 3) as f32, 0.0]
    } else if t.contains("export") || t.contains("download") {
        [0.0, 1.0, 0.1 * (t.len() % 3) as f32]
    } else {
        [0.1 * (t.len() % 3) as f32, 0.0, 1.0]
    }
}

fn answer(request: &Request) -> Response {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    let data: Vec<Value> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "embedding": vector_of(t.as_str().unwrap())}))
        .collect();
    Response::json("200 OK", &json!({"data": data}))
}

/// A project: one extraction sample with two gold requirements, and an answer that
/// paraphrases both (lexically far apart), under rules selecting `similarity`.
fn project(dir: &Path, url: &str, similarity: &str) {
    let sample = json!({"id": "s-0", "kind": "extraction",
        "conversation": [{"role": "user", "content": "Lock accounts after failed logins; admins export reports."}],
        "labels": {"requirements": [
            {"id": "REQ-001", "title": "Account lockout", "type": "security", "actor": "system",
             "action": "lock the account after five failed login attempts", "source_messages": [0],
             "acceptance_criteria": ["The account locks after 5 failures", "An email tells the owner"]},
            {"id": "REQ-002", "title": "Monthly report export", "type": "functional", "actor": "admin",
             "action": "export the monthly report as CSV", "source_messages": [0]}]}});
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    std::fs::write(dir.join("suite/s.jsonl"), format!("{sample}\n")).unwrap();
    let output = json!({"requirements": [
        {"id": "REQ-001", "title": "Brute-force protection", "type": "security", "actor": "system",
         "action": "block sign-in once the password is entered wrongly 5 times",
         "acceptance_criteria": ["Sign-in is blocked after five wrong passwords", "The owner gets an email"]},
        {"id": "REQ-002", "title": "Download of monthly figures", "type": "functional", "actor": "administrator",
         "action": "download a CSV with the month's numbers"}]});
    let line = json!({"id": "s-0", "output": output.to_string()});
    std::fs::write(dir.join("answers.jsonl"), format!("{line}\n")).unwrap();
    let rules = match similarity {
        "openai" => format!("version = 1\n[matching]\nsimilarity = \"openai\"\nembedding_model = \"fake-embedder\"\nembedding_base_url = \"{url}\"\nembedding_api_key_env = \"SEMANTIC_TEST_KEY\"\n"),
        _ => "version = 1\n[matching]\nsimilarity = \"lexical\"\n".to_string(),
    };
    std::fs::write(dir.join("thresholds.toml"), rules).unwrap();
}

fn score(dir: &Path, output: &str) -> (Value, String) {
    let out = goldgate(
        dir,
        &[
            "score",
            "--suite",
            "suite",
            "--run",
            "answers.jsonl",
            "--thresholds",
            "thresholds.toml",
            "--output",
            output,
            "--resamples",
            "0",
        ],
        &[
            ("SEMANTIC_TEST_KEY", KEY),
            ("GOLDGATE_TEST_BACKOFF_MS", "1"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(output)).unwrap()).unwrap();
    (file, stderr)
}

fn f1(file: &Value) -> f64 {
    file["metrics"]["extraction.f1"]["value"].as_f64().unwrap()
}

/// Every file under `dir`, read as bytes, holds no `needle`.
fn assert_nowhere(dir: &Path, needle: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            assert_nowhere(&path, needle);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{} holds the key",
                path.display()
            );
        }
    }
}

fn requests(log: &RequestLog) -> usize {
    log.requests().len()
}

#[test]
fn paraphrases_match_under_embeddings_and_vectors_are_cached() {
    let dir = TempDir::new("semantic-openai");
    let (server, log) = MockServer::recording(answer);
    let url = server.url("/v1");
    project(&dir.0, &url, "lexical");
    let (lexical, _) = score(&dir.0, "lexical.json");
    assert_eq!(f1(&lexical), 0.0, "lexically the paraphrases are far apart");

    project(&dir.0, &url, "openai");
    let (semantic, _) = score(&dir.0, "semantic.json");
    assert_eq!(f1(&semantic), 1.0, "both paraphrases match");
    let scoring = &semantic["provenance"]["scoring"];
    assert_eq!(scoring["similarity"], "openai");
    assert_eq!(scoring["model"], "fake-embedder");
    assert_eq!(
        scoring["requirement_threshold"], 0.85,
        "the embedding defaults apply"
    );
    assert_eq!(scoring["ac_threshold"], 0.80);
    assert!(scoring["model_fingerprint"]
        .as_str()
        .is_some_and(|f| f.len() >= 16));
    // Every matched pair says its similarity.
    let matched = &semantic["samples"][0]["matching"][0]["matched"];
    assert_eq!(matched.as_array().unwrap().len(), 2, "{matched}");
    assert!(matched[0]["similarity"].as_f64().unwrap() > 0.85);
    let asked = requests(&log);
    assert!(asked >= 1);

    // Again: every vector comes from the cache, the server is not asked.
    let (again, said) = score(&dir.0, "again.json");
    assert_eq!(f1(&again), 1.0);
    assert!(
        said.contains("embedded 8 texts for semantic matching (8 from the cache, 0 computed)"),
        "{said}"
    );
    assert_eq!(
        requests(&log),
        asked,
        "a warm score asks the endpoint for nothing"
    );
    assert!(dir.0.join(".goldgate/cache/embeddings").is_dir());
    assert_nowhere(&dir.0, KEY);

    // A lexical baseline cannot judge a semantic candidate.
    let out = goldgate(
        &dir.0,
        &[
            "compare",
            "--score",
            "semantic.json",
            "--baseline",
            "lexical.json",
            "--thresholds",
            "thresholds.toml",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("lexical → openai fake-embedder")
            && stderr.contains("--allow-version-change"),
        "{stderr}"
    );
    drop(server);
}

#[test]
fn an_unmatched_gold_item_says_its_best_candidate_and_why() {
    let dir = TempDir::new("semantic-explain");
    project(&dir.0, "http://127.0.0.1:9", "lexical");
    let (file, _) = score(&dir.0, "score.json");
    let unmatched = &file["samples"][0]["matching"][0]["unmatched"];
    assert_eq!(unmatched.as_array().unwrap().len(), 2, "{unmatched}");
    assert_eq!(unmatched[0]["gold"], "REQ-001");
    assert_eq!(unmatched[0]["best"], "REQ-001");
    assert_eq!(unmatched[0]["reason"], "below_threshold");
    assert!(unmatched[0]["similarity"].as_f64().unwrap() < 0.6);
}

#[test]
fn the_similarity_command_prints_the_cosine_and_the_threshold_verdicts() {
    let dir = TempDir::new("semantic-command");
    let (server, _log) = MockServer::recording(answer);
    project(&dir.0, &server.url("/v1"), "openai");
    let env = [("SEMANTIC_TEST_KEY", KEY)];
    let out = goldgate(
        &dir.0,
        &[
            "similarity",
            "lock the account after five failed login attempts",
            "block sign-in after 5 wrong passwords",
        ],
        &env,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("openai fake-embedder"), "{stdout}");
    assert!(
        stdout.contains("requirement match  yes (threshold 0.85)"),
        "{stdout}"
    );

    std::fs::write(
        dir.0.join("pairs.jsonl"),
        "{\"a\": \"export the report\", \"b\": \"download the report\", \"same\": true}\n\n{\"a\": \"export\", \"b\": \"lock\"}\n",
    )
    .unwrap();
    let out = goldgate(&dir.0, &["similarity", "--pairs", "pairs.jsonl"], &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["a"], "export the report");
    assert_eq!(lines[0]["same"], true, "a reviewer's label is kept");
    assert!(lines[0]["cosine"].as_f64().unwrap() > 0.9);
    assert!(lines[1]["cosine"].as_f64().unwrap() < 0.2);

    std::fs::write(dir.0.join("bad.jsonl"), "{\"a\": \"x\"}\n").unwrap();
    let out = goldgate(&dir.0, &["similarity", "--pairs", "bad.jsonl"], &env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.jsonl:1") && stderr.contains("`b` is missing or not a string"),
        "{stderr}"
    );
    drop(server);
}

/// The diff of a broken sample lines gold and predictions up by the matching the metrics
/// used, here embeddings: each paraphrase that matched is one context line naming both
/// requirements with their similarity, then the fields the two write differently; only
/// gold nothing matched is `-`. (It was a unified diff of sorted lines, where every
/// paraphrase read as one requirement removed and another added.)
#[test]
fn a_broken_sample_s_diff_shows_matched_paraphrases_as_pairs_with_their_similarity() {
    let dir = TempDir::new("semantic-diff");
    let (server, _log) = MockServer::recording(answer);
    project(&dir.0, &server.url("/v1"), "openai");
    // Two more gold requirements, which the candidate leaves out: the sample breaks.
    let sample: Value = serde_json::from_str(
        std::fs::read_to_string(dir.0.join("suite/s.jsonl"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    let mut sample = sample;
    let more = [
        ("REQ-003", "Audit trail", "record every change to an order"),
        (
            "REQ-004",
            "Password rules",
            "require twelve characters in a password",
        ),
    ];
    for (id, title, action) in more {
        sample["labels"]["requirements"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": id, "title": title, "type": "functional", "actor": "system", "action": action, "source_messages": [0]}));
    }
    std::fs::write(dir.0.join("suite/s.jsonl"), format!("{sample}\n")).unwrap();
    let rules = std::fs::read_to_string(dir.0.join("thresholds.toml")).unwrap();
    let rules = format!("{rules}[metrics.\"extraction.f1\"]\nmin = 0.9\n");
    std::fs::write(dir.0.join("thresholds.toml"), rules).unwrap();
    let gold = json!({"requirements": sample["labels"]["requirements"]});
    let line = json!({"id": "s-0", "output": gold.to_string()});
    std::fs::write(dir.0.join("gold.jsonl"), format!("{line}\n")).unwrap();
    let env = [("SEMANTIC_TEST_KEY", KEY)];
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--replay",
            "gold.jsonl",
        ],
        &env,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = goldgate(
        &dir.0,
        &["check", "--suite", "suite", "--replay", "answers.jsonl"],
        &env,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdict: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.0.join(".goldgate/out/verdict.json")).unwrap(),
    )
    .unwrap();
    let diff = verdict["diffs"][0]["gold_vs_candidate"].as_str().unwrap();
    let lines: Vec<&str> = diff.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            "--- gold",
            "+++ candidate",
            "@@ 4 gold, 2 predicted, 2 matched @@"
        ],
        "{diff}"
    );
    let pair = lines
        .iter()
        .find(|l| l.starts_with("  REQ-001 ≈ REQ-001 ("))
        .unwrap_or_else(|| panic!("the paraphrase is one matched pair:\n{diff}"));
    let similarity: f64 = pair["  REQ-001 ≈ REQ-001 (".len()..][..4].parse().unwrap();
    assert!(similarity > 0.85, "{pair}");
    assert!(
        pair.ends_with("security | system | Account lockout: lock the account after five failed login attempts"),
        "the gold requirement follows its match: {pair}"
    );
    assert!(
        diff.contains("\n      title: Account lockout → Brute-force protection\n"),
        "the pair's differing fields: {diff}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("  REQ-002 ≈ REQ-002 (")),
        "{diff}"
    );
    assert!(
        !lines[3..].iter().any(|l| l.starts_with('+')
            || (l.starts_with('-') && !l.contains("REQ-003") && !l.contains("REQ-004"))),
        "no matched requirement reads as removed or added:\n{diff}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("- REQ-003  functional | system | Audit trail")),
        "{diff}"
    );
    drop(server);
}
