/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Benchmark 4a (issue 5): webhook requests per second in ONE real n8n (2.41.1, Node 24, the packed
 * package installed as a community package): signed write backs to the Contact Center Trigger
 * (endpoint Write Back, Respond Immediately, unique idempotency keys) against n8n's core Webhook
 * node (POST, respond immediately) with the same bodies, plus the trigger's notification endpoint
 * (no dedup store) and a write back trigger whose dedup store starts full. Fixed concurrency, fixed
 * request count, the targets rotated in rounds so that a change in machine load hits all alike.
 *
 * Own user folder (.n8n-local/bench) and free ports picked at start, so it never collides with the
 * e2e suite or `npm start`. Uses scripts/lib/n8n-runtime.js unchanged.
 */
import { createHmac, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Pool, request } from 'undici';

import {
	DEDUP_STATIC_KEY,
	IdempotencyKeyStore,
	PERSISTED_RECORD_LENGTH,
} from '../nodes/ContactCenterTrigger/helpers/dedup';
import * as runtimeModule from '../scripts/lib/n8n-runtime';
import { DEFAULT_SIGNING_SECRET } from '../test/simulator';
import { fmt, median, percentile, recordSection, type Figure } from './results';

const CONCURRENCY = 8;
/** Per target. n8n on this 2-core machine takes about 10 plain webhook calls per second, so 2000 would take 10+ minutes per target. */
const REQUESTS_PER_TARGET = 1000;
const ROUNDS = 4;
const WARM_UP = 50;
/** Requests to the trigger whose store starts full (10 000 keys). */
const FULL_STORE_REQUESTS = 300;
const FULL_STORE_KEYS = 10_000;
/** Per target in the cause check (legacy expression engine). */
const CAUSE_CHECK_REQUESTS = 500;
/** Accepted write backs delivered again after the run. */
const REDELIVERIES = 20;

const SECRET = DEFAULT_SIGNING_SECRET;
const CREDENTIAL = { id: 'ccBenchSecret', name: 'Bench signing secret', type: 'contactCenterSigningSecretApi' };
const TRIGGER_NODE = 'Contact Center Trigger';
const WORKFLOWS = { trigger: 'ccBenchTrigger', core: 'ccBenchCoreHook', notification: 'ccBenchNotify', full: 'ccBenchFullStore' } as const;
type Target = 'trigger' | 'core' | 'notification';

/* The orchestration library is plain JavaScript; only what is used here is typed. */
interface Instance {
	baseUrl: string;
	userFolder: string;
	cookie?: string;
	runtime: { nodeBin: string; version: string };
}
interface Runtime {
	REPO_ROOT: string;
	installRuntime(opts: { log: (line: string) => void }): Promise<Instance['runtime']>;
	buildPackage(opts: { log: (line: string) => void }): Promise<void>;
	packPackage(dir: string): Promise<string>;
	installPackageInto(userFolder: string, tarball: string, opts: { runtime: Instance['runtime'] }): Promise<string>;
	createInstance(runtime: Instance['runtime'], opts: { userFolder: string; extraEnv?: Record<string, string> }): Promise<Instance>;
	importCredentials(instance: Instance, credentials: unknown[]): Promise<void>;
	importWorkflows(instance: Instance, workflows: unknown[]): Promise<void>;
	startServer(instance: Instance, opts: { log: (line: string) => void }): Promise<Instance>;
	stopServer(instance: Instance): Promise<void>;
	packageLoadError(instance: Instance): string | undefined;
	setupAccess(instance: Instance, owner: Record<string, string>): Promise<Instance>;
	activateWorkflow(instance: Instance, id: string): Promise<unknown>;
	registeredWebhooks(instance: Instance): Promise<Array<{ workflowId: string; url: string }>>;
	waitForWebhook(url: string): Promise<void>;
	restCall(instance: Instance, method: string, route: string, opts: { cookie?: string }): Promise<{ json?: { data?: { versionCli?: string } } }>;
	run(cmd: string, args: string[], opts?: { env?: Record<string, string | undefined> }): Promise<{ stdout: string }>;
}
const rt = runtimeModule as unknown as Runtime;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const sign = (rawBody: string) => createHmac('sha256', Buffer.from(SECRET, 'hex')).update(rawBody).digest('hex');

