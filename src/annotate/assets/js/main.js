// goldgate annotate: the labelling page's entry point (index.html loads this module). Plain
// JavaScript modules, no framework, no build step; the server embeds every file in the
// binary. Suite text is only ever put in the page with textContent or value (never parsed as
// HTML), so HTML and scripts in a sample render as text. This module owns the routing
// (#/queue, #/sample/ID, #/review/ID; leaving unsaved edits asks first), the global
// shortcuts and the shortcut dialog, the session and the start.

import { api } from './api.js';
import { $, enc, fill, h, isTextField } from './dom.js';
import { LabelView } from './label-view.js';
import { QueueView } from './queue.js';
import { ReviewView } from './review.js';
import { S, setRouter } from './state.js';
import { str } from './text.js';

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

async function start() {
  setRouter(route);
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
