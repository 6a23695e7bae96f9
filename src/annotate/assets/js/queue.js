// goldgate annotate: the queue view — the suite's agreement and every annotator's progress,
// the order / filter / page-size controls, one page of samples and the pager.

import { api } from './api.js';
import { enc, h, navKey, uid } from './dom.js';
import { kappaNode } from './shared.js';
import { S, go } from './state.js';
import { bandClass, fmtKappa, str } from './text.js';

const ORDERS = [
  ['suite', 'Suite order'],
  ['todo', 'To do first'],
  ['disagreement', 'Most disagreement first'],
];
const SHOWS = [
  ['all', 'All samples'],
  ['todo', 'My to do'],
  ['labelled', 'Labelled by me'],
  ['skipped', 'Skipped by me'],
  ['discussion', 'Needing discussion'],
];

export class QueueView {
  static async load(params) {
    const q = {
      page: Math.max(1, parseInt(params.get('page'), 10) || 1),
      per_page: Math.min(200, Math.max(1, parseInt(params.get('per_page'), 10) || 50)),
      order: ORDERS.some(([v]) => v === params.get('order')) ? params.get('order') : 'suite',
      show: SHOWS.some(([v]) => v === params.get('show')) ? params.get('show') : 'all',
    };
    const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
    const [queue, progress] = await Promise.all([api('GET', `/api/queue?${qs}`), api('GET', '/api/progress'), S.ready]);
    return new QueueView(q, queue, progress);
  }

  constructor(q, queue, progress) {
    this.q = q;
    this.queue = queue;
    this.progress = progress;
    this.title = 'Queue';
    this.el = h('div', { class: 'queue-view' }, h('h1', null, 'Queue'), this.progressPanel(), this.controls(), this.table(), this.pager());
  }

  hash(changes) {
    const q = { ...this.q, ...changes };
    return `#/queue?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString()}`;
  }

