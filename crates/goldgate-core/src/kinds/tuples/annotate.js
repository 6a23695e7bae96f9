// goldgate annotate: the tuples form — a table of the tuples the text states or implies, one
// column per field of the sample's task (served at /js/kinds/tuples.js).

import { kindForm } from '../form.js';
import { tupleTable } from '../section-tuple-table.js';

export default kindForm({
  sections: [
    tupleTable({
      key: 'tuples',
      title: 'Tuples',
      empty: 'No tuples yet. Add one per tuple the text states or implies.',
    }),
  ],
});
