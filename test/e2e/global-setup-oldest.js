'use strict';
const { prepare } = require('./global-setup');
const { OLDEST_N8N_VERSION } = require('./n8n-versions');

module.exports = async () => await prepare(OLDEST_N8N_VERSION);
