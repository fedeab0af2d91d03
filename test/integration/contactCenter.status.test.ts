import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { addFinalStatuses } from '../../nodes/ContactCenter/actions/proactiveMessage/send/finalStatus';
import { captureLogs, runNode } from '../harness';
import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

describe('Contact Center: Get Status and Get Failed', () => {
	const fixture = useSimulator({ totalAsString: true });

	async function send(phones: string[]) {
		const { json } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}' }),
			phones.map((phone) => ({ phone })),
		);
		return json.map((item) => String(item.correlationId));
	}

	it('reads the status of the message in one column, and whether the contact got it; total may come as a string', async () => {
		const [processing] = await send(['+15551234567']);
		const before = await runContactCenter(fixture.credentials, {
			resource: 'proactiveMessage',
			operation: 'getStatus',
			correlationId: processing,
		});
		expect(before.error).toBeUndefined();
		expect(before.json).toEqual([
			{ received: 'unconfirmed', status: 'PROCESSING', contact: '', correlationId: processing },
		]);
		fixture.sim.settleMessages();
		const after = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getStatus', correlationId: '={{ $json.id }}' },
			[{ id: processing }],
		);
		// The input item's fields follow the row's own (Include Input Fields, on by default).
		expect(after.json[0]).toEqual({
			received: 'yes',
			status: 'DELIVERED',
			contact: '',
			correlationId: processing,
			id: processing,
		});
		expect(after.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('gives one item per failed message, and none when nothing failed', async () => {
		const ids = await send(['+15550000000', '+15551234567']);
		fixture.sim.settleMessages();
		const { json, items, error } = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getFailed', correlationId: '={{ $json.id }}' },
			ids.map((id) => ({ id })),
		);
		expect(error).toBeUndefined();
		expect(json).toEqual([
			{
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'Invalid phone number',
				correlationId: ids[0],
				id: ids[0],
			},
		]);
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it("lists every contact that did not get the message, from Send's output in one step: FAILED with the service's reason, DELIVERING_FAILED with an empty one (the service gives none); each with the input item's fields", async () => {
		const sent = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}', options: {} }),
			[
				{ firstName: 'Alan', phone: '+15550000000' },
				{ firstName: 'Margaret', phone: '+15550000001' },
				{ firstName: 'Ada', phone: '+15551234567' },
				{ firstName: 'Grace', phone: '+15550000002' },
			],
		);
		fixture.sim.settleMessages();
		fixture.sim.resetCounters();
		const { json, items, error } = await runContactCenter(
			fixture.credentials,
			{
				resource: 'proactiveMessage',
				operation: 'getFailed',
				correlationId: '={{ $json.correlationId }}',
			},
			sent.json,
		);
		expect(error).toBeUndefined();
		const [failed, undelivered] = sent.json.map((item) => String(item.correlationId));
		expect(json).toEqual([
			{
				...sent.json[0],
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'Invalid phone number',
				correlationId: failed,
				// Send's note, once the status is read: acceptance was not delivery.
				note: 'Accepted, then failed: the service could not send it (see reason).',
			},
			{
				...sent.json[1],
				contact: '+15550000001',
				status: 'DELIVERING_FAILED',
				reason: '',
				correlationId: undelivered,
				note: 'Accepted and sent, but not delivered to the contact (see reason).',
			},
		]);
		// What became of the message, then the input's own fields (Send's outcome, the first name).
		expect(Object.keys(json[0]).slice(0, 4)).toEqual(['status', 'reason', 'outcome', 'firstName']);
		expect(json.map((row) => [row.firstName, row.outcome])).toEqual([
			['Alan', 'accepted'],
			['Margaret', 'accepted'],
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		// The counts first; details only for the statuses counted, DELIVERING_FAILED asked all the same.
		expect(
			fixture.sim.requests.map((r) => `${r.status} ${r.path.replace(/[0-9a-f-]{36}/, 'ID')}`),
		).toEqual([
			'200 /proactive-messaging/ID',
			'200 /proactive-messaging/ID/FAILED',
			'200 /proactive-messaging/ID',
			'404 /proactive-messaging/ID/DELIVERING_FAILED',
			'200 /proactive-messaging/ID',
			'200 /proactive-messaging/ID',
		]);
	});

	it('takes the DELIVERING_FAILED details where the service gives them', async () => {
		const [id] = await send(['+15550000001']);
		fixture.sim.settleMessages();
		fixture.sim.injectFault({
			method: 'GET',
			path: `/proactive-messaging/${id}/DELIVERING_FAILED`,
			response: {
				status: 200,
				body: [{ status: 'DELIVERING_FAILED', contact: '+15550000001', reason: 'Handset off' }],
			},
		});
		const { json } = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getFailed', correlationId: id },
			[{}],
		);
		expect(json).toEqual([
			{
				contact: '+15550000001',
				status: 'DELIVERING_FAILED',
				reason: 'Handset off',
				correlationId: id,
			},
		]);
	});

	it('a FAILED count whose details come back empty still gets its row; no reason given is an empty reason', async () => {
		const [id, other] = await send(['+15550000000', '+15550000000']);
		fixture.sim.settleMessages();
		fixture.sim.injectFault({
			method: 'GET',
			path: `/proactive-messaging/${id}/FAILED`,
			response: { status: 200, body: [] },
		});
		fixture.sim.injectFault({
			method: 'GET',
			path: `/proactive-messaging/${other}/FAILED`,
			response: { status: 200, body: [{ status: 'FAILED', contact: '+15550000000' }] },
		});
		const { json } = await runContactCenter(
			fixture.credentials,
			{
				resource: 'proactiveMessage',
				operation: 'getFailed',
				correlationId: '={{ $json.id }}',
				sentToContact: '={{ $json.phone }}',
				options: { includeInputFields: false },
			},
			[
				{ id, phone: '+15550000000' },
				{ id: other, phone: '+15550000000' },
			],
		);
		// Include Input Fields off: the rows' own fields only.
		expect(json).toEqual([
			{ contact: '+15550000000', status: 'FAILED', reason: '', correlationId: id },
			{ contact: '+15550000000', status: 'FAILED', reason: '', correlationId: other },
		]);
	});

	it('tells "the service gave no details" from "the details could not be read": a 404 for DELIVERING_FAILED is an empty reason; a 429, a 5xx or no answer is a reason that says so and why, one warning in the run and one line in n8n\'s log', async () => {
		const ids = await send(['+15550000001', '+15550000001', '+15550000001', '+15550000001']);
		fixture.sim.settleMessages();
		const detailsOf = (id: string) => `/proactive-messaging/${id}/DELIVERING_FAILED`;
		fixture.sim.injectFault({
			method: 'GET',
			path: detailsOf(ids[1]),
			response: { status: 429, body: { message: 'Too many requests' } },
		});
		fixture.sim.injectFault({
			method: 'GET',
			path: detailsOf(ids[2]),
			response: { status: 503, body: { message: 'Service unavailable' } },
		});
		fixture.sim.injectFault({ method: 'GET', path: detailsOf(ids[3]), resetConnection: true });
		const logs = captureLogs();
		let run;
		try {
			run = await runContactCenter(
				fixture.credentials,
				{
					resource: 'proactiveMessage',
					operation: 'getFailed',
					correlationId: '={{ $json.id }}',
					sentToContact: '+15550000001',
					options: { includeInputFields: false },
				},
				ids.map((id) => ({ id })),
			);
		} finally {
			logs.restore();
		}
		expect(run.error).toBeUndefined();
		expect(run.json.map((row) => row.status)).toEqual(Array(4).fill('DELIVERING_FAILED'));
		expect(run.json.map((row) => row.reason)).toEqual([
			'',
			"The service's details could not be read (HTTP 429: Too many requests); run Get Failed again later for the reason",
			"The service's details could not be read (HTTP 503: Service unavailable); run Get Failed again later for the reason",
			expect.stringMatching(
				/^The service's details could not be read \(no answer: .+\); run Get Failed/,
			),
		]);
		const warning =
			/^The service's details of failed messages could not be read \(3 reads, the last: no answer: .+\): the reason of their rows says so/;
		expect(run.hints).toEqual([
			expect.objectContaining({ type: 'warning', message: expect.stringMatching(warning) }),
		]);
		expect(logs.at('warn')).toEqual([
			expect.stringMatching(
				/^Contact Center "Contact Center": The service's details of failed messages could not be read \(3 reads/,
			),
		]);
	});

	it('Wait for Final Status: a FAILED message whose details cannot be read (a 503) gets a reason that says so, not an empty one, and the run a warning', async () => {
		const [failed] = await send(['+15550000000']);
		fixture.sim.settleMessages();
		fixture.sim.injectFault({
			method: 'GET',
			path: `/proactive-messaging/${failed}/FAILED`,
			response: { status: 503, body: { message: 'Service unavailable' } },
		});
		// Send's last step on its own rows, through n8n-core (the send itself is tested elsewhere).
		const finalStatusOnly: INodeType = {
			description: {
				...new ContactCenter().description,
				properties: [],
			},
			async execute(this: IExecuteFunctions) {
				const items = this.getInputData();
				await addFinalStatuses.call(this, items, { timeoutMs: 5_000, pollIntervalMs: 10 });
				return [items];
			},
		};
		const logs = captureLogs();
		let run;
		try {
			run = await runNode({
				nodeType: finalStatusOnly,
				parameters: {},
				credentials: fixture.credentials,
				inputItems: [{ json: { outcome: 'accepted', correlationId: failed } }],
			});
		} finally {
			logs.restore();
		}
		expect(run.error).toBeUndefined();
		expect(run.output?.[0][0].json).toMatchObject({
			outcome: 'accepted',
			received: 'no',
			status: 'FAILED',
			reason:
				"The service's details could not be read (HTTP 503: Service unavailable); run Get Failed again later for the reason",
		});
		expect(run.hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringMatching(/could not be read \(1 read, the last: HTTP 503/),
			}),
		]);
		expect(logs.at('warn')).toHaveLength(1);
	});

	it("Get Status rows carry the contact of Send and, after the status columns, the fields of Send's row (outcome, sentAt)", async () => {
		const sent = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '+15551239999' }),
		);
		const { json } = await runContactCenter(
			fixture.credentials,
			{
				resource: 'proactiveMessage',
				operation: 'getStatus',
				correlationId: '={{ $json.correlationId }}',
			},
			sent.json,
		);
		expect(json[0]).toMatchObject({
			correlationId: sent.json[0].correlationId,
			contact: '+15551239999',
			outcome: 'accepted',
			sentAt: sent.json[0].sentAt,
		});
		// Get Failed's rows start with status too; the input's fields follow the status columns.
		expect(Object.keys(json[0]).slice(0, 3)).toEqual(['status', 'received', 'outcome']);
		expect(Object.keys(json[0]).slice(-2)).toEqual(['contact', 'correlationId']);
	});

	it("quotes the service's words for an unknown correlation id and says what to use instead", async () => {
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'proactiveMessage',
			operation: 'getStatus',
			correlationId: 'no-such-id',
		});
		const { message, description } = describeError(error);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(message).toBe(
			`The service found nothing for correlation ID 'no-such-id': "No proactive messages found for correlationId no-such-id"`,
		);
		expect(description).toContain('Use the correlationId that Send returned');
	});

	it('with Continue On Fail returns one item per input item, the error in it', async () => {
		const [id] = await send(['+15551234567']);
		const { json, error } = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getStatus', correlationId: '={{ $json.id }}' },
			[{ id }, { id: 'unknown' }, { id: '' }],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(3);
		expect(json[0]).toMatchObject({ correlationId: id, status: 'PROCESSING' });
		expect(json[1]).toMatchObject({
			correlationId: 'unknown',
			id: 'unknown',
			error: expect.stringContaining("found nothing for correlation ID 'unknown'"),
		});
		expect(json[2]).toMatchObject({ error: "'Correlation ID' is empty" });
	});

	it("takes the correlation ID from Send's output by default; an expression that finds nothing is refused as empty before any call, never sent as 'undefined'", async () => {
		const [id] = await send(['+15551234567']);
		const before = fixture.sim.requests.length;
		const { json, error } = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getStatus' },
			[{ correlationId: id }, { contact: '+15551234567' }],
			true,
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ correlationId: id, received: 'unconfirmed' });
		expect(json[1]).toMatchObject({ error: "'Correlation ID' is empty" });
		expect(fixture.sim.requests.slice(before).map((r) => r.path)).toEqual([
			`/proactive-messaging/${id}`,
		]);
	});
});

describe('Contact Center: credentials', () => {
	const fixture = useSimulator();

	it('reports a wrong client secret as a credential problem that names what to check', async () => {
		const { createCredentialStore } = await import('../harness');
		const wrong = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: fixture.sim.url,
				clientId: 'sim-client-id',
				clientSecret: 'wrong',
			},
		});
		const { error } = await runContactCenter(wrong, sendParameters());
		const { message, description } = describeError(error);
		expect(message).toContain('The service refused the credentials');
		expect(description).toContain('Client Secret');
		expect(fixture.sim.counters.sendsAccepted).toBe(0);
	});

	it('reports an unreachable base URL', async () => {
		const { createCredentialStore } = await import('../harness');
		const unreachable = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: 'http://127.0.0.1:9',
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
		const { error } = await runContactCenter(unreachable, {
			resource: 'metric',
			operation: 'get',
			metric: 'agentAvailability',
		});
		expect(describeError(error).message).toMatch(/credentials|reached|refused/);
		expect(describeError(error).description).toMatch(/Base URL/);
	});
});
