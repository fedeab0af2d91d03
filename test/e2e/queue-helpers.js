'use strict';
/**
 * Helpers of the queue-mode end-to-end suite (plain JS: files, paths, timers and the process,
 * which the community-node lint rules keep out of .ts files).
 */
const fs = require('node:fs');
const path = require('node:path');
const rt = require('../../scripts/lib/n8n-runtime');
const qm = require('../../scripts/lib/queue-mode');
const { isAlive, postSigned } = require('./helpers');

const RESULTS_FILE = path.join(rt.REPO_ROOT, 'bench', 'results', 'queue-mode.json');

/**
 * A fresh state folder for this run under the git-ignored .n8n-local/. Folders of earlier runs
 * whose test process is gone are removed, after stopping whatever of theirs still runs (a run
 * killed before its afterAll); this run's folder stays for inspection (the log of every n8n process).
 */
async function queueStateDir({ log } = {}) {
	const root = path.join(rt.REPO_ROOT, '.n8n-local');
	const dir = path.join(root, `queue-e2e-${process.pid}`);
	if (fs.existsSync(root))
		for (const name of fs.readdirSync(root)) {
			const match = /^queue-e2e-(\d+)$/.exec(name);
			if (!match || name === path.basename(dir) || isAlive(Number(match[1]))) continue;
			await qm.stopLeftovers(path.join(root, name), { log });
			fs.rmSync(path.join(root, name), { recursive: true, force: true });
		}
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

/** postSigned with a deadline: rejects when no answer came within `timeoutMs`. */
async function postSignedWithin(url, body, { secret, timeoutMs }) {
	let timer;
	try {
		return await Promise.race([
			postSigned(url, body, { secret }),
			new Promise((_, reject) => {
				timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
			}),
		]);
	} finally {
		clearTimeout(timer);
	}
}

function readFile(file) {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return '';
	}
}

/**
 * Executions an n8n worker started and finished according to its log: this start's log from `from`
 * characters on, or with `previous` also the log of its previous start.
 */
function workerRuns(worker, { from = 0, previous = false } = {}) {
	let text = readFile(path.join(worker.userFolder, 'n8n.log')).slice(from);
	if (previous) text += readFile(path.join(worker.userFolder, 'n8n.previous.log'));
	const ids = (re) => [...text.matchAll(re)].map((m) => m[1]);
	return {
		started: ids(/Worker started execution (\d+)/g),
		finished: ids(/Worker finished execution (\d+)/g),
	};
}

function logLength(worker) {
	return readFile(path.join(worker.userFolder, 'n8n.log')).length;
}

/** Environment that moves a process's Date.now() ahead by `offsetMs` (clock-offset.js preloaded). */
function clockAheadEnv(offsetMs) {
	return {
		NODE_OPTIONS: `--require ${path.join(__dirname, 'clock-offset.js')}`,
		CC_E2E_CLOCK_OFFSET_MS: String(offsetMs),
	};
}

function writeResults(section) {
	fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
	fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(section, null, 2)}\n`);
	return RESULTS_FILE;
}

module.exports = {
	queueStateDir,
	postSignedWithin,
	workerRuns,
	logLength,
	clockAheadEnv,
	writeResults,
};
