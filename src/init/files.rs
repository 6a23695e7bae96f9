//! The files of a new project, rendered for its task kinds and pipeline: the templates under
//! `templates/init/` (built into the binary; minijinja, with `pipeline`, `kinds` and `docs`,
//! the address of goldgate's documentation, and what [`context`] says of the kinds), which
//! name no kind: each includes, for each of the project's kinds, the part its folder holds
//! (`TaskKind::init_files`, registered as `KIND/thresholds.toml` and so on). Then each
//! kind's samples (its template holds them all, cut at `---` lines into one file each), the
//! stub's answers to them (see [`super::stub`]), the workflows (see [`super::workflows`])
//! and, for a `chat` pipeline, its prompts made from the built-in ones, one branch per kind.

use std::path::PathBuf;

use minijinja::{context, Environment, UndefinedBehavior, Value};

use super::{workflows, Pipeline};
use goldgate_core::error::{Error, Result};
use goldgate_core::kinds::{TaskKind, ALL};
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
fn samples(
    kind: &dyn TaskKind,
    rendered: &str,
) -> Result<Vec<(String, String, serde_json::Value)>> {
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
                Error::internal(format!("the init samples of {}: {what}", name(kind)))
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
    let kinds: Vec<&'static dyn TaskKind> = ALL
        .iter()
        .copied()
        .filter(|k| kinds.contains(&goldgate_core::kinds::kind_of(*k)))
        .collect();
    if kinds.is_empty() {
        let names: Vec<&str> = ALL.iter().map(|k| name(*k)).collect();
        return Err(Error::usage(
            "goldgate init needs at least one task kind",
            format!("pass --kind {} (or {})", names[0], names[1..].join(", ")),
        ));
    }
    let env = environment();
    let ctx = context(&kinds, pipeline);
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
        for (id, text, value) in samples(*kind, &render(name(*kind))?)? {
            files.push(file(format!("suite/{}/{id}.yaml", name(*kind)), text));
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

/// A kind's name, as samples, `--kind` and the templates name it.
fn name(kind: &dyn TaskKind) -> &'static str {
    kind.name()
}

/// What the templates are rendered with: the pipeline, the kinds' names in goldgate's
/// order, the address of the docs, and what the shared parts need to know of the kinds —
/// whether one's metrics follow `[matching]` (`matching`), the kinds with settings
/// (`settings`) or a part of `suite.toml` (`suites`) of their own, the pages of the docs on
/// their samples (`guides`: `page` and `about`), and the example the comments cite (the
/// first kind of the registry, `init`'s default: `example.kind`, `.primary`, `.misnamed`
/// and `.key`).
fn context(kinds: &[&'static dyn TaskKind], pipeline: Pipeline) -> Value {
    let having = |part: fn(&dyn TaskKind) -> bool| -> Vec<&str> {
        kinds
            .iter()
            .filter(|k| part(**k))
            .map(|k| name(*k))
            .collect()
    };
    let guides: Vec<Value> = kinds
        .iter()
        .filter_map(|k| k.init_files().guide)
        .map(|(page, about)| context! { page, about })
        .collect();
    let first = ALL[0];
    let (primary, misnamed) = first.init_files().example;
    context! {
        pipeline => pipeline.as_str(),
        kinds => kinds.iter().map(|k| name(*k)).collect::<Vec<_>>(),
        docs => DOCS,
        matching => kinds.iter().any(|k| k.init_files().matching),
        settings => having(|k| k.init_files().settings.is_some()),
        suites => having(|k| k.init_files().suite.is_some()),
        guides,
        example => context! {
            kind => name(first),
            primary,
            misnamed,
            key => first.answer_keys().first().copied().unwrap_or_default(),
        },
    }
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
    // Each kind's example samples, from its folder, under the kind's name, and its parts of
    // the shared files as `KIND/FILE`.
    for &kind in ALL {
        let kind_name = name(kind);
        let files = kind.init_files();
        let parts = [
            ("", Some(kind.example_samples())),
            ("/thresholds.toml", Some(files.thresholds)),
            ("/settings.toml", files.settings),
            ("/pipeline.py", Some(files.stub)),
            ("/suite.toml", files.suite),
        ];
        for (file, source) in parts {
            let Some(source) = source else { continue };
            let template = format!("{kind_name}{file}");
            env.add_template_owned(template.clone(), source)
                .unwrap_or_else(|e| panic!("the init template {template} does not parse: {e:#}"));
        }
    }
    env
}

/// `prompts/system.j2`: the built-in system prompt, and a branch for each kind with a
/// system prompt of its own.
fn system_prompt(kinds: &[&dyn TaskKind]) -> String {
    let header = "{# The system prompt of every sample (goldgate.toml: system). A minijinja template;\n   the variables it can use are in goldgate's docs/pipelines.md#prompts. -#}\n";
    let built_in = goldgate_run::chat::prompts::BUILT_IN_SYSTEM.trim_end();
    let own: Vec<(&str, &str)> = kinds
        .iter()
        .filter_map(|k| Some((name(*k), k.chat_prompts().system?)))
        .collect();
    let body = match (own.as_slice(), kinds.len()) {
        ([], _) => format!("{built_in}\n"),
        ([(_, system)], 1) => format!("{}\n", system.trim_end()),
        _ => {
            let mut out = String::new();
            for (i, (kind, system)) in own.iter().enumerate() {
                let tag = if i == 0 { "{% if" } else { "{%- elif" };
                out.push_str(&format!(
                    "{tag} kind == \"{kind}\" -%}}\n{}\n",
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
fn user_prompt(kinds: &[&dyn TaskKind]) -> String {
    let mut out = String::from(
        "{# The prompt each sample is rendered into (goldgate.toml: prompt), one branch per task\n   kind: a kind you add to the suite needs one. A minijinja template; the variables it can\n   use are in goldgate's docs/pipelines.md#prompts. -#}\n",
    );
    for (i, kind) in kinds.iter().enumerate() {
        let source = kind.chat_prompts().starter;
        let tag = if i == 0 { "{% if" } else { "{%- elif" };
        out.push_str(&format!(
            "{tag} kind == \"{}\" -%}}\n{}\n",
            name(*kind),
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

    /// Every kind, as a plan names it.
    fn all() -> Vec<Kind> {
        goldgate_core::kinds::all().collect()
    }

    /// The paths of the sample files among `files`, in order.
    fn sample_paths(files: &[File]) -> Vec<String> {
        files
            .iter()
            .map(|f| f.path.display().to_string())
            .filter(|p| p.ends_with(".yaml"))
            .collect()
    }

    #[test]
    fn every_template_renders_for_every_kind_and_pipeline() {
        for pipeline in Pipeline::ALL {
            for kind in all() {
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

    /// A kind's part of a new project comes from its folder: the shared templates loop over
    /// the project's kinds and name none of them, so a kind added to the registry needs no
    /// edit here.
    #[test]
    fn the_shared_templates_name_no_kind() {
        for (name, source) in TEMPLATES.iter().chain(WORKFLOWS) {
            for &kind in ALL {
                let kind = kind.name();
                assert!(
                    !source.contains(kind),
                    "templates/init/{name} names the kind {kind}: move it to the kind's folder"
                );
            }
        }
    }

    /// Each kind's parts are written for the projects that have it, and only for those:
    /// its rules, its own settings, its stub function and its part of `suite.toml`.
    #[test]
    fn each_kind_brings_its_own_parts() {
        let text = |files: &[File], path: &str| {
            files
                .iter()
                .find(|f| f.path.as_os_str() == path)
                .map(|f| f.text.clone())
                .unwrap()
        };
        let with = scaffold(&all(), Pipeline::Command).unwrap();
        for &kind in ALL {
            let own = kind.init_files();
            let others: Vec<Kind> = all()
                .into_iter()
                .filter(|k| *k != goldgate_core::kinds::kind_of(kind))
                .collect();
            let without = scaffold(&others, Pipeline::Command).unwrap();
            let first_line = |part: &str| part.lines().next().unwrap_or_default().to_string();
            let parts = [
                ("thresholds.toml", Some(own.thresholds)),
                ("thresholds.toml", own.settings),
                ("pipeline.py", Some(own.stub)),
                ("suite/suite.toml", own.suite),
            ];
            for (path, part) in parts {
                let Some(part) = part else { continue };
                let line = first_line(part);
                assert!(text(&with, path).contains(&line), "{path}: {line}");
                assert!(!text(&without, path).contains(&line), "{path}: {line}");
            }
            let stub = format!("def {}(request):", kind.name());
            assert!(own.stub.starts_with(&stub), "{stub}");
        }
        // `[matching]` is written when a kind of the project's metrics follow it.
        for &kind in ALL {
            let files = scaffold(&[goldgate_core::kinds::kind_of(kind)], Pipeline::Http).unwrap();
            let thresholds = text(&files, "thresholds.toml");
            assert_eq!(
                thresholds.contains("\n[matching]\n"),
                kind.init_files().matching,
                "{}",
                kind.name()
            );
        }
    }

    #[test]
    fn kinds_come_in_goldgate_order_once() {
        let (first, last) = (
            goldgate_core::kinds::kind_of(ALL[0]),
            goldgate_core::kinds::kind_of(ALL[ALL.len() - 1]),
        );
        let files = scaffold(&[last, first, last], Pipeline::Http).unwrap();
        let expected: Vec<String> = [first, last]
            .iter()
            .flat_map(|k| sample_paths(&scaffold(&[*k], Pipeline::Http).unwrap()))
            .collect();
        assert_eq!(sample_paths(&files), expected);
        assert_eq!(expected.len(), 2 * SAMPLES_PER_KIND);
        assert!(expected[..SAMPLES_PER_KIND]
            .iter()
            .all(|p| p.starts_with(&format!("suite/{}/", first.as_str()))));
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
        let files = scaffold(&all(), Pipeline::Command).unwrap();
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
        for kind in all() {
            let dir = format!("suite/{}/", kind.as_str());
            let samples: Vec<&File> = files
                .iter()
                .filter(|f| f.path.display().to_string().starts_with(&dir))
                .collect();
            assert!(samples[0].text.starts_with("# "), "{}", samples[0].text);
            let second = samples[1];
            let id = second.path.file_stem().unwrap().to_str().unwrap();
            assert!(
                second.text.starts_with(&format!("id: {id}\n")),
                "{}",
                second.text
            );
        }
    }

    /// The chat prompts render each kind's sample into its built-in prompt (the one its
    /// folder starts a project with, for a kind with none), exactly as goldgate renders the
    /// built-in ones, and into its own system prompt, for a kind with one.
    #[test]
    fn the_chat_prompts_branch_on_the_kind() {
        let tmp = tempfile::tempdir().unwrap();
        let files = scaffold(&all(), Pipeline::Chat).unwrap();
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
        let built_in_system =
            Template::builtin("system", goldgate_run::chat::prompts::BUILT_IN_SYSTEM);
        for &kind in ALL {
            let name = kind.name();
            let sample = files
                .iter()
                .find(|f| f.path.starts_with(format!("suite/{name}")))
                .unwrap();
            let mut request = goldgate_core::document::parse_yaml(&sample.text)
                .unwrap()
                .value;
            request.as_object_mut().unwrap().remove("labels");
            let context = goldgate_run::chat::prompts::context(&request);
            let prompts = kind.chat_prompts();
            let built_in = Template::builtin(name, prompts.built_in.unwrap_or(prompts.starter));
            assert_eq!(
                user.render(&context).unwrap(),
                built_in.render(&context).unwrap().trim_end().to_string() + "\n",
                "{name}"
            );
            let own = prompts.system.map(|s| Template::builtin(name, s));
            assert_eq!(
                system.render(&context).unwrap().trim_end(),
                own.as_ref()
                    .unwrap_or(&built_in_system)
                    .render(&context)
                    .unwrap()
                    .trim_end(),
                "{name}"
            );
        }
        // Both branches of the system prompt are tried.
        assert!(ALL.iter().any(|k| k.chat_prompts().system.is_some()));
        assert!(ALL.iter().any(|k| k.chat_prompts().system.is_none()));
    }
}
