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

	it('reads the per-status counts with total as a number, even though the service sends a string', async () => {
		const [processing] = await send(['+15551234567']);
		const before = await runContactCenter(fixture.credentials, {
			resource: 'proactiveMessage',
			operation: 'getStatus',
			correlationId: processing,
		});
		expect(before.error).toBeUndefined();
		expect(before.json).toEqual([
			{
				correlationId: processing,
				contact: '',
				total: 1,
				PROCESSING: 1,
				FAILED: 0,
				SENT: 0,
				DELIVERED: 0,
				DELIVERING_FAILED: 0,
			},
		]);
		fixture.sim.settleMessages();
		const after = await runContactCenter(
			fixture.credentials,
			{ resource: 'proactiveMessage', operation: 'getStatus', correlationId: '={{ $json.id }}' },
			[{ id: processing }],
		);
		expect(after.json[0]).toMatchObject({ total: 1, PROCESSING: 0, DELIVERED: 1 });
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
				correlationId: ids[0],
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'Invalid phone number',
				detailsFromService: true,
			},
		]);
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it("lists every contact that did not get the message, from Send's output in one step: FAILED with the service's reason, DELIVERING_FAILED saying the service gives none", async () => {
		const sent = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}' }),
			['+15550000000', '+15550000001', '+15551234567', '+15550000002'].map((phone) => ({ phone })),
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
				correlationId: failed,
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'Invalid phone number',
				detailsFromService: true,
			},
			{
				correlationId: undelivered,
				contact: '+15550000001',
				status: 'DELIVERING_FAILED',
				reason: 'No reason given: the service gives no details for DELIVERING_FAILED messages',
				detailsFromService: false,
			},
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
				correlationId: id,
				contact: '+15550000001',
				status: 'DELIVERING_FAILED',
				reason: 'Handset off',
				detailsFromService: true,
			},
		]);
	});

	it('a FAILED count whose details come back empty still gets its row, saying so; a reason-less detail says that', async () => {
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
			},
			[
				{ id, phone: '+15550000000' },
				{ id: other, phone: '+15550000000' },
			],
		);
		expect(json).toEqual([
			{
				correlationId: id,
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'No reason given: the service gives no details for FAILED messages',
				detailsFromService: false,
			},
			{
				correlationId: other,
				contact: '+15550000000',
				status: 'FAILED',
				reason: 'No reason given by the service',
				detailsFromService: true,
			},
		]);
	});

	it('Get Status rows carry the contact of Send', async () => {
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
			total: 1,
		});
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
		expect(json[0]).toMatchObject({ correlationId: id, total: 1 });
		expect(json[1]).toMatchObject({
			correlationId: 'unknown',
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
		expect(json[0]).toMatchObject({ correlationId: id, total: 1 });
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
