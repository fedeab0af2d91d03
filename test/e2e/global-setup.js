'use strict';
/**
 * Before the end-to-end suites run side by side (two jest workers): installs the n8n runtime the
 * project uses and builds the package once. Each suite then packs that build (PACKAGE_BUILT_ENV in
 * scripts/lib/n8n-runtime.js). The e2e-oldest project's setup passes the oldest supported version.
 */
const rt = require('../../scripts/lib/n8n-runtime');

async function prepare(version) {
	const log = (line) => process.stderr.write(`[e2e setup] ${line}\n`);
	await rt.installRuntime({ log, version });
	if (process.env[rt.PACKAGE_BUILT_ENV] === '1') return;
	await rt.buildPackage({ log });
	process.env[rt.PACKAGE_BUILT_ENV] = '1';
}

module.exports = async () => await prepare(rt.N8N_VERSION);
module.exports.prepare = prepare;
