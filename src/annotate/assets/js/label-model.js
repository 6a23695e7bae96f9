// goldgate annotate: a requirement in the label form's model. A requirement of a sample's
// labels (or of a draft) becomes a plain editable object (`reqIn`, its choices matched to
// the schema's values with `canon`), and the object becomes the requirement that is saved
// (`reqOut`: trimmed, optional fields left out). Also a blank requirement and the next free
// requirement id.

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

export function canon(value, allowed) {
  const v = str(value);
  if (!v) return '';
  const n = norm(v);
  const hit = (allowed || []).find((a) => a === v || norm(a) === n);
  return hit || v;
}

export function reqIn(r, enums) {
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

export function reqOut(r) {
  const o = { id: r.id.trim(), title: r.title.trim(), type: r.type, actor: r.actor.trim(), action: r.action.trim() };
  if (r.condition.trim()) o.condition = r.condition.trim();
  o.acceptance_criteria = r.acceptance_criteria.map((c) => c.trim()).filter(Boolean);
  if (r.priority) o.priority = r.priority;
  if (r.source_messages.length) o.source_messages = [...r.source_messages].sort((a, b) => a - b);
  if (r.rationale.trim()) o.rationale = r.rationale.trim();
  if (r.confidence.trim() !== '') o.confidence = Number(r.confidence);
  return o;
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
