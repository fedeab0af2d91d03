/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Webhook throughput and lookup round trip in ONE real n8n: the Contact Center Trigger's endpoints
 * beside n8n's core Webhook node and a minimal community trigger fixture (bench/fixtures/
 * minimal-trigger), all active in the same n8n and measured in rotated rounds, medians of the
 * rounds. The whole comparison runs twice: n8n with its default expression engine settings, then
 * restarted with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true.
 *
 * BENCH_WEBHOOK_SCALE (default 1) scales the request counts, e.g. 0.1 while developing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Pool } from 'undici';

import {
	benchOwner,
	benchWorkflow,
	CC,
	chain,
	ensureBuilt,
	installPackages,
	load,
	log,
	MINIMAL,
	n8nVersionOf,
	registeredPaths,
	rt,
	SECRET,
	sign,
	summarise,
	x,
	type BodyKind,
	type Instance,
	type LoadResult,
	type Summary,
} from './harness';
import { fmt, recordSection, type Figure } from './results';

const SCALE = Number(process.env.BENCH_WEBHOOK_SCALE ?? '1') || 1;
const CONCURRENCY = 8;
/** Rounds per figure: run-to-run spread on a shared 2-core machine is about 15 %, so medians of 8. */
const ROUNDS = 8;
/** Per target and engine setting, in ROUNDS rounds. */
const THROUGHPUT_REQUESTS = Math.max(ROUNDS, Math.round((480 * SCALE) / ROUNDS) * ROUNDS);
const WARM_UP = Math.max(CONCURRENCY, Math.round(24 * SCALE));
/** Lookups one at a time, per lookup workflow and engine setting, in ROUNDS rounds. */
const RTT_REQUESTS = Math.max(ROUNDS, Math.round((120 * SCALE) / ROUNDS) * ROUNDS);
/** Accepted write backs (afterSuccess) delivered again one at a time after the throughput rounds. */
const REDELIVERIES = 20;

const SIGNING_CREDENTIAL = {
	id: 'ccBenchSecret',
	name: 'Bench signing secret',
	type: 'contactCenterSigningSecretApi',
};
const RECORD_CREDENTIAL = {
	id: 'ccBenchRecord',
	name: 'Bench record',
	type: 'contactCenterRecordApi',
};
const RECORD_TABLE = 'contact_center_record';
const SIGNING = {
	[SIGNING_CREDENTIAL.type]: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name },
};
const SIGNING_AND_RECORD = {
	...SIGNING,
	[RECORD_CREDENTIAL.type]: { id: RECORD_CREDENTIAL.id, name: RECORD_CREDENTIAL.name },
};

interface TargetSpec {
	label: string;
	body: BodyKind;
	/** Status code every call should get. */
	status: number;
	nodes: Array<Record<string, unknown>>;
	connections?: Record<string, unknown>;
}

/** The stand-in CRM search of examples/3-crm-lookup.json; `request` is the lookup body. */
const FIND_CUSTOMER = `const customers = [
  { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', customerId: 'CUST-1815', tier: 'gold', phone: '+441632960815' },
  { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', customerId: 'CUST-1906', tier: 'silver', phone: null },
];
const email = String(request.email ?? '').trim().toLowerCase();
const customer = customers.find((c) => c.email === email);
return [{ json: customer ? { found: true, ...customer } : { found: false, email } }];`;

/** Checks the HMAC over the raw body bytes the Webhook node kept (option Raw Body), then searches. */
const VERIFY_AND_FIND = `const crypto = require('crypto');
const item = $input.first();
const binary = item.binary.data;
const raw = binary.id ? await this.helpers.getBinaryDataBuffer(0, 'data') : Buffer.from(binary.data, 'base64');
const given = Buffer.from(String(item.json.headers['x-service-signature'] ?? ''), 'hex');
const expected = crypto.createHmac('sha256', Buffer.from('${SECRET}', 'hex')).update(raw).digest();
if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
  throw new Error('signature mismatch');
}
const request = JSON.parse(raw.toString('utf8'));
${FIND_CUSTOMER}`;

