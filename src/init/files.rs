//! The files of a new project, rendered for its task kinds and pipeline: the templates under
//! `templates/init/` (built into the binary; minijinja, with `pipeline`, `kinds` and `docs`,
//! the address of goldgate's documentation), each kind's samples (its template holds them
//! all, cut at `---` lines into one file each), the stub's answers to them (see
//! [`super::stub`]), the workflows (see [`super::workflows`]) and, for a `chat` pipeline, its
//! prompts made from the built-in ones, one branch per kind.

use std::path::PathBuf;

use minijinja::{context, Environment, UndefinedBehavior};

use super::{workflows, Pipeline};
use goldgate_core::error::{Error, Result};
use goldgate_core::sample::Kind;

/// One file of the scaffold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Relative to the project directory.
    pub path: PathBuf,
    pub text: String,
}

/// goldgate's documentation, which the files' comments point to.
const DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs");

/// The rendered templates: (name, source).
const TEMPLATES: &[(&str, &str)] = &[
    (
        "goldgate.toml",
        include_str!("../../templates/init/goldgate.toml.j2"),
    ),
    (
        "thresholds.toml",
        include_str!("../../templates/init/thresholds.toml.j2"),
    ),
    (
        "suite/suite.toml",
        include_str!("../../templates/init/suite/suite.toml.j2"),
    ),
    (
        "pipeline.py",
        include_str!("../../templates/init/pipeline.py.j2"),
    ),
    (
        "GOLDGATE.md",
        include_str!("../../templates/init/GOLDGATE.md.j2"),
    ),
];

/// The workflows, as written for every pipeline kind but the lines marked for others.
const WORKFLOWS: &[(&str, &str)] = &[
    (
        "goldgate.yml",
        include_str!("../../templates/init/workflows/goldgate.yml"),
    ),
    (
        "goldgate-publish.yml",
        include_str!("../../templates/init/workflows/goldgate-publish.yml"),
    ),
    (
        "goldgate-nightly.yml",
        include_str!("../../templates/init/workflows/goldgate-nightly.yml"),
    ),
];

/// The samples a kind's template holds, each written to `suite/KIND/ID.yaml`: the rendered
/// template cut at every `---` line, each part with its id and its value (the first part
/// keeps the comment that explains the kind's samples).
fn samples(kind: Kind, rendered: &str) -> Result<Vec<(String, String, serde_json::Value)>> {
    let mut parts = vec![String::new()];
    for line in rendered.split_inclusive('\n') {
        match line.trim_end() == "---" {
            true => parts.push(String::new()),
            false => parts.last_mut().map_or((), |p| p.push_str(line)),
        }
    }
    parts
        .into_iter()
        .map(|text| {
            let bug = |what: String| {
                Error::internal(format!("the init samples of {}: {what}", kind.as_str()))
            };
            let value = goldgate_core::document::parse_yaml(&text)
                .map_err(|e| bug(e.message))?
                .value;
            let id = value["id"]
                .as_str()
                .ok_or_else(|| bug("a sample without an id".into()))?
                .to_string();
            Ok((id, text, value))
        })
        .collect()
}

/// Every file of a project with these task kinds (in goldgate's order, each once) and this
/// pipeline, in the order they are listed.
pub fn scaffold(kinds: &[Kind], pipeline: Pipeline) -> Result<Vec<File>> {
    let kinds: Vec<Kind> = goldgate_core::kinds::all()
        .filter(|k| kinds.contains(k))
        .collect();
    if kinds.is_empty() {
        return Err(Error::usage(
            "goldgate init needs at least one task kind",
            "pass --kind extraction (or inference, validation, e2e, tuples)",
        ));
    }
    let env = environment();
    let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let ctx = context! { pipeline => pipeline.as_str(), kinds => names, docs => DOCS };
    let render = |name: &str| -> Result<String> {
        env.get_template(name)
            .and_then(|t| t.render(&ctx))
            .map_err(|e| Error::internal(format!("the init template {name}: {e:#}")))
    };
    let file = |path: String, text: String| File {
        path: PathBuf::from(path),
        text,
    };
    let mut files = vec![
        file("goldgate.toml".into(), render("goldgate.toml")?),
        file("thresholds.toml".into(), render("thresholds.toml")?),
        file("suite/suite.toml".into(), render("suite/suite.toml")?),
    ];
    let mut answered = Vec::new();
    for kind in &kinds {
        for (id, text, value) in samples(*kind, &render(kind.as_str())?)? {
            files.push(file(format!("suite/{}/{id}.yaml", kind.as_str()), text));
            answered.push((*kind, value));
        }
    }
    match pipeline {
        Pipeline::Command => {
            let ctx = context! { examples => super::stub::examples(&answered), ..ctx.clone() };
            let text = env
                .get_template("pipeline.py")
                .and_then(|t| t.render(&ctx))
                .map_err(|e| Error::internal(format!("the init template pipeline.py: {e:#}")))?;
            files.push(file("pipeline.py".into(), text));
        }
        Pipeline::Chat => {
            files.push(file("prompts/system.j2".into(), system_prompt(&kinds)));
            files.push(file("prompts/user.j2".into(), user_prompt(&kinds)));
        }
        Pipeline::Http => {}
    }
    for (name, template) in WORKFLOWS {
        files.push(file(
            format!(".github/workflows/{name}"),
            workflows::render(template, pipeline),
        ));
    }
    files.push(file("GOLDGATE.md".into(), render("GOLDGATE.md")?));
    Ok(files)
}

