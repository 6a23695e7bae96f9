// `goldgate annotate` over plain HTTP (no browser): the token beyond loopback, paths outside
// the suite, request size and content-type caps, the security headers, and the problems of
// a refused save.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { copySuite, startAnnotate } from './harness.mjs';

const servers = [];
async function serve(dir, args) {
  const s = await startAnnotate(dir, args);
  servers.push(s);
  return s;
}
after(() => Promise.all(servers.map((s) => s.stop())));

// A raw request: the path is sent exactly as given (fetch would normalise `..`).
function raw(base, { method = 'GET', path: p = '/', headers = {}, body } = {}) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    // With `Expect: 100-continue` the body is sent only once the server asked for it, so a
    // server that refuses a body from its headers answers before any of it is sent.
    const req = http.request({ host: u.hostname, port: u.port, method, path: p, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body !== undefined && /100-continue/i.test(headers.Expect || '')) req.on('continue', () => req.end(body));
    else if (body !== undefined) req.end(body);
    else req.end();
  });
}

describe('goldgate annotate over HTTP', () => {
  test('on loopback: the page, its assets and the security headers; nothing else is served', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1']);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'loopback by default, no token');
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'; style-src 'self'/);
    const html = await page.text();
    assert.deepEqual(html.match(/<script\b[^>]*>/g), ['<script type="module" src="/js/main.js">'], 'one script: the page\'s entry module');
    assert.doesNotMatch(html, /\sstyle=|<script>|\son\w+=/i, 'no inline script, style or handler');
    const css = await fetch(`${server.base}/app.css`);
    assert.equal(css.status, 200, '/app.css');
    assert.match(css.headers.get('content-type'), /text\/css/, '/app.css');
    // Every module the page imports, from the entry module on: served as JavaScript, and
    // none parses HTML, sets inline styles or evaluates text.
    const modules = ['/js/main.js'];
    for (let i = 0; i < modules.length; i++) {
      const r = await fetch(server.base + modules[i]);
      assert.equal(r.status, 200, modules[i]);
      assert.match(r.headers.get('content-type'), /^text\/javascript/, modules[i]);
      const js = await r.text();
      assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\.style\.|eval\(|new Function|import\(/, `${modules[i]} never parses HTML or sets inline styles`);
      for (const [, spec] of js.matchAll(/^import [^;]* from '([^']+)';$/gm)) {
        const p = new URL(spec, server.base + modules[i]).pathname;
        if (!modules.includes(p)) modules.push(p);
      }
    }
    assert.ok(modules.length > 5, `the page's modules: ${modules.join(' ')}`);
    for (const p of ['/index.html', '/favicon.ico', '/app.js', '/js/', '/js/nope.js', '/js/../app.css', '/js/%2e%2e/app.css', '/src/annotate/assets/js/main.js', '/assets/js/main.js', '/suite.toml', '/extraction/ext-001.yaml']) {
      assert.equal((await raw(server.base, { path: p })).status, 404, p);
    }
  });

  test('paths outside the suite are not found', async () => {
    const dir = copySuite();
    fs.writeFileSync(path.join(path.dirname(dir), 'secret.txt'), 'TOP-SECRET-CONTENT');
    const server = await serve(dir, ['--annotator', 'a1']);
    for (const p of [
      '/../../etc/passwd',
      '/..%2F..%2Fetc%2Fpasswd',
      '/api/sample/..%2F..%2Fsuite.toml',
      '/api/sample/..%2Fsecret.txt',
      '/api/sample/../../suite.toml',
      '/api/sample/%2e%2e%2fsuite.toml',
      '/api/sample/extraction%2Fext-001.yaml',
      '/api/sample/nope',
    ]) {
      const r = await raw(server.base, { path: p });
      assert.equal(r.status, 404, `${p}: ${r.text}`);
      assert.doesNotMatch(r.text, /TOP-SECRET-CONTENT|protocol_version|root:/, p);
    }
    const ok = await raw(server.base, { path: '/api/sample/ext-001' });
    assert.equal(ok.status, 200);
  });

  test('a request naming another host is refused (a page elsewhere cannot rebind its name to the server)', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1']);
    const port = new URL(server.base).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      const r = await raw(server.base, { path: '/api/session', headers: { Host: host } });
      assert.equal(r.status, 421, `Host: ${host}`);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      assert.equal((await raw(server.base, { path: '/api/session', headers: { Host: host } })).status, 200, `Host: ${host}`);
    }
  });

  test('bound beyond loopback, every request needs the token', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1', '--host', '0.0.0.0']);
    assert.ok(server.token && server.token.length >= 16, `the printed address carries a token: ${server.url}`);
    assert.match(server.stderr() + server.stdout(), /warning/i, 'a warning is printed');
    for (const p of ['/', '/js/main.js', '/app.css', '/api/session', '/api/queue', '/api/sample/ext-001']) {
      const r = await raw(server.base, { path: p });
      assert.equal(r.status, 401, `${p} without the token`);
    }
    const wrong = await raw(server.base, { path: '/api/session', headers: { Cookie: 'goldgate_token=wrong' } });
    assert.equal(wrong.status, 401, 'a wrong token');
    const page = await raw(server.base, { path: `/?token=${server.token}` });
    assert.equal(page.status, 200, 'the page with the token in the address');
    const cookie = String(page.headers['set-cookie']);
    assert.match(cookie, new RegExp(`goldgate_token=${server.token}`));
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const api = await raw(server.base, { path: '/api/session', headers: { Cookie: `goldgate_token=${server.token}` } });
    assert.equal(api.status, 200, 'the API with the cookie the page set');
    assert.equal(JSON.parse(api.text).annotator, 'a1');
    // With the token, a Host naming another server is still refused.
    const port = new URL(server.base).port;
    for (const host of ['evil.example', `evil.example:${port}`]) {
      const r = await raw(server.base, { path: '/api/session', headers: { Host: host, Cookie: `goldgate_token=${server.token}` } });
      assert.equal(r.status, 421, `Host: ${host} with the token`);
    }
  });

  test('request bodies are capped and must be JSON', async () => {
    const dir = copySuite();
    const server = await serve(dir, ['--annotator', 'a1']);
    const sample = JSON.parse((await raw(server.base, { path: '/api/sample/ext-010' })).text);
    const big = JSON.stringify({ fingerprint: sample.fingerprint, annotation: { requirements: [{ id: 'REQ-001', title: 'x'.repeat(2 * 1024 * 1024) }] } });
    const r413 = await raw(server.base, { method: 'PUT', path: '/api/sample/ext-010/annotation', headers: { 'Content-Type': 'application/json', Expect: '100-continue', 'Content-Length': Buffer.byteLength(big) }, body: big });
    assert.equal(r413.status, 413, r413.text);
    assert.equal(JSON.parse(r413.text).error, 'too_large');
    const body = JSON.stringify({ fingerprint: sample.fingerprint, annotation: { requirements: [] } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await raw(server.base, { method: 'PUT', path: '/api/sample/ext-010/annotation', headers: { 'Content-Type': type }, body });
      assert.equal(r.status, 415, `${type}: ${r.text}`);
    }
    const none = await raw(server.base, { method: 'POST', path: '/api/sample/ext-010/skip', body: '{}' });
    assert.equal(none.status, 415, 'no content type');
    const bad = await raw(server.base, { method: 'PUT', path: '/api/sample/ext-010/annotation', headers: { 'Content-Type': 'application/json' }, body: '{not json' });
    assert.equal(bad.status, 400, bad.text);
  });

  test('a save that breaks the labelling schema is refused with problems at the fields of the annotation sent', async () => {
    const dir = copySuite();
    const file = path.join(dir, 'extraction', 'ext-010.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const server = await serve(dir, ['--annotator', 'a1']);
    const sample = JSON.parse((await raw(server.base, { path: '/api/sample/ext-010' })).text);
    const annotation = {
      requirements: [
        { id: 'REQ-001', title: 'A', type: 'functional', actor: 'user', action: 'do', acceptance_criteria: ['only one'], priority: 'must', source_messages: [0] },
        { id: 'REQ-001', title: 'B', type: 'functonal', actor: 'user', action: 'do', acceptance_criteria: ['a', 'b'], priority: 'must', source_messages: [99], confidence: 2 },
      ],
    };
    const r = await raw(server.base, { method: 'PUT', path: '/api/sample/ext-010/annotation', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fingerprint: sample.fingerprint, annotation }) });
    assert.equal(r.status, 422, r.text);
    const body = JSON.parse(r.text);
    assert.equal(body.error, 'invalid');
    const pointers = body.problems.map((p) => p.pointer);
    for (const want of ['/requirements/0/acceptance_criteria', '/requirements/1/type', '/requirements/1/confidence']) {
      assert.ok(
        pointers.some((p) => p === want || p.startsWith(`${want}/`)),
        `a problem at ${want}: ${JSON.stringify(body.problems)}`,
      );
    }
    assert.ok(pointers.some((p) => p.startsWith('/requirements/1/source_messages')), JSON.stringify(body.problems));
    assert.ok(pointers.some((p) => p.startsWith('/requirements/1/id') || p === '/requirements/1' || p === '/requirements'), `the duplicate id: ${JSON.stringify(body.problems)}`);
    assert.equal(fs.readFileSync(file, 'utf8'), original);
  });
});
