// goldgate annotate: the labelling page. Plain JavaScript, no framework, no build step; the
// server embeds this file in the binary. Suite text is only ever put in the page with
// textContent or value (never parsed as HTML), so HTML and scripts in a sample render as text.
'use strict';

(() => {
  // ---------------------------------------------------------------- DOM helpers

  let uidCounter = 0;
  const uid = (p = 'f') => `${p}${++uidCounter}`;
  const $ = (sel, root = document) => root.querySelector(sel);
  const enc = encodeURIComponent;

  // h('div', {class: 'x', onclick: fn}, 'text', child, [more]) — strings become text nodes.
  function h(tag, props, ...kids) {
    const e = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v == null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else if (k === 'value') e.value = v;
        else if (k === 'checked') e.checked = !!v;
        else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    append(e, kids);
    return e;
  }
  function append(e, kids) {
    for (const kid of kids.flat(Infinity)) {
      if (kid == null || kid === false) continue;
      e.append(kid instanceof Node ? kid : String(kid));
    }
    return e;
  }
  function fill(e, ...kids) {
    e.replaceChildren();
    return append(e, kids);
  }
  const kbd = (...keys) => keys.map((k, i) => [i ? ' + ' : '', h('kbd', null, k)]);

  function isTextField(el) {
    if (!el) return false;
    if (el.isContentEditable) return true;
    const tag = el.tagName;
    if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
    if (tag !== 'INPUT') return false;
    return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(el.type);
  }

  const norm = (s) =>
    String(s ?? '')
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  const str = (v) => (v == null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const clone = (v) => (v == null ? v : JSON.parse(JSON.stringify(v)));
  const fmtKappa = (k) => (k == null || Number.isNaN(k) ? '—' : Number(k).toFixed(2));
  const bandClass = (band) => (band ? band.replace(/\s+/g, '-') : '');

  // ---------------------------------------------------------------- API

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || `HTTP ${status}`);
      this.status = status;
      this.code = (body && body.error) || '';
      this.problems = (body && Array.isArray(body.problems) && body.problems) || [];
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (_) {
      throw new ApiError(0, {
        error: 'network',
        message: 'The server did not answer. Is goldgate annotate still running?',
      });
    }
    const text = await res.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (_) {
        data = null;
      }
    }
    if (!res.ok) {
      const fallback = {
        error: res.status === 401 ? 'unauthorized' : 'http',
        message:
          res.status === 401
            ? 'Not authorised: open the address goldgate annotate printed, with its token.'
            : `The server answered HTTP ${res.status}.`,
      };
      throw new ApiError(res.status, data && data.error ? data : fallback);
    }
    return data;
  }

  // ---------------------------------------------------------------- constants

  const KIND_KEYS = {
    extraction: ['requirements'],
    e2e: ['requirements'],
    inference: ['inferred_requirements'],
    validation: ['issues', 'pii'],
    tuples: ['tuples'],
  };
  const SOURCE_KINDS = ['extraction', 'e2e', 'inference'];
  const REQ_FIELDS = [
    'id',
    'title',
    'type',
    'actor',
    'action',
    'condition',
    'acceptance_criteria',
    'priority',
    'source_messages',
    'rationale',
    'confidence',
  ];
  const FIELD_LABEL = {
    id: 'Id',
    title: 'Title',
    type: 'Type',
    actor: 'Actor',
    action: 'Action',
    condition: 'Condition',
    acceptance_criteria: 'Acceptance criteria',
    priority: 'Priority',
    source_messages: 'Source messages',
    rationale: 'Rationale',
    confidence: 'Confidence',
    inference_type: 'Inference type',
    triggered_by: 'Triggered by',
    necessity: 'Necessity',
    issue_type: 'Issue type',
    severity: 'Severity',
    field: 'Field',
    location: 'Location',
    message: 'Message',
    suggested_fix: 'Suggested fix',
    implicit: 'Implicit',
  };
  const ISSUE_FIELDS = ['issue_type', 'severity', 'field', 'location', 'message', 'suggested_fix', 'confidence'];
  const INF_FIELDS = ['inference_type', 'triggered_by', 'necessity', 'rationale', 'confidence'];
  const NUMBER_RE = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

  // ---------------------------------------------------------------- app state

  const S = {
    session: null,
    idRe: null,
    view: null, // the mounted view: {el, onKey(e, typing), isDirty()}
    seq: 0,
    lastHash: '',
    leaving: null,
  };

  const main = () => $('#main');

  function mount(view) {
    S.view = view;
    main().scrollTop = 0; // before the new view is in: no layout forced here
    fill(main(), view.el);
  }

  function showFatal(err) {
    S.view = null;
    fill(main(),
      h(
        'div',
        { class: 'queue-view' },
        h('div', { class: 'banner error', role: 'alert' }, h('h2', null, 'Could not load this view'), h('p', null, err.message || String(err))),
        h('p', null, h('a', { href: '#/queue', class: 'btn' }, 'Back to the queue')),
      ),
    );
  }

  // ---------------------------------------------------------------- routing

  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, '');
    const q = raw.indexOf('?');
    const path = q >= 0 ? raw.slice(0, q) : raw;
    const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '');
    const parts = path.split('/');
    let id = parts.slice(1).join('/');
    try {
      id = decodeURIComponent(id);
    } catch (_) {
      /* keep it as it is */
    }
    return { view: parts[0] || 'queue', id, params };
  }

  function go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  }

  function onHashChange() {
    if (S.view && S.view.isDirty && S.view.isDirty() && !S.leaving) {
      const target = location.hash;
      history.replaceState(null, '', S.lastHash || '#/queue');
      askLeave(target);
      return;
    }
    S.leaving = null;
    route();
  }

  function askLeave(target) {
    const bar = $('#leave-bar');
    bar.hidden = false;
    $('#leave-stay').onclick = () => {
      bar.hidden = true;
    };
    $('#leave-go').onclick = () => {
      bar.hidden = true;
      S.leaving = target;
      location.hash = target;
    };
    $('#leave-stay').focus();
  }

  async function route() {
    $('#leave-bar').hidden = true;
    S.lastHash = location.hash;
    const r = parseHash();
    const seq = ++S.seq;
    $('#nav-queue').toggleAttribute('aria-current', r.view === 'queue');
    if (r.view === 'queue') $('#nav-queue').setAttribute('aria-current', 'page');
    try {
      // The view's data and the session are fetched at the same time.
      if (r.view === 'sample' && r.id) {
        const [s] = await Promise.all([api('GET', `/api/sample/${enc(r.id)}`), S.ready]);
        if (seq !== S.seq) return;
        mount(new LabelView(s));
      } else if (r.view === 'review' && r.id) {
        const [s] = await Promise.all([api('GET', `/api/sample/${enc(r.id)}`), S.ready]);
        if (seq !== S.seq) return;
        mount(new ReviewView(s));
      } else {
        const view = await QueueView.load(r.params);
        if (seq !== S.seq) return;
        mount(view);
      }
      document.title = `${S.view.title || 'goldgate annotate'} · goldgate annotate`;
      main().dataset.route = location.hash; // which view is on screen (tests wait for it)
      const heading = main().querySelector('h1');
      if (heading) {
        heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      }
    } catch (e) {
      if (seq === S.seq) showFatal(e);
    }
  }

  // ---------------------------------------------------------------- shortcuts

  function toggleHelp() {
    const d = $('#help');
    if (d.open) d.close();
    else d.showModal();
  }

  function onKeyDown(e) {
    if ($('#help').open) return; // the dialog handles Esc itself
    const typing = isTextField(document.activeElement);
    if (e.key === '?' && !typing && !e.ctrlKey && !e.altKey && !e.metaKey) {
      e.preventDefault();
      toggleHelp();
      return;
    }
    if (S.view && S.view.onKey && S.view.onKey(e, typing)) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  function navKey(e, typing) {
    // -1 previous, +1 next, 0 none: Alt+←/→ anywhere, [ and ] outside text fields.
    if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      if (e.key === 'ArrowLeft') return -1;
      if (e.key === 'ArrowRight') return 1;
    }
    if (!typing && !e.altKey && !e.ctrlKey && !e.metaKey) {
      if (e.key === '[') return -1;
      if (e.key === ']') return 1;
    }
    return 0;
  }

  // ---------------------------------------------------------------- shared renderers

  function kappaNode(k, band) {
    return h(
      'span',
      { class: `kappa ${bandClass(band)}` },
      fmtKappa(k),
      band ? h('span', { class: 'band' }, ` ${band}`) : null,
    );
  }

  function messageNodes(conversation, opts = {}) {
    return conversation.map((m, i) => {
      const role = m && typeof m === 'object' ? str(m.role) : '';
      const content = m && typeof m === 'object' ? str(m.content) : str(m);
      const props = { class: 'msg', 'data-msg': i };
      if (opts.clickable) {
        props.class += ' clickable';
        props.tabindex = '0';
        props.role = 'button';
        props['aria-pressed'] = 'false';
      }
      return h(
        'div',
        props,
        h('div', { class: 'idx', 'aria-label': `message ${i}` }, String(i)),
        h(
          'div',
          { class: 'body' },
          h('div', { class: 'role' }, role),
          h('div', { class: 'content' }, content),
          h('div', { class: 'mark-note', 'aria-live': 'off' }),
        ),
      );
    });
  }

  function marksTable(marks, nMessages, current) {
    const names = Object.keys(marks || {});
    if (!names.length || !nMessages) return null;
    const differs = [];
    for (let i = 0; i < nMessages; i++) {
      const vals = new Set(names.map((n) => !!(marks[n] || [])[i]));
      differs.push(vals.size > 1);
    }
    return h(
      'div',
      { class: 'marks-wrap' },
      h('p', { class: 'hint' }, 'Messages each annotator cites as a source (● cited, · not); an underlined column is one where they differ.'),
      h(
        'table',
        { class: 'marks' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'message'),
            differs.map((d, i) => h('th', { scope: 'col', class: d ? 'differs' : null, title: d ? 'annotators differ' : null }, String(i))),
          ),
        ),
        h(
          'tbody',
          null,
          names.map((n) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, n === current ? `${n} (you)` : n),
              differs.map((d, i) => {
                const on = !!(marks[n] || [])[i];
                return h(
                  'td',
                  { class: `${on ? 'on' : ''} ${d ? 'differs' : ''}`.trim() || null, 'aria-label': on ? 'cited' : 'not cited' },
                  on ? '●' : '·',
                );
              }),
            ),
          ),
        ),
      ),
    );
  }

  function agreementPanel(s) {
    const me = S.session.annotator;
    const a = s.agreement || {};
    const pairs = Array.isArray(a.pairs) ? a.pairs : [];
    const mine = pairs.filter((p) => p.a === me || p.b === me);
    const others = pairs.filter((p) => p.a !== me && p.b !== me);
    const n = Object.keys(a.marks || {}).length;
    const conv = Array.isArray(s.conversation) ? s.conversation.length : 0;
    const rows = (list, you) =>
      list.map((p) => {
        const other = p.a === me ? p.b : p.a;
        return h(
          'tr',
          { class: you ? 'me' : null },
          h('td', null, you ? `you (${me}) vs ${other}` : `${p.a} vs ${p.b}`),
          h('td', { class: 'num' }, kappaNode(p.kappa, p.band)),
        );
      });
    return h(
      'section',
      { class: 'agreement', 'aria-labelledby': 'agreement-title' },
      h('h2', { class: 'section-title', id: 'agreement-title' }, 'Agreement on this sample'),
      pairs.length
        ? h(
            'table',
            { class: 'grid' },
            h('thead', null, h('tr', null, h('th', null, "Cohen's kappa (message sources)"), h('th', { class: 'num' }, 'κ'))),
            h(
              'tbody',
              null,
              rows(mine, true),
              rows(others, false),
              n >= 3
                ? h(
                    'tr',
                    null,
                    h('td', null, `Fleiss' kappa (${n} annotators)`),
                    h('td', { class: 'num' }, kappaNode(a.fleiss, a.fleiss == null ? null : a.band)),
                  )
                : null,
            ),
          )
        : h(
            'p',
            { class: 'hint' },
            n === 1
              ? 'Only one annotator has labelled this sample; kappa needs two.'
              : 'No annotator has labelled this sample yet.',
          ),
      marksTable(a.marks, conv, me),
    );
  }

  function discussionList(s) {
    const notes = Array.isArray(s.discussion) ? s.discussion : [];
    if (!notes.length) return null;
    return h(
      'ul',
      { class: 'discussion-list' },
      notes.map((d) => h('li', null, h('span', { class: 'by' }, `${str(d.annotator)}:`), str(d.note))),
    );
  }

  function reviewLine(review) {
    if (!review) return null;
    const from = Array.isArray(review.from) ? review.from.join(', ') : str(review.from);
    return h(
      'div',
      { class: 'banner ok review-status' },
      h('strong', null, 'Gold labels promoted'),
      ` by ${str(review.promoted_by)} from ${from || '—'} at ${str(review.at)}.`,
    );
  }

  function sampleMeta(s) {
    const pos = s.position || {};
    return h(
      'div',
      { class: 'meta' },
      h('span', null, 'kind ', h('strong', null, str(s.kind)), s.task ? ` (task ${str(s.task)})` : null),
      h('span', null, 'domain ', h('strong', null, str(s.domain))),
      h('span', null, 'difficulty ', h('strong', null, str(s.difficulty))),
      Array.isArray(s.tags) && s.tags.length ? h('span', null, 'tags ', s.tags.map((t) => [h('span', { class: 'tag' }, str(t)), ' '])) : null,
      h('span', null, str(s.file), s.line ? `:${s.line}` : ''),
      pos.total ? h('span', null, `sample ${pos.index + 1} of ${pos.total}`) : null,
    );
  }

  // ================================================================ queue

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

  class QueueView {
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

  // ================================================================ label view: model

  function blankReq(id) {
    return {
      id: id || '',
      title: '',
      type: '',
      actor: '',
      action: '',
      condition: '',
      acceptance_criteria: ['', ''],
      priority: '',
      source_messages: [],
      rationale: '',
      confidence: '',
    };
  }

  function canon(value, allowed) {
    const v = str(value);
    if (!v) return '';
    const n = norm(v);
    const hit = (allowed || []).find((a) => a === v || norm(a) === n);
    return hit || v;
  }

  function reqIn(r, enums) {
    r = r && typeof r === 'object' ? r : {};
    return {
      id: str(r.id),
      title: str(r.title),
      type: canon(r.type, enums.requirement_type),
      actor: str(r.actor),
      action: str(r.action),
      condition: str(r.condition),
      acceptance_criteria: Array.isArray(r.acceptance_criteria) ? r.acceptance_criteria.map(str) : [],
      priority: canon(r.priority, enums.priority),
      source_messages: Array.isArray(r.source_messages) ? r.source_messages.filter((n) => Number.isInteger(n)) : [],
      rationale: str(r.rationale),
      confidence: r.confidence == null ? '' : str(r.confidence),
    };
  }

  function reqOut(r) {
    const o = { id: r.id.trim(), title: r.title.trim(), type: r.type, actor: r.actor.trim(), action: r.action.trim() };
    if (r.condition.trim()) o.condition = r.condition.trim();
    o.acceptance_criteria = r.acceptance_criteria.map((c) => c.trim()).filter(Boolean);
    if (r.priority) o.priority = r.priority;
    if (r.source_messages.length) o.source_messages = [...r.source_messages].sort((a, b) => a - b);
    if (r.rationale.trim()) o.rationale = r.rationale.trim();
    if (r.confidence.trim() !== '') o.confidence = Number(r.confidence);
    return o;
  }

  function modelIn(kind, labels, enums, task) {
    labels = labels && typeof labels === 'object' ? labels : {};
    const list = (k) => (Array.isArray(labels[k]) ? labels[k] : []);
    const m = {};
    if (kind === 'extraction' || kind === 'e2e') m.requirements = list('requirements').map((r) => reqIn(r, enums));
    if (kind === 'inference')
      m.inferred_requirements = list('inferred_requirements').map((x) => {
        x = x && typeof x === 'object' ? x : {};
        return {
          requirement: reqIn(x.requirement, enums),
          inference_type: canon(x.inference_type, enums.inference_type),
          triggered_by: Array.isArray(x.triggered_by) ? x.triggered_by.map(str) : [],
          necessity: canon(x.necessity, enums.necessity),
          rationale: str(x.rationale),
          confidence: x.confidence == null ? '' : str(x.confidence),
        };
      });
    if (kind === 'validation') {
      m.issues = list('issues').map((x) => {
        x = x && typeof x === 'object' ? x : {};
        return {
          issue_type: canon(x.issue_type, enums.issue_type),
          severity: canon(x.severity, enums.severity),
          field: str(x.field),
          location: str(x.location),
          locationRaw: x.location,
          message: str(x.message),
          suggested_fix: str(x.suggested_fix),
          confidence: x.confidence == null ? '' : str(x.confidence),
        };
      });
      m.pii = list('pii').map((p) => ({ value: str(p) }));
    }
    if (kind === 'tuples') {
      const fields = (task && task.fields) || [];
      m.tuples = list('tuples').map((t) => {
        t = t && typeof t === 'object' ? t : {};
        const o = { implicit: t.implicit === true };
        for (const f of fields) o[f.name] = f.kind === 'label' ? canon(t[f.name], f.values) : str(t[f.name]);
        if (Number.isInteger(t.start) && Number.isInteger(t.end)) {
          o.start = t.start;
          o.end = t.end;
        }
        return o;
      });
    }
    return m;
  }

  function modelOut(kind, m, task, text) {
    const out = {};
    if (m.requirements) out.requirements = m.requirements.map(reqOut);
    if (m.inferred_requirements)
      out.inferred_requirements = m.inferred_requirements.map((x) => {
        const o = { requirement: reqOut(x.requirement), inference_type: x.inference_type };
        if (x.triggered_by.length) o.triggered_by = [...x.triggered_by];
        o.necessity = x.necessity;
        if (x.rationale.trim()) o.rationale = x.rationale.trim();
        if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
        return o;
      });
    if (m.issues)
      out.issues = m.issues.map((x) => {
        const o = { issue_type: x.issue_type, severity: x.severity };
        if (x.field.trim()) o.field = x.field.trim();
        if (x.locationRaw !== undefined && x.locationRaw !== null && typeof x.locationRaw !== 'string' && x.location === str(x.locationRaw)) o.location = x.locationRaw;
        else if (x.location.trim()) o.location = x.location.trim();
        if (x.message.trim()) o.message = x.message.trim();
        if (x.suggested_fix.trim()) o.suggested_fix = x.suggested_fix.trim();
        if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
        return o;
      });
    if (m.pii) out.pii = m.pii.map((p) => p.value.trim()).filter(Boolean);
    if (m.tuples) {
      const fields = (task && task.fields) || [];
      const spans = fields.filter((f) => f.kind === 'span');
      const chars = Array.from(text || '');
      out.tuples = m.tuples.map((t) => {
        const o = {};
        for (const f of fields) o[f.name] = str(t[f.name]).trim();
        if (t.implicit) o.implicit = true;
        if (spans.length === 1 && !t.implicit && Number.isInteger(t.start)) {
          const span = o[spans[0].name];
          if (chars.slice(t.start, t.end).join('') === span) {
            o.start = t.start;
            o.end = t.end;
          } else {
            const at = (text || '').indexOf(span);
            if (span && at >= 0) {
              o.start = Array.from(text.slice(0, at)).length;
              o.end = o.start + Array.from(span).length;
            }
          }
        }
        return o;
      });
    }
    return out;
  }

  function nextId(existing) {
    let best = null;
    for (const id of existing) {
      const m = /^(.*?)(\d+)$/.exec(id || '');
      if (!m) continue;
      const n = parseInt(m[2], 10);
      if (!best || n > best.n) best = { prefix: m[1], n, width: m[2].length };
    }
    const candidates = [];
    if (best) candidates.push(best.prefix + String(best.n + 1).padStart(best.width, '0'));
    candidates.push('REQ-001', 'FR-01');
    for (const c of candidates) if (!existing.includes(c) && (!S.idRe || S.idRe.test(c))) return c;
    return '';
  }

  // ================================================================ label view

  class LabelView {
    constructor(s) {
      this.title = s.id;
      this.el = h('div', { class: 'label-view' });
      this.init(s);
    }

    init(s) {
      this.s = s;
      this.kind = s.kind;
      this.keys = KIND_KEYS[s.kind] || [];
      this.task = s.task && S.session.tasks ? S.session.tasks[s.task] : null;
      this.enums = S.session.enums || {};
      this.conv = Array.isArray(s.conversation) ? s.conversation : [];
      this.sourcesOn = SOURCE_KINDS.includes(s.kind) && this.conv.length > 0;
      this.fromDraft = !s.mine && !!(s.draft && s.draft.labels);
      const labels = s.mine || (this.fromDraft ? s.draft.labels : null);
      this.model = modelIn(this.kind, labels, this.enums, this.task);
      this.touched = new WeakMap();
      this.showAll = !!s.mine || this.fromDraft;
      this.serverProblems = [];
      this.active = null;
      this.conflict = null;
      this.undo = null;
      this.saving = false;
      this.baseline = JSON.stringify(this.out());
      this.render();
    }

    out() {
      return modelOut(this.kind, this.model, this.task, this.s.text);
    }

    isDirty() {
      return JSON.stringify(this.out()) !== this.baseline;
    }

    // ------------------------------------------------------------ layout

    render() {
      const s = this.s;
      const pos = s.position || {};
      this.statusEl = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
      this.blockEl = h('div', { class: 'blocked', id: 'save-blocked' });
      this.bannersEl = h('div', { class: 'banners' });
      this.formEl = h('div', { class: 'form', id: 'label-form' });
      this.agreementEl = h('div', null, agreementPanel(s));
      this.discussionEl = h('div', null);
      this.saveBtn = h('button', { type: 'button', class: 'btn primary', 'data-action': 'save-next', onclick: () => this.save(true) }, 'Save & next ', kbd('Ctrl', 'Enter'));
      this.saveOnly = h('button', { type: 'button', class: 'btn', 'data-action': 'save', onclick: () => this.save(false) }, 'Save');
      const left = h(
        'section',
        { class: 'pane left', 'aria-label': 'Sample' },
        h(
          'header',
          { class: 'sample-head' },
          h('h1', null, str(s.id)),
          sampleMeta(s),
          h(
            'div',
            { class: 'sample-nav' },
            h('a', { class: 'btn small', href: '#/queue' }, '← Queue'),
            h('a', { class: 'btn small', href: pos.prev ? `#/sample/${enc(pos.prev)}` : null, 'aria-disabled': pos.prev ? null : 'true', 'data-action': 'prev' }, '‹ Previous'),
            h('a', { class: 'btn small', href: pos.next ? `#/sample/${enc(pos.next)}` : null, 'aria-disabled': pos.next ? null : 'true', 'data-action': 'next' }, 'Next ›'),
            h('a', { class: 'btn small', href: `#/review/${enc(s.id)}` }, 'Review'),
          ),
        ),
        this.inputNodes(),
        this.agreementEl,
      );
      const right = h(
        'section',
        { class: 'pane right', 'aria-label': 'Labels' },
        h('div', { class: 'form-scroll' }, this.bannersEl, this.discussionEl, this.formEl),
        h(
          'div',
          { class: 'actionbar' },
          this.saveBtn,
          this.saveOnly,
          h('button', { type: 'button', class: 'btn', 'data-action': 'skip', onclick: () => this.skip() }, 'Skip'),
          h('button', { type: 'button', class: 'btn', 'data-action': 'discuss', 'aria-expanded': 'false', onclick: (e) => this.toggleNote(e.currentTarget) }, 'Needs discussion…'),
          this.blockEl,
          this.statusEl,
        ),
      );
      fill(this.el, left, right);
      this.renderBanners();
      this.renderDiscussion();
      this.renderForm();
    }

    inputNodes() {
      const s = this.s;
      const out = [];
      if (this.conv.length) {
        this.sourceHint = h('p', { class: 'hint', id: 'source-hint' });
        this.msgEls = messageNodes(this.conv, { clickable: this.sourcesOn });
        if (this.sourcesOn) {
          this.msgEls.forEach((m, i) => {
            m.setAttribute('aria-describedby', 'source-hint');
            m.addEventListener('click', () => this.toggleSource(i));
            m.addEventListener('keydown', (e) => {
              if ((e.key === ' ' || e.key === 'Enter') && !e.ctrlKey && !e.altKey && !e.metaKey) {
                e.preventDefault();
                e.stopPropagation();
                this.toggleSource(i);
              }
            });
          });
        }
        out.push(
          h('h2', { class: 'section-title' }, `Conversation (${this.conv.length} messages)`),
          this.sourcesOn ? this.sourceHint : null,
          h('div', { class: 'messages' }, this.msgEls),
        );
      } else {
        this.msgEls = [];
      }
      if (s.user_input != null && s.user_input !== '') out.push(h('h2', { class: 'section-title' }, 'User input'), h('div', { class: 'text-block' }, str(s.user_input)));
      if (s.text != null && s.text !== '') {
        this.textEl = h('div', { class: 'text-block', id: 'sample-text' }, str(s.text));
        out.push(
          h('h2', { class: 'section-title' }, 'Text'),
          h('p', { class: 'hint' }, 'Select words here, then press “Use selection” next to a span field to copy them with their exact position.'),
          this.textEl,
        );
      }
      if (Array.isArray(s.requirements) && s.requirements.length) {
        out.push(
          h('h2', { class: 'section-title' }, `Base requirements (${s.requirements.length})`),
          s.requirements.map((r) => this.baseReq(r)),
        );
      }
      if (s.reference_srs) {
        out.push(
          h('details', { class: 'conversation' }, h('summary', null, 'Reference SRS'), h('div', { class: 'text-block' }, str(s.reference_srs))),
        );
      }
      return out;
    }

    baseReq(r) {
      r = r && typeof r === 'object' ? r : { title: str(r) };
      const ac = Array.isArray(r.acceptance_criteria) ? r.acceptance_criteria : [];
      return h(
        'div',
        { class: 'base-req' },
        h('div', { class: 'title' }, `${str(r.id)} · ${str(r.title)}`),
        h('div', { class: 'sub' }, [str(r.type), str(r.actor) && `actor: ${str(r.actor)}`, str(r.priority) && `priority: ${str(r.priority)}`].filter(Boolean).join(' · ')),
        r.action != null ? h('div', null, 'action: ', str(r.action)) : null,
        r.condition ? h('div', null, 'condition: ', str(r.condition)) : null,
        ac.length ? h('ul', null, ac.map((c) => h('li', null, str(c)))) : h('div', { class: 'sub' }, 'no acceptance criteria'),
        Array.isArray(r.source_messages) && r.source_messages.length ? h('div', { class: 'sub' }, `sources: ${r.source_messages.map((i) => `#${i}`).join(', ')}`) : null,
      );
    }

    renderBanners() {
      const b = [];
      if (this.conflict) {
        const jsonBox = h('textarea', { readonly: true, 'aria-label': 'Your edits as JSON', hidden: true }, '');
        jsonBox.value = JSON.stringify(this.out(), null, 2);
        b.push(
          h(
            'div',
            { class: 'banner conflict', role: 'alert', id: 'conflict-banner' },
            h('h2', null, 'Not saved: this sample changed on disk'),
            h('p', null, `${str(this.s.file)} was changed by someone or something else since this page loaded it, so nothing was written. Your edits are still in the form until you reload.`),
            this.conflict.message ? h('p', { class: 'hint' }, this.conflict.message) : null,
            h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', class: 'btn primary', 'data-action': 'reload', onclick: () => this.reload() }, 'Reload the version on disk (discards my edits)'),
              h(
                'button',
                {
                  type: 'button',
                  class: 'btn',
                  'aria-expanded': 'false',
                  onclick: (e) => {
                    jsonBox.value = JSON.stringify(this.out(), null, 2);
                    jsonBox.hidden = !jsonBox.hidden;
                    e.currentTarget.setAttribute('aria-expanded', String(!jsonBox.hidden));
                    if (!jsonBox.hidden) jsonBox.select();
                  },
                },
                'Show my edits as JSON',
              ),
            ),
            jsonBox,
          ),
        );
      }
      if (this.fromDraft) {
        const d = this.s.draft || {};
        b.push(
          h(
            'div',
            { class: 'banner draft', role: 'note', id: 'draft-banner' },
            h('h2', null, 'Machine-made draft — not saved until you save'),
            h('p', null, `These labels are a pipeline's answer${d.source ? ` (${str(d.source)})` : ''}, not an annotator's. Check and correct every item; nothing is written until you save.`),
          ),
        );
      } else if (!this.s.mine && this.s.draft && this.s.draft.problem) {
        b.push(h('div', { class: 'banner info', role: 'note' }, h('p', null, `No draft: ${str(this.s.draft.problem)}`)));
      }
      if (this.s.review) b.push(reviewLine(this.s.review));
      fill(this.bannersEl, ...b);
    }

    renderDiscussion() {
      const me = S.session.annotator;
      const notes = Array.isArray(this.s.discussion) ? this.s.discussion : [];
      this.myNote = (notes.find((d) => d.annotator === me) || {}).note || '';
      fill(this.discussionEl,
        notes.length ? h('h2', { class: 'section-title' }, 'Needs discussion') : '',
        discussionList(this.s) || '',
      );
      if (this.noteEditor) this.discussionEl.append(this.noteEditor);
    }

    toggleNote(btn) {
      if (this.noteEditor) {
        this.noteEditor.remove();
        this.noteEditor = null;
        btn.setAttribute('aria-expanded', 'false');
        return;
      }
      btn.setAttribute('aria-expanded', 'true');
      const id = uid('note');
      const ta = h('textarea', { id, rows: 3, 'data-ptr': 'note' });
      ta.value = this.myNote;
      const send = async (note) => {
        try {
          const data = await api('POST', `/api/sample/${enc(this.s.id)}/discussion`, { fingerprint: this.s.fingerprint, note });
          this.s.fingerprint = data.fingerprint;
          this.s.discussion = data.discussion;
          this.noteEditor.remove();
          this.noteEditor = null;
          btn.setAttribute('aria-expanded', 'false');
          this.renderDiscussion();
          this.say(note ? 'Marked as needing discussion, with your note.' : 'Your discussion note was removed.', 'good');
          btn.focus();
        } catch (e) {
          this.failed(e, 'The note was not saved');
        }
      };
      this.noteEditor = h(
        'div',
        { class: 'note-editor' },
        h('label', { for: id }, 'Your note: what should the team discuss?'),
        ta,
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: 'btn primary', 'data-action': 'save-note', onclick: () => (ta.value.trim() ? send(ta.value.trim()) : ta.focus()) }, 'Mark as needing discussion'),
          this.myNote ? h('button', { type: 'button', class: 'btn danger', onclick: () => send('') }, 'Remove my note') : null,
          h('button', { type: 'button', class: 'btn', onclick: () => this.toggleNote(btn) }, 'Cancel'),
        ),
      );
      this.discussionEl.append(this.noteEditor);
      ta.focus();
    }

    // ------------------------------------------------------------ form

    renderForm(focusPtr) {
      this.fields = new Map();
      this.cards = new Map();
      this.chips = new Map();
      const f = this.formEl;
      const sections = [];
      if (this.model.requirements) sections.push(this.sectionReqs());
      if (this.model.inferred_requirements) sections.push(this.sectionInferred());
      if (this.model.issues) sections.push(this.sectionIssues());
      if (this.model.pii) sections.push(this.sectionPii());
      if (this.model.tuples) sections.push(this.sectionTuples());
      if (!sections.length) sections.push(h('p', { class: 'hint' }, `The page has no form for samples of kind ${str(this.kind)}.`));
      fill(f, ...sections);
      this.refreshSources();
      this.check();
      if (focusPtr) {
        const el = f.querySelector(`[data-ptr="${CSS.escape(focusPtr)}"]`);
        if (el) el.focus();
      }
    }

    section(key, title, count, addLabel, addKey, items, empty) {
      return h(
        'section',
        { class: 'form-section', 'data-section': key },
        h(
          'div',
          { class: 'section-head' },
          h('h2', null, `${title} (${count})`),
          h('button', { type: 'button', class: 'btn small', 'data-ptr': `/${key}#add`, onclick: () => this.add(key) }, `+ ${addLabel} `, addKey ? kbd('Alt', addKey) : null),
        ),
        (Array.isArray(items) ? items.length : items) ? items : h('p', { class: 'hint' }, empty),
      );
    }

    // A labelled control whose problems are shown under it.
    field(ptr, label, control, opts = {}) {
      const err = h('div', { class: 'err', id: uid('e') });
      if (!control.id) control.id = uid();
      control.setAttribute('aria-describedby', err.id);
      control.dataset.ptr = ptr;
      const lab = h('label', { for: control.id }, label, opts.required ? h('span', { class: 'req-mark', 'aria-hidden': 'true' }, ' *') : null);
      const wrap = h('div', { class: `field${opts.wide ? ' wide' : ''}` }, lab, opts.before || null, control, opts.after || null, err);
      this.fields.set(ptr, { err, input: control, wrap, obj: opts.obj, key: opts.key });
      return wrap;
    }

    // A field made of several controls (a list, checkboxes, chips): a group with a legend-like label.
    group(ptr, label, body, opts = {}) {
      const err = h('div', { class: 'err', id: uid('e') });
      const labId = uid('l');
      const wrap = h(
        'div',
        { class: `field${opts.wide ? ' wide' : ''}`, role: 'group', 'aria-labelledby': labId, 'aria-describedby': err.id, 'data-group': ptr },
        h('label', { id: labId }, label, opts.required ? h('span', { class: 'req-mark', 'aria-hidden': 'true' }, ' *') : null),
        body,
        err,
      );
      this.fields.set(ptr, { err, input: opts.focus || null, wrap, obj: opts.obj, key: opts.key, group: true });
      return wrap;
    }

    text(obj, key, ptr, opts = {}) {
      const c = opts.area ? h('textarea', { rows: opts.rows || 2 }) : h('input', { type: 'text', autocomplete: 'off', inputmode: opts.inputmode || null, list: opts.list || null });
      c.value = obj[key] ?? '';
      c.addEventListener('input', () => {
        obj[key] = c.value;
        this.touch(obj, key);
        this.edited(ptr);
        if (opts.oninput) opts.oninput();
      });
      c.addEventListener('blur', () => {
        if (c.value !== '' || this.isTouched(obj, key)) {
          this.touch(obj, key);
          this.check();
        }
      });
      return this.field(ptr, opts.label || FIELD_LABEL[key] || key, c, { ...opts, obj, key });
    }

    select(obj, key, ptr, values, opts = {}) {
      const c = h('select', null, h('option', { value: '' }, opts.placeholder || '— choose —'));
      const vals = [...(values || [])];
      if (obj[key] && !vals.includes(obj[key])) vals.push(obj[key]);
      for (const v of vals) c.append(h('option', { value: v }, v));
      c.value = obj[key] || '';
      const on = () => {
        obj[key] = c.value;
        this.touch(obj, key);
        this.edited(ptr);
        if (opts.oninput) opts.oninput();
      };
      c.addEventListener('change', on);
      c.addEventListener('input', on);
      c.addEventListener('blur', () => {
        this.touch(obj, key);
        this.check();
      });
      return opts.bare ? this.bareField(ptr, c, obj, key, opts.label) : this.field(ptr, opts.label || FIELD_LABEL[key] || key, c, { ...opts, obj, key });
    }

    // A control inside a table cell: the column header is its visible label.
    bareField(ptr, c, obj, key, label) {
      const err = h('div', { class: 'err', id: uid('e') });
      if (!c.id) c.id = uid();
      c.dataset.ptr = ptr;
      c.setAttribute('aria-describedby', err.id);
      if (label) c.setAttribute('aria-label', label);
      this.fields.set(ptr, { err, input: c, wrap: null, obj, key });
      return [c, err];
    }

    itemHead(list, i, key, title, noun) {
      const ptr = `/${key}/${i}`;
      const b = (label, aria, act, disabled, fn, cls = 'btn icon') =>
        h('button', { type: 'button', class: cls, 'aria-label': aria, title: aria, 'data-ptr': `${ptr}#${act}`, disabled: disabled || null, onclick: fn }, label);
      return h(
        'div',
        { class: 'item-head' },
        h('h3', { tabindex: '-1', 'data-ptr': `${ptr}#head` }, title),
        b('↑', `Move ${noun} ${i + 1} up`, 'up', i === 0, () => this.move(key, i, -1)),
        b('↓', `Move ${noun} ${i + 1} down`, 'down', i === list.length - 1, () => this.move(key, i, 1)),
        b('Remove', `Remove ${noun} ${i + 1}`, 'remove', false, () => this.remove(key, i), 'btn small danger'),
      );
    }

    reqBody(r, ptr) {
      const e = this.enums;
      const idField = this.text(r, 'id', `${ptr}/id`, {
        required: true,
        oninput: () => this.retitle(r),
      });
      if (S.session.id_pattern) idField.querySelector('input').title = `ids follow the pattern ${S.session.id_pattern}`;
      const nodes = [
        idField,
        this.select(r, 'type', `${ptr}/type`, e.requirement_type, { required: true }),
        this.text(r, 'title', `${ptr}/title`, { required: true, wide: true, oninput: () => this.retitle(r) }),
        this.text(r, 'actor', `${ptr}/actor`, { required: true }),
        this.select(r, 'priority', `${ptr}/priority`, e.priority, { required: true }),
        this.text(r, 'action', `${ptr}/action`, { required: true, wide: true }),
        this.text(r, 'condition', `${ptr}/condition`, { wide: true, label: 'Condition (optional)' }),
        this.criteria(r, `${ptr}/acceptance_criteria`),
      ];
      if (this.sourcesOn) nodes.push(this.sourcesField(r, `${ptr}/source_messages`));
      nodes.push(
        this.text(r, 'rationale', `${ptr}/rationale`, { area: true, wide: true, label: 'Rationale (optional)' }),
        this.text(r, 'confidence', `${ptr}/confidence`, { inputmode: 'decimal', label: 'Confidence 0–1 (optional)' }),
      );
      return nodes;
    }

    criteria(r, ptr) {
      const rows = r.acceptance_criteria.map((c, j) => {
        const inp = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `Acceptance criterion ${j + 1}`, 'data-ptr': `${ptr}/${j}` });
        inp.value = c;
        inp.addEventListener('input', () => {
          r.acceptance_criteria[j] = inp.value;
          this.touch(r, 'acceptance_criteria');
          this.edited(ptr);
        });
        inp.addEventListener('blur', () => {
          if (inp.value) {
            this.touch(r, 'acceptance_criteria');
            this.check();
          }
        });
        inp.addEventListener('keydown', (ev) => {
          if (ev.key === 'Enter' && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
            ev.preventDefault();
            r.acceptance_criteria.splice(j + 1, 0, '');
            this.structural(`${ptr}/${j + 1}`);
          }
        });
        return h(
          'div',
          { class: 'list-row' },
          h('span', { class: 'n', 'aria-hidden': 'true' }, `${j + 1}.`),
          inp,
          h(
            'button',
            {
              type: 'button',
              class: 'btn icon',
              'aria-label': `Remove acceptance criterion ${j + 1}`,
              title: 'Remove this criterion',
              'data-ptr': `${ptr}/${j}#remove`,
              onclick: () => {
                r.acceptance_criteria.splice(j, 1);
                this.touch(r, 'acceptance_criteria');
                this.structural(r.acceptance_criteria.length ? `${ptr}/${Math.min(j, r.acceptance_criteria.length - 1)}` : `${ptr}#add`);
              },
            },
            '×',
          ),
        );
      });
      const addBtn = h(
        'button',
        {
          type: 'button',
          class: 'btn small',
          'data-ptr': `${ptr}#add`,
          onclick: () => {
            r.acceptance_criteria.push('');
            this.structural(`${ptr}/${r.acceptance_criteria.length - 1}`);
          },
        },
        '+ criterion',
      );
      return this.group(ptr, 'Acceptance criteria (at least 2)', h('div', { class: 'list-edit' }, rows, h('div', null, addBtn)), {
        required: true,
        wide: true,
        obj: r,
        key: 'acceptance_criteria',
        focus: rows.length ? rows[0].querySelector('input') : addBtn,
      });
    }

    sourcesField(r, ptr) {
      const chips = h('div', { class: 'chips' });
      this.chips.set(r, chips);
      this.fillChips(r, chips);
      return this.group(
        ptr,
        'Source messages',
        [chips, h('div', { class: 'hint' }, 'Click messages on the left (or press their number) while this requirement is being edited.')],
        { wide: true, obj: r, key: 'source_messages', focus: chips },
      );
    }

    fillChips(r, chips) {
      const list = [...r.source_messages].sort((a, b) => a - b);
      fill(chips,
        ...(list.length
          ? list.map((i) =>
              h(
                'button',
                {
                  type: 'button',
                  class: 'chip',
                  'aria-label': `Remove message ${i} from the sources`,
                  title: 'Remove from the sources',
                  onclick: () => {
                    this.active = r;
                    this.toggleSource(i);
                  },
                },
                `#${i} ×`,
              ),
            )
          : [h('span', { class: 'none' }, 'none yet')]),
      );
    }

    card(key, list, i, title, noun, body, req) {
      const c = h(
        'article',
        { class: 'item', 'data-item': `/${key}/${i}` },
        this.itemHead(list, i, key, title, noun),
        h('div', { class: 'item-body' }, body),
      );
      if (req) {
        this.cards.set(req, c);
        c.addEventListener('focusin', () => this.setActive(req));
        c.addEventListener('click', () => this.setActive(req));
      }
      return c;
    }

    reqTitle(r, i, noun = 'Requirement') {
      const t = r.title.trim();
      return `${noun} ${i + 1}${r.id.trim() ? ` · ${r.id.trim()}` : ''}${t ? ` — ${t}` : ''}`;
    }

    retitle(r) {
      const c = this.cards.get(r);
      if (!c) return;
      const list = this.reqList();
      const at = list.findIndex((x) => x.req === r);
      if (at >= 0) c.querySelector('.item-head h3').textContent = this.reqTitle(r, at, this.kind === 'inference' ? 'Inferred' : 'Requirement');
      this.updateHint();
    }

    sectionReqs() {
      const list = this.model.requirements;
      const cards = list.map((r, i) => this.card('requirements', list, i, this.reqTitle(r, i), 'requirement', this.reqBody(r, `/requirements/${i}`), r));
      return this.section('requirements', 'Requirements', list.length, 'Add requirement', 'N', cards, 'No requirements yet. Add one for each requirement the conversation states.');
    }

    sectionInferred() {
      const list = this.model.inferred_requirements;
      const e = this.enums;
      const baseIds = (Array.isArray(this.s.requirements) ? this.s.requirements : []).map((r) => str(r && r.id)).filter(Boolean);
      const cards = list.map((x, i) => {
        const ptr = `/inferred_requirements/${i}`;
        const ids = [...baseIds, ...x.triggered_by.filter((t) => !baseIds.includes(t))];
        const checks = h(
          'div',
          { class: 'checks' },
          ids.length
            ? ids.map((id, j) => {
                const cb = h('input', { type: 'checkbox', id: uid('t'), checked: x.triggered_by.includes(id), 'data-ptr': j === 0 ? `${ptr}/triggered_by` : `${ptr}/triggered_by#${j}` });
                cb.addEventListener('change', () => {
                  const at = x.triggered_by.indexOf(id);
                  if (cb.checked && at < 0) x.triggered_by.push(id);
                  if (!cb.checked && at >= 0) x.triggered_by.splice(at, 1);
                  x.triggered_by.sort((a, b) => ids.indexOf(a) - ids.indexOf(b));
                  this.touch(x, 'triggered_by');
                  this.edited(`${ptr}/triggered_by`);
                });
                return h('label', { for: cb.id }, cb, id);
              })
            : h('span', { class: 'hint' }, 'the sample has no base requirements'),
        );
        const body = [
          this.select(x, 'inference_type', `${ptr}/inference_type`, e.inference_type, { required: true }),
          this.select(x, 'necessity', `${ptr}/necessity`, e.necessity, { required: true }),
          this.group(`${ptr}/triggered_by`, 'Triggered by (base requirements)', checks, { wide: true, obj: x, key: 'triggered_by', focus: checks.querySelector('input') }),
          this.text(x, 'rationale', `${ptr}/rationale`, { area: true, wide: true, label: 'Why it is inferred (optional)' }),
          this.text(x, 'confidence', `${ptr}/confidence`, { inputmode: 'decimal', label: 'Confidence 0–1 (optional)' }),
          h('h4', { class: 'subhead' }, 'The inferred requirement'),
          this.reqBody(x.requirement, `${ptr}/requirement`),
        ];
        return this.card('inferred_requirements', list, i, this.reqTitle(x.requirement, i, 'Inferred'), 'inferred requirement', body, x.requirement);
      });
      return this.section('inferred_requirements', 'Inferred requirements', list.length, 'Add inferred requirement', 'N', cards, 'No inferred requirements yet.');
    }

    sectionIssues() {
      const list = this.model.issues;
      const e = this.enums;
      const baseIds = (Array.isArray(this.s.requirements) ? this.s.requirements : []).map((r) => str(r && r.id)).filter(Boolean);
      const fieldList = uid('dl');
      const locList = uid('dl');
      const lists = [
        h('datalist', { id: fieldList }, REQ_FIELDS.map((f) => h('option', { value: f }))),
        h('datalist', { id: locList }, baseIds.map((f) => h('option', { value: f }))),
      ];
      const cards = list.map((x, i) => {
        const ptr = `/issues/${i}`;
        const title = () => `Issue ${i + 1}${x.issue_type ? ` · ${x.issue_type}` : ''}${x.location ? ` at ${x.location}` : ''}`;
        const retitle = () => {
          const h3 = this.formEl.querySelector(`[data-item="${ptr}"] .item-head h3`);
          if (h3) h3.textContent = title();
        };
        const body = [
          this.select(x, 'issue_type', `${ptr}/issue_type`, e.issue_type, { required: true, oninput: retitle }),
          this.select(x, 'severity', `${ptr}/severity`, e.severity, { required: true }),
          this.text(x, 'field', `${ptr}/field`, { list: fieldList, label: 'Field (optional)' }),
          this.text(x, 'location', `${ptr}/location`, { list: locList, label: 'Location (optional)', oninput: retitle }),
          this.text(x, 'message', `${ptr}/message`, { area: true, wide: true, label: 'Message (optional)' }),
          this.text(x, 'suggested_fix', `${ptr}/suggested_fix`, { area: true, wide: true, label: 'Suggested fix (optional)' }),
          this.text(x, 'confidence', `${ptr}/confidence`, { inputmode: 'decimal', label: 'Confidence 0–1 (optional)' }),
        ];
        return this.card('issues', list, i, title(), 'issue', body, null);
      });
      return h('div', null, lists, this.section('issues', 'Validation issues', list.length, 'Add issue', 'N', cards, 'No issues yet. Add one per problem in the base requirements.'));
    }

    sectionPii() {
      const list = this.model.pii;
      const rows = list.map((p, i) => {
        const ptr = `/pii/${i}`;
        const inp = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `PII string ${i + 1}` });
        inp.value = p.value;
        inp.addEventListener('input', () => {
          p.value = inp.value;
          this.touch(p, 'value');
          this.edited(ptr);
        });
        inp.addEventListener('blur', () => {
          this.touch(p, 'value');
          this.check();
        });
        const [c, err] = this.bareField(ptr, inp, p, 'value', null);
        const b = (label, aria, act, disabled, fn, cls = 'btn icon') =>
          h('button', { type: 'button', class: cls, 'aria-label': aria, title: aria, 'data-ptr': `${ptr}#${act}`, disabled: disabled || null, onclick: fn }, label);
        return h(
          'div',
          { class: 'list-row', 'data-item': ptr },
          h('span', { class: 'n', 'aria-hidden': 'true' }, `${i + 1}.`),
          c,
          b('↑', `Move PII string ${i + 1} up`, 'up', i === 0, () => this.move('pii', i, -1)),
          b('↓', `Move PII string ${i + 1} down`, 'down', i === list.length - 1, () => this.move('pii', i, 1)),
          b('×', `Remove PII string ${i + 1}`, 'remove', false, () => this.remove('pii', i)),
          err,
        );
      });
      return this.section('pii', 'PII strings', list.length, 'Add PII string', 'P', rows.length ? h('div', { class: 'list-edit' }, rows) : [], 'No PII strings. Add each name, e-mail address, phone number … that appears in the input.');
    }

    sectionTuples() {
      const list = this.model.tuples;
      const fields = (this.task && this.task.fields) || [];
      if (!this.task) return h('div', { class: 'banner error' }, `The task ${str(this.s.task)} is not defined in this suite.`);
      const rows = list.map((t, i) => {
        const ptr = `/tuples/${i}`;
        const cells = fields.map((f) => {
          const fp = `${ptr}/${f.name}`;
          if (f.kind === 'label' && Array.isArray(f.values) && f.values.length) {
            return h('td', null, this.select(t, f.name, fp, f.values, { bare: true, label: `${f.name} of tuple ${i + 1}` }));
          }
          const inp = h('input', { type: 'text', autocomplete: 'off' });
          inp.value = t[f.name] || '';
          inp.addEventListener('input', () => {
            t[f.name] = inp.value;
            this.touch(t, f.name);
            this.edited(fp);
          });
          inp.addEventListener('blur', () => {
            this.touch(t, f.name);
            this.check();
          });
          const [c, err] = this.bareField(fp, inp, t, f.name, `${f.name} of tuple ${i + 1}`);
          if (f.kind !== 'span') return h('td', null, c, err);
          const use = h(
            'button',
            {
              type: 'button',
              class: 'btn icon',
              title: 'Use the text selected in the sample',
              'aria-label': `Use the selected text as the ${f.name} of tuple ${i + 1}`,
              onclick: () => this.useSelection(t, f.name, inp, fp),
            },
            '⇲',
          );
          return h('td', null, h('div', { class: 'span-cell' }, c, use), err);
        });
        const imp = h('input', { type: 'checkbox', checked: t.implicit, 'aria-label': `Tuple ${i + 1} is implicit (its span is not in the text)`, 'data-ptr': `${ptr}/implicit` });
        imp.addEventListener('change', () => {
          t.implicit = imp.checked;
          this.touch(t, 'implicit');
          this.edited(`${ptr}/implicit`);
        });
        const b = (label, aria, act, disabled, fn, cls = 'btn icon') =>
          h('button', { type: 'button', class: cls, 'aria-label': aria, title: aria, 'data-ptr': `${ptr}#${act}`, disabled: disabled || null, onclick: fn }, label);
        return h(
          'tr',
          { 'data-item': ptr },
          h('td', { class: 'num' }, String(i + 1)),
          cells,
          h('td', null, imp),
          h(
            'td',
            null,
            b('↑', `Move tuple ${i + 1} up`, 'up', i === 0, () => this.move('tuples', i, -1)),
            b('↓', `Move tuple ${i + 1} down`, 'down', i === list.length - 1, () => this.move('tuples', i, 1)),
            b('×', `Remove tuple ${i + 1}`, 'remove', false, () => this.remove('tuples', i)),
          ),
        );
      });
      this.fields.set('/tuples', { err: h('div', { class: 'err' }), input: null, wrap: null });
      const table = rows.length
        ? h(
            'table',
            { class: 'tuples' },
            h('colgroup', null, h('col', { class: 'c-n' }), fields.map(() => h('col')), h('col', { class: 'c-imp' }), h('col', { class: 'c-act' })),
            h('thead', null, h('tr', null, h('th', null, '#'), fields.map((f) => h('th', { scope: 'col' }, `${f.name}${f.kind === 'span' ? ' (span)' : ''}`)), h('th', null, 'implicit'), h('th', null, h('span', { class: 'hint' }, 'order')))),
            h('tbody', null, rows),
          )
        : [];
      return this.section('tuples', `Tuples · task ${str(this.s.task)}`, list.length, 'Add tuple', 'N', table, 'No tuples yet. Add one per tuple the text states or implies.');
    }

    useSelection(t, name, inp, ptr) {
      const sel = window.getSelection();
      const text = this.s.text || '';
      if (!sel || sel.isCollapsed || !this.textEl || !this.textEl.contains(sel.anchorNode) || !this.textEl.contains(sel.focusNode)) {
        this.say('Select the words in the sample text first, then press ⇲.', 'bad');
        return;
      }
      const r = sel.getRangeAt(0);
      const pre = document.createRange();
      pre.selectNodeContents(this.textEl);
      pre.setEnd(r.startContainer, r.startOffset);
      const startUnits = pre.toString().length;
      const picked = r.toString();
      const start = Array.from(text.slice(0, startUnits)).length;
      t[name] = picked;
      t.start = start;
      t.end = start + Array.from(picked).length;
      inp.value = picked;
      this.touch(t, name);
      this.edited(ptr);
      inp.focus();
    }

    // ------------------------------------------------------------ editing

    mainKey() {
      return this.keys[0];
    }

    reqList() {
      if (this.model.requirements) return this.model.requirements.map((req, i) => ({ req, i }));
      if (this.model.inferred_requirements) return this.model.inferred_requirements.map((x, i) => ({ req: x.requirement, i }));
      return [];
    }

    allIds() {
      const ids = this.reqList().map((x) => x.req.id.trim());
      if (this.kind === 'inference' && Array.isArray(this.s.requirements)) for (const r of this.s.requirements) if (r && r.id) ids.push(str(r.id));
      return ids.filter(Boolean);
    }

    add(key) {
      const list = this.model[key];
      if (!list) return false;
      let focus;
      if (key === 'requirements') {
        const r = blankReq(nextId(this.allIds()));
        list.push(r);
        this.active = r;
        focus = `/requirements/${list.length - 1}/${r.id ? 'type' : 'id'}`;
      } else if (key === 'inferred_requirements') {
        const r = blankReq(nextId(this.allIds()));
        list.push({ requirement: r, inference_type: '', triggered_by: [], necessity: '', rationale: '', confidence: '' });
        this.active = r;
        focus = `/inferred_requirements/${list.length - 1}/inference_type`;
      } else if (key === 'issues') {
        list.push({ issue_type: '', severity: '', field: '', location: '', message: '', suggested_fix: '', confidence: '' });
        focus = `/issues/${list.length - 1}/issue_type`;
      } else if (key === 'pii') {
        list.push({ value: '' });
        focus = `/pii/${list.length - 1}`;
      } else if (key === 'tuples') {
        const t = { implicit: false };
        for (const f of (this.task && this.task.fields) || []) t[f.name] = '';
        list.push(t);
        const first = ((this.task && this.task.fields) || [])[0];
        focus = first ? `/tuples/${list.length - 1}/${first.name}` : null;
      }
      this.structural(focus);
      const card = this.formEl.querySelector(`[data-item="/${key}/${list.length - 1}"]`);
      if (card) card.scrollIntoView({ block: 'nearest' });
      return true;
    }

    move(key, i, d) {
      const list = this.model[key];
      const j = i + d;
      if (j < 0 || j >= list.length) return;
      [list[i], list[j]] = [list[j], list[i]];
      this.structural(`/${key}/${j}#${d < 0 ? 'up' : 'down'}`);
      const f = this.formEl.querySelector(`[data-ptr="${CSS.escape(`/${key}/${j}#${d < 0 ? 'up' : 'down'}`)}"]`);
      if (f && f.disabled) {
        const other = this.formEl.querySelector(`[data-ptr="${CSS.escape(`/${key}/${j}#${d < 0 ? 'down' : 'up'}`)}"]`);
        if (other) other.focus();
      }
      this.say(`Moved to position ${j + 1}.`);
    }

    remove(key, i) {
      const list = this.model[key];
      const [item] = list.splice(i, 1);
      this.undo = { key, i, item };
      const focus = list.length ? `/${key}/${Math.min(i, list.length - 1)}#remove` : `/${key}#add`;
      this.structural(focus);
      const undoBtn = h(
        'button',
        {
          type: 'button',
          class: 'btn small',
          'data-action': 'undo',
          onclick: () => {
            if (!this.undo) return;
            const u = this.undo;
            this.undo = null;
            this.model[u.key].splice(u.i, 0, u.item);
            this.structural(`/${u.key}/${u.i}#remove`);
            this.say('Restored.');
          },
        },
        'Undo',
      );
      this.say([`Removed item ${i + 1}. `, undoBtn]);
    }

    structural(focusPtr) {
      this.serverProblems = [];
      this.renderForm(focusPtr);
      this.dirtyChanged();
    }

    touch(obj, key) {
      let s = this.touched.get(obj);
      if (!s) this.touched.set(obj, (s = new Set()));
      s.add(key);
    }

    isTouched(obj, key) {
      const s = obj && this.touched.get(obj);
      return !!(s && s.has(key));
    }

    edited(ptr) {
      if (this.serverProblems.length) {
        this.serverProblems = this.serverProblems.filter((p) => !(p.pointer === ptr || p.pointer.startsWith(`${ptr}/`) || ptr.startsWith(`${p.pointer}/`)));
      }
      this.check();
      this.dirtyChanged();
    }

    dirtyChanged() {
      if (this.conflict) return;
      const dirty = this.isDirty();
      this.el.classList.toggle('dirty', dirty);
    }

    // ------------------------------------------------------------ sources

    activeReq() {
      const list = this.reqList();
      if (this.active && list.some((x) => x.req === this.active)) return this.active;
      this.active = list.length ? list[0].req : null;
      return this.active;
    }

    setActive(req) {
      if (this.active === req) return;
      this.active = req;
      this.refreshSources();
    }

    stepActive(d) {
      const list = this.reqList();
      if (!list.length) return;
      const cur = this.activeReq();
      const at = Math.max(0, list.findIndex((x) => x.req === cur));
      const next = list[Math.min(list.length - 1, Math.max(0, at + d))].req;
      this.active = next;
      this.refreshSources();
      const card = this.cards.get(next);
      if (card) {
        card.scrollIntoView({ block: 'nearest' });
        const head = card.querySelector('.item-head h3');
        if (head) head.focus();
      }
    }

    toggleSource(i) {
      if (!this.sourcesOn || i < 0 || i >= this.conv.length) return;
      const r = this.activeReq();
      if (!r) {
        this.say(['Add a requirement first (', kbd('Alt', 'N'), '), then mark the messages it comes from.'], 'bad');
        return;
      }
      const at = r.source_messages.indexOf(i);
      if (at >= 0) r.source_messages.splice(at, 1);
      else r.source_messages.push(i);
      r.source_messages.sort((a, b) => a - b);
      this.touch(r, 'source_messages');
      this.refreshSources();
      const list = this.reqList();
      const idx = list.findIndex((x) => x.req === r);
      const base = this.kind === 'inference' ? `/inferred_requirements/${idx}/requirement` : `/requirements/${idx}`;
      this.edited(`${base}/source_messages`);
      this.say(`${at >= 0 ? 'Removed' : 'Added'} message ${i} ${at >= 0 ? 'from' : 'to'} the sources of ${r.id.trim() || 'the requirement being edited'}.`);
    }

    updateHint() {
      if (!this.sourceHint) return;
      const r = this.sourcesOn ? this.activeReq() : null;
      this.sourceHint.textContent = r
        ? `Click a message (or focus it and press Space, or press its number) to toggle it as a source of ${r.id.trim() || 'the requirement being edited'}.`
        : 'Add a requirement (Alt+N), then click the messages it comes from.';
    }

    refreshSources() {
      const active = this.sourcesOn ? this.activeReq() : null;
      const list = this.reqList();
      for (const { req } of list) {
        const c = this.cards.get(req);
        if (c) {
          c.classList.toggle('active', req === active);
          const head = c.querySelector('.item-head');
          let tag = head.querySelector('.target');
          if (req === active && this.sourcesOn) {
            if (!tag) head.insertBefore(h('span', { class: 'target' }, 'sources ◀'), head.children[1]);
          } else if (tag) tag.remove();
        }
        const chips = this.chips.get(req);
        if (chips) this.fillChips(req, chips);
      }
      this.msgEls.forEach((m, i) => {
        const citing = list.filter((x) => x.req.source_messages.includes(i)).map((x) => x.req.id.trim() || `requirement ${x.i + 1}`);
        const on = !!(active && active.source_messages.includes(i));
        m.classList.toggle('src-active', on);
        m.classList.toggle('src-other', !on && citing.length > 0);
        if (this.sourcesOn) m.setAttribute('aria-pressed', String(on));
        m.querySelector('.mark-note').textContent = citing.length ? `source of ${citing.join(', ')}` : '';
      });
      this.updateHint();
    }

    // ------------------------------------------------------------ validation

    validate() {
      const P = [];
      const add = (pointer, message) => P.push({ pointer, message });
      const e = this.enums;
      const conf = (v, ptr) => {
        if (v.trim() === '') return;
        if (!NUMBER_RE.test(v)) add(ptr, 'must be a number from 0 to 1');
        else if (Number(v) < 0 || Number(v) > 1) add(ptr, `${v.trim()} is outside [0, 1]`);
      };
      const enumCheck = (v, allowed, ptr, what) => {
        if (!v) add(ptr, `choose a ${what}`);
        else if (Array.isArray(allowed) && allowed.length && !allowed.includes(v)) add(ptr, `${v} is not a valid ${what}`);
      };
      const reqCheck = (r, ptr) => {
        const id = r.id.trim();
        if (!id) add(`${ptr}/id`, 'required');
        else if (S.idRe && !S.idRe.test(id)) add(`${ptr}/id`, `${id} does not follow the id pattern ${S.session.id_pattern}`);
        if (!r.title.trim()) add(`${ptr}/title`, 'required');
        enumCheck(r.type, e.requirement_type, `${ptr}/type`, 'type');
        if (!r.actor.trim()) add(`${ptr}/actor`, 'required');
        if (!r.action.trim()) add(`${ptr}/action`, 'required');
        enumCheck(r.priority, e.priority, `${ptr}/priority`, 'priority');
        const n = r.acceptance_criteria.filter((c) => c.trim()).length;
        if (n < 2) add(`${ptr}/acceptance_criteria`, `at least 2 acceptance criteria are needed (${n} filled in)`);
        for (const i of r.source_messages) if (i < 0 || i >= this.conv.length) add(`${ptr}/source_messages`, `message ${i} does not exist`);
        conf(r.confidence, `${ptr}/confidence`);
      };
      const uniq = (list, idOf, ptrOf) => {
        const seen = new Map();
        list.forEach((x, i) => {
          const id = idOf(x).trim();
          if (!id) return;
          if (seen.has(id)) add(ptrOf(i), `duplicate id ${id}: item ${seen.get(id) + 1} already uses it`);
          else seen.set(id, i);
        });
      };
      const m = this.model;
      if (m.requirements) {
        m.requirements.forEach((r, i) => reqCheck(r, `/requirements/${i}`));
        uniq(m.requirements, (r) => r.id, (i) => `/requirements/${i}/id`);
      }
      if (m.inferred_requirements) {
        m.inferred_requirements.forEach((x, i) => {
          const p = `/inferred_requirements/${i}`;
          reqCheck(x.requirement, `${p}/requirement`);
          enumCheck(x.inference_type, e.inference_type, `${p}/inference_type`, 'inference type');
          enumCheck(x.necessity, e.necessity, `${p}/necessity`, 'necessity');
          conf(x.confidence, `${p}/confidence`);
        });
        uniq(m.inferred_requirements, (x) => x.requirement.id, (i) => `/inferred_requirements/${i}/requirement/id`);
      }
      if (m.issues) {
        m.issues.forEach((x, i) => {
          const p = `/issues/${i}`;
          enumCheck(x.issue_type, e.issue_type, `${p}/issue_type`, 'issue type');
          enumCheck(x.severity, e.severity, `${p}/severity`, 'severity');
          conf(x.confidence, `${p}/confidence`);
        });
      }
      if (m.pii) m.pii.forEach((p, i) => !norm(p.value) && add(`/pii/${i}`, 'empty PII string: fill it in or remove it'));
      if (m.tuples && this.task) {
        const text = norm(this.s.text || '');
        const seen = new Map();
        m.tuples.forEach((t, i) => {
          const p = `/tuples/${i}`;
          for (const f of this.task.fields || []) {
            const v = str(t[f.name]).trim();
            if (!v) add(`${p}/${f.name}`, 'required');
            else if (f.kind === 'label' && Array.isArray(f.values) && f.values.length && !f.values.includes(v)) add(`${p}/${f.name}`, `${v} is not one of the task's values`);
            else if (f.kind === 'span' && !t.implicit && !` ${text} `.includes(` ${norm(v)} `) && !text.includes(norm(v))) add(`${p}/${f.name}`, 'not found in the text (tick implicit if the tuple is only implied)');
          }
          const key = JSON.stringify([(this.task.fields || []).map((f) => norm(t[f.name])), !!t.implicit]);
          if (seen.has(key)) add(`${p}/${(this.task.fields || [{ name: 'implicit' }])[0].name}`, `the same tuple as tuple ${seen.get(key) + 1}`);
          else seen.set(key, i);
        });
      }
      return P;
    }

    // Puts each problem under its field; returns every problem (client and server).
    check() {
      const problems = [...this.validate(), ...this.serverProblems.map((p) => ({ ...p, server: true }))];
      const byPtr = new Map();
      const loose = [];
      for (const p of problems) {
        let ptr = p.pointer || '';
        while (ptr && !this.fields.has(ptr)) ptr = ptr.slice(0, ptr.lastIndexOf('/'));
        if (!ptr) {
          loose.push(p);
          continue;
        }
        if (!byPtr.has(ptr)) byPtr.set(ptr, []);
        byPtr.get(ptr).push(p);
      }
      for (const [ptr, f] of this.fields) {
        const list = (byPtr.get(ptr) || []).filter((p) => p.server || this.showAll || this.isTouched(f.obj, f.key));
        f.err.textContent = list.map((p) => (p.hint ? `${p.message} (${p.hint})` : p.message)).join('; ');
        if (f.input && !f.group && f.input.matches('input, select, textarea')) f.input.setAttribute('aria-invalid', list.length ? 'true' : 'false');
        if (f.wrap) f.wrap.classList.toggle('invalid', list.length > 0);
      }
      this.loose = loose;
      const blocked = problems.length > 0;
      for (const b of [this.saveBtn, this.saveOnly]) {
        if (blocked) b.setAttribute('aria-disabled', 'true');
        else b.removeAttribute('aria-disabled');
      }
      this.problems = problems;
      if (blocked && this.statusKind !== 'problems') {
        const p = problems[0];
        fill(this.blockEl,
          `Save is blocked by ${problems.length} problem${problems.length === 1 ? '' : 's'}. First: `,
          h('button', { type: 'button', class: 'linkish', onclick: () => this.focusProblem(p) }, this.describe(p)),
          ` — ${p.message}`,
        );
      } else fill(this.blockEl);
      if (this.statusKind === 'problems' || (this.statusKind === 'blocked' && !blocked)) {
        if (blocked) this.sayProblems(this.statusLead || 'Not saved');
        else this.say('All fields are valid: ready to save.', 'good');
      }
      return problems;
    }

    describe(p) {
      const parts = (p.pointer || '').split('/').filter(Boolean);
      const out = [];
      let node = this.model;
      for (let k = 0; k < parts.length; k++) {
        const seg = parts[k];
        const next = node && typeof node === 'object' ? node[seg] : undefined;
        if (/^\d+$/.test(seg) && Array.isArray(node)) {
          const item = next;
          const id = item && (item.id || (item.requirement && item.requirement.id));
          out.push(id ? `${+seg + 1} (${String(id).trim()})` : `${+seg + 1}`);
        } else out.push(FIELD_LABEL[seg] || seg.replace(/_/g, ' '));
        node = next;
      }
      return out.length ? out.join(' › ') : 'annotation';
    }

    sayProblems(lead) {
      const ps = this.problems || [];
      this.statusLead = lead;
      const items = ps.slice(0, 4).map((p) =>
        h(
          'li',
          null,
          h(
            'button',
            {
              type: 'button',
              onclick: () => this.focusProblem(p),
            },
            this.describe(p),
          ),
          `: ${p.message}${p.hint ? ` (${p.hint})` : ''}`,
        ),
      );
      if (ps.length > 4) items.push(h('li', null, `… and ${ps.length - 4} more, shown at their fields`));
      fill(this.blockEl); // the list below says it all
      this.say([`${lead}: ${ps.length} problem${ps.length === 1 ? '' : 's'} to fix first.`, h('ul', { class: 'problems-list' }, items)], 'bad', 'problems');
    }

    focusProblem(p) {
      let ptr = p.pointer || '';
      while (ptr && !this.fields.has(ptr)) ptr = ptr.slice(0, ptr.lastIndexOf('/'));
      const f = ptr && this.fields.get(ptr);
      const target = f && (f.input || f.wrap);
      if (target) {
        target.scrollIntoView({ block: 'center' });
        if (target.focus) target.focus();
      }
    }

    say(content, cls = '', kind = '') {
      this.statusKind = kind;
      this.statusEl.className = `status ${cls}`;
      fill(this.statusEl, ...(Array.isArray(content) ? content : [content]).flat().map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
    }

    // ------------------------------------------------------------ server calls

    failed(e, lead) {
      if (e.status === 409 || e.code === 'changed') {
        this.conflict = { message: e.message };
        this.renderBanners();
        this.say('Not saved: the sample changed on disk (see the red banner above).', 'bad');
        const b = $('#conflict-banner', this.el);
        if (b) b.scrollIntoView({ block: 'start' });
        return;
      }
      this.say(`${lead}: ${e.message}`, 'bad');
    }

    async save(next) {
      if (this.saving) return;
      this.showAll = true;
      const problems = this.check();
      if (problems.length) {
        this.sayProblems('Not saved');
        this.focusProblem(problems[0]);
        return;
      }
      this.saving = true;
      this.say('Saving…');
      const annotation = this.out();
      try {
        const data = await api('PUT', `/api/sample/${enc(this.s.id)}/annotation`, { fingerprint: this.s.fingerprint, annotation });
        this.saved(data, annotation);
        if (next) {
          const n = data.position && data.position.next;
          if (n) go(`#/sample/${enc(n)}`);
          else {
            this.say('Saved. This was the last sample; back to the queue.', 'good');
            go('#/queue');
          }
        }
      } catch (e) {
        if (e.code === 'invalid' && e.problems.length) {
          this.serverProblems = e.problems.map((p) => ({ pointer: String(p.pointer || ''), message: String(p.message || ''), hint: p.hint || null }));
          this.check();
          this.sayProblems('The server refused the save');
        } else {
          this.failed(e, 'Not saved');
        }
      } finally {
        this.saving = false;
      }
    }

    saved(data, annotation) {
      this.s = data;
      this.fromDraft = false;
      this.conflict = null;
      this.serverProblems = [];
      this.baseline = JSON.stringify(annotation);
      this.dirtyChanged();
      fill(this.agreementEl, agreementPanel(data));
      this.renderBanners();
      this.check();
      const t = new Date();
      this.say(`Saved at ${t.toLocaleTimeString()} as ${S.session.annotator}'s annotation.`, 'good');
    }

    async reload() {
      try {
        const data = await api('GET', `/api/sample/${enc(this.s.id)}`);
        this.noteEditor = null;
        this.init(data);
        this.say('Reloaded the version on disk.', 'good');
        const h1 = this.el.querySelector('h1');
        if (h1) {
          h1.setAttribute('tabindex', '-1');
          h1.focus();
        }
      } catch (e) {
        this.say(`Could not reload: ${e.message}`, 'bad');
      }
    }

    async skip() {
      try {
        const r = await api('POST', `/api/sample/${enc(this.s.id)}/skip`, {});
        this.baseline = JSON.stringify(this.out());
        if (r && r.next) go(`#/sample/${enc(r.next)}`);
        else go('#/queue');
      } catch (e) {
        this.say(`Not skipped: ${e.message}`, 'bad');
      }
    }

    // ------------------------------------------------------------ keys

    onKey(e, typing) {
      const ctrl = e.ctrlKey || e.metaKey;
      if (ctrl && !e.altKey && e.key === 'Enter') {
        this.save(true);
        return true;
      }
      if (ctrl && !e.altKey && !e.shiftKey && (e.key === 's' || e.key === 'S')) {
        this.save(false);
        return true;
      }
      const d = navKey(e, typing);
      if (d) {
        const pos = this.s.position || {};
        const target = d < 0 ? pos.prev : pos.next;
        if (target) go(`#/sample/${enc(target)}`);
        else this.say(d < 0 ? 'This is the first sample.' : 'This is the last sample.');
        return true;
      }
      if (e.altKey && !ctrl && !e.shiftKey && e.code === 'KeyN') {
        this.add(this.mainKey());
        return true;
      }
      if (e.altKey && !ctrl && !e.shiftKey && e.code === 'KeyP' && this.model.pii) {
        this.add('pii');
        return true;
      }
      if (e.altKey && !ctrl && !e.shiftKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown') && this.sourcesOn && document.activeElement.tagName !== 'SELECT') {
        this.stepActive(e.key === 'ArrowUp' ? -1 : 1);
        return true;
      }
      if (!typing && !ctrl && !e.altKey && /^[0-9]$/.test(e.key) && this.sourcesOn) {
        this.toggleSource(Number(e.key));
        return true;
      }
      return false;
    }
  }

  // ================================================================ review view

  function itemKeyFn(key, task) {
    if (key === 'requirements') return (r) => (r && r.id != null ? `id:${str(r.id).trim()}` : '');
    if (key === 'inferred_requirements') return (x) => (x && x.requirement && x.requirement.id != null ? `id:${str(x.requirement.id).trim()}` : '');
    if (key === 'issues') return (x) => (x ? `${norm(x.issue_type)}|${norm(x.field)}|${norm(str(x.location))}` : '');
    if (key === 'pii') return (x) => norm(x);
    if (key === 'tuples') return (t) => (t ? ((task && task.fields) || []).map((f) => norm(t[f.name])).join('|') : '');
    return () => '';
  }

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

  function fieldsFor(key, task) {
    const short = { acceptance_criteria: 'Criteria', source_messages: 'Sources' };
    const req = REQ_FIELDS.map((f) => [f, short[f] || FIELD_LABEL[f]]);
    if (key === 'requirements') return req;
    if (key === 'inferred_requirements') return [...INF_FIELDS.map((f) => [f, FIELD_LABEL[f]]), ...req.map(([f, l]) => [`requirement.${f}`, l])];
    if (key === 'issues') return ISSUE_FIELDS.map((f) => [f, FIELD_LABEL[f]]);
    if (key === 'pii') return [['', 'PII']];
    if (key === 'tuples') return [...((task && task.fields) || []).map((f) => [f.name, f.name]), ['implicit', 'implicit']];
    return [];
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

  const SECTION_TITLE = {
    requirements: 'Requirements',
    inferred_requirements: 'Inferred requirements',
    issues: 'Validation issues',
    pii: 'PII strings',
    tuples: 'Tuples',
  };

  class ReviewView {
    constructor(s) {
      this.title = `Review ${s.id}`;
      this.el = h('div', { class: 'review-view' });
      this.init(s);
    }

    init(s) {
      this.s = s;
      this.keys = KIND_KEYS[s.kind] || [];
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
      const groups = matchItems(all, itemKeyFn(key, this.task));
      const fields = fieldsFor(key, this.task);
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
      this.groups = this.groups || {};
      this.groups[key] = groups;
      return h(
        'section',
        { class: 'form-section' },
        h('h2', { class: 'section-title' }, SECTION_TITLE[key] || key),
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
        rows.push(h('dt', { class: d ? 'diff' : null }, path.startsWith('requirement.') ? `req. ${label}` : label), h('dd', { class: d ? 'diff' : null }, valueKey(v) === '' ? '—' : valueNode(path, v)));
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

  // ================================================================ start

  async function start() {
    $('#help-button').addEventListener('click', toggleHelp);
    $('#help-close').addEventListener('click', () => $('#help').close());
    document.addEventListener('keydown', onKeyDown);
    window.addEventListener('hashchange', onHashChange);
    window.addEventListener('beforeunload', (e) => {
      if (S.view && S.view.isDirty && S.view.isDirty()) {
        e.preventDefault();
        e.returnValue = '';
      }
    });
    if (!location.hash || location.hash === '#' || location.hash === '#/') history.replaceState(null, '', '#/queue');
    // The session and the first view's data are asked for at once: one round trip, not two.
    S.ready = api('GET', '/api/session').then(useSession);
    S.ready.catch(() => {}); // route() reports it
    route();
  }

  function useSession(sess) {
    S.session = sess;
    if (sess.id_pattern) {
      try {
        S.idRe = new RegExp(sess.id_pattern, 'u');
      } catch (_) {
        S.idRe = null; // a Rust-only pattern: the server still checks it on save
      }
    }
    const suite = sess.suite || {};
    $('#suite-name').textContent = `${str(suite.name)} · ${suite.samples ?? '?'} samples${sess.prefill ? ` · draft from ${str(sess.prefill)}` : ''}`;
    fill($('#who'), 'annotator ', h('strong', null, str(sess.annotator)));
    return sess;
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
