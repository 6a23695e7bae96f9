// Takes the screenshots of docs/annotate.md at 1280×800 from a copy of the example project:
//   cargo build && node tests/e2e/screenshots.mjs [OUT_DIR]      (default: docs/annotate)
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, closeBrowser, copyProject, newPage, startAnnotate } from './harness.mjs';

const out = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'annotate'));
fs.mkdirSync(out, { recursive: true });

const dir = copyProject();
// Started from the project directory, as a user would, so the paths shown are relative.
const server = await startAnnotate('.', ['--annotator', 'a2'], { cwd: dir });
const page = await newPage();
const post = (url, body) => page.evaluate(([u, b]) => fetch(u, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) }).then((r) => r.status), [url, body]);
const shot = async (name) => {
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(out, `${name}.png`) });
  console.log(path.join(out, `${name}.png`));
};
const ptr = (p) => `[data-ptr="${p}"]`;

try {
  // The queue, with the progress header: one sample skipped, one with a discussion note.
  await page.goto(`${server.url}#/queue`);
  await page.waitForSelector('.queue-table');
  await post('/api/sample/e2e-002/skip', {});
  const ext3 = await page.evaluate(() => fetch('/api/sample/ext-003').then((r) => r.json()));
  await post('/api/sample/ext-003/discussion', { fingerprint: ext3.fingerprint, note: 'Is the export one requirement or two?' });
  await page.reload();
  await page.waitForSelector('.queue-table');
  await page.evaluate(() => document.activeElement.blur());
  await shot('queue');

  // The machine-made draft, from a server started with --prefill.
  const drafts = await startAnnotate('.', ['--annotator', 'a4', '--prefill', 'answers/main.jsonl'], { cwd: dir });
  try {
    await page.goto(`${drafts.url}#/sample/ext-005`);
    await page.waitForSelector('#draft-banner');
    await page.evaluate(() => document.activeElement.blur());
    await shot('draft');
  } finally {
    await drafts.stop();
  }

  // The review view with the annotators side by side.
  await page.goto(`${server.url}#/review/ext-001`);
  await page.waitForSelector('.review-table');
  await page.check('[data-pick="requirements/0/0"]');
  await page.check('[data-pick="requirements/1/1"]');
  // Ticking scrolled the page: bring the column heads (who is who) back to the top.
  await page.evaluate(() => document.querySelector('.review-table thead').scrollIntoView({ block: 'start' }));
  await shot('review');

  // Labelling an extraction sample, a validation error shown next to its field.
  await page.goto(`${server.url}#/sample/ext-010`);
  await page.waitForSelector('main h1:text-is("ext-010")');
  await page.keyboard.press('Alt+KeyN');
  await page.selectOption(ptr('/requirements/0/type'), 'functional');
  await page.fill(ptr('/requirements/0/title'), 'Export the monthly report');
  await page.fill(ptr('/requirements/0/actor'), 'finance analyst');
  await page.selectOption(ptr('/requirements/0/priority'), 'must');
  await page.fill(ptr('/requirements/0/action'), 'export the monthly report as a spreadsheet');
  await page.fill(ptr('/requirements/0/acceptance_criteria/0'), 'The export holds every line of the report');
  await page.click('[data-msg="0"]');
  await page.click('[data-msg="2"]');
  await page.click(ptr('/requirements/0/acceptance_criteria/1'));
  await page.click(ptr('/requirements/0/rationale'));
  await page.click('[data-action="save"]', { force: true }); // blocked: says why
  await page.evaluate(() => document.querySelector('[data-item="/requirements/0"]').scrollIntoView({ block: 'start' }));
  await shot('label');

  // The conflict banner: the file changed on disk after the page loaded the sample.
  await page.goto(`${server.url}#/sample/ext-002`);
  await page.click('#leave-go'); // the label view above has unsaved edits
  await page.waitForSelector('main h1:text-is("ext-002")');
  await page.fill(ptr('/requirements/0/title'), 'Book an appointment online');
  const file = path.join(dir, 'suite', 'extraction', 'ext-002.yaml');
  fs.appendFileSync(file, '# edited in another window\n');
  await page.click('[data-action="save"]');
  await page.waitForSelector('#conflict-banner');
  await page.evaluate(() => document.activeElement.blur());
  await shot('conflict');
} finally {
  await page.close();
  await closeBrowser();
  await server.stop();
}