/// The templates, parsed: a line holding only a block tag leaves nothing behind, and a
/// missing variable is goldgate's bug, not an empty string.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .unwrap_or_else(|e| panic!("the init template {name} does not parse: {e:#}"));
    }
    // Each kind's example samples, from its folder, under the kind's name.
    for kind in goldgate_core::kinds::ALL {
        let name = kind.name();
        env.add_template(name, kind.example_samples())
            .unwrap_or_else(|e| panic!("the init samples of {name} do not parse: {e:#}"));
    }
    env
}

/// `prompts/system.j2`: the built-in system prompt, and a branch for each kind with a
/// system prompt of its own.
fn system_prompt(kinds: &[Kind]) -> String {
    let header = "{# The system prompt of every sample (goldgate.toml: system). A minijinja template;\n   the variables it can use are in goldgate's docs/pipelines.md#prompts. -#}\n";
    let built_in = goldgate_run::chat::prompts::BUILT_IN_SYSTEM.trim_end();
    let own: Vec<(Kind, &str)> = kinds
        .iter()
        .filter_map(|k| Some((*k, goldgate_core::kinds::of(*k).chat_prompts().system?)))
        .collect();
    let body = match (own.as_slice(), kinds.len()) {
        ([], _) => format!("{built_in}\n"),
        ([(_, system)], 1) => format!("{}\n", system.trim_end()),
        _ => {
            let mut out = String::new();
            for (i, (kind, system)) in own.iter().enumerate() {
                let tag = if i == 0 { "{% if" } else { "{%- elif" };
                out.push_str(&format!(
                    "{tag} kind == \"{}\" -%}}\n{}\n",
                    kind.as_str(),
                    system.trim_end()
                ));
            }
            if own.len() < kinds.len() {
                out.push_str(&format!("{{%- else -%}}\n{built_in}\n"));
            }
            out.push_str("{%- endif %}\n");
            out
        }
    };
    format!("{header}{body}")
}

