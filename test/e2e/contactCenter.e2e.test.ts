/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n and the simulator, untyped */
/**
 * End to end: the packed package installed into a real n8n (2.41.1, or CONTACT_CENTER_N8N_VERSION: `npm run test:e2e:oldest` runs 2.36.8) on Node 24, the way users install
 * community nodes, the example workflows imported with n8n's CLI, the trigger workflows activated,
 * the action workflows executed with `n8n execute`, and the service played by the project's
 * simulator over HTTP. Nothing is mocked in between. One n8n serves the whole file; the tests run
 * in order and some build on the state left by the previous ones (the token count).
 */
import {
	writeBackAnswer as answerFor,
	type WriteBackStatus,
} from '../../nodes/ContactCenterTrigger/answers';
import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as metricsModule from '../simulator/metrics';
import * as helpersModule from './helpers';

// The orchestration is plain JavaScript (it spawns processes); the suite uses it untyped.
type Json = Record<string, any>;
type Stack = Json;
type Execution = Json;
const rt: Json = runtimeModule;
const local: Json = localModule;
const { evaluateMetric, METRIC_ENDPOINTS }: Json = metricsModule;
const {
	freshStateDir,
	postSigned,
	triggerReportOf,
	npmRunCall,
	readFixture,
	report,
	waitFor,
	writeBackPayload: writeBack,
}: Json = helpersModule;

const TOKEN_PROBE = readFixture('token-probe.json');
const SEND_WAIT_FOR_FINAL_STATUS = readFixture('send-wait-for-final-status.json');
/** The JSON body of every write back answer. */
const writeBackAnswer = (status: WriteBackStatus, key: string) => answerFor(status, key).body;
const FAILING_WRITE_BACK = readFixture('write-back-fails-on-demand.json');
/** The record's scope of example 4's trigger (its webhook id). */
const EXAMPLE_WRITE_BACK_SCOPE = 'writeBack:5d0c4c3e-7b61-4c1f-9a57-2f2b4b0e0a04';
/** Production URLs of the fixture trigger workflows, by workflow id. */
const fixtureHooks: Record<string, string> = {};

let stack: Stack;
let stateDir: string;

const sim = () => stack.simulator as Json;
const instance = () => stack.instance as Json;
const workflowId = (endpointOrFile: string) => {
	const wf = stack.workflows.find(
		(w: Json) => w.endpoint === endpointOrFile || w.file.startsWith(endpointOrFile),
	);
	if (!wf) throw new Error(`no example workflow ${endpointOrFile}`);
	return wf.id as string;
};
const webhook = (endpoint: string) => {
	const hook = stack.webhooks.find((w: Json) => w.endpoint === endpoint);
	if (!hook)
		throw new Error(
			`no active webhook for ${endpoint}; registered: ${JSON.stringify(stack.webhooks)}`,
		);
	return hook.url as string;
};
const secret = (endpoint: 'lookup' | 'writeBack' | 'notification') =>
	stack.secrets[endpoint] as string;

