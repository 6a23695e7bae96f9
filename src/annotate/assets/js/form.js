// goldgate annotate: a task kind's form, from its sections. Each kind's own module (served
// at /js/kinds/NAME.js from the kind's folder, listed in the server-made /js/kinds.js)
// describes its form with `kindForm`: whether its requirements cite the conversation's
// messages as sources, and its sections, one per label key, each made by a shared section
// builder (section-*.js). The form is what the label and review views ask of a kind: its
// label keys, a sample's labels as the form's model and the model as the annotation saved,
// its checks, its requirements that cite messages, the ids it uses, and its review columns.

export function kindForm({ sources = false, sections }) {
  const byKey = new Map(sections.map((s) => [s.key, s]));
  return {
    keys: sections.map((s) => s.key),
    sources,
    sections,
    section: (key) => byKey.get(key) || null,
    // ctx: { enums, task, text } — the session's choices, the sample's task, its text.
    modelIn(labels, ctx) {
      labels = labels && typeof labels === 'object' ? labels : {};
      const m = {};
      for (const s of sections) m[s.key] = s.in(Array.isArray(labels[s.key]) ? labels[s.key] : [], ctx);
      return m;
    },
    modelOut(m, ctx) {
      const out = {};
      for (const s of sections) if (m[s.key]) out[s.key] = s.out(m[s.key], ctx);
      return out;
    },
    // Every problem of the model `view.model`, each given to `add(pointer, message)`.
    check(view, add) {
      for (const s of sections) if (view.model[s.key]) s.check(view, view.model[s.key], add);
    },
    // The requirements that may cite messages: { req, i, ptr, noun } each, in form order.
    requirements(m) {
      return sections.flatMap((s) => (s.requirements && m[s.key] ? s.requirements(m[s.key]) : []));
    },
    // The requirement ids the model and the sample use (a new requirement takes a free one).
    ids(m, sample) {
      return sections.flatMap((s) => (s.ids && m[s.key] ? s.ids(m[s.key], sample) : []));
    },
  };
}
