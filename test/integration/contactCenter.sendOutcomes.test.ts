import { sleep } from 'n8n-workflow';

import { createCredentialStore } from '../harness';
import { startSimulator } from '../simulator';
import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

const MAY_HAVE_BEEN_SENT =
	'The message may have been sent: check the messages export before sending again.';
const NOT_SENT = 'The message was not sent.';

/** Fast pacing so that retries do not wait a second each. */
const fast = { rateLimitMessages: 100, rateLimitPeriodSeconds: 1 };

describe('Contact Center: Send says whether each message was sent', () => {
	const fixture = useSimulator({ settleAfterMs: 0 });
	const sendRequests = () =>
		fixture.sim.requests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/proactive-messaging'),
		);
	const queuedFor = (contact: string) =>
		fixture.sim.messages.filter((message) => message.body.contact === contact);
	beforeEach(() => fixture.sim.resetCounters());

	it.each([
		[{ channel: ' ' }],
		[{ contact: '0612345678' }],
		[{ text: '' }],
		[{ metadata: { entry: [{ key: '', value: '1' }] } }],
		[{ contact: '={{ $("No Such Node").item.json.phone }}' }],
		[
			{
				medium: 'WHATSAPP',
				messageType: 'template',
				templateNamespace: 'ns',
				templateName: 'reminder',
				templateLanguage: 'en',
				templateBodyVariables: { variable: [{ value: 'Ann))&' }] },
			},
		],
	])('a refusal before sending (%p) ends with "The message was not sent."', async (overrides) => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters(overrides),
			[{}],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(json[0]).toMatchObject({
			outcome: 'not sent',
			possibleDuplicate: false,
		});
		expect(String(json[0].errorDescription).endsWith(NOT_SENT)).toBe(true);
		expect(sendRequests()).toHaveLength(0);
	});

	it('a refused template value no longer reads as if the message went out', async () => {
		const { error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				medium: 'WHATSAPP',
				messageType: 'template',
				templateNamespace: 'ns',
				templateName: 'reminder',
				templateLanguage: 'en',
				templateBodyVariables: { variable: [{ value: 'Ann))&' }] },
			}),
		);
		expect(describeError(error)).toEqual({
			message:
				"'Body Variables: Variable {{1}}' contains '))&', which would break the template shorthand",
			description:
				"Remove '))&' from 'Body Variables: Variable {{1}}': the service would read it as template syntax and send other values than the ones you entered. The message was not sent.",
		});
	});

	it('queued, then answered 500: the retry succeeds and the item is marked as a possible duplicate', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			afterHandling: true,
			response: { status: 500, body: { errors: ['Internal error'] } },
		});
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '+15551300001', options: fast }),
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			outcome: 'accepted',
			possibleDuplicate: true,
			attempts: 2,
		});
		// What the mark is for: the service really holds the message twice.
		expect(queuedFor('+15551300001')).toHaveLength(2);
	});

	it('queued, then answered 500, with Retry Ambiguous Failures off: not sent again, the item says it may have been sent', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			afterHandling: true,
			response: { status: 500, body: { errors: ['Internal error'] } },
		});
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '+15551300002',
				options: { ...fast, retryAmbiguousFailures: false },
			}),
			[{}],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toEqual([
			{
				outcome: 'may have been sent',
				sentAt: '',
				sentAtLocal: '',
				correlationId: '',
				possibleDuplicate: false,
				medium: 'TWILIO',
				mediumName: 'SMS via Twilio',
				channel: 'Support SMS',
				contact: '+15551300002',
				messageType: 'text',
				attempts: 1,
				note: '',
				error: 'The service failed with HTTP 500: "Internal error"',
				errorDescription: `This is a problem on the service's side: try again later. ${MAY_HAVE_BEEN_SENT}`,
			},
		]);
		expect(sendRequests()).toHaveLength(1);
		expect(queuedFor('+15551300002')).toHaveLength(1);
	});

	it('connection reset after sending: retried and marked, or with retries off failed as "may have been sent"', async () => {
		const reset = () =>
			fixture.sim.injectFault({
				method: 'POST',
				path: '/proactive-messaging',
				afterHandling: true,
				resetConnection: true,
			});
		reset();
		const retried = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '+15551300003', options: fast }),
		);
		expect(retried.json[0]).toMatchObject({
			outcome: 'accepted',
			possibleDuplicate: true,
			attempts: 2,
		});
		expect(queuedFor('+15551300003')).toHaveLength(2);

		reset();
		const notRetried = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '+15551300004',
				options: { ...fast, retryAmbiguousFailures: false },
			}),
			[{}],
			true,
		);
		expect(notRetried.json[0]).toMatchObject({
			outcome: 'may have been sent',
			error: 'The connection to the service failed before its answer arrived',
			errorDescription: `ECONNRESET: socket hang up. Check the credential's Base URL and the network between n8n and the service. ${MAY_HAVE_BEEN_SENT}`,
		});
		expect(queuedFor('+15551300004')).toHaveLength(1);
	});

	it('time-out after sending: with retries off the item may have been sent; with retries on it is marked', async () => {
		const lateAnswer = () =>
			fixture.sim.injectFault({
				method: 'POST',
				path: '/proactive-messaging',
				afterHandling: true,
				delayMs: 3000,
			});
		lateAnswer();
		const notRetried = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '+15551300005',
				options: { ...fast, sendTimeout: 0.2, retryAmbiguousFailures: false },
			}),
			[{}],
			true,
		);
		expect(notRetried.json[0]).toMatchObject({
			outcome: 'may have been sent',
			possibleDuplicate: false,
		});
		expect(notRetried.json[0].error).toBe(
			'The connection to the service failed before its answer arrived',
		);
		expect(notRetried.json[0].errorDescription).toBe(
			`ECONNABORTED: timeout of 200ms exceeded. Check the credential's Base URL and the network between n8n and the service. ${MAY_HAVE_BEEN_SENT}`,
		);
		expect(queuedFor('+15551300005')).toHaveLength(1);

		lateAnswer();
		const retried = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '+15551300006', options: { ...fast, sendTimeout: 0.2 } }),
		);
		expect(retried.json[0]).toMatchObject({
			outcome: 'accepted',
			possibleDuplicate: true,
			attempts: 2,
		});
		expect(queuedFor('+15551300006')).toHaveLength(2);
	});

	it('a rate-limit refusal is retried even with Retry Ambiguous Failures off, and is no duplicate', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: {
				status: 429,
				headers: { 'Retry-After': '0' },
				body: { errors: ['Rate limit exceeded'] },
			},
		});
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '+15551300007',
				options: { ...fast, retryAmbiguousFailures: false },
			}),
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			outcome: 'accepted',
			possibleDuplicate: false,
			attempts: 2,
		});
		expect(queuedFor('+15551300007')).toHaveLength(1);
	});

	it('a 5xx on every attempt: after the retries the item says it may have been sent, possibly more than once', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: { status: 503, body: { errors: ['maintenance'] } },
			times: 7,
		});
		const { json } = await runContactCenter(
			fixture.credentials,
			sendParameters({ options: { rateLimitMessages: 1000, rateLimitPeriodSeconds: 1 } }),
			[{}],
			true,
		);
		expect(json[0]).toMatchObject({
			outcome: 'may have been sent',
			possibleDuplicate: true,
			error: 'The service failed with HTTP 503 (tried 7 times): "maintenance"',
		});
		expect(sendRequests()).toHaveLength(7);
	});

	it('an answer without a correlationId: the item may have been sent', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: { status: 200, body: {} },
		});
		const { json } = await runContactCenter(fixture.credentials, sendParameters(), [{}], true);
		expect(json[0]).toMatchObject({
			outcome: 'may have been sent',
			possibleDuplicate: false,
			error: 'The service accepted the message but returned no correlationId: {}',
			errorDescription: `The service probably queued it. ${MAY_HAVE_BEEN_SENT}`,
		});
	});

	it('with Continue On Fail every input item yields exactly one item that says sent, not sent or may have been sent', async () => {
		fixture.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			afterHandling: true,
			response: { status: 502, body: 'Bad Gateway' },
		});
		const { items, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '={{ $json.phone }}',
				options: { ...fast, retryAmbiguousFailures: false },
			}),
			[{ phone: '+15551300008' }, { phone: '' }, { phone: '+15551300009' }],
			true,
		);
		expect(error).toBeUndefined();
		expect(items.map(({ json, pairedItem }) => [pairedItem, json.outcome, json.contact])).toEqual([
			[{ item: 0 }, 'may have been sent', '+15551300008'],
			[{ item: 1 }, 'not sent', ''],
			[{ item: 2 }, 'accepted', '+15551300009'],
		]);
	});
});

