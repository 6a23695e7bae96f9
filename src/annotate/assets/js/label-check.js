// goldgate annotate: checking the label form, as methods of LabelView — the rules a save must
// pass (the kind's checks, the same the server applies), each problem under its field, what
// blocks the save, the list of problems in the status line, and the status line itself
// (`say`).

import { fill, h } from './dom.js';
import { FIELD_LABEL } from './fields.js';

export const checkMethods = {
  // Every problem of the form, by the kind's checks (the same the server applies).
  validate() {
    const P = [];
    if (this.form) this.form.check(this, (pointer, message) => P.push({ pointer, message }));
    return P;
  },

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
  },

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
  },

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
  },

  focusProblem(p) {
    let ptr = p.pointer || '';
    while (ptr && !this.fields.has(ptr)) ptr = ptr.slice(0, ptr.lastIndexOf('/'));
    const f = ptr && this.fields.get(ptr);
    const target = f && (f.input || f.wrap);
    if (target) {
      target.scrollIntoView({ block: 'center' });
      if (target.focus) target.focus();
    }
  },

  say(content, cls = '', kind = '') {
    this.statusKind = kind;
    this.statusEl.className = `status ${cls}`;
    fill(this.statusEl, ...(Array.isArray(content) ? content : [content]).flat().map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
  },
};
