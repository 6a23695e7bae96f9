// Two annotators, each with their own `goldgate annotate` on one checkout, saving the same
// file at the same moment: no save that was answered 200 may be lost. A save that loses
// the race is refused (409) and the page asks for a reload.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { copySuite, startAnnotate } from './harness.mjs';
import YAML from 'yaml';

const servers = [];
after(() => Promise.all(servers.map((s) => s.stop())));

const requirement = (title) => ({
  id: 'REQ-001', title, type: 'functional', actor: 'customer', action: 'see the status of an order',
  acceptance_criteria: ['The status shows', 'It refreshes'], priority: 'must', source_messages: [0],
});

async function save(url, id, fingerprint, title) {
  const r = await fetch(`${url}api/sample/${id}/annotation`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fingerprint, annotation: { requirements: [requirement(title)] } }),
  });
  return { status: r.status, body: await r.json() };
}

test('two servers saving one file at once never lose a save they answered 200 to', async () => {
  const dir = copySuite();
  for (const who of ['a4', 'a5']) servers.push(await startAnnotate(dir, ['--annotator', who]));
  const [s4, s5] = servers;
  const id = 'ext-005';
  const file = path.join(dir, 'extraction', `${id}.yaml`);
  const last = { a4: null, a5: null };
  let refused = 0;
  for (let round = 0; round < 25; round++) {
    const [f4, f5] = await Promise.all([s4, s5].map(async (s) => (await (await fetch(`${s.url}api/sample/${id}`)).json()).fingerprint));
    const results = await Promise.all([
      save(s4.url, id, f4, `a4 round ${round}`),
      save(s5.url, id, f5, `a5 round ${round}`),
    ]);
    for (const [who, r] of [['a4', results[0]], ['a5', results[1]]]) {
      if (r.status === 200) last[who] = `${who} round ${round}`;
      else {
        assert.equal(r.status, 409, JSON.stringify(r.body));
        refused++;
      }
    }
    // What the file holds is every save answered 200, the latest of each annotator.
    const annotations = YAML.parse(fs.readFileSync(file, 'utf8')).annotations ?? [];
    for (const who of ['a4', 'a5']) {
      const entry = annotations.find((a) => a.annotator === who);
      assert.equal(entry?.requirements?.[0]?.title ?? null, last[who], `round ${round}: ${who}'s save was lost`);
    }
  }
  assert.ok(!fs.existsSync(`${file}.goldgate-lock`), 'the lock file is gone');
  console.log(`# ${refused} of 50 saves lost the race and were refused`);
});
