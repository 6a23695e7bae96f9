// The HTML report (`goldgate check --format html`) in headless Chromium, at 1280 and 1920 px:
// nothing overflows the page's width with every fold open, the search box and the filters
// narrow the per-sample table (and without JavaScript every row shows), hostile pipeline
// output renders as text, and a sample's srs-agents trace folds open. The reports are made
// from copies of the example projects, one browser for the whole file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { ROOT, chromiumPath, goldgate, lowContrast, pastTheEdge, tempDir } from './harness.mjs';

const WIDTHS = [1280, 1920];
const HOSTILE = '<img src=x onerror=alert(1)></pre></details><script>alert(2)</script>';

// `goldgate check --config PROJECT/CONFIG ARGS…` → the HTML report's path.
function report(project, config, args, name) {
  const out = tempDir('goldgate-report-');
  const r = goldgate(['check', '--config', path.join(project, config), '--out-dir', out, '--format', 'html', ...args]);
  assert.ok(r.code === 0 || r.code === 1, `goldgate check exited ${r.code}: ${r.stderr}`);
  assert.match(r.stdout, /^<!doctype html>/);
  const file = path.join(out, `${name}.html`);
  fs.writeFileSync(file, r.stdout);
  return file;
}

// A copy of an example project.
function project(name) {
  const dir = path.join(tempDir(), name);
  fs.cpSync(path.join(ROOT, 'examples', name), dir, { recursive: true });
  return dir;
}

const reports = {};
let browser;

