'use strict';
/**
 * The example workflows as files (plain JS: n8n's lint rules keep the file system out of .ts files).
 */
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');

/** The example workflow file names, sorted. */
function exampleFiles() {
	return fs
		.readdirSync(EXAMPLES)
		.filter((file) => file.endsWith('.json'))
		.sort();
}

/** One example workflow, parsed. */
function readExample(file) {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
}

module.exports = { exampleFiles, readExample };