function writeBackBody(): string {
	return JSON.stringify({
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey: randomUUID(),
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'ch-1', name: 'Support WhatsApp' },
			contactProfile: { id: 'cp-1', mediumContactProfileId: '+31612345678', primaryIdentifier: '+31612345678', secondaryIdentifier: 'Ann', pictureUrl: '' },
			conversation: { id: randomUUID(), createdAt: '2026-01-01T10:00:00+01:00', previousStatus: 'new', currentStatus: 'resolved' },
			statusUpdatedAt: '2026-01-01T10:05:00+01:00',
			statusUpdatedReason: 'agentResolved',
			agent: { id: 'a-1', firstName: 'Bo', lastName: 'Agent', email: 'bo@example.com' },
			contactAttributes: [{ attribute: 'email', value: 'ann@example.com', source: 'CRM_CONFIRMED' }],
			messages: [
				{ id: 'm-1', direction: 'INBOUND', text: 'Where is my order?' },
				{ id: 'm-2', direction: 'OUTBOUND', text: 'It ships today.' },
			],
			notes: [],
			topics: [{ id: 't-1', name: 'Orders' }],
		},
	});
}

function workflow(id: string, name: string, node: Record<string, unknown>, staticData?: Record<string, unknown>) {
	return {
		id,
		name,
		nodes: [{ id: randomUUID(), position: [0, 0], webhookId: randomUUID(), ...node }],
		connections: {},
		settings: { executionOrder: 'v1' },
		pinData: {},
		active: false,
		...(staticData ? { staticData } : {}),
	};
}

const triggerNode = {
	name: TRIGGER_NODE,
	type: 'n8n-nodes-contact-center.contactCenterTrigger',
	typeVersion: 1,
	parameters: { endpoint: 'writeBack', responseTiming: 'immediately' },
	credentials: { contactCenterSigningSecretApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
};

/** A dedup store as the trigger leaves it after FULL_STORE_KEYS deliveries in the last hour. */
function fullStore() {
	const now = Date.now();
	const store = new IdempotencyKeyStore();
	for (let i = 0; i < FULL_STORE_KEYS; i++) store.record(randomUUID(), 'done', now - 3_600_000 + i * 300);
	return { [`node:${TRIGGER_NODE}`]: { [DEDUP_STATIC_KEY]: store.toPersisted() } };
}

interface LoadResult {
	requests: number;
	/** The bodies sent, in order. */
	bodies: string[];
	ms: number;
	statuses: Record<number, number>;
	latencies: number[];
}

/** `count` POSTs with `concurrency` in flight, bodies made and signed before the clock starts. */
async function load(pool: Pool, url: string, count: number, concurrency: number): Promise<LoadResult> {
	const pathname = new URL(url).pathname;
	const prepared = Array.from({ length: count }, () => {
		const body = writeBackBody();
		return { body, signature: sign(body) };
	});
	const statuses: Record<number, number> = {};
	const latencies: number[] = [];
	let next = 0;
	const worker = async () => {
		while (next < prepared.length) {
			const { body, signature } = prepared[next++];
			const started = performance.now();
			const res = await pool.request({
				path: pathname,
				method: 'POST',
				headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-signature': signature },
				body,
			});
			await res.body.text();
			latencies.push(performance.now() - started);
			statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
		}
	};
	const started = performance.now();
	await Promise.all(Array.from({ length: concurrency }, worker));
	return { requests: count, bodies: prepared.map((p) => p.body), ms: performance.now() - started, statuses, latencies };
}

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
	}
	return newest;
}

