// goldgate annotate: suite values as text — `str` for any value, `norm` for comparing
// words, deep copies, and how a kappa and its band are written.

export const norm = (s) =>
  String(s ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
export const str = (v) => (v == null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
export const clone = (v) => (v == null ? v : JSON.parse(JSON.stringify(v)));
export const fmtKappa = (k) => (k == null || Number.isNaN(k) ? '—' : Number(k).toFixed(2));
export const bandClass = (band) => (band ? band.replace(/\s+/g, '-') : '');
