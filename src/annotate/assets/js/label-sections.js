// goldgate annotate: the form of each kind, as methods of LabelView — a requirement's fields
// (acceptance criteria, source-message chips), and the sections for requirements, inferred
// requirements, validation issues, PII strings and tuples (with a span taken from the
// selected text).

import { fill, h, uid } from './dom.js';
import { REQ_FIELDS } from './kinds.js';
import { S } from './state.js';
import { str } from './text.js';

export const sectionMethods = {
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
  },

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
  },

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
  },

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
  },

  reqTitle(r, i, noun = 'Requirement') {
    const t = r.title.trim();
    return `${noun} ${i + 1}${r.id.trim() ? ` · ${r.id.trim()}` : ''}${t ? ` — ${t}` : ''}`;
  },

  retitle(r) {
    const c = this.cards.get(r);
    if (!c) return;
    const list = this.reqList();
    const at = list.findIndex((x) => x.req === r);
    if (at >= 0) c.querySelector('.item-head h3').textContent = this.reqTitle(r, at, this.kind === 'inference' ? 'Inferred' : 'Requirement');
    this.updateHint();
  },

  sectionReqs() {
    const list = this.model.requirements;
    const cards = list.map((r, i) => this.card('requirements', list, i, this.reqTitle(r, i), 'requirement', this.reqBody(r, `/requirements/${i}`), r));
    return this.section('requirements', 'Requirements', list.length, 'Add requirement', 'N', cards, 'No requirements yet. Add one for each requirement the conversation states.');
  },

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
  },

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
  },

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
  },

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
  },

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
  },
};
