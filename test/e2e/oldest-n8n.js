'use strict';
// The e2e-oldest project's setup file: its suites run against the oldest supported n8n. Jest gives
// each test file its own copy of process.env, so this reaches only the files of that project.
process.env.CONTACT_CENTER_N8N_VERSION = require('./n8n-versions').OLDEST_N8N_VERSION;
