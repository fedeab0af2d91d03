/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n and the simulator, untyped */
/**
 * End to end, in one real n8n process (2.41.1, SQLite, the packed package): "once" when
 * n8n's public API, the record's store, stumbles. A fault proxy (fault-proxy.js) stands between
 * the record credential and this n8n's `/api/v1` and injects faults into the record's calls only:
 * 429 with `Retry-After: 1`, 500s, connection resets, an outage, added latency. One n8n boot for
 * the whole file; the tests run in order.
 *
 * 1. Write back (respond after the workflow succeeds; the queue-mode suite's
 *    fixture, whose workflow inserts one row per run into a data table of its own, the downstream
 *    effect counted per idempotency key). Per fault pattern 24 distinct write backs, 6 in flight,
 *    each delivered again after every non-2xx answer (or none) on the service's schedule (after 1,
 *    2, 4, 8, 16 and 32 hours, the hour scaled down to HOUR_MS), until 2xx. Measured: events run
 *    twice, accepted at their first delivery, lost (answered 2xx, never run).
 * 2. Send Once (the Contact Center node's Send, Send Once default, Continue On Fail), a 30-contact
 *    campaign started by a webhook against the simulator, with record faults, then run again
 *    with the API healthy: every contact messaged exactly once, and every output item's outcome
 *    true to what the simulator received.
 * 3. A switched key: the record credential's key replaced by a Member user's key while n8n runs;
 *    the next runs work, with the Member's key, without a restart. The switch comes first and its
 *    last run comes last, so that it also runs past the minute for which a process reuses a
 *    record credential it has read (CREDENTIAL_REUSE_MS in nodes/shared/recordApi/client.ts).
 *
 * The figures are printed as tables at the end (also when a test fails).
 */
import { randomUUID } from 'node:crypto';

import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as faultProxyModule from './fault-proxy';
import * as helpersModule from './helpers';
import * as queueHelpersModule from './queue-helpers';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;
const { startFaultProxy }: Json = faultProxyModule;
const {
	createMemberWithKey,
	freshStateDir,
	readFixture,
	report,
	waitFor,
	writeBackPayload: writeBack,
}: Json = helpersModule;
const { postSignedWithin }: Json = queueHelpersModule;

const log = (line: string) => report(`[e2e record faults] ${line}`);

/** The service's hour, scaled down: its retries come 2, 4, 8, 16, 32 and 64 s after a non-2xx. */
const HOUR_MS = 2000;
const RETRY_AFTER_HOURS = [1, 2, 4, 8, 16, 32];
const KEYS_PER_PATTERN = 24;
const IN_FLIGHT = 6;
/** How long the workflow's CRM write takes (the fixture's `slowMs`), so that runs overlap. */
const CRM_WRITE_MS = 300;
const CAMPAIGN_CONTACTS = 30;

/** Write back; its workflow inserts one row per run into WRITES_TABLE. */
const WRITE_BACK = readFixture('write-back-slow.json');
const WRITES_TABLE = helpersModule.SLOW_WRITE_BACK_TABLE;
const CAMPAIGN = readFixture('send-campaign.json');
const SEND_NODE = 'Send campaign';

const rateLimited = { every: 3, status: 429, retryAfter: 1 };
const errorsAndResets = [
	{ every: 7, reset: true },
	{ every: 4, status: 500 },
];

interface Pattern {
	name: string;
	/** Short name, in the keys. */
	id: string;
	faults: Json;
	/** The API down for this long once half of the keys had their first answer. */
	outageMs?: number;
	/** At least this many of the 24 accepted at their first delivery. */
	firstDeliveryTarget?: number;
}

const PATTERNS: Pattern[] = [
	{
		name: '429 with `Retry-After: 1` on every 3rd call',
		id: 'r429',
		faults: { rules: [rateLimited] },
		firstDeliveryTarget: Math.ceil(0.95 * KEYS_PER_PATTERN),
	},
	{
		name: '500 on every 4th call, connection reset on every 7th',
		id: 'r500',
		faults: { rules: errorsAndResets },
	},
	{
		name: 'the API down for 3 seconds (in the middle)',
		id: 'down',
		faults: {},
		outageMs: 3000,
	},
	{
		name: 'every call 700 ms slower',
		id: 'slow',
		faults: { latencyMs: 700 },
		firstDeliveryTarget: KEYS_PER_PATTERN,
	},
];

