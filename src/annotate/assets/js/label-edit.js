// goldgate annotate: editing the label form, as methods of LabelView — adding, moving and
// removing items (with undo), what was touched, the dirty mark, and the message sources of
// the requirement being edited (toggled from the conversation, shown on messages and chips).

import { h, kbd } from './dom.js';

export const editMethods = {
  mainKey() {
    return this.keys[0];
  },

  // The requirements that may cite messages ({ req, i, ptr, noun } each), in form order.
  reqList() {
    return this.form ? this.form.requirements(this.model) : [];
  },

  allIds() {
    return (this.form ? this.form.ids(this.model, this.s) : []).filter(Boolean);
  },

  add(key) {
    const list = this.model[key];
    const section = this.form && this.form.section(key);
    if (!list || !section) return false;
    const focus = section.blank(this, list);
    this.structural(focus);
    const card = this.formEl.querySelector(`[data-item="/${key}/${list.length - 1}"]`);
    if (card) card.scrollIntoView({ block: 'nearest' });
    return true;
  },

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
  },

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
  },

  structural(focusPtr) {
    this.serverProblems = [];
    this.renderForm(focusPtr);
    this.dirtyChanged();
  },

  touch(obj, key) {
    let s = this.touched.get(obj);
    if (!s) this.touched.set(obj, (s = new Set()));
    s.add(key);
  },

  isTouched(obj, key) {
    const s = obj && this.touched.get(obj);
    return !!(s && s.has(key));
  },

  edited(ptr) {
    if (this.serverProblems.length) {
      this.serverProblems = this.serverProblems.filter((p) => !(p.pointer === ptr || p.pointer.startsWith(`${ptr}/`) || ptr.startsWith(`${p.pointer}/`)));
    }
    this.check();
    this.dirtyChanged();
  },

  dirtyChanged() {
    if (this.conflict) return;
    const dirty = this.isDirty();
    this.el.classList.toggle('dirty', dirty);
  },

  // ------------------------------------------------------------ sources

  activeReq() {
    const list = this.reqList();
    if (this.active && list.some((x) => x.req === this.active)) return this.active;
    this.active = list.length ? list[0].req : null;
    return this.active;
  },

  setActive(req) {
    if (this.active === req) return;
    this.active = req;
    this.refreshSources();
  },

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
  },

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
    const entry = this.reqList().find((x) => x.req === r);
    if (entry) this.edited(`${entry.ptr}/source_messages`);
    this.say(`${at >= 0 ? 'Removed' : 'Added'} message ${i} ${at >= 0 ? 'from' : 'to'} the sources of ${r.id.trim() || 'the requirement being edited'}.`);
  },

  updateHint() {
    if (!this.sourceHint) return;
    const r = this.sourcesOn ? this.activeReq() : null;
    this.sourceHint.textContent = r
      ? `Click a message (or focus it and press Space, or press its number) to toggle it as a source of ${r.id.trim() || 'the requirement being edited'}.`
      : 'Add a requirement (Alt+N), then click the messages it comes from.';
  },

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
  },
};
