// Takes the screenshots of docs/reports.md from the example projects: the HTML report of a
// failing gate, a passing one, a tuples suite and an srs-agents run with its traces, each at
// 1280 and 1920 px (the failing and tuples reports whole at 1280, the top of the page
// otherwise), the search and filters at work, the baseline's history page (`goldgate history
// --format html`, 1280 px) and the PR comment as GitHub shows it. Run by
// `bash scripts/report-screenshot.sh`, which builds goldgate and the comment renderer first:
//   node tests/e2e/report-screenshots.mjs [OUT_DIR]      (default: docs/report)
// Each project is copied into a temporary git repository with a fixed commit, and the date
// is fixed (SOURCE_DATE_EPOCH), so the run context shown is the same on every run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { ROOT, chromiumPath, goldgateBin, historyProject, tempDir } from './harness.mjs';

const out = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'report'));
fs.mkdirSync(out, { recursive: true });
const WIDTHS = [1280, 1920];
// The date of the runs: a day after the latest committed baseline was made.
const made = ['requirements/baselines/main.json', 'requirements/baselines/srs-agents.json', 'events/baselines/main.json'].map((f) => Date.parse(JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')).provenance.created_at));
const DATE = new Date(Math.max(...made) + 86400e3).toISOString().replace(/\.\d+Z$/, 'Z');

// The environment goldgate and git run in: no CI variables, a fixed date and author.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GITHUB_') && k !== 'CI'));
Object.assign(env, {
  NO_COLOR: '1',
  SOURCE_DATE_EPOCH: String(Date.parse(DATE) / 1000),
  GIT_AUTHOR_NAME: 'example',
  GIT_AUTHOR_EMAIL: 'example@example.com',
  GIT_COMMITTER_NAME: 'example',
  GIT_COMMITTER_EMAIL: 'example@example.com',
  GIT_AUTHOR_DATE: DATE,
  GIT_COMMITTER_DATE: DATE,
});

// A copy of examples/NAME as a git repository on branch `prompt-change`, one commit.
function project(name) {
  const dir = path.join(tempDir('goldgate-shots-'), name);
  fs.cpSync(path.join(ROOT, 'examples', name), dir, { recursive: true });
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '-q', '-b', 'prompt-change');
  git('add', '-A');
  git('commit', '-q', '-m', 'the example project');
  return dir;
}

// `goldgate check` in a project → the HTML report's path and the out directory.
function check(dir, name, args) {
  const outDir = path.join(dir, '.goldgate', name);
  let html;
  try {
    html = execFileSync(goldgateBin(), ['check', '--out-dir', outDir, '--format', 'html', ...args], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (e) {
    if (e.status !== 1) throw new Error(`goldgate check ${args.join(' ')} exited ${e.status}: ${e.stderr}`);
    html = e.stdout;
  }
  const file = path.join(outDir, `${name}.html`);
  fs.writeFileSync(file, html);
  return { file, outDir };
}

const requirements = project('requirements');
const events = project('events');
const fail = check(requirements, 'fail', ['--replay', 'answers/candidate.jsonl']);
const reports = {
  fail: fail.file,
  pass: check(requirements, 'pass', []).file,
  tuples: check(events, 'tuples', ['--replay', 'answers/candidate.jsonl']).file,
  trace: check(requirements, 'trace', ['--config', 'srs-agents.toml', '--replay', 'answers/srs-agents.jsonl']).file,
};
// The baseline's history: ten nightly versions, the first pinned, a drift accepted.
const historyDir = historyProject(10, env);
const history = path.join(historyDir, 'history.html');
fs.writeFileSync(history, execFileSync(goldgateBin(), ['history', '--format', 'html'], { cwd: historyDir, env, encoding: 'utf8' }));
// The PR comment of the failing gate, as GitHub shows it.
const renderer = process.env.COMMENT_HTML || path.join(ROOT, 'target', 'debug', 'examples', 'comment_html');
const comment = path.join(fail.outDir, 'comment.html');
execFileSync(renderer, [path.join(fail.outDir, 'report.md'), comment], { stdio: 'inherit' });

const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const shot = async (page, name, options = {}) => {
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file, ...options });
  console.log(file.startsWith(ROOT + path.sep) ? path.relative(ROOT, file) : file);
};
try {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 1200 } });
    // The whole page at 1280 px; at 1920 px its top (the repository keeps them small).
    const whole = width === 1280;
    // Failing: a broken sample's diff open (its requirements reworded and merged).
    await page.goto(`file://${reports.fail}`);
    await page.$eval('details.diff:has(summary code:text-is("ext-016"))', (d) => (d.open = true));
    await shot(page, `report-fail-${width}`, { fullPage: whole });
    // The search and a filter at work.
    await page.getByLabel('Outcome').selectOption('broken');
    await page.getByLabel('Search samples').fill('ext-01');
    await page.getByLabel('Search samples').press('Enter');
    await page.$eval('#samples', (e) => e.scrollIntoView({ block: 'start' }));
    await page.evaluate(() => document.activeElement.blur());
    await shot(page, `report-filters-${width}`);
    // Passing: the top of the page.
    await page.goto(`file://${reports.pass}`);
    await shot(page, `report-pass-${width}`);
    await page.goto(`file://${reports.tuples}`);
    await page.$eval('details.diff', (d) => (d.open = true));
    await shot(page, `report-tuples-${width}`, { fullPage: whole });
    // The traces: the first record open, and its second call (ReqExplore's first round).
    await page.goto(`file://${reports.trace}`);
    await page.$eval('details.trace', (d) => (d.open = true));
    await page.$$eval('details.trace details.call', (calls) => (calls[1].open = true));
    // From the section's title to the end of the first record's trace.
    const [top, bottom] = await page.evaluate(() => [document.querySelector('#traces').getBoundingClientRect().top + scrollY, document.querySelector('details.trace').getBoundingClientRect().bottom + scrollY]);
    await shot(page, `report-trace-${width}`, { fullPage: true, clip: { x: 0, y: top - 16, width, height: Math.min(bottom - top + 32, 2400) } });
    await page.close();
  }
  const historyPage = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await historyPage.goto(`file://${history}`);
  await shot(historyPage, 'history-1280', { fullPage: true });
  await historyPage.close();
  const page = await browser.newPage({ viewport: { width: 960, height: 1000 } });
  await page.goto(`file://${comment}`);
  // The broken samples, and the first one's diff.
  await page.$$eval('details', (ds) => ds.slice(0, 2).forEach((d) => (d.open = true)));
  await shot(page, 'comment', { fullPage: true });
} finally {
  await browser.close();
}
