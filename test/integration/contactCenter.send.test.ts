import { getGlobalState, sleep } from 'n8n-workflow';

import { NOT_YET_DELIVERED_NOTE } from '../../nodes/ContactCenter/helpers/deliveryNote';
import { sheetsDateTime } from '../../nodes/ContactCenter/helpers/dateTime';
import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

const WORKFLOW_TIME_ZONE = getGlobalState().defaultTimezone;

describe('Contact Center: Proactive Message -> Send', () => {
	const fixture = useSimulator({ settleAfterMs: 0 });
	const sendsOf = () =>
		fixture.sim.requests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/proactive-messaging'),
		);
	beforeEach(() => fixture.sim.resetCounters());

	it('sends an SMS and returns the correlation id with the fields that join it to its row', async () => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}' }),
			[{ phone: '+15551230001' }, { phone: '+15551230002' }],
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(2);
		expect(json[0]).toEqual({
			outcome: 'accepted',
			contact: '+15551230001',
			correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
			sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			// The same moment in the workflow's zone, as Google Sheets reads a date and time.
			sentAtLocal: sheetsDateTime(Date.parse(json[0].sentAt as string), WORKFLOW_TIME_ZONE),
			possibleDuplicate: false,
			note: NOT_YET_DELIVERED_NOTE,
			medium: 'TWILIO',
			mediumName: 'SMS via Twilio',
			channel: 'Support SMS',
			messageType: 'text',
			attempts: 1,
			// The input item's fields, right after the outcome (Include Input Fields).
			phone: '+15551230001',
		});
		expect(Object.keys(json[0]).slice(0, 3)).toEqual(['outcome', 'phone', 'contact']);
		expect(json[1].contact).toBe('+15551230002');
		expect(sendsOf().map((r) => r.body)).toEqual([
			{
				medium: 'TWILIO',
				channel: 'Support SMS',
				contact: '+15551230001',
				text: 'Your order has shipped',
			},
			{
				medium: 'TWILIO',
				channel: 'Support SMS',
				contact: '+15551230002',
				text: 'Your order has shipped',
			},
		]);
		expect(sendsOf()[0].headers.authorization).toMatch(/^Bearer /);
		expect(fixture.sim.counters.sendsAccepted).toBe(2);
	});

	it('builds a WhatsApp template that the service parses into the same fields', async () => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				medium: 'WHATSAPP',
				messageType: 'template',
				templateNamespace: 'ns_42',
				templateName: 'order_shipped',
				templateLanguage: 'en_US',
				templateBodyVariables: { variable: [{ value: 'Ann' }, { value: '={{ $json.order }}' }] },
				metadata: { entry: [{ key: 'orderId', value: '={{ $json.order }}' }] },
			}),
			[{ order: 1234 }],
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			medium: 'WHATSAPP',
			messageType: 'template',
		});
		const message = fixture.sim.messages.find((m) => m.correlationId === json[0].correlationId);
		expect(message?.template).toEqual({
			namespace: 'ns_42',
			template: 'order_shipped',
			fallback: 'order_shipped',
			language: 'en_US',
			bodyText: ['Ann', '1234'],
		});
		expect(message?.body.metadata).toEqual({ orderId: '1234' });
	});

	it.each([
		[{ channel: ' ' }, "'Channel' is empty"],
		[{ contact: '' }, "'Contact' is empty"],
		[
			{ contact: '0612345678' },
			"'Contact' '0612345678' looks like a phone number without the leading +",
		],
		[{ text: '' }, "'Text' is empty"],
		[{ medium: 'SMS' }, "'Medium' has an unknown value 'SMS'"],
		[
			{
				metadata: {
					entry: [
						{ key: 'a', value: '1' },
						{ key: 'a', value: '2' },
					],
				},
			},
			"'Metadata' has the key 'a' twice",
		],
		[
			{
				medium: 'WHATSAPP',
				messageType: 'template',
				templateNamespace: 'ns',
				templateName: 'name]]x',
				templateLanguage: 'en',
			},
			"'Template Name' contains ']]'",
		],
	])('refuses %p before sending anything', async (overrides, message) => {
		const { error } = await runContactCenter(fixture.credentials, sendParameters(overrides));
		expect(describeError(error).message).toContain(message);
		expect(describeError(error).description).toMatch(/\S\. The message was not sent\.$/);
		expect(sendsOf()).toHaveLength(0);
	});

	it('with Continue On Fail gives exactly one item per input item, the failed one saying it was not sent', async () => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}' }),
			[{ phone: '+15551230001' }, { phone: '' }, { phone: '+15551230003' }],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(3);
		expect(json.map((item) => item.outcome)).toEqual(['accepted', 'not sent', 'accepted']);
		// Each item keeps its input item's fields, the failed one too.
		expect(json.map((item) => item.phone)).toEqual(['+15551230001', '', '+15551230003']);
		expect(json[1]).toMatchObject({
			outcome: 'not sent',
			error: "'Contact' is empty",
			errorDescription:
				"Enter the phone number (with + and country code) or contact reference to message. By default Contact reads the input's phone, mobile or contact field: name the input's field in Contact, e.g. {{ $json.telephone }}. The message was not sent.",
			medium: 'TWILIO',
			channel: 'Support SMS',
		});
		expect(fixture.sim.counters.sendsAccepted).toBe(2);
	});

	it("at its default, Contact reads the input's phone, else mobile, else contact field", async () => {
		const parameters = sendParameters();
		delete parameters.contact;
		const { json, error } = await runContactCenter(
			fixture.credentials,
			parameters,
			[
				{ phone: '+15551240001', mobile: '+15559999999' },
				{ mobile: '+15551240002' },
				{ contact: '+15551240003' },
				{ telephone: '+15551240004' },
			],
			true,
		);
		expect(error).toBeUndefined();
		expect(json.map((row) => [row.outcome, row.contact])).toEqual([
			['accepted', '+15551240001'],
			['accepted', '+15551240002'],
			['accepted', '+15551240003'],
			['not sent', ''],
		]);
		expect(json[3].error).toBe("'Contact' is empty");
		expect(sendsOf().map((r) => (r.body as { contact: string }).contact)).toEqual([
			'+15551240001',
			'+15551240002',
			'+15551240003',
		]);
	});

	it('waits for the final status and adds the failure reason', async () => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '={{ $json.phone }}',
				options: { waitForFinalStatus: true, finalStatusTimeout: 10, statusPollInterval: 0.02 },
			}),
			[{ phone: '+15551234567' }, { phone: '+15550000000' }],
		);
		expect(error).toBeUndefined();
		// The note says what the status means: a delivered row's is empty, a failed one's says
		// that the service accepted it and then it failed.
		expect(json[0]).toMatchObject({ received: 'yes', status: 'DELIVERED', reason: '', note: '' });
		expect(json[1]).toMatchObject({
			received: 'no',
			status: 'FAILED',
			reason: 'Invalid phone number',
			note: 'Accepted, then failed: the service could not send it (see reason).',
		});
		// Right after the outcome, before the input's fields and the rest of the row.
		expect(Object.keys(json[1]).slice(0, 5)).toEqual([
			'outcome',
			'received',
			'status',
			'reason',
			'phone',
		]);
	});
});

