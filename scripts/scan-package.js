#!/usr/bin/env node
'use strict';
/**
 * `npm run scan`: n8n's community package scanner (@n8n/scan-community-package) run here, before
 * publishing. The scanner itself only scans packages already on npm (provenance first, then the
 * source the provenance points at, then the published tarball); this script runs its own
 * `analyzePackage` rule set on the same two targets: the sources in this clone and the tarball
 * `npm pack` makes from the current `dist/`. Run `npm run build` first.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..');

/** Packs the package and unpacks the tarball; returns the folder that holds its package.json. */
function packAndExtract(workDir) {
	const [{ filename }] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], {
			cwd: REPO_ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		}),
	);
	const packageDir = path.join(workDir, 'package');
	execFileSync('tar', ['-xzf', path.join(workDir, filename), '-C', workDir]);
	return { filename, packageDir };
}

async function main() {
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist'))) {
		throw new Error('dist/ is missing: run `npm run build` first');
	}
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-package-'));
	try {
		const { filename, packageDir } = packAndExtract(workDir);
		// The same file patterns as the scanner's analyzePackageByName uses for each target.
		const targets = [
			{ label: 'sources', dir: REPO_ROOT, patterns: scanner.SOURCE_FILE_PATTERNS },
			{ label: `tarball ${filename}`, dir: packageDir, patterns: ['**/*.js', 'package.json'] },
		];
		let passed = true;
		for (const { label, dir, patterns } of targets) {
			const result = await scanner.analyzePackage(dir, patterns);
			if (result.passed) {
				console.log(`scan-community-package rules: ${label}: passed`);
			} else {
				passed = false;
				console.log(`scan-community-package rules: ${label}: FAILED (${result.message})`);
				if (result.details) console.log(result.details);
			}
		}
		return passed;
	} finally {
		fs.rmSync(workDir, { recursive: true, force: true });
	}
}

main().then(
	(passed) => {
		process.exitCode = passed ? 0 : 1;
	},
	(error) => {
		console.error(`scan-package: ${error.message}`);
		process.exitCode = 1;
	},
);
