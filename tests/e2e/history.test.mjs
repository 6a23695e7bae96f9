// `goldgate history --format html` in headless Chromium: the page of a baseline with ten
// committed versions, a pinned reference and an accepted drift. Nothing overflows at 1280,
// 1920 or 420 px, the page loads nothing and runs no script, every chart has labelled axes,
// a figure per gated metric and a point (with its figures in a title) per version, the
// reference's budget and the pin are drawn, and the versions table says who accepted the
// drift and why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { chromiumPath, goldgateBin, historyProject, lowContrast, pastTheEdge } from './harness.mjs';

let browser;
let file;

before(async () => {
  const dir = historyProject(10);
  const html = execFileSync(goldgateBin(), ['history', '--format', 'html'], { cwd: dir, encoding: 'utf8' });
  assert.match(html, /^<!doctype html>/);
  assert.ok(!html.includes('<script'), 'no script');
  file = path.join(dir, 'history.html');
  fs.writeFileSync(file, html);
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
});

after(async () => {
  await browser?.close();
});

async function open(width, javaScriptEnabled = true) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('request', (r) => r.url() !== `file://${file}` && !r.url().startsWith('data:') && problems.push(`request: ${r.url()}`));
  await page.goto(`file://${file}`);
  page.done = async () => {
    assert.deepEqual(problems, []);
    await context.close();
  };
  return page;
}

describe('the history page in a browser', () => {
  for (const width of [1280, 1920, 420]) {
    test(`at ${width} px nothing overflows the page`, async () => {
      const page = await open(width);
      const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(scroll <= inner, `the page is ${scroll} px wide at ${width}`);
      const wide = await pastTheEdge(page);
      assert.deepEqual(wide, []);
      await page.done();
    });
  }

  test('a chart per gated metric, a point per version, the budget and the pin drawn', async () => {
    const page = await open(1280, false);
    const figures = await page.$$eval('#metrics figure', (fs) =>
      fs.map((f) => ({
        id: f.id,
        axes: [...f.querySelectorAll('svg text.axis-label')].map((t) => t.textContent),
        points: f.querySelectorAll('svg circle.point, svg path.accepted').length,
        titles: [...f.querySelectorAll('svg circle.point title, svg path.accepted title')].map((t) => t.textContent),
        budget: f.querySelectorAll('svg line.budget').length,
        pins: f.querySelectorAll('svg line.pin').length,
      })),
    );
    const f1 = figures.find((f) => f.id === 'metric-extraction.f1');
    assert.ok(f1, JSON.stringify(figures.map((f) => f.id)));
    assert.deepEqual(f1.axes, ['baseline version (oldest first)', 'extraction.f1']);
    assert.equal(f1.points, 10);
    assert.equal(f1.budget, 1);
    assert.equal(f1.pins, 1);
    assert.match(f1.titles[0], /^#1 2026-10-01 [0-9a-f]{7}: 0\.\d{4} \[0\.\d{3}, 0\.\d{3}\]$/);
    assert.match(f1.titles[6], /drift accepted by octo-reviewer: the new tokenizer trades recall for cost/);
    const rows = await page.$$eval('#versions tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.equal(rows.length, 10);
    assert.match(rows[0], /pinned/);
    assert.match(rows[6], /drift accepted by octo-reviewer: the new tokenizer/);
    await page.done();
  });

  test('text has enough contrast', async () => {
    const page = await open(1280);
    const low = await lowContrast(page);
    assert.deepEqual(low, []);
    await page.done();
  });
});