describe('Contact Center: Send when the service cannot be reached before sending', () => {
	it('a refused connection is retried with Retry Ambiguous Failures off, and the message goes out once', async () => {
		const first = await startSimulator({ settleAfterMs: 0 });
		const { port } = first;
		const credentials = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: first.url,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
		// A token first, so that the send itself is what meets the closed port.
		await runContactCenter(credentials, sendParameters());
		await first.stop();
		let restarted: Awaited<ReturnType<typeof startSimulator>> | undefined;
		try {
			// One send every 3 s: the first attempt meets the closed port, the retry 3 s later the new one.
			const running = runContactCenter(
				credentials,
				sendParameters({
					contact: '+15551310001',
					options: {
						rateLimitMessages: 1,
						rateLimitPeriodSeconds: 3,
						retryAmbiguousFailures: false,
					},
				}),
			);
			await sleep(1000);
			restarted = await startSimulator({ port, settleAfterMs: 0 });
			const { json, error } = await running;
			expect(error).toBeUndefined();
			expect(json[0]).toMatchObject({
				outcome: 'accepted',
				possibleDuplicate: false,
				attempts: 2,
			});
			expect(restarted.messages.map((message) => message.body.contact)).toEqual(['+15551310001']);
		} finally {
			await restarted?.stop();
		}
	});
});

