// Takes the screenshots of docs/annotate.md at 1280×800 from a copy of the example project:
//   cargo build && node tests/e2e/screenshots.mjs [OUT_DIR]      (default: docs/annotate)
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, closeBrowser, copyProject, newPage, startAnnotate } from './harness.mjs';

const out = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'annotate'));
fs.mkdirSync(out, { recursive: true });

const dir = copyProject();
const server = await startAnnotate(dir, ['--annotator', 'a2', '--prefill', path.join(dir, 'answers', 'main.jsonl')]);
const page = await newPage();
const shot = async (name) => {
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(out, `${name}.png`) });
  console.log(path.join(out, `${name}.png`));
};
const ptr = (p) => `[data-ptr="${p}"]`;

try {
  // The queue, with the progress header.
  await page.goto(`${server.url}#/queue?order=todo`);
  await page.waitForSelector('.queue-table');
  await page.evaluate(() => document.activeElement.blur());
  await shot('queue');

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
  await page.click('[data-action="save"]');
  await page.evaluate(() => document.querySelector('[data-item="/requirements/0"]').scrollIntoView({ block: 'start' }));
  await page.evaluate(() => {
    document.querySelector('.form-scroll').scrollTop += 150;
  });
  await shot('label');

  // The machine-made draft.
  await page.goto(`${server.url}#/sample/ext-005`);
  await page.waitForSelector('#draft-banner');
  await page.click('#leave-go').catch(() => {});
  await page.waitForSelector('main h1:text-is("ext-005")');
  await page.evaluate(() => document.activeElement.blur());
  await shot('draft');

  // The review view with the annotators side by side.
  await page.goto(`${server.url}#/review/ext-001`);
  await page.waitForSelector('.review-table');
  await page.check('[data-pick="requirements/0/0"]');
  await page.check('[data-pick="requirements/1/1"]');
  await page.evaluate(() => {
    document.querySelector('main').scrollTop = document.querySelector('.review-table').getBoundingClientRect().top - 120;
  });
  await shot('review');

  // The conflict banner: the file changed on disk after the page loaded the sample.
  await page.goto(`${server.url}#/sample/ext-015`);
  await page.waitForSelector('main h1:text-is("ext-015")');
  await page.keyboard.press('Alt+KeyN');
  await page.selectOption(ptr('/requirements/0/type'), 'functional');
  await page.fill(ptr('/requirements/0/title'), 'Book a meeting room');
  await page.fill(ptr('/requirements/0/actor'), 'employee');
  await page.selectOption(ptr('/requirements/0/priority'), 'must');
  await page.fill(ptr('/requirements/0/action'), 'book a meeting room from the intranet');
  await page.fill(ptr('/requirements/0/acceptance_criteria/0'), 'A free room can be booked in three clicks');
  await page.fill(ptr('/requirements/0/acceptance_criteria/1'), 'A booked room shows as taken at once');
  await page.click('[data-msg="0"]');
  const file = path.join(dir, 'suite', 'extraction', 'ext-015.yaml');
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
