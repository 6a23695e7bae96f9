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

import { chromiumPath, goldgateBin, historyProject } from './harness.mjs';

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
      const wide = await page.evaluate(() => {
        const right = document.documentElement.clientWidth;
        return [...document.querySelectorAll('body *')]
          .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > right + 0.5 && !e.parentElement?.closest('.scroll'))
          .slice(0, 3)
          .map((e) => `${e.tagName}.${e.className}`);
      });
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
    const low = await page.evaluate(() => {
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
        if (ratio < (large ? 3 : 4.5)) out.push(`${e.tagName} ${ratio.toFixed(2)}: ${e.textContent.trim().slice(0, 40)}`);
      }
      return [...new Set(out)].slice(0, 5);
    });
    assert.deepEqual(low, []);
    await page.done();
  });
});