/** Builds only when dist is missing or older than the sources, so a build never pulls dist from under a parallel run. */
async function ensureBuilt() {
	const root = rt.REPO_ROOT;
	const dist = path.join(root, 'dist');
	const sources = Math.max(
		newestMtime(path.join(root, 'nodes')),
		newestMtime(path.join(root, 'credentials')),
		fs.statSync(path.join(root, 'package.json')).mtimeMs,
	);
	if (fs.existsSync(dist) && newestMtime(dist) >= sources) {
		log('dist is up to date; not rebuilding');
		return;
	}
	await rt.buildPackage({ log });
}

/** Number of keys in a workflow's dedup store, read from n8n's database (Node 24's node:sqlite). */
async function storedKeys(instance: Instance, workflowId: string): Promise<number> {
	const db = path.join(instance.userFolder, '.n8n', 'database.sqlite');
	const script = `
		const { DatabaseSync } = require('node:sqlite');
		const db = new DatabaseSync(process.argv[1], { readOnly: true });
		const row = db.prepare('SELECT staticData FROM workflow_entity WHERE id = ?').get(process.argv[2]);
		const data = row && row.staticData ? JSON.parse(row.staticData) : {};
		const store = (data[${JSON.stringify(`node:${TRIGGER_NODE}`)}] || {})[${JSON.stringify(DEDUP_STATIC_KEY)}] || {};
		process.stdout.write(String(typeof store.records === 'string' ? store.records.length / ${PERSISTED_RECORD_LENGTH} : 0));
	`;
	const { stdout } = await rt.run(instance.runtime.nodeBin, ['--no-warnings', '-e', script, db, workflowId], {
		env: { ...process.env, NODE_OPTIONS: '' },
	});
	return Number(stdout.trim());
}

