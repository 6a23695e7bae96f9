// Shared pieces of the end-to-end tests: the goldgate binary, a copy of the example suite
// in a temporary directory, `goldgate annotate` started on a free port, one headless
// Chromium (the system's, never a downloaded one) for a whole test file, and the steps the
// browser tests share (open a view, fill a requirement, wait for a save).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import YAML from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXAMPLE = path.join(ROOT, 'examples', 'requirements');

// The binary `cargo test` built (GOLDGATE_BIN), else target/debug/goldgate.
export function goldgateBin() {
  const bin = process.env.GOLDGATE_BIN || path.join(ROOT, 'target', 'debug', 'goldgate');
  if (!fs.existsSync(bin)) throw new Error(`goldgate is not built: ${bin} (set GOLDGATE_BIN or run cargo build)`);
  return bin;
}

export function chromiumPath() {
  return process.env.CHROMIUM || '/usr/bin/chromium';
}

const tmpDirs = [];
process.on('exit', () => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'goldgate-e2e-') {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(d);
  return d;
}

// A copy of examples/requirements (the project: goldgate.toml, suite/, answers/ …).
export function copyProject() {
  const dir = path.join(tempDir(), 'requirements');
  fs.cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

// A copy of examples/requirements/suite alone.
export function copySuite() {
  const dir = path.join(tempDir(), 'suite');
  fs.cpSync(path.join(EXAMPLE, 'suite'), dir, { recursive: true });
  return dir;
}

// A suite of the given example files only (paths relative to examples/requirements/suite).
export function smallSuite(files) {
  const dir = path.join(tempDir(), 'small');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(EXAMPLE, 'suite', 'suite.toml'), path.join(dir, 'suite.toml'));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(EXAMPLE, 'suite', f), path.join(dir, f));
  }
  return dir;
}

// Starts `goldgate annotate DIR ARGS…` on a free port and resolves once it printed its
// address. `stop()` ends it (SIGTERM, then SIGKILL) and resolves when it has exited.
export function startAnnotate(dir, args = [], { cwd } = {}) {
  const all = ['annotate', dir, '--port', '0', ...args];
  const child = spawn(goldgateBin(), all, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`goldgate annotate printed no address in 15 s\nstdout: ${out}\nstderr: ${err}`)), 15000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /goldgate annotate: (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr.on('data', (b) => {
      err += b;
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`goldgate ${all.join(' ')} exited with ${code}\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return ready.then((url) => {
    const u = new URL(url);
    return {
      url,
      // The address to connect to (a server bound to 0.0.0.0 is reached on loopback).
      base: `http://127.0.0.1:${u.port}`,
      token: u.searchParams.get('token'),
      stdout: () => out,
      stderr: () => err,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(t);
        }
      },
    };
  });
}