const ATTRIBUTES = ['email', 'firstName', 'lastName', 'customerId', 'tier', 'phone'];

const codeNode = (name: string, jsCode: string) => ({
	name,
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: { jsCode },
});

const findCustomer = codeNode(
	'Find customer',
	`const request = $input.first().json;\n${FIND_CUSTOMER}`,
);

const ccTrigger = (parameters: Record<string, unknown>) => ({
	name: 'Contact Center Trigger',
	type: `${CC}.contactCenterTrigger`,
	typeVersion: 1.1,
	parameters,
	credentials: parameters.endpoint === 'writeBack' ? SIGNING_AND_RECORD : SIGNING,
});

/** The core lookup's answering node. */
const RESPOND_TO_WEBHOOK = {
	name: 'Respond to Webhook',
	type: 'n8n-nodes-base.respondToWebhook',
	typeVersion: 1.1,
	parameters: {
		respondWith: 'json',
		responseBody: `={{ { autoConfirm: false, attributes: { attribute: [${ATTRIBUTES.map(
			(alias) => `{ alias: '${alias}', value: $json.${alias} ?? null }`,
		).join(', ')}] } } }}`,
		options: {},
	},
};

/** The Contact Center lookup's answering node (Contact Center node, Respond to Lookup). */
const RESPOND_TO_LOOKUP = {
	name: 'Answer the lookup',
	type: `${CC}.contactCenter`,
	typeVersion: 1,
	parameters: {
		resource: 'crmLookup',
		operation: 'respond',
		respondWith: '={{ $json.found ? "found" : "notFound" }}',
		autoConfirm: false,
		attributesInput: 'pairs',
		attributes: {
			attribute: ATTRIBUTES.map((alias) => ({ alias, value: `={{ $json.${alias} }}` })),
		},
		emptyAsNull: true,
	},
};