let stack: Json;
let proxy: Json;
let stateDir: string;
const instance = () => stack.instance as Json;
const sim = () => stack.simulator as Json;
let writeBackWorkflowId: string;
let writeBackUrl: string;
let campaignUrl: string;
let switchedUrl: string;
let switchedCredential: { id: string; name: string };
let member: { cookie: string; apiKey: string };
let switchedAt = 0;

const writeBackFigures: Json[] = [];
const sendOnceFigures: Json[] = [];
const switchFigures: Json[] = [];

async function createRecordCredential(name: string, apiKey: string) {
	const created = await rt.publicApi(instance(), 'POST', '/credentials', {
		name,
		type: local.CREDENTIALS.record.type,
		data: { baseUrl: `${proxy.url}/api/v1`, apiKey, dataTableName: local.RECORD_TABLE_NAME },
	});
	return { id: created.id as string, name };
}

/** The credential's key replaced through n8n's public API, as a user edits it (n8n keeps running). */
async function switchRecordKey(credential: { id: string; name: string }, apiKey: string) {
	await rt.publicApi(instance(), 'PATCH', `/credentials/${credential.id}`, {
		name: credential.name,
		type: local.CREDENTIALS.record.type,
		data: { baseUrl: `${proxy.url}/api/v1`, apiKey, dataTableName: local.RECORD_TABLE_NAME },
	});
}

/** A fixture's nodes with the record credential replaced by `record`. */
const withRecord = (nodes: Json[], record: { id: string; name: string }) =>
	nodes.map((node) =>
		node.credentials?.contactCenterRecordApi
			? { ...node, credentials: { ...node.credentials, contactCenterRecordApi: record } }
			: node,
	);

/** Creates the workflow through the public API, activates it and resolves with its webhook URL. */
async function activeWorkflow(workflow: Json): Promise<{ id: string; url: string }> {
	const created = await rt.publicApi(instance(), 'POST', '/workflows', {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings,
	});
	await rt.activateWorkflow(instance(), created.id);
	const hook = await waitFor(
		async () =>
			(await rt.registeredWebhooks(instance())).find((r: Json) => r.workflowId === created.id),
		{ what: `the webhook of ${workflow.name}` },
	);
	await rt.waitForWebhook(hook.url);
	return { id: created.id as string, url: hook.url as string };
}

/**
 * The campaign fixture (Send, Send Once default) with Continue On Fail on the Send node, this
 * record credential, and a webhook that answers with the Send node's output items once the run
 * ended (so no execution has to be looked up).
 */
function campaignWorkflow(name: string, path: string, record: { id: string; name: string }) {
	const nodes = withRecord(CAMPAIGN.nodes, record).map((node: Json) => {
		if (node.type === 'n8n-nodes-base.webhook')
			return {
				...node,
				webhookId: randomUUID(),
				parameters: {
					...node.parameters,
					path,
					responseMode: 'lastNode',
					responseData: 'allEntries',
				},
			};
		if (node.name === SEND_NODE) return { ...node, onError: 'continueRegularOutput' };
		return node;
	});
	return { ...CAMPAIGN, name, nodes };
}

/** Executions of the workflow not ended yet: enqueued (status `new`) or running. */
async function unfinishedRuns(workflowId: string): Promise<number> {
	const running = await rt.publicApi(
		instance(),
		'GET',
		`/executions?workflowId=${workflowId}&status=running&limit=250`,
	);
	const enqueued = (await rt.listExecutions(instance(), { workflowId })).filter(
		(e: Json) => e.status === 'new',
	);
	return (running.data as Json[]).length + enqueued.length;
}

