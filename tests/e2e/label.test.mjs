// `goldgate annotate` driven in headless Chromium, labelling: a sample labelled with the
// keyboard and the mouse and what lands on disk, validation, the machine-made draft, the
// forms of the other kinds, problems only the server finds, skip, discussion notes, and
// the keyboard. One browser for the whole file; one server per test, on a copy of the
// example suite in a temporary directory.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import YAML from 'yaml';

import { EXAMPLE, assertNoProblems, browserTests, copyProject, copySuite, fillRequirement, goldgate, newPage, open, openSample, ptr, readYaml, savedShown, splitInsert } from './harness.mjs';

const serve = browserTests();

// The temporary directory a copy was made in.
const tempDirOf = (copy) => path.dirname(copy);

// The file after a save must be the original with one block inserted, and that block must
// read as exactly the expected annotation.
function assertOnlyInserted(beforeText, afterText, expectedAnnotation) {
  const d = splitInsert(beforeText, afterText);
  assert.equal(d.removed, '', `the save changed existing text of the file:\n${JSON.stringify(d.removed)}`);
  assert.ok(d.inserted.length > 0, 'the save inserted nothing');
  const parsed = YAML.parse(d.inserted);
  const entries = Array.isArray(parsed) ? parsed : parsed && parsed.annotations;
  assert.ok(Array.isArray(entries) && entries.length === 1, `the inserted text is not one annotations entry:\n${d.inserted}`);
  assert.deepEqual(entries[0], expectedAnnotation);
  // And the whole file reads as the original plus that entry.
  const whole = YAML.parse(afterText);
  const orig = YAML.parse(beforeText);
  assert.deepEqual(whole, { ...orig, annotations: [...(orig.annotations || []), expectedAnnotation] });
}


