'use strict';
/**
 * n8n in queue mode on this machine, for the queue-mode end-to-end suite (and whoever needs the
 * same stack): Redis and PostgreSQL from Debian's packages (installed with apt-get when missing),
 * run as our own processes on free loopback ports; one `n8n start` (main: migrations, API,
 * activation), two `n8n webhook` processes and two `n8n worker` processes, each with its own user
 * folder holding the packed package in `.n8n/nodes`, all sharing the database, Redis and the
 * encryption key. Plain JavaScript for Node 20. Recipe: ../shared/notes/queue-mode.md.
 *
 * Builds on n8n-runtime.js (install, pack, CLI import, start/stop, owner, API) and local-setup.js
 * (credentials, data table, simulator).
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rt = require('./n8n-runtime');
const local = require('./local-setup');

const defaultLog = (line) => process.stderr.write(`${line}\n`);

// ---- Redis and PostgreSQL ----------------------------------------------------------------------

function findPgBin() {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

function findRedisServer() {
	for (const dir of (process.env.PATH || '')
		.split(path.delimiter)
		.concat(['/usr/bin', '/usr/sbin'])) {
		const file = path.join(dir, 'redis-server');
		if (dir && fs.existsSync(file)) return file;
	}
	return undefined;
}

/** Installs PostgreSQL and Redis from Debian's packages when they are missing (needs root). */
async function ensureServices({ log = defaultLog } = {}) {
	let pgBin = findPgBin();
	let redis = findRedisServer();
	if (pgBin && redis && fs.existsSync(path.join(pgBin, 'psql'))) return { pgBin, redis };
	const missing = [!redis && 'redis-server', !pgBin && 'postgresql'].filter(Boolean);
	log(`installing ${missing.join(' and ') || 'postgresql'} with apt-get (about a minute)`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const progress = (chunk) => {
		for (const line of chunk.split('\n'))
			if (/^(Setting up|Unpacking|Get:|E:)/.test(line)) log(`  ${line.trim()}`);
	};
	// Wait for another apt/dpkg (other engineers' runs) instead of failing on its lock.
	const lock = ['-o', 'DPkg::Lock::Timeout=600'];
	await rt.run('apt-get', [...lock, 'update', '-q'], { env, onStdout: progress });
	await rt.run(
		'apt-get',
		[...lock, 'install', '-y', '-q', '--no-install-recommends', 'postgresql', 'redis-server'],
		{ env, onStdout: progress, onStderr: progress },
	);
	pgBin = findPgBin();
	redis = findRedisServer();
	if (!pgBin || !redis) throw new Error('apt-get ran but redis-server or pg_ctl is still missing');
	return { pgBin, redis };
}

/** A folder the `postgres` OS user owns and can reach (mkdtemp folders are 0700 and root's). */
function postgresFolder() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-queue-pg-'));
	fs.chmodSync(dir, 0o755);
	return dir;
}

function postgresUser() {
	const { execFileSync } = require('node:child_process');
	const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
	return { uid, gid };
}

/** initdb + pg_ctl start as the `postgres` user, on a free port; fsync off (test data only). */
async function startPostgres({ pgBin, log = defaultLog }) {
	const dir = postgresFolder();
	const data = path.join(dir, 'data');
	const pwFile = path.join(dir, 'pw');
	const password = crypto.randomBytes(12).toString('hex');
	const port = await rt.getFreePort();
	const { uid, gid } = postgresUser();
	fs.writeFileSync(pwFile, password, { mode: 0o600 });
	fs.chownSync(dir, uid, gid);
	fs.chownSync(pwFile, uid, gid);
	const asPostgres = (bin, args, opts = {}) =>
		rt.run('runuser', ['-u', 'postgres', '--', path.join(pgBin, bin), ...args], {
			cwd: dir,
			...opts,
		});
	log(`starting PostgreSQL on 127.0.0.1:${port} (${dir})`);
	await asPostgres('initdb', [
		'-D',
		data,
		'-U',
		'n8n',
		`--pwfile=${pwFile}`,
		'-A',
		'scram-sha-256',
		'--no-sync',
	]);
	const options = [
		`-p ${port}`,
		`-k ${dir}`,
		'-c listen_addresses=127.0.0.1',
		'-c fsync=off',
		'-c synchronous_commit=off',
		'-c full_page_writes=off',
		'-c max_connections=200',
	].join(' ');
	await asPostgres('pg_ctl', [
		'-D',
		data,
		'-o',
		options,
		'-l',
		path.join(dir, 'pg.log'),
		'-w',
		'start',
	]);
	const pg = {
		dir,
		data,
		port,
		host: '127.0.0.1',
		user: 'n8n',
		password,
		database: 'n8n',
		pgBin,
		async stop() {
			await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], {
				allowFail: true,
			});
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	await rt.run(
		path.join(pgBin, 'createdb'),
		['-h', pg.host, '-p', String(port), '-U', 'n8n', 'n8n'],
		{ env: { ...process.env, PGPASSWORD: password } },
	);
	return pg;
}