describe('Contact Center: Send -> Wait for Final Status', () => {
	// The simulator's clock moves 100 ms per status read, so every poll sees the next step, whatever
	// the machine's speed: PROCESSING for 200 ms, then SENT for 300 ms before DELIVERED or DELIVERING_FAILED.
	const fixture = useSimulator({
		settleAfterMs: 200,
		sentForMs: 300,
		now: () => fixture.sim.counters.statusRequests * 100,
	});
	const statusCalls = () =>
		fixture.sim.requests
			.filter((r) => r.method === 'GET' && /^\/proactive-messaging\/[^/]+$/.test(r.path))
			.map((r) => r.path.split('/').pop());

	it('waits past SENT until every message is DELIVERED, FAILED or DELIVERING_FAILED, one status call per message per poll', async () => {
		const requestsBefore = fixture.sim.requests.length;
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '={{ $json.phone }}',
				options: {
					...fast,
					waitForFinalStatus: true,
					finalStatusTimeout: 600,
					statusPollInterval: 0.01,
				},
			}),
			[{ phone: '+15551320001' }, { phone: '+15551324567' }, { phone: '+15551320000' }],
		);
		expect(error).toBeUndefined();
		expect(json.map((item) => [item.status, item.received])).toEqual([
			['DELIVERING_FAILED', 'no'],
			['DELIVERED', 'yes'],
			['FAILED', 'no'],
		]);
		expect(json[2].reason).toBe('Invalid phone number');
		// No reason given (the service gives none for DELIVERING_FAILED), none to give: empty cells.
		expect(json[0].reason).toBe('');
		expect(json[1].reason).toBe('');
		// Round 1 reads all three (the first still PROCESSING, the others SENT and FAILED), round 2
		// the two SENT, round 3 the one still SENT. A poll that stopped once nothing was PROCESSING
		// would have reported the first message as SENT.
		const [a, b, c] = json.map((item) => String(item.correlationId));
		const calls = fixture.sim.requests
			.slice(requestsBefore)
			.filter((r) => r.method === 'GET' && /^\/proactive-messaging\/[^/]+$/.test(r.path))
			.map((r) => r.path.split('/').pop());
		expect(calls).toEqual([a, b, c, a, b, a]);
	});

	it('at the timeout, a message still SENT is reported as SENT, received unconfirmed', async () => {
		fixture.sim.options.sentForMs = 0;
		const before = statusCalls().length;
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '={{ $json.phone }}',
				options: {
					...fast,
					waitForFinalStatus: true,
					finalStatusTimeout: 2,
					statusPollInterval: 0.05,
				},
			}),
			[{ phone: '+15551320002' }, { phone: '+15551325678' }],
		);
		expect(error).toBeUndefined();
		expect(json.map((item) => [item.status, item.received])).toEqual([
			['SENT', 'unconfirmed'],
			['DELIVERED', 'yes'],
		]);
		// The delivered message is not read again once it settled; the other one is read every poll.
		const calls = statusCalls().slice(before);
		const [stuck, delivered] = json.map((item) => String(item.correlationId));
		const lastDeliveredCall = calls.lastIndexOf(delivered);
		expect(calls.slice(lastDeliveredCall + 1).every((id) => id === stuck)).toBe(true);
		expect(calls.filter((id) => id === stuck).length).toBeGreaterThan(
			calls.filter((id) => id === delivered).length,
		);
	});
});
