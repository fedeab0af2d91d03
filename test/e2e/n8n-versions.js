'use strict';
/** The oldest n8n the README supports; `npm test` runs the compat suite (contactCenterCompat.e2e.test.ts) on it too. */
module.exports = { OLDEST_N8N_VERSION: '2.36.8' };