/** Runs one SQL query with psql and returns its rows (the query's result wrapped in json_agg). */
async function queryPostgres(pg, sql) {
	const wrapped = `SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`;
	const { stdout } = await rt.run(
		path.join(pg.pgBin, 'psql'),
		['-h', pg.host, '-p', String(pg.port), '-U', pg.user, '-d', pg.database, '-AtX', '-c', wrapped],
		{ env: { ...process.env, PGPASSWORD: pg.password } },
	);
	return JSON.parse(stdout.trim() || '[]');
}

async function startRedis({ redis, dir, log = defaultLog }) {
	const port = await rt.getFreePort();
	fs.mkdirSync(dir, { recursive: true });
	const out = fs.openSync(path.join(dir, 'redis.log'), 'w');
	log(`starting Redis on 127.0.0.1:${port}`);
	const child = spawn(
		redis,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--dir',
			dir,
		],
		{ stdio: ['ignore', out, out], detached: true },
	);
	fs.closeSync(out);
	const exited = new Promise((resolve) => child.on('exit', resolve));
	fs.writeFileSync(path.join(dir, 'pid'), String(child.pid));
	const started = Date.now();
	for (;;) {
		const ok = await new Promise((resolve) => {
			const socket = require('node:net').connect(port, '127.0.0.1');
			socket.on('connect', () => {
				socket.end();
				resolve(true);
			});
			socket.on('error', () => resolve(false));
		});
		if (ok) break;
		if (child.exitCode !== null || Date.now() - started > 20000)
			throw new Error(
				`redis-server did not start: ${fs.readFileSync(path.join(dir, 'redis.log'), 'utf8')}`,
			);
		await rt.sleep(100);
	}
	return {
		port,
		host: '127.0.0.1',
		pid: child.pid,
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.kill('SIGKILL');
			await exited;
		},
	};
}

// ---- n8n processes -------------------------------------------------------------------------------

/** The settings every n8n process of the stack shares. */
function queueEnv({ pg, redis, extra = {} }) {
	return {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		N8N_LOG_LEVEL: 'info',
		...extra,
	};
}

/**
 * One n8n process of the stack: `role` is main, webhook or worker. Every process gets its own user
 * folder (the package copied into `.n8n/nodes` from main's install) and the shared encryption key.
 */
