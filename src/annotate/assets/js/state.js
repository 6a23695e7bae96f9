// goldgate annotate: the page's shared state (the session, the id pattern, the mounted
// view) and `go`, the navigation every view uses. main.js hands `go` its router with
// `setRouter`, so the views need not import main.js (no import cycle).

export const S = {
  session: null,
  idRe: null,
  view: null, // the mounted view: {el, onKey(e, typing), isDirty()}
  seq: 0,
  lastHash: '',
  leaving: null,
};

let router = () => {};

export function setRouter(fn) {
  router = fn;
}

export function go(hash) {
  if (location.hash === hash) router();
  else location.hash = hash;
}
