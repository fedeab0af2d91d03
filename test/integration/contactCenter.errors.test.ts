import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

/** The error shapes of spec 7 as they reach a workflow, injected where the node cannot provoke them. */
describe('Contact Center: service errors', () => {
	const fixture = useSimulator();
	const sendRequests = () =>
		fixture.sim.requests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/proactive-messaging'),
		);
	beforeEach(() => fixture.sim.resetCounters());

	it('send validation errors: quotes the service and names the node fields, without retrying', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: {
				status: 400,
				body: { errors: ['contactReference: must not be blank', 'text: must not be blank'] },
			},
		});
		const { error } = await runContactCenter(fixture.credentials, sendParameters());
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(describeError(error)).toEqual({
			message:
				'The service refused the message: "contactReference: must not be blank", "text: must not be blank"',
			description: "Check 'Contact' and 'Text'. The message was not sent.",
		});
		expect(sendRequests()).toHaveLength(1);
	});

	it('the unreadable-body shape (timestamp, path, status, error, message)', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: {
				status: 400,
				body: {
					timestamp: '2026-11-22T10:00:00.000+00:00',
					path: '/proactive-messaging/',
					status: 400,
					error: 'Bad Request',
					message: 'JSON parse error: Unexpected character',
				},
			},
		});
		const { error } = await runContactCenter(fixture.credentials, sendParameters());
		expect(describeError(error).message).toBe(
			'The service refused the message: "JSON parse error: Unexpected character"',
		);
		expect(describeError(error).description).toContain('The message was not sent.');
	});

	it('a WhatsApp text that looks like a template is refused by the service in its own words', async () => {
		const { error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ medium: 'WHATSAPP', messageType: 'text', text: '&((hello' }),
		);
		expect(describeError(error).message).toMatch(
			/^The service refused the message: "text: malformed template shorthand/,
		);
		expect(describeError(error).description).toBe("Check 'Text'. The message was not sent.");
	});

	it('retries a temporary server error and sends the message once it recovers', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: { status: 503, body: { errors: ['maintenance'] } },
			times: 2,
		});
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ options: { rateLimitMessages: 100, rateLimitPeriodSeconds: 1 } }),
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ attempts: 3, possibleDuplicate: true });
		expect(fixture.sim.counters.sendsAccepted).toBe(1);
	});

	it('an answer without a correlation id fails the item and says the message was probably queued', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: { status: 200, body: {} },
		});
		const { error } = await runContactCenter(fixture.credentials, sendParameters());
		expect(describeError(error).message).toBe(
			'The service accepted the message but returned no correlationId: {}',
		);
		expect(describeError(error).description).toContain('probably queued');
	});

	it('the queue metric error shape with an epoch timestamp and an exception name', async () => {
		fixture.sim.injectFault({
			method: 'GET',
			path: '/queue-metrics/contacts-waiting',
			response: {
				status: 400,
				body: {
					timestamp: 1795000000000,
					status: 400,
					error: 'Bad Request',
					exception: 'MissingServletRequestParameterException',
					message: "Required String parameter 'status' is not present",
					path: '/queue-metrics/contacts-waiting',
				},
			},
		});
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'contactsWaiting',
			status: 'new',
		});
		expect(describeError(error).message).toBe(
			`The service refused the parameters of Contacts Waiting: "Required String parameter 'status' is not present"`,
		);
	});

	it('a metrics errors array is an error even when it comes with a 200', async () => {
		fixture.sim.injectFault({
			method: 'GET',
			path: '/reporting-metrics/agent-availability',
			response: {
				status: 200,
				body: { errors: ['Bad request parameters: channelId unknown'], errorType: null },
			},
		});
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'agentAvailability',
		});
		expect(describeError(error).message).toBe(
			'The service refused the parameters of Agent Availability: "Bad request parameters: channelId unknown"',
		);
	});

	it('a snapshot names the metric that failed', async () => {
		fixture.sim.injectFault({
			method: 'GET',
			path: '/reporting-metrics/handle-time',
			response: { status: 500, body: { errors: ['boom'] } },
		});
		const { json, error } = await runContactCenter(
			fixture.credentials,
			{ resource: 'metric', operation: 'getSnapshot' },
			[{}],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(json[0].error).toBe('The service failed with HTTP 500: "boom"');
		expect(String(json[0].errorDescription)).toContain("service's side");
	});
});