describe('goldgate annotate in a browser: labelling', () => {
  test('an extraction sample labelled with the keyboard and the mouse is saved, only its annotation is added to the file, and a reload shows it again', async () => {
    const dir = copySuite();
    const file = path.join(dir, 'extraction', 'ext-005.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const server = await serve(dir, ['--annotator', 'a1']);
    const page = await newPage();
    await openSample(page, server, 'ext-005');

    // Requirement 1, keyboard only.
    await page.keyboard.press('Alt+KeyN');
    assert.equal(await page.inputValue(ptr('/requirements/0/id')), 'REQ-001', 'a new requirement gets the next id');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.ptr), '/requirements/0/type');
    await page.keyboard.type('functional');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Scan pallets at goods-in');
    await page.keyboard.press('Tab');
    await page.keyboard.type('goods-in operator');
    await page.keyboard.press('Tab');
    await page.keyboard.type('must');
    await page.keyboard.press('Tab');
    await page.keyboard.type('scan the SSCC label of each pallet and check it against the ASN');
    await page.keyboard.press('Tab');
    await page.keyboard.type('when a delivery arrives');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Each scanned SSCC is matched against the ASN of the delivery');
    await page.keyboard.press('Tab'); // its remove button
    await page.keyboard.press('Tab');
    await page.keyboard.type('A pallet missing from the ASN is flagged on the scanner');
    await page.keyboard.press('Enter'); // a third criterion after this one
    await page.keyboard.type('The check takes less than 2 seconds per pallet');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.ptr), '/requirements/0/acceptance_criteria#add');
    // Out of the text fields, digits toggle messages as sources of the requirement.
    await page.keyboard.press('2');
    await page.keyboard.press('0');
    await page.keyboard.press('0');
    assert.deepEqual(await sourceMarks(page), [2]);
    // A focused message toggles with Space.
    await page.focus('[data-msg="1"]');
    await page.keyboard.press('Space');
    assert.deepEqual(await sourceMarks(page), [1, 2]);
    await page.keyboard.press('Enter');
    assert.deepEqual(await sourceMarks(page), [2]);
    await page.focus(ptr('/requirements/0/rationale'));
    await page.keyboard.type('The supervisor asked for the scan check first.');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0.9');

    // Requirement 2, with the mouse.
    await page.click(ptr('/requirements#add'));
    assert.equal(await page.inputValue(ptr('/requirements/1/id')), 'REQ-002');
    await fillRequirement(page, 1, {
      id: 'REQ-002',
      type: 'functional',
      title: 'Email the supplier a discrepancy report',
      actor: 'system',
      priority: 'should',
      action: 'email the supplier a report of missing and unexpected pallets',
      acceptance_criteria: ['The report is sent within 1 hour of the delivery being closed', 'The report lists missing and unexpected pallets', 'to be removed'],
      source_messages: [3, 4, 3],
    });
    assert.deepEqual(await sourceMarks(page), [4]);
    await page.click(ptr('/requirements/1/acceptance_criteria/2#remove'));
    // Reorder: move requirement 2 up, then back down.
    await page.click(ptr('/requirements/1#up'));
    assert.equal(await page.inputValue(ptr('/requirements/0/id')), 'REQ-002');
    await page.click(ptr('/requirements/0#down'));
    assert.equal(await page.inputValue(ptr('/requirements/0/id')), 'REQ-001');
    assert.equal(await page.textContent('#save-blocked'), '', 'the form is valid');

    // Save and next (Ctrl+Enter) moves to the next sample once the save is done.
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/sample/ext-005/annotation') && r.request().method() === 'PUT');
    await page.keyboard.press('Control+Enter');
    assert.equal((await saved).status(), 200);
    await page.waitForSelector('main h1:text-is("ext-006")');

    const expected = {
      annotator: 'a1',
      requirements: [
        {
          id: 'REQ-001',
          title: 'Scan pallets at goods-in',
          type: 'functional',
          actor: 'goods-in operator',
          action: 'scan the SSCC label of each pallet and check it against the ASN',
          condition: 'when a delivery arrives',
          acceptance_criteria: [
            'Each scanned SSCC is matched against the ASN of the delivery',
            'A pallet missing from the ASN is flagged on the scanner',
            'The check takes less than 2 seconds per pallet',
          ],
          priority: 'must',
          source_messages: [2],
          rationale: 'The supervisor asked for the scan check first.',
          confidence: 0.9,
        },
        {
          id: 'REQ-002',
          title: 'Email the supplier a discrepancy report',
          type: 'functional',
          actor: 'system',
          action: 'email the supplier a report of missing and unexpected pallets',
          acceptance_criteria: ['The report is sent within 1 hour of the delivery being closed', 'The report lists missing and unexpected pallets'],
          priority: 'should',
          source_messages: [4],
        },
      ],
    };
    assertOnlyInserted(original, fs.readFileSync(file, 'utf8'), expected);
    // The suite still lints clean.
    const lint = goldgate(['suite', 'lint', dir]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);

    // A reload of the page shows the saved labels.
    await page.goto(`${server.url}#/sample/ext-005`);
    await page.reload();
    await page.waitForSelector('main h1:text-is("ext-005")');
    assert.equal(await page.inputValue(ptr('/requirements/0/title')), 'Scan pallets at goods-in');
    assert.equal(await page.inputValue(ptr('/requirements/1/title')), 'Email the supplier a discrepancy report');
    assert.equal(await page.inputValue(ptr('/requirements/0/type')), 'functional');
    assert.equal(await page.inputValue(ptr('/requirements/1/priority')), 'should');
    assert.equal(await page.inputValue(ptr('/requirements/0/acceptance_criteria/2')), 'The check takes less than 2 seconds per pallet');
    assert.equal(await page.inputValue(ptr('/requirements/0/confidence')), '0.9');
    assert.deepEqual(await sourceMarks(page), [2], 'the first requirement is the one being edited');
    await page.click(ptr('/requirements/1/title'));
    assert.deepEqual(await sourceMarks(page), [4]);
    // My own annotation is in the agreement panel's marks.
    assert.match(await page.textContent('.agreement'), /a1 \(you\)/);
    assertNoProblems(page);
    await page.close();
  });

  test('a validation error blocks saving and says why; nothing is sent or written until it is fixed', async () => {
    const dir = copySuite();
    const file = path.join(dir, 'extraction', 'ext-010.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const server = await serve(dir, ['--annotator', 'a1']);
    const page = await newPage();
    const writes = [];
    page.on('request', (r) => r.method() !== 'GET' && writes.push(`${r.method()} ${r.url()}`));
    await openSample(page, server, 'ext-010');
    await page.keyboard.press('Alt+KeyN');
    await fillRequirement(page, 0, {
      id: 'R-1',
      type: 'functional',
      title: 'Something',
      actor: 'user',
      priority: 'must',
      action: 'do something',
      acceptance_criteria: ['only one'],
      source_messages: [0],
    });
    await page.click(ptr('/requirements/0/acceptance_criteria/1#remove'));
    await page.fill(ptr('/requirements/0/confidence'), '1.5');
    // Shown next to the fields while typing.
    const errOf = (p) => page.evaluate((sel) => document.getElementById(document.querySelector(sel).getAttribute('aria-describedby')).textContent, p);
    assert.match(await errOf(ptr('/requirements/0/id')), /R-1 does not follow the id pattern/);
    assert.match(await errOf(ptr('/requirements/0/confidence')), /outside \[0, 1\]/);
    assert.match(await page.textContent('[data-group="/requirements/0/acceptance_criteria"] .err'), /at least 2 acceptance criteria are needed \(1 filled in\)/);
    assert.match(await page.textContent('#save-blocked'), /Save is blocked by 3 problems/);
    // A second requirement with the same id.
    await page.keyboard.press('Alt+KeyN');
    await page.fill(ptr('/requirements/1/id'), 'R-1');
    await page.click(ptr('/requirements/1/title'));
    assert.match(await errOf(ptr('/requirements/1/id')), /duplicate id R-1/);

    // The save buttons say they are disabled (aria-disabled) but still answer a click with why.
    assert.equal(await page.getAttribute('[data-action="save"]', 'aria-disabled'), 'true');
    await page.click('[data-action="save"]', { force: true });
    await page.click('[data-action="save-next"]', { force: true });
    await page.keyboard.press('Control+Enter');
    const status = await page.textContent('.actionbar .status');
    assert.match(status, /Not saved: \d+ problems to fix first/);
    assert.match(status, /acceptance criteria are needed/);
    assert.match(await errOf(ptr('/requirements/1/title')), /required/, 'after a save attempt every problem is shown');
    assert.equal(await page.evaluate(() => location.hash), '#/sample/ext-010', 'the page stays');
    assert.deepEqual(writes, [], 'nothing was sent');
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing was written');

    // Fix everything: the block lifts and the save goes through.
    await page.click(ptr('/requirements/1#remove'));
    await page.fill(ptr('/requirements/0/id'), 'REQ-001');
    await page.click(ptr('/requirements/0/acceptance_criteria#add'));
    await page.fill(ptr('/requirements/0/acceptance_criteria/1'), 'and a second one');
    await page.fill(ptr('/requirements/0/confidence'), '1');
    assert.equal(await page.textContent('#save-blocked'), '');
    const saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await saved).status(), 200);
    await savedShown(page);
    assert.equal(readYaml(file).annotations[0].requirements[0].id, 'REQ-001');
    assertNoProblems(page);
    await page.close();
  });

  test('a prefilled draft is loaded into the form with a machine-made banner and is written only when saved', async () => {
    const dir = copyProject();
    const file = path.join(dir, 'suite', 'extraction', 'ext-005.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const server = await serve(dir, ['--annotator', 'a1', '--prefill', path.join(dir, 'answers', 'main.jsonl')]);
    const page = await newPage();
    const answers = fs
      .readFileSync(path.join(dir, 'answers', 'main.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const answer = JSON.parse(answers.find((a) => a.id === 'ext-005').output);
    await openSample(page, server, 'ext-005');
    assert.match(await page.textContent('#draft-banner'), /Machine-made draft — not saved until you save/);
    assert.equal(await page.inputValue(ptr('/requirements/0/title')), answer.requirements[0].title);
    assert.equal(await page.$$eval('[data-item^="/requirements/"]', (e) => e.length), answer.requirements.length);
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'loading a draft writes nothing');
    // Where the annotator has labels, theirs are shown, not the draft.
    await openSample(page, server, 'ext-001');
    assert.equal(await page.$('#draft-banner'), null);
    assert.equal(fs.readFileSync(file, 'utf8'), original);
    // Saving the corrected draft writes it and the banner goes.
    await openSample(page, server, 'ext-005');
    for (let i = 0; i < answer.requirements.length; i++) {
      while ((await page.$$(`[data-ptr^="/requirements/${i}/acceptance_criteria/"]:not([data-ptr$="#remove"])`)).length < 2) await page.click(ptr(`/requirements/${i}/acceptance_criteria#add`));
      for (const f of ['title', 'actor', 'action']) if (!(await page.inputValue(ptr(`/requirements/${i}/${f}`)))) await page.fill(ptr(`/requirements/${i}/${f}`), 'filled in');
      for (const [j, input] of (await page.$$(`[data-ptr^="/requirements/${i}/acceptance_criteria/"]:not([data-ptr$="#remove"])`)).entries()) if (!(await input.inputValue())) await input.fill(`criterion ${j + 1}`);
      if (!(await page.inputValue(ptr(`/requirements/${i}/priority`)))) await page.selectOption(ptr(`/requirements/${i}/priority`), 'must');
    }
    assert.equal(await page.textContent('#save-blocked'), '');
    const saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.keyboard.press('Control+KeyS');
    assert.equal((await saved).status(), 200);
    await savedShown(page);
    assert.equal(await page.$('#draft-banner'), null);
    assert.equal(readYaml(file).annotations.find((a) => a.annotator === 'a1').requirements[0].title, answer.requirements[0].title);
    assertNoProblems(page);
    await page.close();
  });

  test('inference, validation and tuple samples are labelled with their own forms and saved as the server and lint accept', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1']);
    const page = await newPage();

    // Inference: an inferred requirement triggered by a base requirement.
    await openSample(page, server, 'inf-001');
    assert.equal(await page.$$eval('.base-req', (e) => e.length), 3, 'the base requirements are shown');
    await page.keyboard.press('Alt+KeyN');
    const inf = '/inferred_requirements/0';
    assert.equal(await page.inputValue(ptr(`${inf}/requirement/id`)), 'REQ-004', 'the next id after the base requirements');
    await page.selectOption(ptr(`${inf}/inference_type`), 'security');
    await page.selectOption(ptr(`${inf}/necessity`), 'necessary');
    await page.check(ptr(`${inf}/triggered_by`)); // REQ-001
    await page.fill(ptr(`${inf}/rationale`), 'Money movement needs a second factor.');
    await page.fill(ptr(`${inf}/confidence`), '0.8');
    await page.selectOption(ptr(`${inf}/requirement/type`), 'security');
    await page.fill(ptr(`${inf}/requirement/title`), 'Two-factor authentication for transfers');
    await page.fill(ptr(`${inf}/requirement/actor`), 'system');
    await page.selectOption(ptr(`${inf}/requirement/priority`), 'must');
    await page.fill(ptr(`${inf}/requirement/action`), 'require a second factor before a transfer');
    await page.fill(ptr(`${inf}/requirement/acceptance_criteria/0`), 'A transfer runs only after a valid second factor');
    await page.fill(ptr(`${inf}/requirement/acceptance_criteria/1`), 'Three failed attempts lock transfers for 15 minutes');
    await page.click('[data-msg="0"]');
    await page.click('[data-msg="4"]');
    let saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await saved).status(), 200);
    await savedShown(page);
    assert.deepEqual(readYaml(path.join(dir, 'inference', 'inf-001.yaml')).annotations.at(-1), {
      annotator: 'a1',
      inferred_requirements: [
        {
          requirement: {
            id: 'REQ-004',
            title: 'Two-factor authentication for transfers',
            type: 'security',
            actor: 'system',
            action: 'require a second factor before a transfer',
            acceptance_criteria: ['A transfer runs only after a valid second factor', 'Three failed attempts lock transfers for 15 minutes'],
            priority: 'must',
            source_messages: [0, 4],
          },
          inference_type: 'security',
          triggered_by: ['REQ-001'],
          necessity: 'necessary',
          rationale: 'Money movement needs a second factor.',
          confidence: 0.8,
        },
      ],
    });

    // Validation: issues and PII strings.
    await openSample(page, server, 'val-001');
    await page.keyboard.press('Alt+KeyN');
    await page.selectOption(ptr('/issues/0/issue_type'), 'missing_actor');
    await page.selectOption(ptr('/issues/0/severity'), 'error');
    await page.fill(ptr('/issues/0/field'), 'actor');
    await page.fill(ptr('/issues/0/location'), 'REQ-001');
    await page.fill(ptr('/issues/0/message'), 'The actor is empty.');
    await page.fill(ptr('/issues/0/suggested_fix'), 'Set the actor to driver.');
    await page.keyboard.press('Alt+KeyP');
    await page.keyboard.type('Jane Doe');
    await page.keyboard.press('Alt+KeyP');
    await page.keyboard.type('jane.doe@example.com');
    await page.click(ptr('/pii/1#up'));
    saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.keyboard.press('Control+KeyS');
    assert.equal((await saved).status(), 200);
    await savedShown(page);
    assert.deepEqual(readYaml(path.join(dir, 'validation', 'val-001.yaml')).annotations.at(-1), {
      annotator: 'a1',
      issues: [{ issue_type: 'missing_actor', severity: 'error', field: 'actor', location: 'REQ-001', message: 'The actor is empty.', suggested_fix: 'Set the actor to driver.' }],
      pii: ['jane.doe@example.com', 'Jane Doe'],
    });
    const lint = goldgate(['suite', 'lint', dir]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);

    // Tuples: values from the task, a span copied from a selection of the text, an implicit tuple.
    const events = path.join(tempDirOf(dir), 'events');
    fs.cpSync(path.join(EXAMPLE, '..', 'events', 'suite'), events, { recursive: true });
    const ev = await serve(events, ['--annotator', 'a1']);
    await openSample(page, ev, 'ev-002');
    // Kappa is measured on cited conversation messages: the page says why a text has none.
    assert.match(await page.textContent('.agreement'), /this sample has no conversation/);
    await page.keyboard.press('Alt+KeyN');
    await page.selectOption(ptr('/tuples/0/event_type'), 'attack');
    await page.selectOption(ptr('/tuples/0/role'), 'attacker');
    await page.evaluate(() => {
      const node = document.getElementById('sample-text').firstChild;
      const range = document.createRange();
      range.setStart(node, 0);
      range.setEnd(node, 'Rebel fighters'.length);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    });
    await page.click('[aria-label="Use the selected text as the argument of tuple 1"]');
    assert.equal(await page.inputValue(ptr('/tuples/0/argument')), 'Rebel fighters');
    await page.keyboard.press('Alt+KeyN');
    await page.selectOption(ptr('/tuples/1/event_type'), 'attack');
    await page.selectOption(ptr('/tuples/1/role'), 'instrument');
    await page.fill(ptr('/tuples/1/argument'), 'artillery');
    assert.match(await page.textContent('#save-blocked'), /not found in the text/);
    await page.check(ptr('/tuples/1/implicit'));
    saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await saved).status(), 200);
    await savedShown(page);
    assert.deepEqual(readYaml(path.join(events, 'ev-002.yaml')).annotations.at(-1), {
      annotator: 'a1',
      tuples: [
        { event_type: 'attack', role: 'attacker', argument: 'Rebel fighters', start: 0, end: 14 },
        { event_type: 'attack', role: 'instrument', argument: 'artillery', implicit: true },
      ],
    });
    const lintEvents = goldgate(['suite', 'lint', events]);
    assert.equal(lintEvents.code, 0, lintEvents.stdout + lintEvents.stderr);
    assertNoProblems(page);
    await page.close();
  });

  test('a problem only the server finds is shown at its field; skip, needs discussion and Alt+arrows move through the suite', async () => {
    const dir = copyProject();
    // An id pattern JavaScript cannot read ((?i) is Rust's): the page leaves it to the server.
    const rules = path.join(dir, 'strict-ids.toml');
    fs.writeFileSync(rules, 'version = 1\n\n[matching]\nid_pattern = "(?i)^req-[0-9]{3}$"\n');
    const server = await serve(dir, ['--annotator', 'a1', '--thresholds', rules]);
    const page = await newPage();
    const file = path.join(dir, 'suite', 'extraction', 'ext-010.yaml');
    const original = fs.readFileSync(file, 'utf8');
    await openSample(page, server, 'ext-010');
    await page.keyboard.press('Alt+KeyN');
    await fillRequirement(page, 0, {
      id: 'FR-01',
      type: 'functional',
      title: 'Book a dock slot',
      actor: 'carrier',
      priority: 'must',
      action: 'book a 30-minute dock slot',
      acceptance_criteria: ['A slot can be booked 24 hours ahead', 'A booked slot cannot be booked again'],
      source_messages: [2],
    });
    assert.equal(await page.textContent('#save-blocked'), '');
    const refused = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await refused).status(), 422);
    await page.waitForSelector('.actionbar .status.bad:has-text("The server refused the save")');
    const errOf = (p) => page.evaluate((sel) => document.getElementById(document.querySelector(sel).getAttribute('aria-describedby')).textContent, p);
    assert.match(await errOf(ptr('/requirements/0/id')), /FR-01/);
    assert.match(await page.textContent('.actionbar .status'), /The server refused the save: 1 problem/);
    assert.equal(fs.readFileSync(file, 'utf8'), original);
    // Editing the field clears the server's problem; the save goes through.
    await page.fill(ptr('/requirements/0/id'), 'REQ-010');
    assert.equal(await errOf(ptr('/requirements/0/id')), '');
    const saved = page.waitForResponse((r) => r.url().endsWith('/annotation'));
    await page.click('[data-action="save"]');
    assert.equal((await saved).status(), 200);
    await savedShown(page);

    // Needs discussion: a note in the file and in the queue.
    await page.click('[data-action="discuss"]');
    await page.fill(ptr('note'), 'Is the missed-slot rule one requirement or two?');
    const noted = page.waitForResponse((r) => r.url().endsWith('/discussion'));
    await page.click('[data-action="save-note"]');
    assert.equal((await noted).status(), 200);
    await page.waitForSelector('.discussion-list');
    assert.deepEqual(readYaml(file).discussion, [{ annotator: 'a1', note: 'Is the missed-slot rule one requirement or two?' }]);

    // Alt+→ and Alt+← move to the next and previous sample; skip records nothing.
    await page.focus('[data-msg="0"]');
    await page.keyboard.press('Alt+ArrowRight');
    await page.waitForSelector('main h1:text-is("ext-011")');
    await page.keyboard.press('Alt+ArrowLeft');
    await page.waitForSelector('main h1:text-is("ext-010")');
    await openSample(page, server, 'ext-015');
    const before = fs.readFileSync(path.join(dir, 'suite', 'extraction', 'ext-015.yaml'), 'utf8');
    await page.click('[data-action="skip"]');
    await page.waitForSelector('main h1:not(:text-is("ext-015"))');
    assert.equal(fs.readFileSync(path.join(dir, 'suite', 'extraction', 'ext-015.yaml'), 'utf8'), before);
    await open(page, server, '#/queue?show=skipped');
    assert.deepEqual(await page.$$eval('.queue-table tbody tr', (trs) => trs.map((tr) => tr.dataset.id)), ['ext-015']);
    assert.match(await page.textContent('.progress-panel tr.me'), /a1 \(you\)\s*\d+\s*1\s*\d+/);
    await open(page, server, '#/queue?show=discussion');
    assert.deepEqual(await page.$$eval('.queue-table tbody tr', (trs) => trs.map((tr) => tr.dataset.id)), ['ext-010']);
    assert.match(await page.textContent('.queue-table tbody tr'), /1 note/);
    assertNoProblems(page);
    await page.close();
  });

  test('every control is reachable with Tab and shows a focus ring; ? lists the shortcuts', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1']);
    const page = await newPage();
    await openSample(page, server, 'ext-001');
    const seen = new Set();
    // Tab through the whole page, until the focus leaves it for the browser.
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const e = document.activeElement;
        const s = getComputedStyle(e);
        return { tag: e.tagName, ptr: e.dataset.ptr || e.dataset.msg || e.dataset.action || e.textContent.slice(0, 20), outline: s.outlineStyle, width: parseFloat(s.outlineWidth) };
      });
      if (f.tag === 'BODY') break;
      assert.ok(f.outline !== 'none' && f.width >= 2, `no visible focus ring on ${f.tag} ${f.ptr}`);
      seen.add(f.ptr);
    }
    for (const want of ['0', '5', '/requirements#add', '/requirements/0/title', '/requirements/0/acceptance_criteria/1', '/requirements/1/confidence', 'save-next', 'skip', 'discuss']) {
      assert.ok(seen.has(want), `Tab never reached ${want}`);
    }
    await page.focus('[data-msg="0"]');
    await page.keyboard.press('Shift+Slash');
    assert.ok(await page.evaluate(() => document.getElementById('help').open), '? opens the shortcut list');
    await page.keyboard.press('Escape');
    assert.ok(!(await page.evaluate(() => document.getElementById('help').open)));
    assertNoProblems(page);
    await page.close();
  });
});

async function sourceMarks(page) {
  return page.$$eval('.msg.src-active', (els) => els.map((e) => Number(e.dataset.msg)));
}
