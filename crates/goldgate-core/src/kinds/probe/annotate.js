// goldgate annotate: the probe form — the marks a conversation names, one text box a row
// (served at /js/kinds/probe.js; the probe kind exists only in goldgate's test builds).

import { kindForm } from '../form.js';
import { stringList } from '../section-lists.js';

export default kindForm({
  sections: [
    stringList({
      key: 'marks',
      title: 'Marks',
      noun: 'mark',
      shortcut: 'M',
      column: 'Mark',
      empty: 'No marks yet. Add each mark the conversation names.',
    }),
  ],
});
