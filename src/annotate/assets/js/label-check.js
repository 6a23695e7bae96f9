// goldgate annotate: checking the label form, as methods of LabelView — the rules a save must
// pass (the same the server applies), each problem under its field, what blocks the save, the
// list of problems in the status line, and the status line itself (`say`).

import { fill, h } from './dom.js';
import { FIELD_LABEL, NUMBER_RE } from './kinds.js';
import { S } from './state.js';
import { norm, str } from './text.js';

export const checkMethods = {
  validate() {
    const P = [];
    const add = (pointer, message) => P.push({ pointer, message });
    const e = this.enums;
    const conf = (v, ptr) => {
      if (v.trim() === '') return;
      if (!NUMBER_RE.test(v)) add(ptr, 'must be a number from 0 to 1');
      else if (Number(v) < 0 || Number(v) > 1) add(ptr, `${v.trim()} is outside [0, 1]`);
    };
    const enumCheck = (v, allowed, ptr, what) => {
      if (!v) add(ptr, `choose a ${what}`);
      else if (Array.isArray(allowed) && allowed.length && !allowed.includes(v)) add(ptr, `${v} is not a valid ${what}`);
    };
    const reqCheck = (r, ptr) => {
      const id = r.id.trim();
      if (!id) add(`${ptr}/id`, 'required');
      else if (S.idRe && !S.idRe.test(id)) add(`${ptr}/id`, `${id} does not follow the id pattern ${S.session.id_pattern}`);
      if (!r.title.trim()) add(`${ptr}/title`, 'required');
      enumCheck(r.type, e.requirement_type, `${ptr}/type`, 'type');
      if (!r.actor.trim()) add(`${ptr}/actor`, 'required');
      if (!r.action.trim()) add(`${ptr}/action`, 'required');
      enumCheck(r.priority, e.priority, `${ptr}/priority`, 'priority');
      const n = r.acceptance_criteria.filter((c) => c.trim()).length;
      if (n < 2) add(`${ptr}/acceptance_criteria`, `at least 2 acceptance criteria are needed (${n} filled in)`);
      for (const i of r.source_messages) if (i < 0 || i >= this.conv.length) add(`${ptr}/source_messages`, `message ${i} does not exist`);
      conf(r.confidence, `${ptr}/confidence`);
    };
    const uniq = (list, idOf, ptrOf) => {
      const seen = new Map();
      list.forEach((x, i) => {
        const id = idOf(x).trim();
        if (!id) return;
        if (seen.has(id)) add(ptrOf(i), `duplicate id ${id}: item ${seen.get(id) + 1} already uses it`);
        else seen.set(id, i);
      });
    };
    const m = this.model;
    if (m.requirements) {
      m.requirements.forEach((r, i) => reqCheck(r, `/requirements/${i}`));
      uniq(m.requirements, (r) => r.id, (i) => `/requirements/${i}/id`);
    }
    if (m.inferred_requirements) {
      m.inferred_requirements.forEach((x, i) => {
        const p = `/inferred_requirements/${i}`;
        reqCheck(x.requirement, `${p}/requirement`);
        enumCheck(x.inference_type, e.inference_type, `${p}/inference_type`, 'inference type');
        enumCheck(x.necessity, e.necessity, `${p}/necessity`, 'necessity');
        conf(x.confidence, `${p}/confidence`);
      });
      uniq(m.inferred_requirements, (x) => x.requirement.id, (i) => `/inferred_requirements/${i}/requirement/id`);
    }
    if (m.issues) {
      m.issues.forEach((x, i) => {
        const p = `/issues/${i}`;
        enumCheck(x.issue_type, e.issue_type, `${p}/issue_type`, 'issue type');
        enumCheck(x.severity, e.severity, `${p}/severity`, 'severity');
        conf(x.confidence, `${p}/confidence`);
      });
    }
    if (m.pii) m.pii.forEach((p, i) => !norm(p.value) && add(`/pii/${i}`, 'empty PII string: fill it in or remove it'));
    if (m.tuples && this.task) {
      const text = norm(this.s.text || '');
      const seen = new Map();
      m.tuples.forEach((t, i) => {
        const p = `/tuples/${i}`;
        for (const f of this.task.fields || []) {
          const v = str(t[f.name]).trim();
          if (!v) add(`${p}/${f.name}`, 'required');
          else if (f.kind === 'label' && Array.isArray(f.values) && f.values.length && !f.values.includes(v)) add(`${p}/${f.name}`, `${v} is not one of the task's values`);
          else if (f.kind === 'span' && !t.implicit && !` ${text} `.includes(` ${norm(v)} `) && !text.includes(norm(v))) add(`${p}/${f.name}`, 'not found in the text (tick implicit if the tuple is only implied)');
        }
        const key = JSON.stringify([(this.task.fields || []).map((f) => norm(t[f.name])), !!t.implicit]);
        if (seen.has(key)) add(`${p}/${(this.task.fields || [{ name: 'implicit' }])[0].name}`, `the same tuple as tuple ${seen.get(key) + 1}`);
        else seen.set(key, i);
      });
    }
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
