import { createHmac } from 'crypto';
import { request } from 'undici';

import { DEFAULT_SIGNING_SECRET, signBody, startSimulator, type Simulator } from '../simulator';
import { parseTemplateShorthand } from '../simulator/shorthand';

const START = Date.parse('2025-03-10T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FORM = 'application/x-www-form-urlencoded';
const GOOD_GRANT =
	'grant_type=client_credentials&client_id=sim-client-id&client_secret=sim-client-secret&scope=client-read';
const TEMPLATE =
	'&((namespace=[[ns_1]] template=[[order_update]] fallback=[[order_update]] language=[[en_US]] body_text=[[Ana]] body_text=[[#42]]))&';

interface Reply {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
}

interface CallOptions {
	token?: string;
	headers?: Record<string, string>;
	body?: string;
	query?: Record<string, string>;
}

/** Clock and simulators shared by a describe block; the clock only moves when a test moves it. */
function useSimulator(options: Parameters<typeof startSimulator>[0] = {}) {
	const context = { clock: START } as { sim: Simulator; clock: number };
	beforeAll(async () => {
		context.sim = await startSimulator({ now: () => context.clock, ...options });
	});
	afterAll(async () => await context.sim.stop());
	return context;
}

async function call(
	sim: Simulator,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<Reply> {
	const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
	const headers: Record<string, string> = { ...options.headers };
	if (options.token) headers.authorization = `Bearer ${options.token}`;
	const response = await request(`${sim.url}${path}${query}`, {
		method: method as 'GET',
		headers,
		body: options.body,
	});
	const text = await response.body.text();
	let json: unknown;
	try {
		json = text === '' ? undefined : JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, headers: response.headers, text, json };
}

function requestToken(sim: Simulator, form = GOOD_GRANT, contentType = FORM) {
	return call(sim, 'POST', '/oauth2/token', {
		headers: { 'content-type': contentType },
		body: form,
	});
}

async function tokenOf(sim: Simulator, form = GOOD_GRANT): Promise<string> {
	const reply = await requestToken(sim, form);
	expect(reply.status).toBe(200);
	return reply.json.access_token;
}

function send(sim: Simulator, token: string, body: unknown) {
	return call(sim, 'POST', '/proactive-messaging/', {
		token,
		headers: { 'content-type': 'application/json' },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

const sms = (contact: string) => ({
	medium: 'TWILIO',
	channel: 'Main SMS',
	contact,
	text: 'Your order shipped',
});

describe('token endpoint', () => {
	const context = useSimulator({ tokenTtlSeconds: 600 });

	it('grants a bearer token for the client credentials in the form body', async () => {
		const reply = await requestToken(context.sim);
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.json).toEqual({
			token_type: 'bearer',
			access_token: expect.any(String),
			expires_in: 600,
		});
		expect(context.sim.counters).toMatchObject({
			tokenRequests: 1,
			tokensIssued: 1,
			tokenRequestsRefused: 0,
		});
	});

	it.each([
		[
			'a wrong secret',
			GOOD_GRANT.replace('sim-client-secret', 'nope'),
			FORM,
			401,
			'invalid_client',
		],
		[
			'no client id',
			GOOD_GRANT.replace('client_id=sim-client-id&', ''),
			FORM,
			401,
			'invalid_client',
		],
		[
			'a wrong scope',
			GOOD_GRANT.replace('client-read', 'client-write'),
			FORM,
			400,
			'invalid_scope',
		],
		['no scope', GOOD_GRANT.replace('&scope=client-read', ''), FORM, 400, 'invalid_scope'],
		[
			'another grant type',
			GOOD_GRANT.replace('client_credentials', 'password'),
			FORM,
			400,
			'unsupported_grant_type',
		],
		[
			'no grant type',
			GOOD_GRANT.replace('grant_type=client_credentials&', ''),
			FORM,
			400,
			'invalid_request',
		],
		[
			'a JSON body',
			JSON.stringify({ grant_type: 'client_credentials' }),
			'application/json',
			400,
			'invalid_request',
		],
	])('refuses %s', async (_case, form, contentType, status, error) => {
		const refusedBefore = context.sim.counters.tokenRequestsRefused;
		const reply = await requestToken(context.sim, form, contentType);
		expect(reply.status).toBe(status);
		expect(reply.json).toEqual({ error, error_description: expect.any(String) });
		expect(context.sim.counters.tokenRequestsRefused).toBe(refusedBefore + 1);
	});

	it('ignores HTTP Basic client authentication (the form body is required)', async () => {
		const basic = Buffer.from('sim-client-id:sim-client-secret').toString('base64');
		const reply = await call(context.sim, 'POST', '/oauth2/token', {
			headers: { 'content-type': FORM, authorization: `Basic ${basic}` },
			body: 'grant_type=client_credentials&scope=client-read',
		});
		expect(reply.status).toBe(401);
	});
});

describe('authentication of the API', () => {
	const context = useSimulator({ tokenTtlSeconds: 600 });
	const availability = '/reporting-metrics/agent-availability';

	beforeEach(() => context.sim.resetCounters());

	it('accepts the bearer header and the access_token query parameter', async () => {
		const token = await tokenOf(context.sim);
		expect((await call(context.sim, 'GET', availability, { token })).status).toBe(200);
		expect(
			(await call(context.sim, 'GET', availability, { query: { access_token: token } })).status,
		).toBe(200);
		expect(context.sim.counters.unauthorized).toBe(0);
	});

	it('answers 401 without a token or with an unknown one, and counts it', async () => {
		expect((await call(context.sim, 'GET', availability)).status).toBe(401);
		const unknown = await call(context.sim, 'GET', availability, { token: 'made-up' });
		expect(unknown.status).toBe(401);
		expect(unknown.json).toMatchObject({ error: 'invalid_token' });
		expect(context.sim.counters).toMatchObject({ unauthorized: 2, metricRequests: 0 });
	});

	it('expires tokens when the clock passes the ttl', async () => {
		const token = await tokenOf(context.sim);
		context.clock += 600_000 - 1;
		expect((await call(context.sim, 'GET', availability, { token })).status).toBe(200);
		context.clock += 1;
		expect((await call(context.sim, 'GET', availability, { token })).status).toBe(401);
	});

	it('expires every token on expireAllTokens and through the admin route', async () => {
		const first = await tokenOf(context.sim);
		expect(context.sim.expireAllTokens()).toBeGreaterThan(0);
		expect((await call(context.sim, 'GET', availability, { token: first })).status).toBe(401);

		const second = await tokenOf(context.sim);
		const expired = await call(context.sim, 'POST', '/__sim/expire-tokens');
		expect(expired.json).toEqual({ expired: 1 });
		expect((await call(context.sim, 'GET', availability, { token: second })).status).toBe(401);
	});

	it('answers 404 for unknown paths and 405 for wrong methods', async () => {
		const token = await tokenOf(context.sim);
		expect((await call(context.sim, 'GET', '/reporting-metrics/nothing', { token })).status).toBe(
			404,
		);
		const wrongMethod = await call(context.sim, 'DELETE', availability, { token });
		expect(wrongMethod.status).toBe(405);
		expect(wrongMethod.headers.allow).toBe('GET');
	});
});

describe('send validation', () => {
	const context = useSimulator();
	let token: string;
	beforeAll(async () => {
		token = await tokenOf(context.sim);
	});
	beforeEach(() => context.sim.resetCounters());

	it('accepts a valid send with or without the trailing slash and stores it', async () => {
		const reply = await send(context.sim, token, {
			...sms('+15551230000'),
			metadata: { orderId: '42' },
		});
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.json.correlationId).toMatch(
			/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
		);
		const withoutSlash = await call(context.sim, 'POST', '/proactive-messaging', {
			token,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(sms('+15551234567')),
		});
		expect(withoutSlash.status).toBe(200);
		const stored = context.sim.messages.find(
			(message) => message.correlationId === reply.json.correlationId,
		);
		expect(stored).toMatchObject({
			organization: 'org-1',
			body: { metadata: { orderId: '42' } },
			receivedAt: START,
			status: 'PROCESSING',
		});
		expect(context.sim.counters.sendsAccepted).toBe(2);
	});

	it('lists every missing or blank field in the errors array', async () => {
		const reply = await send(context.sim, token, { channel: ' ', text: '' });
		expect(reply.status).toBe(400);
		expect(reply.json).toEqual({
			errors: [
				'medium: must not be null',
				'channel: must not be blank',
				'contactReference: must not be blank',
				'text: must not be blank',
			],
		});
		expect(context.sim.counters).toMatchObject({ sendsRefusedValidation: 1, sendsAccepted: 0 });
	});

	it.each([
		['an unknown medium', JSON.stringify({ ...sms('+15551234567'), medium: 'SMS' })],
		['a lowercase medium', JSON.stringify({ ...sms('+15551234567'), medium: 'twilio' })],
		['unreadable JSON', '{"medium": "TWILIO",'],
		['a JSON array', JSON.stringify([sms('+15551234567')])],
		['a non-string contact', JSON.stringify({ ...sms('+15551234567'), contact: 15551234567 })],
	])('answers the Spring error shape for %s', async (_case, body) => {
		const reply = await send(context.sim, token, body);
		expect(reply.status).toBe(400);
		expect(reply.json).toEqual({
			timestamp: new Date(START).toISOString(),
			path: '/proactive-messaging/',
			status: 400,
			error: 'Bad Request',
			message: expect.any(String),
		});
		expect(context.sim.counters.sendsRefusedValidation).toBe(1);
	});

	it('refuses a body that is not declared as JSON', async () => {
		const reply = await call(context.sim, 'POST', '/proactive-messaging/', {
			token,
			headers: { 'content-type': 'text/plain' },
			body: JSON.stringify(sms('+15551234567')),
		});
		expect(reply.status).toBe(415);
	});

	it.each([
		['an array', ['a']],
		['a number value', { orderId: 42 }],
		['a nested object', { order: { id: '42' } }],
	])('refuses metadata that is %s', async (_case, metadata) => {
		const reply = await send(context.sim, token, { ...sms('+15551234567'), metadata });
		expect(reply.status).toBe(400);
		expect(reply.json).toEqual({ errors: ['metadata: must be an object with string values'] });
	});

	it('parses the template shorthand of a WhatsApp send and stores it', async () => {
		const reply = await send(context.sim, token, {
			medium: 'WHATSAPP',
			channel: 'WA',
			contact: '+15551234567',
			text: TEMPLATE,
		});
		expect(reply.status).toBe(200);
		const stored = context.sim.messages.find(
			(message) => message.correlationId === reply.json.correlationId,
		);
		expect(stored?.template).toEqual({
			namespace: 'ns_1',
			template: 'order_update',
			fallback: 'order_update',
			language: 'en_US',
			bodyText: ['Ana', '#42'],
		});
	});

	it('refuses a malformed template shorthand on WhatsApp but not on SMS', async () => {
		const malformed = TEMPLATE.replace(' language=[[en_US]]', '');
		const whatsapp = await send(context.sim, token, {
			medium: 'WHATSAPP',
			channel: 'WA',
			contact: '+15551234567',
			text: malformed,
		});
		expect(whatsapp.status).toBe(400);
		expect(whatsapp.json).toEqual({
			errors: ['text: malformed template shorthand: missing language'],
		});
		const twilio = await send(context.sim, token, { ...sms('+15551234567'), text: malformed });
		expect(twilio.status).toBe(200);
	});
});

describe('template shorthand parser', () => {
	it('parses zero or many body_text values, in order, with the named parameters in any order', () => {
		expect(
			parseTemplateShorthand('&((language=[[de]] namespace=[[n]] fallback=[[f]] template=[[t]]))&'),
		).toEqual({ namespace: 'n', template: 't', fallback: 'f', language: 'de', bodyText: [] });
		expect(parseTemplateShorthand(TEMPLATE).bodyText).toEqual(['Ana', '#42']);
	});

	it('keeps spaces, brackets and newlines inside values', () => {
		const parsed = parseTemplateShorthand(
			'&((namespace=[[n]] template=[[t]] fallback=[[Hello [you]\nthere]] language=[[en]] body_text=[[a b]]))&',
		);
		expect(parsed.fallback).toBe('Hello [you]\nthere');
		expect(parsed.bodyText).toEqual(['a b']);
	});

	it.each([
		['no opening', TEMPLATE.slice(3), /must start with/],
		['no closing', TEMPLATE.slice(0, -3), /must end with/],
		['text after the closing', `${TEMPLATE} `, /must end with/],
		['a missing namespace', TEMPLATE.replace('namespace=[[ns_1]] ', ''), /missing namespace/],
		[
			'a duplicate template',
			TEMPLATE.replace('))&', ' template=[[x]]))&'),
			/duplicate parameter template/,
		],
		['an unknown key', TEMPLATE.replace('))&', ' header=[[x]]))&'), /unknown parameter header/],
		['an empty value', TEMPLATE.replace('[[Ana]]', '[[]]'), /empty value for body_text/],
		['single brackets', TEMPLATE.replace('[[Ana]]', '[Ana]'), /expected key=\[\[value\]\]/],
		['no separating space', TEMPLATE.replace('[[Ana]] ', '[[Ana]]'), /separated by whitespace/],
		['an unclosed value', TEMPLATE.replace('[[#42]]', '[[#42'), /expected key=\[\[value\]\]/],
	])('rejects %s', (_case, text, message) => {
		expect(() => parseTemplateShorthand(text)).toThrow(message);
	});
});

describe('send rate limit', () => {
	const context = useSimulator({
		sendRateLimit: { limit: 3, windowMs: 200 },
		clients: [
			{ clientId: 'sim-client-id', clientSecret: 'sim-client-secret', organization: 'org-1' },
			{ clientId: 'other-id', clientSecret: 'other-secret', organization: 'org-2' },
		],
	});
	const otherGrant = GOOD_GRANT.replace('sim-client-id', 'other-id').replace(
		'sim-client-secret',
		'other-secret',
	);

	beforeEach(() => {
		context.clock += DAY; // an empty window for every test
		context.sim.options.rateLimitResponse = 'status429';
		context.sim.resetCounters();
	});

	it('refuses the send over the limit with 429 and Retry-After, then accepts once the window slides', async () => {
		const token = await tokenOf(context.sim);
		for (let index = 0; index < 3; index += 1) {
			expect((await send(context.sim, token, sms('+15551234567'))).status).toBe(200);
			context.clock += 50;
		}
		const refused = await send(context.sim, token, sms('+15551234567'));
		expect(refused.status).toBe(429);
		expect(refused.headers['retry-after']).toBe('1');
		expect(refused.json.errors[0]).toMatch(/^Rate limit exceeded: /);

		context.clock += 49; // the first send is still inside the 200 ms window
		expect((await send(context.sim, token, sms('+15551234567'))).status).toBe(429);
		context.clock += 1;
		expect((await send(context.sim, token, sms('+15551234567'))).status).toBe(200);
		expect(context.sim.counters).toMatchObject({ sendsAccepted: 4, sendsRefusedRateLimit: 2 });
	});

	it('validates before rate limiting and counts each organization separately', async () => {
		const token = await tokenOf(context.sim);
		for (let index = 0; index < 3; index += 1) await send(context.sim, token, sms('+15551234567'));
		expect((await send(context.sim, token, { medium: 'TWILIO' })).status).toBe(400);
		expect(
			(await send(context.sim, await tokenOf(context.sim, otherGrant), sms('+15551234567'))).status,
		).toBe(200);
		expect(context.sim.counters).toMatchObject({
			sendsAccepted: 4,
			sendsRefusedValidation: 1,
			sendsRefusedRateLimit: 0,
		});
	});

	it('answers 400 with an errors array and no Retry-After in the errors400 mode', async () => {
		context.sim.options.rateLimitResponse = 'errors400';
		const token = await tokenOf(context.sim);
		for (let index = 0; index < 3; index += 1) await send(context.sim, token, sms('+15551234567'));
		const refused = await send(context.sim, token, sms('+15551234567'));
		expect(refused.status).toBe(400);
		expect(refused.headers['retry-after']).toBeUndefined();
		expect(refused.json).toEqual({ errors: [expect.stringMatching(/^Rate limit exceeded/)] });
	});
});

describe('status overview and failed details', () => {
	const context = useSimulator({ settleAfterMs: 2000 });
	let token: string;
	beforeAll(async () => {
		token = await tokenOf(context.sim);
	});

	async function sendTo(contact: string, medium = 'TWILIO'): Promise<string> {
		const reply = await send(context.sim, token, { ...sms(contact), medium });
		expect(reply.status).toBe(200);
		return reply.json.correlationId;
	}

	it('counts a message as PROCESSING until it settles after settleAfterMs', async () => {
		const id = await sendTo('+15551234567');
		const processing = await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
		expect(processing.json).toEqual({
			correlationId: id,
			total: 1,
			statuses: { PROCESSING: 1, FAILED: 0, SENT: 0, DELIVERED: 0, DELIVERING_FAILED: 0 },
		});
		context.clock += 2000;
		const settled = await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
		expect(settled.json.statuses).toMatchObject({ PROCESSING: 0, DELIVERED: 1 });
	});

	it.each([
		['+15550000000', 'TWILIO', 'FAILED', 'Invalid phone number'],
		['+15550000001', 'MESSAGEBIRD', 'DELIVERING_FAILED', 'Message could not be delivered'],
		['+15550000002', 'TWILIO', 'SENT', undefined],
		['ana@example.com', 'TWILIO', 'FAILED', 'Contact is not a phone number'],
		['contact-7', 'WHATSAPP', 'DELIVERED', undefined],
	])('settles %s on %s as %s', async (contact, medium, status, reason) => {
		const id = await sendTo(contact, medium);
		context.sim.settleMessages();
		const overview = await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
		expect(overview.json.statuses[status]).toBe(1);
		const message = context.sim.messages.find((candidate) => candidate.correlationId === id);
		expect(message).toMatchObject({ status });
		expect(message?.reason).toBe(reason);
	});

	it('details list only FAILED messages; other status segments are 404', async () => {
		const failed = await sendTo('+15550000000');
		const deliveringFailed = await sendTo('+15550000001');
		await call(context.sim, 'POST', '/__sim/settle');

		const details = await call(context.sim, 'GET', `/proactive-messaging/${failed}/FAILED`, {
			token,
		});
		expect(details.status).toBe(200);
		expect(details.json).toEqual([
			{ status: 'FAILED', contact: '+15550000000', reason: 'Invalid phone number' },
		]);
		const none = await call(context.sim, 'GET', `/proactive-messaging/${deliveringFailed}/FAILED`, {
			token,
		});
		expect(none.json).toEqual([]);
		const otherStatus = await call(context.sim, 'GET', `/proactive-messaging/${failed}/DELIVERED`, {
			token,
		});
		expect(otherStatus.status).toBe(404);
		expect(otherStatus.json).toEqual({ errors: [expect.any(String)] });
	});

	it('answers 404 for an unknown id and for the id of another organization', async () => {
		const unknown = await call(context.sim, 'GET', '/proactive-messaging/no-such-id', { token });
		expect(unknown.status).toBe(404);
		expect(unknown.json).toEqual({
			errors: ['No proactive messages found for correlationId no-such-id'],
		});
		expect(
			(await call(context.sim, 'GET', '/proactive-messaging/no-such-id/FAILED', { token })).status,
		).toBe(404);

		const other = await startSimulator({
			now: () => context.clock,
			clients: [
				{ clientId: 'sim-client-id', clientSecret: 'sim-client-secret', organization: 'org-2' },
			],
		});
		try {
			const id = await sendTo('+15551234567');
			const foreign = await call(other, 'GET', `/proactive-messaging/${id}`, {
				token: await tokenOf(other),
			});
			expect(foreign.status).toBe(404);
		} finally {
			await other.stop();
		}
	});

	it('sends total as a string when totalAsString is set', async () => {
		const id = await sendTo('+15551234567');
		context.sim.options.totalAsString = true;
		try {
			const overview = await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
			expect(overview.json.total).toBe('1');
		} finally {
			context.sim.options.totalAsString = false;
		}
	});

	it('counts status and details calls', async () => {
		context.sim.resetCounters();
		const id = await sendTo('+15551234567');
		await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
		await call(context.sim, 'GET', `/proactive-messaging/${id}/FAILED`, { token });
		expect(context.sim.counters).toMatchObject({ statusRequests: 1, failedRequests: 1 });
		expect(context.sim.requests.map((logged) => [logged.method, logged.status])).toEqual([
			['POST', 200],
			['GET', 200],
			['GET', 200],
		]);
	});
});

describe('metrics', () => {
	const context = useSimulator();
	let token: string;
	beforeAll(async () => {
		token = await tokenOf(context.sim);
	});
	const iso = (offsetMs: number) => new Date(START + offsetMs).toISOString();
	const metric = (path: string, query: Record<string, string> = {}) =>
		call(context.sim, 'GET', path, { token, query });
	const badParameters = {
		errors: [expect.stringMatching(/^Bad request parameters: /)],
		errorType: null,
	};

	const fromRequired = [
		'/reporting-metrics/inbound-message-volume',
		'/reporting-metrics/outbound-message-volume',
		'/reporting-metrics/first-response-time',
		'/reporting-metrics/handle-time',
	];
	const queue = ['/queue-metrics/contacts-waiting', '/queue-metrics/longest-wait-time'];

	describe.each(fromRequired)('%s', (path) => {
		it('answers a deterministic data point with a recent from', async () => {
			const first = await metric(path, {
				from: iso(-DAY),
				mediumId: 'whatsapp',
				channelId: 'ch-1',
			});
			expect(first.status).toBe(200);
			expect(first.json).toEqual({ dataPoint: { value: expect.any(Number) } });
			expect(
				(await metric(path, { from: iso(-DAY), mediumId: 'whatsapp', channelId: 'ch-1' })).json,
			).toEqual(first.json);
		});

		it.each([
			['missing', {}],
			['empty', { from: '' }],
			['a date only', { from: '2025-03-09' }],
			['an impossible date', { from: '2025-02-30T00:00:00Z' }],
			['older than 14 days', { from: iso(-14 * DAY - 1) }],
			['after to', { from: iso(-HOUR), to: iso(-2 * HOUR) }],
		])('refuses a from that is %s', async (_case, query) => {
			const reply = await metric(path, query);
			expect(reply.status).toBe(400);
			expect(reply.json).toEqual(badParameters);
		});

		it('accepts from exactly 14 days back and a from with an offset', async () => {
			expect((await metric(path, { from: iso(-14 * DAY) })).status).toBe(200);
			expect((await metric(path, { from: '2025-03-10T10:00:00+02:00' })).status).toBe(200);
		});

		it.each([[''], ['WHATSAPP'], ['sms']])('refuses mediumId %j', async (mediumId) => {
			expect((await metric(path, { from: iso(-DAY), mediumId })).json).toEqual(badParameters);
		});
	});

	describe('resolved-with-one-reply', () => {
		const path = '/reporting-metrics/resolved-with-one-reply';
		it('takes from as optional, without the 14-day limit, but still well-formed', async () => {
			expect((await metric(path)).status).toBe(200);
			expect((await metric(path, { from: iso(-30 * DAY) })).status).toBe(200);
			expect((await metric(path, { from: 'yesterday' })).json).toEqual(badParameters);
			expect((await metric(path, { mediumId: '' })).json).toEqual(badParameters);
		});
	});

	describe.each([
		'/reporting-metrics/inbound-message-volume',
		'/reporting-metrics/outbound-message-volume',
	])('%s grouping', (path) => {
		it('answers one data point per interval for at most 60 intervals', async () => {
			const byMinute = await metric(path, {
				from: iso(-HOUR),
				groupByInterval: 'minute',
				timezone: 'Europe/Amsterdam',
			});
			expect(byMinute.status).toBe(200);
			expect(byMinute.json.dataPoints).toHaveLength(60);
			expect(byMinute.json.dataPoints[0]).toEqual({
				timestamp: iso(-HOUR),
				value: expect.any(Number),
			});
			const byHour = await metric(path, { from: iso(-60 * HOUR), groupByInterval: 'hour' });
			expect(byHour.json.dataPoints).toHaveLength(60);
			const byDay = await metric(path, {
				from: iso(-14 * DAY),
				to: iso(-13 * DAY),
				groupByInterval: 'day',
			});
			expect(byDay.json.dataPoints).toHaveLength(1);
		});

		it.each([
			['minute over one hour', { from: iso(-HOUR - 1), groupByInterval: 'minute' }],
			['hour over 60 hours', { from: iso(-61 * HOUR), groupByInterval: 'hour' }],
			['an unknown interval', { from: iso(-HOUR), groupByInterval: 'week' }],
			['an empty interval', { from: iso(-HOUR), groupByInterval: '' }],
			['an unknown timezone', { from: iso(-HOUR), timezone: 'Mars/Olympus' }],
			['an empty timezone', { from: iso(-HOUR), groupByInterval: 'hour', timezone: '' }],
		])('refuses %s', async (_case, query) => {
			expect((await metric(path, query)).json).toEqual(badParameters);
		});
	});

	it('ignores grouping parameters on endpoints that do not take them', async () => {
		const reply = await metric('/reporting-metrics/handle-time', {
			from: iso(-DAY),
			groupByInterval: 'week',
			timezone: 'x',
		});
		expect(reply.json).toEqual({ dataPoint: { value: expect.any(Number) } });
	});

	describe('agent-availability', () => {
		const path = '/reporting-metrics/agent-availability';
		it('is 0 without userPresenceStatus and needs no from', async () => {
			expect((await metric(path)).json).toEqual({ dataPoint: { value: 0 } });
			expect((await metric(path, { channelId: 'ch-1', from: 'not read' })).json).toEqual({
				dataPoint: { value: 0 },
			});
		});

		it('answers a number for away and available, and refuses other values', async () => {
			for (const userPresenceStatus of ['away', 'available']) {
				expect((await metric(path, { userPresenceStatus })).json).toEqual({
					dataPoint: { value: expect.any(Number) },
				});
			}
			expect((await metric(path, { userPresenceStatus: 'busy' })).json).toEqual(badParameters);
		});
	});

	describe.each(queue)('%s', (path) => {
		it('answers the Spring binding error without status', async () => {
			const reply = await metric(path, { mediumId: 'whatsapp' });
			expect(reply.status).toBe(400);
			expect(reply.json).toEqual({
				timestamp: START,
				status: 400,
				error: 'Bad Request',
				exception: 'org.springframework.web.bind.MissingServletRequestParameterException',
				message: "Required String parameter 'status' is not present",
				path,
			});
		});

		it('answers a number for new and pending and null for an empty mediumId', async () => {
			for (const status of ['new', 'pending']) {
				expect((await metric(path, { status, mediumId: 'fb' })).json).toEqual({
					dataPoint: { value: expect.any(Number) },
				});
			}
			expect((await metric(path, { status: 'new', mediumId: '' })).json).toEqual({
				dataPoint: { value: null },
			});
		});

		it.each([
			['an unknown status', { status: 'resolved' }],
			['an empty status', { status: '' }],
			['an unknown mediumId', { status: 'new', mediumId: 'pager' }],
		])('refuses %s', async (_case, query) => {
			expect((await metric(path, query)).json).toEqual(badParameters);
		});
	});

	it('counts metric calls', async () => {
		context.sim.resetCounters();
		await metric('/queue-metrics/contacts-waiting', { status: 'new' });
		await metric('/queue-metrics/contacts-waiting');
		expect(context.sim.counters.metricRequests).toBe(2);
	});
});

describe('CRM delivery admin route', () => {
	const context = useSimulator();
	const customer = useSimulator(); // its request log stands in for a customer endpoint

	it('posts the body signed with the signing secret and relays the response', async () => {
		const rawBody = '{"email":"ana@example.com"}';
		const reply = await call(context.sim, 'POST', '/__sim/crm/deliver', {
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url: `${customer.sim.url}/service-lookup`, body: rawBody }),
		});
		expect(reply.status).toBe(200);
		expect(reply.json).toMatchObject({
			status: 404,
			headers: { 'content-type': 'application/json' },
			body: { status: 404 },
		});

		const received = customer.sim.requests.at(-1);
		const expected = createHmac('sha256', Buffer.from(DEFAULT_SIGNING_SECRET, 'hex'))
			.update(rawBody)
			.digest('hex');
		expect(received?.headers['x-service-signature']).toBe(expected);
		expect(received?.headers['content-type']).toBe('application/json');
		expect(received?.headers.accept).toBe('application/json');
		expect(received?.body).toEqual({ email: 'ana@example.com' });
		expect(signBody(DEFAULT_SIGNING_SECRET, rawBody)).toBe(expected);
	});

	it('stringifies object bodies and honours secret, signature and headers overrides', async () => {
		const secret = 'a1b2c3d4';
		const body = { type: 'CONVERSATION_RESOLVED', version: 1 };
		await context.sim.deliverCrm({
			url: `${customer.sim.url}/write-back`,
			body,
			secret,
			headers: { 'x-extra': '1' },
		});
		const signed = customer.sim.requests.at(-1);
		expect(signed?.headers['x-service-signature']).toBe(
			createHmac('sha256', Buffer.from(secret, 'hex')).update(JSON.stringify(body)).digest('hex'),
		);
		expect(signed?.headers['x-extra']).toBe('1');

		await context.sim.deliverCrm({ url: `${customer.sim.url}/notify`, body, signature: 'forged' });
		expect(customer.sim.requests.at(-1)?.headers['x-service-signature']).toBe('forged');
	});

	it('answers 400 without a url and 502 when the customer cannot be reached', async () => {
		const noUrl = await call(context.sim, 'POST', '/__sim/crm/deliver', { body: '{}' });
		expect(noUrl.status).toBe(400);
		const closed = await startSimulator();
		const closedUrl = closed.url;
		await closed.stop();
		const unreachable = await call(context.sim, 'POST', '/__sim/crm/deliver', {
			body: JSON.stringify({ url: closedUrl, body: {} }),
		});
		expect(unreachable.status).toBe(502);
	});

	it('serves the other admin routes', async () => {
		expect((await call(context.sim, 'GET', '/__sim/counters')).json).toMatchObject({
			sendsAccepted: 0,
		});
		expect((await call(context.sim, 'GET', '/__sim/messages')).json).toEqual([]);
		expect((await call(context.sim, 'POST', '/__sim/settle')).json).toEqual({ settled: 0 });
		expect((await call(context.sim, 'POST', '/__sim/reset-counters')).json).toMatchObject({
			tokenRequests: 0,
		});
		expect(context.sim.requests).toEqual([]);
	});
});

describe('SENT step before delivery (sentForMs)', () => {
	const context = useSimulator({ settleAfterMs: 2000, sentForMs: 3000 });
	let token: string;
	beforeAll(async () => {
		token = await tokenOf(context.sim);
	});

	const statusOf = async (id: string) => {
		const overview = await call(context.sim, 'GET', `/proactive-messaging/${id}`, { token });
		const statuses: Record<string, number> = overview.json.statuses;
		return Object.keys(statuses).find((status) => statuses[status] === 1);
	};

	it('PROCESSING, then SENT for sentForMs, then DELIVERING_FAILED or DELIVERED; FAILED without the step', async () => {
		const ids = await Promise.all(
			['+15550000001', '+15551234567', '+15550000000'].map(async (contact) => {
				const reply = await send(context.sim, token, sms(contact));
				return reply.json.correlationId as string;
			}),
		);
		const statuses = async () => await Promise.all(ids.map(statusOf));
		expect(await statuses()).toEqual(['PROCESSING', 'PROCESSING', 'PROCESSING']);
		context.clock += 2000;
		expect(await statuses()).toEqual(['SENT', 'SENT', 'FAILED']);
		context.clock += 2999;
		expect(await statuses()).toEqual(['SENT', 'SENT', 'FAILED']);
		context.clock += 1;
		expect(await statuses()).toEqual(['DELIVERING_FAILED', 'DELIVERED', 'FAILED']);
	});

	it('settleMessages() skips the SENT step', async () => {
		const reply = await send(context.sim, token, sms('+15550000001'));
		context.sim.settleMessages();
		expect(await statusOf(reply.json.correlationId)).toBe('DELIVERING_FAILED');
	});
});

describe('faults after handling', () => {
	const context = useSimulator({ settleAfterMs: 0 });
	let token: string;
	beforeAll(async () => {
		token = await tokenOf(context.sim);
	});
	const queued = (contact: string) =>
		context.sim.messages.filter((message) => message.body.contact === contact);

	it('queues the message, then answers the fault: a 500 after the fact', async () => {
		context.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging/',
			afterHandling: true,
			response: { status: 500, body: { errors: ['Internal error'] } },
		});
		const reply = await send(context.sim, token, sms('+15551400001'));
		expect(reply.status).toBe(500);
		expect(reply.json).toEqual({ errors: ['Internal error'] });
		expect(queued('+15551400001')).toHaveLength(1);
		expect((await send(context.sim, token, sms('+15551400001'))).status).toBe(200);
	});

	it('a fault without afterHandling answers instead of the service: nothing is queued', async () => {
		context.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			response: { status: 503, body: { errors: ['maintenance'] } },
		});
		expect((await send(context.sim, token, sms('+15551400002'))).status).toBe(503);
		expect(queued('+15551400002')).toHaveLength(0);
	});

	it('resets the connection without an answer after queuing, and logs status 0', async () => {
		context.sim.injectFault({
			method: 'POST',
			path: '/proactive-messaging',
			afterHandling: true,
			resetConnection: true,
		});
		await expect(send(context.sim, token, sms('+15551400003'))).rejects.toThrow();
		expect(queued('+15551400003')).toHaveLength(1);
		expect(context.sim.requests[context.sim.requests.length - 1].status).toBe(0);
	});
});