/** Rows the write back workflow inserted (one per run), by idempotency key. */
async function downstreamRuns(): Promise<Map<string, number>> {
	const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
	const table = (tables.data as Json[]).find((t) => t.name === WRITES_TABLE.name);
	const runs = new Map<string, number>();
	for (let cursor: string | undefined; ; ) {
		const page = await rt.publicApi(
			instance(),
			'GET',
			`/data-tables/${table!.id}/rows?limit=250${cursor ? `&cursor=${cursor}` : ''}`,
		);
		for (const row of page.data as Json[])
			runs.set(row.idempotencyKey, (runs.get(row.idempotencyKey) ?? 0) + 1);
		if (!page.nextCursor) return runs;
		cursor = page.nextCursor;
	}
}

/** At most `n` calls of the returned function at a time; the others wait their turn in order. */
function slots(n: number) {
	let active = 0;
	const waiting: Array<() => void> = [];
	return async <T>(fn: () => Promise<T>): Promise<T> => {
		if (active < n) active++;
		else await new Promise<void>((resolve) => waiting.push(resolve));
		try {
			return await fn();
		} finally {
			const next = waiting.shift();
			if (next) next();
			else active--;
		}
	};
}

interface Answer {
	status: number;
	state?: string;
	message?: string;
	at: number;
}
const is2xx = (a: Answer) => a.status >= 200 && a.status < 300;
const label = (a: Answer) => (a.status === 0 ? 'no answer' : `${a.status} ${a.state ?? ''}`.trim());
const tally = (labels: string[]) =>
	labels.reduce<Record<string, number>>((t, l) => ({ ...t, [l]: (t[l] ?? 0) + 1 }), {});

/** One signed write back delivery; no answer within 2 minutes (or a cut connection) is status 0. */
async function deliverOnce(url: string, key: string): Promise<Answer> {
	try {
		const res = await postSignedWithin(
			url,
			writeBack(key, `conv-${key}`, { slowMs: CRM_WRITE_MS }),
			{ secret: stack.secrets.writeBack, timeoutMs: 120_000 },
		);
		return {
			status: res.status,
			state: res.json?.status,
			message: res.json?.message,
			at: Date.now(),
		};
	} catch (error) {
		return { status: 0, message: (error as Error).message, at: Date.now() };
	}
}

/**
 * What the service does with one event: delivers it, and after a non-2xx answer (or none)
 * delivers it again on its schedule, until 2xx or the schedule ends. `slot`: the deliveries in
 * flight are limited, waits between deliveries hold no slot.
 */
async function serviceDelivers(
	url: string,
	key: string,
	slot: ReturnType<typeof slots>,
	onAnswer: (answer: Answer, attempt: number) => void,
): Promise<Answer[]> {
	const answers: Answer[] = [];
	for (let attempt = 0; attempt <= RETRY_AFTER_HOURS.length; attempt++) {
		if (attempt > 0) await rt.sleep(RETRY_AFTER_HOURS[attempt - 1] * HOUR_MS);
		const answer = await slot(async () => await deliverOnce(url, key));
		answers.push(answer);
		onAnswer(answer, attempt);
		if (is2xx(answer)) break;
	}
	return answers;
}

