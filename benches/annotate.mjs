// Benchmark of `goldgate annotate` (driven by benches/annotate.sh): for each suite given,
// start the server, then
//   - page: open the page in headless Chromium and wait until the queue's first rows are
//     on screen, K times (a fresh page each time); the median and the slowest;
//   - queue: GET /api/queue (what the page asks for) K times;
//   - save: PUT one sample's annotation N times (each read back first for its
//     fingerprint, as the page does), timing the PUT alone: the check, the edit and the
//     atomic write.
// Prints one line per suite and measure. Usage:
//   node benches/annotate.mjs GOLDGATE_BIN RUNS SUITE_DIR...
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.resolve('tests/e2e/package.json'));
const { chromium } = require('playwright-core');

const [bin, runsArg, ...suites] = process.argv.slice(2);
const runs = Number(runsArg);

function start(dir) {
  const child = spawn(bin, ['annotate', dir, '--annotator', 'bench', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`goldgate annotate exited with ${code}`)));
    child.stdout.on('data', (b) => {
      out += b;
      const m = /goldgate annotate: (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const max = (xs) => Math.max(...xs);
const ms = (x) => `${x.toFixed(1)} ms`;

const requirement = (i) => ({
  id: 'REQ-001', title: `Track orders ${i}`, type: 'functional', actor: 'customer',
  action: 'see the status of an order', acceptance_criteria: ['The status shows', 'It refreshes'],
  priority: 'must', source_messages: [0],
});

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldgate-annotate-bench-'));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const dir of suites) {
    const { url, child } = await start(dir);
    const name = path.basename(path.dirname(dir)) + '/' + path.basename(dir);
    try {
      const page = [];
      for (let i = 0; i <= runs; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const tab = await context.newPage();
        const t0 = performance.now();
        await tab.goto(url);
        await tab.waitForSelector('table.queue-table tbody tr');
        const t = performance.now() - t0;
        if (i > 0) page.push(t); // the first load warms the browser up
        await context.close();
      }
      const queue = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const r = await fetch(`${url}api/queue?page=1&per_page=50&order=todo`);
        await r.json();
        queue.push(performance.now() - t0);
      }
      const first = (await (await fetch(`${url}api/queue?per_page=1`)).json()).items[0].id;
      const save = [];
      for (let i = 0; i < runs * 5; i++) {
        const sample = await (await fetch(`${url}api/sample/${first}`)).json();
        const body = JSON.stringify({ fingerprint: sample.fingerprint, annotation: { requirements: [requirement(i)] } });
        const t0 = performance.now();
        const r = await fetch(`${url}api/sample/${first}/annotation`, {
          method: 'PUT', headers: { 'content-type': 'application/json' }, body,
        });
        await r.json();
        if (!r.ok) throw new Error(`save failed: ${r.status}`);
        save.push(performance.now() - t0);
      }
      const samples = (await (await fetch(`${url}api/session`)).json()).suite.samples;
      console.log(`${name} (${samples} samples)  page load: median ${ms(median(page))}, slowest ${ms(max(page))} (target < 200 ms)`);
      console.log(`${name} (${samples} samples)  GET /api/queue: median ${ms(median(queue))}, slowest ${ms(max(queue))}`);
      console.log(`${name} (${samples} samples)  save: median ${ms(median(save))}, slowest ${ms(max(save))} (target < 50 ms)`);
    } finally {
      child.kill('SIGTERM');
    }
  }
} finally {
  await browser.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
