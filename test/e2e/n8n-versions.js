'use strict';
/** The oldest n8n the README supports; `npm test` runs the one-process suite on it too. */
module.exports = { OLDEST_N8N_VERSION: '2.36.8' };