/// `prompts/user.j2`: the prompt of each kind's samples (the one its folder starts a
/// project with), one branch per kind; a kind added to the suite needs a branch of its own.
fn user_prompt(kinds: &[Kind]) -> String {
    let mut out = String::from(
        "{# The prompt each sample is rendered into (goldgate.toml: prompt), one branch per task\n   kind: a kind you add to the suite needs one. A minijinja template; the variables it can\n   use are in goldgate's docs/pipelines.md#prompts. -#}\n",
    );
    for (i, kind) in kinds.iter().enumerate() {
        let source = goldgate_core::kinds::of(*kind).chat_prompts().starter;
        let tag = if i == 0 { "{% if" } else { "{%- elif" };
        out.push_str(&format!(
            "{tag} kind == \"{}\" -%}}\n{}\n",
            kind.as_str(),
            source.trim_end()
        ));
    }
    out.push_str("{%- endif %}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::llm::prompt::Template;
    use serde_json::json;

    #[test]
    fn every_template_renders_for_every_kind_and_pipeline() {
        for pipeline in Pipeline::ALL {
            for kind in goldgate_core::kinds::all() {
                let files = scaffold(&[kind], pipeline).unwrap();
                let paths: Vec<String> =
                    files.iter().map(|f| f.path.display().to_string()).collect();
                // Prompts are templates, and workflows hold `${{ … }}` expressions.
                let rendered =
                    |f: &&File| !["prompts", ".github"].iter().any(|d| f.path.starts_with(d));
                for f in files.iter().filter(rendered) {
                    assert!(
                        !f.text.contains("{%") && !f.text.contains("{{ "),
                        "{}: template syntax left",
                        f.path.display()
                    );
                }
                let samples = paths
                    .iter()
                    .filter(|p| p.starts_with(&format!("suite/{}/", kind.as_str())))
                    .count();
                assert_eq!(samples, SAMPLES_PER_KIND, "{paths:?}");
                assert_eq!(
                    paths.iter().any(|p| p == "pipeline.py"),
                    pipeline == Pipeline::Command
                );
            }
        }
        let e = scaffold(&[], Pipeline::Command).unwrap_err().to_string();
        assert!(e.contains("at least one task kind"), "{e}");
    }

    #[test]
    fn kinds_come_in_goldgate_order_once() {
        let files = scaffold(
            &[
                Kind::named("tuples").unwrap(),
                Kind::named("extraction").unwrap(),
                Kind::named("tuples").unwrap(),
            ],
            Pipeline::Http,
        )
        .unwrap();
        let samples: Vec<String> = files
            .iter()
            .map(|f| f.path.display().to_string())
            .filter(|p| p.ends_with(".yaml"))
            .collect();
        let expected: Vec<String> = ["extraction/ext", "tuples/tup"]
            .iter()
            .flat_map(|k| (1..=SAMPLES_PER_KIND).map(move |i| format!("suite/{k}-{i:03}.yaml")))
            .collect();
        assert_eq!(samples, expected);
    }

    /// The fewest paired samples with which a change can be significant at the default
    /// confidence: the scaffold has that many of each kind, so the first drop a new user
    /// makes is tested, not waved through as "too few samples".
    const SAMPLES_PER_KIND: usize = 6;

    #[test]
    fn every_kind_has_enough_samples_to_test_a_change_and_the_stub_answers_each() {
        let confidence = goldgate_core::gate::thresholds::Thresholds::built_in()
            .defaults()
            .confidence;
        assert_eq!(
            SAMPLES_PER_KIND,
            goldgate_core::gate::evidence::min_paired(confidence)
        );
        let files = scaffold(
            &goldgate_core::kinds::all().collect::<Vec<_>>(),
            Pipeline::Command,
        )
        .unwrap();
        let stub = &files
            .iter()
            .find(|f| f.path.as_os_str() == "pipeline.py")
            .unwrap()
            .text;
        for f in files.iter().filter(|f| f.path.starts_with("suite/")) {
            let Some(id) = f.path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if f.path.extension().is_some_and(|e| e == "yaml") {
                assert!(
                    f.text.contains(&format!("id: {id}\n")),
                    "{}",
                    f.path.display()
                );
                assert!(
                    stub.contains(&format!("\"{id}\": {{")),
                    "the stub answers {id}"
                );
            }
        }
        // Each kind's first sample keeps the comment that explains it; the others start
        // with their id.
        let first = files
            .iter()
            .find(|f| f.path.as_os_str() == "suite/extraction/ext-001.yaml")
            .unwrap();
        assert!(
            first.text.starts_with("# An extraction sample"),
            "{}",
            first.text
        );
        let second = files
            .iter()
            .find(|f| f.path.as_os_str() == "suite/extraction/ext-002.yaml")
            .unwrap();
        assert!(second.text.starts_with("id: ext-002\n"), "{}", second.text);
    }

    /// The chat prompts render each kind's sample into its built-in prompt (the tuple task's
    /// for tuples), exactly as goldgate renders the built-in ones.
    #[test]
    fn the_chat_prompts_branch_on_the_kind() {
        let tmp = tempfile::tempdir().unwrap();
        let files = scaffold(
            &goldgate_core::kinds::all().collect::<Vec<_>>(),
            Pipeline::Chat,
        )
        .unwrap();
        let load = |name: &str| {
            let f = files
                .iter()
                .find(|f| f.path.display().to_string() == format!("prompts/{name}"))
                .unwrap();
            let path = tmp.path().join(name);
            std::fs::write(&path, &f.text).unwrap();
            Template::file(&path).unwrap()
        };
        let (system, user) = (load("system.j2"), load("user.j2"));
        let extraction = json!({"kind": "extraction", "transcript": "[0] user: Track orders."});
        let built_in = Template::builtin(
            "extraction",
            goldgate_core::kinds::of(Kind::named("extraction").unwrap())
                .chat_prompts()
                .built_in
                .unwrap(),
        );
        assert_eq!(
            user.render(&extraction).unwrap(),
            built_in.render(&extraction).unwrap().trim_end().to_string() + "\n"
        );
        let tuples = json!({"kind": "tuples", "text": "The battery is great."});
        let prompt = user.render(&tuples).unwrap();
        assert!(prompt.starts_with("Find every aspect"), "{prompt}");
        assert!(prompt.contains("The battery is great.") && prompt.contains("final_tuples"));
        assert!(system
            .render(&tuples)
            .unwrap()
            .starts_with("You read texts"));
        assert!(system
            .render(&extraction)
            .unwrap()
            .starts_with("You are a senior requirements engineer"));
    }
}