  progressPanel() {
    const p = this.progress || {};
    const ag = p.agreement || {};
    const bar = p.min_kappa ?? S.session.min_kappa;
    const verdict =
      p.meets_bar === true
        ? h('span', { class: 'verdict meets' }, `✔ meets the ${bar} bar`)
        : p.meets_bar === false
          ? h('span', { class: 'verdict below' }, `✘ below the ${bar} bar`)
          : h('span', { class: 'verdict unknown' }, `not computable yet (bar ${bar})`);
    const pairs = Array.isArray(ag.pairs) ? ag.pairs : [];
    const detail = [];
    if (ag.fleiss != null) detail.push(`Fleiss' κ ${fmtKappa(ag.fleiss)} over ${ag.fleiss_messages ?? '?'} messages`);
    if (pairs.length) detail.push(`pairs: ${pairs.map((x) => `${x.a}–${x.b} ${fmtKappa(x.kappa)}`).join(', ')}`);
    detail.push(`${ag.samples ?? 0} samples with 2+ annotators`);
    const anns = Array.isArray(p.annotators) ? p.annotators : [];
    return h(
      'section',
      { class: 'progress-panel', 'aria-label': 'Progress' },
      h(
        'div',
        { class: 'panel' },
        h('h2', null, 'Suite agreement'),
        h(
          'div',
          { class: 'kappa-big' },
          h('span', { class: 'value' }, 'κ ', fmtKappa(ag.headline)),
          ag.band ? h('span', { class: `kappa ${bandClass(ag.band)}` }, ag.band) : null,
          verdict,
        ),
        h('p', { class: 'kappa-detail' }, detail.join(' · ')),
        h(
          'div',
          { class: 'counts' },
          h('span', null, h('strong', null, String(p.samples ?? '—')), ' samples'),
          h('span', null, h('strong', null, String(p.discussion ?? 0)), ' need discussion'),
          h('span', null, h('strong', null, String(p.promoted ?? 0)), ' promoted'),
        ),
      ),
      h(
        'div',
        { class: 'panel' },
        h('h2', null, 'Annotators'),
        h(
          'table',
          { class: 'grid' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', null, 'annotator'),
              h('th', { class: 'num' }, 'labelled'),
              h('th', { class: 'num' }, 'skipped'),
              h('th', { class: 'num' }, 'to do'),
              h('th', null, 'progress'),
            ),
          ),
          h(
            'tbody',
            null,
            anns.map((a) => {
              const total = (a.labelled || 0) + (a.todo || 0) + (a.skipped || 0) || p.samples || 1;
              const me = a.name === p.current;
              return h(
                'tr',
                { class: me ? 'me' : null },
                h('td', null, me ? `${a.name} (you)` : a.name),
                h('td', { class: 'num' }, String(a.labelled ?? 0)),
                h('td', { class: 'num' }, me ? String(a.skipped ?? 0) : '—'),
                h('td', { class: 'num' }, String(a.todo ?? 0)),
                h('td', null, h('progress', { max: total, value: a.labelled || 0, 'aria-label': `${a.name}: ${a.labelled || 0} of ${total} labelled` })),
              );
            }),
          ),
        ),
      ),
    );
  }

  controls() {
    const sel = (name, label, options, value) => {
      const id = uid('q');
      const s = h(
        'select',
        { id, name },
        options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)),
      );
      s.addEventListener('change', () => go(this.hash({ [name]: s.value, page: 1 })));
      return h('label', { for: id }, label, s);
    };
    return h(
      'div',
      { class: 'controls' },
      sel('order', 'Order', ORDERS, this.q.order),
      sel('show', 'Show', SHOWS, this.q.show),
      sel(
        'per_page',
        'Per page',
        [25, 50, 100, 200].map((n) => [String(n), String(n)]),
        String(this.q.per_page),
      ),
    );
  }

  table() {
    const items = (this.queue && this.queue.items) || [];
    if (!items.length) return h('p', { class: 'empty' }, 'No samples match this view.');
    const cols = ['c-id', 'c-kind', 'c-domain', 'c-diff', 'c-status', 'c-ann', 'c-kappa', 'c-disc', 'c-prom', 'c-open'];
    const head = ['id', 'kind', 'domain', 'difficulty', 'my status', 'annotators', 'sample κ', 'discussion', 'promoted', ''];
    return h(
      'table',
      { class: 'grid queue-table' },
      h('colgroup', null, cols.map((c) => h('col', { class: c }))),
      h('thead', null, h('tr', null, head.map((t, i) => h('th', { scope: 'col', class: i === 6 ? 'num' : null }, t)))),
      h(
        'tbody',
        null,
        items.map((it) =>
          h(
            'tr',
            { 'data-id': it.id },
            h('td', null, h('a', { href: `#/sample/${enc(it.id)}` }, str(it.id)), it.has_draft ? [' ', h('span', { class: 'badge draft', title: 'a machine-made draft is available' }, 'draft')] : null),
            h('td', null, str(it.kind), it.task ? h('div', { class: 'hint' }, str(it.task)) : null),
            h('td', null, str(it.domain)),
            h('td', null, str(it.difficulty)),
            h('td', null, h('span', { class: `badge ${str(it.status)}` }, it.status === 'todo' ? 'to do' : str(it.status))),
            h('td', null, (it.annotators || []).join(', ') || '—'),
            h('td', { class: 'num' }, it.kappa == null ? '—' : kappaNode(it.kappa, null)),
            h('td', null, it.discussion ? h('span', { class: 'badge disc' }, `${it.discussion} note${it.discussion > 1 ? 's' : ''}`) : '—'),
            h('td', null, it.promoted ? h('span', { class: 'badge promoted' }, 'promoted') : '—'),
            h('td', null, h('a', { href: `#/review/${enc(it.id)}`, 'aria-label': `Review ${it.id}` }, 'Review')),
          ),
        ),
      ),
    );
  }

  pager() {
    const { page = 1, pages = 1, total = 0 } = this.queue || {};
    const btn = (label, p, disabled, aria) =>
      h(
        'a',
        {
          class: 'btn',
          href: disabled ? null : this.hash({ page: p }),
          'aria-disabled': disabled ? 'true' : null,
          'aria-label': aria,
          role: disabled ? 'link' : null,
        },
        label,
      );
    return h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      btn('« First', 1, page <= 1, 'First page'),
      btn('‹ Previous', page - 1, page <= 1, 'Previous page'),
      h('span', { class: 'where' }, `page ${page} of ${Math.max(1, pages)} · ${total} samples`),
      btn('Next ›', page + 1, page >= pages, 'Next page'),
      btn('Last »', pages, page >= pages, 'Last page'),
    );
  }

  onKey(e, typing) {
    const d = navKey(e, typing);
    if (!d) return false;
    const { page = 1, pages = 1 } = this.queue || {};
    const p = page + d;
    if (p >= 1 && p <= pages) go(this.hash({ page: p }));
    return true;
  }
}
