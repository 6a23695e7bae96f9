// goldgate annotate: the e2e form — extraction's: the requirements the conversation states,
// each citing the messages it comes from (served at /js/kinds/e2e.js).

import extraction from './extraction.js';

export default extraction;
