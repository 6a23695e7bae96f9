// goldgate annotate: the section builders for an issue list (each issue with its type,
// severity, the field and location it is at, a message and a fix) and a string list (one
// text box a row). Each gives, for the label key it is told: the section's model in and
// out, its items, a new item, its checks and its columns in the review (see form.js).

import { h, uid } from './dom.js';
import { FIELD_LABEL, ISSUE_FIELDS, REQ_FIELDS } from './fields.js';
import { choice, confidence } from './checks.js';
import { canon } from './label-model.js';
import { norm, str } from './text.js';

// Issues found in the sample's base requirements, under `key`. Options: the section's
// title, the text shown when it is empty, and optionally its add button, an item's noun and
// the Alt+key.
export function issueList({ key, title, empty, add = 'Add issue', noun = 'issue', shortcut = 'N' }) {
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  return {
    key,
    shortcut,
    in: (list, { enums }) =>
      list.map((x) => {
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
      }),
    out: (items) =>
      items.map((x) => {
        const o = { issue_type: x.issue_type, severity: x.severity };
        if (x.field.trim()) o.field = x.field.trim();
        if (x.locationRaw !== undefined && x.locationRaw !== null && typeof x.locationRaw !== 'string' && x.location === str(x.locationRaw)) o.location = x.locationRaw;
        else if (x.location.trim()) o.location = x.location.trim();
        if (x.message.trim()) o.message = x.message.trim();
        if (x.suggested_fix.trim()) o.suggested_fix = x.suggested_fix.trim();
        if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
        return o;
      }),
    blank(view, items) {
      items.push({ issue_type: '', severity: '', field: '', location: '', message: '', suggested_fix: '', confidence: '' });
      return `/${key}/${items.length - 1}/issue_type`;
    },
    render(view, items) {
      const e = view.enums;
      const baseIds = (Array.isArray(view.s.requirements) ? view.s.requirements : []).map((r) => str(r && r.id)).filter(Boolean);
      const fieldList = uid('dl');
      const locList = uid('dl');
      const lists = [
        h('datalist', { id: fieldList }, REQ_FIELDS.map((f) => h('option', { value: f }))),
        h('datalist', { id: locList }, baseIds.map((f) => h('option', { value: f }))),
      ];
      const cards = items.map((x, i) => {
        const ptr = `/${key}/${i}`;
        const title = () => `${Noun} ${i + 1}${x.issue_type ? ` · ${x.issue_type}` : ''}${x.location ? ` at ${x.location}` : ''}`;
        const retitle = () => {
          const h3 = view.formEl.querySelector(`[data-item="${ptr}"] .item-head h3`);
          if (h3) h3.textContent = title();
        };
        const body = [
          view.select(x, 'issue_type', `${ptr}/issue_type`, e.issue_type, { required: true, oninput: retitle }),
          view.select(x, 'severity', `${ptr}/severity`, e.severity, { required: true }),
          view.text(x, 'field', `${ptr}/field`, { list: fieldList, label: 'Field (optional)' }),
          view.text(x, 'location', `${ptr}/location`, { list: locList, label: 'Location (optional)', oninput: retitle }),
          view.text(x, 'message', `${ptr}/message`, { area: true, wide: true, label: 'Message (optional)' }),
          view.text(x, 'suggested_fix', `${ptr}/suggested_fix`, { area: true, wide: true, label: 'Suggested fix (optional)' }),
          view.text(x, 'confidence', `${ptr}/confidence`, { inputmode: 'decimal', label: 'Confidence 0–1 (optional)' }),
        ];
        return view.card(key, items, i, title(), noun, body, null);
      });
      return h('div', null, lists, view.section(key, title, items.length, add, shortcut, cards, empty));
    },
    check(view, items, add) {
      const e = view.enums;
      items.forEach((x, i) => {
        const p = `/${key}/${i}`;
        choice(x.issue_type, e.issue_type, `${p}/issue_type`, 'issue_type', add);
        choice(x.severity, e.severity, `${p}/severity`, 'severity', add);
        confidence(x.confidence, `${p}/confidence`, add);
      });
    },
    review: {
      title,
      itemKey: () => (x) => (x ? `${norm(x.issue_type)}|${norm(x.field)}|${norm(str(x.location))}` : ''),
      columns: () => ISSUE_FIELDS.map((f) => [f, FIELD_LABEL[f]]),
    },
  };
}

// Strings under `key`, one text box a row. Options: the section's title, the text shown
// when it is empty, an item's noun, the add button, the Alt+key, and the review's column.
export function stringList({ key, title, empty, noun, add = `Add ${noun}`, shortcut = 'N', column = title }) {
  return {
    key,
    shortcut,
    in: (list) => list.map((p) => ({ value: str(p) })),
    out: (items) => items.map((p) => p.value.trim()).filter(Boolean),
    blank(view, items) {
      items.push({ value: '' });
      return `/${key}/${items.length - 1}`;
    },
    render(view, items) {
      const rows = items.map((p, i) => {
        const ptr = `/${key}/${i}`;
        const inp = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `${noun} ${i + 1}` });
        inp.value = p.value;
        inp.addEventListener('input', () => {
          p.value = inp.value;
          view.touch(p, 'value');
          view.edited(ptr);
        });
        inp.addEventListener('blur', () => {
          view.touch(p, 'value');
          view.check();
        });
        const [c, err] = view.bareField(ptr, inp, p, 'value', null);
        const b = (label, aria, act, disabled, fn, cls = 'btn icon') =>
          h('button', { type: 'button', class: cls, 'aria-label': aria, title: aria, 'data-ptr': `${ptr}#${act}`, disabled: disabled || null, onclick: fn }, label);
        return h(
          'div',
          { class: 'list-row', 'data-item': ptr },
          h('span', { class: 'n', 'aria-hidden': 'true' }, `${i + 1}.`),
          c,
          b('↑', `Move ${noun} ${i + 1} up`, 'up', i === 0, () => view.move(key, i, -1)),
          b('↓', `Move ${noun} ${i + 1} down`, 'down', i === items.length - 1, () => view.move(key, i, 1)),
          b('×', `Remove ${noun} ${i + 1}`, 'remove', false, () => view.remove(key, i)),
          err,
        );
      });
      return view.section(key, title, items.length, add, shortcut, rows.length ? h('div', { class: 'list-edit' }, rows) : [], empty);
    },
    check(view, items, add) {
      items.forEach((p, i) => !norm(p.value) && add(`/${key}/${i}`, `empty ${noun}: fill it in or remove it`));
    },
    review: {
      title,
      itemKey: () => (x) => norm(x),
      columns: () => [['', column]],
    },
  };
}
