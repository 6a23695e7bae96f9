// goldgate annotate: the section builders for requirements — a requirement list, and an
// inferred-requirement list (each inferred requirement with its type, necessity, the base
// requirements that trigger it, and the requirement itself). A kind's form (form.js) is
// made of sections; each builder gives, for the label key it is told: the section's model
// in and out, its cards, a new item, its checks, its requirements that may cite messages,
// the ids it uses, and its columns in the review.

import { h, uid } from './dom.js';
import { FIELD_LABEL, INF_FIELDS, REQ_FIELDS } from './fields.js';
import { choice, confidence, uniqueIds } from './checks.js';
import { blankReq, canon, nextId, reqIn, reqOut } from './label-model.js';
import { S } from './state.js';
import { str } from './text.js';

const SHORT = { acceptance_criteria: 'Criteria', source_messages: 'Sources' };
const reqColumns = () => REQ_FIELDS.map((f) => [f, SHORT[f] || FIELD_LABEL[f]]);
const byId = (id) => (id != null ? `id:${str(id).trim()}` : '');

// The checks of one requirement (the same the server applies on save).
function checkReq(view, r, ptr, add) {
  const e = view.enums;
  const id = r.id.trim();
  if (!id) add(`${ptr}/id`, 'required');
  else if (S.idRe && !S.idRe.test(id)) add(`${ptr}/id`, `${id} does not follow the id pattern ${S.session.id_pattern}`);
  if (!r.title.trim()) add(`${ptr}/title`, 'required');
  choice(r.type, e.requirement_type, `${ptr}/type`, 'type', add);
  if (!r.actor.trim()) add(`${ptr}/actor`, 'required');
  if (!r.action.trim()) add(`${ptr}/action`, 'required');
  choice(r.priority, e.priority, `${ptr}/priority`, 'priority', add);
  const n = r.acceptance_criteria.filter((c) => c.trim()).length;
  if (n < 2) add(`${ptr}/acceptance_criteria`, `at least 2 acceptance criteria are needed (${n} filled in)`);
  for (const i of r.source_messages) if (i < 0 || i >= view.conv.length) add(`${ptr}/source_messages`, `message ${i} does not exist`);
  confidence(r.confidence, `${ptr}/confidence`, add);
}

// Requirements under `key`. Options: the section's title, the text shown when it is empty,
// and optionally its add button, the noun of an item, the heading of a card, the Alt+key.
export function requirementList({ key, title, empty, add = 'Add requirement', noun = 'requirement', heading = 'Requirement', shortcut = 'N' }) {
  return {
    key,
    shortcut,
    in: (list, { enums }) => list.map((r) => reqIn(r, enums)),
    out: (items) => items.map(reqOut),
    requirements: (items) => items.map((req, i) => ({ req, i, ptr: `/${key}/${i}`, noun: heading })),
    ids: (items) => items.map((r) => r.id.trim()),
    blank(view, items) {
      const r = blankReq(nextId(view.allIds()));
      items.push(r);
      view.active = r;
      return `/${key}/${items.length - 1}/${r.id ? 'type' : 'id'}`;
    },
    render(view, items) {
      const cards = items.map((r, i) => view.card(key, items, i, view.reqTitle(r, i, heading), noun, view.reqBody(r, `/${key}/${i}`), r));
      return view.section(key, title, items.length, add, shortcut, cards, empty);
    },
    check(view, items, add) {
      items.forEach((r, i) => checkReq(view, r, `/${key}/${i}`, add));
      uniqueIds(items, (r) => r.id, (i) => `/${key}/${i}/id`, add);
    },
    review: {
      title,
      itemKey: () => (r) => (r ? byId(r.id) : ''),
      columns: reqColumns,
    },
  };
}

// The ids of the sample's base requirements (its input).
function baseIds(sample) {
  return (Array.isArray(sample.requirements) ? sample.requirements : []).map((r) => str(r && r.id)).filter(Boolean);
}

