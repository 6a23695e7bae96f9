// goldgate annotate: renderers the label and review views (and the queue) share — a kappa
// with its band, the conversation's messages, who cites which message, the agreement panel,
// discussion notes, the promotion line and a sample's facts.

import { h } from './dom.js';
import { S } from './state.js';
import { bandClass, fmtKappa, str } from './text.js';

export function kappaNode(k, band) {
  return h(
    'span',
    { class: `kappa ${bandClass(band)}` },
    fmtKappa(k),
    band ? h('span', { class: 'band' }, ` ${band}`) : null,
  );
}

export function messageNodes(conversation, opts = {}) {
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

export function marksTable(marks, nMessages, current) {
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

export function agreementPanel(s) {
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
          conv === 0
            ? 'Agreement (kappa) is measured on which conversation messages each annotator cites; this sample has no conversation.'
            : n === 1
              ? 'Only one annotator has labelled this sample; kappa needs two.'
              : 'No annotator has labelled this sample yet.',
        ),
    marksTable(a.marks, conv, me),
  );
}

export function discussionList(s) {
  const notes = Array.isArray(s.discussion) ? s.discussion : [];
  if (!notes.length) return null;
  return h(
    'ul',
    { class: 'discussion-list' },
    notes.map((d) => h('li', null, h('span', { class: 'by' }, `${str(d.annotator)}:`), str(d.note))),
  );
}

export function reviewLine(review) {
  if (!review) return null;
  const from = Array.isArray(review.from) ? review.from.join(', ') : str(review.from);
  return h(
    'div',
    { class: 'banner ok review-status' },
    h('strong', null, 'Gold labels promoted'),
    ` by ${str(review.promoted_by)} from ${from || '—'} at ${str(review.at)}.`,
  );
}

export function sampleMeta(s) {
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