async function measureWriteBacks(pattern: Pattern): Promise<Json> {
	await waitFor(async () => (await unfinishedRuns(writeBackWorkflowId)) === 0, {
		what: 'the earlier write back runs to end',
	});
	const stamp = Date.now();
	const keys = Array.from(
		{ length: KEYS_PER_PATTERN },
		(_, i) => `faults-${pattern.id}-${stamp}-${i}`,
	);
	const slot = slots(IN_FLIGHT);
	let firstAnswers = 0;
	let outage: Promise<void> | undefined;
	proxy.resetStats();
	proxy.setFaults(pattern.faults);
	const started = Date.now();
	const answersByKey = await Promise.all(
		keys.map(
			async (key) =>
				await serviceDelivers(writeBackUrl, key, slot, (_answer, attempt) => {
					if (attempt > 0) return;
					firstAnswers++;
					if (pattern.outageMs && firstAnswers === KEYS_PER_PATTERN / 2) {
						log(`${pattern.id}: the API down for ${pattern.outageMs} ms from now`);
						outage = proxy.outage(pattern.outageMs);
					}
				}),
		),
	);
	await outage;
	const lastAcceptedMs =
		Math.max(
			...answersByKey
				.flat()
				.filter(is2xx)
				.map((a) => a.at),
		) - started;
	proxy.clearFaults();
	const proxyStats = JSON.parse(JSON.stringify(proxy.stats));
	await waitFor(async () => (await unfinishedRuns(writeBackWorkflowId)) === 0, {
		what: `the runs of pattern ${pattern.id} to end`,
		timeoutMs: 120_000,
	});
	const runs = await downstreamRuns();
	const runsOf = (key: string) => runs.get(key) ?? 0;
	const accepted = (i: number) => answersByKey[i].some(is2xx);
	const figures = {
		pattern: pattern.name,
		id: pattern.id,
		keys: KEYS_PER_PATTERN,
		runTwice: keys.filter((key) => runsOf(key) > 1).map((key) => `${key}: ${runsOf(key)} runs`),
		acceptedAtFirstDelivery: keys.filter((_, i) => is2xx(answersByKey[i][0])).length,
		lost: keys.filter((key, i) => accepted(i) && runsOf(key) === 0),
		neverAccepted: keys.filter((_, i) => !accepted(i)),
		firstAnswers: tally(answersByKey.map((answers) => label(answers[0]))),
		allAnswers: tally(answersByKey.flat().map(label)),
		deliveries: answersByKey.flat().length,
		lastAcceptedAfterS: Math.round(lastAcceptedMs / 100) / 10,
		errorMessages: [
			...new Set(
				answersByKey
					.flat()
					.filter((a) => !is2xx(a) && a.message)
					.map((a) => `${a.status}: ${a.message!.slice(0, 240)}`),
			),
		].slice(0, 4),
		recordCalls: proxyStats.calls,
		faults: {
			...proxyStats.faults,
			...(proxyStats.outages ? { cutByOutage: proxyStats.cutByOutage } : {}),
		},
	};
	writeBackFigures.push(figures);
	log(`${pattern.id}: ${JSON.stringify(figures)}`);
	return figures;
}

// ---- Send Once ------------------------------------------------------------------------------

let campaigns = 0;
function newCampaign(count: number) {
	campaigns += 1;
	return {
		campaign: `faults-${Date.now()}-${campaigns}`,
		prefix: String(40 + campaigns),
		count,
		rate: 1000,
		period: 60,
	};
}
type Campaign = ReturnType<typeof newCampaign>;
const phonesOf = (c: Campaign) =>
	Array.from({ length: c.count }, (_, i) => `+3161${c.prefix}${String(i).padStart(4, '0')}`);

/** Correlation ids of the messages the simulator accepted for the campaign, by contact. */
function receivedByContact(c: Campaign): Map<string, string[]> {
	const received = new Map<string, string[]>();
	for (const m of sim().messages as Json[]) {
		if (m.body?.metadata?.campaign !== c.campaign) continue;
		received.set(m.body.contact, [...(received.get(m.body.contact) ?? []), m.correlationId]);
	}
	return received;
}

/** Starts the campaign through its webhook; resolves with the Send node's output items. */
async function runCampaign(url: string, c: Campaign): Promise<Json[]> {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(c),
	});
	const text = await res.text();
	if (res.status !== 200) throw new Error(`the campaign's webhook answered ${res.status}: ${text}`);
	const items = JSON.parse(text);
	return Array.isArray(items) ? items : [items];
}

/**
 * A campaign run and what its output says against what the simulator received: every item's
 * outcome must be true. `accepted`: the simulator got this message in this run, with this
 * correlation id. `already accepted`: it got it before this run. `not sent`: it did not get it in
 * this run. `may have been sent`: it got it (in this run or before). Resolves with the items, the
 * untrue ones and the counts.
 */
