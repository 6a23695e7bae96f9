// goldgate annotate: the extraction form — the requirements the conversation states, each
// citing the messages it comes from (served at /js/kinds/extraction.js).

import { kindForm } from '../form.js';
import { requirementList } from '../section-requirements.js';

export default kindForm({
  sources: true,
  sections: [
    requirementList({
      key: 'requirements',
      title: 'Requirements',
      empty: 'No requirements yet. Add one for each requirement the conversation states.',
    }),
  ],
});
