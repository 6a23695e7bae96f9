// goldgate annotate: the label view and its server, as methods of LabelView — the banners
// (a conflict with the file on disk, a machine-made draft, a promotion), the "needs
// discussion" note, saving (refused problems shown at their fields, a conflict kept in the
// form), reloading the version on disk, and skipping.

import { api } from './api.js';
import { $, enc, fill, h, uid } from './dom.js';
import { agreementPanel, discussionList, reviewLine } from './shared.js';
import { S, go } from './state.js';
import { str } from './text.js';

export const saveMethods = {
  renderBanners() {
    const b = [];
    if (this.conflict) {
      const jsonBox = h('textarea', { readonly: true, 'aria-label': 'Your edits as JSON', hidden: true }, '');
      jsonBox.value = JSON.stringify(this.out(), null, 2);
      b.push(
        h(
          'div',
          { class: 'banner conflict', role: 'alert', id: 'conflict-banner' },
          h('h2', null, 'Not saved: this sample changed on disk'),
          h('p', null, `${str(this.s.file)} was changed by someone or something else since this page loaded it, so nothing was written. Your edits are still in the form until you reload.`),
          this.conflict.message ? h('p', { class: 'hint' }, this.conflict.message) : null,
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', class: 'btn primary', 'data-action': 'reload', onclick: () => this.reload() }, 'Reload the version on disk (discards my edits)'),
            h(
              'button',
              {
                type: 'button',
                class: 'btn',
                'aria-expanded': 'false',
                onclick: (e) => {
                  jsonBox.value = JSON.stringify(this.out(), null, 2);
                  jsonBox.hidden = !jsonBox.hidden;
                  e.currentTarget.setAttribute('aria-expanded', String(!jsonBox.hidden));
                  if (!jsonBox.hidden) jsonBox.select();
                },
              },
              'Show my edits as JSON',
            ),
          ),
          jsonBox,
        ),
      );
    }
    if (this.fromDraft) {
      const d = this.s.draft || {};
      b.push(
        h(
          'div',
          { class: 'banner draft', role: 'note', id: 'draft-banner' },
          h('h2', null, 'Machine-made draft — not saved until you save'),
          h('p', null, `These labels are a pipeline's answer${d.source ? ` (${str(d.source)})` : ''}, not an annotator's. Check and correct every item; nothing is written until you save.`),
        ),
      );
    } else if (!this.s.mine && this.s.draft && this.s.draft.problem) {
      b.push(h('div', { class: 'banner info', role: 'note' }, h('p', null, `No draft: ${str(this.s.draft.problem)}`)));
    }
    if (this.s.review) b.push(reviewLine(this.s.review));
    fill(this.bannersEl, ...b);
  },

  renderDiscussion() {
    const me = S.session.annotator;
    const notes = Array.isArray(this.s.discussion) ? this.s.discussion : [];
    this.myNote = (notes.find((d) => d.annotator === me) || {}).note || '';
    fill(this.discussionEl,
      notes.length ? h('h2', { class: 'section-title' }, 'Needs discussion') : '',
      discussionList(this.s) || '',
    );
    if (this.noteEditor) this.discussionEl.append(this.noteEditor);
  },

  toggleNote(btn) {
    if (this.noteEditor) {
      this.noteEditor.remove();
      this.noteEditor = null;
      btn.setAttribute('aria-expanded', 'false');
      return;
    }
    btn.setAttribute('aria-expanded', 'true');
    const id = uid('note');
    const ta = h('textarea', { id, rows: 3, 'data-ptr': 'note' });
    ta.value = this.myNote;
    const send = async (note) => {
      try {
        const data = await api('POST', `/api/sample/${enc(this.s.id)}/discussion`, { fingerprint: this.s.fingerprint, note });
        this.s.fingerprint = data.fingerprint;
        this.s.discussion = data.discussion;
        this.noteEditor.remove();
        this.noteEditor = null;
        btn.setAttribute('aria-expanded', 'false');
        this.renderDiscussion();
        this.say(note ? 'Marked as needing discussion, with your note.' : 'Your discussion note was removed.', 'good');
        btn.focus();
      } catch (e) {
        this.failed(e, 'The note was not saved');
      }
    };
    this.noteEditor = h(
      'div',
      { class: 'note-editor' },
      h('label', { for: id }, 'Your note: what should the team discuss?'),
      ta,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'btn primary', 'data-action': 'save-note', onclick: () => (ta.value.trim() ? send(ta.value.trim()) : ta.focus()) }, 'Mark as needing discussion'),
        this.myNote ? h('button', { type: 'button', class: 'btn danger', onclick: () => send('') }, 'Remove my note') : null,
        h('button', { type: 'button', class: 'btn', onclick: () => this.toggleNote(btn) }, 'Cancel'),
      ),
    );
    this.discussionEl.append(this.noteEditor);
    ta.focus();
  },

  // ------------------------------------------------------------ saving

  failed(e, lead) {
    if (e.status === 409 || e.code === 'changed') {
      this.conflict = { message: e.message };
      this.renderBanners();
      this.say('Not saved: the sample changed on disk (see the red banner above).', 'bad');
      const b = $('#conflict-banner', this.el);
      if (b) b.scrollIntoView({ block: 'start' });
      return;
    }
    this.say(`${lead}: ${e.message}`, 'bad');
  },

  async save(next) {
    if (this.saving) return;
    this.showAll = true;
    const problems = this.check();
    if (problems.length) {
      this.sayProblems('Not saved');
      this.focusProblem(problems[0]);
      return;
    }
    this.saving = true;
    this.say('Saving…');
    const annotation = this.out();
    try {
      const data = await api('PUT', `/api/sample/${enc(this.s.id)}/annotation`, { fingerprint: this.s.fingerprint, annotation });
      this.saved(data, annotation);
      if (next) {
        const n = data.position && data.position.next;
        if (n) go(`#/sample/${enc(n)}`);
        else {
          this.say('Saved. This was the last sample; back to the queue.', 'good');
          go('#/queue');
        }
      }
    } catch (e) {
      if (e.code === 'invalid' && e.problems.length) {
        this.serverProblems = e.problems.map((p) => ({ pointer: String(p.pointer || ''), message: String(p.message || ''), hint: p.hint || null }));
        this.check();
        this.sayProblems('The server refused the save');
      } else {
        this.failed(e, 'Not saved');
      }
    } finally {
      this.saving = false;
    }
  },

  saved(data, annotation) {
    this.s = data;
    this.fromDraft = false;
    this.conflict = null;
    this.serverProblems = [];
    this.baseline = JSON.stringify(annotation);
    this.dirtyChanged();
    fill(this.agreementEl, agreementPanel(data));
    this.renderBanners();
    this.check();
    const t = new Date();
    this.say(`Saved at ${t.toLocaleTimeString()} as ${S.session.annotator}'s annotation.`, 'good');
  },

  async reload() {
    try {
      const data = await api('GET', `/api/sample/${enc(this.s.id)}`);
      this.noteEditor = null;
      this.init(data);
      this.say('Reloaded the version on disk.', 'good');
      const h1 = this.el.querySelector('h1');
      if (h1) {
        h1.setAttribute('tabindex', '-1');
        h1.focus();
      }
    } catch (e) {
      this.say(`Could not reload: ${e.message}`, 'bad');
    }
  },

  async skip() {
    try {
      const r = await api('POST', `/api/sample/${enc(this.s.id)}/skip`, {});
      this.baseline = JSON.stringify(this.out());
      if (r && r.next) go(`#/sample/${enc(r.next)}`);
      else go('#/queue');
    } catch (e) {
      this.say(`Not skipped: ${e.message}`, 'bad');
    }
  },
};
