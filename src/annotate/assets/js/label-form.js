// goldgate annotate: the label form's building blocks, as methods of LabelView — the whole
// form drawn from the model by the kind's sections (`renderForm`), a section with its add
// button, a labelled field and a group of controls (each with the place its problems are
// shown), text inputs and selects bound to the model, an item's head (move / remove) and
// its card.

import { fill, h, kbd, uid } from './dom.js';
import { FIELD_LABEL } from './fields.js';
import { str } from './text.js';

export const formMethods = {
  renderForm(focusPtr) {
    this.fields = new Map();
    this.cards = new Map();
    this.chips = new Map();
    const f = this.formEl;
    const sections = this.form ? this.form.sections.filter((s) => this.model[s.key]).map((s) => s.render(this, this.model[s.key])) : [];
    if (!sections.length) sections.push(h('p', { class: 'hint' }, `The page has no form for samples of kind ${str(this.kind)}.`));
    fill(f, ...sections);
    this.refreshSources();
    this.check();
    if (focusPtr) {
      const el = f.querySelector(`[data-ptr="${CSS.escape(focusPtr)}"]`);
      if (el) el.focus();
    }
  },

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
  },

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
  },

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
  },

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
  },

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
  },

  // A control inside a table cell: the column header is its visible label.
  bareField(ptr, c, obj, key, label) {
    const err = h('div', { class: 'err', id: uid('e') });
    if (!c.id) c.id = uid();
    c.dataset.ptr = ptr;
    c.setAttribute('aria-describedby', err.id);
    if (label) c.setAttribute('aria-label', label);
    this.fields.set(ptr, { err, input: c, wrap: null, obj, key });
    return [c, err];
  },

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
  },

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
  },
};
