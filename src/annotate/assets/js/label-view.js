// goldgate annotate: the label view — one sample on the left (its conversation, text, base
// requirements), the annotator's form on the right, the action bar, and the keyboard.
// The class holds the view's state and layout; its other methods live in the label-*.js
// modules by concern and are installed on its prototype below:
//   label-form.js      the form's building blocks (fields, groups, cards, sections)
//   label-requirement.js  a requirement's fields, chips and title
//   label-edit.js      adding, moving and removing items; message sources
//   label-check.js     the checks, problems at their fields, the status line
//   label-save.js      banners, the discussion note, save / conflict / reload / skip
// What the form holds is the sample's kind's: its module (/js/kinds/NAME.js, in KINDS by
// the name samples give the kind) lists its sections, made by the shared builders of
// section-*.js (see form.js).

import { enc, fill, h, kbd, navKey } from './dom.js';
import { KINDS } from './kinds.js';
import { checkMethods } from './label-check.js';
import { editMethods } from './label-edit.js';
import { formMethods } from './label-form.js';
import { requirementMethods } from './label-requirement.js';
import { saveMethods } from './label-save.js';
import { agreementPanel, messageNodes, sampleMeta } from './shared.js';
import { S, go } from './state.js';
import { str } from './text.js';

export class LabelView {
  constructor(s) {
    this.title = s.id;
    this.el = h('div', { class: 'label-view' });
    this.init(s);
  }

  init(s) {
    this.s = s;
    this.kind = s.kind;
    this.form = KINDS.get(s.kind) || null;
    this.keys = this.form ? this.form.keys : [];
    this.task = s.task && S.session.tasks ? S.session.tasks[s.task] : null;
    this.enums = S.session.enums || {};
    this.conv = Array.isArray(s.conversation) ? s.conversation : [];
    this.sourcesOn = !!(this.form && this.form.sources) && this.conv.length > 0;
    this.fromDraft = !s.mine && !!(s.draft && s.draft.labels);
    const labels = s.mine || (this.fromDraft ? s.draft.labels : null);
    this.model = this.form ? this.form.modelIn(labels, this.ctx()) : {};
    this.touched = new WeakMap();
    this.showAll = !!s.mine || this.fromDraft;
    this.serverProblems = [];
    this.active = null;
    this.conflict = null;
    this.undo = null;
    this.saving = false;
    this.baseline = JSON.stringify(this.out());
    this.render();
  }

  // What the kind's model is read and written with: the session's choices, the sample's
  // task and text.
  ctx() {
    return { enums: this.enums, task: this.task, text: this.s.text };
  }

  out() {
    return this.form ? this.form.modelOut(this.model, this.ctx()) : {};
  }

  isDirty() {
    return JSON.stringify(this.out()) !== this.baseline;
  }

  // ------------------------------------------------------------ layout

  render() {
    const s = this.s;
    const pos = s.position || {};
    this.statusEl = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.blockEl = h('div', { class: 'blocked', id: 'save-blocked' });
    this.bannersEl = h('div', { class: 'banners' });
    this.formEl = h('div', { class: 'form', id: 'label-form' });
    this.agreementEl = h('div', null, agreementPanel(s));
    this.discussionEl = h('div', null);
    this.saveBtn = h('button', { type: 'button', class: 'btn primary', 'data-action': 'save-next', onclick: () => this.save(true) }, 'Save & next ', kbd('Ctrl', 'Enter'));
    this.saveOnly = h('button', { type: 'button', class: 'btn', 'data-action': 'save', onclick: () => this.save(false) }, 'Save');
    const left = h(
      'section',
      { class: 'pane left', 'aria-label': 'Sample' },
      h(
        'header',
        { class: 'sample-head' },
        h('h1', null, str(s.id)),
        sampleMeta(s),
        h(
          'div',
          { class: 'sample-nav' },
          h('a', { class: 'btn small', href: '#/queue' }, '← Queue'),
          h('a', { class: 'btn small', href: pos.prev ? `#/sample/${enc(pos.prev)}` : null, 'aria-disabled': pos.prev ? null : 'true', 'data-action': 'prev' }, '‹ Previous'),
          h('a', { class: 'btn small', href: pos.next ? `#/sample/${enc(pos.next)}` : null, 'aria-disabled': pos.next ? null : 'true', 'data-action': 'next' }, 'Next ›'),
          h('a', { class: 'btn small', href: `#/review/${enc(s.id)}` }, 'Review'),
        ),
      ),
      this.inputNodes(),
      this.agreementEl,
    );
    const right = h(
      'section',
      { class: 'pane right', 'aria-label': 'Labels' },
      h('div', { class: 'form-scroll' }, this.bannersEl, this.discussionEl, this.formEl),
      h(
        'div',
        { class: 'actionbar' },
        this.saveBtn,
        this.saveOnly,
        h('button', { type: 'button', class: 'btn', 'data-action': 'skip', onclick: () => this.skip() }, 'Skip'),
        h('button', { type: 'button', class: 'btn', 'data-action': 'discuss', 'aria-expanded': 'false', onclick: (e) => this.toggleNote(e.currentTarget) }, 'Needs discussion…'),
        this.blockEl,
        this.statusEl,
      ),
    );
    fill(this.el, left, right);
    this.renderBanners();
    this.renderDiscussion();
    this.renderForm();
  }

