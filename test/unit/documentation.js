'use strict';
/**
 * Reads the package's Markdown files and codex files for documentationLinks.test.ts (plain JS: it
 * uses Node's file system, which the community-node lint rules keep out of .ts files).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

/** The anchor GitHub gives a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading) {
	return heading
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** Lines of a Markdown file outside fenced code blocks. */
function proseLines(markdown) {
	let inFence = false;
	return markdown.split('\n').filter((line) => {
		if (/^\s*```/.test(line)) {
			inFence = !inFence;
			return false;
		}
		return !inFence;
	});
}

/** The heading anchors of a Markdown file (path relative to the repository), repeated ones numbered as GitHub does. */
function anchorsOf(file) {
	const seen = new Map();
	const anchors = new Set();
	for (const line of proseLines(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const anchor = headingAnchor(heading[1]);
		const count = seen.get(anchor) ?? 0;
		anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
		seen.set(anchor, count + 1);
	}
	return anchors;
}

/** Links of a Markdown file that name no scheme (`docs/x.md#y`, `#y`, `../bench/RESULTS.md`) and do not resolve. */
function brokenRelativeLinksOf(file) {
	const links = [];
	for (const line of proseLines(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
		for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
			if (!/^[a-z]+:/i.test(target)) links.push(target);
		}
	}
	return links.filter((link) => {
		const [target, anchor] = link.split('#');
		const resolved = target
			? path.relative(
					ROOT,
					path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(target)),
				)
			: file;
		if (!fs.existsSync(path.join(ROOT, resolved))) return true;
		if (anchor === undefined || !resolved.endsWith('.md')) return false;
		return !anchorsOf(resolved).has(anchor);
	});
}

/** README.md, CHANGELOG.md and every docs/ page. */
function markdownFiles() {
	return [
		'README.md',
		'CHANGELOG.md',
		...fs
			.readdirSync(path.join(ROOT, 'docs'))
			.filter((name) => name.endsWith('.md'))
			.map((name) => `docs/${name}`),
	];
}

/** Every GitHub URL in the codex files (nodes/<node>/<node>.node.json), as [file, url]. */
function codexGithubUrls() {
	const nodesDir = path.join(ROOT, 'nodes');
	return fs
		.readdirSync(nodesDir, { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.flatMap((dir) =>
			fs
				.readdirSync(path.join(nodesDir, dir.name))
				.filter((name) => name.endsWith('.node.json'))
				.map((name) => `nodes/${dir.name}/${name}`),
		)
		.flatMap((file) =>
			(
				fs.readFileSync(path.join(ROOT, file), 'utf8').match(/https:\/\/github\.com\/[^"]+/g) ?? []
			).map((url) => [file, url]),
		);
}

module.exports = {
	headingAnchor,
	anchorsOf,
	brokenRelativeLinksOf,
	markdownFiles,
	codexGithubUrls,
};