before(async () => {
  const requirements = project('requirements');
  // The candidate's answers, one of a broken sample's titles replaced by markup.
  const answers = path.join(requirements, 'answers', 'candidate.jsonl');
  const hostile = path.join(requirements, 'answers', 'hostile.jsonl');
  const lines = fs.readFileSync(answers, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const target = lines.find((l) => l.id === 'ext-016');
  assert.ok(target.output.includes('Frictionless guest purchase'));
  target.output = target.output.replace('Frictionless guest purchase', HOSTILE);
  fs.writeFileSync(hostile, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  reports.fail = report(requirements, 'goldgate.toml', ['--replay', hostile], 'fail');
  reports.pass = report(requirements, 'goldgate.toml', [], 'pass');
  reports.agents = report(requirements, 'srs-agents.toml', ['--replay', path.join(requirements, 'answers', 'srs-agents.jsonl')], 'agents');
  const events = project('events');
  reports.events = report(events, 'goldgate.toml', ['--replay', path.join(events, 'answers', 'candidate.jsonl')], 'events');
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
});

// A page of the report at a width, recording dialogs, page errors, console errors and any
// request that is not the file itself (the report is one self-contained file).
async function open(file, { width = 1280, javaScriptEnabled = true } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  page.problems = [];
  page.on('dialog', (d) => {
    page.problems.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (r.url() !== `file://${file}` && !r.url().startsWith('data:')) page.problems.push(`request: ${r.url()}`);
  });
  await page.goto(`file://${file}`);
  page.done = async () => {
    assert.deepEqual(page.problems, [], 'the report raised dialogs, errors or requests');
    await context.close();
  };
  return page;
}

const visibleIds = (page) => page.$$eval('#samples tbody tr', (trs) => trs.filter((tr) => !tr.hidden && tr.offsetParent !== null).map((tr) => tr.dataset.id));
const allIds = (page) => page.$$eval('#samples tbody tr', (trs) => trs.map((tr) => tr.dataset.id));

describe('the HTML report in a browser', () => {
  // The two widths the report is made for, and a phone's.
  for (const width of [...WIDTHS, 420]) {
    test(`at ${width} px nothing overflows the page, every fold open`, async () => {
      for (const [name, file] of Object.entries(reports)) {
        const page = await open(file, { width });
        await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
        const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
        assert.ok(scroll <= inner, `${name} at ${width} px: the page is ${scroll} px wide`);
        // No element reaches past the page's right edge (a wide diff line, a long id).
        const wide = await pastTheEdge(page);
        assert.deepEqual(wide, [], `${name} at ${width} px`);
        // Numbers are right-aligned in tabular figures, their headers with them.
        const numbers = await page.$$eval('td.num, th.num', (cells) => cells.map((c) => [getComputedStyle(c).textAlign, getComputedStyle(c).fontVariantNumeric]));
        assert.ok(numbers.length > 0, name);
        for (const [align, variant] of numbers) assert.ok(align === 'right' && variant.includes('tabular-nums'), `${name}: ${align} ${variant}`);
        await page.done();
      }
    });
  }

  test('text has enough contrast, and the keyboard reaches the filters and the folds', async () => {
    for (const [name, file] of Object.entries(reports)) {
      const page = await open(file);
      await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
      // WCAG AA: 4.5:1 for text, 3:1 for large text; the background is the nearest opaque one.
      const low = await lowContrast(page);
      assert.deepEqual(low, [], `${name}: low contrast`);
      await page.done();
    }
    const page = await open(reports.agents);
    let reached = [];
    for (let i = 0; i < 40 && !reached.includes('summary'); i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => document.activeElement.id || document.activeElement.tagName.toLowerCase()));
    }
    for (const id of ['sample-search', 'filter-outcome', 'filter-kind', 'summary']) assert.ok(reached.includes(id), `Tab reaches ${id}: ${reached.join(' ')}`);
    const focused = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(focused, 'none', 'the focus is visible');
    await page.done();
  });

  test('the run context heads the report', async () => {
    const page = await open(reports.agents);
    const context = await page.textContent('#context');
    for (const want of [/Suite/, /sha256:[0-9a-f]{12}/, /Commit/, /Date/, /Model/, /example-scripted/, /Pipeline/]) assert.match(context, want);
    const top = await page.$eval('#context', (e) => e.getBoundingClientRect().top);
    const metrics = await page.$eval('#metrics', (e) => e.getBoundingClientRect().top);
    assert.ok(top < metrics, 'above the metrics');
    await page.done();
  });

  test('the charts have labelled axes and say how to read them', async () => {
    const page = await open(reports.fail);
    const figures = await page.$$eval('#charts figure', (fs) => fs.map((f) => ({ axes: [...f.querySelectorAll('svg text.axis-label')].map((t) => t.textContent), caption: f.querySelector('figcaption').textContent })));
    assert.equal(figures.length, 3, 'two reliability diagrams and the score distribution');
    for (const f of figures) {
      assert.equal(f.axes.length, 2, JSON.stringify(f));
      assert.ok(f.caption.length > 60, `explained: ${f.caption}`);
    }
    assert.deepEqual(figures[0].axes, ['stated confidence', 'share correct']);
    assert.deepEqual(figures[2].axes, ['primary score of a sample', 'samples']);
    assert.match(figures[0].caption, /44 predictions with a confidence; expected calibration error/);
    assert.match(figures[2].caption, /dashed outlines: the baseline/);
    assert.match(await page.textContent('#charts .guide'), /On the dashed diagonal confidence equals accuracy/);
    await page.done();
  });

  test('the search box and the filters narrow the per-sample rows', async () => {
    const page = await open(reports.fail);
    const all = await allIds(page);
    assert.equal(all.length, 40);
    assert.equal(await page.isVisible('#sample-filters'), true);
    // The search box is labelled; typing applies after a pause, Enter at once.
    const search = async (text) => {
      await page.getByLabel('Search samples').fill(text);
      await page.getByLabel('Search samples').press('Enter');
    };
    await search('ext-01');
    assert.deepEqual((await visibleIds(page)).sort(), all.filter((id) => id.includes('ext-01')).sort());
    assert.match(await page.textContent('#sample-count'), /^7 of 40 samples/);
    await search('');
    await page.getByLabel('Outcome').selectOption('broken');
    const broken = await visibleIds(page);
    assert.deepEqual(broken.sort(), ['ext-003', 'ext-005', 'ext-009', 'ext-011', 'ext-013', 'ext-014', 'ext-016']);
    await page.getByLabel('Kind').selectOption('inference');
    assert.deepEqual(await visibleIds(page), [], 'no broken inference sample');
    assert.match(await page.textContent('#sample-count'), /^0 of 40 samples/);
    await page.getByLabel('Outcome').selectOption('');
    const inference = await visibleIds(page);
    assert.equal(inference.length, 10);
    assert.ok(inference.every((id) => id.startsWith('inf-')));
    // The search matches what a row shows, the outcome included.
    await page.getByLabel('Kind').selectOption('');
    await search('FIXED');
    assert.deepEqual((await visibleIds(page)).sort(), ['ext-002', 'ext-006', 'ext-008', 'inf-008']);
    // Typed without Enter, the search applies once typing pauses.
    await page.getByLabel('Search samples').fill('');
    await page.getByLabel('Search samples').pressSequentially('inf-00');
    await page.waitForFunction(() => document.getElementById('sample-count').textContent.startsWith('9 of 40'));
    await page.done();

    // Tags, in the tuples example.
    const events = await open(reports.events);
    const rows = await events.$$eval('#samples tbody tr', (trs) => trs.map((tr) => [tr.dataset.id, [...tr.querySelectorAll('.tag')].map((t) => t.textContent)]));
    const tagged = rows.filter(([, tags]) => tags.includes('multi-event')).map(([id]) => id);
    assert.ok(tagged.length > 1 && tagged.length < rows.length, JSON.stringify(rows));
    await events.getByLabel('Tag').selectOption('multi-event');
    assert.deepEqual((await visibleIds(events)).sort(), tagged.sort());
    await events.done();
  });

  test('without JavaScript every row shows and the filters are not offered', async () => {
    const page = await open(reports.fail, { javaScriptEnabled: false });
    assert.equal((await visibleIds(page)).length, 40);
    assert.equal(await page.isVisible('#sample-filters'), false);
    await page.done();
  });

  test('hostile pipeline output renders as text', async () => {
    const page = await open(reports.fail);
    await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
    assert.equal(await page.$$eval('img', (i) => i.length), 0, 'no element made from the answer');
    assert.equal(await page.$$eval('script', (s) => s.length), 1, "the report's own script only");
    const diff = await page.textContent('details.diff:has(summary code:text-is("ext-016"))');
    assert.ok(diff.includes(HOSTILE), diff);
    // The styled diff: a removed gold line and an added prediction, each one line of its own.
    const added = await page.$$eval('details.diff .d-add', (ls) => ls.map((l) => l.textContent));
    assert.ok(added.some((l) => l.startsWith('+') && l.includes(HOSTILE)), added.join('\n'));
    const colours = await page.$eval('details.diff .d-add', (l) => getComputedStyle(l).backgroundColor);
    assert.notEqual(colours, 'rgba(0, 0, 0, 0)', 'an added line is coloured');
    await page.done();
  });

  test("a sample's trace folds open, from the table, by mouse and by keyboard", async () => {
    const page = await open(reports.agents);
    const traces = page.locator('details.trace');
    assert.equal(await traces.count(), 4);
    const first = traces.first();
    assert.equal(await first.evaluate((d) => d.open), false, 'folded at first');
    await first.locator('> summary').click();
    assert.equal(await first.evaluate((d) => d.open), true);
    assert.ok(await first.locator('details.call > summary').first().isVisible(), 'its calls listed');
    await first.locator('details.call > summary').first().click();
    assert.match(await first.locator('details.call').first().textContent(), /ReqParse/);
    // By keyboard: Enter on the focused summary.
    const second = traces.nth(1);
    await second.locator('> summary').focus();
    await page.keyboard.press('Enter');
    assert.equal(await second.evaluate((d) => d.open), true);
    // The per-sample table links each sample to its trace, and following it opens the fold.
    const link = page.locator('#samples tbody tr[data-id="e2e-003"] a.trace-link');
    await link.click();
    const target = page.locator(`details.trace${await link.getAttribute('href')}`);
    assert.equal(await target.evaluate((d) => d.open), true);
    assert.match(await target.locator('> summary').textContent(), /e2e-003/);
    await page.done();
  });
});
