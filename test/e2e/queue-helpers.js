'use strict';
/**
 * Helpers of the queue-mode end-to-end suite (plain JS: files, paths, timers and the process,
 * which the community-node lint rules keep out of .ts files).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const rt = require('../../scripts/lib/n8n-runtime');
const qm = require('../../scripts/lib/queue-mode');
const { postSigned } = require('./helpers');

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
			if (!match || name === path.basename(dir) || rt.processIsAlive(Number(match[1]))) continue;
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

/** Clock ticks per second of /proc/<pid>/stat (Linux: 100 nearly everywhere; asked once). */
let ticksPerSecond;
function clockTicks() {
	if (ticksPerSecond === undefined) {
		try {
			ticksPerSecond =
				Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
		} catch {
			ticksPerSecond = 100;
		}
	}
	return ticksPerSecond;
}

/** Every live process: pid, parent, CPU time used by it and its reaped children (ms). */
function processTable() {
	const table = [];
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		const stat = readFile(`/proc/${name}/stat`);
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (fields.length < 15) continue;
		const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
		table.push({
			pid: Number(name),
			ppid: Number(fields[1]),
			cpuMs: (ticks * 1000) / clockTicks(),
		});
	}
	return table;
}

/**
 * CPU time (ms) used so far by each part of the queue stack, each process with its descendants
 * (n8n's task runners, PostgreSQL's backends): main, the webhook processes, the workers, PostgreSQL,
 * Redis. Differences between two readings give what a load cost each part.
 */
function stackCpuMs(stack) {
	const table = processTable();
	const children = new Map();
	for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
	const byPid = new Map(table.map((p) => [p.pid, p]));
	const tree = (pid) => {
		let total = 0;
		for (const todo = [pid]; todo.length > 0; ) {
			const next = todo.pop();
			total += byPid.get(next)?.cpuMs ?? 0;
			for (const child of children.get(next) ?? []) todo.push(child.pid);
		}
		return total;
	};
	const sum = (processes) =>
		processes.reduce((n, p) => n + (p.server ? tree(p.server.child.pid) : 0), 0);
	const postmaster = Number(readFile(path.join(stack.pg.data, 'postmaster.pid')).split('\n')[0]);
	return {
		main: sum([stack.main]),
		webhookProcesses: sum(stack.webhookProcesses),
		workers: sum(stack.workers),
		postgres: postmaster ? tree(postmaster) : 0,
		redis: stack.redis?.pid ? tree(stack.redis.pid) : 0,
	};
}

/** The command that runs the suite, as bench/RESULTS.md shows it beside the figures. */
const SUITE_COMMAND =
	'flock /tmp/e2e.lock npx jest --selectProjects e2e --runInBand --testTimeout=900000 test/e2e/queueMode.e2e.test.ts';

function writeResults(section) {
	fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
	fs.writeFileSync(
		RESULTS_FILE,
		`${JSON.stringify({ command: SUITE_COMMAND, ...section }, null, 2)}\n`,
	);
	return RESULTS_FILE;
}

module.exports = {
	queueStateDir,
	postSignedWithin,
	workerRuns,
	logLength,
	clockAheadEnv,
	stackCpuMs,
	writeResults,
};
