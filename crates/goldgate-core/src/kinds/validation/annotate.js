// goldgate annotate: the validation form — the issues of the sample's base requirements,
// then the PII strings of its input (served at /js/kinds/validation.js).

import { kindForm } from '../form.js';
import { issueList, stringList } from '../section-lists.js';

export default kindForm({
  sections: [
    issueList({
      key: 'issues',
      title: 'Validation issues',
      empty: 'No issues yet. Add one per problem in the base requirements.',
    }),
    stringList({
      key: 'pii',
      title: 'PII strings',
      noun: 'PII string',
      shortcut: 'P',
      column: 'PII',
      empty: 'No PII strings. Add each name, e-mail address, phone number … that appears in the input.',
    }),
  ],
});