describe('Contact Center: Send at the rate limit', () => {
	// The service's 60 per minute, scaled down to 10 per second: slow enough that each execution
	// keeps its pace on a busy machine, so that two of them together always go past the limit.
	const fixture = useSimulator({ sendRateLimit: { limit: 10, windowMs: 1000 } });
	const atTheLimit = { rateLimitMessages: 10, rateLimitPeriodSeconds: 1 };
	const phones = (prefix: string, count: number) =>
		Array.from({ length: count }, (_, i) => ({
			phone: `+1555${prefix}${String(i).padStart(4, '0')}`,
		}));
	beforeEach(async () => {
		await sleep(1050); // let the previous test's sends leave the window
		fixture.sim.resetCounters();
	});

	it.each([['10 messages per second', atTheLimit]])(
		'paced at the limit (%s), sends every message without a single refusal',
		async (_, options) => {
			const { json, error } = await runContactCenter(
				fixture.credentials,
				sendParameters({ contact: '={{ $json.phone }}', options }),
				phones('123', 30),
			);
			expect(error).toBeUndefined();
			expect(json.every((item) => item.outcome === 'accepted')).toBe(true);
			expect(fixture.sim.counters.sendsAccepted).toBe(30);
			expect(fixture.sim.counters.sendsRefusedRateLimit).toBe(0);
		},
	);

	it('when two executions share the limit, retries the refused messages and loses none', async () => {
		const [first, second] = await Promise.all([
			runContactCenter(
				fixture.credentials,
				sendParameters({ contact: '={{ $json.phone }}', options: atTheLimit }),
				phones('124', 15),
			),
			runContactCenter(
				fixture.credentials,
				sendParameters({ contact: '={{ $json.phone }}', options: atTheLimit }),
				phones('125', 15),
			),
		]);
		const json = [...first.json, ...second.json];
		expect([first.error, second.error]).toEqual([undefined, undefined]);
		expect(json.filter((item) => item.outcome === 'accepted')).toHaveLength(30);
		expect(fixture.sim.counters.sendsAccepted).toBe(30);
		expect(fixture.sim.counters.sendsRefusedRateLimit).toBeGreaterThan(0);
		expect(json.some((item) => Number(item.attempts) > 1)).toBe(true);
	});

	it('keeps sending when the token expires in the middle of a batch: n8n fetches one new token', async () => {
		await runContactCenter(fixture.credentials, sendParameters());
		fixture.sim.resetCounters();
		// Expire the tokens once the first message of the batch is accepted, before the second is sent.
		const expiry = (async () => {
			while (fixture.sim.counters.sendsAccepted < 1) await sleep(5);
			fixture.sim.expireAllTokens();
		})();
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}', options: { rateLimitMessages: 300 } }),
			phones('126', 3),
		);
		await expiry;
		expect(error).toBeUndefined();
		expect(json.map((item) => item.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
		expect(fixture.sim.counters.unauthorized).toBe(1);
		expect(fixture.sim.counters.tokenRequests).toBe(1);
	});
});