// `goldgate ARGS…` → {code, stdout, stderr}.
export function goldgate(args) {
  try {
    const stdout = execFileSync(goldgateBin(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stdout, stderr: '' };
  } catch (e) {
    return { code: e.status, stdout: String(e.stdout || ''), stderr: String(e.stderr || '') };
  }
}

let browserPromise = null;

// One Chromium for the whole test file: headless, no network beyond loopback, and a fresh
// temporary profile (--user-data-dir) that is removed at exit.
export function browser() {
  if (!browserPromise) {
    const profile = tempDir('goldgate-chromium-');
    browserPromise = chromium
      .launchPersistentContext(profile, {
        executablePath: chromiumPath(),
        headless: true,
        viewport: { width: 1280, height: 800 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      .then((context) => ({ context }));
  }
  return browserPromise;
}

export async function closeBrowser() {
  if (browserPromise) {
    const { context } = await browserPromise;
    browserPromise = null;
    await context.close();
  }
}

// A new page that records every dialog, page error and console error (a test fails on any).
export async function newPage() {
  const { context } = await browser();
  await context.clearCookies();
  const page = await context.newPage();
  page.problems = [];
  page.on('dialog', (d) => {
    page.problems.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A refused request (409, 422 …) is logged by the browser itself; the page handles it.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) page.problems.push(`console: ${m.text()}`);
  });
  return page;
}

// Where the original text and the new text differ: the longest common prefix and suffix
// (not overlapping), and the inserted text between them.
export function splitInsert(before, after) {
  let p = 0;
  const max = Math.min(before.length, after.length);
  while (p < max && before[p] === after[p]) p++;
  let s = 0;
  while (s < max - p && before[before.length - 1 - s] === after[after.length - 1 - s]) s++;
  let q = after.length - s;
  // A pure insertion can slide left while the text before it equals its own end: slide it
  // to the start of a line, so the inserted text is whole lines.
  if (before.length - s === p) {
    while (p > 0 && after[p - 1] !== '\n' && after[p - 1] === after[q - 1]) {
      p--;
      q--;
    }
  }
  return { prefix: p, suffix: after.length - q, removed: before.slice(p, before.length - (after.length - q)), inserted: after.slice(p, q) };
}

// For a browser test file: its Chromium is opened before its tests and closed after them;
// `serve(dir, args)` starts a `goldgate annotate` that is stopped when they are done.
export function browserTests() {
  const servers = [];
  before(async () => {
    await browser();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await closeBrowser();
  });
  return async function serve(dir, args) {
    const s = await startAnnotate(dir, args);
    servers.push(s);
    return s;
  };
}

export const ptr = (p) => `[data-ptr="${p}"]`;

// Opens a view and waits until the page shows it (not the view it had before).
export async function open(page, server, hash) {
  await page.goto(`${server.url}${hash}`);
  await page.waitForSelector(`main[data-route="${hash}"] h1`);
}

export async function openSample(page, server, id) {
  await open(page, server, `#/sample/${id}`);
  await page.waitForSelector(`main h1:text-is("${id}")`);
}

// Fills requirement i of the form with the mouse (clicks, typing into fields, choosing
// options) and marks its source messages by clicking them.
export async function fillRequirement(page, i, r) {
  const p = `/requirements/${i}`;
  await page.click(ptr(`${p}/id`));
  await page.fill(ptr(`${p}/id`), r.id);
  await page.selectOption(ptr(`${p}/type`), r.type);
  await page.fill(ptr(`${p}/title`), r.title);
  await page.fill(ptr(`${p}/actor`), r.actor);
  await page.selectOption(ptr(`${p}/priority`), r.priority);
  await page.fill(ptr(`${p}/action`), r.action);
  if (r.condition) await page.fill(ptr(`${p}/condition`), r.condition);
  for (let j = 0; j < r.acceptance_criteria.length; j++) {
    if (!(await page.$(ptr(`${p}/acceptance_criteria/${j}`)))) await page.click(ptr(`${p}/acceptance_criteria#add`));
    await page.fill(ptr(`${p}/acceptance_criteria/${j}`), r.acceptance_criteria[j]);
  }
  for (const m of r.source_messages || []) await page.click(`[data-msg="${m}"]`);
}


export function readYaml(file) {
  return YAML.parse(fs.readFileSync(file, 'utf8'));
}

// After a save's response, the page has handled it once it says so.
export const savedShown = (page) => page.waitForSelector('.actionbar .status.good:has-text("Saved at")');

export function assertNoProblems(page) {
  assert.deepEqual(page.problems, [], 'the page raised dialogs or errors');
}

// A copy of examples/requirements as a git repository whose baseline has `versions`
// committed versions, a day apart from 2026-10-01: extraction.f1 and extraction.recall
// falling by a steady step each, the first pinned as the drift reference ([drift] in
// thresholds.toml), and one version a drift accepted into. Resolves to the project
// directory; `env` is the environment git runs in (fixed dates make the commits the same on
// every run).
export function historyProject(versions = 10, env = process.env) {
  const dir = copyProject();
  const identity = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'nightly', GIT_AUTHOR_EMAIL: 'nightly@example.com', GIT_COMMITTER_NAME: 'nightly', GIT_COMMITTER_EMAIL: 'nightly@example.com' };
  const git = (...args) => {
    const date = args.find((a) => a.startsWith('--date='))?.slice(7);
    const dates = date ? { GIT_COMMITTER_DATE: date } : {};
    execFileSync('git', args, { cwd: dir, env: { ...env, ...identity, ...dates }, stdio: 'ignore' });
  };
  const file = path.join(dir, 'baselines', 'main.json');
  const base = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'the example project');
  for (let i = 0; i < versions; i++) {
    const day = new Date(Date.UTC(2026, 9, 1 + i, 3)).toISOString().replace(/\.\d+Z$/, 'Z');
    const version = structuredClone(base);
    version.provenance.created_at = day;
    for (const [name, step] of [['extraction.f1', 0.012], ['extraction.recall', 0.015]]) {
      const m = version.metrics[name];
      const value = m.value - step * i + (i % 3 === 1 ? 0.004 : 0);
      m.value = value;
      m.ci = [value - 0.04, Math.min(1, value + 0.035)];
    }
    if (i === 6) {
      version.provenance.accepted_drift = { by: 'octo-reviewer', reason: 'the new tokenizer trades recall for cost', reference: 'baselines/reference.json', reference_created_at: base.provenance.created_at, drifts: ['extraction.recall: 0.090 below the reference of 2026-10-01 (budget 0.075), 6 refreshes ago'] };
    }
    fs.writeFileSync(file, JSON.stringify(version, null, 2) + '\n');
    if (i === 0) {
      fs.copyFileSync(file, path.join(dir, 'baselines', 'reference.json'));
      fs.appendFileSync(path.join(dir, 'thresholds.toml'), '\n[drift]\nreference = "baselines/reference.json"\n');
    }
    git('add', '-A');
    git('commit', '-q', '-m', i === 0 ? 'nightly baseline 1, pinned as the reference' : `nightly baseline ${i + 1}`, `--date=${day}`);
  }
  return dir;
}

// Text that falls short of WCAG AA contrast on a page (4.5:1, 3:1 for large text), against
// the nearest opaque background (an SVG text's figure's): the first five, described.
export function lowContrast(page) {
  return page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const ch = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
    };
    const background = (e) => {
      for (; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !e.getClientRects().length || e.closest('title')) continue;
      const style = getComputedStyle(e);
      const svg = e instanceof SVGElement;
      const fg = rgb(svg ? style.fill : style.color).slice(0, 3);
      const [a, b] = [lum(fg), lum(background(svg ? e.closest('figure') : e))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${e.tagName}.${e.className.baseVal ?? e.className} ${ratio.toFixed(2)}: ${e.textContent.trim().slice(0, 40)}`);
    }
    return [...new Set(out)].slice(0, 5);
  });
}

// Elements that reach past the page's right edge, outside a scrolling box: the first three.
export function pastTheEdge(page) {
  return page.evaluate(() => {
    const right = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > right + 0.5 && !e.parentElement?.closest('.scroll'))
      .slice(0, 3)
      .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 60)}`);
  });
}
