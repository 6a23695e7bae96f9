//! Change-aware reuse and the plan before the first call, for a chat pipeline on the example
//! project's suite (four kinds) against a local OpenAI-compatible fake that counts its
//! calls: each kind's prompt file (`[pipeline.prompts]`) keys its own samples' cached
//! answers, so editing one kind's prompt re-sends that kind's samples only, and the check
//! says how many the change could not affect; a project's single `prompt` for every kind
//! keys every answer on it. `check --plan` prints the calls to make and their cost from the
//! baseline's, and `--max-cost` below the cheapest completion stops before any call
//! (exit 3); the fake receives nothing from either.

use std::path::{Path, PathBuf};

use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::text;
use crate::support::project::goldgate;
use crate::support::TempDir;

/// Copy `from` into `to`, recursively.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        match path.is_dir() {
            true => copy(&path, &to.join(entry.file_name())),
            false => {
                std::fs::copy(&path, to.join(entry.file_name())).unwrap();
            }
        }
    }
}

/// The example project's suite, and each of its kinds' built-in prompt as the project's
/// own file `prompts/KIND.j2` (named under `[pipeline.prompts]` when `by_kind`, else one
/// `prompts/user.j2` for every kind). The kinds, with their sample counts.
fn project(dir: &Path, base_url: &str, by_kind: bool) -> Vec<(String, usize)> {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/requirements/suite");
    copy(&example, &dir.join("suite"));
    std::fs::create_dir_all(dir.join("prompts")).unwrap();
    let mut kinds = Vec::new();
    let mut table = String::new();
    for entry in std::fs::read_dir(dir.join("suite")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(kind) = goldgate_core::kinds::named(&name) else {
            continue;
        };
        let samples = std::fs::read_dir(entry.path()).unwrap().count();
        let prompt = goldgate_core::kinds::of(kind)
            .chat_prompts()
            .built_in
            .unwrap();
        std::fs::write(dir.join(format!("prompts/{name}.j2")), prompt).unwrap();
        table.push_str(&format!("{name} = \"prompts/{name}.j2\"\n"));
        kinds.push((name, samples));
    }
    kinds.sort();
    let prompts = match by_kind {
        true => format!("\n[pipeline.prompts]\n{table}"),
        false => {
            std::fs::write(dir.join("prompts/user.j2"), "{{ transcript }}\n").unwrap();
            "prompt = \"prompts/user.j2\"\n".to_string()
        }
    };
    std::fs::write(
        dir.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"chat\"\nbase_url = \"{base_url}\"\nmodel = \"fake-model\"\n{prompts}\n[check]\nsuite = \"suite\"\n"
        ),
    )
    .unwrap();
    kinds
}

/// `goldgate run` in `dir`: the calls the fake received, and what goldgate said.
fn run(dir: &Path, server: &FakeOpenAi) -> (usize, String) {
    let before = server.calls().len();
    let out = goldgate(
        dir,
        &["run", "--jobs", "4"],
        &[("OPENAI_API_KEY", "sk-test")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (server.calls().len() - before, said)
}

/// Every answer holds every kind's keys, empty; 1,000 prompt and 200 completion tokens
/// each.
fn fake() -> FakeOpenAi {
    let keys: serde_json::Map<String, serde_json::Value> = goldgate_core::kinds::listed()
        .flat_map(|k| goldgate_core::kinds::of(k).answer_keys())
        .map(|key| (key.to_string(), serde_json::json!([])))
        .collect();
    let answer = serde_json::Value::Object(keys).to_string();
    FakeOpenAi::start(move |_| Reply::content(answer.clone()).usage(1000, 200))
}

fn append(path: PathBuf, line: &str) {
    let mut body = std::fs::read_to_string(&path).unwrap();
    body.push_str(line);
    std::fs::write(path, body).unwrap();
}

#[test]
fn editing_one_kinds_prompt_resends_that_kinds_samples_only() {
    let tmp = TempDir::new("prompt-reuse");
    let server = fake();
    let kinds = project(&tmp.0, &server.base_url(), true);
    assert!(kinds.len() >= 3, "{kinds:?}");
    let total: usize = kinds.iter().map(|(_, n)| n).sum();
    assert_eq!(
        run(&tmp.0, &server).0,
        total,
        "the first run calls for every sample"
    );
    assert_eq!(
        run(&tmp.0, &server).0,
        0,
        "an unchanged pipeline is answered from the cache"
    );
    for (kind, samples) in &kinds {
        append(tmp.0.join(format!("prompts/{kind}.j2")), "\nBe brief.\n");
        let (calls, said) = run(&tmp.0, &server);
        assert_eq!(
            calls, *samples,
            "editing {kind}'s prompt re-sends its samples only"
        );
        assert!(
            said.contains(&format!("{} from the cache", total - samples)),
            "the others are reused, and said: {said}"
        );
    }
}

#[test]
fn one_prompt_for_every_kind_keys_every_answer_on_it() {
    let tmp = TempDir::new("prompt-reuse-one");
    let server = fake();
    let kinds = project(&tmp.0, &server.base_url(), false);
    let total: usize = kinds.iter().map(|(_, n)| n).sum();
    assert_eq!(run(&tmp.0, &server).0, total);
    append(tmp.0.join("prompts/user.j2"), "Be brief.\n");
    assert_eq!(
        run(&tmp.0, &server).0,
        total,
        "its edit re-sends everything"
    );
}

#[test]
fn the_plan_and_the_budget_make_no_call() {
    let tmp = TempDir::new("prompt-reuse-plan");
    let server = fake();
    let kinds = project(&tmp.0, &server.base_url(), true);
    // $1 per million tokens in and $5 out: $0.002 a call.
    append(
        tmp.0.join("goldgate.toml"),
        "\n[pipeline.pricing]\ninput_per_mtok = 1.0\noutput_per_mtok = 5.0\n",
    );
    let key = [("OPENAI_API_KEY", "sk-test")];
    let refresh = goldgate(&tmp.0, &["baseline", "refresh"], &key);
    assert!(refresh.status.success(), "{}", text(&refresh.stderr));
    let total: usize = kinds.iter().map(|(_, n)| n).sum();
    let sent = server.calls().len();
    assert_eq!(sent, total);
    let (kind, samples) = &kinds[0];
    append(tmp.0.join(format!("prompts/{kind}.j2")), "\nBe brief.\n");
    let plan = goldgate(&tmp.0, &["check", "--plan"], &key);
    assert!(plan.status.success(), "{}", text(&plan.stderr));
    let said = text(&plan.stdout);
    let row = said
        .lines()
        .find(|l| l.starts_with(kind.as_str()))
        .unwrap_or_else(|| panic!("no row for {kind}:\n{said}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    // kind, samples, from the cache, to send, expected tokens, expected cost
    assert_eq!(
        cells[1..4],
        [samples.to_string(), "0".into(), samples.to_string()],
        "{said}"
    );
    let cost = format!("${:.4}", 0.002 * *samples as f64);
    assert_eq!(cells[5], cost, "{said}");
    assert!(said.contains("sequentially"), "{said}");
    let json = goldgate(&tmp.0, &["check", "--plan", "--format", "json"], &key);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["samples"], total);
    // Not even the cheapest completion fits: stopped before the first call.
    let over = goldgate(&tmp.0, &["check", "--max-cost", "0.001"], &key);
    assert_eq!(over.status.code(), Some(3), "{}", text(&over.stderr));
    assert!(
        text(&over.stderr).contains("no call was made"),
        "{}",
        text(&over.stderr)
    );
    assert_eq!(
        server.calls().len(),
        sent,
        "neither the plan nor the refusal called the model"
    );
}
