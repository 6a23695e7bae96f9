//! Provenance says what changed: between a baseline and a candidate made by different
//! pipelines, the terminal, the PR comment and the HTML report name what differs (the prompt files, the
//! settings, the model) rather than two fingerprints, from what the score files record of
//! each pipeline's fingerprint.

use serde_json::Value;

use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::project::{goldgate, test_suite};
use crate::support::{test_kind, TempDir};

/// The model's answer to every sample: the test kind's mark `Track orders`.
fn answer() -> String {
    test_kind::answer(&["Track orders"]).to_string()
}

#[test]
fn the_comment_and_the_terminal_name_what_changed_in_the_pipeline() {
    let dir = TempDir::new("provenance-changes");
    test_suite(&dir.0, 2);
    std::fs::create_dir_all(dir.0.join("prompts")).unwrap();
    let prompt = dir.0.join("prompts/answer.j2");
    std::fs::write(&prompt, "Extract the requirements:\n{{ transcript }}\n").unwrap();
    let server = FakeOpenAi::start(|_| Reply::content(answer()));
    let base = server.base_url();
    let env = [("OPENAI_API_KEY", "sk-test")];
    let common = |model: &'static str| {
        let mut args = vec!["--suite", "suite", "--chat", "--base-url"];
        args.push(Box::leak(base.clone().into_boxed_str()));
        args.extend(["--model", model, "--prompt", "prompts/answer.j2"]);
        args.extend(["--baseline", "base.json", "--temperature", "0"]);
        args
    };
    let mut refresh = vec!["baseline", "refresh"];
    refresh.extend(common("gpt-4o-mini"));
    let out = goldgate(&dir.0, &refresh, &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("base.json")).unwrap()).unwrap();
    assert!(
        baseline["provenance"]["pipeline"]["files"]
            .as_object()
            .is_some_and(|f| f.keys().any(|k| k.ends_with("answer.j2"))),
        "the score file records the prompt file's hash: {}",
        baseline["provenance"]
    );
    std::fs::write(&prompt, "Extract every requirement:\n{{ transcript }}\n").unwrap();
    let want = "pipeline changed: prompts/answer.j2, [pipeline] model (gpt-4o-mini → gpt-4.1-mini)";
    for format in ["text", "markdown", "html"] {
        let mut check = vec!["check", "--format", format, "--out-dir", format];
        check.extend(common("gpt-4.1-mini"));
        let out = goldgate(&dir.0, &check, &env);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let shown = match format {
            "markdown" => want.replace('[', "\\[").replace(']', "\\]"),
            _ => want.to_string(),
        };
        assert!(
            stdout.contains(&shown),
            "{format}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.contains("pipeline: sha256:"),
            "{format}: the fingerprints are not what a reader needs: {stdout}"
        );
    }
}