async function campaignRun(url: string, c: Campaign) {
	const before = receivedByContact(c);
	const items = await runCampaign(url, c);
	const after = receivedByContact(c);
	const untrue: Json[] = [];
	for (const item of items) {
		const earlier = before.get(item.contact) ?? [];
		const now = (after.get(item.contact) ?? []).slice(earlier.length);
		const truthful =
			item.outcome === 'accepted'
				? now.length === 1 && now[0] === item.correlationId
				: item.outcome === 'already accepted'
					? earlier.length > 0 && (!item.correlationId || earlier.includes(item.correlationId))
					: item.outcome === 'not sent'
						? now.length === 0
						: item.outcome === 'may have been sent'
							? earlier.length + now.length > 0
							: false;
		if (!truthful)
			untrue.push({
				contact: item.contact,
				outcome: item.outcome,
				receivedBefore: earlier.length,
				receivedInRun: now.length,
				...(item.error ? { error: String(item.error).slice(0, 200) } : {}),
			});
	}
	const sentInRun = [...after.values()].flat().length - [...before.values()].flat().length;
	return { items, untrue, sentInRun, outcomes: tally(items.map((i) => String(i.outcome))) };
}

/** The contacts of the campaign not messaged exactly once, with how often they were. */
function notExactlyOnce(c: Campaign) {
	const received = receivedByContact(c);
	return phonesOf(c)
		.filter((phone) => (received.get(phone) ?? []).length !== 1)
		.map((phone) => `${phone}: ${(received.get(phone) ?? []).length}`);
}

/** The record calls (proxy log entries) made while `fn` ran. */
async function recordCallsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; calls: Json[] }> {
	const from = proxy.log.length;
	const result = await fn();
	return { result, calls: proxy.log.slice(from) };
}

const keyNameOf = (apiKey: string | undefined) =>
	apiKey === instance().apiKey ? 'owner' : apiKey === member?.apiKey ? 'member' : 'other';

// ---- the suite ------------------------------------------------------------------------------

beforeAll(async () => {
	stateDir = freshStateDir();
	stack = await local.startStack({ userFolder: stateDir, n8nPort: 0, simulatorPort: 0, log });
	proxy = await startFaultProxy({ target: instance().baseUrl });
	log(`fault proxy ${proxy.url} in front of n8n ${instance().baseUrl}`);
	await local.ensureDataTable(instance(), WRITES_TABLE);
	const record = await createRecordCredential(
		'Contact Center record (through the fault proxy)',
		instance().apiKey,
	);
	switchedCredential = await createRecordCredential(
		'Contact Center record (key switched)',
		instance().apiKey,
	);
	const writeBackWorkflow = await activeWorkflow({
		...WRITE_BACK,
		name: 'e2e: write back through the fault proxy',
		nodes: withRecord(WRITE_BACK.nodes, record),
	});
	writeBackWorkflowId = writeBackWorkflow.id;
	writeBackUrl = writeBackWorkflow.url;
	campaignUrl = (
		await activeWorkflow(
			campaignWorkflow('e2e: campaign through the fault proxy', 'e2e-faults-campaign', record),
		)
	).url;
	switchedUrl = (
		await activeWorkflow(
			campaignWorkflow(
				'e2e: campaign whose record key is switched',
				'e2e-faults-switched',
				switchedCredential,
			),
		)
	).url;
	// The campaigns here are not about the service's rate limit.
	sim().options.sendRateLimit = { limit: 10_000, windowMs: 60_000 };
}, 900_000);

