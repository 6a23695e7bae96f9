// goldgate annotate: the checks the sections share (the same the server applies on save):
// a confidence from 0 to 1, a choice among the schema's values, ids unique within a list.
// Each reports a problem as `add(pointer, message)`.

import { FIELD_LABEL } from './fields.js';

const NUMBER_RE = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

export function confidence(v, ptr, add) {
  if (v.trim() === '') return;
  if (!NUMBER_RE.test(v)) add(ptr, 'must be a number from 0 to 1');
  else if (Number(v) < 0 || Number(v) > 1) add(ptr, `${v.trim()} is outside [0, 1]`);
}

// The field `field` (named as the form names it) holds one of `allowed`.
export function choice(v, allowed, ptr, field, add) {
  const what = (FIELD_LABEL[field] || field).toLowerCase();
  if (!v) add(ptr, `choose a ${what}`);
  else if (Array.isArray(allowed) && allowed.length && !allowed.includes(v)) add(ptr, `${v} is not a valid ${what}`);
}

export function uniqueIds(list, idOf, ptrOf, add) {
  const seen = new Map();
  list.forEach((x, i) => {
    const id = idOf(x).trim();
    if (!id) return;
    if (seen.has(id)) add(ptrOf(i), `duplicate id ${id}: item ${seen.get(id) + 1} already uses it`);
    else seen.set(id, i);
  });
}
