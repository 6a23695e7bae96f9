// goldgate annotate: the inference form — the requirements inferred from the sample's base
// requirements, each with the base requirements that trigger it, its own requirement citing
// the messages it comes from (served at /js/kinds/inference.js).

import { kindForm } from '../form.js';
import { inferredList } from '../section-requirements.js';

export default kindForm({
  sources: true,
  sections: [
    inferredList({
      key: 'inferred_requirements',
      title: 'Inferred requirements',
      empty: 'No inferred requirements yet.',
    }),
  ],
});
