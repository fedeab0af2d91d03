import {
	classifyRecordFailure,
	failureMessage,
	isSizeLimitFailure,
	recordFailureText,
	recordRetryDelayMs,
	statusOf,
	textAnswerFailure,
} from '../../nodes/shared/recordApi/failure';

describe('a failed call to the record', () => {
	const sizeLimit = 'Data table size limit exceeded: 20MB used, limit is 0MB';

	test("adds n8n's explanation from the answer's body to httpRequest's message", () => {
		const error = {
			message: 'Request failed with status code 400',
			response: { status: 400, data: { message: sizeLimit } },
		};
		expect(failureMessage(error)).toBe(`Request failed with status code 400: ${sizeLimit}`);
		expect(statusOf(error)).toBe(400);
	});

	test('reads the answer nested under cause, as other n8n-core versions throw it', () => {
		const error = {
			message: 'failed',
			cause: { response: { status: 401, data: { message: 'unauthorized' } } },
		};
		expect(failureMessage(error)).toBe('failed: unauthorized');
		expect(statusOf(error)).toBe(401);
	});

	test('keeps the message as it is when the body explains nothing new or is not an object', () => {
		expect(
			failureMessage({ message: `400 - ${sizeLimit}`, response: { data: { message: sizeLimit } } }),
		).toBe(`400 - ${sizeLimit}`);
		expect(failureMessage({ message: 'x', response: { data: 'plain text' } })).toBe('x');
		expect(failureMessage({ message: 'x', response: { data: { message: 42 } } })).toBe('x');
		expect(failureMessage({ response: { data: null } })).toBe('request failed');
	});

	test('status 0 when there was no answer; httpCode first', () => {
		expect(statusOf({ message: 'ECONNREFUSED' })).toBe(0);
		expect(statusOf({ httpCode: '503', response: { status: 500 } })).toBe(503);
		expect(statusOf({ httpCode: 'not a number' })).toBe(0);
	});

	test("recognises n8n's size limit refusal, and nothing else", () => {
		expect(isSizeLimitFailure(`The record answered 400: ${sizeLimit}`)).toBe(true);
		expect(isSizeLimitFailure('The record answered 401: unauthorized')).toBe(false);
	});
});

describe('what a failed record call means', () => {
	const answered = (status: number, headers: Record<string, unknown> = {}, data: unknown = {}) => ({
		message: `Request failed with status code ${status}`,
		response: { status, headers, data },
	});

	test('a 429 is a rate limit, with its Retry-After and the limit n8n named', () => {
		const failure = classifyRecordFailure(
			answered(
				429,
				{ 'Retry-After': '2', 'RateLimit-Policy': '100;w=60' },
				{ message: 'Too many requests' },
			),
		);
		expect(failure).toMatchObject({
			kind: 'rateLimited',
			status: 429,
			retryAfterMs: 2000,
			limit: '100;w=60',
		});
		expect(failure.message).toContain('Too many requests');
	});

	test('a 5xx or no answer is n8n being unavailable, with the network code in its message', () => {
		expect(classifyRecordFailure(answered(500))).toMatchObject({
			kind: 'unavailable',
		});
		expect(classifyRecordFailure(answered(503))).toMatchObject({ kind: 'unavailable' });
		expect(classifyRecordFailure({ message: 'socket hang up', code: 'ECONNRESET' })).toMatchObject({
			kind: 'unavailable',
			status: 0,
			message: 'ECONNRESET: socket hang up',
		});
		expect(
			classifyRecordFailure({
				message: 'connect ECONNREFUSED 127.0.0.1:5678',
				code: 'ECONNREFUSED',
			}),
		).toMatchObject({ kind: 'unavailable' });
		expect(
			classifyRecordFailure({ message: 'timeout of 10000ms exceeded', code: 'ECONNABORTED' }),
		).toMatchObject({ kind: 'unavailable' });
	});

	test('401 and 403 are the credential, 404 a missing table, other answers refusals', () => {
		expect(classifyRecordFailure(answered(401)).kind).toBe('credential');
		expect(classifyRecordFailure(answered(403)).kind).toBe('credential');
		expect(classifyRecordFailure(answered(404)).kind).toBe('notFound');
		expect(classifyRecordFailure(answered(400)).kind).toBe('refused');
	});
});

