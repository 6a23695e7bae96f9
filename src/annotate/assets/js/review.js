// goldgate annotate: the review view — every annotator's labels side by side with the gold,
// items matched across annotators (by the key the kind's section gives, such as an id, else
// by position), the fields where they differ marked (the section's columns), and promotion
// to gold of one annotator's labels or of items picked row by row.

import { api } from './api.js';
import { $, enc, fill, h, navKey, uid } from './dom.js';
import { FIELD_LABEL } from './fields.js';
import { KINDS } from './kinds.js';
import { discussionList, marksTable, messageNodes, reviewLine, sampleMeta } from './shared.js';
import { S, go } from './state.js';
import { clone, str } from './text.js';

// Rows of items across columns: matched by key (id) first, the rest by position.
function matchItems(lists, keyFn) {
  const groups = [];
  const byKey = new Map();
  const rest = lists.map(() => []);
  lists.forEach((list, c) => {
    const seen = new Set();
    (list || []).forEach((item) => {
      const k = keyFn(item);
      if (k && !seen.has(k)) {
        seen.add(k);
        let g = byKey.get(k);
        if (!g) {
          g = { key: k, cells: [] };
          byKey.set(k, g);
          groups.push(g);
        }
        g.cells[c] = item;
      } else rest[c].push(item);
    });
  });
  // A key only one column has is matched by position with the other leftovers.
  const keep = [];
  for (const g of groups) {
    const present = g.cells.filter((x) => x !== undefined).length;
    if (present > 1 || lists.length === 1) keep.push(g);
    else g.cells.forEach((item, c) => item !== undefined && rest[c].push(item));
  }
  const n = Math.max(0, ...rest.map((r) => r.length));
  for (let j = 0; j < n; j++) keep.push({ key: null, pos: j, cells: rest.map((r) => r[j]) });
  return keep;
}

function getPath(obj, path) {
  if (!path) return obj;
  let v = obj;
  for (const p of path.split('.')) v = v && typeof v === 'object' ? v[p] : undefined;
  return v;
}

function valueKey(v) {
  if (v == null || v === '' || (Array.isArray(v) && !v.length)) return '';
  if (typeof v === 'string') return v.trim();
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return JSON.stringify([...v].sort((a, b) => a - b));
  return JSON.stringify(v);
}

function valueNode(path, v) {
  if (Array.isArray(v)) {
    if (path.endsWith('source_messages')) return v.map((i) => `#${i}`).join(', ');
    if (path.endsWith('acceptance_criteria')) return h('ul', null, v.map((c) => h('li', null, str(c))));
    return v.map(str).join(', ');
  }
  return str(v);
}

export class ReviewView {
  constructor(s) {
    this.title = `Review ${s.id}`;
    this.el = h('div', { class: 'review-view' });
    this.init(s);
  }

  init(s) {
    this.s = s;
    this.form = KINDS.get(s.kind) || null;
    this.keys = this.form ? this.form.keys : [];
    this.task = s.task && S.session.tasks ? S.session.tasks[s.task] : null;
    this.cols = (Array.isArray(s.annotations) ? s.annotations : []).filter((a) => a && typeof a === 'object');
    this.picks = new Map(); // `${key}/${row}` -> column index
    this.conflict = null;
    this.render();
  }

  isDirty() {
    return false;
  }