async function createProcess(runtime, { role, name, root, encryptionKey, env, nodesDir }) {
	const userFolder = path.join(root, name);
	// The database is new on every start of the stack: so is every user folder (n8n keeps the
	// encryption key of the folder's first start in `.n8n/config`).
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	fs.writeFileSync(path.join(userFolder, 'encryption-key'), encryptionKey, { mode: 0o600 });
	const healthPort = role === 'worker' ? await rt.getFreePort() : undefined;
	const extraEnv = { ...env };
	if (role === 'worker') {
		extraEnv.QUEUE_HEALTH_CHECK_ACTIVE = 'true';
		extraEnv.QUEUE_HEALTH_CHECK_PORT = String(healthPort);
	}
	const instance = await rt.createInstance(runtime, { userFolder, extraEnv });
	if (nodesDir) {
		fs.cpSync(nodesDir, path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
	}
	instance.role = role;
	instance.name = name;
	instance.healthPort = healthPort;
	instance.command = role === 'main' ? 'start' : role;
	instance.readinessUrl =
		role === 'worker' ? `http://127.0.0.1:${healthPort}/healthz/readiness` : undefined;
	return instance;
}

/** Starts one n8n process of the stack (extraEnv: settings for this start only, e.g. a clock offset). */
async function startProcess(instance, { log = defaultLog, extraEnv } = {}) {
	const saved = instance.env;
	if (extraEnv) instance.env = { ...saved, ...extraEnv };
	try {
		await rt.startServer(instance, {
			log,
			command: instance.command,
			readinessUrl: instance.readinessUrl,
		});
	} finally {
		instance.env = saved;
	}
	if (instance.server)
		fs.writeFileSync(path.join(instance.userFolder, 'pid'), String(instance.server.child.pid));
	const loadError = rt.packageLoadError(instance);
	if (loadError)
		throw new Error(`n8n ${instance.name} could not load ${rt.PACKAGE_NAME}:\n${loadError}`);
	return instance;
}

/**
 * Processes of a stack that outlived it (the test runner killed before its afterAll): each n8n
 * process leaves `<userFolder>/pid`, Redis `redis/pid`, PostgreSQL `postgres.json`. Kills what is
 * still alive and is still what it was (n8n or redis-server, checked in /proc), stops PostgreSQL.
 */
async function stopLeftovers(stateDir, { log = defaultLog } = {}) {
	if (!fs.existsSync(stateDir)) return;
	const pidFiles = fs
		.readdirSync(stateDir)
		.map((name) => path.join(stateDir, name, 'pid'))
		.filter((file) => fs.existsSync(file));
	for (const file of pidFiles) {
		const pid = Number(fs.readFileSync(file, 'utf8').trim());
		let cmdline = '';
		let cwd = '';
		try {
			cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
			cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
		} catch {
			continue; // gone
		}
		// The pid may have been reused since, by an n8n of another suite running beside this one:
		// only a process started in this state folder is a leftover of it.
		const startedHere = cwd.startsWith(stateDir) || cmdline.includes(stateDir);
		if (!/n8n|redis-server/.test(cmdline) || !startedHere) continue;
		log(`stopping a leftover process ${pid} of ${stateDir}`);
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// gone meanwhile
			}
		}
	}
	const pgFile = path.join(stateDir, 'postgres.json');
	if (fs.existsSync(pgFile)) {
		const pg = JSON.parse(fs.readFileSync(pgFile, 'utf8'));
		if (pg.data && fs.existsSync(path.join(pg.data, 'postmaster.pid'))) {
			log(`stopping a leftover PostgreSQL in ${pg.dir}`);
			await rt.run(
				'runuser',
				[
					'-u',
					'postgres',
					'--',
					path.join(pg.pgBin, 'pg_ctl'),
					'-D',
					pg.data,
					'-m',
					'immediate',
					'-w',
					'stop',
				],
				{ allowFail: true },
			);
		}
		if (pg.dir && pg.dir.startsWith(os.tmpdir()))
			fs.rmSync(pg.dir, { recursive: true, force: true });
	}
}

/** SIGKILL to the process group of a running n8n process (the process and its task runner). */
const killProcess = rt.killServer;

/** Webhooks n8n registered for active workflows, from the shared database: rows of webhook_entity. */
async function registeredWebhooks(pg) {
	return await queryPostgres(
		pg,
		'SELECT "workflowId", "webhookPath", method, node, "webhookId" FROM webhook_entity',
	);
}

/**
 * Waits until a webhook process routes a just-activated webhook (it may answer 404 "not registered"
 * for a moment).
 */
async function waitForRoute(url, { timeoutMs = 30000 } = {}) {
	if (!(await rt.waitForWebhook(url, { timeoutMs })))
		throw new Error(`${url} was not routed after ${timeoutMs / 1000} s`);
}

