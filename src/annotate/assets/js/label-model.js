// goldgate annotate: the label form's model. A sample's labels (or a draft) become plain
// editable objects (`modelIn`), and the model becomes the annotation that is saved
// (`modelOut`): trimmed, optional fields left out, spans with their positions in the text.
// Also a blank requirement and the next free requirement id.

import { S } from './state.js';
import { norm, str } from './text.js';

export function blankReq(id) {
  return {
    id: id || '',
    title: '',
    type: '',
    actor: '',
    action: '',
    condition: '',
    acceptance_criteria: ['', ''],
    priority: '',
    source_messages: [],
    rationale: '',
    confidence: '',
  };
}

function canon(value, allowed) {
  const v = str(value);
  if (!v) return '';
  const n = norm(v);
  const hit = (allowed || []).find((a) => a === v || norm(a) === n);
  return hit || v;
}

function reqIn(r, enums) {
  r = r && typeof r === 'object' ? r : {};
  return {
    id: str(r.id),
    title: str(r.title),
    type: canon(r.type, enums.requirement_type),
    actor: str(r.actor),
    action: str(r.action),
    condition: str(r.condition),
    acceptance_criteria: Array.isArray(r.acceptance_criteria) ? r.acceptance_criteria.map(str) : [],
    priority: canon(r.priority, enums.priority),
    source_messages: Array.isArray(r.source_messages) ? r.source_messages.filter((n) => Number.isInteger(n)) : [],
    rationale: str(r.rationale),
    confidence: r.confidence == null ? '' : str(r.confidence),
  };
}

function reqOut(r) {
  const o = { id: r.id.trim(), title: r.title.trim(), type: r.type, actor: r.actor.trim(), action: r.action.trim() };
  if (r.condition.trim()) o.condition = r.condition.trim();
  o.acceptance_criteria = r.acceptance_criteria.map((c) => c.trim()).filter(Boolean);
  if (r.priority) o.priority = r.priority;
  if (r.source_messages.length) o.source_messages = [...r.source_messages].sort((a, b) => a - b);
  if (r.rationale.trim()) o.rationale = r.rationale.trim();
  if (r.confidence.trim() !== '') o.confidence = Number(r.confidence);
  return o;
}

export function modelIn(kind, labels, enums, task) {
  labels = labels && typeof labels === 'object' ? labels : {};
  const list = (k) => (Array.isArray(labels[k]) ? labels[k] : []);
  const m = {};
  if (kind === 'extraction' || kind === 'e2e') m.requirements = list('requirements').map((r) => reqIn(r, enums));
  if (kind === 'inference')
    m.inferred_requirements = list('inferred_requirements').map((x) => {
      x = x && typeof x === 'object' ? x : {};
      return {
        requirement: reqIn(x.requirement, enums),
        inference_type: canon(x.inference_type, enums.inference_type),
        triggered_by: Array.isArray(x.triggered_by) ? x.triggered_by.map(str) : [],
        necessity: canon(x.necessity, enums.necessity),
        rationale: str(x.rationale),
        confidence: x.confidence == null ? '' : str(x.confidence),
      };
    });
  if (kind === 'validation') {
    m.issues = list('issues').map((x) => {
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
    });
    m.pii = list('pii').map((p) => ({ value: str(p) }));
  }
  if (kind === 'tuples') {
    const fields = (task && task.fields) || [];
    m.tuples = list('tuples').map((t) => {
      t = t && typeof t === 'object' ? t : {};
      const o = { implicit: t.implicit === true };
      for (const f of fields) o[f.name] = f.kind === 'label' ? canon(t[f.name], f.values) : str(t[f.name]);
      if (Number.isInteger(t.start) && Number.isInteger(t.end)) {
        o.start = t.start;
        o.end = t.end;
      }
      return o;
    });
  }
  return m;
}

export function modelOut(kind, m, task, text) {
  const out = {};
  if (m.requirements) out.requirements = m.requirements.map(reqOut);
  if (m.inferred_requirements)
    out.inferred_requirements = m.inferred_requirements.map((x) => {
      const o = { requirement: reqOut(x.requirement), inference_type: x.inference_type };
      if (x.triggered_by.length) o.triggered_by = [...x.triggered_by];
      o.necessity = x.necessity;
      if (x.rationale.trim()) o.rationale = x.rationale.trim();
      if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
      return o;
    });
  if (m.issues)
    out.issues = m.issues.map((x) => {
      const o = { issue_type: x.issue_type, severity: x.severity };
      if (x.field.trim()) o.field = x.field.trim();
      if (x.locationRaw !== undefined && x.locationRaw !== null && typeof x.locationRaw !== 'string' && x.location === str(x.locationRaw)) o.location = x.locationRaw;
      else if (x.location.trim()) o.location = x.location.trim();
      if (x.message.trim()) o.message = x.message.trim();
      if (x.suggested_fix.trim()) o.suggested_fix = x.suggested_fix.trim();
      if (x.confidence.trim() !== '') o.confidence = Number(x.confidence);
      return o;
    });
  if (m.pii) out.pii = m.pii.map((p) => p.value.trim()).filter(Boolean);
  if (m.tuples) {
    const fields = (task && task.fields) || [];
    const spans = fields.filter((f) => f.kind === 'span');
    const chars = Array.from(text || '');
    out.tuples = m.tuples.map((t) => {
      const o = {};
      for (const f of fields) o[f.name] = str(t[f.name]).trim();
      if (t.implicit) o.implicit = true;
      if (spans.length === 1 && !t.implicit && Number.isInteger(t.start)) {
        const span = o[spans[0].name];
        if (chars.slice(t.start, t.end).join('') === span) {
          o.start = t.start;
          o.end = t.end;
        } else {
          const at = (text || '').indexOf(span);
          if (span && at >= 0) {
            o.start = Array.from(text.slice(0, at)).length;
            o.end = o.start + Array.from(span).length;
          }
        }
      }
      return o;
    });
  }
  return out;
}

export function nextId(existing) {
  let best = null;
  for (const id of existing) {
    const m = /^(.*?)(\d+)$/.exec(id || '');
    if (!m) continue;
    const n = parseInt(m[2], 10);
    if (!best || n > best.n) best = { prefix: m[1], n, width: m[2].length };
  }
  const candidates = [];
  if (best) candidates.push(best.prefix + String(best.n + 1).padStart(best.width, '0'));
  candidates.push('REQ-001', 'FR-01');
  for (const c of candidates) if (!existing.includes(c) && (!S.idRe || S.idRe.test(c))) return c;
  return '';
}
