// goldgate annotate: a requirement in the label form, as methods of LabelView — its fields
// (acceptance criteria, source-message chips), the chips' refresh and its card's title. The
// sections that list requirements (section-requirements.js) build on them.

import { fill, h } from './dom.js';
import { S } from './state.js';

export const requirementMethods = {
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
    const at = this.reqList().find((x) => x.req === r);
    if (at) c.querySelector('.item-head h3').textContent = this.reqTitle(r, at.i, at.noun);
    this.updateHint();
  },
};