describe('when a failed record call is tried again', () => {
	const noJitter = () => 0;
	const rateLimited = (retryAfterMs?: number) =>
		({
			kind: 'rateLimited',
			status: 429,
			message: '',
			retryAfterMs,
		}) as const;
	const unavailable = {
		kind: 'unavailable',
		status: 500,
		message: '',
	} as const;

	test('a 429 waits what Retry-After asks while it fits in the budget, else gives up at once', () => {
		expect(recordRetryDelayMs(rateLimited(1000), 0, 15_000, noJitter)).toBe(1000);
		expect(recordRetryDelayMs(rateLimited(1000), 5, 15_000, noJitter)).toBe(1000);
		expect(recordRetryDelayMs(rateLimited(60_000), 0, 15_000, noJitter)).toBeUndefined();
		expect(recordRetryDelayMs(rateLimited(1000), 0, 900, noJitter)).toBeUndefined();
	});

	test('a 5xx or no answer backs off from 250 ms, doubling up to 4 s, within the budget', () => {
		const delays = [0, 1, 2, 3, 4, 5, 6].map((n) =>
			recordRetryDelayMs(unavailable, n, 15_000, noJitter),
		);
		expect(delays).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
		expect(recordRetryDelayMs(rateLimited(), 2, 15_000, noJitter)).toBe(1000);
	});

	test('when the next back-off would pass the end of the budget, the last try is made at its end', () => {
		expect(recordRetryDelayMs(unavailable, 4, 3000, noJitter)).toBe(3000);
		expect(recordRetryDelayMs(unavailable, 4, 3000, () => 1)).toBe(3000);
		expect(recordRetryDelayMs(unavailable, 4, 200, noJitter)).toBeUndefined();
		expect(recordRetryDelayMs(unavailable, 4, -5, noJitter)).toBeUndefined();
	});

	test('the tries of a call n8n does not answer span the whole budget', () => {
		const triedAt = [0];
		for (let retries = 0; ; retries++) {
			const delay = recordRetryDelayMs(unavailable, retries, 15_000 - triedAt.at(-1)!, noJitter);
			if (delay === undefined) break;
			triedAt.push(triedAt.at(-1)! + delay);
		}
		expect(triedAt).toEqual([0, 250, 750, 1750, 3750, 7750, 11_750, 15_000]);
	});

	test('jitter adds up to a quarter of the back-off', () => {
		expect(recordRetryDelayMs(unavailable, 2, 15_000, () => 1)).toBe(1250);
	});

	test('refusals are not tried again', () => {
		for (const kind of ['credential', 'notFound', 'refused'] as const) {
			expect(recordRetryDelayMs({ kind, status: 400, message: '' }, 0, 15_000)).toBeUndefined();
		}
	});
});

describe('the words of a record call that failed for good', () => {
	test('a rate limit says so, with the limit, the wait asked for and how long it was tried', () => {
		const text = recordFailureText(
			{
				kind: 'rateLimited',
				status: 429,
				message: 'Request failed with status code 429: Too many requests',
				retryAfterMs: 30_000,
				limit: '10;w=60',
			},
			{ method: 'POST', path: '/data-tables/x/rows' },
			15_200,
		);
		expect(text).toBe(
			"n8n's API rate-limited the record's write calls (limit 10;w=60): 429 Request failed with status code 429: Too many requests; it asked to wait 30 s, tried for 15 s",
		);
	});

	test("no answer says that n8n's API did not answer, not that the key is wrong", () => {
		const text = recordFailureText(
			{
				kind: 'unavailable',
				status: 0,
				message: 'ECONNRESET: socket hang up',
			},
			{ method: 'GET', path: '/data-tables/x/rows' },
			15_000,
		);
		expect(text).toBe(
			"n8n's API did not answer the record's read call (no answer: ECONNRESET: socket hang up, tried for 15 s)",
		);
		expect(text).not.toMatch(/credential|key/i);
	});
});

describe("n8n's answers while it starts up", () => {
	test('a 404 that is not JSON is the API not being there yet, tried again; a JSON 404 is a missing table', () => {
		const notMounted = classifyRecordFailure({
			message: 'Request failed with status code 404',
			response: { status: 404, data: '<pre>Cannot POST /api/v1/data-tables/x/rows</pre>' },
		});
		expect(notMounted).toMatchObject({ kind: 'unavailable' });
		expect(notMounted.message).toContain('Cannot POST /api/v1/data-tables/x/rows');
		expect(notMounted.message).toContain('n8n is starting up, or the n8n API URL is wrong');
		expect(
			classifyRecordFailure({
				message: 'Request failed with status code 404',
				response: { status: 404, data: { message: 'Data table not found' } },
			}).kind,
		).toBe('notFound');
	});

	test('"n8n is starting up. Please wait" answered 200 is a failure that is tried again; JSON answers are not', () => {
		expect(textAnswerFailure('n8n is starting up. Please wait')).toMatchObject({
			kind: 'unavailable',
		});
		expect(textAnswerFailure({ data: [] })).toBeUndefined();
		expect(textAnswerFailure([{ id: 1 }])).toBeUndefined();
		expect(textAnswerFailure('')).toBeUndefined();
		expect(textAnswerFailure(true)).toBeUndefined();
	});
});