const TARGETS = {
	core: {
		label: 'core Webhook node (respond immediately)',
		body: 'writeBack',
		status: 200,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				parameters: { httpMethod: 'POST', path: 'bench-core-webhook', options: {} },
			},
		],
	},
	min2: {
		label: 'minimal community trigger (static webhook description)',
		body: 'writeBack',
		status: 200,
		nodes: [{ name: 'Minimal', type: `${MINIMAL}.minimalTrigger`, typeVersion: 2, parameters: {} }],
	},
	min2Cred: {
		label:
			'minimal community trigger carrying a credential it never reads (n8n checks the credential in its database for every execution)',
		body: 'writeBack',
		status: 200,
		nodes: [
			{
				name: 'Minimal',
				type: `${MINIMAL}.minimalTrigger`,
				typeVersion: 2,
				parameters: {},
				credentials: SIGNING,
			},
		],
	},
	ccImm: {
		label: 'Contact Center Trigger, write back, respond immediately',
		body: 'writeBack',
		status: 200,
		nodes: [ccTrigger({ endpoint: 'writeBack', respond: 'immediately' })],
	},
	ccAfter: {
		label: 'Contact Center Trigger, write back, respond afterSuccess (default)',
		body: 'writeBack',
		status: 200,
		nodes: [ccTrigger({ endpoint: 'writeBack', respond: 'afterSuccess' })],
	},
	ccNoKey: {
		label: 'Contact Center Trigger, write back without idempotency key, respond immediately',
		body: 'writeBackNoKey',
		status: 200,
		nodes: [ccTrigger({ endpoint: 'writeBack', respond: 'immediately' })],
	},
	ccNotify: {
		label: 'Contact Center Trigger, notification',
		body: 'writeBack',
		status: 204,
		nodes: [ccTrigger({ endpoint: 'notification' })],
	},
	ccLookup: {
		label: 'lookup: Contact Center Trigger -> Code -> Respond to Lookup',
		body: 'lookup',
		status: 200,
		nodes: [
			ccTrigger({ endpoint: 'lookup', ifNoResponse: 'notFound' }),
			findCustomer,
			RESPOND_TO_LOOKUP,
		],
		connections: chain('Contact Center Trigger', 'Find customer', 'Answer the lookup'),
	},
	coreLookup: {
		label:
			'lookup from core nodes: Webhook (raw body) -> Code verifying the HMAC -> Respond to Webhook',
		body: 'lookup',
		status: 200,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				parameters: {
					httpMethod: 'POST',
					path: 'bench-core-lookup',
					responseMode: 'responseNode',
					options: { rawBody: true },
				},
			},
			codeNode('Verify and find customer', VERIFY_AND_FIND),
			RESPOND_TO_WEBHOOK,
		],
		connections: chain('Webhook', 'Verify and find customer', 'Respond to Webhook'),
	},
	minLookup: {
		label: 'lookup: minimal community lookup trigger -> Code (the last node answers; no HMAC)',
		body: 'lookup',
		status: 200,
		nodes: [
			{
				name: 'Minimal Lookup',
				type: `${MINIMAL}.minimalLookupTrigger`,
				typeVersion: 2,
				parameters: {},
			},
			findCustomer,
		],
		connections: chain('Minimal Lookup', 'Find customer'),
	},
	minLookupRespondCC: {
		label:
			'lookup: minimal community lookup trigger -> Code -> Respond to Lookup (the Contact Center lookup with only the trigger swapped; carries the credential, no HMAC)',
		body: 'lookup',
		status: 200,
		nodes: [
			{
				name: 'Minimal Lookup',
				type: `${MINIMAL}.minimalRespondLookupTrigger`,
				typeVersion: 2,
				parameters: {},
				credentials: SIGNING,
			},
			findCustomer,
			RESPOND_TO_LOOKUP,
		],
		connections: chain('Minimal Lookup', 'Find customer', 'Answer the lookup'),
	},
} satisfies Record<string, TargetSpec>;
type Target = keyof typeof TARGETS;
const THROUGHPUT_TARGETS = Object.keys(TARGETS) as Target[];
const RTT_TARGETS: Target[] = ['coreLookup', 'ccLookup', 'minLookup'];

const workflowId = (target: Target) => `ccBench${target[0].toUpperCase()}${target.slice(1)}`;

interface EngineResult {
	setting: string;
	throughput: Record<Target, Summary>;
	rtt: Partial<Record<Target, Summary>>;
	/** Statuses ("processed", "duplicate", "inProgress", http code) of redelivered write backs. */
	redeliveries: Record<string, number>;
}