/**
 * Starts the whole queue-mode stack. Options:
 *   stateDir        folder for the n8n user folders and Redis (kept for inspection)
 *   webhooks, workers  how many of each (2, 2)
 *   workerEnv       extra environment for the workers (e.g. Bull's stall detection settings)
 *   extraEnv        extra environment for every n8n process
 *   extraWorkflows  more workflow objects to import; `activate`: ids to activate besides the examples' triggers
 *   extraTarballs   more packages installed beside this one in every process (e.g. a baseline commit's)
 *   skipBuild, log, owner
 * Resolves with {main, webhookProcesses, workers, pg, redis, simulator, secrets, workflows, urlsOf(workflowId),
 * stopN8n(), startN8n(), stop()}; on failure stops what it started.
 */
async function startQueueStack(opts) {
	const t0 = Date.now();
	const baseLog = opts.log ?? defaultLog;
	const log = (line) => baseLog(`${line} (+${Math.round((Date.now() - t0) / 1000)} s)`);
	const stateDir = path.resolve(opts.stateDir);
	fs.mkdirSync(stateDir, { recursive: true });
	const stack = {
		stateDir,
		pg: null,
		redis: null,
		simulator: null,
		main: null,
		webhookProcesses: [],
		workers: [],
		workflows: [],
	};
	const all = () => [...stack.workers, ...stack.webhookProcesses, stack.main].filter(Boolean);
	stack.all = all;
	stack.stopN8n = async () => {
		// Webhook processes and workers first, then main; in parallel within each group.
		await Promise.all([...stack.webhookProcesses, ...stack.workers].map((p) => rt.stopServer(p)));
		if (stack.main) await rt.stopServer(stack.main);
	};
	/** `extraEnv`: for every process of this start; `workerEnv`: for the workers on top. */
	stack.startN8n = async ({ workerEnv, extraEnv } = {}) => {
		await startProcess(stack.main, { log, extraEnv });
		await Promise.all([
			...stack.webhookProcesses.map((p) => startProcess(p, { log, extraEnv })),
			...stack.workers.map((p) =>
				startProcess(p, { log, extraEnv: { ...extraEnv, ...workerEnv } }),
			),
		]);
		for (const wf of stack.workflows.filter((w) => w.active))
			for (const url of stack.urlsOf(wf.id)) await waitForRoute(url);
	};
	stack.stop = async () => {
		await stack.stopN8n().catch(() => undefined);
		// Anything still alive (a failed start): SIGKILL.
		for (const p of all()) await killProcess(p).catch(() => undefined);
		if (stack.simulator) {
			const sim = stack.simulator;
			stack.simulator = null;
			await sim.stop().catch(() => undefined);
		}
		if (stack.redis) {
			const r = stack.redis;
			stack.redis = null;
			await r.stop().catch(() => undefined);
		}
		if (stack.pg) {
			const p = stack.pg;
			stack.pg = null;
			await p.stop().catch(() => undefined);
		}
	};
	try {
		const [services, runtime] = await Promise.all([
			ensureServices({ log }),
			rt.installRuntime({ log }),
			opts.skipBuild ? Promise.resolve() : rt.buildPackage({ log }),
		]);
		[stack.pg, stack.redis] = await Promise.all([
			startPostgres({ pgBin: services.pgBin, log }),
			startRedis({ redis: services.redis, dir: path.join(stateDir, 'redis'), log }),
		]);
		fs.writeFileSync(
			path.join(stateDir, 'postgres.json'),
			JSON.stringify({ dir: stack.pg.dir, data: stack.pg.data, pgBin: stack.pg.pgBin }),
		);

		const simulatorModule = require(path.join(rt.REPO_ROOT, 'test', 'simulator'));
		const secret = simulatorModule.DEFAULT_SIGNING_SECRET;
		const secrets = { lookup: secret, writeBack: secret, notification: secret };
		stack.secrets = secrets;
		stack.simulator = await simulatorModule.startSimulator({ port: 0, signingSecret: secret });
		const simClient = stack.simulator.options.clients[0];

		const encryptionKey = crypto.randomBytes(24).toString('hex');
		const env = queueEnv({ pg: stack.pg, redis: stack.redis, extra: opts.extraEnv });
		stack.main = await createProcess(runtime, {
			role: 'main',
			name: 'main',
			root: stateDir,
			encryptionKey,
			env,
		});
		log('installing the package into every n8n user folder');
		const tarball = await rt.packPackage(path.join(stateDir, 'pack'));
		const nodesDir = await rt.installPackageInto(stack.main.userFolder, tarball, {
			runtime,
			extraTarballs: opts.extraTarballs,
		});
		for (let i = 1; i <= (opts.webhooks ?? 2); i++) {
			stack.webhookProcesses.push(
				await createProcess(runtime, {
					role: 'webhook',
					name: `webhook-${i}`,
					root: stateDir,
					encryptionKey,
					env,
					nodesDir,
				}),
			);
		}
		for (let i = 1; i <= (opts.workers ?? 2); i++) {
			stack.workers.push(
				await createProcess(runtime, {
					role: 'worker',
					name: `worker-${i}`,
					root: stateDir,
					encryptionKey,
					env: { ...env, ...(opts.workerEnv ?? {}) },
					nodesDir,
				}),
			);
		}

		log('importing credentials and workflows through main (n8n CLI; runs the migrations)');
		await rt.importCredentials(
			stack.main,
			local.credentialsFor({
				serviceUrl: stack.simulator.url,
				clientId: simClient.clientId,
				clientSecret: simClient.clientSecret,
				secrets,
			}),
		);
		const examples = rt.loadExamples();
		stack.workflows = examples.map(({ file, workflow }) => ({
			file,
			id: workflow.id,
			name: workflow.name,
			trigger: rt.triggerNodes(workflow).length > 0,
			workflow: rt.localVariant(workflow),
			active: false,
		}));
		for (const wf of opts.extraWorkflows ?? []) {
			stack.workflows.push({
				file: undefined,
				id: wf.id,
				name: wf.name,
				trigger: (opts.activate ?? []).includes(wf.id),
				workflow: wf,
				active: false,
			});
		}
		await rt.importWorkflows(
			stack.main,
			stack.workflows.map((w) => w.workflow),
		);

		await startProcess(stack.main, { log });
		log('main is ready; owner, API key, data table, activation');
		await rt.setupAccess(stack.main, { ...local.DEFAULT_OWNER, ...(opts.owner ?? {}) });
		await local.connectRecordCredential(stack.main);
		await local.ensureDataTable(stack.main, local.CONVERSATIONS_TABLE);
		for (const table of opts.dataTables ?? []) await local.ensureDataTable(stack.main, table);
		for (const wf of stack.workflows.filter((w) => w.trigger)) {
			await rt.activateWorkflow(stack.main, wf.id);
			wf.active = true;
		}
		let registered = [];
		for (let attempt = 0; attempt < 80; attempt++) {
			registered = await registeredWebhooks(stack.pg);
			if (
				stack.workflows
					.filter((w) => w.active)
					.every((w) => registered.some((r) => r.workflowId === w.id))
			)
				break;
			await rt.sleep(250);
		}
		stack.registered = registered;
		/** Production URLs of a workflow's webhook, one per webhook process. */
		stack.urlsOf = (workflowId) => {
			const row = stack.registered.find((r) => r.workflowId === workflowId);
			if (!row) throw new Error(`no webhook registered for ${workflowId}`);
			return stack.webhookProcesses.map((p) => `${p.baseUrl}/webhook/${row.webhookPath}`);
		};

		log(
			`starting ${stack.webhookProcesses.length} webhook processes and ${stack.workers.length} workers`,
		);
		await Promise.all([
			...stack.webhookProcesses.map((p) => startProcess(p, { log })),
			...stack.workers.map((p) => startProcess(p, { log })),
		]);
		for (const wf of stack.workflows.filter((w) => w.active))
			for (const url of stack.urlsOf(wf.id)) await waitForRoute(url);
		log('queue mode is up');
		return stack;
	} catch (error) {
		await stack.stop().catch(() => undefined);
		throw error;
	}
}

module.exports = {
	ensureServices,
	startPostgres,
	startRedis,
	queryPostgres,
	queueEnv,
	createProcess,
	startProcess,
	killProcess,
	registeredWebhooks,
	waitForRoute,
	startQueueStack,
	stopLeftovers,
};