  render() {
    const s = this.s;
    const pos = s.position || {};
    // The rows of each section, as rendered below (none when no annotator labelled it).
    this.groups = {};
    this.statusEl = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.confirmEl = h('div', { class: 'confirm', hidden: true });
    this.problemsEl = h('div');
    this.pickBtn = h('button', { type: 'button', class: 'btn primary', 'data-action': 'promote-picked', onclick: () => this.promotePicked() }, 'Promote the picked items');
    const conv = Array.isArray(s.conversation) ? s.conversation : [];
    fill(this.el,
      h(
        'header',
        { class: 'sample-head' },
        h('h1', null, `Review ${str(s.id)}`),
        sampleMeta(s),
        h(
          'div',
          { class: 'sample-nav' },
          h('a', { class: 'btn small', href: '#/queue' }, '← Queue'),
          h('a', { class: 'btn small', href: pos.prev ? `#/review/${enc(pos.prev)}` : null, 'aria-disabled': pos.prev ? null : 'true' }, '‹ Previous'),
          h('a', { class: 'btn small', href: pos.next ? `#/review/${enc(pos.next)}` : null, 'aria-disabled': pos.next ? null : 'true' }, 'Next ›'),
          h('a', { class: 'btn small', href: `#/sample/${enc(s.id)}` }, 'Label this sample'),
        ),
      ),
      this.conflict
        ? h(
            'div',
            { class: 'banner conflict', role: 'alert', id: 'conflict-banner' },
            h('h2', null, 'Not promoted: this sample changed on disk'),
            h('p', null, `${str(s.file)} changed since this page loaded it; nothing was written.`),
            h('div', { class: 'actions' }, h('button', { type: 'button', class: 'btn primary', 'data-action': 'reload', onclick: () => this.reload() }, 'Reload the version on disk')),
          )
        : null,
      s.review ? reviewLine(s.review) : h('div', { class: 'banner info review-status' }, 'Not promoted yet: the gold labels are as written in the file.'),
      this.problemsEl,
      discussionList(s) ? [h('h2', { class: 'section-title' }, 'Needs discussion'), discussionList(s)] : null,
      conv.length
        ? h(
            'details',
            { class: 'conversation' },
            h('summary', null, `Conversation (${conv.length} messages)`),
            h('div', { class: 'messages' }, messageNodes(conv)),
          )
        : null,
      s.text ? h('details', { class: 'conversation', open: true }, h('summary', null, 'Text'), h('div', { class: 'text-block' }, str(s.text))) : null,
      this.cols.length
        ? [
            conv.length && s.agreement && s.agreement.marks && Object.keys(s.agreement.marks).length
              ? [h('h2', { class: 'section-title' }, 'Message sources'), marksTable(s.agreement.marks, conv.length, S.session.annotator)]
              : null,
            this.keys.map((k) => this.section(k)),
          ]
        : h('p', { class: 'empty' }, 'No annotator has labelled this sample yet: there is nothing to review.'),
      this.cols.length ? h('div', { class: 'review-actions' }, this.pickBtn, h('span', { class: 'hint', id: 'pick-summary' }), this.confirmEl, this.statusEl) : null,
    );
    this.updatePicks();
  }