async function execute(id: string): Promise<Execution> {
	const result = await rt.executeWorkflow(instance(), id);
	if (result.crashedOnExit)
		report(
			`[e2e] n8n execute of ${id} ended by ${result.crashedOnExit} after it printed the finished run`,
		);
	if (!result.ok) {
		throw new Error(
			`workflow ${id} failed in n8n (exit ${result.code}):\n${JSON.stringify(result.run?.data?.resultData?.error ?? null, null, 2)}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
		);
	}
	return result;
}

/** Simulator requests logged while `fn` runs. */
async function recording<T>(fn: () => Promise<T>): Promise<{ result: T; requests: Json[] }> {
	const before = sim().requests.length;
	const result = await fn();
	return { result, requests: sim().requests.slice(before) };
}

const executionsOf = async (id: string, includeData = false): Promise<Json[]> =>
	await rt.listExecutions(instance(), { workflowId: id, includeData });

/** Running executions of the workflow, which the public API lists only when asked for `status=running`. */
const runningExecutionsOf = async (workflowId: string, includeData = false): Promise<Json[]> =>
	(
		await rt.publicApi(
			instance(),
			'GET',
			`/executions?workflowId=${workflowId}&status=running&limit=250&includeData=${includeData}`,
		)
	).data as Json[];

/** Executions of the workflow not ended yet: enqueued (status `new`) or running. */
async function unfinishedRuns(workflowId: string): Promise<number> {
	const enqueued = (await executionsOf(workflowId)).filter((e) => e.status === 'new');
	return (await runningExecutionsOf(workflowId)).length + enqueued.length;
}

/**
 * One signed write back delivery; its answer as "status state" (`200 processed`), or `no answer`
 * when the connection died (n8n killed). `data`: merged into the payload's data (e.g. `slowMs`).
 */
async function answerOfWriteBack(url: string, key: string, data: Json = {}): Promise<string> {
	try {
		const res = await postSigned(url, writeBack(key, `conv-${key}`, data), {
			secret: secret('writeBack'),
		});
		return `${res.status} ${res.json?.status ?? ''}`.trim();
	} catch {
		return 'no answer';
	}
}

/** Waits until n8n serves the webhook; fails saying how long it waited when n8n does not. */
async function expectWebhookRegistered(url: string): Promise<void> {
	const startedAt = Date.now();
	const registered = await rt.waitForWebhook(url, { timeoutMs: 60_000 });
	expect({ url, registered, waitedMs: registered ? 'in time' : Date.now() - startedAt }).toEqual({
		url,
		registered: true,
		waitedMs: 'in time',
	});
}

/**
 * Stops n8n (SIGKILL with `kill`), sets or removes (`undefined`) its environment variables in
 * `env`, starts it again and waits for the webhook at `url`.
 */
async function restartN8n(
	url: string,
	env: Record<string, string | undefined>,
	{ kill = false } = {},
): Promise<void> {
	await (kill ? rt.killServer(instance()) : rt.stopServer(instance()));
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined) delete instance().env[name];
		else instance().env[name] = value;
	}
	await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
	await expectWebhookRegistered(url);
}

/** The JSON the trigger node emitted in an execution read with includeData. */
const triggerOutput = (execution: Json, nodeName: string): Json | undefined =>
	execution.data?.resultData?.runData?.[nodeName]?.[0]?.data?.main?.[0]?.[0]?.json;

/** The snapshot's column of each metric endpoint: its unit in its name (spec 4.5). */
const SNAPSHOT_COLUMNS: Record<string, string> = {
	'/reporting-metrics/inbound-message-volume': 'inboundMessages',
	'/reporting-metrics/outbound-message-volume': 'outboundMessages',
	'/reporting-metrics/first-response-time': 'firstResponseTimeSeconds',
	'/reporting-metrics/resolved-with-one-reply': 'resolvedWithOneReplyMessages',
	'/reporting-metrics/handle-time': 'handleTimeSeconds',
	'/reporting-metrics/agent-availability': 'agents',
	'/queue-metrics/contacts-waiting': 'contactsWaiting',
	'/queue-metrics/longest-wait-time': 'longestWaitTimeSeconds',
};

beforeAll(async () => {
	stateDir = freshStateDir();
	stack = await local
		.startStack({
			userFolder: stateDir,
			n8nPort: 0,
			simulatorPort: 0,
			extraWorkflows: [TOKEN_PROBE, FAILING_WRITE_BACK, SEND_WAIT_FOR_FINAL_STATUS],
			log: (line: string) => report(`[e2e] ${line}`),
		})
		.catch((error: Error) => {
			report(`[e2e] could not start the stack: ${error.message}`);
			throw error;
		});
	for (const fixture of [FAILING_WRITE_BACK]) {
		await rt.activateWorkflow(instance(), fixture.id);
		const hook = await waitFor(
			async () =>
				(await rt.registeredWebhooks(instance())).find((r: Json) => r.workflowId === fixture.id),
			{ what: `the webhook of ${fixture.id}` },
		);
		await rt.waitForWebhook(hook.url);
		fixtureHooks[fixture.id] = hook.url;
	}
	const settings = await rt.restCall(instance(), 'GET', '/settings', { cookie: instance().cookie });
	report(
		`[e2e] n8n under test: ${settings.json?.data?.versionCli ?? '?'} (package.json of the runtime: ${instance().runtime.version}), Node ${await nodeVersion()}, user folder ${stateDir}`,
	);
}, 900_000);

async function nodeVersion(): Promise<string> {
	const { stdout } = await rt.run(instance().runtime.nodeBin, ['--version']);
	return stdout.trim();
}

afterAll(async () => {
	if (stack) await stack.stop();
	if (stateDir)
		report(`[e2e] n8n's user folder and log stay for inspection until the next run: ${stateDir}`);
}, 120_000);

describe('the package in n8n', () => {
	test(`n8n ${rt.N8N_VERSION} (the version under test) runs and knows both node types under the community package name`, async () => {
		const settings = await rt.restCall(instance(), 'GET', '/settings', {
			cookie: instance().cookie,
		});
		expect(settings.json.data.versionCli).toBe(rt.N8N_VERSION);
		expect(rt.packageLoadError(instance())).toBeUndefined();
		const res = await fetch(`${instance().baseUrl}/types/nodes.json`, {
			headers: { cookie: instance().cookie, 'browser-id': rt.BROWSER_ID },
		});
		expect(res.status).toBe(200);
		const names = ((await res.json()) as Json[]).map((t) => t.name);
		expect(names).toEqual(
			expect.arrayContaining([
				'n8n-nodes-contact-center.contactCenter',
				'n8n-nodes-contact-center.contactCenterTrigger',
			]),
		);
	});

	test('the example workflows are imported and the three trigger workflows are active with a webhook each', async () => {
		const list = await rt.publicApi(instance(), 'GET', '/workflows?limit=100');
		const byId = new Map((list.data as Json[]).map((w) => [w.id, w]));
		for (const wf of stack.workflows as Json[]) {
			expect(byId.get(wf.id)?.name).toBe(wf.name);
			expect(Boolean(byId.get(wf.id)?.active)).toBe(wf.trigger);
		}
		expect(stack.webhooks.map((w: Json) => w.endpoint).sort()).toEqual([
			'lookup',
			'notification',
			'writeBack',
		]);
		for (const hook of stack.webhooks as Json[]) expect(hook.method).toBe('POST');
	});
});

describe('token lifecycle (OAuth2 client credentials through n8n)', () => {
	test('a series of executions makes exactly one token request', async () => {
		expect(sim().counters.tokenRequests).toBe(0);
		const { requests } = await recording(async () => {
			for (let i = 0; i < 3; i++) {
				const run = await execute(TOKEN_PROBE.id);
				expect(run.output('Agents available')).toEqual([
					expect.objectContaining({ metric: expect.anything(), value: expect.any(Number) }),
				]);
			}
		});
		expect(sim().counters.tokenRequests).toBe(1);
		expect(sim().counters.tokensIssued).toBe(1);
		const metricCalls = requests.filter((r) =>
			r.path.startsWith('/reporting-metrics/agent-availability'),
		);
		expect(metricCalls).toHaveLength(3);
		const bearers = new Set(metricCalls.map((r) => r.headers.authorization));
		expect(bearers.size).toBe(1);
		expect([...bearers][0]).toMatch(/^Bearer \S+$/);
		expect(metricCalls.every((r) => r.status === 200)).toBe(true);
	});
});

describe('action workflows executed by n8n', () => {
	test('example 1: the metrics snapshot row, exactly what the service answered, reaches the (locally disabled) Google Sheets node', async () => {
		const id = workflowId('1-');
		const { result: run, requests } = await recording(() => execute(id));
		const [row]: Json[] = run.output('Get metrics snapshot');
		const metricPaths = Object.keys(METRIC_ENDPOINTS);
		expect(requests.map((r) => r.path).sort()).toEqual([...metricPaths].sort());
		for (const request of requests) {
			expect(request.status).toBe(200);
			expect(request.headers.authorization).toMatch(/^Bearer /);
			const expected = evaluateMetric(request.path, new URLSearchParams(request.query), request.at)
				.body.dataPoint.value;
			const column = SNAPSHOT_COLUMNS[request.path];
			expect({ column, value: row[column] }).toEqual({ column, value: expected });
		}
		// The window, its zone in the names, and the statuses that decide what agents and the queue count.
		expect(Object.keys(row)).toHaveLength(3 + metricPaths.length + 2);
		expect(row).toMatchObject({ userPresenceStatus: 'available', queueConversationStatus: 'new' });
		// fromUtc, toUtc and retrievedAtUtc in UTC; toUtc is the end the reporting metrics were asked for.
		const utc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
		for (const field of ['fromUtc', 'toUtc', 'retrievedAtUtc']) expect(row[field]).toMatch(utc);
		const windowed = requests.filter((r) => new URLSearchParams(r.query).has('to'));
		expect(windowed.map((r) => r.path).sort()).toEqual(
			metricPaths.filter((p) => 'to' in METRIC_ENDPOINTS[p]).sort(),
		);
		for (const request of windowed) {
			const query = new URLSearchParams(request.query);
			expect(new Date(Date.parse(query.get('to')!)).toISOString()).toBe(row.toUtc);
			expect(new Date(Date.parse(query.get('from')!)).toISOString()).toBe(row.fromUtc);
		}
		expect(Date.parse(row.fromUtc)).toBeLessThan(Date.parse(row.toUtc));
		expect(Date.parse(row.toUtc)).toBeLessThanOrEqual(Date.parse(row.retrievedAtUtc));
		// Disabled in the local run: n8n passes the row through, unchanged, to where Sheets would append it.
		expect(run.output('Append row to sheet')).toEqual([row]);
	});

	test('example 2: bulk send, wait, status counts with contacts, and every contact that did not get the message', async () => {
		const id = workflowId('2-');
		const { result: run, requests } = await recording(() => execute(id));
		const recipients: Json[] = run.output('Contacts to remind');
		const sent: Json[] = run.output('Send reminders');
		expect(sent).toHaveLength(recipients.length);
		expect(sent.map((s) => s.contact)).toEqual(recipients.map((r) => r.phone));
		expect(sent.every((s) => typeof s.correlationId === 'string' && s.correlationId !== '')).toBe(
			true,
		);

		const sends = requests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/proactive-messaging'),
		);
		expect(sends).toHaveLength(recipients.length);
		const stored = (sim().messages as Json[]).filter((m) =>
			sent.some((s) => s.correlationId === m.correlationId),
		);
		expect(stored).toHaveLength(recipients.length);
		for (const [i, recipient] of recipients.entries()) {
			const message = stored.find((m) => m.correlationId === sent[i].correlationId)!;
			expect(message.body).toEqual({
				medium: 'TWILIO',
				channel: 'Appointments SMS',
				contact: recipient.phone,
				text: `Hi ${recipient.firstName}, a reminder of your appointment on ${recipient.appointment}. Reply STOP to opt out.`,
				metadata: { customerId: recipient.customerId, campaign: 'appointment-reminder' },
			});
		}

		const statuses: Json[] = run.output('Get status');
		expect(statuses).toHaveLength(recipients.length);
		for (const [i, status] of statuses.entries()) {
			const message = stored.find((m) => m.correlationId === sent[i].correlationId)!;
			expect(status.correlationId).toBe(sent[i].correlationId);
			expect(status.contact).toBe(sent[i].contact);
			expect(status.total).toBe(1);
			expect(status[message.status]).toBe(1);
			expect(status.PROCESSING).toBe(0);
		}

		const notReceived: Json[] = run.output('Who did not get it') ?? [];
		const expected = stored.filter((m) => ['FAILED', 'DELIVERING_FAILED'].includes(m.status));
		expect(expected.map((m) => m.status).sort()).toEqual(['DELIVERING_FAILED', 'FAILED']);
		expect(notReceived).toEqual(
			expected.map((m) =>
				m.status === 'FAILED'
					? {
							correlationId: m.correlationId,
							contact: m.body.contact,
							status: 'FAILED',
							reason: m.reason,
							detailsFromService: true,
						}
					: {
							correlationId: m.correlationId,
							contact: m.body.contact,
							status: 'DELIVERING_FAILED',
							reason:
								'No reason given: the service gives no details for DELIVERING_FAILED messages',
							detailsFromService: false,
						},
			),
		);
	});

	test('Send with Wait for Final Status: a message SENT first that then fails delivery ends DELIVERING_FAILED, settled', async () => {
		// As a provider reports it: a message that gets delivered, or not, is SENT for 3 s first.
		sim().options.sentForMs = 3000;
		try {
			const { result: run, requests } = await recording(() =>
				execute(SEND_WAIT_FOR_FINAL_STATUS.id),
			);
			const sent: Json[] = run.output('Send and wait');
			expect(sent.map((s) => [s.contact, s.outcome, s.finalStatus, s.settled])).toEqual([
				['+31612350001', 'sent', 'DELIVERING_FAILED', true],
				['+31612355678', 'sent', 'DELIVERED', true],
				['+31612350000', 'sent', 'FAILED', true],
			]);
			expect(sent[2].failureReason).toBe('Invalid phone number');
			expect(sent[0].failureReason).toBe(
				'No reason given: the service gives no details for DELIVERING_FAILED messages',
			);
			const message = (sim().messages as Json[]).find(
				(m) => m.correlationId === sent[0].correlationId,
			)!;
			expect(message.status).toBe('DELIVERING_FAILED');
			// Polled while the message was SENT, and on until it had failed delivery.
			const polls = requests.filter(
				(r) => r.method === 'GET' && r.path === `/proactive-messaging/${sent[0].correlationId}`,
			);
			const sentFrom = message.receivedAt + sim().options.settleAfterMs;
			expect(polls.some((r) => r.at >= sentFrom && r.at < sentFrom + 3000)).toBe(true);
			expect(polls[polls.length - 1].at).toBeGreaterThanOrEqual(sentFrom + 3000);
		} finally {
			sim().options.sentForMs = 0;
		}
	});

	test('the executions so far still used the single token', () => {
		expect(sim().counters.tokenRequests).toBe(1);
	});
});