describe('Benchmark 4a: webhook throughput in a real n8n', () => {
	let instance: Instance | undefined;
	let keep = false;
	const userFolder = path.join(rt.REPO_ROOT, '.n8n-local', 'bench');

	afterAll(async () => {
		if (instance) await rt.stopServer(instance);
		if (!keep) fs.rmSync(userFolder, { recursive: true, force: true });
		else log(`kept ${userFolder} for inspection`);
	}, 120_000);

	it('Contact Center Trigger (write back) against the core Webhook node', async () => {
		keep = true;
		fs.rmSync(userFolder, { recursive: true, force: true });
		const [runtime] = await Promise.all([rt.installRuntime({ log }), ensureBuilt()]);
		instance = await rt.createInstance(runtime, { userFolder });
		const tarball = await rt.packPackage(path.join(userFolder, 'pack'));
		await rt.installPackageInto(userFolder, tarball, { runtime });
		await rt.importCredentials(instance, [{ ...CREDENTIAL, data: { secret: SECRET } }]);
		await rt.importWorkflows(instance, [
			workflow(WORKFLOWS.trigger, 'bench: Contact Center Trigger (write back)', triggerNode),
			workflow(WORKFLOWS.core, 'bench: core Webhook', {
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				parameters: { httpMethod: 'POST', path: 'bench-core-webhook', options: {} },
			}),
			workflow(WORKFLOWS.notification, 'bench: Contact Center Trigger (notification)', {
				...triggerNode,
				parameters: { endpoint: 'notification' },
			}),
			workflow(WORKFLOWS.full, 'bench: Contact Center Trigger, store full', triggerNode, fullStore()),
		]);
		await rt.startServer(instance, { log });
		const loadError = rt.packageLoadError(instance);
		if (loadError) throw new Error(loadError);
		await rt.setupAccess(instance, { email: 'bench@example.com', password: `Bench-${randomUUID()}`, firstName: 'Bench', lastName: 'Owner' });
		for (const id of Object.values(WORKFLOWS)) await rt.activateWorkflow(instance, id);
		// Activation registers the webhooks a moment later: wait until all are in the table.
		let registered = await rt.registeredWebhooks(instance);
		for (let tries = 0; tries < 60 && Object.values(WORKFLOWS).some((id) => !registered.some((r) => r.workflowId === id)); tries++) {
			await new Promise((resolve) => setTimeout(resolve, 500));
			registered = await rt.registeredWebhooks(instance);
		}
		const urlOf = (id: string) => {
			const hook = registered.find((r) => r.workflowId === id);
			if (!hook) throw new Error(`no webhook registered for ${id}: ${JSON.stringify(registered)}`);
			return hook.url;
		};
		const urls = {
			trigger: urlOf(WORKFLOWS.trigger),
			core: urlOf(WORKFLOWS.core),
			notification: urlOf(WORKFLOWS.notification),
			full: urlOf(WORKFLOWS.full),
		};
		for (const url of Object.values(urls)) await rt.waitForWebhook(url);
		const settings = await rt.restCall(instance, 'GET', '/settings', { cookie: instance.cookie });
		const n8nVersion = `${settings.json?.data?.versionCli ?? runtime.version} (Node ${(await rt.run(runtime.nodeBin, ['--version'])).stdout.trim()})`;
		log(`n8n ${n8nVersion} at ${instance.baseUrl}; webhooks ${JSON.stringify(urls)}`);

		const summary = (results: LoadResult[]) => {
			const requests = results.reduce((sum, r) => sum + r.requests, 0);
			const ms = results.reduce((sum, r) => sum + r.ms, 0);
			const latencies = results.flatMap((r) => r.latencies);
			const statuses: Record<number, number> = {};
			for (const r of results) for (const [code, n] of Object.entries(r.statuses)) statuses[Number(code)] = (statuses[Number(code)] ?? 0) + n;
			const rounds = results.map((r) => fmt((r.requests / r.ms) * 1000, 0));
			return { requests, rps: (requests / ms) * 1000, p50: median(latencies), p99: percentile(latencies, 99), statuses, rounds };
		};
		const show = (s: ReturnType<typeof summary>) =>
			`${fmt(s.rps)} req/s (rounds ${s.rounds.join(', ')}; p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms; statuses ${JSON.stringify(s.statuses)})`;

		/** Warm-up, then `rounds` rounds of `perTarget / rounds` requests per target, order rotated. */
		async function compare(baseUrl: string, targetUrls: Partial<Record<Target, string>>, perTarget: number, rounds: number, label: string) {
			const targets = Object.keys(targetUrls) as Target[];
			const pool = new Pool(baseUrl, { connections: CONCURRENCY, pipelining: 1 });
			try {
				for (const target of targets) await load(pool, targetUrls[target]!, WARM_UP, CONCURRENCY);
				const totals: Partial<Record<Target, LoadResult[]>> = {};
				for (let round = 0; round < rounds; round++) {
					const order = targets.map((_, i) => targets[(i + round) % targets.length]);
					for (const target of order) {
						const result = await load(pool, targetUrls[target]!, perTarget / rounds, CONCURRENCY);
						(totals[target] ??= []).push(result);
						log(`${label} round ${round + 1} ${target}: ${fmt((result.requests / result.ms) * 1000)} req/s ${JSON.stringify(result.statuses)}`);
					}
				}
				const summaries = Object.fromEntries(targets.map((t) => [t, summary(totals[t] ?? [])])) as Record<Target, ReturnType<typeof summary>>;
				return { summaries, bodies: Object.fromEntries(targets.map((t) => [t, (totals[t] ?? []).flatMap((r) => r.bodies)])) as Record<Target, string[]> };
			} finally {
				await pool.close();
			}
		}

		const { summaries: main, bodies: mainBodies } = await compare(instance.baseUrl, { trigger: urls.trigger, core: urls.core, notification: urls.notification }, REQUESTS_PER_TARGET, ROUNDS, 'main');
		const fullPool = new Pool(instance.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
		const full = summary([await load(fullPool, urls.full, FULL_STORE_REQUESTS, CONCURRENCY)]);
		await fullPool.close();
		log(`store full: ${show(full)}`);
		const triggerSent = WARM_UP + REQUESTS_PER_TARGET;
		// Redeliveries, one at a time, of write backs the trigger accepted: each should be answered as a duplicate.
		const redelivered = [...mainBodies.trigger.slice(0, REDELIVERIES / 2), ...mainBodies.trigger.slice(-REDELIVERIES / 2)];
		async function redeliver(url: string): Promise<number> {
			let recognised = 0;
			for (const body of redelivered) {
				const res = await request(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
					body,
				});
				const text = await res.body.text();
				if (text.includes('"duplicate":true')) recognised++;
			}
			return recognised;
		}
		const recognised = await redeliver(urls.trigger);
		log(`redeliveries recognised as duplicates: ${recognised} of ${redelivered.length}`);
		await new Promise((resolve) => setTimeout(resolve, 3000)); // let the last static data saves land
		const keysInDb = await storedKeys(instance, WORKFLOWS.trigger);

		// Cause check: the same n8n restarted with the legacy expression engine. n8n 2.41 evaluates
		// expressions in an isolate (N8N_EXPRESSION_ENGINE=vm, pool of 1) and skips it during the
		// webhook phase only for the core Webhook node with static parameters.
		await rt.stopServer(instance);
		instance = await rt.createInstance(runtime, { userFolder, extraEnv: { N8N_EXPRESSION_ENGINE: 'legacy' } });
		await rt.startServer(instance, { log });
		const moved = (url: string) => `${instance!.baseUrl}${new URL(url).pathname}`;
		for (const url of [urls.trigger, urls.core]) await rt.waitForWebhook(moved(url));
		// The restarted n8n has no keys in memory: only what it saved in static data can recognise them.
		const recognisedAfterRestart = await redeliver(moved(urls.trigger));
		log(`redeliveries recognised after the restart: ${recognisedAfterRestart} of ${redelivered.length}`);
		const { summaries: legacy } = await compare(instance.baseUrl, { trigger: moved(urls.trigger), core: moved(urls.core) }, CAUSE_CHECK_REQUESTS, 2, 'legacy engine');

		const ratio = main.trigger.rps / main.core.rps;
		const figures: Figure[] = [
			{ name: 'Core Webhook node (POST, respond immediately)', value: show(main.core) },
			{ name: 'Contact Center Trigger, write back (store starts empty)', value: show(main.trigger) },
			{ name: 'Trigger (write back) / core Webhook', value: `${ratio.toFixed(2)}x`, target: '≥ 0.9x', met: ratio >= 0.9 },
			{ name: 'Contact Center Trigger, notification endpoint (no dedup store, answers 204)', value: `${show(main.notification)}; ${(main.notification.rps / main.core.rps).toFixed(2)}x the core Webhook` },
			{ name: `Contact Center Trigger, write back, store full (${FULL_STORE_KEYS} keys) from the start`, value: `${show(full)}; ${(full.rps / main.core.rps).toFixed(2)}x the core Webhook` },
			{
				name: `Redeliveries (one at a time) of ${REDELIVERIES} accepted write backs, the first and last ${REDELIVERIES / 2}, answered as duplicates`,
				value: `${recognised} of ${REDELIVERIES}`,
				target: `${REDELIVERIES} (each event processed once, spec 6.1)`,
				met: recognised === REDELIVERIES,
			},
			{ name: "Keys in the write back trigger's stored static data after the redeliveries", value: `${keysInDb} of ${triggerSent} unique keys delivered` },
			{
				name: 'The same redeliveries after an n8n restart, answered as duplicates',
				value: `${recognisedAfterRestart} of ${REDELIVERIES}`,
				target: `${REDELIVERIES}`,
				met: recognisedAfterRestart === REDELIVERIES,
			},
			{ name: 'Cause check, n8n restarted with N8N_EXPRESSION_ENGINE=legacy: core Webhook', value: show(legacy.core) },
			{ name: 'Cause check, legacy engine: trigger (write back)', value: `${show(legacy.trigger)}; ${(legacy.trigger.rps / legacy.core.rps).toFixed(2)}x the core Webhook` },
		];
		const notes = [
			"n8n 2.41 runs expressions in V8 isolates (expression engine 'vm', pool size 1) and, for production webhooks, skips acquiring one only when the start node is the core Webhook node (type n8n-nodes-base.webhook, version > 1, static parameters, natively resolvable webhook description: packages/cli/src/webhooks/live-webhooks.ts webhookPhaseNeedsIsolate). An isolate is used once: acquiring pops the warm one (or builds one cold when the pool is empty) and releasing disposes it, after which the pool builds a new one (@n8n/expression-runtime isolate-pool.js). So every call to any other trigger, this one included, costs the creation of one more V8 isolate before its run starts, whatever the node does; for a version 1 node n8n also evaluates `$parameter.options.binaryData` through the engine (webhook-helpers.js parseRequestBody). The notification endpoint, which has no dedup store, shows the same gap, and the cause check with the legacy engine shows how much of it this accounts for.",

			`n8n also loads the workflow with its static data from the database for every production webhook call and writes the static data back when it changed (live-webhooks.ts: saveStaticData). The trigger keeps the keys in memory and writes them into static data on every write back call, 18 characters per key (helpers/dedup.ts), so a call on a full store reads about 180 KB with the workflow, and every execution n8n saves carries a copy; the full-store figure shows that cost against the empty store.`,
			'n8n 2.41 does not save static data changed by a webhook call that starts a run: WorkflowRunner.establishContextForPersistence wraps the same static data object in a new Workflow, which resets its change flag, before live-webhooks saves it (found with a trace in the real n8n). That is why the trigger keeps the keys in the process: redeliveries are recognised from memory, and every call that starts no run (a duplicate, an unselected type) is saved with all keys, which the redelivery after the restart relies on.',
		];
		if (keysInDb < triggerSent) {
			notes.push(
				`${keysInDb} of ${triggerSent} keys were in the saved static data after the redeliveries${keysInDb < Math.min(triggerSent, 10_000) ? ': fewer than delivered, so some keys would be forgotten by a restart' : ' (the store keeps at most 10 000)'}.`,
			);
		}
		recordSection({
			id: 'webhook',
			title: '4a. Webhook throughput in the same real n8n',
			method: `One n8n ${n8nVersion}, SQLite, executions saved (the n8n-runtime defaults), this package packed and installed as a community package. Four active single-node workflows: the Contact Center Trigger (endpoint Write Back, Respond Immediately), n8n's core Webhook node (POST, respond immediately), the trigger on its Notification endpoint (same node, no dedup store) and a second write back trigger whose dedup store starts with ${FULL_STORE_KEYS} keys. Load with undici (${CONCURRENCY} connections, ${CONCURRENCY} requests in flight), signed write backs (about ${writeBackBody().length} bytes) with unique idempotency keys to every target; ${WARM_UP} warm-up requests each, then ${REQUESTS_PER_TARGET} per target (trigger, core Webhook, notification) in ${ROUNDS} rounds with the order rotated, then ${FULL_STORE_REQUESTS} to the full-store trigger; req/s = requests / time of that target's rounds. Then ${REDELIVERIES} accepted write backs delivered again one at a time, and the cause check: n8n restarted with the legacy expression engine, the same redeliveries once more, then ${CAUSE_CHECK_REQUESTS} requests each to the write back trigger and the core Webhook in 2 rounds. Other processes shared the 2 cores during the run (see the load average).`,
			figures,
			notes,
			n8nVersion,
		});
		keep = false;
	});
});
