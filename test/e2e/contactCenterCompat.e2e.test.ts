/**
 * End to end, what must hold on every n8n version the README names: the packed package loads into a
 * real n8n and each node's main paths work there (one-process.ts describes the stack). The `e2e`
 * project runs this file on n8n 2.41.1 beside contactCenter.e2e.test.ts; the `e2e-oldest` project
 * runs only this file, on n8n 2.36.8 (`npm run test:e2e:oldest`): both node types and the
 * credentials load, the examples run (metrics snapshot; bulk Send with Send Once's record, status
 * and failures), Send waits for a final status, the OAuth2 token is fetched once and refreshed
 * once, the trigger's signed endpoints answer (lookup 200 and 404, write backs run once and a
 * failed run is answered 500 and runs again, six deliveries at once run once, notification 204)
 * and unsigned, tampered and wrong-secret calls get 401. The tests run in order and some build on
 * the state left by the previous ones (the token count).
 */
import * as metricsModule from '../simulator/metrics';
import * as helpersModule from './helpers';
import {
	type Json,
	FAILING_WRITE_BACK,
	SEND_WAIT_FOR_FINAL_STATUS,
	SNAPSHOT_COLUMNS,
	TOKEN_PROBE,
	conversationRows,
	executionsOf,
	execute,
	fixtureHooks,
	instance,
	oneProcessStack,
	recording,
	redeliverExpectingDuplicate,
	rt,
	secret,
	sim,
	triggerOutput,
	useOneProcessStack,
	webhook,
	workflowId,
	writeBackAnswer,
	writeBackExecutionsUntil,
} from './one-process';

const { evaluateMetric, METRIC_ENDPOINTS }: Json = metricsModule;
const {
	EXAMPLE_3_ADA,
	postSigned,
	report,
	triggerReportOf,
	waitFor,
	writeBackPayload: writeBack,
}: Json = helpersModule;

useOneProcessStack([TOKEN_PROBE, SEND_WAIT_FOR_FINAL_STATUS]);
const stack = oneProcessStack;