afterAll(async () => {
	const counts = (table: Record<string, number>) =>
		Object.entries(table)
			.map(([what, n]) => `${n} ${what}`)
			.join(', ');
	const row = (cells: unknown[]) => `| ${cells.join(' | ')} |`;
	const lines: string[] = [];
	if (writeBackFigures.length > 0) {
		lines.push(
			`Write back (respond after success), one n8n ${rt.N8N_VERSION} process, ${KEYS_PER_PATTERN} distinct write backs per pattern, ${IN_FLIGHT} in flight, redelivered after a non-2xx on the service's schedule (1 hour = ${HOUR_MS / 1000} s):`,
			'',
			"| Fault in the record's calls | Events run twice | Accepted at their first delivery | Lost | First answers | Deliveries | Last 2xx after | Record calls (faults) |",
			'|---|---|---|---|---|---|---|---|',
			...writeBackFigures.map((f) =>
				row([
					f.pattern,
					`${f.runTwice.length} of ${f.keys}`,
					`${f.acceptedAtFirstDelivery} of ${f.keys}`,
					f.lost.length,
					counts(f.firstAnswers),
					f.deliveries,
					`${f.lastAcceptedAfterS} s`,
					`${f.recordCalls} (${counts(f.faults) || 'none'})`,
				]),
			),
			'',
		);
	}
	if (sendOnceFigures.length > 0) {
		lines.push(
			`Send Once (default), a ${CAMPAIGN_CONTACTS}-contact campaign, Continue On Fail, run with the record's faults, then again with the API healthy:`,
			'',
			"| Fault in the record's calls | Run 1: outcomes (messages sent) | Run 2, API healthy: outcomes (messages sent) | Contacts not messaged exactly once | Untrue outcomes |",
			'|---|---|---|---|---|',
			...sendOnceFigures.map(
				(f) =>
					`| ${f.pattern} | ${JSON.stringify(f.run1.outcomes)} (${f.run1.sentInRun}) | ${JSON.stringify(f.run2.outcomes)} (${f.run2.sentInRun}) | ${f.notExactlyOnce.length} | ${f.untrue} |`,
			),
			'',
		);
	}
	if (switchFigures.length > 0)
		lines.push('Switched key:', ...switchFigures.map((f) => `- ${JSON.stringify(f)}`), '');
	// eslint-disable-next-line no-console -- the figures, for the README
	if (lines.length > 0) console.log(lines.join('\n'));
	if (proxy) await proxy.close();
	if (stack) await stack.stop();
	if (stateDir)
		log(`n8n's user folder and log stay for inspection until the next run: ${stateDir}`);
}, 120_000);

