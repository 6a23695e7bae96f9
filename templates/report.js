// goldgate's HTML report: the per-sample table's search box and filters, and opening the
// fold a link points at. It reads the rows from the page and changes only which rows show
// and the count; without it every row shows and the filters stay hidden.
(() => {
  'use strict';
  const form = document.getElementById('sample-filters');
  const table = document.getElementById('sample-table');
  if (form && table && table.tBodies.length) {
    const rows = Array.from(table.tBodies[0].rows);
    const field = (id) => document.getElementById(id);
    const search = field('sample-search');
    const outcome = field('filter-outcome');
    const kind = field('filter-kind');
    const tag = field('filter-tag');
    const count = field('sample-count');
    const none = field('no-samples');
    // What the search matches: the row's text, its links left out.
    const text = new Map(rows.map((r) => [r, Array.from(r.cells).filter((c) => !c.classList.contains('links')).map((c) => c.textContent).join(' ').toLowerCase()]));
    const tags = new Map(rows.map((r) => [r, Array.from(r.querySelectorAll('.tag'), (t) => t.textContent)]));
    const apply = () => {
      const terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const r of rows) {
        const show =
          terms.every((t) => text.get(r).includes(t)) &&
          (!outcome.value || r.dataset.outcome === outcome.value) &&
          (!kind.value || r.dataset.kind === kind.value) &&
          (!tag || !tag.value || tags.get(r).includes(tag.value));
        // Only rows that change are touched: a large table lays out again only for them.
        if (r.hidden === show) r.hidden = !show;
        if (show) shown += 1;
      }
      count.textContent = `${shown} of ${rows.length} samples`;
      none.hidden = shown > 0;
    };
    // Typing waits for a pause (a large table takes a while to lay out); a choice in a
    // filter applies at once.
    let pending = 0;
    form.addEventListener('input', (e) => {
      clearTimeout(pending);
      if (e.target === search) pending = setTimeout(apply, 120);
      else apply();
    });
    // Enter applies the search at once.
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      clearTimeout(pending);
      apply();
    });
    form.hidden = false;
    apply();
  }
  // A link to a sample's diff or trace opens its fold (and the folds around it).
  const reveal = () => {
    let target = null;
    try {
      target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    } catch {
      return;
    }
    if (!target) return;
    for (let e = target; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
    target.scrollIntoView({ block: 'start' });
  };
  window.addEventListener('hashchange', reveal);
  reveal();
})();