describe('token refresh after the service expires its tokens', () => {
	test('the next execution succeeds with exactly one new token request', async () => {
		const before = { ...sim().counters };
		const expired = await fetch(`${sim().url}/__sim/expire-tokens`, { method: 'POST' });
		expect(expired.status).toBe(200);
		const { result: run, requests } = await recording(() => execute(TOKEN_PROBE.id));
		expect(run.output('Agents available')).toEqual([
			expect.objectContaining({ value: expect.any(Number) }),
		]);
		expect(sim().counters.tokenRequests - before.tokenRequests).toBe(1);
		expect(sim().counters.tokensIssued - before.tokensIssued).toBe(1);
		const calls = requests.filter((r) => r.path.startsWith('/reporting-metrics/'));
		// The stale token is refused once, then the request is replayed with the new token.
		expect(calls.map((r) => r.status)).toEqual([401, 200]);
		expect(calls[0].headers.authorization).not.toBe(calls[1].headers.authorization);
	});

	test('and that new token is reused by the next executions', async () => {
		const before = sim().counters.tokenRequests;
		await execute(TOKEN_PROBE.id);
		await execute(workflowId('1-'));
		expect(sim().counters.tokenRequests).toBe(before);
	});
});

describe('trigger endpoints with signed requests (undici)', () => {
	const ada = {
		email: 'ada@example.com',
		firstName: 'Ada',
		lastName: 'Lovelace',
		customerId: 'CUST-1815',
		tier: 'gold',
		phone: '+441632960815',
	};

	test('lookup: 200 with the attributes the workflow found', async () => {
		const res = await postSigned(
			webhook('lookup'),
			{ email: 'Ada@Example.com' },
			{ secret: secret('lookup') },
		);
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toMatch(/application\/json/);
		expect(res.json).toEqual({ autoConfirm: false, attributes: ada });
	});

	test('lookup: a null attribute is sent as null (it deletes the value in the service)', async () => {
		const res = await postSigned(
			webhook('lookup'),
			{ email: 'grace@example.com' },
			{ secret: secret('lookup') },
		);
		expect(res.status).toBe(200);
		expect(res.json.attributes).toEqual(
			expect.objectContaining({ firstName: 'Grace', phone: null }),
		);
	});

	test('lookup: 404 for a contact the workflow does not find', async () => {
		const res = await postSigned(
			webhook('lookup'),
			{ email: 'nobody@example.com' },
			{ secret: secret('lookup') },
		);
		expect(res.status).toBe(404);
		expect(res.text).toBe('');
		expect(String(res.headers['content-type'] ?? '')).not.toContain('application/json');
	});

	test('npm run call: the printed commands play the service against each active example', async () => {
		const lookup = await npmRunCall(stateDir, 'lookup');
		expect(lookup).toEqual({
			url: webhook('lookup'),
			status: 200,
			body: { autoConfirm: false, attributes: ada },
		});

		const key = `npm-call-${Date.now()}`;
		const first = await npmRunCall(stateDir, 'write-back', '--key', key);
		expect(first).toEqual({
			url: webhook('writeBack'),
			status: 200,
			body: writeBackAnswer('processed', key),
		});
		const again = await npmRunCall(stateDir, 'write-back', '--key', key);
		expect([
			{ status: 200, body: writeBackAnswer('duplicate', key) },
			{ status: 409, body: writeBackAnswer('inProgress', key) },
		]).toContainEqual({ status: again.status, body: again.body });

		const notificationRuns = (await executionsOf(workflowId('notification'))).length;
		const notification = await npmRunCall(stateDir, 'notification');
		expect(notification).toEqual({ url: webhook('notification'), status: 204, body: null });
		await waitFor(
			async () => (await executionsOf(workflowId('notification'))).length > notificationRuns,
			{ what: 'the run of the notification example' },
		);
	});

	async function conversationRows(): Promise<Json[]> {
		const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
		const table = (tables.data as Json[]).find((t) => t.name === local.CONVERSATIONS_TABLE.name);
		if (!table) throw new Error('the conversations data table does not exist');
		const rows = await rt.publicApi(instance(), 'GET', `/data-tables/${table.id}/rows?limit=250`);
		return rows.data as Json[];
	}

	async function recordTableId(): Promise<string> {
		const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
		const table = (tables.data ?? []).find((t: Json) => t.name === local.RECORD_TABLE_NAME);
		if (!table) throw new Error('the record data table does not exist');
		return table.id as string;
	}

	/** The record's rows of one scope, read through n8n's public API. */
	async function recordRows(scope: string): Promise<Json[]> {
		const tableId = await recordTableId();
		const rows: Json[] = [];
		for (let cursor: string | undefined; ; ) {
			const filter = encodeURIComponent(
				JSON.stringify({
					type: 'and',
					filters: [{ columnName: 'scope', condition: 'eq', value: scope }],
				}),
			);
			const page = await rt.publicApi(
				instance(),
				'GET',
				`/data-tables/${tableId}/rows?limit=250&filter=${filter}${cursor ? `&cursor=${cursor}` : ''}`,
			);
			rows.push(...page.data);
			if (!page.nextCursor) return rows;
			cursor = page.nextCursor;
		}
	}

	test('write back: delivered three times with the same idempotency key, the workflow runs once and stores one row', async () => {
		const id = workflowId('writeBack');
		const before = (await executionsOf(id)).length;
		const key = `wb-${Date.now()}-a`;
		const answers = [];
		for (let i = 0; i < 3; i++) {
			const res = await postSigned(webhook('writeBack'), writeBack(key, 'conv-a'), {
				secret: secret('writeBack'),
			});
			answers.push({ status: res.status, type: res.headers['content-type'], body: res.json });
		}
		const json = 'application/json; charset=utf-8';
		expect(answers[0]).toEqual({
			status: 200,
			type: json,
			body: writeBackAnswer('processed', key),
		});
		// Sent the moment the answer arrived, a redelivery can be ahead of n8n's save of the record
		// (a few milliseconds): it then finds the claim of the first delivery instead. Either way
		// it does not run the workflow again.
		for (const answer of answers.slice(1)) {
			expect([
				{ status: 200, type: json, body: writeBackAnswer('duplicate', key) },
				{ status: 409, type: json, body: writeBackAnswer('inProgress', key) },
			]).toContainEqual(answer);
		}
		await redeliverExpectingDuplicate(key);
		// A different event after the three: once its run is listed, any run of the duplicates would be too.
		const sentinel = `wb-${Date.now()}-b`;
		const res = await postSigned(webhook('writeBack'), writeBack(sentinel, 'conv-b'), {
			secret: secret('writeBack'),
		});
		expect(res.status).toBe(200);
		const executions = await writeBackExecutionsUntil(sentinel);
		const newOnes: Json[] = executions.slice(0, executions.length - before);
		// A duplicate starts a run that stops at the trigger: it outputs nothing.
		const keys = newOnes
			.map((e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey)
			.filter((k) => k !== undefined)
			.sort();
		expect(keys).toEqual([key, sentinel].sort());
		expect(newOnes.every((e) => e.status === 'success')).toBe(true);

		const rows = (await conversationRows()).filter((r) => r.idempotencyKey === key);
		expect(rows).toHaveLength(1);
		expect(rows[0]).toEqual(
			expect.objectContaining({
				eventType: 'CONVERSATION_RESOLVED',
				conversationId: 'conv-a',
				currentStatus: 'resolved',
				previousStatus: 'new',
				contact: '+31612345678',
				agentEmail: 'alan@example.com',
				messageCount: 2,
			}),
		);
	});

	/** Write back keys accepted by calls that started a run, for the restart test at the end. */
	const acceptedOneAfterAnother: string[] = [];

	/** Waits until every execution of the workflow finished and one of them carries `key`. */
	async function writeBackExecutionsUntil(key: string): Promise<Json[]> {
		return await waitFor(
			async () => {
				const list = await executionsOf(workflowId('writeBack'), true);
				const done = list.filter(
					(e) => e.finished || e.status === 'success' || e.status === 'error',
				);
				return done.some(
					(e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey === key,
				) && done.length === list.length
					? list
					: undefined;
			},
			{ what: `the write back execution of ${key}` },
		);
	}

	/** Delivers the write back of `key` again and expects the answer for an already accepted key. */
	/**
	 * Delivers the write back of `key` again until it is answered as a duplicate. A redelivery sent
	 * right after the first answer can be ahead of n8n's save of the record and then finds the
	 * first delivery's claim: 409 in progress, never a second run; anything else fails.
	 */
	async function redeliverExpectingDuplicate(
		key: string,
		url = webhook('writeBack'),
		conversationId = `conv-${key}`,
	): Promise<void> {
		const answers: Json[] = [];
		await waitFor(
			async () => {
				const res = await postSigned(url, writeBack(key, conversationId), {
					secret: secret('writeBack'),
				});
				answers.push({ status: res.status, body: res.json });
				const last = answers[answers.length - 1];
				if (last.status === 409) {
					expect(last.body).toEqual(writeBackAnswer('inProgress', key));
					return false;
				}
				expect({ key, ...last }).toEqual({
					key,
					status: 200,
					body: writeBackAnswer('duplicate', key),
				});
				return true;
			},
			{
				what: `a duplicate answer for ${key} (answers so far: ${JSON.stringify(answers)})`,
				timeoutMs: 15000,
				intervalMs: 300,
			},
		);
	}

	test('write back: redeliveries of events processed one after another are all recognised, and the durable record holds every key as done', async () => {
		const id = workflowId('writeBack');
		const before = (await executionsOf(id)).length;
		const stamp = Date.now();
		const keys = ['c1', 'c2', 'c3'].map((k) => `wb-${stamp}-${k}`);
		acceptedOneAfterAnother.push(...keys);
		for (const key of keys) {
			const res = await postSigned(webhook('writeBack'), writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			expect(res.status).toBe(200);
			await writeBackExecutionsUntil(key);
		}
		// Not the first key first: each was accepted by a call that started a run.
		for (const key of [keys[1], keys[2], keys[0]]) {
			await redeliverExpectingDuplicate(key);
		}
		const sentinel = `wb-${stamp}-sentinel`;
		await postSigned(webhook('writeBack'), writeBack(sentinel, 'conv-sentinel'), {
			secret: secret('writeBack'),
		});
		const executions = await writeBackExecutionsUntil(sentinel);
		const ran = executions
			.slice(0, executions.length - before)
			.map((e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey)
			.filter((k) => k !== undefined)
			.sort();
		expect(ran).toEqual([...keys, sentinel].sort());

		// The durable record: one `done` row per key, in the data table, and nothing in static data.
		const done = await recordRows(EXAMPLE_WRITE_BACK_SCOPE);
		for (const key of keys) {
			expect({
				key,
				rows: done
					.filter((r) => r.recordKey === `${EXAMPLE_WRITE_BACK_SCOPE}|${key}`)
					.map((r) => r.state),
			}).toEqual({
				key,
				rows: ['done'],
			});
		}
	});

	test('write back: a failed run is answered 500, its redelivery runs again and is then recognised', async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const key = `wb-${Date.now()}-fails-once`;
		const failing = await postSigned(url, writeBack(key, 'fail'), { secret: secret('writeBack') });
		expect(failing.status).toBe(500);
		const retried = await postSigned(url, writeBack(key, 'conv-ok'), {
			secret: secret('writeBack'),
		});
		expect({ status: retried.status, body: retried.json }).toEqual({
			status: 200,
			body: writeBackAnswer('processed', key),
		});
		await redeliverExpectingDuplicate(key, url, 'conv-ok');
		const executions = await waitFor(
			async () => {
				const list = await executionsOf(FAILING_WRITE_BACK.id, true);
				return list.length >= 2 && list.every((e: Json) => e.finished || e.status !== 'running')
					? list
					: undefined;
			},
			{ what: 'the two runs of the failing write back workflow' },
		);
		const crmWrites = executions.filter(
			(e: Json) =>
				e.data?.resultData?.runData?.['Write to CRM']?.[0]?.error === undefined &&
				e.data?.resultData?.runData?.['Write to CRM'] !== undefined,
		);
		// A duplicate is answered by the webhook call and starts no run; a redelivery that found the
		// claim (409) ran only the trigger.
		expect(executions.filter((e: Json) => e.status === 'error')).toHaveLength(1);
		expect(crmWrites).toHaveLength(1);
	});

	test('write back: six deliveries of one key at the same moment run the workflow once', async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const before = (await executionsOf(FAILING_WRITE_BACK.id)).length;
		const key = `wb-${Date.now()}-concurrent`;
		const answers = await Promise.all(
			Array.from({ length: 6 }, async () => {
				const res = await postSigned(url, writeBack(key, 'conv-c'), {
					secret: secret('writeBack'),
				});
				return { status: res.status, state: res.json?.status as string };
			}),
		);
		report(`[e2e] six concurrent deliveries of one key answered ${JSON.stringify(answers)}`);
		expect(answers.filter((a) => a.state === 'processed')).toEqual([
			{ status: 200, state: 'processed' },
		]);
		for (const answer of answers) {
			expect([
				{ status: 200, state: 'processed' },
				{ status: 200, state: 'duplicate' },
				{ status: 409, state: 'inProgress' },
			]).toContainEqual(answer);
		}
		const executions = await waitFor(
			async () => {
				const list = await executionsOf(FAILING_WRITE_BACK.id, true);
				// 409 and duplicates are answered in the webhook call: only the processed one runs.
				return list.length >= before + answers.filter((a) => a.state === 'processed').length &&
					list.every((e: Json) => e.status !== 'running')
					? list
					: undefined;
			},
			{ what: 'the runs of the concurrent deliveries' },
		);
		const wrote = executions
			.slice(0, executions.length - before)
			.filter((e: Json) => e.data?.resultData?.runData?.['Write to CRM'] !== undefined);
		expect(wrote).toHaveLength(1);
	});

	test("a signed body that is not JSON runs none of the workflow's nodes: 400 from the trigger (reported at most once, failed at the trigger), or 422 from n8n's own parser when sent as JSON", async () => {
		const garbage = '{"idempotencyKey": "wb-garbage", oops';
		const id = workflowId('writeBack');
		const beforeIds = (await executionsOf(id)).map((execution: Json) => String(execution.id));
		const answers = {
			asJson: await postSigned(webhook('writeBack'), garbage, { secret: secret('writeBack') }),
			asText: await postSigned(webhook('writeBack'), garbage, {
				secret: secret('writeBack'),
				contentType: 'text/plain',
			}),
		};
		expect(Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.status]))).toEqual({
			asJson: 422,
			asText: 400,
		});
		// The sentinel: a valid delivery's run listed means runs of the calls above would be too.
		const sentinel = await postSigned(
			webhook('writeBack'),
			writeBack(`wb-${Date.now()}-after-garbage`, 'conv-g'),
			{
				secret: secret('writeBack'),
			},
		);
		expect(sentinel.status).toBe(200);
		// The report of the refused call may be listed before it: wait for a run that is not one.
		const newRuns = async () =>
			(await executionsOf(id, true)).filter(
				(execution: Json) => !beforeIds.includes(String(execution.id)),
			);
		await waitFor(
			async () =>
				(await newRuns()).some(
					(execution: Json) => !triggerReportOf(execution) && execution.finished,
				),
			{ what: 'the run of the valid write back' },
		);
		const added = await newRuns();
		const reports = added.filter((execution: Json) => triggerReportOf(execution));
		expect(added.length - reports.length).toBe(1);
		expect(reports.length).toBeLessThanOrEqual(1);
		for (const execution of reports)
			expect(triggerReportOf(execution).message).toMatch(
				/^Signed calls whose body was not a JSON object/,
			);
	});

	test('notification: 204 with an empty body, and the alert is composed', async () => {
		const id = workflowId('notification');
		const before = (await executionsOf(id)).length;
		const notification = {
			timestamp: '2026-11-22T08:30:00.123Z',
			version: 1,
			eventType: 'DATA_IMPORT_ERROR',
			messages: ['Attribute tier: value too long'],
		};
		const res = await postSigned(webhook('notification'), notification, {
			secret: secret('notification'),
		});
		expect(res.status).toBe(204);
		expect(res.text).toBe('');
		const [latest] = await waitFor(
			async () => {
				const list = await executionsOf(id, true);
				return list.length > before && list[0].finished ? list : undefined;
			},
			{ what: 'the notification execution' },
		);
		expect(triggerOutput(latest, 'Service notification')).toEqual(notification);
		const alert = latest.data.resultData.runData['Compose alert'][0].data.main[0][0].json;
		expect(alert.alert).toContain('DATA_IMPORT_ERROR');
		expect(alert.alert).toContain('Attribute tier: value too long');
	});

	test("unsigned, tampered and wrong-secret requests get 401 and run none of the workflow's nodes: at most one report per cause, failed at the trigger", async () => {
		const endpoints = ['lookup', 'writeBack', 'notification'] as const;
		const bodies: Record<(typeof endpoints)[number], Json> = {
			lookup: { email: 'ada@example.com' },
			writeBack: writeBack(`wb-${Date.now()}-forged`, 'conv-forged'),
			notification: {
				timestamp: '2026-11-22T08:31:00.000Z',
				version: 1,
				eventType: 'DATA_IMPORT_ERROR',
				messages: ['forged'],
			},
		};
		const idsOf = async (e: (typeof endpoints)[number]) =>
			(await executionsOf(workflowId(e))).map((execution: Json) => String(execution.id));
		const before = Object.fromEntries(
			await Promise.all(endpoints.map(async (e) => [e, await idsOf(e)] as const)),
		);
		const wrongSecret = 'ab'.repeat(32);
		for (const endpoint of endpoints) {
			const url = webhook(endpoint);
			const attempts = [
				await postSigned(url, bodies[endpoint], { signature: 'none' }),
				await postSigned(url, bodies[endpoint], {
					secret: secret(endpoint),
					tamper: (raw: string) =>
						raw
							.replace('ada@example.com', 'eve@example.com')
							.replace('forged', 'forgeD')
							.replace('conv-forged', 'conv-forgeD'),
				}),
				await postSigned(url, bodies[endpoint], { secret: wrongSecret }),
			];
			expect({ endpoint, statuses: attempts.map((a) => a.status) }).toEqual({
				endpoint,
				statuses: [401, 401, 401],
			});
		}
		// A valid notification after the forged ones: once its run is listed, runs of those would be too.
		const sentinel = await postSigned(
			webhook('notification'),
			{
				timestamp: '2026-11-22T08:32:00.000Z',
				version: 1,
				eventType: 'DATA_IMPORT_ERROR',
				messages: ['sentinel'],
			},
			{ secret: secret('notification') },
		);
		expect(sentinel.status).toBe(204);
		// The reports of the refused calls may be listed before it: wait for a run that is not one.
		await waitFor(
			async () =>
				(await executionsOf(workflowId('notification'), true)).some(
					(execution: Json) =>
						!before.notification.includes(String(execution.id)) &&
						!triggerReportOf(execution) &&
						execution.finished,
				),
			{
				what: 'the sentinel notification execution',
			},
		);
		for (const endpoint of endpoints) {
			const added = (await executionsOf(workflowId(endpoint), true)).filter(
				(execution: Json) => !before[endpoint].includes(String(execution.id)),
			);
			const reports = added.filter((execution: Json) => triggerReportOf(execution));
			const others = added.filter((execution: Json) => !triggerReportOf(execution));
			expect({ endpoint, others: others.length }).toEqual({
				endpoint,
				others: endpoint === 'notification' ? 1 : 0,
			});
			// Unsigned is one cause, tampered and wrong secret another; an earlier report within
			// 5 minutes leaves none.
			expect(reports.length).toBeLessThanOrEqual(2);
			for (const execution of reports)
				expect(triggerReportOf(execution).message).toMatch(
					/^(Calls without a valid signature|The signature did not match)/,
				);
		}
	});

	test('write back: a trigger whose record credential cannot reach the record refuses to activate, or its calls are not run (503 naming what n8n answered, or not registered)', async () => {
		const credential = await rt.publicApi(instance(), 'POST', '/credentials', {
			name: 'e2e record with a wrong key',
			type: 'contactCenterRecordApi',
			data: {
				baseUrl: `${instance().baseUrl}/api/v1`,
				apiKey: 'not-a-valid-key',
				dataTableName: local.RECORD_TABLE_NAME,
			},
		});
		const example = stack.workflows.find((w: Json) => w.endpoint === 'writeBack').workflow;
		const nodes = JSON.parse(JSON.stringify(example.nodes));
		const trigger = nodes.find((n: Json) => n.type.endsWith('contactCenterTrigger'));
		trigger.webhookId = '0e2e0bad-0000-4000-8000-00000000c0de';
		trigger.credentials.contactCenterRecordApi = { id: credential.id, name: credential.name };
		const created = await rt.publicApi(instance(), 'POST', '/workflows', {
			name: 'e2e: write back with an unusable record',
			nodes,
			connections: example.connections,
			settings: { executionOrder: 'v1' },
		});
		const refusal = await rt.activateWorkflow(instance(), created.id).then(
			() => 'activated',
			(error: Error) => error.message,
		);
		report(`[e2e] activation with an unusable record credential: ${refusal.slice(0, 300)}`);
		if (refusal === 'activated') {
			// n8n 2.41.1 reports the activation through the public API as done all the same. Then
			// either the trigger's check kept the webhook from being registered (the service's
			// calls get 404 and are delivered again later), or every call must be refused. The
			// webhook may be listed for a moment while n8n undoes the failed activation, so the
			// answer itself says which of the two happened.
			const url = `${instance().baseUrl}/webhook/${trigger.webhookId}/write-back`;
			const key = `wb-${Date.now()}-unusable-record`;
			const res = await postSigned(url, writeBack(key, 'conv-x'), { secret: secret('writeBack') });
			report(`[e2e] a call to it: ${res.status} ${res.text.slice(0, 200)}`);
			if (res.status === 404) {
				expect(String(res.json?.message)).toContain('is not registered');
			} else {
				expect({ status: res.status, message: String(res.json?.message) }).toEqual({
					status: 503,
					message: expect.stringContaining('The write back record could not be read'),
				});
				expect(res.json.message).toContain('401');
			}
			// Nothing ran but, for a refusal, its report: a run that failed at the trigger.
			const executions = await executionsOf(created.id, true);
			expect(executions.filter((execution: Json) => !triggerReportOf(execution))).toEqual([]);
			expect(executions.length).toBeLessThanOrEqual(res.status === 503 ? 1 : 0);
		} else {
			expect(refusal).toContain('The write back record cannot be used');
			expect(refusal).toContain('401');
		}
	});

	test('write back: with 100,000 keys in the record (72 hours at 33,000 a day), a key answered 71 hours ago is still a duplicate and new keys run, while the process loads its index of the record and once it has', async () => {
		const tableId = await recordTableId();
		const stamp = Date.now();
		const total = 100_000;
		const spanMs = 71 * 60 * 60 * 1000;
		const keyAt = (i: number) => `cap-${stamp}-${i}`;
		for (let from = 0; from < total; from += 5000) {
			const data = Array.from({ length: 5000 }, (_, j) => ({
				scope: EXAMPLE_WRITE_BACK_SCOPE,
				recordKey: `${EXAMPLE_WRITE_BACK_SCOPE}|${keyAt(from + j)}`,
				state: 'done',
				stateAt: stamp - Math.round(((from + j) / (total - 1)) * spanMs),
				detail: '',
			}));
			await rt.publicApi(instance(), 'POST', `/data-tables/${tableId}/rows`, { data });
		}
		const id = workflowId('writeBack');
		// Rows added by hand count for a running process from a minute after, or at once after
		// the workflow is activated again (its index of the record is loaded anew).
		await rt.publicApi(instance(), 'POST', `/workflows/${id}/deactivate`);
		await rt.activateWorkflow(instance(), id);
		await expectWebhookRegistered(webhook('writeBack'));
		const logBefore = rt.readLog(instance()).length;
		const before = (await executionsOf(id)).length;
		const expectDuplicate = async (i: number) => {
			const res = await postSigned(webhook('writeBack'), writeBack(keyAt(i), `conv-cap-${i}`), {
				secret: secret('writeBack'),
			});
			expect({ i, status: res.status, body: res.json }).toEqual({
				i,
				status: 200,
				body: writeBackAnswer('duplicate', keyAt(i)),
			});
		};
		const expectProcessed = async (fresh: string) => {
			const res = await postSigned(webhook('writeBack'), writeBack(fresh, 'conv-cap-new'), {
				secret: secret('writeBack'),
			});
			expect({ status: res.status, body: res.json }).toEqual({
				status: 200,
				body: writeBackAnswer('processed', fresh),
			});
			await writeBackExecutionsUntil(fresh);
		};
		for (const i of [0, 50_000, total - 1]) await expectDuplicate(i);
		await expectProcessed(`cap-${stamp}-new`);
		const loaded = await waitFor(
			async () =>
				rt
					.readLog(instance())
					.slice(logBefore)
					.split('\n')
					.find((line: string) => line.includes("loaded into this process's index")),
			{ what: 'the index of the record loaded', timeoutMs: 300_000, intervalMs: 500 },
		);
		report(`[e2e] ${loaded.replace(/^.*Contact Center record: /, '')}`);
		for (const i of [1, 60_000, total - 2]) await expectDuplicate(i);
		await expectProcessed(`cap-${stamp}-new-after-load`);
		expect((await executionsOf(id)).length - before).toBe(2);
	}, 600_000);

	// Before the restart test: the trigger's index of the record was loaded by the deliveries above.
	test('write back in one process: a done row deleted by hand (to allow a rerun) counts at once and the redelivery runs once; a done row added by hand counts from a minute after', async () => {
		const tableId = await recordTableId();
		const id = workflowId('writeBack');
		const stamp = Date.now();
		const deliver = async (key: string) => {
			const res = await postSigned(webhook('writeBack'), writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			return { status: res.status, body: res.json };
		};
		const added = `hand-added-${stamp}`;
		await rt.publicApi(instance(), 'POST', `/data-tables/${tableId}/rows`, {
			data: [
				{
					scope: EXAMPLE_WRITE_BACK_SCOPE,
					recordKey: `${EXAMPLE_WRITE_BACK_SCOPE}|${added}`,
					state: 'done',
					stateAt: Date.now(),
					detail: '',
				},
			],
		});
		const addedAt = Date.now();

		const rerun = `hand-deleted-${stamp}`;
		const before = (await executionsOf(id)).length;
		expect(await deliver(rerun)).toEqual({
			status: 200,
			body: writeBackAnswer('processed', rerun),
		});
		await writeBackExecutionsUntil(rerun);
		await redeliverExpectingDuplicate(rerun);
		const keyRows = `/data-tables/${tableId}/rows/delete?${new URLSearchParams({
			filter: JSON.stringify({
				type: 'and',
				filters: [
					{
						columnName: 'recordKey',
						condition: 'eq',
						value: `${EXAMPLE_WRITE_BACK_SCOPE}|${rerun}`,
					},
				],
			}),
		})}`;
		await rt.publicApi(instance(), 'DELETE', keyRows);
		expect(
			(await recordRows(EXAMPLE_WRITE_BACK_SCOPE)).filter(
				(r) => r.recordKey === `${EXAMPLE_WRITE_BACK_SCOPE}|${rerun}`,
			),
		).toEqual([]);
		expect(await deliver(rerun)).toEqual({
			status: 200,
			body: writeBackAnswer('processed', rerun),
		});
		const executions = await writeBackExecutionsUntil(rerun);
		const runs = executions
			.slice(0, executions.length - before)
			.filter(
				(e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey === rerun,
			);
		expect(runs).toHaveLength(2);
		await redeliverExpectingDuplicate(rerun);

		await rt.sleep(Math.max(0, addedAt + 61_000 - Date.now()));
		const beforeAdded = (await executionsOf(id)).length;
		expect(await deliver(added)).toEqual({
			status: 200,
			body: writeBackAnswer('duplicate', added),
		});
		await rt.sleep(1_000);
		expect((await executionsOf(id)).length).toBe(beforeAdded);
	}, 180_000);

	// It restarts n8n; the tests after it kill or restart it too.
	test('write back: redeliveries of processed events stay duplicates after an n8n restart, a CLI export and import, a rename of the trigger node saved with old static data (public API GET then PUT), and deactivation and activation', async () => {
		expect(acceptedOneAfterAnother).toHaveLength(3);
		const id = workflowId('writeBack');
		const before = await rt.publicApi(instance(), 'GET', `/workflows/${id}`);
		await rt.stopServer(instance());
		const exported = `${stateDir}/exported-write-back.json`;
		await rt.n8nCli(instance(), ['export:workflow', `--id=${id}`, `--output=${exported}`]);
		await rt.n8nCli(instance(), ['import:workflow', `--input=${exported}`]);
		await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
		// The import leaves the workflow inactive; n8n's answer is reported if the activation fails.
		const activation = await rt.activateWorkflow(instance(), id).then(
			() => 'activated',
			(error: Error) => error.message,
		);
		report(`[e2e] after the restart and import: ${activation}`);
		await expectWebhookRegistered(webhook('writeBack'));
		for (const key of acceptedOneAfterAnother) await redeliverExpectingDuplicate(key);

		// The editor's save and a sync from git: the whole workflow PUT back, node renamed, static data as read before.
		const current = await rt.publicApi(instance(), 'GET', `/workflows/${id}`);
		const oldName = 'Conversation resolved or pending';
		const newName = 'Write back (renamed)';
		const rename = (value: unknown) =>
			JSON.parse(JSON.stringify(value).split(JSON.stringify(oldName).slice(1, -1)).join(newName));
		await rt.publicApi(instance(), 'PUT', `/workflows/${id}`, {
			name: current.name,
			nodes: rename(current.nodes),
			connections: rename(current.connections),
			settings: current.settings,
			staticData: before.staticData ?? null,
		});
		await rt.publicApi(instance(), 'POST', `/workflows/${id}/deactivate`);
		await rt.activateWorkflow(instance(), id);
		await expectWebhookRegistered(webhook('writeBack'));
		for (const key of acceptedOneAfterAnother) await redeliverExpectingDuplicate(key);
	});

	// After the restart test: it kills n8n, and the trigger node is named as that test left it.
	test('write back: n8n killed (SIGKILL) while deliveries are in flight, 8 at a time: no key answered 2xx is lost or run again, and every other key is recorded done or runs once when redelivered after the restart', async () => {
		const id = workflowId('writeBack');
		const triggerName = 'Write back (renamed)';
		const stamp = Date.now();
		const keys = Array.from({ length: 60 }, (_, i) => `kill-${stamp}-${i}`);
		const deliver = async (key: string) => await answerOfWriteBack(webhook('writeBack'), key);
		const answered = new Map<string, string>();
		let next = 0;
		const sending = Promise.all(
			Array.from({ length: 8 }, async () => {
				while (next < keys.length) {
					const key = keys[next++];
					answered.set(key, await deliver(key));
				}
			}),
		);
		await waitFor(
			async () => [...answered.values()].filter((a) => a === '200 processed').length >= 15,
			{ what: '15 write backs answered processed', intervalMs: 5 },
		);
		await rt.killServer(instance());
		await sending;
		const before = [...answered.values()];
		const tally = (answers: string[]) =>
			answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a]: (t[a] ?? 0) + 1 }), {});
		report(`[e2e] answers until the SIGKILL: ${JSON.stringify(tally(before))}`);
		const processedBefore = keys.filter((key) => answered.get(key) === '200 processed');
		const rest = keys.filter((key) => answered.get(key) !== '200 processed');
		expect(processedBefore.length).toBeGreaterThanOrEqual(15);
		expect(rest.length).toBeGreaterThan(0);

		await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
		await expectWebhookRegistered(webhook('writeBack'));
		// At its start n8n runs the executions it had enqueued but not started when it was killed
		// (enqueued-execution-recovery.service.js): their keys are recorded done by those runs. The
		// service's first retry comes an hour later; let them end first (the next test overlaps them).
		await waitFor(async () => (await unfinishedRuns(id)) === 0, {
			what: 'the runs n8n started again at its restart to end',
		});
		const restartedAt = Date.now();
		const after = new Map<string, string>();
		let redelivered = 0;
		await Promise.all(
			Array.from({ length: 8 }, async () => {
				while (redelivered < keys.length) {
					const key = keys[redelivered++];
					after.set(key, await deliver(key));
				}
			}),
		);
		report(`[e2e] redeliveries after the restart: ${JSON.stringify(tally([...after.values()]))}`);
		expect(processedBefore.filter((key) => after.get(key) !== '200 duplicate')).toEqual([]);
		// A key not answered before the kill either ran and was recorded done before it (duplicate)
		// or runs now: never 409 (the claims died with n8n), never lost.
		expect(
			rest.filter((key) => !['200 processed', '200 duplicate'].includes(after.get(key) ?? '')),
		).toEqual([]);
		const runNow = rest.filter((key) => after.get(key) === '200 processed');

		// Every run after the restart has ended and was saved: one per redelivered key at least.
		const runsAfterRestart = await waitFor(
			async () => {
				const list = (await executionsOf(id, true)).filter(
					(e) => Date.parse(e.startedAt) >= restartedAt,
				);
				if (list.some((e) => !e.stoppedAt)) return undefined;
				const runs = new Map<string, number>();
				for (const execution of list) {
					const key = triggerOutput(execution, triggerName)?.idempotencyKey;
					if (key) runs.set(key, (runs.get(key) ?? 0) + 1);
				}
				return runNow.every((key) => runs.has(key)) ? runs : undefined;
			},
			{ what: 'the runs of the redelivered keys', timeoutMs: 120_000 },
		);
		expect(keys.filter((key) => !runNow.includes(key) && runsAfterRestart.has(key))).toEqual([]);
		expect(runNow.filter((key) => runsAfterRestart.get(key) !== 1)).toEqual([]);

		const stored = new Set<string>();
		const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
		const table = (tables.data as Json[]).find((t) => t.name === local.CONVERSATIONS_TABLE.name);
		for (let cursor: string | undefined; ; ) {
			const page = await rt.publicApi(
				instance(),
				'GET',
				`/data-tables/${table!.id}/rows?limit=250${cursor ? `&cursor=${cursor}` : ''}`,
			);
			for (const row of page.data as Json[]) stored.add(row.idempotencyKey);
			if (!page.nextCursor) break;
			cursor = page.nextCursor;
		}
		expect(keys.filter((key) => !stored.has(key))).toEqual([]);
		for (const key of keys)
			expect({ key, answer: await deliver(key) }).toEqual({ key, answer: '200 duplicate' });
	});

	// After the SIGKILL test: it kills n8n again.
	test('write back: a delivery n8n had enqueued but not started when it was killed is run by n8n itself at its restart; redeliveries meanwhile, three at a time, are answered 409 and then duplicate: one run', async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const stamp = Date.now();
		const running = `wb-${stamp}-running-at-kill`;
		const enqueued = `wb-${stamp}-enqueued-at-kill`;
		const deliver = async (key: string, slowMs = 0) =>
			await answerOfWriteBack(url, key, { slowMs });
		const restart = async (kill: boolean, concurrencyLimit: string | undefined) =>
			await restartN8n(url, { N8N_CONCURRENCY_PRODUCTION_LIMIT: concurrencyLimit }, { kill });

		const overlap: string[][] = [];
		try {
			// With one production execution at a time, the second delivery's execution waits, enqueued.
			await restart(false, '1');
			// A first run teaches this process that it runs its own deliveries, so that the next
			// claims are holds in its memory, which die with it (no claim row to find afterwards).
			expect(await deliver(`wb-${stamp}-first-run`)).toBe('200 processed');
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 0, {
				what: 'the first run to end',
			});
			const first = deliver(running, 20_000);
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 1, {
				what: 'the first delivery to run',
			});
			const second = deliver(enqueued, 8000);
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 2, {
				what: 'the second delivery to be enqueued',
			});
			await restart(true, undefined);
			expect([await first, await second]).toEqual(['no answer', 'no answer']);

			// n8n now runs the enqueued delivery (its CRM write takes 8 s). Once its run has started
			// (its first node holds the key), redeliver it meanwhile and until it is answered.
			await waitFor(
				async () => {
					// A running execution's saved data is still its start: the trigger's item on the stack.
					return (await runningExecutionsOf(FAILING_WRITE_BACK.id, true)).some(
						(e) =>
							e.data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json
								?.idempotencyKey === enqueued,
					);
				},
				{ what: 'n8n to run the enqueued delivery' },
			);
			await rt.sleep(1000);
			// Three redeliveries at once every 0.5 s, until a round has no 409 left.
			for (let round = 0; round < 60; round++) {
				overlap.push(await Promise.all([1, 2, 3].map(async () => await deliver(enqueued))));
				if (!overlap.at(-1)!.includes('409 inProgress')) break;
				await rt.sleep(500);
			}
		} finally {
			if (instance().env.N8N_CONCURRENCY_PRODUCTION_LIMIT !== undefined)
				await restart(false, undefined);
		}
		report(
			`[e2e] redeliveries while n8n ran the enqueued delivery again: ${JSON.stringify(overlap)}`,
		);
		const answers = overlap.flat();
		expect(answers.filter((a) => !['409 inProgress', '200 duplicate'].includes(a))).toEqual([]);
		expect(overlap[0]).toEqual(['409 inProgress', '409 inProgress', '409 inProgress']);
		expect(overlap.at(-1)).toEqual(['200 duplicate', '200 duplicate', '200 duplicate']);

		const runs = await waitFor(
			async () => {
				if ((await unfinishedRuns(FAILING_WRITE_BACK.id)) > 0) return undefined;
				return (await executionsOf(FAILING_WRITE_BACK.id, true)).filter(
					(e) => triggerOutput(e, 'Write back')?.idempotencyKey === enqueued,
				);
			},
			{ what: `the runs of ${enqueued}` },
		);
		expect(runs.map((e: Json) => e.status)).toEqual(['success']);
		expect(runs[0].data?.resultData?.runData?.['Write to CRM']).toHaveLength(1);
	});

	// Last: it restarts n8n twice, with a data table size limit the record is already past and without.
	test("write back: past n8n's data table size limit (N8N_DATA_TABLES_MAX_SIZE_BYTES) a freshly started n8n answers 503 naming the limit and starts no run; with room again the key is processed once", async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const stamp = Date.now();
		const deliver = async (key: string) => {
			const res = await postSigned(url, writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			return { status: res.status, body: res.json };
		};
		const earlier = `wb-${stamp}-before-limit`;
		expect((await deliver(earlier)).status).toBe(200);
		const restart = async (limit: string | undefined) =>
			await restartN8n(url, { N8N_DATA_TABLES_MAX_SIZE_BYTES: limit });

		const key = `wb-${stamp}-at-limit`;
		const atLimit: Json[] = [];
		try {
			// A limit of 1 byte: any data table content is past it.
			await restart('1');
			atLimit.push(await deliver(key), await deliver(key), await deliver(earlier));
			report(`[e2e] at the data table size limit: ${JSON.stringify(atLimit[0])}`);
		} finally {
			await restart(undefined);
		}
		// Before its first run a process claims with a row insert, which n8n refuses: no run, and the
		// service delivers again later (a key processed before too: it is not lost, only not answered).
		for (const answer of atLimit) {
			expect(answer.status).toBe(503);
			expect(answer.body.message).toMatch(
				/^The write back record could not be read, so the delivery was not processed: .*Data table size limit exceeded/,
			);
		}
		const runsOf = async (idempotencyKey: string) =>
			(await executionsOf(FAILING_WRITE_BACK.id, true)).filter(
				(e) => triggerOutput(e, 'Write back')?.idempotencyKey === idempotencyKey,
			);
		expect(await runsOf(key)).toEqual([]);

		expect(await deliver(key)).toEqual({ status: 200, body: writeBackAnswer('processed', key) });
		expect(await deliver(key)).toEqual({ status: 200, body: writeBackAnswer('duplicate', key) });
		expect(await deliver(earlier)).toEqual({
			status: 200,
			body: writeBackAnswer('duplicate', earlier),
		});
		const runs = await waitFor(
			async () => {
				if ((await unfinishedRuns(FAILING_WRITE_BACK.id)) > 0) return undefined;
				const list = await runsOf(key);
				return list.length > 0 ? list : undefined;
			},
			{ what: `the run of ${key}` },
		);
		expect(runs.map((e: Json) => e.status)).toEqual(['success']);
	});
});
