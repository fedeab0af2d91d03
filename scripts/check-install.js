#!/usr/bin/env node
'use strict';
/**
 * Fails with one line when the dev dependencies are not installed (a fresh clone before
 * `npm install`, or a pull that added one), instead of `rimraf: not found` or a stack trace.
 * `npm start` calls it first; `npm test` runs it before jest.
 */
const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..');

function missingDevDependencies() {
	const { devDependencies = {} } = require(path.join(REPO_ROOT, 'package.json'));
	return Object.keys(devDependencies).filter(
		(name) => !fs.existsSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json')),
	);
}

function exitUnlessInstalled() {
	const missing = missingDevDependencies();
	if (missing.length === 0) return;
	const shown = missing.length > 3 ? `${missing.slice(0, 3).join(', ')}, …` : missing.join(', ');
	process.stderr.write(
		`n8n-nodes-contact-center: run \`npm install\` first (not installed: ${shown})\n`,
	);
	process.exit(1);
}

module.exports = { exitUnlessInstalled };

if (require.main === module) exitUnlessInstalled();