  section(key) {
    const all = [...this.cols.map((a) => (Array.isArray(a[key]) ? a[key] : [])), Array.isArray((this.s.labels || {})[key]) ? this.s.labels[key] : []];
    // The kind's section of `key` says how its items match across columns, and its columns.
    const review = (this.form && this.form.section(key) && this.form.section(key).review) || null;
    const groups = matchItems(all, review ? review.itemKey(this.task) : () => '');
    const fields = review ? review.columns(this.task) : [];
    const gold = this.cols.length;
    const head = h(
      'tr',
      null,
      h('th', { class: 'rowhead', scope: 'col' }, 'item'),
      this.cols.map((a, c) =>
        h(
          'th',
          { scope: 'col' },
          h(
            'div',
            { class: 'col-head' },
            h('span', null, a.annotator === S.session.annotator ? `${str(a.annotator)} (you)` : str(a.annotator), ` · ${(Array.isArray(a[key]) ? a[key] : []).length}`),
            key === this.keys[0]
              ? h('button', { type: 'button', class: 'btn small', 'data-action': `promote-${c}`, onclick: () => this.promoteAll(c) }, `Promote ${str(a.annotator)}'s labels`)
              : null,
          ),
        ),
      ),
      h('th', { scope: 'col' }, `gold (current) · ${all[gold].length}`),
    );
    const rows = groups.map((g, r) => {
      const present = this.cols.map((_, c) => g.cells[c] !== undefined);
      const somePresent = present.some(Boolean);
      const diffFields = new Set();
      for (const [path] of fields) {
        const vals = new Set(this.cols.map((_, c) => g.cells[c]).filter((x) => x !== undefined).map((x) => valueKey(getPath(x, path))));
        if (vals.size > 1) diffFields.add(path);
      }
      const label = g.key && g.key.startsWith('id:') ? g.key.slice(3) : `#${(g.pos ?? r) + 1}`;
      return h(
        'tr',
        { 'data-row': `${key}/${r}` },
        h('th', { scope: 'row', class: 'rowhead' }, label),
        this.cols.map((a, c) => {
          const item = g.cells[c];
          if (item === undefined) return h('td', { class: somePresent ? 'missing' : null }, 'missing');
          const pickId = uid('pick');
          const cb = h('input', { type: 'checkbox', id: pickId, 'data-pick': `${key}/${r}/${c}` });
          cb.checked = this.picks.get(`${key}/${r}`) === c;
          cb.addEventListener('change', () => {
            if (cb.checked) this.picks.set(`${key}/${r}`, c);
            else this.picks.delete(`${key}/${r}`);
            this.updatePicks();
          });
          return h('td', { 'data-cell': `${key}/${r}/${c}` }, h('label', { class: 'pick', for: pickId }, cb, 'pick'), this.itemNode(item, fields, diffFields));
        }),
        h('td', { class: 'gold' }, g.cells[gold] === undefined ? h('span', { class: 'hint' }, '—') : this.itemNode(g.cells[gold], fields, new Set())),
      );
    });
    this.groups[key] = groups;
    return h(
      'section',
      { class: 'form-section' },
      h('h2', { class: 'section-title' }, (review && review.title) || key),
      groups.length ? h('table', { class: 'grid review-table' }, h('thead', null, head), h('tbody', null, rows)) : h('p', { class: 'hint' }, 'No items from any annotator.'),
    );
  }

  itemNode(item, fields, diffs) {
    if (typeof item !== 'object' || item === null) return h('div', { class: 'cell-item' }, h('dl', null, h('dt', { class: diffs.has('') ? 'diff' : null }, 'value'), h('dd', { class: diffs.has('') ? 'diff' : null }, str(item))));
    const rows = [];
    for (const [path, label] of fields) {
      const v = getPath(item, path);
      const d = diffs.has(path);
      if (valueKey(v) === '' && !d) continue;
      rows.push(h('dt', { class: d ? 'diff' : null }, label), h('dd', { class: d ? 'diff' : null }, valueKey(v) === '' ? '—' : valueNode(path, v)));
    }
    return h('div', { class: 'cell-item' }, h('dl', null, rows));
  }

  pickedLabels() {
    const labels = {};
    const from = new Set();
    let count = 0;
    for (const key of this.keys) {
      labels[key] = [];
      (this.groups[key] || []).forEach((g, r) => {
        const c = this.picks.get(`${key}/${r}`);
        if (c === undefined || g.cells[c] === undefined) return;
        labels[key].push(clone(g.cells[c]));
        from.add(c);
        count++;
      });
    }
    const names = [...from].sort((a, b) => a - b).map((c) => str(this.cols[c].annotator));
    return { labels, from: names, count };
  }

  updatePicks() {
    if (!this.pickBtn) return;
    const { count, from } = this.pickedLabels();
    this.el.querySelectorAll('td[data-cell]').forEach((td) => {
      const [key, r, c] = td.getAttribute('data-cell').split('/');
      td.classList.toggle('picked', this.picks.get(`${key}/${r}`) === Number(c));
      const cb = td.querySelector('input[type=checkbox]');
      if (cb) cb.checked = this.picks.get(`${key}/${r}`) === Number(c);
    });
    if (count) this.pickBtn.removeAttribute('aria-disabled');
    else this.pickBtn.setAttribute('aria-disabled', 'true');
    const sum = $('#pick-summary', this.el);
    if (sum) sum.textContent = count ? `${count} item${count === 1 ? '' : 's'} picked, from ${from.join(', ')}` : 'Pick items from one or more annotators (one per row), or promote one annotator’s labels.';
  }