  inputNodes() {
    const s = this.s;
    const out = [];
    if (this.conv.length) {
      this.sourceHint = h('p', { class: 'hint', id: 'source-hint' });
      this.msgEls = messageNodes(this.conv, { clickable: this.sourcesOn });
      if (this.sourcesOn) {
        this.msgEls.forEach((m, i) => {
          m.setAttribute('aria-describedby', 'source-hint');
          m.addEventListener('click', () => this.toggleSource(i));
          m.addEventListener('keydown', (e) => {
            if ((e.key === ' ' || e.key === 'Enter') && !e.ctrlKey && !e.altKey && !e.metaKey) {
              e.preventDefault();
              e.stopPropagation();
              this.toggleSource(i);
            }
          });
        });
      }
      out.push(
        h('h2', { class: 'section-title' }, `Conversation (${this.conv.length} messages)`),
        this.sourcesOn ? this.sourceHint : null,
        h('div', { class: 'messages' }, this.msgEls),
      );
    } else {
      this.msgEls = [];
    }
    if (s.user_input != null && s.user_input !== '') out.push(h('h2', { class: 'section-title' }, 'User input'), h('div', { class: 'text-block' }, str(s.user_input)));
    if (s.text != null && s.text !== '') {
      this.textEl = h('div', { class: 'text-block', id: 'sample-text' }, str(s.text));
      out.push(
        h('h2', { class: 'section-title' }, 'Text'),
        h('p', { class: 'hint' }, 'Select words here, then press “Use selection” next to a span field to copy them with their exact position.'),
        this.textEl,
      );
    }
    if (Array.isArray(s.requirements) && s.requirements.length) {
      out.push(
        h('h2', { class: 'section-title' }, `Base requirements (${s.requirements.length})`),
        s.requirements.map((r) => this.baseReq(r)),
      );
    }
    if (s.reference_srs) {
      out.push(
        h('details', { class: 'conversation' }, h('summary', null, 'Reference SRS'), h('div', { class: 'text-block' }, str(s.reference_srs))),
      );
    }
    return out;
  }

  baseReq(r) {
    r = r && typeof r === 'object' ? r : { title: str(r) };
    const ac = Array.isArray(r.acceptance_criteria) ? r.acceptance_criteria : [];
    return h(
      'div',
      { class: 'base-req' },
      h('div', { class: 'title' }, `${str(r.id)} · ${str(r.title)}`),
      h('div', { class: 'sub' }, [str(r.type), str(r.actor) && `actor: ${str(r.actor)}`, str(r.priority) && `priority: ${str(r.priority)}`].filter(Boolean).join(' · ')),
      r.action != null ? h('div', null, 'action: ', str(r.action)) : null,
      r.condition ? h('div', null, 'condition: ', str(r.condition)) : null,
      ac.length ? h('ul', null, ac.map((c) => h('li', null, str(c)))) : h('div', { class: 'sub' }, 'no acceptance criteria'),
      Array.isArray(r.source_messages) && r.source_messages.length ? h('div', { class: 'sub' }, `sources: ${r.source_messages.map((i) => `#${i}`).join(', ')}`) : null,
    );
  }

  // ------------------------------------------------------------ keys

  onKey(e, typing) {
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && !e.altKey && e.key === 'Enter') {
      this.save(true);
      return true;
    }
    if (ctrl && !e.altKey && !e.shiftKey && (e.key === 's' || e.key === 'S')) {
      this.save(false);
      return true;
    }
    const d = navKey(e, typing);
    if (d) {
      const pos = this.s.position || {};
      const target = d < 0 ? pos.prev : pos.next;
      if (target) go(`#/sample/${enc(target)}`);
      else this.say(d < 0 ? 'This is the first sample.' : 'This is the last sample.');
      return true;
    }
    if (e.altKey && !ctrl && !e.shiftKey && e.code === 'KeyN') {
      this.add(this.mainKey());
      return true;
    }
    // A section's own Alt+key (Alt+N, above, adds to the first).
    const section = e.altKey && !ctrl && !e.shiftKey && this.form && this.form.sections.find((sec) => e.code === `Key${sec.shortcut}`);
    if (section) {
      this.add(section.key);
      return true;
    }
    if (e.altKey && !ctrl && !e.shiftKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown') && this.sourcesOn && document.activeElement.tagName !== 'SELECT') {
      this.stepActive(e.key === 'ArrowUp' ? -1 : 1);
      return true;
    }
    if (!typing && !ctrl && !e.altKey && /^[0-9]$/.test(e.key) && this.sourcesOn) {
      this.toggleSource(Number(e.key));
      return true;
    }
    return false;
  }
}

Object.assign(LabelView.prototype, formMethods, requirementMethods, editMethods, checkMethods, saveMethods);