describe('Webhook throughput and lookup round trip in a real n8n', () => {
	let instance: Instance | undefined;
	let passed = false;
	const userFolder = path.join(rt.REPO_ROOT, '.n8n-local', 'bench');

	afterAll(async () => {
		if (instance) await rt.stopServer(instance);
		// Kept after a failure, for its n8n log.
		if (passed) fs.rmSync(userFolder, { recursive: true, force: true });
	}, 120_000);

	it('Contact Center Trigger against the core Webhook node and a minimal community trigger, default and lazy isolates', async () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		const [runtime] = await Promise.all([rt.installRuntime({ log }), ensureBuilt()]);
		// The core lookup's Code node checks the HMAC with node:crypto.
		const baseEnv = { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto' };
		instance = await rt.createInstance(runtime, { userFolder, extraEnv: baseEnv });
		await installPackages(userFolder, runtime);
		await rt.importCredentials(instance, [
			{ ...SIGNING_CREDENTIAL, data: { secret: SECRET } },
			// Pointed at this n8n's public API with its API key once n8n runs.
			{ ...RECORD_CREDENTIAL, data: { baseUrl: 'http://127.0.0.1/api/v1', apiKey: 'unset' } },
		]);
		const workflows = THROUGHPUT_TARGETS.map((t) => {
			const spec: TargetSpec = TARGETS[t];
			return benchWorkflow(workflowId(t), `bench: ${spec.label}`, spec.nodes, spec.connections);
		});
		await rt.importWorkflows(instance, workflows);

		let n8nVersion = runtime.version;
		let paths: Record<Target, string> | undefined;
		/** The same port at every start: the record credential holds the API URL. */
		let port: number | undefined;
		const accepted: string[] = [];

		async function engine(
			setting: string,
			extraEnv: Record<string, string>,
		): Promise<EngineResult> {
			instance = await rt.createInstance(runtime, {
				userFolder,
				port,
				extraEnv: { ...baseEnv, ...extraEnv },
			});
			port = instance.port;
			await rt.startServer(instance, { log });
			const loadError = rt.packageLoadError(instance);
			if (loadError) throw new Error(loadError);
			if (paths === undefined) {
				await rt.setupAccess(instance, benchOwner);
				await rt.publicApi(instance, 'PATCH', `/credentials/${RECORD_CREDENTIAL.id}`, {
					name: RECORD_CREDENTIAL.name,
					type: RECORD_CREDENTIAL.type,
					data: {
						baseUrl: `${instance.baseUrl}/api/v1`,
						apiKey: instance.apiKey,
						dataTableName: RECORD_TABLE,
					},
				});
				for (const wf of workflows) await rt.activateWorkflow(instance, wf.id);
				const byId = await registeredPaths(
					instance,
					workflows.map((wf) => wf.id),
				);
				paths = Object.fromEntries(
					THROUGHPUT_TARGETS.map((t) => [t, byId[workflowId(t)]]),
				) as Record<Target, string>;
				n8nVersion = await n8nVersionOf(instance);
			}
			const routes = paths;
			for (const t of THROUGHPUT_TARGETS) {
				if (!(await rt.waitForWebhook(`${instance.baseUrl}${routes[t]}`)))
					throw new Error(`${t}: webhook not routed after the start`);
			}
			log(`${setting}: n8n ${n8nVersion} at ${instance.baseUrl}`);
			const url = (t: Target) => `${instance!.baseUrl}${routes[t]}`;

			// Redeliveries, one at a time, of write backs accepted before (in the previous n8n process).
			const redeliveries: Record<string, number> = {};
			const single = new Pool(instance.baseUrl, { connections: 1, pipelining: 1 });
			const pool = new Pool(instance.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
			try {
				const redeliver = async () => {
					for (const body of accepted) {
						const res = await single.request({
							path: routes.ccAfter,
							method: 'POST',
							headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
							body,
						});
						const text = await res.body.text();
						const status = /"status":"(\w+)"/.exec(text)?.[1] ?? String(res.statusCode);
						redeliveries[status] = (redeliveries[status] ?? 0) + 1;
					}
				};
				if (accepted.length > 0) await redeliver();

				for (const t of THROUGHPUT_TARGETS) {
					const warm = await load(pool, url(t), TARGETS[t].body, WARM_UP, CONCURRENCY);
					if (!warm.statuses[TARGETS[t].status] || warm.badAnswers > 0) {
						throw new Error(
							`${t}: warm-up answers ${JSON.stringify(warm.statuses)}, ${warm.badAnswers} wrong bodies; n8n log:\n${rt.readLog(instance).slice(-3000)}`,
						);
					}
				}
				const totals = {} as Record<Target, LoadResult[]>;
				for (let round = 0; round < ROUNDS; round++) {
					const order = THROUGHPUT_TARGETS.map(
						(_, i) => THROUGHPUT_TARGETS[(i + round * 3) % THROUGHPUT_TARGETS.length],
					);
					for (const t of order) {
						const result = await load(
							pool,
							url(t),
							TARGETS[t].body,
							THROUGHPUT_REQUESTS / ROUNDS,
							CONCURRENCY,
						);
						(totals[t] ??= []).push(result);
						log(
							`${setting} round ${round + 1} ${t}: ${fmt((result.requests / result.ms) * 1000)} req/s ${JSON.stringify(result.statuses)}`,
						);
					}
				}
				if (accepted.length === 0) {
					const bodies = totals.ccAfter.flatMap((r) => r.bodies);
					accepted.push(...bodies.slice(0, REDELIVERIES / 2), ...bodies.slice(-REDELIVERIES / 2));
					await redeliver();
				}

				const rttTotals = {} as Record<Target, LoadResult[]>;
				for (const t of RTT_TARGETS) await load(single, url(t), 'lookup', WARM_UP, 1);
				for (let round = 0; round < ROUNDS; round++) {
					for (let i = 0; i < RTT_TARGETS.length; i++) {
						const t = RTT_TARGETS[(i + round) % RTT_TARGETS.length];
						(rttTotals[t] ??= []).push(
							await load(single, url(t), 'lookup', RTT_REQUESTS / ROUNDS, 1),
						);
					}
				}
				return {
					setting,
					throughput: Object.fromEntries(
						THROUGHPUT_TARGETS.map((t) => [t, summarise(totals[t])]),
					) as Record<Target, Summary>,
					rtt: Object.fromEntries(RTT_TARGETS.map((t) => [t, summarise(rttTotals[t])])),
					redeliveries,
				};
			} finally {
				await Promise.all([pool.close(), single.close()]);
				await rt.stopServer(instance);
			}
		}

		const defaults = await engine('default engine', {});
		const lazy = await engine('N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', {
			N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
		});
		instance = undefined;

		const engines = [defaults, lazy];
		const rps = (e: EngineResult, t: Target) => e.throughput[t].rps;
		const ratio = (e: EngineResult, a: Target, b: Target) => rps(e, a) / rps(e, b);
		const tableRow = (name: string, cell: (e: EngineResult) => string) =>
			`| ${name} | ${engines.map(cell).join(' | ')} |`;
		const table = [
			`Throughput, ${CONCURRENCY} requests in flight, median of ${ROUNDS} rounds (ratios to the core Webhook node and to the minimal community trigger in the same n8n):`,
			'',
			'| | default engine | `N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true` |',
			'|---|---|---|',
			...THROUGHPUT_TARGETS.map((t) =>
				tableRow(
					TARGETS[t].label,
					(e) =>
						`${fmt(rps(e, t))} req/s (${x(ratio(e, t, 'core'))} core Webhook, ${x(ratio(e, t, 'min2'))} minimal)`,
				),
			),
			'',
			`Lookup round trip, one request at a time (${RTT_REQUESTS} per workflow and engine setting, ${ROUNDS} rounds rotated):`,
			'',
			'| | default engine | `N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true` |',
			'|---|---|---|',
			...RTT_TARGETS.map((t) =>
				tableRow(
					TARGETS[t].label,
					(e) =>
						`p50 ${fmt(e.rtt[t]!.p50)} ms, p99 ${fmt(e.rtt[t]!.p99)} ms (${x(e.rtt[t]!.p50 / e.rtt.coreLookup!.p50)} / ${x(e.rtt[t]!.p99 / e.rtt.coreLookup!.p99)} the core-nodes lookup)`,
				),
			),
		];

		const target = (name: string, value: number, goal: string, met: boolean): Figure => ({
			name,
			value: x(value),
			target: goal,
			met,
		});
		const rtt = (t: Target, p: 'p50' | 'p99') => lazy.rtt[t]![p] / lazy.rtt.coreLookup![p];
		const figures: Figure[] = [
			target(
				'Default engine: write back (respond immediately) / minimal community trigger',
				ratio(defaults, 'ccImm', 'min2'),
				'≥ 0.95x',
				ratio(defaults, 'ccImm', 'min2') >= 0.95,
			),
			target(
				'Default engine: write back (respond afterSuccess, the default) / minimal community trigger',
				ratio(defaults, 'ccAfter', 'min2'),
				'≥ 0.95x',
				ratio(defaults, 'ccAfter', 'min2') >= 0.95,
			),
			target(
				'Default engine: lookup throughput, Contact Center lookup / the same workflow started by the minimal lookup trigger',
				ratio(defaults, 'ccLookup', 'minLookupRespondCC'),
				'≥ 0.95x',
				ratio(defaults, 'ccLookup', 'minLookupRespondCC') >= 0.95,
			),
			target(
				'Lazy isolates: write back (respond immediately) / core Webhook',
				ratio(lazy, 'ccImm', 'core'),
				'≥ 0.9x',
				ratio(lazy, 'ccImm', 'core') >= 0.9,
			),
			target(
				'Lazy isolates: write back (respond afterSuccess) / core Webhook',
				ratio(lazy, 'ccAfter', 'core'),
				'≥ 0.9x',
				ratio(lazy, 'ccAfter', 'core') >= 0.9,
			),
			target(
				'Lazy isolates: lookup round trip p50, Contact Center lookup / core-nodes lookup',
				rtt('ccLookup', 'p50'),
				'≤ 1.2x',
				rtt('ccLookup', 'p50') <= 1.2,
			),
			target(
				'Lazy isolates: lookup round trip p99, Contact Center lookup / core-nodes lookup',
				rtt('ccLookup', 'p99'),
				'≤ 1.2x',
				rtt('ccLookup', 'p99') <= 1.2,
			),
		];
		for (const e of engines) {
			for (const t of THROUGHPUT_TARGETS) {
				const s = e.throughput[t];
				figures.push({
					name: `${e.setting}: ${TARGETS[t].label}`,
					value: `${fmt(s.rps)} req/s (rounds ${s.rounds.map((r) => fmt(r, 0)).join(', ')}; p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms; statuses ${JSON.stringify(s.statuses)}${s.badAnswers ? `; ${s.badAnswers} wrong answers` : ''})`,
				});
			}
			for (const t of RTT_TARGETS) {
				const s = e.rtt[t]!;
				figures.push({
					name: `${e.setting}: ${TARGETS[t].label}, one at a time`,
					value: `p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms (statuses ${JSON.stringify(s.statuses)}${s.badAnswers ? `; ${s.badAnswers} wrong answers` : ''})`,
				});
			}
		}
		figures.push(
			{
				name: `Redeliveries (one at a time) of ${REDELIVERIES} write backs accepted (afterSuccess) with ${CONCURRENCY} in flight, the first and last ${REDELIVERIES / 2}`,
				value: JSON.stringify(defaults.redeliveries),
			},
			{
				name: 'The same redeliveries after the restart (lazy isolates)',
				value: JSON.stringify(lazy.redeliveries),
			},
		);

		recordSection({
			id: 'webhook',
			title: 'Webhook throughput and lookup round trip in the same real n8n',
			command: `flock /tmp/e2e.lock ${SCALE === 1 ? '' : `env BENCH_WEBHOOK_SCALE=${SCALE} `}npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/webhookThroughput.bench.ts`,
			method: `One n8n ${n8nVersion}, SQLite, executions saved, this package installed as a community package together with the minimal community trigger fixture (bench/fixtures/minimal-trigger: plain JS nodes whose webhook() returns the parsed body; lookup variants answered by the last node or by Respond to Lookup). ${THROUGHPUT_TARGETS.length} active workflows in the same n8n, each measured with undici (${CONCURRENCY} requests in flight): ${WARM_UP} warm-up requests each, then ${THROUGHPUT_REQUESTS} per workflow in ${ROUNDS} rounds with the order rotated; req/s = median over the rounds. The Contact Center Trigger's write backs record into a data table through this n8n's public API. Write back targets and the core/minimal triggers get the same signed write back bodies with distinct idempotency keys; lookups get a signed \`{"email": …}\` that finds a customer. Then the three lookups one request at a time, ${RTT_REQUESTS} each in ${ROUNDS} rotated rounds (p50/p99 over all). The whole comparison twice: n8n's default expression engine settings, then restarted with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. Compare within a column.`,
			table,
			figures,
			n8nVersion,
			raw: { scale: SCALE, defaults, lazy },
		});
		passed = true;
	});
});