describe("the record through a faulty n8n API (one n8n process, a fault proxy in front of n8n's public API)", () => {
	test("3 (first half). switched key: Send Once works with the owner's key; the credential switched to a Member user's key (n8n keeps running), the next run works", async () => {
		const before = newCampaign(3);
		const { result: owner, calls: ownerCalls } = await recordCallsDuring(
			async () => await campaignRun(switchedUrl, before),
		);
		member = await createMemberWithKey(instance(), { email: 'record-faults@example.com' });
		await switchRecordKey(switchedCredential, member.apiKey);
		switchedAt = Date.now();
		const after = newCampaign(3);
		const { result: next, calls: nextCalls } = await recordCallsDuring(
			async () => await campaignRun(switchedUrl, after),
		);
		const figures = {
			run: 'owner key, then the next run right after the switch',
			owner: owner.outcomes,
			ownerKeys: tally(ownerCalls.map((c) => keyNameOf(c.apiKey))),
			next: next.outcomes,
			nextKeys: tally(nextCalls.map((c) => keyNameOf(c.apiKey))),
			nextStatuses: tally(nextCalls.map((c) => String(c.status ?? c.fault))),
			nextErrors: [...new Set(next.items.map((i) => i.error).filter(Boolean))],
		};
		switchFigures.push(figures);
		log(`switched key: ${JSON.stringify(figures)}`);
		expect(owner.items.map((i) => i.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
		expect(ownerCalls.every((c) => keyNameOf(c.apiKey) === 'owner')).toBe(true);
		expect(next.items.map((i) => [i.outcome, i.error])).toEqual(
			Array(3).fill(['accepted', undefined]),
		);
		expect(nextCalls.filter((c) => c.status === 403 || c.status === 401)).toEqual([]);
		expect(notExactlyOnce(before)).toEqual([]);
		expect(notExactlyOnce(after)).toEqual([]);
	});

	test('1. write back: a warm-up with the API healthy (the process learns that its runs stay in it)', async () => {
		const answers: string[] = [];
		for (let i = 0; i < 3; i++)
			answers.push(label(await deliverOnce(writeBackUrl, `faults-warm-up-${Date.now()}-${i}`)));
		expect(answers).toEqual(Array(3).fill('200 processed'));
		const loaded = await waitFor(
			async () => rt.readLog(instance()).includes("loaded into this process's index"),
			{ what: 'the index of the record', timeoutMs: 15_000 },
		).catch(() => false);
		log(`warm-up: ${JSON.stringify(answers)}; the index of the record loaded: ${loaded}`);
	});

	for (const pattern of PATTERNS) {
		test(`1. write back, ${pattern.name}: 0 events run twice, 0 lost${pattern.firstDeliveryTarget ? `, at least ${pattern.firstDeliveryTarget} of ${KEYS_PER_PATTERN} accepted at their first delivery` : ''}`, async () => {
			const f = await measureWriteBacks(pattern);
			const target = pattern.firstDeliveryTarget;
			expect({
				runTwice: f.runTwice,
				lost: f.lost,
				neverAccepted: f.neverAccepted,
				firstDelivery:
					target === undefined || f.acceptedAtFirstDelivery >= target
						? 'on target'
						: `${f.acceptedAtFirstDelivery} of ${KEYS_PER_PATTERN} (target ${target}); first answers ${JSON.stringify(f.firstAnswers)}; ${f.errorMessages.join(' | ')}`,
			}).toEqual({ runTwice: [], lost: [], neverAccepted: [], firstDelivery: 'on target' });
		});
	}

	for (const [name, faults] of [
		['429 with `Retry-After: 1` on every 3rd call', { rules: [rateLimited] }],
		['500 on every 4th call, connection reset on every 7th', { rules: errorsAndResets }],
	] as const) {
		test(`2. Send Once, ${name}, then run again with the API healthy: every contact messaged exactly once, every outcome true`, async () => {
			const c = newCampaign(CAMPAIGN_CONTACTS);
			proxy.resetStats();
			proxy.setFaults(faults);
			const run1 = await campaignRun(campaignUrl, c).finally(() => proxy.clearFaults());
			const proxyStats = JSON.parse(JSON.stringify(proxy.stats));
			const run2 = await campaignRun(campaignUrl, c);
			const figures = {
				pattern: name,
				run1: { outcomes: run1.outcomes, sentInRun: run1.sentInRun },
				run2: { outcomes: run2.outcomes, sentInRun: run2.sentInRun },
				notExactlyOnce: notExactlyOnce(c),
				untrue: run1.untrue.length + run2.untrue.length,
				recordCalls: proxyStats.calls,
				faults: proxyStats.faults,
				errors: [
					...new Set(
						[...run1.items, ...run2.items]
							.filter((i) => i.error)
							.map(
								(i) =>
									`${i.outcome}: ${String(i.error).slice(0, 200)} / ${String(i.errorDescription ?? '').slice(0, 200)}`,
							),
					),
				].slice(0, 4),
				notes: [
					...new Set([...run1.items, ...run2.items].map((i) => i.note).filter(Boolean)),
				].slice(0, 2),
			};
			sendOnceFigures.push(figures);
			log(`Send Once, ${name}: ${JSON.stringify(figures)}`);
			expect({
				items: [run1.items.length, run2.items.length],
				notExactlyOnce: figures.notExactlyOnce,
				untrue: [...run1.untrue, ...run2.untrue],
			}).toEqual({ items: [CAMPAIGN_CONTACTS, CAMPAIGN_CONTACTS], notExactlyOnce: [], untrue: [] });
		});
	}

	test("3 (second half). switched key: past the minute a process reuses a record credential it read, a run works with the Member's key (no 401 or 403), without a restart", async () => {
		expect(switchedAt).toBeGreaterThan(0);
		await rt.sleep(Math.max(0, switchedAt + 61_000 - Date.now()));
		const c = newCampaign(3);
		const { result: run, calls } = await recordCallsDuring(
			async () => await campaignRun(switchedUrl, c),
		);
		const figures = {
			run: `${Math.round((Date.now() - switchedAt) / 1000)} s after the switch`,
			outcomes: run.outcomes,
			keys: tally(calls.map((call) => keyNameOf(call.apiKey))),
			statuses: tally(calls.map((call) => String(call.status ?? call.fault))),
			errors: [...new Set(run.items.map((i) => i.error).filter(Boolean))],
		};
		switchFigures.push(figures);
		log(`switched key: ${JSON.stringify(figures)}`);
		expect(run.items.map((i) => [i.outcome, i.error])).toEqual(
			Array(3).fill(['accepted', undefined]),
		);
		expect(notExactlyOnce(c)).toEqual([]);
		expect(calls.filter((call) => call.status === 403 || call.status === 401)).toEqual([]);
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.every((call) => keyNameOf(call.apiKey) === 'member')).toBe(true);
	});
});
