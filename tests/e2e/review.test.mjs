// `goldgate annotate` driven in headless Chromium, beyond one annotator's labels: two
// annotators' agreement, review and promotion to gold, a conflict with a file changed on
// disk, and hostile suite text. One browser for the whole file; one server per test, on a
// copy of the example suite in a temporary directory.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import YAML from 'yaml';

import { assertNoProblems, browserTests, copySuite, fillRequirement, goldgate, newPage, open, openSample, ptr, readYaml, savedShown, smallSuite } from './harness.mjs';

const serve = browserTests();

describe('goldgate annotate in a browser: agreement, review, conflicts and hostile text', () => {
  test("two annotators label in turn; the page shows the kappa `goldgate suite agreement` computes", async () => {
    const dir = smallSuite(['extraction/ext-005.yaml', 'extraction/ext-010.yaml']);
    const page = await newPage();
    const label = async (annotator, plan) => {
      const server = await serve(dir, ['--annotator', annotator]);
      for (const [id, reqs] of Object.entries(plan)) {
        await openSample(page, server, id);
        for (let i = 0; i < reqs.length; i++) {
          await page.click(ptr('/requirements#add'));
          await fillRequirement(page, i, reqs[i]);
        }
        const saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
        await page.click('[data-action="save"]');
        assert.equal((await saved).status(), 200);
        await savedShown(page);
      }
      return server;
    };
    const req = (id, sources) => ({
      id,
      type: 'functional',
      title: `Requirement ${id}`,
      actor: 'operator',
      priority: 'must',
      action: 'do what the message asks',
      acceptance_criteria: ['It is done', 'It is checked'],
      source_messages: sources,
    });
    const first = await label('x1', { 'ext-005': [req('REQ-001', [2]), req('REQ-002', [4])], 'ext-010': [req('REQ-001', [0, 2])] });
    await first.stop();
    const second = await label('x2', { 'ext-005': [req('REQ-001', [2, 3])], 'ext-010': [req('REQ-001', [0]), req('REQ-002', [4])] });

    const cli = goldgate(['suite', 'agreement', dir, '--format', 'json']);
    const want = JSON.parse(cli.stdout);
    assert.equal(want.pairs.length, 1);
    const progress = await page.evaluate(() => fetch('/api/progress').then((r) => r.json()));
    assert.deepEqual(progress.agreement, want, '/api/progress carries the CLI agreement');

    await open(page, second, '#/queue');
    const shown = await page.textContent('.kappa-big .value');
    assert.equal(shown.replace(/\s+/g, ' ').trim(), `κ ${want.headline.toFixed(2)}`);
    assert.match(await page.textContent('.kappa-big'), want.headline >= 0.75 ? /meets the 0\.75 bar/ : /below the 0\.75 bar/);
    const rows = await page.$$eval('.progress-panel tbody tr', (trs) => trs.map((tr) => [...tr.cells].slice(0, 4).map((td) => td.textContent)));
    assert.deepEqual(rows, [
      ['x1', '2', '—', '0'],
      ['x2 (you)', '2', '0', '0'],
    ]);

    // The sample's own kappa: the CLI on a suite of that one sample.
    const single = smallSuite(['suite.toml']);
    fs.copyFileSync(path.join(dir, 'extraction', 'ext-005.yaml'), path.join(single, 'ext-005.yaml'));
    const one = JSON.parse(goldgate(['suite', 'agreement', single, '--format', 'json']).stdout);
    await openSample(page, second, 'ext-005');
    const row = await page.textContent('.agreement tr.me');
    assert.match(row, /you \(x2\) vs x1/);
    assert.ok(row.includes(one.pairs[0].kappa.toFixed(2)), `${row} shows ${one.pairs[0].kappa}`);
    // The queue ordered by disagreement puts ext-005 or ext-010 first, as the server ranks them.
    await open(page, second, '#/queue?order=disagreement');
    const ids = await page.$$eval('.queue-table tbody tr', (trs) => trs.map((tr) => tr.dataset.id));
    const api = await page.evaluate(() => fetch('/api/queue?order=disagreement').then((r) => r.json()));
    assert.deepEqual(ids, api.items.map((i) => i.id));
    assertNoProblems(page);
    await page.close();
  });

  test('promoting one annotator, or items picked from several, writes the gold labels and who promoted them', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'lead']);
    const page = await newPage();
    const file1 = path.join(dir, 'extraction', 'ext-001.yaml');
    const before1 = readYaml(file1);
    await open(page, server, '#/review/ext-001');
    // Differences are highlighted: a1 and a2 differ on message 2.
    assert.ok(await page.$('table.marks thead th.differs'), 'the differing message is marked');
    assert.ok((await page.$$('.review-table .cell-item .diff')).length > 0, 'differing fields are marked');
    await page.click('[data-action="promote-1"]');
    const done = page.waitForResponse((r) => r.url().endsWith('/promote'));
    await page.click('[data-action="confirm-promote"]');
    assert.equal((await done).status(), 200);
    await page.waitForSelector('.review-status.ok');
    assert.match(await page.textContent('.review-status'), /promoted by lead from a2 at /);
    const after1 = readYaml(file1);
    assert.deepEqual(after1.labels.requirements, before1.annotations.find((a) => a.annotator === 'a2').requirements);
    assert.equal(after1.review.promoted_by, 'lead');
    assert.deepEqual(after1.review.from, ['a2']);
    assert.match(after1.review.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.deepEqual(after1.annotations, before1.annotations, 'the annotations are untouched');

    // Picking: the first item from a1, the second from a3.
    const file2 = path.join(dir, 'extraction', 'ext-002.yaml');
    const before2 = readYaml(file2);
    await open(page, server, '#/review/ext-002');
    await page.check('[data-pick="requirements/0/0"]');
    await page.check('[data-pick="requirements/1/2"]');
    await page.check('[data-pick="requirements/1/1"]'); // one per row: replaces a3's pick
    await page.check('[data-pick="requirements/1/2"]');
    assert.match(await page.textContent('#pick-summary'), /2 items picked, from a1, a3/);
    await page.click('[data-action="promote-picked"]');
    const done2 = page.waitForResponse((r) => r.url().endsWith('/promote'));
    await page.click('[data-action="confirm-promote"]');
    assert.equal((await done2).status(), 200);
    await page.waitForSelector('.review-status.ok');
    const after2 = readYaml(file2);
    const ann = (n) => before2.annotations.find((a) => a.annotator === n).requirements;
    assert.deepEqual(after2.labels.requirements, [ann('a1')[0], ann('a3')[1]]);
    assert.deepEqual(after2.review.from, ['a1', 'a3']);
    const lint = goldgate(['suite', 'lint', dir]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);
    assertNoProblems(page);
    await page.close();
  });

  test('a sample no annotator labelled opens in review and says there is nothing to review', async () => {
    const dir = copySuite();
    const file = path.join(dir, 'e2e', 'e2e-001.yaml');
    assert.equal(readYaml(file).annotations, undefined, 'the sample has no annotations');
    const server = await serve(dir, ['--annotator', 'lead']);
    const page = await newPage();
    await open(page, server, '#/review/e2e-001');
    await page.waitForSelector('main h1:text-is("Review e2e-001")');
    assert.match(await page.textContent('main .empty'), /No annotator has labelled this sample yet/);
    assert.equal(await page.$('[data-action="promote-picked"]'), null, 'nothing to promote');
    // Moving on to the next sample in review works from there.
    await page.click('.sample-nav a:has-text("Next")');
    await page.waitForSelector('main h1:text-is("Review e2e-002")');
    assertNoProblems(page);
    await page.close();
  });

  test('a sample changed on disk after the page loaded it is not overwritten: the page shows the conflict and keeps the edits', async () => {
    const dir = copySuite();
    const file = path.join(dir, 'extraction', 'ext-015.yaml');
    const server = await serve(dir, ['--annotator', 'a1']);
    const page = await newPage();
    await openSample(page, server, 'ext-015');
    await page.keyboard.press('Alt+KeyN');
    await fillRequirement(page, 0, {
      id: 'REQ-001',
      type: 'functional',
      title: 'My edit',
      actor: 'user',
      priority: 'must',
      action: 'do something',
      acceptance_criteria: ['one', 'two'],
      source_messages: [0],
    });
    const changed = `${fs.readFileSync(file, 'utf8')}# edited by someone else\n`;
    fs.writeFileSync(file, changed);
    const res = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await res).status(), 409);
    await page.waitForSelector('#conflict-banner');
    assert.match(await page.textContent('#conflict-banner'), /changed on disk/);
    assert.equal(fs.readFileSync(file, 'utf8'), changed, 'the file was not overwritten');
    assert.equal(await page.inputValue(ptr('/requirements/0/title')), 'My edit', 'the edits are still in the form');
    await page.click('#conflict-banner [data-action="reload"]');
    await page.waitForSelector('#conflict-banner', { state: 'detached' });
    assert.equal(await page.$(ptr('/requirements/0/title')), null, 'the disk version has no annotation of a1');
    assertNoProblems(page);
    await page.close();
  });

  test('hostile suite text renders as text: no script runs, no element is made from it, nothing overflows', async () => {
    const dir = copySuite();
    const long = 'W'.repeat(20000);
    const hostile = {
      id: 'zz-hostile',
      kind: 'extraction',
      domain: '<img src=x onerror="window.__pwned=1">',
      difficulty: 'easy',
      tags: ['<script>window.__pwned=2</script>'],
      conversation: [
        { role: '<b onmouseover="window.__pwned=3">user</b>', content: '<script>window.__pwned=4</script><img src=x onerror="window.__pwned=5"> We need a login page.' },
        { role: 'analyst', content: `${long} and a line of ${long.length} characters` },
      ],
      labels: {},
      annotations: [
        {
          annotator: 'a2',
          requirements: [
            {
              id: 'REQ-001',
              title: '<img src=x onerror="window.__pwned=6">',
              type: 'functional',
              actor: '<script>window.__pwned=7</script>',
              action: long,
              acceptance_criteria: ['<iframe src="javascript:window.__pwned=8"></iframe>', 'x'],
              priority: 'must',
              source_messages: [0],
            },
          ],
        },
      ],
      discussion: [{ annotator: 'a3', note: '<script>window.__pwned=9</script>' }],
    };
    fs.writeFileSync(path.join(dir, 'extraction', 'zz-hostile.yaml'), YAML.stringify(hostile, { lineWidth: 0 }));
    const server = await serve(dir, ['--annotator', 'a2']);
    const page = await newPage();
    const check = async (what) => {
      const r = await page.evaluate(() => ({
        pwned: window.__pwned,
        img: document.querySelectorAll('img, iframe, b').length,
        scripts: [...document.scripts].map((s) => new URL(s.src, location.href).pathname),
        docOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        overflow: [...document.querySelectorAll('main, .pane, .form-scroll, .review-view, .queue-view')].map((e) => e.scrollWidth - e.clientWidth).filter((x) => x > 0),
      }));
      assert.equal(r.pwned, undefined, `${what}: a script ran`);
      assert.equal(r.img, 0, `${what}: an element was made from suite text`);
      assert.deepEqual(r.scripts, ['/js/main.js'], what);
      assert.ok(r.docOverflow <= 0, `${what}: the page scrolls sideways by ${r.docOverflow}px`);
      assert.deepEqual(r.overflow, [], `${what}: a pane overflows sideways`);
    };
    await open(page, server, '#/queue?per_page=200');
    await page.waitForSelector('tr[data-id="zz-hostile"]');
    assert.match(await page.textContent('tr[data-id="zz-hostile"]'), /<img src=x onerror="window.__pwned=1">/);
    await check('queue');
    await openSample(page, server, 'zz-hostile');
    assert.ok((await page.textContent('[data-msg="0"]')).includes('<script>window.__pwned=4</script><img src=x onerror="window.__pwned=5">'));
    assert.equal(await page.inputValue(ptr('/requirements/0/title')), '<img src=x onerror="window.__pwned=6">');
    assert.equal(await page.inputValue(ptr('/requirements/0/action')), long);
    assert.match(await page.textContent('.discussion-list'), /<script>window.__pwned=9<\/script>/);
    await page.click('[data-msg="1"]');
    await check('label view');
    // The click made the form differ from the file: leaving asks first.
    await page.goto(`${server.url}#/review/zz-hostile`);
    await page.waitForSelector('#leave-bar:not([hidden])');
    assert.equal(await page.evaluate(() => location.hash), '#/sample/zz-hostile');
    await page.click('#leave-go');
    await page.waitForSelector('.review-table');
    assert.ok((await page.textContent('.review-table')).includes('<iframe src="javascript:window.__pwned=8"></iframe>'));
    await check('review view');
    assertNoProblems(page);
    await page.close();
  });
});