  promoteAll(c) {
    const a = this.cols[c];
    const labels = {};
    for (const key of this.keys) labels[key] = clone(Array.isArray(a[key]) ? a[key] : []);
    const n = this.keys.reduce((t, k) => t + labels[k].length, 0);
    this.ask(`Replace the gold labels of ${str(this.s.id)} with ${str(a.annotator)}'s labels (${n} item${n === 1 ? '' : 's'})?`, { from: [str(a.annotator)], labels });
  }

  promotePicked() {
    const { labels, from, count } = this.pickedLabels();
    if (!count) {
      this.say('Pick at least one item first (the “pick” boxes in the table).', 'bad');
      return;
    }
    this.ask(`Replace the gold labels of ${str(this.s.id)} with the ${count} picked item${count === 1 ? '' : 's'} (from ${from.join(', ')})?`, { from, labels });
  }

  ask(question, body) {
    const yes = h('button', { type: 'button', class: 'btn primary', 'data-action': 'confirm-promote', onclick: () => this.promote(body) }, 'Promote');
    fill(this.confirmEl,
      h('span', null, question),
      yes,
      h(
        'button',
        {
          type: 'button',
          class: 'btn',
          onclick: () => {
            this.confirmEl.hidden = true;
          },
        },
        'Cancel',
      ),
    );
    this.confirmEl.hidden = false;
    yes.focus();
  }

  async promote(body) {
    this.confirmEl.hidden = true;
    try {
      const data = await api('POST', `/api/sample/${enc(this.s.id)}/promote`, { fingerprint: this.s.fingerprint, from: body.from, labels: body.labels });
      this.init(data);
      this.say(`Promoted: the gold labels now come from ${body.from.join(', ')}.`, 'good');
    } catch (e) {
      if (e.status === 409 || e.code === 'changed') {
        this.conflict = { message: e.message };
        this.render();
        this.say('Not promoted: the sample changed on disk.', 'bad');
      } else if (e.problems.length) {
        fill(this.problemsEl,
          h(
            'div',
            { class: 'banner error', role: 'alert' },
            h('h2', null, 'Not promoted: these labels break the labelling schema'),
            h('ul', null, e.problems.map((p) => h('li', null, `${this.describe(p.pointer, body.labels)}: ${str(p.message)}${p.hint ? ` (${str(p.hint)})` : ''}`))),
          ),
        );
        this.say(`Not promoted: ${e.message}`, 'bad');
      } else this.say(`Not promoted: ${e.message}`, 'bad');
    }
  }

  describe(pointer, labels) {
    const parts = String(pointer || '').split('/').filter(Boolean);
    let node = labels;
    const out = [];
    for (const seg of parts) {
      const next = node && typeof node === 'object' ? node[seg] : undefined;
      if (/^\d+$/.test(seg) && Array.isArray(node)) {
        const id = next && (next.id || (next.requirement && next.requirement.id));
        out.push(id ? `${+seg + 1} (${str(id)})` : `${+seg + 1}`);
      } else out.push(FIELD_LABEL[seg] || seg);
      node = next;
    }
    return out.join(' › ') || 'labels';
  }

  async reload() {
    try {
      this.init(await api('GET', `/api/sample/${enc(this.s.id)}`));
    } catch (e) {
      this.say(`Could not reload: ${e.message}`, 'bad');
    }
  }

  say(text, cls = '') {
    this.statusEl.className = `status ${cls}`;
    this.statusEl.textContent = text;
  }

  onKey(e, typing) {
    const d = navKey(e, typing);
    if (!d) return false;
    const pos = this.s.position || {};
    const target = d < 0 ? pos.prev : pos.next;
    if (target) go(`#/review/${enc(target)}`);
    return true;
  }
}
