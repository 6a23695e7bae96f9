// goldgate annotate: DOM helpers. `h` builds elements (strings become text nodes, never
// HTML), `fill` replaces an element's children, plus ids for labels, key-cap nodes, and how
// a key press reads (is the focus in a text field; is it a previous/next key).

let uidCounter = 0;
export const uid = (p = 'f') => `${p}${++uidCounter}`;
export const $ = (sel, root = document) => root.querySelector(sel);
export const enc = encodeURIComponent;

// h('div', {class: 'x', onclick: fn}, 'text', child, [more]) — strings become text nodes.
export function h(tag, props, ...kids) {
  const e = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'value') e.value = v;
      else if (k === 'checked') e.checked = !!v;
      else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(e, kids);
  return e;
}
function append(e, kids) {
  for (const kid of kids.flat(Infinity)) {
    if (kid == null || kid === false) continue;
    e.append(kid instanceof Node ? kid : String(kid));
  }
  return e;
}
export function fill(e, ...kids) {
  e.replaceChildren();
  return append(e, kids);
}
export const kbd = (...keys) => keys.map((k, i) => [i ? ' + ' : '', h('kbd', null, k)]);

export function isTextField(el) {
  if (!el) return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(el.type);
}

export function navKey(e, typing) {
  // -1 previous, +1 next, 0 none: Alt+←/→ anywhere, [ and ] outside text fields.
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
    if (e.key === 'ArrowLeft') return -1;
    if (e.key === 'ArrowRight') return 1;
  }
  if (!typing && !e.altKey && !e.ctrlKey && !e.metaKey) {
    if (e.key === '[') return -1;
    if (e.key === ']') return 1;
  }
  return 0;
}