// Requirements inferred from the sample's base requirements, under `key`; options as for
// requirementList.
export function inferredList({ key, title, empty, add = 'Add inferred requirement', noun = 'inferred requirement', heading = 'Inferred', shortcut = 'N' }) {
  return {
    key,
    shortcut,
    in: (list, { enums }) =>
      list.map((x) => {
        x = x && typeof x === 'object' ? x : {};
        return {
          requirement: reqIn(x.requirement, enums),
          inference_type: canon(x.inference_type, enums.inference_type),
          triggered_by: Array.isArray(x.triggered_by) ? x.triggered_by.map(str) : [],
          necessity: canon(x.necessity, enums.necessity),
          rationale: str(x.rationale),
          confidence: x.confidence == null ? '' : str(x.confidence),
        };
      }),
    out: (items) =>
      items.map((x) => {
        const o = { requirement: reqOut(x.requirement), inference_type: x.inference_type };
        if (x.triggered_by.length) o.triggered_by = [...x.triggered_by];
        o.necessity = x.necessity;
        if (x.rationale.trim()) o.rationale = x.rationale.trim();
        if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
        return o;
      }),
    requirements: (items) => items.map((x, i) => ({ req: x.requirement, i, ptr: `/${key}/${i}/requirement`, noun: heading })),
    ids(items, sample) {
      const ids = items.map((x) => x.requirement.id.trim());
      if (Array.isArray(sample.requirements)) for (const r of sample.requirements) if (r && r.id) ids.push(str(r.id));
      return ids;
    },
    blank(view, items) {
      const r = blankReq(nextId(view.allIds()));
      items.push({ requirement: r, inference_type: '', triggered_by: [], necessity: '', rationale: '', confidence: '' });
      view.active = r;
      return `/${key}/${items.length - 1}/inference_type`;
    },
    render(view, items) {
      const e = view.enums;
      const base = baseIds(view.s);
      const cards = items.map((x, i) => {
        const ptr = `/${key}/${i}`;
        const ids = [...base, ...x.triggered_by.filter((t) => !base.includes(t))];
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
                  view.touch(x, 'triggered_by');
                  view.edited(`${ptr}/triggered_by`);
                });
                return h('label', { for: cb.id }, cb, id);
              })
            : h('span', { class: 'hint' }, 'the sample has no base requirements'),
        );
        const body = [
          view.select(x, 'inference_type', `${ptr}/inference_type`, e.inference_type, { required: true }),
          view.select(x, 'necessity', `${ptr}/necessity`, e.necessity, { required: true }),
          view.group(`${ptr}/triggered_by`, 'Triggered by (base requirements)', checks, { wide: true, obj: x, key: 'triggered_by', focus: checks.querySelector('input') }),
          view.text(x, 'rationale', `${ptr}/rationale`, { area: true, wide: true, label: 'Why it is inferred (optional)' }),
          view.text(x, 'confidence', `${ptr}/confidence`, { inputmode: 'decimal', label: 'Confidence 0–1 (optional)' }),
          h('h4', { class: 'subhead' }, 'The inferred requirement'),
          view.reqBody(x.requirement, `${ptr}/requirement`),
        ];
        return view.card(key, items, i, view.reqTitle(x.requirement, i, heading), noun, body, x.requirement);
      });
      return view.section(key, title, items.length, add, shortcut, cards, empty);
    },
    check(view, items, add) {
      const e = view.enums;
      items.forEach((x, i) => {
        const p = `/${key}/${i}`;
        checkReq(view, x.requirement, `${p}/requirement`, add);
        choice(x.inference_type, e.inference_type, `${p}/inference_type`, 'inference_type', add);
        choice(x.necessity, e.necessity, `${p}/necessity`, 'necessity', add);
        confidence(x.confidence, `${p}/confidence`, add);
      });
      uniqueIds(items, (x) => x.requirement.id, (i) => `/${key}/${i}/requirement/id`, add);
    },
    review: {
      title,
      itemKey: () => (x) => (x && x.requirement ? byId(x.requirement.id) : ''),
      columns: () => [...INF_FIELDS.map((f) => [f, FIELD_LABEL[f]]), ...reqColumns().map(([f, l]) => [`requirement.${f}`, `req. ${l}`])],
    },
  };
}
