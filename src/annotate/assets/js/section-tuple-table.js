// goldgate annotate: the section builder for a tuple table — one row a tuple, one column
// per field of the sample's task (a choice for a label field; a text box for a span
// field, filled from the text selected in the sample, with its exact position), and
// whether the tuple is implicit. It gives, for the label key it is told: the section's
// model in and out, its rows, a new row, its checks and its columns in the review (see
// form.js).

import { h } from './dom.js';
import { canon } from './label-model.js';
import { norm, str } from './text.js';

const fieldsOf = (task) => (task && task.fields) || [];

// The text selected in the sample as the span `name` of tuple `t` (its input `inp`).
function useSelection(view, t, name, inp, ptr) {
  const sel = window.getSelection();
  const text = view.s.text || '';
  if (!sel || sel.isCollapsed || !view.textEl || !view.textEl.contains(sel.anchorNode) || !view.textEl.contains(sel.focusNode)) {
    view.say('Select the words in the sample text first, then press ⇲.', 'bad');
    return;
  }
  const r = sel.getRangeAt(0);
  const pre = document.createRange();
  pre.selectNodeContents(view.textEl);
  pre.setEnd(r.startContainer, r.startOffset);
  const startUnits = pre.toString().length;
  const picked = r.toString();
  const start = Array.from(text.slice(0, startUnits)).length;
  t[name] = picked;
  t.start = start;
  t.end = start + Array.from(picked).length;
  inp.value = picked;
  view.touch(t, name);
  view.edited(ptr);
  inp.focus();
}

// Tuples of the sample's task under `key`. Options: the section's title (the task's name
// follows it), the text shown when it is empty, and optionally its add button and Alt+key.
export function tupleTable({ key, title, empty, add = 'Add tuple', shortcut = 'N' }) {
  return {
    key,
    shortcut,
    in: (list, { task }) =>
      list.map((t) => {
        t = t && typeof t === 'object' ? t : {};
        const o = { implicit: t.implicit === true };
        for (const f of fieldsOf(task)) o[f.name] = f.kind === 'label' ? canon(t[f.name], f.values) : str(t[f.name]);
        if (Number.isInteger(t.start) && Number.isInteger(t.end)) {
          o.start = t.start;
          o.end = t.end;
        }
        return o;
      }),
    out(items, { task, text }) {
      const fields = fieldsOf(task);
      const spans = fields.filter((f) => f.kind === 'span');
      const chars = Array.from(text || '');
      return items.map((t) => {
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
    },
    blank(view, items) {
      const t = { implicit: false };
      for (const f of fieldsOf(view.task)) t[f.name] = '';
      items.push(t);
      const first = fieldsOf(view.task)[0];
      return first ? `/${key}/${items.length - 1}/${first.name}` : null;
    },
    render(view, items) {
      const fields = fieldsOf(view.task);
      if (!view.task) return h('div', { class: 'banner error' }, `The task ${str(view.s.task)} is not defined in this suite.`);
      const rows = items.map((t, i) => {
        const ptr = `/${key}/${i}`;
        const cells = fields.map((f) => {
          const fp = `${ptr}/${f.name}`;
          if (f.kind === 'label' && Array.isArray(f.values) && f.values.length) {
            return h('td', null, view.select(t, f.name, fp, f.values, { bare: true, label: `${f.name} of tuple ${i + 1}` }));
          }
          const inp = h('input', { type: 'text', autocomplete: 'off' });
          inp.value = t[f.name] || '';
          inp.addEventListener('input', () => {
            t[f.name] = inp.value;
            view.touch(t, f.name);
            view.edited(fp);
          });
          inp.addEventListener('blur', () => {
            view.touch(t, f.name);
            view.check();
          });
          const [c, err] = view.bareField(fp, inp, t, f.name, `${f.name} of tuple ${i + 1}`);
          if (f.kind !== 'span') return h('td', null, c, err);
          const use = h(
            'button',
            {
              type: 'button',
              class: 'btn icon',
              title: 'Use the text selected in the sample',
              'aria-label': `Use the selected text as the ${f.name} of tuple ${i + 1}`,
              onclick: () => useSelection(view, t, f.name, inp, fp),
            },
            '⇲',
          );
          return h('td', null, h('div', { class: 'span-cell' }, c, use), err);
        });
        const imp = h('input', { type: 'checkbox', checked: t.implicit, 'aria-label': `Tuple ${i + 1} is implicit (its span is not in the text)`, 'data-ptr': `${ptr}/implicit` });
        imp.addEventListener('change', () => {
          t.implicit = imp.checked;
          view.touch(t, 'implicit');
          view.edited(`${ptr}/implicit`);
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
            b('↑', `Move tuple ${i + 1} up`, 'up', i === 0, () => view.move(key, i, -1)),
            b('↓', `Move tuple ${i + 1} down`, 'down', i === items.length - 1, () => view.move(key, i, 1)),
            b('×', `Remove tuple ${i + 1}`, 'remove', false, () => view.remove(key, i)),
          ),
        );
      });
      view.fields.set(`/${key}`, { err: h('div', { class: 'err' }), input: null, wrap: null });
      const table = rows.length
        ? h(
            'table',
            { class: 'tuple-table' },
            h('colgroup', null, h('col', { class: 'c-n' }), fields.map(() => h('col')), h('col', { class: 'c-imp' }), h('col', { class: 'c-act' })),
            h('thead', null, h('tr', null, h('th', null, '#'), fields.map((f) => h('th', { scope: 'col' }, `${f.name}${f.kind === 'span' ? ' (span)' : ''}`)), h('th', null, 'implicit'), h('th', null, h('span', { class: 'hint' }, 'order')))),
            h('tbody', null, rows),
          )
        : [];
      return view.section(key, `${title} · task ${str(view.s.task)}`, items.length, add, shortcut, table, empty);
    },
    check(view, items, add) {
      if (!view.task) return;
      const fields = fieldsOf(view.task);
      const text = norm(view.s.text || '');
      const seen = new Map();
      items.forEach((t, i) => {
        const p = `/${key}/${i}`;
        for (const f of fields) {
          const v = str(t[f.name]).trim();
          if (!v) add(`${p}/${f.name}`, 'required');
          else if (f.kind === 'label' && Array.isArray(f.values) && f.values.length && !f.values.includes(v)) add(`${p}/${f.name}`, `${v} is not one of the task's values`);
          else if (f.kind === 'span' && !t.implicit && !` ${text} `.includes(` ${norm(v)} `) && !text.includes(norm(v))) add(`${p}/${f.name}`, 'not found in the text (tick implicit if the tuple is only implied)');
        }
        const k = JSON.stringify([fields.map((f) => norm(t[f.name])), !!t.implicit]);
        if (seen.has(k)) add(`${p}/${(fields.length ? fields : [{ name: 'implicit' }])[0].name}`, `the same tuple as tuple ${seen.get(k) + 1}`);
        else seen.set(k, i);
      });
    },
    review: {
      title,
      itemKey: (task) => (t) => (t ? fieldsOf(task).map((f) => norm(t[f.name])).join('|') : ''),
      columns: (task) => [...fieldsOf(task).map((f) => [f.name, f.name]), ['implicit', 'implicit']],
    },
  };
}