describe('Contact Center: Send when the limit cannot be met', () => {
	const fixture = useSimulator({
		sendRateLimit: { limit: 1, windowMs: 600_000 },
		rateLimitResponse: 'errors400',
	});

	it('waits for room up to Rate Limit Wait, then says plainly that the message was not sent', async () => {
		const { json, error } = await runContactCenter(
			fixture.credentials,
			sendParameters({
				contact: '={{ $json.phone }}',
				// Waits of 1, 2, 4 ... 512 ms, then one period (1 s) would pass the 1.2 s bound.
				options: {
					rateLimitMessages: 1000,
					rateLimitPeriodSeconds: 1,
					rateLimitMaxWaitMinutes: 0.02,
				},
			}),
			[{ phone: '+15551260001' }, { phone: '+15551260002' }],
			true,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(2);
		expect(json[0].outcome).toBe('accepted');
		expect(json[1]).toMatchObject({
			outcome: 'not sent',
			possibleDuplicate: false,
			contact: '+15551260002',
		});
		expect(json[1].error).toBe(
			'The service\'s send rate limit was reached (tried 11 times): "Rate limit exceeded: at most 1 messages per 600000 ms per organization"',
		);
		expect(json[1].errorDescription).toContain('The message was not sent.');
		expect(fixture.sim.counters.sendsRefusedRateLimit).toBe(11);
	});
});