describe('the package in n8n', () => {
	test(`n8n ${rt.N8N_VERSION} (the version under test) runs and knows both node types under the community package name, the action at version 1 and the trigger at 1.1`, async () => {
		const settings = await rt.restCall(instance(), 'GET', '/settings', {
			cookie: instance().cookie,
		});
		expect(settings.json.data.versionCli).toBe(rt.N8N_VERSION);
		expect(rt.packageLoadError(instance())).toBeUndefined();
		const res = await fetch(`${instance().baseUrl}/types/nodes.json`, {
			headers: { cookie: instance().cookie, 'browser-id': rt.BROWSER_ID },
		});
		expect(res.status).toBe(200);
		const types = (await res.json()) as Json[];
		const versionsOf = (name: string) => types.filter((t) => t.name === name).map((t) => t.version);
		expect(versionsOf('n8n-nodes-contact-center.contactCenter')).toEqual([1]);
		// Not 1: n8n treats a webhook start node at version 1 as its legacy Webhook node (the trigger's description says why).
		expect(versionsOf('n8n-nodes-contact-center.contactCenterTrigger')).toEqual([1.1]);
	});

	test('the example workflows are imported and the three trigger workflows are active with a webhook each', async () => {
		const list = await rt.publicApi(instance(), 'GET', '/workflows?limit=100');
		const byId = new Map((list.data as Json[]).map((w) => [w.id, w]));
		for (const wf of stack().workflows as Json[]) {
			expect(byId.get(wf.id)?.name).toBe(wf.name);
			expect(Boolean(byId.get(wf.id)?.active)).toBe(wf.trigger);
		}
		expect(
			stack()
				.webhooks.map((w: Json) => w.endpoint)
				.sort(),
		).toEqual(['lookup', 'notification', 'writeBack']);
		for (const hook of stack().webhooks as Json[]) expect(hook.method).toBe('POST');
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
		// The window and the time of reading (UTC, and in the workflow's zone as Sheets reads a date),
		// and the statuses that decide what agents and the queue count.
		expect(Object.keys(row)).toHaveLength(6 + metricPaths.length + 2);
		const sheetsDate = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
		for (const field of ['fromLocal', 'toLocal', 'retrievedAtLocal'])
			expect(row[field]).toMatch(sheetsDate);
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

	test('example 2, run twice: each name next to its outcome and status, a summary of who got it, who did not, who is unconfirmed; the rerun sends again only to the failed contacts', async () => {
		const id = workflowId('2-');
		const { result: run, requests } = await recording(() => execute(id));
		const recipients: Json[] = run.output('Contacts to remind');
		const sent: Json[] = run.output('Send reminders');
		expect(sent).toHaveLength(recipients.length);
		// The outcome first, then the input row's own fields (no Merge), then the contact.
		expect(Object.keys(sent[0]).slice(0, Object.keys(recipients[0]).length + 2)).toEqual([
			'outcome',
			...Object.keys(recipients[0]),
			'contact',
		]);
		expect(sent).toEqual(
			recipients.map((r) =>
				expect.objectContaining({ ...r, outcome: 'accepted', contact: r.phone }),
			),
		);
		expect(sent[0]).not.toHaveProperty('sendOnceKey');
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

		// One status column per contact, with the contact's name, and whether they got it.
		const received = {
			DELIVERED: 'yes',
			FAILED: 'no',
			DELIVERING_FAILED: 'no',
			SENT: 'unconfirmed',
		};
		const statuses: Json[] = run.output('Get status');
		expect(statuses).toHaveLength(recipients.length);
		for (const [i, status] of statuses.entries()) {
			const message = stored.find((m) => m.correlationId === sent[i].correlationId)!;
			// What happened first, then the contact's own fields (through Send's row), on screen.
			expect(Object.keys(status).slice(0, 4)).toEqual([
				'status',
				'received',
				'outcome',
				'firstName',
			]);
			expect(status).toMatchObject({
				received: received[message.status as keyof typeof received],
				status: message.status,
				contact: sent[i].contact,
				correlationId: sent[i].correlationId,
				firstName: recipients[i].firstName,
				outcome: 'accepted',
			});
		}
		// Get Delivery Report's summary of Send's items, one item for a message.
		const summary = {
			total: 4,
			gotItCount: 1,
			gotIt: 'Ada',
			didNotGetItCount: 2,
			didNotGetIt: 'Alan, Margaret',
			unconfirmedCount: 1,
			unconfirmed: 'Grace',
			text: 'Got it (1): Ada\nDid not get it (2): Alan, Margaret\nUnconfirmed (1): Grace',
		};
		expect(run.output('Delivery report')).toEqual([summary]);

		// Send's note says acceptance is not delivery, then what each status read means.
		expect(sent.map((s) => s.note)).toEqual(
			sent.map(() => expect.stringMatching(/^Accepted is not delivered yet: /)),
		);
		const statusNote = {
			DELIVERED: '',
			FAILED: 'Accepted, then failed: the service could not send it (see reason).',
			DELIVERING_FAILED: 'Accepted and sent, but not delivered to the contact (see reason).',
			SENT: 'Accepted and sent, delivery not confirmed: no delivery report has come back yet.',
		};
		expect(statuses.map((s) => s.note)).toEqual(
			statuses.map((s) => statusNote[s.status as keyof typeof statusNote]),
		);

		const notReceived: Json[] = run.output('Who did not get it') ?? [];
		// Read a second time (Get Status, then Get Failed): the note says it once.
		expect(notReceived.map((s) => s.note)).toEqual(
			notReceived.map((s) => statusNote[s.status as keyof typeof statusNote]),
		);
		const failed = stored.filter((m) => ['FAILED', 'DELIVERING_FAILED'].includes(m.status));
		expect(failed.map((m) => m.status).sort()).toEqual(['DELIVERING_FAILED', 'FAILED']);
		expect(notReceived).toEqual(
			failed.map((m) =>
				expect.objectContaining({
					contact: m.body.contact,
					status: m.status,
					// The service gives no reason for DELIVERING_FAILED: an empty cell, for a sheet's filter.
					reason: m.status === 'FAILED' ? m.reason : '',
					correlationId: m.correlationId,
					firstName: recipients.find((r) => r.phone === m.body.contact)!.firstName,
				}),
			),
		);

		// The rerun: the two whose message failed get it again, the others are already accepted.
		const { result: rerun, requests: rerunRequests } = await recording(() => execute(id));
		const again: Json[] = rerun.output('Send reminders');
		expect(again.map((s) => [s.firstName, s.outcome])).toEqual([
			['Ada', 'already accepted'],
			['Grace', 'already accepted'],
			['Alan', 'accepted'],
			['Margaret', 'accepted'],
		]);
		expect(again[0]).toMatchObject({
			correlationId: sent[0].correlationId,
			sentAt: sent[0].sentAt,
			note: expect.stringMatching(/^Nothing sent again: /),
		});
		expect(again[2].note).toContain('FAILED');
		expect(again[3].note).toContain('DELIVERING_FAILED');
		const resent = rerunRequests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/proactive-messaging'),
		);
		expect(resent).toHaveLength(2);
		// Ada's and Grace's earlier messages, Alan's and Margaret's new ones (which fail again).
		expect(rerun.output('Delivery report')).toEqual([summary]);
	});

	test('Send with Wait for Final Status: a message SENT first that then fails delivery ends DELIVERING_FAILED, received no', async () => {
		// As a provider reports it: a message that gets delivered, or not, is SENT for 3 s first.
		sim().options.sentForMs = 3000;
		try {
			const { result: run, requests } = await recording(() =>
				execute(SEND_WAIT_FOR_FINAL_STATUS.id),
			);
			const sent: Json[] = run.output('Send and wait');
			expect(sent.map((s) => [s.contact, s.outcome, s.received, s.status])).toEqual([
				['+31612350001', 'accepted', 'no', 'DELIVERING_FAILED'],
				['+31612355678', 'accepted', 'yes', 'DELIVERED'],
				['+31612350000', 'accepted', 'no', 'FAILED'],
			]);
			expect(sent[2].reason).toBe('Invalid phone number');
			// The service gives no reason for DELIVERING_FAILED: an empty cell.
			expect(sent[0].reason).toBe('');
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
	const ada = EXAMPLE_3_ADA;

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
				{ status: 409, type: json, body: writeBackAnswer('running', key) },
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
				{ status: 409, state: 'running' },
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
});
