//! Change-aware reuse for a chat pipeline, on the example project's suite (four kinds)
//! against a local OpenAI-compatible fake that counts its calls: each kind's prompt file
//! (`[pipeline.prompts]`) keys its own samples' cached answers, so editing one kind's prompt
//! re-sends that kind's samples only, and the check says how many the change could not
//! affect; a project's single `prompt` for every kind keys every answer on it, so editing
//! it re-sends everything.

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

fn fake() -> FakeOpenAi {
    FakeOpenAi::start(|_| Reply::content("{\"requirements\": []}"))
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
